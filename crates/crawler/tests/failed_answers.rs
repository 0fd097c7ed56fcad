//! WFM4 on the simulated web: an answer that began and then failed (a body dripping a byte at a
//! time or stalling after the head, a megabyte of headers) is one request per read, never
//! tried again early, and goes onto the failure ladder as a failed answer, not as no answer.

mod sim_support;

use sim_support::{Setup, start_with};
use std::time::Duration;
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource};

fn host(name: &str, path: &str, resource: Resource) -> HostSpec {
    HostSpec::new(name)
        .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
        .at(path, resource)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm4_a_failed_answer_is_one_request_and_never_retried_early() {
    let dripping = Resource::feed(FeedSpec::fixed("drip")).with(Behaviour::Trickle {
        bytes: 1,
        every: Duration::from_millis(20),
    });
    let stalled = Resource::feed(FeedSpec::fixed("stall")).with(Behaviour::Trickle {
        bytes: 1,
        every: Duration::from_secs(30),
    });
    let huge_head = Resource::feed(FeedSpec::fixed("head")).with(Behaviour::Header {
        name: "x-padding".into(),
        value: "a".repeat(1024 * 1024),
    });
    let sim = start_with(
        vec![
            host("drip.test", "/f.xml", dripping),
            host("stall.test", "/f.xml", stalled),
            host("head.test", "/f.xml", huge_head),
        ],
        |_| {},
        Setup {
            timeout: Duration::from_millis(400),
            ..Setup::default()
        },
    )
    .await;
    let rows = [
        (
            "drip.test",
            "stalled_answer",
            "answered 200, then the body stalled past the time-out",
        ),
        (
            "stall.test",
            "stalled_answer",
            "answered 200, then the body stalled past the time-out",
        ),
        (
            "head.test",
            "head_too_large",
            "the response headers were too large to read",
        ),
    ];
    let mut urls = Vec::new();
    for (name, _, _) in rows {
        urls.push(sim.subscribe(name, "/f.xml").await);
    }
    // Shorter than any back-off: one read of each.
    sim.crawl_hours(0.1).await;
    for ((name, label, error), url) in rows.iter().zip(&urls) {
        let requests = sim.requests(name, "/f.xml").await;
        assert_eq!(
            requests.len(),
            1,
            "{name}: one request, no early second attempt"
        );
        let reports = sim.reports.of(url);
        assert_eq!(reports.len(), 1, "{name}: one read");
        assert_eq!(reports[0].outcome, *label, "{name}");
        assert_eq!(reports[0].error.as_deref(), Some(*error), "{name}");
        assert_eq!(
            reports[0].next_fetch_reason, "failure 1 (bad_feed): backoff 1h",
            "{name}: on the ladder"
        );
    }
}
