//! What the crawler does with a body: C5 (unchanged body, no validators), C8 (a bad body never
//! overwrites good stored data), and one feed's store failure not ending the run.

mod support;

use std::sync::Arc;
use support::{Answer, FEED, Script, crawler, serve, subscribe};
use tidings_crawler::{NoProgress, Purpose};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c5_an_unchanged_body_without_validators_does_no_further_work() {
    let script = Script::default();
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let first = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!((first.outcome.as_str(), first.new_entries), ("ok", 2));
    let feed = store.feed(feed.id).await.unwrap().unwrap();
    assert!(feed.validators.is_empty(), "the server sends no validators");

    let second = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(second.outcome, "unchanged");
    assert_eq!((second.new_entries, second.updated_entries), (0, 0));
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(after.counters.not_modified, 1);
    assert_eq!(after.consecutive_failures, 0);
    assert_eq!(script.count("/f.xml"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_a_body_that_is_no_feed_keeps_everything_stored() {
    let script = Script::default();
    script.push("/f.xml", Answer::ok(FEED).header("etag", "\"good\""));
    script.push(
        "/f.xml",
        Answer::ok("<html><body>Maintenance</body></html>").header("etag", "\"page\""),
    );
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let good = store.feed(feed.id).await.unwrap().unwrap();

    let report = crawler.refresh(&good, Purpose::Scheduled).await.unwrap();
    assert_eq!(report.outcome, "parse_error");
    assert!(
        report.error.as_deref().unwrap().contains("not a feed"),
        "{report:?}"
    );
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(after.title.as_deref(), Some("Known title"));
    assert_eq!(
        after.validators.etag.as_deref(),
        Some("\"good\""),
        "the page's ETag is not kept"
    );
    assert_eq!(after.content_hash, good.content_hash);
    assert_eq!(after.consecutive_failures, 1);
    assert!(
        after.next_fetch_reason.starts_with("failure 1 (bad_feed)"),
        "{}",
        after.next_fetch_reason
    );
    assert_eq!(store.count_entries(Some(feed.id)).await.unwrap(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_feed_that_cannot_be_stored_does_not_end_the_run() {
    let script = Script::default();
    script.push("/a.xml", Answer::ok(FEED));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://localhost:{port}/b.xml")).await;
    // b's result cannot be stored: its record names a feed the store does not have.
    let feeds = store.due_feeds(chrono::Utc::now(), 10).await.unwrap();
    let mut doomed = feeds.iter().find(|f| f.id == b.id).unwrap().clone();
    doomed.id = tidings_model::FeedId(9_999);
    let mut all: Vec<_> = feeds.into_iter().filter(|f| f.id != b.id).collect();
    all.push(doomed);
    let reports = crawler
        .refresh_feeds(all, Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(reports.len(), 2);
    let failed: Vec<_> = reports.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]
            .error
            .as_deref()
            .unwrap()
            .starts_with("not stored"),
        "{failed:?}"
    );
    assert!(
        reports.iter().any(|r| r.new_entries == 2),
        "the other feed was read and stored"
    );
}
