//! Soak: the real crawler (`Crawler::crawl` with a deadline) on a seeded mixed web
//! (`tidings_sim::Scenario::mixed`: robots.txt variants, crawl-delays, validators or none,
//! throttles with Retry-After, refusals, errors, malformed, huge, bomb and silent bodies) for
//! hours of crawler time; the auditor must find nothing (C1, C3, C4, C6, FF11).
//!
//! The small soak runs with `cargo test`; the big one (200 hosts, 2,000 feeds, 6 hours) is
//! ignored by default:
//! `cargo test -p tidings-crawler --test soak -- --ignored --nocapture`. `TIDINGS_SOAK_SEED=N`
//! runs either on another seeded web of the same size. A failing soak prints every violation in
//! full: the exchanges involved on both clocks and the crawler's request log around them.

mod sim_support;

use sim_support::{Setup, explain, start_with};
use std::time::{Duration, Instant};
use tidings_sim::Scenario;

/// How long (real time) the web may take to notice that the crawler hung up on a request that
/// got no answer (a time-out): its connection task must run first, on a runtime it shares with
/// the crawler, on a loaded machine. Over 16 runs of the big soak on 2 busy cores (load 7-9)
/// the web noticed up to 1.3-2.3 ms late (the crawler's gap of 1 s is 1.7 ms of real time at
/// scale 600, and its timer rounds up to the next millisecond). At scale 600 this is 3 s of
/// scenario time: the soak does not resolve the gap after a time-out (scenarios.rs' WFM5 test
/// does, with a gap of 120 s); it still catches a request sent more than 5 ms before the web
/// noticed the hang-up. Answers the crawler stopped reading need no allowance: the auditor
/// measures them from their response head.
const HANG_UP_NOTICE: Duration = Duration::from_millis(5);

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
            // A 2 MiB body of 40,000 items takes ~25 s to parse and store in a debug build
            // (a release build is far faster); the cap makes it `too_large` instead.
            max_body_bytes: 1024 * 1024,
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
    expect.hang_up_notice = HANG_UP_NOTICE;
    let other = tidings_sim::audit(&all, &expect);
    println!(
        "soak seed {seed}: {hosts} hosts, {} feeds, {hours} h crawler time: {} requests, \
         {} feed reads (ok {}, not modified {}, failed {}), {} violations, {:.1}s wall",
        scenario.feeds.len(),
        all.len(),
        summary.feeds,
        summary.fetched,
        summary.not_modified,
        summary.failed,
        other.len(),
        wall.elapsed().as_secs_f64()
    );
    // Every finding in full, so a failing run explains itself.
    let mut explained = Vec::with_capacity(other.len());
    for v in &other {
        let text = explain(&sim, v, &all, &expect).await;
        println!("VIOLATION {text}");
        explained.push(text);
    }
    if std::env::var_os("SOAK_TIMELINE").is_some() {
        let mut per_sec = std::collections::BTreeMap::<u64, (usize, u128)>::new();
        for e in &all {
            let slot = per_sec.entry(e.started.mono.as_secs()).or_default();
            slot.0 += 1;
            if let Some(end) = e.ended {
                slot.1 += (end.mono - e.started.mono).as_millis();
            }
        }
        println!("second: requests started, total ms in flight: {per_sec:?}");
    }
    // Liveness: every feed was dealt with (read, or held back by robots.txt or a host's
    // Retry-After) at least once.
    let seen: std::collections::HashSet<String> = sim
        .reports
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.url.clone())
        .collect();
    assert_eq!(seen.len(), scenario.feeds.len(), "{summary:?}");
    assert!(
        explained.is_empty(),
        "seed {seed}: {} violations:\n{}",
        explained.len(),
        explained.join("\n")
    );
}

/// The seed of a soak: `TIDINGS_SOAK_SEED` when set (to run the same size on other webs),
/// otherwise `default`.
fn seed_or(default: u64) -> u64 {
    match std::env::var("TIDINGS_SOAK_SEED") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("TIDINGS_SOAK_SEED must be a number, not {text:?}")),
        Err(_) => default,
    }
}

/// FF12 as a whole on a mixed web: requests to an origin spaced, Retry-After honoured, back-off
/// on failures, validators used, bodies and redirects bounded; C8: no input stops the crawler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_small_40_hosts_400_feeds_2_hours() {
    soak(seed_or(11), 40, 10, 2.0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "about a minute of real time; run with --ignored"]
async fn soak_200_hosts_2000_feeds_6_hours() {
    soak(seed_or(7), 200, 10, 6.0).await;
}
