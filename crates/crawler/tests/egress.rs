//! WFM7: a feed an operator assigned an egress address is read from that address, hop by hop,
//! and the request log says which; robots.txt and other feeds go from the default address.
//! WFM8: refused from one address, a feed climbs the refusal ladder and stays where it is;
//! refused from every address it was read from, it is switched off.

mod support;

use std::net::IpAddr;
use support::{Answer, FEED, Script, as_profile, crawler_configured, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::{FeedPatch, FeedState, LogQuery, Store};

fn ip(text: &str) -> IpAddr {
    text.parse().expect("test address")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm7_an_assigned_egress_sends_the_feeds_requests_and_is_logged() {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok("User-agent: *\nAllow: /\n"));
    script.push(
        "/old.xml",
        Answer::status(301).header("location", "/feed.xml"),
    );
    script.push("/feed.xml", Answer::ok(FEED));
    script.push("/other.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_configured(
        dir.path(),
        |_| {},
        |config| config.egress = vec![ip("127.0.0.5")],
    )
    .await;
    let base = format!("http://127.0.0.1:{port}");
    let assigned = subscribe(&store, &format!("{base}/old.xml")).await;
    let plain = subscribe(&store, &format!("{base}/other.xml")).await;
    let assigned = assign(&store, assigned.id, "127.0.0.5").await;

    crawler.refresh(&assigned, Purpose::FirstAdd).await.unwrap();
    crawler.refresh(&plain, Purpose::FirstAdd).await.unwrap();

    let sources = script.sources.lock().unwrap().clone();
    assert_eq!(
        sources,
        [
            ("/robots.txt".to_owned(), ip("127.0.0.1")),
            ("/old.xml".to_owned(), ip("127.0.0.5")),
            ("/feed.xml".to_owned(), ip("127.0.0.5")),
            ("/other.xml".to_owned(), ip("127.0.0.1")),
        ]
    );
    let mut log = store.request_log(&LogQuery::default()).await.unwrap();
    log.reverse();
    let rows: Vec<(&str, Option<&str>)> = log
        .iter()
        .map(|r| (r.url.rsplit('/').next().unwrap_or(""), r.egress.as_deref()))
        .collect();
    assert_eq!(
        rows,
        [
            ("robots.txt", None),
            ("old.xml", Some("127.0.0.5")),
            ("feed.xml", Some("127.0.0.5")),
            ("other.xml", None),
        ]
    );
}

/// An operator assigns `address` to feed `id`.
async fn assign(
    store: &std::sync::Arc<dyn Store>,
    id: tidings_model::FeedId,
    address: &str,
) -> tidings_store::FeedRecord {
    let patch = FeedPatch::egress(Some(address.into()), chrono::Utc::now());
    store.patch_feed(id, &patch).await.unwrap().unwrap()
}

/// A publisher of `/feed.xml` that refuses requests from `refused` (robots.txt it serves to
/// all), a crawler that may also send from `egress`, and the feed subscribed.
async fn refusing_publisher(
    dir: &std::path::Path,
    refused: &[&str],
    egress: &str,
) -> (
    Script,
    tidings_crawler::Crawler,
    std::sync::Arc<dyn Store>,
    tidings_store::FeedRecord,
) {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok("User-agent: *\nAllow: /\n"));
    script.push("/feed.xml", Answer::ok(FEED));
    script
        .refused_sources
        .lock()
        .unwrap()
        .extend(refused.iter().map(|a| ip(a)));
    let port = serve(script.clone()).await;
    let (crawler, store) = crawler_configured(dir, as_profile("worldfeedmonitor"), |config| {
        config.egress = vec![ip(egress)]
    })
    .await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/feed.xml")).await;
    (script, crawler, store, feed)
}

/// Read `feed` `n` times from its stored state; the state after each read.
async fn refused_reads(
    crawler: &tidings_crawler::Crawler,
    store: &std::sync::Arc<dyn tidings_store::Store>,
    feed: &tidings_store::FeedRecord,
    n: usize,
) -> Vec<tidings_store::FeedRecord> {
    let mut seen = Vec::new();
    for _ in 0..n {
        let current = store.feed(feed.id).await.unwrap().unwrap();
        crawler.refresh(&current, Purpose::Scheduled).await.unwrap();
        seen.push(store.feed(feed.id).await.unwrap().unwrap());
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm8_refused_from_its_only_address_it_slows_down_then_is_off_after_the_whole_ladder() {
    let dir = tempfile::tempdir().unwrap();
    let (script, crawler, store, feed) =
        refusing_publisher(dir.path(), &["127.0.0.1"], "127.0.0.5").await;
    // WorldFeedMonitor's ladder has seven steps (15 min, 15 min, 1 h, 1 h, 6 h, 6 h, 1 d).
    let reads = refused_reads(&crawler, &store, &feed, 7).await;
    for (i, read) in reads[..6].iter().enumerate() {
        assert_eq!(
            read.state,
            FeedState::Active,
            "refusal {}: {:?}",
            i + 1,
            read.state_reason
        );
        assert_eq!(read.egress, None, "never moved because of a refusal");
    }
    assert_eq!(reads[5].consecutive_failures, 6);
    let off = &reads[6];
    assert_eq!(off.state, FeedState::Off);
    assert_eq!(
        off.state_reason.as_deref(),
        Some(
            "refused from every address it was read from (default), through the whole \
             refusal ladder (WFM8)"
        )
    );
    let future = chrono::Utc::now() + chrono::Duration::days(3650);
    assert!(
        store.due_feeds(future, 10).await.unwrap().is_empty(),
        "never due again"
    );
    assert_eq!(script.count("/feed.xml"), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm8_refused_from_every_one_of_two_addresses_it_is_off_after_the_whole_ladder() {
    let dir = tempfile::tempdir().unwrap();
    let (script, crawler, store, feed) =
        refusing_publisher(dir.path(), &["127.0.0.1", "127.0.0.5"], "127.0.0.5").await;
    let reads = refused_reads(&crawler, &store, &feed, 3).await;
    assert!(reads.iter().all(|r| r.state == FeedState::Active));
    // The operator assigns a second address; it refuses too: the ladder goes on, then off.
    assign(&store, feed.id, "127.0.0.5").await;
    let reads = refused_reads(&crawler, &store, &feed, 4).await;
    assert!(reads[..3].iter().all(|r| r.state == FeedState::Active));
    assert_eq!(reads[3].state, FeedState::Off);
    assert_eq!(
        reads[3].state_reason.as_deref(),
        Some(
            "refused from every address it was read from (127.0.0.5, default), through the \
             whole refusal ladder (WFM8)"
        )
    );
    let sources: Vec<IpAddr> = script
        .sources
        .lock()
        .unwrap()
        .iter()
        .filter(|(path, _)| path == "/feed.xml")
        .map(|(_, from)| *from)
        .collect();
    let own = ip("127.0.0.1");
    let second = ip("127.0.0.5");
    assert_eq!(sources, [own, own, own, second, second, second, second]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm8_an_address_that_answers_keeps_the_feed_on() {
    let dir = tempfile::tempdir().unwrap();
    let (_script, crawler, store, feed) =
        refusing_publisher(dir.path(), &["127.0.0.1"], "127.0.0.6").await;
    crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    let moved = assign(&store, feed.id, "127.0.0.6").await;
    crawler.refresh(&moved, Purpose::Scheduled).await.unwrap();
    let read = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(read.state, FeedState::Active);
    assert_eq!(read.last_status, Some(200));
    assert_eq!(
        read.egress_refusals,
        [
            ("127.0.0.6".to_owned(), false),
            ("default".to_owned(), true)
        ]
        .into_iter()
        .collect()
    );
}
