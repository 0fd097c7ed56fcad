//! Fill a store with many entries for the `GET /v1/entries` benchmark (docs/benchmarks.md):
//!
//! ```text
//! cargo run --release -p tidings-api --example seed_entries -- DB FEEDS ENTRIES_PER_FEED
//! ```
//!
//! `DB` is a SQLite path or a `postgres://` URL. Each feed is stored as read once a day, each
//! read bringing a share of its entries, so the store fills the way a crawl fills it (entries,
//! request-log rows, the search index). Progress goes to standard error.

use chrono::{DateTime, Duration, TimeZone, Utc};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tidings_model::{Entry, FeedId, FeedUrl, Label, Validators};
use tidings_store::{FeedMeta, FetchRecord, NewFeed, Store};

/// Entries stored per read (one fetch record).
const PER_READ: usize = 50;
/// Reads in flight at once (the SQLite backend commits them together).
const IN_FLIGHT: usize = 64;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, feeds, per_feed] = args.as_slice() else {
        eprintln!("usage: seed_entries DB FEEDS ENTRIES_PER_FEED");
        return ExitCode::from(2);
    };
    let (Ok(feeds), Ok(per_feed)) = (feeds.parse::<usize>(), per_feed.parse::<usize>()) else {
        eprintln!("FEEDS and ENTRIES_PER_FEED are numbers");
        return ExitCode::from(2);
    };
    match seed(db, feeds, per_feed).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seed_entries: {e}");
            ExitCode::FAILURE
        }
    }
}

pub fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

async fn seed(db: &str, feeds: usize, per_feed: usize) -> Result<(), Box<dyn std::error::Error>> {
    let store: Arc<dyn Store> = tidings_store::open(db).await?;
    let began = Instant::now();
    let mut ids = Vec::with_capacity(feeds);
    for f in 0..feeds {
        let url = FeedUrl::parse(&format!("https://site{}.example/feed.xml", f % 997))?;
        let url = FeedUrl::parse(&format!("{url}?f={f}"))?;
        let new = NewFeed {
            next_fetch_at: start(),
            next_fetch_reason: "first add".into(),
            interval_secs: 86_400,
        };
        ids.push(store.subscribe(&url, "bench", start(), &new).await?.feed_id);
    }
    eprintln!("{feeds} feeds in {:.1}s", began.elapsed().as_secs_f64());
    let stored = store_entries(&store, &ids, per_feed, began).await?;
    eprintln!(
        "{stored} entries in {:.1}s; now: {} in the store",
        began.elapsed().as_secs_f64(),
        store.count_entries(None).await?
    );
    Ok(())
}

/// Store `per_feed` entries for each feed of `ids` the way a crawl stores them: a read of
/// [`PER_READ`] entries per feed per day, [`IN_FLIGHT`] reads at once. Returns how many were
/// stored; progress goes to standard error.
pub async fn store_entries(
    store: &Arc<dyn Store>,
    ids: &[FeedId],
    per_feed: usize,
    began: Instant,
) -> Result<usize, Box<dyn std::error::Error>> {
    let reads_per_feed = per_feed.div_ceil(PER_READ);
    let mut jobs = tokio::task::JoinSet::new();
    let mut stored = 0usize;
    let total = ids.len() * per_feed;
    for read in 0..reads_per_feed {
        for (f, id) in ids.iter().enumerate() {
            let from = read * PER_READ;
            let to = (from + PER_READ).min(per_feed);
            if from >= to {
                continue;
            }
            let record = record(*id, f, read, from..to);
            let store = Arc::clone(store);
            jobs.spawn(async move { store.apply_fetch(record).await.map(|_| to - from) });
            while jobs.len() >= IN_FLIGHT {
                if let Some(done) = jobs.join_next().await {
                    stored += done??;
                }
            }
        }
        eprintln!(
            "{stored}/{total} entries after {:.1}s",
            began.elapsed().as_secs_f64()
        );
    }
    while let Some(done) = jobs.join_next().await {
        stored += done??;
    }
    Ok(stored)
}

/// Read number `read` of feed `f`, bringing entries `range` of it.
pub fn record(id: FeedId, f: usize, read: usize, range: std::ops::Range<usize>) -> FetchRecord {
    let at = start() + Duration::days(i64::try_from(read).unwrap_or(0));
    let entries = range
        .map(|n| {
            let key = format!("f{f}-e{n}");
            let published = at - Duration::minutes(i64::try_from(n % 1440).unwrap_or(0));
            Entry {
                identity: key.clone(),
                id: Some(key.clone()),
                title: Some(format!("Entry {n} of feed {f}")),
                link: Some(format!("https://site{}.example/{key}", f % 997)),
                summary: Some(format!(
                    "A short summary of entry {n} of feed {f}, about the length of a real one \
                     in a typical news feed, with a few more words to search for."
                )),
                published: Some(published),
                ..Entry::default()
            }
        })
        .collect();
    let mut record = tidings_store::testkit::answered(id, at, Label::Ok, Some(200));
    let site = format!("https://site{}.example", f % 997);
    record.update.validators = Some(Validators {
        etag: Some(format!("\"{f}-{read}\"")),
        last_modified: None,
    });
    record.update.content_hash = Some(format!("{f}-{read}"));
    record.update.next_fetch_at = at + Duration::days(1);
    record.update.next_fetch_reason = "interval 1d".into();
    record.update.interval_secs = 86_400;
    record.update.meta = Some(FeedMeta {
        title: Some(format!("Feed {f}")),
        site_link: Some(format!("{site}/")),
        expires: None,
        thumbnail: None,
    });
    record.entries = entries;
    let row = &mut record.log[0];
    row.host = format!("{site}:443");
    row.url = format!("{site}/feed.xml?f={f}");
    row.bytes = 20_000;
    row.duration_ms = 80;
    row.rule = "due: interval 1d".into();
    record
}
