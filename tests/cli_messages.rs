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
