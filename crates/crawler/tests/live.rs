//! The crawler's live state (`Crawler::live`): every request sent is counted once by its
//! outcome and its request-log purpose and timed once, and the host gate shows what it holds.

mod support;

use prometheus_client::registry::Registry;
use std::time::Duration;
use support::{Answer, FEED, Script, crawler_with, serve, subscribe};
use tidings_crawler::{Live, Purpose};

/// The value of the sample named exactly `series` (name and labels) in an exposition.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let (name, value) = line.rsplit_once(' ')?;
        (name == series).then(|| value.parse().unwrap())
    })
}

fn exposition(live: &Live) -> String {
    let mut registry = Registry::default();
    live.register(&mut registry);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_sent_is_counted_by_outcome_and_purpose_and_timed() {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok("User-agent: *\nAllow: /\n"));
    script.push("/a.xml", Answer::ok(FEED).header("etag", "\"v1\""));
    script.push("/a.xml", Answer::status(304));
    // /gone.xml is not scripted: a 404.
    script.push(
        "/old.xml",
        Answer::status(301).header("location", "/new.xml"),
    );
    script.push("/new.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| p.pacing.host_gap = 0.05).await;
    let live = crawler.live();
    let base = format!("http://127.0.0.1:{port}");

    let before = exposition(&live);
    assert_eq!(
        sample(&before, "tidings_fetch_duration_seconds_count"),
        Some(0.0)
    );
    assert_eq!(sample(&before, "tidings_hosts_in_flight"), Some(0.0));
    assert_eq!(
        live.gate("127.0.0.1"),
        tidings_crawler::GateView::default(),
        "nothing sent yet"
    );

    let a = subscribe(&store, &format!("{base}/a.xml")).await;
    crawler.refresh(&a, Purpose::FirstAdd).await.unwrap();
    let a = store.feed(a.id).await.unwrap().unwrap();
    let again = crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(again.outcome, "not_modified");
    let gone = subscribe(&store, &format!("{base}/gone.xml")).await;
    crawler.refresh(&gone, Purpose::Scheduled).await.unwrap();
    let moved = subscribe(&store, &format!("{base}/old.xml")).await;
    crawler.refresh(&moved, Purpose::Scheduled).await.unwrap();

    let text = exposition(&live);
    let fetches = |outcome: &str, purpose: &str| {
        sample(
            &text,
            &format!("tidings_fetches_total{{outcome=\"{outcome}\",purpose=\"{purpose}\"}}"),
        )
    };
    assert_eq!(fetches("ok", "robots"), Some(1.0), "{text}");
    assert_eq!(fetches("ok", "first_add"), Some(1.0));
    assert_eq!(fetches("not_modified", "feed"), Some(1.0));
    assert_eq!(fetches("not_found", "feed"), Some(1.0));
    assert_eq!(fetches("redirect", "feed"), Some(1.0), "a hop is a request");
    assert_eq!(fetches("ok", "feed"), Some(1.0));
    assert_eq!(fetches("ok", "redirect"), None, "no such purpose");
    let sent = script.requests.lock().unwrap().len();
    assert_eq!(sent, 6, "robots.txt once, then five feed requests");
    let counted: f64 = text
        .lines()
        .filter(|l| l.starts_with("tidings_fetches_total{"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap())
        .sum();
    assert_eq!(counted, 6.0, "each request counted once");
    assert_eq!(
        sample(&text, "tidings_fetch_duration_seconds_count"),
        Some(6.0)
    );
    assert_eq!(
        sample(&text, "tidings_fetch_duration_seconds_bucket{le=\"+Inf\"}"),
        Some(6.0)
    );
    assert!(text.contains("# UNIT tidings_fetch_duration_seconds seconds"));
    assert_eq!(sample(&text, "tidings_hosts_in_flight"), Some(0.0));

    // The gate of the host: free, spaced by the profile's gap, the next turn known.
    let gate = live.gate("127.0.0.1");
    assert!(!gate.in_flight);
    assert_eq!(gate.gap, Some(Duration::from_millis(50)));
    assert!(gate.next_allowed_at.is_some());
    assert_eq!(
        live.gate("other.test"),
        tidings_crawler::GateView::default()
    );
}
