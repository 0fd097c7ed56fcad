//! Crash safety on SQLite: a writer killed with SIGKILL in the middle of applying many fetches
//! loses nothing it had committed and leaves no fetch half-written.
//!
//! The test re-runs its own binary as the writer (selected by an environment variable). The
//! writer reports each commit on stdout; the parent kills it after some commits, reopens the
//! file and checks every feed.

use chrono::{DateTime, Duration, TimeZone, Utc};
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use tidings_model::{Entry, FeedId, FeedUrl, Label, Validators};
use tidings_store::{FetchRecord, LogQuery, Store};

const CHILD_ENV: &str = "TIDINGS_STORE_CRASH_WRITER";
const FEEDS: i64 = 400;
const ENTRIES_PER_FETCH: usize = 20;
/// Commits the parent waits for before killing the writer.
const KILL_AFTER: usize = 40;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid time")
}

fn feed_url(i: i64) -> FeedUrl {
    FeedUrl::parse(&format!("https://host{i}.example/feed")).expect("test url")
}

fn fetch(feed: FeedId) -> FetchRecord {
    let at = t0() + Duration::seconds(60);
    let mut record = tidings_store::testkit::answered(feed, at, Label::Ok, Some(200));
    record.update.validators = Some(Validators {
        etag: Some(format!("\"{feed}\"")),
        last_modified: None,
    });
    record.update.content_hash = Some(format!("hash-{feed}"));
    record.entries = (0..ENTRIES_PER_FETCH)
        .map(|n| Entry {
            identity: format!("{feed}-{n}"),
            title: Some(format!(
                "entry {n} of feed {feed} {}",
                "padding ".repeat(40)
            )),
            ..Entry::default()
        })
        .collect();
    let url = feed_url(feed.0);
    let row = &mut record.log[0];
    row.host = url.host_key().as_str().to_owned();
    row.url = url.as_str().to_owned();
    record
}

/// The writer: apply one fetch per feed, reporting each commit.
fn writer(location: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let store = tidings_store::open(location)
            .await
            .expect("writer opens the store");
        for feed in store.feeds().await.expect("feeds") {
            store.apply_fetch(fetch(feed.id)).await.expect("apply");
            println!("committed {}", feed.id);
        }
        // Never finish on our own: the parent must be the one to end this process.
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    });
}

async fn fetched_feeds(store: &Arc<dyn Store>) -> HashSet<FeedId> {
    let mut fetched = HashSet::new();
    for feed in store.feeds().await.unwrap() {
        let entries = store.count_entries(Some(feed.id)).await.unwrap();
        let log = LogQuery {
            feed: Some(feed.id),
            ..Default::default()
        };
        let log_rows = store.request_log(&log).await.unwrap().len();
        match feed.counters.fetches {
            0 => {
                assert_eq!(
                    (entries, log_rows),
                    (0, 0),
                    "feed {}: half-written",
                    feed.id
                );
                assert!(feed.validators.is_empty(), "feed {}: half-written", feed.id);
            }
            1 => {
                assert_eq!(entries, ENTRIES_PER_FETCH as u64, "feed {}", feed.id);
                assert_eq!(log_rows, 1, "feed {}", feed.id);
                assert_eq!(feed.validators.etag, Some(format!("\"{}\"", feed.id)));
                fetched.insert(feed.id);
            }
            n => panic!("feed {} was fetched {n} times", feed.id),
        }
    }
    fetched
}

#[test]
fn sigkill_loses_nothing_committed_and_leaves_nothing_half_written() {
    if let Ok(location) = std::env::var(CHILD_ENV) {
        writer(&location);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let location = dir.path().join("crash.db").to_str().unwrap().to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = tidings_store::open(&location).await.unwrap();
        for i in 0..FEEDS {
            let new = tidings_store::NewFeed {
                next_fetch_at: t0(),
                next_fetch_reason: "first add".to_owned(),
                interval_secs: 3600,
            };
            store
                .subscribe(&feed_url(i), "alice", t0(), &new)
                .await
                .unwrap();
        }
    });

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sigkill_loses_nothing_committed_and_leaves_nothing_half_written",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &location)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut reported = HashSet::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(id) = line.strip_prefix("committed ") {
            reported.insert(FeedId(id.parse().unwrap()));
            if reported.len() == KILL_AFTER {
                child.kill().unwrap(); // SIGKILL: no destructors, no checkpoint
                break;
            }
        }
    }
    child.wait().unwrap();
    assert_eq!(
        reported.len(),
        KILL_AFTER,
        "the writer committed before it was killed"
    );

    runtime.block_on(async {
        let store = tidings_store::open(&location).await.unwrap();
        let fetched = fetched_feeds(&store).await;
        assert!(
            reported.is_subset(&fetched),
            "every reported commit survived: lost {:?}",
            reported.difference(&fetched).collect::<Vec<_>>()
        );
        // The store is still writable after the crash.
        let next = store
            .feeds()
            .await
            .unwrap()
            .into_iter()
            .find(|f| !fetched.contains(&f.id));
        if let Some(feed) = next {
            store.apply_fetch(fetch(feed.id)).await.unwrap();
        }
        eprintln!(
            "crash test: {} commits reported, {} feeds found fully written after SIGKILL",
            reported.len(),
            fetched.len()
        );
    });
}
