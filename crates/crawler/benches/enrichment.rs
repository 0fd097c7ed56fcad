//! What enrichment costs the publishers (SR1): SereneReader's crawler on a simulated web of
//! `--sites` sites, each with one feed that gains new entries every `--every` hours for
//! `--hours` hours, half of them without an image (their article page names an og:image), and a
//! favicon. Every request is counted from the publishers' side, by kind, against the bound:
//! at most one article-page request per new entry without an image, at most one icon request
//! per site per `pages.icon_refresh` window (one per site in a run shorter than it), and
//! nothing else but feeds and robots.txt. It also prints the real time the run took.
//!
//! ```text
//! cargo bench -p tidings-crawler --bench enrichment -- --sites 200 --hours 24 --every 2
//! ```
//!
//! It exits non-zero when a bound is broken or the auditor finds a violation. Without `--bench`
//! (as `cargo test --benches` runs it) a small web is crawled for a few hours.

#[path = "../tests/sim_support/mod.rs"]
mod sim_support;

use bytes::Bytes;
use sim_support::{Setup, Sim, start_with};
use std::collections::HashMap;
use std::time::Instant;
use tidings_sim::{Behaviour, HostSpec, Resource};

struct Args {
    sites: usize,
    hours: u32,
    every: u32,
    per_round: usize,
}

fn args() -> Args {
    let argv: Vec<String> = std::env::args().collect();
    let bench = argv.iter().any(|a| a == "--bench");
    let value = |name: &str, default: u64| -> u64 {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{name} takes a whole number, not {v:?}"))
            })
            .unwrap_or(default)
    };
    let (sites, hours) = if bench { (200, 24) } else { (8, 6) };
    let as_usize = |n: u64| usize::try_from(n).expect("a small number");
    let as_u32 = |n: u64| u32::try_from(n).expect("a small number");
    Args {
        sites: as_usize(value("--sites", sites)),
        hours: as_u32(value("--hours", hours)),
        every: as_u32(value("--every", 2)).max(1),
        per_round: as_usize(value("--new", 4)).max(2),
    }
}

fn resource(content_type: &str, body: impl Into<Bytes>) -> Resource {
    Resource::new(Behaviour::Body {
        content_type: content_type.into(),
        body: body.into(),
    })
}

/// The feed of `site` after `n` entries: entry `i` has a thumbnail when `i` is even; the odd
/// ones link a page that names an og:image.
fn feed(sim: &Sim, site: &str, n: usize) -> Resource {
    let mut xml = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\">\
         <channel><title>{site}</title><link>{}</link>",
        sim.web.url(site, "/").unwrap()
    );
    // The newest 20, as a publisher's feed shows them.
    for i in n.saturating_sub(20)..n {
        let link = sim.web.url(site, &format!("/post/{i}")).unwrap();
        xml.push_str(&format!(
            "<item><guid>{site}-{i}</guid><title>Story {i}</title><link>{link}</link>"
        ));
        if i % 2 == 0 {
            xml.push_str(&format!("<media:thumbnail url=\"{link}.jpg\"/>"));
        }
        xml.push_str("</item>");
    }
    xml.push_str("</channel></rss>");
    resource("application/rss+xml", xml)
}

fn main() {
    let args = args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let failed = runtime.block_on(run(&args));
    if failed {
        std::process::exit(1);
    }
}

async fn run(args: &Args) -> bool {
    let sites: Vec<String> = (0..args.sites).map(|i| format!("site{i}.test")).collect();
    let page = "<!doctype html><html><head><meta property=\"og:image\" content=\"/og.jpg\">\
                <title>Story</title></head><body><p>Words.</p></body></html>";
    let hosts = sites
        .iter()
        .map(|s| {
            let mut host = HostSpec::new(s)
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::status(404))
                .at(
                    "/favicon.ico",
                    resource("image/x-icon", &b"\x00\x00\x01\x00\x01\x00"[..]),
                );
            // Every page an entry may link in the run.
            let entries = args.per_round * (args.hours / args.every + 2) as usize;
            for i in 0..entries {
                host = host.at(
                    &format!("/post/{i}"),
                    resource("text/html; charset=utf-8", page),
                );
            }
            host
        })
        .collect();
    let sim = start_with(
        hosts,
        |p| {
            *p = tidings_policy::Profile::embedded("serenereader").unwrap();
            p.hints.adaptive = false;
            p.hints.jitter = 0.0;
        },
        Setup::default(),
    )
    .await;
    let mut published = args.per_round;
    for site in &sites {
        assert!(sim.web.set(site, "/feed.xml", feed(&sim, site, published)));
        sim.subscribe(site, "/feed.xml").await;
    }
    let began = Instant::now();
    let mut hours = 0;
    while hours < args.hours {
        sim.crawl_hours(f64::from(args.every)).await;
        hours += args.every;
        if hours < args.hours {
            published += args.per_round;
            for site in &sites {
                assert!(sim.web.set(site, "/feed.xml", feed(&sim, site, published)));
            }
        }
    }
    let took = began.elapsed();

    let exchanges = sim.exchanges().await;
    let mut by_kind: HashMap<&str, usize> = HashMap::new();
    for e in &exchanges {
        let kind = match e.path() {
            "/feed.xml" => "feed",
            "/robots.txt" => "robots.txt",
            "/favicon.ico" => "icon",
            p if p.starts_with("/post/") => "article page",
            _ => "other",
        };
        *by_kind.entry(kind).or_default() += 1;
    }
    let count = |k: &str| by_kind.get(k).copied().unwrap_or(0);
    // Entries without an image that the crawler could have seen: the odd ones published.
    let without_image = sites.len() * (published / 2);
    let pages = count("article page");
    let icons = count("icon");
    println!(
        "enrichment: {} sites, {} h of crawler time ({} new entries per feed every {} h), \
         {:.1} s real",
        sites.len(),
        args.hours,
        args.per_round,
        args.every,
        took.as_secs_f64()
    );
    println!(
        "requests: {} feed, {} robots.txt, {} article page, {} icon, {} other",
        count("feed"),
        count("robots.txt"),
        pages,
        icons,
        count("other")
    );
    println!(
        "article pages per entry without an image: {pages} / {without_image} = {:.3} (bound 1)",
        pages as f64 / without_image.max(1) as f64
    );
    println!(
        "icon requests per site: {icons} / {} = {:.3} (bound 1 per {} s window)",
        sites.len(),
        icons as f64 / sites.len() as f64,
        sim.profile.pages.icon_refresh
    );
    let violations = sim.audit(&sim.expectations()).await;
    println!("auditor: {} violation(s)", violations.len());
    for v in violations.iter().take(10) {
        println!("  {v:?}");
    }
    let mut failed = !violations.is_empty();
    if pages > without_image {
        println!("FAILED: more article-page requests than entries without an image");
        failed = true;
    }
    if pages == 0 {
        println!("FAILED: no article page was read: the run measured nothing");
        failed = true;
    }
    if icons > sites.len() || icons == 0 {
        println!("FAILED: icon requests are not one per site");
        failed = true;
    }
    if count("other") > 0 {
        println!("FAILED: requests for something SereneReader does not fetch");
        failed = true;
    }
    failed
}
