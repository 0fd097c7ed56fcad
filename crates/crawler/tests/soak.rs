//! Soak: the real crawler (`Crawler::crawl` with a deadline) on a seeded mixed web
//! (`tidings_sim::Scenario::mixed`: robots.txt variants, crawl-delays, validators or none,
//! throttles with Retry-After, refusals, errors, malformed, huge, bomb and silent bodies) for
//! hours of crawler time; the auditor must find nothing (C1, C3, C4, C6, FF11).
//!
//! The small soak runs with `cargo test`; the big one (200 hosts, 2,000 feeds, 6 hours) is
//! ignored by default:
//! `cargo test -p tidings-crawler --test soak -- --ignored --nocapture`.

mod sim_support;

use sim_support::{Setup, assert_clean, is_wfm5_retry_gap, start_with};
use std::time::{Duration, Instant};
use tidings_sim::Scenario;

async fn soak(seed: u64, hosts: usize, feeds_per_host: usize, hours: f64) {
    let wall = Instant::now();
    let scenario = Scenario::mixed(seed, hosts, feeds_per_host, "tidings");
    let sim = start_with(
        scenario.hosts.clone(),
        |_| {},
        Setup {
            // Ten minutes of crawler time per real second: six hours in 36 s.
            scale: 600,
            timeout: Duration::from_secs(1),
            host_concurrency: 64,
        },
    )
    .await;
    for (host, path) in &scenario.feeds {
        sim.subscribe(host, path).await;
    }
    println!("subscribed in {:.1}s", wall.elapsed().as_secs_f64());
    let crawl = Instant::now();
    let summary = sim.crawl_hours(hours).await;
    println!("crawled in {:.1}s", crawl.elapsed().as_secs_f64());
    let all = sim.exchanges().await;
    let mut expect = sim.expectations();
    expect.robots = scenario.robots_rules("tidings");
    let cap = Duration::from_secs(sim.profile.robots.crawl_delay_cap);
    for (host, rules) in &expect.robots {
        if let Some(delay) = rules.crawl_delay {
            expect
                .gaps
                .insert(host.clone(), delay.min(cap).max(expect.default_gap));
        }
    }
    // Hosts whose robots.txt fails are not required to be read first (it is, but answers 503).
    let violations = tidings_sim::audit(&all, &expect);
    let (known, other): (Vec<_>, Vec<_>) = violations
        .into_iter()
        .partition(|v| is_wfm5_retry_gap(v, &all));
    println!(
        "soak seed {seed}: {hosts} hosts, {} feeds, {hours} h crawler time: {} requests, \
         {} feed reads (ok {}, not modified {}, failed {}), {} violations \
         (+{} known WFM5 retry gaps), {:.1}s wall",
        scenario.feeds.len(),
        all.len(),
        summary.feeds,
        summary.fetched,
        summary.not_modified,
        summary.failed,
        other.len(),
        known.len(),
        wall.elapsed().as_secs_f64()
    );
    assert!(
        summary.feeds as usize >= scenario.feeds.len(),
        "every feed read at least once"
    );
    assert_clean(&other);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_small_40_hosts_400_feeds_2_hours() {
    soak(11, 40, 10, 2.0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "about a minute; run with --ignored"]
async fn soak_200_hosts_2000_feeds_6_hours() {
    soak(7, 200, 10, 6.0).await;
}
