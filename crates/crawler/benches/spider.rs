//! Spider Mode's speed and memory (FF4): FFBot spiders a simulated site of `--pages` pages
//! (each links ten more, a tree; one page in fifty declares a feed) to depth 4, with every
//! budget generous, on the scenario clock of the tests (an hour a second, so the profile's 1 s
//! gap between two requests to the host costs little real time). It prints the pages read, the
//! feeds found, the requests sent, the real time and pages per second, and the process's peak
//! resident memory (the simulated web runs in the same process).
//!
//! ```text
//! cargo bench -p tidings-crawler --bench spider -- --pages 5000
//! ```
//!
//! It exits non-zero when a page within the depth was not read or the auditor finds a
//! violation. Without `--bench` (as `cargo test --benches` runs it) a 120-page site is spidered.

#[path = "../tests/sim_support/mod.rs"]
mod sim_support;

use bytes::Bytes;
use sim_support::{Setup, start_with};
use std::time::{Duration, Instant};
use tidings_crawler::spider::SpiderLimits;
use tidings_model::FeedUrl;
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource};

/// Links per page.
const FAN_OUT: usize = 10;

fn pages_arg() -> usize {
    let argv: Vec<String> = std::env::args().collect();
    let bench = argv.iter().any(|a| a == "--bench");
    argv.iter()
        .position(|a| a == "--pages")
        .and_then(|i| argv.get(i + 1))
        .map(|v| v.parse().expect("--pages takes a whole number"))
        .unwrap_or(if bench { 5_000 } else { 120 })
}

fn path(i: usize) -> String {
    if i == 0 {
        "/".to_owned()
    } else {
        format!("/p/{i}")
    }
}

/// Page `i` links pages `10i+1 ..= 10i+10` (those that exist); every fiftieth declares a feed.
fn site(pages: usize) -> HostSpec {
    let mut host =
        HostSpec::new("site.test").at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"));
    for i in 0..pages {
        let mut body = String::from("<!doctype html><html><head><title>page</title>");
        if i % 50 == 0 {
            body.push_str(&format!(
                "<link rel=alternate type=application/rss+xml href=/feeds/{i}.xml>"
            ));
        }
        body.push_str("</head><body><p>Some words of the page, as a page has.</p>");
        for child in (FAN_OUT * i + 1)..=(FAN_OUT * i + FAN_OUT) {
            if child < pages {
                body.push_str(&format!("<a href={}>page {child}</a> ", path(child)));
            }
        }
        body.push_str("</body></html>");
        host = host.at(
            &path(i),
            Resource::new(Behaviour::Body {
                content_type: "text/html; charset=utf-8".into(),
                body: Bytes::from(body),
            }),
        );
        if i % 50 == 0 {
            host = host.at(
                &format!("/feeds/{i}.xml"),
                Resource::feed(FeedSpec::fixed(&format!("f{i}"))),
            );
        }
    }
    host
}

/// The process's peak resident set, in KiB (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let pages = pages_arg();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let sim = start_with(
            vec![site(pages)],
            |p| *p = tidings_policy::Profile::embedded("ffbot").unwrap(),
            Setup::default(),
        )
        .await;
        let ceilings = sim.profile.spider;
        let limits = SpiderLimits {
            depth: 4,
            max_urls: ceilings.ceiling_urls,
            max_requests: ceilings.ceiling_requests,
            max_bytes: ceilings.ceiling_bytes,
            max_time: Duration::from_secs(ceilings.ceiling_time),
            linked_sites: false,
        };
        let start = FeedUrl::parse(&sim.web.url("site.test", "/").unwrap()).unwrap();
        let before = peak_rss_kib();
        let began = Instant::now();
        let report = sim
            .crawler
            .spider(&start, limits, &|_, _| {})
            .await
            .expect("the run");
        let real = began.elapsed();
        let reachable = pages.min(1 + 10 + 100 + 1_000 + 10_000) as u32;
        println!(
            "spider: {} pages read of {pages} ({} within depth 4), {} feeds found, {} requests, \
             {} URLs looked at, {:.2} s real, {:.0} pages/s; peak RSS {} KiB (before the run \
             {} KiB)",
            report.pages,
            reachable,
            report.feeds.len(),
            report.requests,
            report.checked.len(),
            real.as_secs_f64(),
            f64::from(report.pages) / real.as_secs_f64(),
            peak_rss_kib().unwrap_or(0),
            before.unwrap_or(0),
        );
        let mut failed = false;
        if report.pages != reachable {
            eprintln!("expected every page within the depth to be read");
            failed = true;
        }
        let mut expect = sim.expectations();
        expect.purposes = None;
        let violations = sim.audit(&expect).await;
        if !violations.is_empty() {
            eprintln!(
                "{} violations, the first: {}",
                violations.len(),
                violations[0]
            );
            failed = true;
        }
        if failed {
            std::process::exit(1);
        }
    });
}
