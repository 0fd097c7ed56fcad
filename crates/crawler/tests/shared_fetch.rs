//! C2: one read of a feed serves every subscriber.

use chrono::Utc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tidings_crawler::{Crawler, CrawlerConfig, NoProgress};
use tidings_fetch::{FetchConfig, Fetcher};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const FEED: &str = r#"<rss version="2.0"><channel><title>Shared</title>
<item><guid>one</guid><title>One</title></item></channel></rss>"#;

/// Serve FEED to every request, counting them.
async fn publisher() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).await;
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/rss+xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{FEED}",
                FEED.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        }
    });
    (port, count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c2_one_fetch_serves_every_subscriber() {
    let (port, requests) = publisher().await;
    let dir = tempfile::tempdir().unwrap();
    let store = tidings_store::open(dir.path().join("c2.db").to_str().unwrap())
        .await
        .unwrap();
    let url = FeedUrl::parse(&format!("http://127.0.0.1:{port}/feed.xml")).unwrap();
    let now = Utc::now();
    for subscriber in ["ana", "bruno", "chloé"] {
        store.subscribe(&url, subscriber, now).await.unwrap();
    }
    let mut config = FetchConfig::new("tidings-test/1");
    config.allow_private_networks = true;
    let profile = Profile::embedded("default").unwrap();
    let crawler = Crawler::new(
        store.clone(),
        Arc::new(Fetcher::new(config).unwrap()),
        Arc::new(profile),
        CrawlerConfig::default(),
    );
    let summary = crawler
        .refresh_due(now, Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(summary.feeds, 1);
    assert_eq!(summary.new_entries, 1);
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "one request for three subscribers"
    );
    let feed = store.feed_by_url(&url).await.unwrap().unwrap();
    assert_eq!(feed.subscribers, 3);
}
