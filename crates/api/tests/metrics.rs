//! `GET /metrics`: the store's gauges at scrape time, and the live crawler's series when one
//! runs in the process, in the OpenMetrics text format.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

use chrono::{Duration, Utc};
use std::sync::Arc;
use support::{Server, http, ok, t};
use tidings_api::auth::AuthConfig;
use tidings_crawler::gate::HostGate;
use tidings_crawler::{Clock, Live};
use tidings_fetch::FetchResponse;
use tidings_model::{FeedUrl, FetchOutcome, Fetched};
use tidings_store::FeedState;

/// The scrape's body, after checking its status and content type.
async fn scrape(server: &Server) -> String {
    let (status, content_type, body) = http(server.addr, "GET", "/metrics").await;
    let text = String::from_utf8(body).expect("utf-8 exposition");
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        content_type,
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    assert!(text.ends_with("# EOF\n"), "{text}");
    text
}

/// The value of the sample named exactly `series` (name and labels).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let (name, value) = line.rsplit_once(' ')?;
        (name == series).then(|| value.parse().expect("a number"))
    })
}

/// Feeds in every state: two due now, one due in a month, one each paused, off and removed.
async fn seed(server: &Server) {
    let mut ids = Vec::new();
    for name in ["due-a", "due-b", "later", "paused", "off", "removed"] {
        ids.push(
            server
                .subscribe(&format!("https://{name}.example/feed.xml"), "alice")
                .await,
        );
    }
    let [_, _, later, paused, off, removed] = ids[..] else {
        unreachable!()
    };
    let mut r = ok(later, t(10), Vec::new());
    r.update.next_fetch_at = Utc::now() + Duration::days(30);
    server.store.apply_fetch(r).await.unwrap();
    for (id, state) in [(paused, FeedState::Paused), (off, FeedState::Off)] {
        let mut r = ok(id, t(20), Vec::new());
        r.update.state = state;
        r.update.state_reason = Some("a reason".into());
        server.store.apply_fetch(r).await.unwrap();
    }
    assert!(server.store.remove_feed(removed).await.unwrap());
}

fn response(outcome: FetchOutcome, millis: i64) -> FetchResponse {
    FetchResponse {
        outcome,
        final_url: FeedUrl::parse("https://example.org/feed.xml")
            .unwrap()
            .as_url()
            .clone(),
        redirects: Vec::new(),
        bytes: 0,
        started_at: Utc::now(),
        duration: Duration::milliseconds(millis).to_std().unwrap(),
    }
}

#[tokio::test]
async fn without_a_crawler_the_store_gauges_and_build_info_alone() {
    let server = Server::start().await;
    seed(&server).await;
    let text = scrape(&server).await;
    assert_eq!(sample(&text, "tidings_due_feeds"), Some(2.0), "{text}");
    for (state, n) in [
        ("active", 3.0),
        ("paused", 1.0),
        ("off", 1.0),
        ("removed", 1.0),
    ] {
        assert_eq!(
            sample(&text, &format!("tidings_feeds{{state=\"{state}\"}}")),
            Some(n),
            "{state}: {text}"
        );
    }
    assert_eq!(
        sample(&text, "tidings_build_info{version=\"test\"}"),
        Some(1.0)
    );
    for absent in ["tidings_fetches", "tidings_fetch_duration", "tidings_hosts"] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
}

#[tokio::test]
async fn a_live_crawler_adds_its_fetches_latency_and_hosts_in_flight() {
    let gate = Arc::new(HostGate::new());
    let live = Live::new(gate.clone(), Clock::real());
    let server = Server::with_live(live.clone()).await;
    seed(&server).await;
    let empty = scrape(&server).await;
    assert_eq!(
        sample(&empty, "tidings_fetch_duration_seconds_count"),
        Some(0.0),
        "{empty}"
    );

    let fetched = || {
        FetchOutcome::Fetched(Fetched {
            status: 200,
            body: Vec::new(),
            content_type: None,
            validators: Default::default(),
            cache: Default::default(),
            rights: None,
        })
    };
    live.record("feed", &response(fetched(), 3));
    live.record("feed", &response(fetched(), 40));
    live.record("feed", &response(FetchOutcome::NotFound, 2_000));
    live.record("robots", &response(fetched(), 45_000));
    let blocked = FetchOutcome::Blocked {
        reason: "address guard".into(),
    };
    live.record("feed", &response(blocked, 0));
    let url = FeedUrl::parse("https://example.org/feed.xml").unwrap();
    let permit = gate
        .acquire(url.as_url(), std::time::Duration::from_secs(1))
        .await;

    let text = scrape(&server).await;
    let fetches = |outcome: &str, purpose: &str| {
        sample(
            &text,
            &format!("tidings_fetches_total{{outcome=\"{outcome}\",purpose=\"{purpose}\"}}"),
        )
    };
    assert_eq!(fetches("ok", "feed"), Some(2.0), "{text}");
    assert_eq!(fetches("not_found", "feed"), Some(1.0));
    assert_eq!(fetches("ok", "robots"), Some(1.0));
    assert_eq!(fetches("blocked", "feed"), None, "not sent, not counted");
    let bucket = |le: &str| {
        sample(
            &text,
            &format!("tidings_fetch_duration_seconds_bucket{{le=\"{le}\"}}"),
        )
    };
    assert_eq!(bucket("0.005"), Some(1.0), "{text}");
    assert_eq!(bucket("0.05"), Some(2.0));
    assert_eq!(bucket("2.5"), Some(3.0));
    assert_eq!(bucket("30.0"), Some(3.0), "45 s is past the last bound");
    assert_eq!(bucket("+Inf"), Some(4.0));
    assert_eq!(
        sample(&text, "tidings_fetch_duration_seconds_count"),
        Some(4.0)
    );
    assert_eq!(sample(&text, "tidings_hosts_in_flight"), Some(1.0));
    // The store's gauges are there too, counted at the crawler's time.
    assert_eq!(sample(&text, "tidings_due_feeds"), Some(2.0));
    drop(permit);
    let after = scrape(&server).await;
    assert_eq!(sample(&after, "tidings_hosts_in_flight"), Some(0.0));
}

#[tokio::test]
async fn metrics_are_public_even_when_reads_need_a_key() {
    let server = Server::with_auth(AuthConfig::default()).await;
    let text = scrape(&server).await;
    assert_eq!(sample(&text, "tidings_due_feeds"), Some(0.0), "{text}");
    let (status, _, _) = http(server.addr, "GET", "/v1/feeds").await;
    assert_eq!(status, 401, "reads do need a key");
}
