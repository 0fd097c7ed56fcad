//! Peak heap of one whole read on hostile feed shapes: fetch over loopback, parse, decide,
//! store in SQLite, against the body's size (the target: under 4x the body plus a small
//! constant, whatever the number of items; C8).
//!
//! ```text
//! cargo bench -p tidings-crawler --bench read_memory
//! ```
//!
//! A counting global allocator (shared with the parser's `peak_memory` example) tracks live
//! heap bytes. Each shape is served by a small HTTP server in the same process, from one shared
//! copy made before the measurement; before each read the high-water mark is set to what is
//! live, so the figure is what the read itself added at its peak: the body received, its
//! decoded text, the parse, the store's copies and the SQLite writer's, on every thread of the
//! process. SQLite allocates with its own allocator, outside Rust's: its high-water mark over
//! the read (from SQLite's memory statistics) is added, so the figure bounds the read's peak
//! from above (the two peaks need not coincide). The default profile is used:
//! `entries.max_per_response` 10,000, `fetch.max_body_bytes` 10 MiB.
//!
//! Names after `--` read only those shapes (`-- --bench rss-at-the-bound`).
//!
//! Without `--bench` (as `cargo test --benches` runs it) it reads a small version of every
//! shape and fails if any read ends other than as expected.

#[path = "../../feed/benches/counting/mod.rs"]
mod counting;

use chrono::Utc;
use counting::{LIVE, PEAK};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, LazyLock};
use tidings_crawler::{Crawler, CrawlerConfig, Purpose};
use tidings_fetch::{FetchConfig, Fetcher};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tidings_store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// One hostile shape: its name, what it is, and the document.
struct Shape {
    name: &'static str,
    what: &'static str,
    /// Makes the document (only for the shapes a run reads).
    body: Box<dyn Fn() -> Vec<u8>>,
    content_type: &'static str,
    /// Whether the read is expected to store entries (else it is refused).
    accepted: bool,
}

/// `head`, then `item(i)` for `i` in `0..n`, then `tail`.
fn items(n: usize, head: &str, item: impl Fn(usize) -> String, tail: &str) -> Vec<u8> {
    let mut out = String::from(head);
    for i in 0..n {
        out.push_str(&item(i));
    }
    out.push_str(tail);
    out.into_bytes()
}

/// `head`, then `item(i)` repeated until the document is about `size` bytes, then `tail`.
fn repeat(size: usize, head: &str, item: impl Fn(usize) -> String, tail: &str) -> Vec<u8> {
    let mut out = String::with_capacity(size + 1024);
    out.push_str(head);
    let mut i = 0;
    while out.len() + tail.len() < size {
        out.push_str(&item(i));
        i += 1;
    }
    out.push_str(tail);
    out.into_bytes()
}

fn shapes(size: usize) -> Vec<Shape> {
    const RSS_HEAD: &str = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>";
    const RSS_TAIL: &str = "</channel></rss>";
    const JSON_HEAD: &str =
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[";
    // As many items as the bound allows (10,000 in the full run), filling the size.
    let bound = size / 1000;
    static WORDS: LazyLock<String> = LazyLock::new(|| "lorem ipsum dolor sit amet ".repeat(40));
    let pad =
        move |overhead: usize| &WORDS[..(size / bound).saturating_sub(overhead).min(WORDS.len())];
    vec![
        Shape {
            name: "json-tiny-items",
            what: "JSON Feed, ~17-byte items",
            body: Box::new(move || {
                repeat(
                    size,
                    JSON_HEAD,
                    |i| format!("{{\"id\":\"{i:07}\"}},"),
                    "{\"id\":\"x\"}]}",
                )
            }),
            content_type: "application/feed+json",
            accepted: false,
        },
        Shape {
            name: "rss-tiny-items",
            what: "RSS, ~33-byte items",
            body: Box::new(move || {
                repeat(
                    size,
                    RSS_HEAD,
                    |i| format!("<item><guid>{i:07}</guid></item>"),
                    RSS_TAIL,
                )
            }),
            content_type: "application/rss+xml",
            accepted: false,
        },
        Shape {
            name: "atom-tiny-entries",
            what: "Atom, ~31-byte entries",
            body: Box::new(move || {
                repeat(
                    size,
                    "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>",
                    |i| format!("<entry><id>{i:07}</id></entry>"),
                    "</feed>",
                )
            }),
            content_type: "application/atom+xml",
            accepted: false,
        },
        Shape {
            name: "rss-at-the-bound",
            what: "RSS, ~1 KB items, as many as the bound allows",
            body: Box::new(move || {
                items(
                    bound,
                    RSS_HEAD,
                    |i| {
                        let pad = pad(80);
                        format!(
                            "<item><guid>g{i}</guid><title>Item {i}</title><description>{pad}</description></item>"
                        )
                    },
                    RSS_TAIL,
                )
            }),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-at-the-bound",
            what: "JSON Feed, ~1 KB items, as many as the bound allows",
            body: Box::new(move || {
                items(
                    bound - 1,
                    JSON_HEAD,
                    |i| {
                        let pad = pad(60);
                        format!(
                            "{{\"id\":\"g{i}\",\"title\":\"Item {i}\",\"content_text\":\"{pad}\"}},"
                        )
                    },
                    "{\"id\":\"last\"}]}",
                )
            }),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-one-huge-item",
            what: "RSS, one item, escaped HTML description",
            body: Box::new(move || {
                repeat(
                    size,
                    &format!("{RSS_HEAD}<item><guid>1</guid><description>"),
                    |_| "&lt;p&gt;a &amp;amp; b&lt;/p&gt; ".to_owned(),
                    &format!("</description></item>{RSS_TAIL}"),
                )
            }),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-one-huge-item",
            what: "JSON Feed, one item, long content_html",
            body: Box::new(move || {
                repeat(
                    size,
                    "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"1\",\"content_html\":\"",
                    |_| "<p>x &amp; y</p> ".to_owned(),
                    "\"}]}",
                )
            }),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-deep-nesting",
            what: "RSS, one item, unclosed <a> nested to the end",
            body: Box::new(move || {
                repeat(
                    size,
                    &format!("{RSS_HEAD}<item><guid>1</guid><description>"),
                    |_| "<a>".to_owned(),
                    "",
                )
            }),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-deep-nesting",
            what: "JSON Feed, one item, arrays nested to the end (kept, cut)",
            body: Box::new(move || {
                repeat(
                    size,
                    "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"1\",\"x\":",
                    |_| "[".to_owned(),
                    "",
                )
            }),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-category-flood",
            what: "RSS, one item, ~22-byte categories",
            body: Box::new(move || {
                repeat(
                    size,
                    &format!("{RSS_HEAD}<item><guid>1</guid>"),
                    |i| format!("<category>{i}</category>"),
                    &format!("</item>{RSS_TAIL}"),
                )
            }),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "rss-element-flood",
            what: "RSS, one item, empty unknown elements",
            body: Box::new(move || {
                repeat(
                    size,
                    &format!("{RSS_HEAD}<item><guid>1</guid>"),
                    |_| "<x/>".to_owned(),
                    &format!("</item>{RSS_TAIL}"),
                )
            }),
            content_type: "application/rss+xml",
            // Refused past 65,536 elements plus one per 12 bytes (the parser's bound), so the
            // small run's document, under the floor, is read.
            accepted: size / 4 <= 65_536 + size / 12,
        },
    ]
}

/// Serve `bodies` by path over HTTP/1.1 on 127.0.0.1 (one answer per connection).
async fn serve(bodies: Arc<HashMap<String, (Vec<u8>, &'static str)>>) -> Result<u16, Error> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let bodies = bodies.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 2048];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let line = String::from_utf8_lossy(&request);
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, body, content_type): (&str, &[u8], &str) = match bodies.get(&path) {
                    Some((body, ct)) => ("200 OK", body, ct),
                    None => ("404 Not Found", b"", "text/plain"),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Ok(port)
}

fn main() -> Result<(), Error> {
    let full = std::env::args().any(|a| a == "--bench");
    let size = if full { 10_000_000 } else { 200_000 };
    // Any other argument that is not a flag names the shapes to read (all when none).
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let ok = runtime.block_on(run(size, &only))?;
    if !ok {
        return Err("a read ended other than expected".into());
    }
    Ok(())
}

async fn run(size: usize, only: &[String]) -> Result<bool, Error> {
    let mut shapes = shapes(size);
    shapes.retain(|s| only.is_empty() || only.iter().any(|o| o == s.name));
    let bodies: HashMap<String, (Vec<u8>, &'static str)> = shapes
        .iter()
        .map(|s| (format!("/{}", s.name), ((s.body)(), s.content_type)))
        .collect();
    let bodies = Arc::new(bodies);
    let port = serve(bodies.clone()).await?;
    let mut config = FetchConfig::new("tidings-bench/1");
    config.allow_private_networks = true;
    let fetcher = Arc::new(Fetcher::new(config)?);
    let mut profile = Profile::embedded("default")?;
    profile.pacing.host_gap = 0.0;
    // The default profile's bound in the full run (10,000 for 10 MB); the small run keeps the
    // proportions.
    profile.entries.max_per_response = u32::try_from(size / 1000)?;
    let profile = Arc::new(profile);

    println!(
        "{:<20} {:>8} {:>8} {:>9} {:>9} {:>8} {:>7}  {:<22} what",
        "shape", "body MB", "Rust MB", "SQLite MB", "(cache)", "peak MB", "ratio", "outcome"
    );
    let mut all_as_expected = true;
    for shape in &shapes {
        // A store of its own per shape: SQLite's page cache starts empty, so each read pays
        // for the cache it fills (bounded by the store's `cache_size`), not the one before.
        // The last shape's store closes its connections in the background: let SQLite's heap
        // settle first, or what they free would hide what this read takes.
        sqlite_memory::settle().await;
        let dir = tempfile::tempdir()?;
        let db = dir.path().join("read_memory.db");
        let store = tidings_store::open(db.to_str().ok_or("temporary path is not UTF-8")?).await?;
        let crawler = Crawler::new(
            store.clone(),
            fetcher.clone(),
            profile.clone(),
            CrawlerConfig::default(),
        );
        // Warm up: robots.txt (404 here), connection set-up, prepared statements.
        let warm = subscribe(&store, port, "/warm-up").await?;
        crawler.refresh(&warm, Purpose::FirstAdd).await?;
        let feed = subscribe(&store, port, &format!("/{}", shape.name)).await?;
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let (sqlite_before, cache_before) = sqlite_memory::reset();
        let report = crawler.refresh(&feed, Purpose::FirstAdd).await?;
        let rust = PEAK.load(Ordering::Relaxed).saturating_sub(before);
        let (sqlite_peak, cache_peak) = sqlite_memory::peaks();
        let sqlite = sqlite_peak.saturating_sub(sqlite_before);
        let cache = cache_peak.saturating_sub(cache_before);
        // The two peaks may not coincide: their sum bounds the read's peak from above.
        let peak = rust + sqlite;
        let accepted = report.error.is_none();
        let outcome = match &report.error {
            None => format!("{} entries stored", report.new_entries),
            Some(e) if e.contains("entries.max_per_response") => "refused: too many".into(),
            Some(e) => format!("refused: {}", e.chars().take(40).collect::<String>()),
        };
        let body = bodies[&format!("/{}", shape.name)].0.len();
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{:<20} {:>8.2} {:>8.2} {:>9.2} {:>9.2} {:>8.2} {:>6.2}x  {:<22} {}",
            shape.name,
            mb(body),
            mb(rust),
            mb(sqlite),
            mb(cache),
            mb(peak),
            peak as f64 / body as f64,
            outcome,
            shape.what
        );
        if accepted != shape.accepted {
            eprintln!(
                "{}: expected accepted = {}: {report:?}",
                shape.name, shape.accepted
            );
            all_as_expected = false;
        }
        drop(crawler);
        drop(store);
    }
    Ok(all_as_expected)
}

/// SQLite's own heap (its allocator, outside Rust's), from SQLite's memory statistics: all
/// of it, and the part that is page cache (bounded by the store's `cache_size` per
/// connection, whatever the read).
mod sqlite_memory {
    use libsqlite3_sys::{SQLITE_STATUS_MEMORY_USED, SQLITE_STATUS_PAGECACHE_OVERFLOW};

    /// The current value and the high-water mark of one status counter.
    fn status(op: i32, reset: bool) -> (usize, usize) {
        let (mut now, mut peak) = (0i64, 0i64);
        // SAFETY: a thread-safe read (and optional reset) of SQLite's global counters, into
        // two live locals; valid whether or not SQLite is initialised.
        unsafe { libsqlite3_sys::sqlite3_status64(op, &mut now, &mut peak, i32::from(reset)) };
        let size = |n: i64| usize::try_from(n).unwrap_or(0);
        (size(now), size(peak))
    }

    /// What is in use now (all, page cache), with both high-water marks reset to it.
    pub fn reset() -> (usize, usize) {
        let all = status(SQLITE_STATUS_MEMORY_USED, true).0;
        let cache = status(SQLITE_STATUS_PAGECACHE_OVERFLOW, true).0;
        (all, cache)
    }

    /// Wait (at most two seconds) until SQLite's heap stops changing.
    pub async fn settle() {
        let mut last = status(SQLITE_STATUS_MEMORY_USED, false).0;
        for _ in 0..40 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let now = status(SQLITE_STATUS_MEMORY_USED, false).0;
            if now == last {
                return;
            }
            last = now;
        }
    }

    /// The high-water marks since the last reset (all, page cache).
    pub fn peaks() -> (usize, usize) {
        let all = status(SQLITE_STATUS_MEMORY_USED, false).1;
        let cache = status(SQLITE_STATUS_PAGECACHE_OVERFLOW, false).1;
        (all, cache)
    }
}

async fn subscribe(
    store: &Arc<dyn Store>,
    port: u16,
    path: &str,
) -> Result<tidings_store::FeedRecord, Error> {
    let url = FeedUrl::parse(&format!("http://127.0.0.1:{port}{path}"))?;
    let new = tidings_store::NewFeed {
        next_fetch_at: Utc::now(),
        next_fetch_reason: "first add".into(),
        interval_secs: 3600,
    };
    let sub = store.subscribe(&url, "bench", Utc::now(), &new).await?;
    Ok(store
        .feed(sub.feed_id)
        .await?
        .ok_or("the feed just subscribed is missing")?)
}
