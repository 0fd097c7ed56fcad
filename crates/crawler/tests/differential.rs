//! One read, two drivers: the crawler (real HTTP, a sped-up clock, the store) and
//! `tidings simulate` (virtual time, the modelled web) both drive `tidings_read::Read`.
//! The same scripted web (`tidings_simulate::script`), whose answers do not depend on time, is
//! run through both under every embedded profile, and each feed's reads must come out the
//! same: the same labels and the same decisions, in the same order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tidings_crawler::run::{CrawlUntil, Progress};
use tidings_crawler::{Clock, Crawler, CrawlerConfig, FeedReport, Purpose};
use tidings_fetch::{FetchConfig, Fetcher};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tidings_policy::profile::EMBEDDED;
use tidings_simulate::script::{Script, ScriptHost, Step, TraceRow, trace};
use tidings_simulate::web::{RobotsKind, Web};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Crawler seconds per real second for a one-day run: a day in 12 real seconds.
const SCALE_PER_DAY: u32 = 7200;

/// The virtual days both drivers run under `profile`: a dozen of its intervals at least, so
/// every scripted answer is met and more, in 12 real seconds whatever the profile.
fn days(profile: &Profile) -> u32 {
    let intervals = profile.schedule.default_interval * 12;
    u32::try_from(intervals.div_ceil(86_400))
        .unwrap_or(1)
        .max(1)
}

/// A web that takes every path of the read: content changing and not (C4, C5), each ladder
/// (404, 403, 410, 5xx, no answer), Retry-After holding a host (C6) with another feed on it,
/// a crawl-delay, and robots.txt missing, disallowing and failing.
fn script() -> Script {
    use Step::*;
    Script {
        hosts: vec![
            ScriptHost {
                robots: RobotsKind::AllowAll,
                feeds: vec![
                    vec![Version(1), Version(1), Version(2), Version(2), Version(3)],
                    vec![Status(404)],
                    vec![Version(1), Status(500), Status(500), Version(1), Version(2)],
                    vec![NoAnswer, Version(1), Version(1)],
                ],
            },
            ScriptHost {
                robots: RobotsKind::CrawlDelay(5),
                feeds: vec![
                    vec![
                        Version(1),
                        RetryAfter {
                            status: 429,
                            secs: 7500,
                        },
                        Version(1),
                        Version(2),
                    ],
                    vec![Version(1)],
                ],
            },
            ScriptHost {
                robots: RobotsKind::Missing,
                feeds: vec![
                    vec![Status(403), Status(403), Version(1)],
                    vec![Status(410)],
                    vec![Status(401)],
                ],
            },
            ScriptHost {
                robots: RobotsKind::DisallowAll,
                feeds: vec![vec![Version(1)]],
            },
            ScriptHost {
                robots: RobotsKind::ServerError,
                feeds: vec![vec![Version(1)]],
            },
        ],
    }
}

/// The embedded profile `name` as both drivers run it here: no jitter, no learned rhythm (the
/// scripted bodies have no dates), so a decision depends only on the answers.
fn profile(name: &str) -> Profile {
    let mut p = Profile::embedded(name).unwrap();
    p.hints.jitter = 0.0;
    p.hints.adaptive = false;
    p
}

fn host_name(h: usize) -> String {
    format!("h{h}.test")
}

fn feed_path(i: usize) -> String {
    format!("/f{i}.xml")
}

/// The scripted web over HTTP: one listener per host; robots.txt as the modelled web writes
/// it for the profile's token, each feed's steps by its requests' count.
async fn serve(script: &Script, token: &str) -> Vec<(String, u16, std::net::SocketAddr)> {
    let model = Arc::new(Web::scripted(script, token));
    let feeds: Arc<Vec<(u32, Vec<Step>)>> = Arc::new(
        script
            .feeds()
            .map(|(h, steps)| (h, steps.to_vec()))
            .collect(),
    );
    let hits: Arc<Vec<AtomicUsize>> = Arc::new(feeds.iter().map(|_| AtomicUsize::new(0)).collect());
    let mut resolve = Vec::new();
    for h in 0..script.hosts.len() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        resolve.push((host_name(h), addr.port(), addr));
        let (model, feeds, hits) = (model.clone(), feeds.clone(), hits.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (model, feeds, hits) = (model.clone(), feeds.clone(), hits.clone());
                tokio::spawn(answer(stream, h as u32, model, feeds, hits));
            }
        });
    }
    resolve
}

async fn answer(
    mut stream: tokio::net::TcpStream,
    host: u32,
    model: Arc<Web>,
    feeds: Arc<Vec<(u32, Vec<Step>)>>,
    hits: Arc<Vec<AtomicUsize>>,
) {
    let mut buf = vec![0u8; 8192];
    let mut n = 0;
    while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") && n < buf.len() {
        match stream.read(&mut buf[n..]).await {
            Ok(0) | Err(_) => return,
            Ok(read) => n += read,
        }
    }
    let head = String::from_utf8_lossy(&buf[..n]).into_owned();
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let echoed = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("if-none-match")
            .then(|| value.trim().to_string())
    });
    let (status, headers, body): (u16, Vec<(String, String)>, String) = if path == "/robots.txt" {
        let robots = model.robots(host, 0);
        match robots.status {
            Some(status) => (
                status,
                vec![("content-type".into(), "text/plain".into())],
                robots.body.unwrap_or_default(),
            ),
            None => return,
        }
    } else {
        let index = path
            .strip_prefix("/f")
            .and_then(|p| p.strip_suffix(".xml"))
            .and_then(|i| i.parse::<usize>().ok())
            .filter(|i| feeds.get(*i).is_some_and(|(h, _)| *h == host));
        let Some(i) = index else {
            return respond(&mut stream, 404, &[], "").await;
        };
        let hit = hits[i].fetch_add(1, Ordering::SeqCst);
        match Script::step(&feeds[i].1, hit) {
            Step::Version(v) => {
                let etag = format!("\"v{v}\"");
                if echoed.as_deref() == Some(etag.as_str()) {
                    (304, vec![("etag".into(), etag)], String::new())
                } else {
                    let body = format!(
                        "<rss version=\"2.0\"><channel><title>Feed {i}</title>\
                         <link>http://{}/</link><description>version {v}</description>\
                         </channel></rss>",
                        host_name(host as usize)
                    );
                    (
                        200,
                        vec![
                            ("etag".into(), etag),
                            ("content-type".into(), "application/rss+xml".into()),
                        ],
                        body,
                    )
                }
            }
            Step::Status(status) => (status, Vec::new(), String::new()),
            Step::RetryAfter { status, secs } => (
                status,
                vec![("retry-after".into(), secs.to_string())],
                String::new(),
            ),
            Step::NoAnswer => {
                // Hold the connection without a word until the crawler gives up.
                tokio::time::sleep(Duration::from_secs(30)).await;
                return;
            }
        }
    };
    respond(&mut stream, status, &headers, &body).await;
}

async fn respond(
    stream: &mut tokio::net::TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &str,
) {
    let mut out = format!("HTTP/1.1 {status} X\r\n");
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    let _ = stream.write_all(out.as_bytes()).await;
}

#[derive(Default)]
struct Reports(Mutex<Vec<FeedReport>>);

impl Progress for Reports {
    fn found(&self, _total: usize) {}
    fn done(&self, report: &FeedReport) {
        self.0.lock().unwrap().push(report.clone());
    }
}

/// Every read of every feed of `script` by the crawler over `days` crawler days, in order.
async fn crawl(script: &Script, profile: &Profile, days: u32) -> Vec<TraceRow> {
    let resolve = serve(script, &profile.robots.token).await;
    let dir = tempfile::tempdir().unwrap();
    let store = tidings_store::open(dir.path().join("d.db").to_str().unwrap())
        .await
        .unwrap();
    let mut fetch = FetchConfig::with_limits(profile.user_agent("0.0.0"), &profile.fetch);
    fetch.allow_private_networks = true;
    fetch.resolve = resolve;
    // A request that gets no answer ends soon in real time (a long while in crawler time).
    fetch.connect_timeout = Duration::from_millis(500);
    fetch.total_timeout = Duration::from_millis(500);
    let clock = Clock::scaled(chrono::Utc::now(), SCALE_PER_DAY * days);
    let crawler = Crawler::new(
        store,
        Arc::new(Fetcher::new(fetch).unwrap()),
        Arc::new(profile.clone()),
        CrawlerConfig {
            clock,
            ..CrawlerConfig::default()
        },
    );
    let reports = Arc::new(Reports::default());
    let mut urls: HashMap<String, u32> = HashMap::new();
    // Each feed added as `tidings add` adds it: subscribed, then read at once.
    for (i, (h, _)) in script.feeds().enumerate() {
        let url = format!("http://{}{}", host_name(h as usize), feed_path(i));
        let sub = crawler
            .subscribe(&FeedUrl::parse(&url).unwrap(), "alice")
            .await
            .unwrap();
        let feed = crawler.store().feed(sub.feed_id).await.unwrap().unwrap();
        let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
        reports.done(&report);
        urls.insert(url, i as u32);
    }
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let deadline = crawler.now() + chrono::Duration::days(i64::from(days));
    crawler
        .crawl(
            CrawlUntil {
                stop: rx,
                deadline: Some(deadline),
            },
            reports.clone(),
        )
        .await
        .unwrap();
    let rows = reports.0.lock().unwrap();
    rows.iter()
        .map(|r| TraceRow::new(urls[&r.url], r.outcome, &r.next_fetch_reason))
        .collect()
}

/// The rows of `feed`, in order.
fn of(rows: &[TraceRow], feed: u32) -> Vec<(tidings_model::Label, String)> {
    rows.iter()
        .filter(|r| r.feed == feed)
        .map(|r| (r.label, r.reason.clone()))
        .collect()
}

/// Each feed's reads by the two drivers agree: the same rows in the same order, as far as
/// both went. How far that is differs: the crawler's reads run late (each costs real
/// milliseconds, worth seconds of its sped-up clock, and the next is due an interval after it;
/// with six crawls sharing two cores it made up to a sixth fewer reads in a day of 10-minute
/// intervals), so both must go through every scripted answer and two reads past it, and the
/// shorter through two thirds of the longer, unless both stopped at the same read (a feed
/// switched off or paused is read no more).
fn compare(
    name: &str,
    script: &Script,
    simulated: &[TraceRow],
    crawled: &[TraceRow],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (feed, (_, steps)) in script.feeds().enumerate() {
        let feed = feed as u32;
        let (a, b) = (of(simulated, feed), of(crawled, feed));
        let common = a.len().min(b.len());
        let enough = (steps.len() + 2).max(a.len().max(b.len()) * 2 / 3);
        if let Some(at) = (0..common).find(|&i| a[i] != b[i]) {
            let from = at.saturating_sub(2);
            problems.push(format!(
                "{name}, feed {feed}, read {at}:\n  simulate: {:?}\n  crawler:  {:?}",
                &a[from..(at + 3).min(a.len())],
                &b[from..(at + 3).min(b.len())]
            ));
        } else if common < enough && a.len() != b.len() {
            problems.push(format!(
                "{name}, feed {feed}: {} reads simulated, {} crawled; the last: {:?} / {:?}",
                a.len(),
                b.len(),
                a.last(),
                b.last()
            ));
        }
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawler_and_the_simulation_read_a_scripted_web_alike_under_every_profile() {
    let script = script();
    let feeds = script.feeds().count() as u32;
    let runs = EMBEDDED.iter().map(|(name, _)| {
        let script = script.clone();
        async move {
            let profile = profile(name);
            let days = days(&profile);
            let simulated = trace(&script, &profile, days);
            let crawled = crawl(&script, &profile, days).await;
            (name, simulated, crawled)
        }
    });
    let mut problems = Vec::new();
    for (name, simulated, crawled) in futures_join(runs).await {
        // Enough reads to mean something: every feed read, most of them several times.
        assert!(
            simulated.len() >= 2 * feeds as usize,
            "{name}: {simulated:?}"
        );
        problems.extend(compare(name, &script, &simulated, &crawled));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Run `runs` at once on this runtime.
async fn futures_join<F: std::future::Future + Send + 'static>(
    runs: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = runs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}
