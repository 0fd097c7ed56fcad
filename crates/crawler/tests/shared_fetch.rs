//! C2: one read of a feed serves every subscriber.

mod support;

use chrono::Utc;
use std::sync::Arc;
use support::{Answer, FEED, Script, crawler, new_feed, serve};
use tidings_crawler::NoProgress;
use tidings_model::FeedUrl;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c2_one_fetch_serves_every_subscriber() {
    let script = Script::default();
    script.push("/feed.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let url = FeedUrl::parse(&format!("http://127.0.0.1:{port}/feed.xml")).unwrap();
    let now = Utc::now();
    for subscriber in ["ana", "bruno", "chloé"] {
        store
            .subscribe(&url, subscriber, now, &new_feed())
            .await
            .unwrap();
    }
    let summary = crawler
        .refresh_due(Utc::now(), Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(summary.feeds, 1);
    assert_eq!(summary.new_entries, 2);
    assert_eq!(
        script.count("/feed.xml"),
        1,
        "one request for three subscribers"
    );
    let feed = store.feed_by_url(&url).await.unwrap().unwrap();
    assert_eq!(feed.subscribers, 3);
}
