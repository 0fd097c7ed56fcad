//! Profiles from the command line: the embedded seed profiles by name, a clear error for an
//! unknown one, and a ladder's pause (PF5) lifted by `tidings resume`.

mod support;

use support::{FAST_PROFILE, Publisher, Resource, rss, stderr, stdout, tidings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_profiles_by_name_and_a_clear_error_for_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    for name in [
        "plainfeeder",
        "wfm",
        "SereneReader",
        "dfb",
        "ffbot",
        "default",
    ] {
        let out = tidings(&db, &["--profile", name, "feeds"]).await;
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
    let out = tidings(&db, &["--profile", "rudebot", "feeds"]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("rudebot"), "{err}");
    assert!(
        err.contains("plainfeeder"),
        "lists the known profiles: {err}"
    );
}

/// PF5 on the wire: 404s pause the feed after the profile's count; a paused feed gets no
/// request until `tidings resume`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf5_a_paused_feed_is_left_alone_until_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = dir.path().join("pf-fast.toml");
    std::fs::write(
        &profile,
        format!(
            "{FAST_PROFILE}\n[[ladders]]\nrule = \"PF5\"\non = [\"not_found\"]\nsteps = [1]\n\
             unit = \"interval\"\npause_after = 2\n"
        ),
    )
    .unwrap();
    let publisher = Publisher::start().await;
    let url = publisher.url("/later.xml");
    let common = [
        "--profile",
        profile.to_str().unwrap(),
        "--allow-private-networks",
    ];
    let run = |args: &'static [&'static str]| {
        let db = db.clone();
        let common = common.map(str::to_string);
        async move {
            let mut all: Vec<&str> = common.iter().map(String::as_str).collect();
            all.extend_from_slice(args);
            tidings(&db, &all).await
        }
    };
    let out = tidings(&db, &[&common[..], &["add", &url]].concat()).await;
    assert!(
        !out.status.success(),
        "the first read failed: {}",
        stdout(&out)
    );
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = run(&["fetch"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let feeds = stdout(&run(&["feeds"]).await);
    assert!(feeds.contains("paused"), "{feeds}");
    assert!(feeds.contains("PF5"), "the reason is shown: {feeds}");
    let requests = |p: &Publisher| p.seen().iter().filter(|s| s.path == "/later.xml").count();
    assert_eq!(requests(&publisher), 2);

    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert!(run(&["fetch"]).await.status.success());
    assert_eq!(requests(&publisher), 2, "paused: no request");

    publisher.set("/later.xml", Resource::feed(rss("later", 1, 2), "\"l1\""));
    let out = run(&["resume", "1"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("resumed"), "{}", stdout(&out));
    let out = run(&["fetch"]).await;
    assert!(
        stdout(&out).contains("new entries 2"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(requests(&publisher), 3);
    let out = run(&["resume", "1"]).await;
    assert!(
        !out.status.success(),
        "an active feed has nothing to resume"
    );
    assert!(stderr(&out).contains("not paused"), "{}", stderr(&out));
}
