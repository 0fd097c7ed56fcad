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

use sim_support::{HANG_UP_NOTICE, Setup, explain, start_with};
use std::time::{Duration, Instant};
use tidings_sim::Scenario;

/// The crawler's body cap in the soak.
const MAX_BODY_BYTES: u64 = 1024 * 1024;

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
            max_body_bytes: MAX_BODY_BYTES,
            ..Setup::default()
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
    println!("{}", after_abandoned(&all));
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

/// How close (real time) the request after each abandoned exchange on its host came, for
/// weighing `HANG_UP_NOTICE`: after an unanswered one, from the web's notice of the hang-up;
/// after an answer the crawler stopped reading, from the web's end of writing and from its head.
fn after_abandoned(all: &[tidings_sim::Exchange]) -> String {
    let mut by_host: std::collections::HashMap<&str, Vec<&tidings_sim::Exchange>> =
        std::collections::HashMap::new();
    for e in all {
        by_host.entry(e.host.as_str()).or_default().push(e);
    }
    let ms = |a: Duration, b: Duration| (b.as_secs_f64() - a.as_secs_f64()) * 1000.0;
    let (mut unanswered, mut cut, mut whole) = (Vec::new(), Vec::new(), Vec::new());
    for list in by_host.values_mut() {
        list.sort_by_key(|e| e.started.mono);
        for pair in list.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            // Bodies over the crawler's cap that the web still saw taken whole (the client's
            // HTTP stack read them to the end after the crawler had moved on).
            if a.completed && a.body_bytes > MAX_BODY_BYTES {
                if let Some(end) = a.ended {
                    whole.push(ms(end.mono, b.started.mono));
                }
                continue;
            }
            let Some(end) = a.ended.filter(|_| a.abandoned()) else {
                continue;
            };
            match a.responded {
                None => unanswered.push(ms(end.mono, b.started.mono)),
                Some(head) => {
                    cut.push((ms(end.mono, b.started.mono), ms(head.mono, b.started.mono)))
                }
            }
        }
    }
    let low = |v: &mut dyn Iterator<Item = f64>| v.fold(f64::INFINITY, f64::min);
    format!(
        "after an abandoned exchange, the next request to its host came (real ms, lowest): \
         {} unanswered: {:.3} after the web noticed the hang-up; {} cut short: {:.3} after \
         the web's end, {:.3} after the head; {} over the cap yet taken whole: {:.3} after \
         the web's end",
        unanswered.len(),
        low(&mut unanswered.iter().copied()),
        cut.len(),
        low(&mut cut.iter().map(|c| c.0)),
        low(&mut cut.iter().map(|c| c.1)),
        whole.len(),
        low(&mut whole.iter().copied()),
    )
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
