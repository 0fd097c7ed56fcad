//! Group commit: fetches applied at the same time share one write transaction.
//!
//! SQLite admits one writer at a time and every statement is a round trip to its worker
//! thread, so one transaction per fetch made writes serial and slow (see the loopback crawl in
//! `docs/benchmarks.md`). Here each [`Store::apply_fetch`](crate::Store::apply_fetch) call
//! queues its prepared fetch and waits for its own result; one writer task takes the write
//! turn, takes every fetch queued by then (up to [`MAX_BATCH`]) and applies them in order in
//! one transaction, then answers each caller after `COMMIT`. Fetches queued meanwhile form the
//! next batch. The writer task runs only while there is work, on the runtime of the call that
//! found the queue idle.
//!
//! What each caller sees does not change: its result is returned only once it is committed
//! (durable as any commit, see the module `sqlite`); a fetch of a missing feed is its own
//! `NoSuchFeed` and the others are written; and when a batch fails as a whole (any other
//! error, including at `COMMIT`), nothing of it is stored and each of its fetches is applied
//! again alone, in a transaction of its own, so one fetch's failure fails no other fetch and
//! every caller gets its own error. A caller that stops waiting does not withdraw its fetch:
//! it is applied whole or not at all, like any other.

use super::SqliteStore;
use super::apply::{self, Prepared};
use crate::{ApplyReport, Result, StoreError};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;

/// The most fetches in one transaction, to bound how long one commit holds the write turn.
pub(super) const MAX_BATCH: usize = 512;

/// The fetches waiting for the writer.
#[derive(Debug, Default)]
pub(super) struct Queue {
    state: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    jobs: Vec<Job>,
    /// A writer task is running and will take every job queued before it stops.
    writing: bool,
}

#[derive(Debug)]
struct Job {
    fetch: Prepared,
    done: oneshot::Sender<Result<ApplyReport>>,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        // Nothing panics while holding the lock; a poisoned queue is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SqliteStore {
    /// Queue `fetch` for the writer, starting it if idle, and wait for its own result.
    pub(super) async fn apply_grouped(&self, fetch: Prepared) -> Result<ApplyReport> {
        let (done, result) = oneshot::channel();
        let start = {
            let mut waiting = self.queue.lock();
            waiting.jobs.push(Job { fetch, done });
            !std::mem::replace(&mut waiting.writing, true)
        };
        if start {
            tokio::spawn(self.clone().write_queued());
        }
        result.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// The writer task: batches until the queue is empty.
    async fn write_queued(self) {
        // If this task ends early (its runtime shuts down), waiting callers are answered
        // (their senders drop) and the next call starts a new writer.
        let stop = StopGuard(&self);
        loop {
            let turn = self.writer.clone().lock_owned().await;
            let jobs = {
                let mut waiting = self.queue.lock();
                if waiting.jobs.is_empty() {
                    waiting.writing = false;
                    break;
                }
                let n = waiting.jobs.len().min(MAX_BATCH);
                waiting.jobs.drain(..n).collect::<Vec<_>>()
            };
            self.commit_batch(jobs).await;
            drop(turn);
        }
        std::mem::forget(stop);
    }

    /// Apply `jobs` in one transaction and answer each; on failure, each alone.
    async fn commit_batch(&self, jobs: Vec<Job>) {
        let fetches: Vec<&Prepared> = jobs.iter().map(|j| &j.fetch).collect();
        match self.try_batch(&fetches).await {
            Ok(results) => {
                for (job, result) in jobs.into_iter().zip(results) {
                    // A caller that stopped waiting needs no answer.
                    let _ = job.done.send(result);
                }
            }
            Err(e) if jobs.len() == 1 => {
                if let Some(job) = jobs.into_iter().next() {
                    let _ = job.done.send(Err(e));
                }
            }
            Err(_) => {
                for job in jobs {
                    let result = match self.try_batch(&[&job.fetch]).await {
                        Ok(mut results) => results.pop().unwrap_or(Err(StoreError::WriterStopped)),
                        Err(e) => Err(e),
                    };
                    let _ = job.done.send(result);
                }
            }
        }
    }

    /// One transaction for `fetches`: their own results once committed, or the error that
    /// made the transaction fail (then nothing of it is stored).
    async fn try_batch(&self, fetches: &[&Prepared]) -> Result<Vec<Result<ApplyReport>>> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let results = apply::apply_batch(&mut tx, fetches).await?;
        tx.commit().await?;
        Ok(results)
    }
}

/// Clears the queue's writer flag and drops waiting jobs when the writer task ends early.
struct StopGuard<'a>(&'a SqliteStore);

impl Drop for StopGuard<'_> {
    fn drop(&mut self) {
        let mut waiting = self.0.queue.lock();
        waiting.writing = false;
        waiting.jobs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FeedState, FeedUpdate, FetchRecord, NewFeed, RequestLogRow, Store};
    use chrono::{DateTime, Duration, Utc};
    use tidings_model::{Entry, FeedId, FeedUrl};

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + s, 0).unwrap_or_default()
    }

    fn entry(id: &str, title: &str) -> Entry {
        Entry {
            id: id.to_owned(),
            title: Some(title.to_owned()),
            ..Entry::default()
        }
    }

    fn fetch(feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) -> FetchRecord {
        FetchRecord {
            feed_id: feed,
            fetched_at: at,
            update: FeedUpdate {
                validators: None,
                content_hash: None,
                url: None,
                pending_move: None,
                state: FeedState::Active,
                state_reason: None,
                held_by: None,
                next_fetch_at: at + Duration::hours(1),
                next_fetch_reason: "interval 1h".to_owned(),
                interval_secs: 3600,
                consecutive_failures: 0,
                last_status: Some(200),
                last_outcome: tidings_model::Label::Ok,
                last_error: None,
                last_failure: None,
                failure_totals: Default::default(),
                meta: None,
                egress_refusals: None,
            },
            entries,
            log: vec![RequestLogRow {
                at,
                feed_id: Some(feed),
                host: "https://example.org:443".to_owned(),
                purpose: "feed".to_owned(),
                url: "https://example.org/feed.xml".to_owned(),
                egress: None,
                status: Some(200),
                outcome: tidings_model::Label::Ok,
                bytes: 1,
                duration_ms: 1,
                rule: "due".to_owned(),
            }],
            host_floor: None,
        }
    }

    async fn store_with_feeds(n: usize) -> (tempfile::TempDir, SqliteStore, Vec<FeedId>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("group.db");
        let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let mut ids = Vec::new();
        for i in 0..n {
            let url = FeedUrl::parse(&format!("https://h{i}.example/feed")).unwrap();
            let new = NewFeed {
                next_fetch_at: t(0),
                next_fetch_reason: "new".to_owned(),
                interval_secs: 3600,
            };
            ids.push(
                store
                    .subscribe(&url, "a", t(0), &new)
                    .await
                    .unwrap()
                    .feed_id,
            );
        }
        (dir, store, ids)
    }

    /// Runs `records` as one batch, as the writer task would, and returns each result.
    async fn batch(store: &SqliteStore, records: &[FetchRecord]) -> Vec<Result<ApplyReport>> {
        let mut jobs = Vec::new();
        let mut answers = Vec::new();
        for r in records {
            let (done, answer) = oneshot::channel();
            jobs.push(Job {
                fetch: Prepared::of(r.clone()).unwrap(),
                done,
            });
            answers.push(answer);
        }
        store.commit_batch(jobs).await;
        let mut out = Vec::new();
        for a in answers {
            out.push(a.await.unwrap());
        }
        out
    }

    fn report(new: u64, updated: u64, unchanged: u64) -> ApplyReport {
        ApplyReport {
            new_entries: new,
            updated_entries: updated,
            unchanged_entries: unchanged,
        }
    }

    #[tokio::test]
    async fn one_batch_applies_in_order_as_separate_transactions_would() {
        let (_dir, store, ids) = store_with_feeds(2).await;
        let (a, b) = (ids[0], ids[1]);
        let results = batch(
            &store,
            &[
                fetch(a, t(60), vec![entry("x", "one"), entry("y", "one")]),
                fetch(b, t(61), vec![entry("x", "other feed")]),
                // The same feed again in the same batch: x changed, y did not, z is new.
                fetch(
                    a,
                    t(62),
                    vec![entry("x", "two"), entry("y", "one"), entry("z", "z")],
                ),
            ],
        )
        .await;
        let results: Vec<ApplyReport> = results.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            results,
            vec![report(2, 0, 0), report(1, 0, 0), report(1, 1, 1)]
        );
        assert_eq!(store.count_entries(Some(a)).await.unwrap(), 3);
        let listed = store
            .entries(&crate::EntryQuery {
                feed: Some(a),
                search: Some("two".to_owned()),
                ..crate::EntryQuery::default()
            })
            .await
            .unwrap();
        assert_eq!(
            listed.len(),
            1,
            "the full-text index follows the last version"
        );
        let x = &listed[0];
        assert_eq!((x.first_seen_at, x.updated_at), (t(60), t(62)));
        let feed = store.feed(a).await.unwrap().unwrap();
        assert_eq!(feed.counters.fetches, 2);
        assert_eq!(feed.last_fetch_at, Some(t(62)));
    }

    #[tokio::test]
    async fn a_failing_fetch_in_a_batch_fails_alone() {
        let (_dir, store, ids) = store_with_feeds(3).await;
        let ghost = FeedId(999);
        let mut broken = fetch(ids[1], t(60), vec![entry("b", "b")]);
        broken.log[0].feed_id = Some(ghost);
        let mut missing = fetch(ghost, t(60), vec![entry("g", "g")]);
        missing.log[0].feed_id = None;
        let results = batch(
            &store,
            &[
                fetch(ids[0], t(60), vec![entry("a", "a")]),
                broken,
                missing,
                fetch(ids[2], t(60), vec![entry("c", "c")]),
            ],
        )
        .await;
        assert_eq!(results[0].as_ref().unwrap(), &report(1, 0, 0));
        assert!(
            matches!(results[1], Err(StoreError::Database(_))),
            "{:?}",
            results[1]
        );
        assert!(matches!(results[2], Err(StoreError::NoSuchFeed(f)) if f == ghost));
        assert_eq!(results[3].as_ref().unwrap(), &report(1, 0, 0));
        assert_eq!(store.count_entries(None).await.unwrap(), 2);
        assert_eq!(store.count_entries(Some(ids[1])).await.unwrap(), 0);
        let untouched = store.feed(ids[1]).await.unwrap().unwrap();
        assert_eq!(untouched.last_fetch_at, None);
    }
}
