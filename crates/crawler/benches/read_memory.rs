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
//! process. SQLite's own page cache is allocated by SQLite's allocator and is not counted (it
//! is bounded by SQLite's cache size, about 2 MB). The default profile is used:
//! `entries.max_per_response` 10,000, `fetch.max_body_bytes` 10 MiB.
//!
//! Without `--bench` (as `cargo test --benches` runs it) it reads a small version of every
//! shape and fails if any read ends other than as expected.

#[path = "../../feed/benches/counting/mod.rs"]
mod counting;

use chrono::Utc;
use counting::{LIVE, PEAK};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
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
    body: Vec<u8>,
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
    let words = "lorem ipsum dolor sit amet ".repeat(40);
    let pad = |overhead: usize| &words[..(size / bound).saturating_sub(overhead).min(words.len())];
    vec![
        Shape {
            name: "json-tiny-items",
            what: "JSON Feed, ~17-byte items",
            body: repeat(
                size,
                JSON_HEAD,
                |i| format!("{{\"id\":\"{i:07}\"}},"),
                "{\"id\":\"x\"}]}",
            ),
            content_type: "application/feed+json",
            accepted: false,
        },
        Shape {
            name: "rss-tiny-items",
            what: "RSS, ~33-byte items",
            body: repeat(
                size,
                RSS_HEAD,
                |i| format!("<item><guid>{i:07}</guid></item>"),
                RSS_TAIL,
            ),
            content_type: "application/rss+xml",
            accepted: false,
        },
        Shape {
            name: "atom-tiny-entries",
            what: "Atom, ~31-byte entries",
            body: repeat(
                size,
                "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>",
                |i| format!("<entry><id>{i:07}</id></entry>"),
                "</feed>",
            ),
            content_type: "application/atom+xml",
            accepted: false,
        },
        Shape {
            name: "rss-at-the-bound",
            what: "RSS, ~1 KB items, as many as the bound allows",
            body: items(
                bound,
                RSS_HEAD,
                |i| {
                    let pad = pad(80);
                    format!(
                        "<item><guid>g{i}</guid><title>Item {i}</title><description>{pad}</description></item>"
                    )
                },
                RSS_TAIL,
            ),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-at-the-bound",
            what: "JSON Feed, ~1 KB items, as many as the bound allows",
            body: items(
                bound - 1,
                JSON_HEAD,
                |i| {
                    let pad = pad(60);
                    format!(
                        "{{\"id\":\"g{i}\",\"title\":\"Item {i}\",\"content_text\":\"{pad}\"}},"
                    )
                },
                "{\"id\":\"last\"}]}",
            ),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-one-huge-item",
            what: "RSS, one item, escaped HTML description",
            body: repeat(
                size,
                &format!("{RSS_HEAD}<item><guid>1</guid><description>"),
                |_| "&lt;p&gt;a &amp;amp; b&lt;/p&gt; ".to_owned(),
                &format!("</description></item>{RSS_TAIL}"),
            ),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-one-huge-item",
            what: "JSON Feed, one item, long content_html",
            body: repeat(
                size,
                "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"1\",\"content_html\":\"",
                |_| "<p>x &amp; y</p> ".to_owned(),
                "\"}]}",
            ),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-deep-nesting",
            what: "RSS, one item, unclosed <a> nested to the end",
            body: repeat(
                size,
                &format!("{RSS_HEAD}<item><guid>1</guid><description>"),
                |_| "<a>".to_owned(),
                "",
            ),
            content_type: "application/rss+xml",
            accepted: true,
        },
        Shape {
            name: "json-deep-nesting",
            what: "JSON Feed, one item, arrays nested to the end (kept, cut)",
            body: repeat(
                size,
                "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"1\",\"x\":",
                |_| "[".to_owned(),
                "",
            ),
            content_type: "application/feed+json",
            accepted: true,
        },
        Shape {
            name: "rss-category-flood",
            what: "RSS, one item, ~22-byte categories",
            body: repeat(
                size,
                &format!("{RSS_HEAD}<item><guid>1</guid>"),
                |i| format!("<category>{i}</category>"),
                &format!("</item>{RSS_TAIL}"),
            ),
            content_type: "application/rss+xml",
            accepted: true,
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let ok = runtime.block_on(run(size))?;
    if !ok {
        return Err("a read ended other than expected".into());
    }
    Ok(())
}

async fn run(size: usize) -> Result<bool, Error> {
    let shapes = shapes(size);
    let bodies: HashMap<String, (Vec<u8>, &'static str)> = shapes
        .iter()
        .map(|s| (format!("/{}", s.name), (s.body.clone(), s.content_type)))
        .collect();
    let bodies = Arc::new(bodies);
    let port = serve(bodies.clone()).await?;
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("read_memory.db");
    let store = tidings_store::open(db.to_str().ok_or("temporary path is not UTF-8")?).await?;
    let mut config = FetchConfig::new("tidings-bench/1");
    config.allow_private_networks = true;
    let mut profile = Profile::embedded("default")?;
    profile.pacing.host_gap = 0.0;
    // The default profile's bound in the full run (10,000 for 10 MB); the small run keeps the
    // proportions.
    profile.entries.max_per_response = u32::try_from(size / 1000)?;
    let crawler = Crawler::new(
        store.clone(),
        Arc::new(Fetcher::new(config)?),
        Arc::new(profile),
        CrawlerConfig::default(),
    );
    // Warm up: robots.txt (404 here), connection set-up, prepared statements.
    let warm = subscribe(&store, port, "/warm-up").await?;
    crawler.refresh(&warm, Purpose::FirstAdd).await?;

    println!(
        "{:<20} {:>8} {:>10} {:>7}  {:<22} what",
        "shape", "body MB", "peak MB", "ratio", "outcome"
    );
    let mut all_as_expected = true;
    for shape in &shapes {
        let feed = subscribe(&store, port, &format!("/{}", shape.name)).await?;
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let report = crawler.refresh(&feed, Purpose::FirstAdd).await?;
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
        let accepted = report.error.is_none();
        let outcome = match &report.error {
            None => format!("{} entries stored", report.new_entries),
            Some(e) if e.contains("entries.max_per_response") => "refused: too many".into(),
            Some(e) => format!("refused: {}", e.chars().take(40).collect::<String>()),
        };
        let body = shape.body.len();
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{:<20} {:>8.2} {:>10.2} {:>6.2}x  {:<22} {}",
            shape.name,
            mb(body),
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
    }
    Ok(all_as_expected)
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
