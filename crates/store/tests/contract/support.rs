//! Backends, fixtures and builders shared by the contract cases.

use chrono::{DateTime, Duration, TimeZone, Utc};
use sqlx::Connection;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use tidings_model::{Entry, FeedId, FeedUrl};
use tidings_store::{FetchRecord, Store, Subscribed};

/// Run `case` on a fresh SQLite file.
pub async fn on_sqlite<F, Fut>(case: F)
where
    F: FnOnce(Arc<dyn Store>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("contract.db");
    let store = tidings_store::open(path.to_str().expect("utf-8 temp path"))
        .await
        .expect("open sqlite store");
    let outcome = tokio::spawn(case(store)).await;
    drop(dir);
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Run `case` in a fresh schema of the PostgreSQL database named by `DATABASE_URL`, dropping
/// the schema afterwards; skipped when `DATABASE_URL` is not set.
pub async fn on_postgres<F, Fut>(case: F)
where
    F: FnOnce(Arc<dyn Store>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let Ok(base) = std::env::var("DATABASE_URL") else {
        eprintln!("DATABASE_URL is not set: PostgreSQL contract case skipped");
        return;
    };
    let schema = format!(
        "contract_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        Utc::now().timestamp_micros()
    );
    let mut admin = sqlx::PgConnection::connect(&base)
        .await
        .expect("connect to DATABASE_URL");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&mut admin)
        .await
        .expect("create schema");
    let separator = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{separator}options=-c%20search_path%3D{schema}");
    let store = tidings_store::open(&url)
        .await
        .expect("open postgres store");
    let outcome = tokio::spawn(case(store)).await;
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
        .execute(&mut admin)
        .await
        .expect("drop schema");
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// A fixed origin of time, so every stored time is exact on both backends.
pub fn t(seconds: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid time")
        + Duration::seconds(seconds)
}

pub fn url(s: &str) -> FeedUrl {
    FeedUrl::parse(s).expect("test url")
}

pub async fn subscribe(
    store: &Arc<dyn Store>,
    u: &str,
    who: &str,
    at: DateTime<Utc>,
) -> Subscribed {
    store
        .subscribe(&url(u), who, at, &new_feed(at))
        .await
        .expect("subscribe")
}

/// The schedule of a feed added at `at`: due at once, an hour to start from.
pub fn new_feed(at: DateTime<Utc>) -> tidings_store::NewFeed {
    tidings_store::NewFeed {
        next_fetch_at: at,
        next_fetch_reason: "first add".to_owned(),
        interval_secs: 3600,
    }
}

/// A subscribed feed at `u`, due at `t(0)`.
pub async fn feed(store: &Arc<dyn Store>, u: &str) -> FeedId {
    subscribe(store, u, "alice", t(0)).await.feed_id
}

/// An entry with an id, a title and a summary.
pub fn entry(id: &str, title: &str, summary: &str) -> Entry {
    Entry {
        identity: id.to_owned(),
        id: Some(id.to_owned()),
        title: Some(title.to_owned()),
        link: Some(format!("https://example.org/{id}")),
        summary: Some(summary.to_owned()),
        ..Entry::default()
    }
}

/// An entry published at `published`.
pub fn dated(id: &str, published: DateTime<Utc>) -> Entry {
    Entry {
        published: Some(published),
        ..entry(id, id, "")
    }
}

/// A 200 with `entries`, fetched at `at`; the next fetch an hour later.
pub fn ok(feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) -> FetchRecord {
    tidings_store::testkit::full(feed, at, entries)
}

/// A 304 fetched at `at`.
pub fn not_modified(feed: FeedId, at: DateTime<Utc>) -> FetchRecord {
    outcome(feed, at, "not_modified", Some(304))
}

/// A fetch that ended in `label`, with no validators, metadata or entries.
pub fn outcome(feed: FeedId, at: DateTime<Utc>, label: &str, status: Option<i32>) -> FetchRecord {
    tidings_store::testkit::answered(feed, at, label.parse().expect("a known label"), status)
}

/// Every stored entry (up to 1000), newest first.
pub async fn all_entries(store: &Arc<dyn Store>) -> Vec<tidings_store::StoredEntry> {
    store
        .entries(&tidings_store::EntryQuery {
            limit: 1000,
            ..Default::default()
        })
        .await
        .expect("list entries")
}

/// The stored entry with identity `key`.
pub async fn stored(store: &Arc<dyn Store>, key: &str) -> tidings_store::StoredEntry {
    all_entries(store)
        .await
        .into_iter()
        .find(|e| e.entry.identity == key)
        .unwrap_or_else(|| panic!("entry {key} is stored"))
}
