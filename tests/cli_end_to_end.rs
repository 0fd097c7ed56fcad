//! The CLI end to end against a local publisher: add, fetch (304), a changed feed, entries,
//! OPML out and in, and clear errors.

mod support;

use support::{Publisher, Resource, fast_profile, rss, stderr, stdout, tidings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_fetch_not_modified_then_new_entries() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set("/alpha.xml", Resource::feed(rss("alpha", 1, 3), "\"a1\""));
    publisher.set("/beta.xml", Resource::feed(rss("beta", 1, 2), "W/\"b 1\""));
    let (a, b) = (publisher.url("/alpha.xml"), publisher.url("/beta.xml"));
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];

    // add: subscribes and reads each feed once, unconditionally.
    let out = tidings(&db, &[&common[..], &["add", &a, &b]].concat()).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("alpha.xml added, 3 entries"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("beta.xml added, 2 entries"),
        "{}",
        stdout(&out)
    );
    // robots.txt first (FF11), once for the origin both feeds share, then the two feeds.
    let first = publisher.seen();
    assert_eq!(first.len(), 3);
    assert_eq!(first[0].path, "/robots.txt");
    let first = &first[1..];
    assert!(
        first
            .iter()
            .all(|s| !s.headers.contains_key("if-none-match"))
    );
    let agent = first[0].headers["user-agent"].clone();
    assert!(agent.starts_with("tidings-test/"), "{agent}");

    // fetch once the interval has passed: both answer 304, validators echoed exactly (C4).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = tidings(&db, &[&common[..], &["fetch"]].concat()).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 feeds: fetched 0, not modified 2, failed 0, new entries 0"),
        "{}",
        stdout(&out)
    );
    let second = &publisher.seen()[3..];
    assert_eq!(second.len(), 2);
    for seen in second {
        assert_eq!(seen.status, 304);
        let want = if seen.path == "/alpha.xml" {
            "\"a1\""
        } else {
            "W/\"b 1\""
        };
        assert_eq!(seen.headers["if-none-match"], want);
        assert_eq!(
            seen.headers["if-modified-since"],
            "Tue, 03 Nov 2026 10:00:00 GMT"
        );
        assert_eq!(seen.headers["user-agent"], agent, "C1: one User-Agent");
    }

    // alpha publishes a fourth story: one fetch, one new entry, beta stays 304.
    publisher.set("/alpha.xml", Resource::feed(rss("alpha", 1, 4), "\"a2\""));
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = tidings(&db, &[&common[..], &["fetch"]].concat()).await;
    assert!(
        stdout(&out).contains("2 feeds: fetched 1, not modified 1, failed 0, new entries 1"),
        "{}",
        stdout(&out)
    );

    // entries: all six, newest first, and by feed and by search.
    let out = tidings(&db, &["entries", "--json"]).await;
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    let titles: Vec<&str> = lines
        .iter()
        .map(|l| l["entry"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles[0], "alpha story 4");
    let out = tidings(&db, &["entries", "--feed", "2"]).await;
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("beta story 2"));
    let out = tidings(&db, &["entries", "--search", "story 4"]).await;
    assert!(stdout(&out).contains("alpha story 4"), "{}", stdout(&out));

    // log: every request, newest first; by feed and by host.
    let out = tidings(&db, &["log", "--json"]).await;
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 7, "robots.txt, 2 first reads, 2 + 2 refreshes");
    assert_eq!(rows[6]["purpose"], "robots");
    assert_eq!(rows[5]["purpose"], "first_add");
    assert_eq!(
        rows[5]["rule"],
        "first add; robots: 404, everything allowed"
    );
    assert!(
        rows[0]["rule"]
            .as_str()
            .unwrap()
            .starts_with("due: interval"),
        "{}",
        rows[0]
    );
    let out = tidings(&db, &["log", "--feed", "2"]).await;
    assert_eq!(stdout(&out).lines().count(), 3, "{}", stdout(&out));
    assert!(stdout(&out).lines().all(|l| l.contains("/beta.xml")));
    let out = tidings(&db, &["log", "--host", "127.0.0.1"]).await;
    assert_eq!(stdout(&out).lines().count(), 7);
    let out = tidings(&db, &["log", "--host", "elsewhere.test"]).await;
    assert_eq!(stdout(&out), "");

    // feeds lists both with their status, each with the reason for its next read.
    let out = tidings(&db, &["feeds"]).await;
    assert!(stdout(&out).contains("alpha"), "{}", stdout(&out));
    assert_eq!(stdout(&out).lines().count(), 5);
    assert_eq!(
        stdout(&out).matches("why: interval 1s").count(),
        2,
        "{}",
        stdout(&out)
    );

    // OPML out, and into a fresh database.
    let opml = dir.path().join("subs.opml");
    let out = tidings(&db, &["export-opml", "-o", opml.to_str().unwrap()]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let other = dir.path().join("other.db");
    // The feeds are on loopback: subscribing to them takes the flag the reads need.
    let import = [
        "--allow-private-networks",
        "import-opml",
        opml.to_str().unwrap(),
    ];
    let out = tidings(&other, &import).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 new feeds"), "{}", stdout(&out));
    let out = tidings(&other, &["feeds", "--json"]).await;
    assert!(stdout(&out).contains("/alpha.xml") && stdout(&out).contains("/beta.xml"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_feeds_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let publisher = Publisher::start().await;
    publisher.set("/f.xml", Resource::feed(rss("f", 1, 1), "\"1\""));
    let out = tidings(&db, &["add", &publisher.url("/f.xml")]).await;
    assert!(!out.status.success());
    // Refused when subscribed, since no read of it could pass the address guard.
    assert!(
        stderr(&out).contains("address 127.0.0.1 is loopback")
            && stderr(&out).contains("--allow-private-networks"),
        "{}",
        stderr(&out)
    );
    assert!(
        publisher.seen().is_empty(),
        "nothing may reach a loopback target"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_one_clear_line_and_a_failing_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let cases: [(&[&str], &str); 4] = [
        (&["add", "ftp://example.test/feed"], "only http and https"),
        (
            &["entries", "--since", "yesterday"],
            "cannot read \"yesterday\" as a time",
        ),
        (
            &["--profile", "nonesuch", "feeds"],
            "no embedded profile named \"nonesuch\"",
        ),
        (
            &["import-opml", "/nonexistent/subs.opml"],
            "cannot read /nonexistent/subs.opml",
        ),
    ];
    for (args, want) in cases {
        let out = tidings(&db, args).await;
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("stack backtrace"),
            "{err}"
        );
        assert!(err.lines().count() <= 2, "{args:?}: {err}");
    }
    let out = tidings(&dir.path().join("no/such/dir/t.db"), &["feeds"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).starts_with("error: cannot open the database"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn parse_prints_the_model_or_the_error_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.xml");
    std::fs::write(&good, rss("parsed", 1, 2)).unwrap();
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "<html><body>not a feed</body></html>").unwrap();
    let out = tidings(
        &dir.path().join("unused.db"),
        &[
            "parse",
            "--jsonl",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
    )
    .await;
    assert!(
        !out.status.success(),
        "one file failed, so the exit code says so"
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["format"], "rss20");
    assert_eq!(lines[0]["entries"][1]["title"], "parsed story 2");
    assert_eq!(lines[1]["ok"], false);
    assert!(lines[1]["error"].as_str().unwrap().contains("not a feed"));
    assert!(
        !dir.path().join("unused.db").exists(),
        "parse needs no database"
    );
}

#[tokio::test]
async fn settings_come_from_flags_then_environment_then_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tidings.toml");
    let (file_db, env_db, flag_db) = (
        dir.path().join("file.db"),
        dir.path().join("env.db"),
        dir.path().join("flag.db"),
    );
    std::fs::write(&config, format!("db = {:?}\n", file_db.to_str().unwrap())).unwrap();
    let run = |env_db: Option<&std::path::Path>, args: Vec<String>| {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tidings"));
        cmd.args(&args)
            .env_remove("TIDINGS_DB")
            .env_remove("TIDINGS_PROFILE");
        cmd.env("TIDINGS_CONFIG", &config);
        if let Some(db) = env_db {
            cmd.env("TIDINGS_DB", db);
        }
        cmd.output()
    };
    // The file alone; the global option after the subcommand works as well as before it.
    let out = run(None, vec!["import-opml".into(), "/dev/null".into()])
        .await
        .unwrap();
    assert!(!out.status.success(), "an empty file is not OPML");
    assert!(file_db.exists(), "the config file's db was used");
    let out = run(Some(&env_db), vec!["feeds".into()]).await.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env_db.exists(), "TIDINGS_DB wins over the file");
    let out = run(
        Some(&env_db),
        vec![
            "feeds".into(),
            "--db".into(),
            flag_db.to_string_lossy().into(),
        ],
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        flag_db.exists(),
        "the flag wins over TIDINGS_DB, after the subcommand too"
    );
}

/// C6: a feed added while its host asks everyone to wait is subscribed, not read; `add` says
/// so and when the first read will be, rather than "added, 0 entries".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c6_add_says_when_a_host_floor_postponed_the_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set("/busy.xml", Resource::busy("3600"));
    publisher.set("/later.xml", Resource::feed(rss("later", 1, 2), "\"l1\""));
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];

    let out = tidings(
        &db,
        &[&common[..], &["add", &publisher.url("/busy.xml")]].concat(),
    )
    .await;
    assert!(
        stdout(&out).contains("the first read failed"),
        "{}",
        stdout(&out)
    );
    let out = tidings(
        &db,
        &[&common[..], &["add", &publisher.url("/later.xml")]].concat(),
    )
    .await;
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("later.xml added, not read yet: "), "{text}");
    assert!(text.contains("first read at "), "{text}");
    assert!(!text.contains("0 entries"), "{text}");
    assert!(
        publisher.seen().iter().all(|s| s.path != "/later.xml"),
        "nothing is sent to a host that asked to wait"
    );
}

/// A first read that fails keeps the feed, says when it is read again and how to drop it;
/// adding it again says its last read failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_first_read_says_what_failed_and_how_to_drop_the_feed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    let url = publisher.url("/missing.xml");
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];
    let out = tidings(&db, &[&common[..], &["add", &url]].concat()).await;
    assert!(
        !out.status.success(),
        "a failed first read fails the command"
    );
    let said = stdout(&out);
    assert!(
        said.contains("added, but the first read failed: "),
        "{said}"
    );
    assert!(said.contains("404"), "{said}");
    assert!(said.contains("It is kept and read again at "), "{said}");
    assert!(said.contains("`tidings unsubscribe 1` drops it"), "{said}");
    let out = tidings(&db, &[&common[..], &["add", &url]].concat()).await;
    let said = stdout(&out);
    assert!(said.contains("already known"), "{said}");
    assert!(said.contains("its last read failed: "), "{said}");
    assert!(said.contains("read again "), "{said}");
}
