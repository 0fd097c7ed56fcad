//! The reading-state benchmark (docs/benchmarks.md): unread counts and "mark all read" for one
//! account at a million entries.
//!
//! ```text
//! cargo run --release -p tidings-api --example reading_bench -- DB [FEEDS] [ENTRIES_PER_FEED]
//! ```
//!
//! `DB` is a new SQLite path or a `postgres://` URL of an empty database. One account
//! subscribes to `FEEDS` feeds (default 1,000), filed in folders of 100, before any entry is
//! stored; then `ENTRIES_PER_FEED` entries (default 1,000) are stored per feed the way a crawl
//! stores them, so every entry is unread. It measures reading the unread counts of every
//! feed, folder and the total (50 times), then "mark all read" of three folders (100 feeds
//! each: 100,000 unread entries at the defaults). Progress goes to standard error.

#[path = "seed_entries.rs"]
#[allow(dead_code)]
mod seed;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tidings_model::FeedUrl;
use tidings_store::{AccountRole, NewAccount, NewFeed, Placement, ReadScope, Store, UnreadCounts};

const FOLDER_SIZE: usize = 100;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).map_or(Ok(default), |a| a.parse());
    let (Some(db), Ok(feeds), Ok(per_feed)) = (args.first(), number(1, 1000), number(2, 1000))
    else {
        eprintln!("usage: reading_bench DB [FEEDS] [ENTRIES_PER_FEED]");
        return ExitCode::from(2);
    };
    match run(db, feeds, per_feed).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reading_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(db: &str, feeds: usize, per_feed: usize) -> Result<(), Box<dyn std::error::Error>> {
    let store: Arc<dyn Store> = tidings_store::open(db).await?;
    let account = store
        .add_account(&NewAccount {
            name: "bench".into(),
            role: AccountRole::Reader,
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
            created_at: seed::start(),
        })
        .await?
        .ok_or("the database already has a bench account: use an empty one")?
        .id;
    let began = Instant::now();
    let mut ids = Vec::with_capacity(feeds);
    for f in 0..feeds {
        let url = FeedUrl::parse(&format!("https://site{}.example/feed.xml?f={f}", f % 997))?;
        let new = NewFeed {
            next_fetch_at: seed::start(),
            next_fetch_reason: "first add".into(),
            interval_secs: 86_400,
        };
        let placement = Placement {
            title: None,
            folder: Some(format!("folder {}", f / FOLDER_SIZE)),
        };
        let at = seed::start() - chrono::Duration::days(1);
        ids.push(
            store
                .subscribe_account(&url, account, &placement, at, &new)
                .await?
                .feed_id,
        );
    }
    let stored = seed::store_entries(&store, &ids, per_feed, began).await?;
    eprintln!("{stored} entries in {:.1}s", began.elapsed().as_secs_f64());

    let mut times = Vec::new();
    let mut counts = UnreadCounts::default();
    for _ in 0..50 {
        let t = Instant::now();
        counts = UnreadCounts::of(&store.subscriptions(account).await?);
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "unread counts of {} feeds and {} folders ({} unread, {} entries stored): median {}, \
         slowest {}",
        counts.feeds.len(),
        counts.folders.len(),
        counts.total,
        store.count_entries(None).await?,
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
    );
    let now = seed::start() + chrono::Duration::days(3650);
    for folder in 0..3.min(feeds.div_ceil(FOLDER_SIZE)) {
        let name = format!("folder {folder}");
        let t = Instant::now();
        let marked = store
            .mark_all_read(account, &ReadScope::Folder(name.clone()), now, now)
            .await?;
        println!(
            "mark all read of {name:?}: {marked} entries in {}",
            ms(t.elapsed())
        );
    }
    let recount: u64 = store
        .recount_unread(account)
        .await?
        .iter()
        .map(|(_, n)| n)
        .sum();
    let kept = UnreadCounts::of(&store.subscriptions(account).await?).total;
    println!("kept unread total {kept}, recounted {recount}");
    if kept != recount {
        return Err("the kept counts differ from a recount".into());
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
