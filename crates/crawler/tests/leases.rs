//! C3 across processes: a run gives back every host it claimed before it returns, with the
//! end of its last request there, so another process may take the host at once.

mod support;

use chrono::Utc;
use std::sync::Arc;
use support::{Answer, FEED, Script, crawler, new_feed, serve};
use tidings_crawler::NoProgress;
use tidings_model::FeedUrl;
use tidings_store::HostClaim;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_a_run_gives_back_every_host_before_it_returns() {
    let script = Script::default();
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        script.push(path, Answer::ok(FEED));
    }
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        let url = FeedUrl::parse(&format!("http://127.0.0.1:{port}{path}")).unwrap();
        store
            .subscribe(&url, "ana", Utc::now(), &new_feed())
            .await
            .unwrap();
    }
    let summary = crawler
        .refresh_due(Utc::now(), Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(summary.feeds, 3);
    assert_eq!(summary.failed, 0);

    // Another holder finds the host free at once: the run claimed it (the new claim's
    // fencing token moved past the run's) and gave it back with its last request's end.
    let now = Utc::now();
    let claim = store
        .claim_host(
            "127.0.0.1",
            "another process",
            now,
            now + chrono::Duration::seconds(60),
        )
        .await
        .unwrap();
    match claim {
        HostClaim::Held(lease) => {
            assert!(
                lease.token >= 2,
                "the run never claimed the host: {lease:?}"
            );
            let end = lease.last_end.expect("given back with its last end");
            assert!(end <= now, "{end} after {now}");
        }
        HostClaim::Busy { until } => panic!("the run still holds the host, until {until}"),
    }
}

/// Feeds given to a run (`tidings add`) go through the same loop as due ones: read once each
/// whether due or not, reported in the order given, and every host they are on given back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_feeds_given_to_a_run_are_read_once_and_their_hosts_given_back() {
    let script = Script::default();
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        script.push(path, Answer::ok(FEED));
        script.push(path, Answer::ok(FEED));
    }
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    // Two hosts: the same server as 127.0.0.1 and as localhost.
    let urls = [
        format!("http://127.0.0.1:{port}/a.xml"),
        format!("http://localhost:{port}/b.xml"),
        format!("http://127.0.0.1:{port}/c.xml"),
    ];
    for url in &urls {
        let url = FeedUrl::parse(url).unwrap();
        store
            .subscribe(&url, "ana", Utc::now(), &new_feed())
            .await
            .unwrap();
    }
    crawler
        .refresh_due(Utc::now(), Arc::new(NoProgress))
        .await
        .unwrap();
    // Read just now: none is due, and they are given in the reverse order.
    let mut feeds = Vec::new();
    for url in urls.iter().rev() {
        let url = FeedUrl::parse(url).unwrap();
        feeds.push(store.feed_by_url(&url).await.unwrap().unwrap());
    }
    assert!(feeds.iter().all(|f| f.next_fetch_at > Utc::now()));
    let ids: Vec<_> = feeds.iter().map(|f| f.id).collect();
    let reports = crawler
        .refresh_feeds(feeds, Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(reports.iter().map(|r| r.feed_id).collect::<Vec<_>>(), ids);
    assert!(reports.iter().all(|r| r.error.is_none()), "{reports:?}");
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        assert_eq!(script.count(path), 2, "{path}");
    }
    let now = Utc::now();
    for host in ["127.0.0.1", "localhost"] {
        let claim = store
            .claim_host(
                host,
                "another process",
                now,
                now + chrono::Duration::seconds(60),
            )
            .await
            .unwrap();
        assert!(matches!(claim, HostClaim::Held(_)), "{host}: {claim:?}");
    }
}
