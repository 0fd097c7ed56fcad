//! What the command line says when something is off, as a new user meets it: a URL pasted
//! without its scheme, `add --no-fetch` of a new feed, a file that is not a database.

mod support;

use support::{stderr, stdout, tidings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_without_its_scheme_is_answered_with_the_url_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let out = tidings(&db, &["add", "example.org/feed.xml"]).await;
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out).trim_end(),
        "example.org/feed.xml: no scheme (http:// or https://): did you mean \
         https://example.org/feed.xml?"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_no_fetch_says_a_new_feed_was_added_and_a_known_one_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let url = "https://feeds.example/feed.xml";
    let out = tidings(&db, &["add", "--no-fetch", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains(&format!("feed 1: {url} added, not read now (--no-fetch)")),
        "{said}"
    );
    assert!(!said.contains("already known"), "{said}");
    let out = tidings(&db, &["add", "--no-fetch", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("already known"), "{}", stdout(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_is_not_a_database_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.db");
    std::fs::write(&db, "these are notes, not a database\n".repeat(200)).unwrap();
    let out = tidings(&db, &["feeds"]).await;
    assert!(!out.status.success());
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with("error: cannot open the database "),
        "{said}"
    );
    assert_eq!(said.matches("file is not a database").count(), 1, "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_boolean_variable_takes_the_usual_spellings() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (value, allowed)) in [
        ("1", true),
        ("yes", true),
        ("on", true),
        ("true", true),
        ("0", false),
        ("no", false),
        ("off", false),
        ("false", false),
    ]
    .into_iter()
    .enumerate()
    {
        let db = dir.path().join(format!("t{i}.db"));
        let out = support::command(&db)
            .env("TIDINGS_ALLOW_PRIVATE_NETWORKS", value)
            .args(["add", "--no-fetch", "http://127.0.0.1:9/feed.xml"])
            .output()
            .await
            .unwrap();
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(
            said.contains(" added, not read now"),
            allowed,
            "{value}: {said}"
        );
        assert_eq!(said.contains("is loopback"), !allowed, "{value}: {said}");
    }
    let db = dir.path().join("t.db");
    let out = support::command(&db)
        .env("TIDINGS_ALLOW_PRIVATE_NETWORKS", "maybe")
        .args(["feeds"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not a boolean"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_that_is_not_a_terminal_has_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let out = tidings(
        &db,
        &[
            "--log",
            "debug",
            "add",
            "--no-fetch",
            "https://feeds.example/x.xml",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    assert!(log.contains("DEBUG"), "something was logged: {log}");
    assert!(!log.contains('\u{1b}'), "no escape codes: {log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_postgresql_is_said_with_its_cause() {
    // A port nothing listens on: taken, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://tidings:secret@127.0.0.1:{port}/none");
    let out = support::command(std::path::Path::new(&url))
        .args(["feeds"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(said.contains("Connection refused"), "{said}");
    assert!(!said.contains("pool timed out"), "{said}");
    assert!(
        !said.contains("secret"),
        "the password is never shown: {said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsubscribing_stops_the_reads_and_the_feed_can_be_added_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let url = "https://feeds.example/feed.xml";
    let out = tidings(&db, &["add", "--no-fetch", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["unsubscribe", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no subscriber is left, so it is no longer read"),
        "{}",
        stdout(&out)
    );
    // Nothing is due: a fetch reads nothing.
    let out = tidings(&db, &["fetch"]).await;
    assert!(
        stdout(&out).contains("0 feeds: fetched 0"),
        "{}",
        stdout(&out)
    );
    // Not subscribed any more: said, and a failing exit.
    let out = tidings(&db, &["unsubscribe", "1"]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("was not subscribed from the command line"));
    // Unlike a removal, the URL may be added again.
    let out = tidings(&db, &["add", "--no-fetch", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["feeds", "--json"]).await;
    let feed: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(feed["subscribers"], 1, "{feed}");
}
