//! Group commit: writes made at the same time share one write transaction.
//!
//! SQLite admits one writer at a time and every statement is a round trip to its worker
//! thread, so one transaction per fetch made writes serial and slow (see the loopback crawl in
//! `docs/benchmarks.md`). Here each [`Store::apply_fetch`](crate::Store::apply_fetch) call,
//! and each claim and give-back of host leases, queues its write and waits for its own result;
//! one writer task takes the write turn, takes every write queued by then (up to
//! [`MAX_BATCH`]) and applies them in order in one transaction, then answers each caller after
//! `COMMIT`. Writes queued meanwhile form the next batch. The writer task runs only while there
//! is work, on the runtime of the call that found the queue idle. (A lane's claim, its fetches
//! and its give-back were each a transaction of their own; under many lanes the claims and
//! give-backs took turns with the fetches and the batches shrank to one or two fetches.)
//!
//! What each caller sees does not change: its result is returned only once it is committed
//! (durable as any commit, see the module `sqlite`); a fetch of a missing feed is its own
//! `NoSuchFeed` and the others are written; and when a batch fails as a whole (any other
//! error, including at `COMMIT`), nothing of it is stored and each of its writes is applied
//! again alone, in a transaction of its own, so one write's failure fails no other and every
//! caller gets its own error. A caller that stops waiting does not withdraw its write: it is
//! applied whole or not at all, like any other.

use super::SqliteStore;
use super::apply::{self, Prepared};
use super::leases::{self, Claim, GiveBack};
use crate::{ApplyReport, HostClaim, RequestLogRow, Result, StoreError};
use sqlx::{Sqlite, Transaction};
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};
use tidings_model::RequestTicket;
use tokio::sync::oneshot;

/// The most writes in one transaction, to bound how long one commit holds the write turn.
pub(super) const MAX_BATCH: usize = 512;

/// One write queued for the writer task.
#[derive(Debug)]
pub(super) enum Write {
    /// Boxed: a prepared fetch is several times a lease write's size.
    Fetch(Box<Prepared>),
    Claim(Claim),
    GiveBack(GiveBack),
    /// A request's write-ahead row (C7), committed before the request is sent.
    Open(Box<RequestLogRow>),
}

/// What a write answers, by kind.
#[derive(Debug)]
pub(super) enum Written {
    Fetch(ApplyReport),
    Claim(Vec<HostClaim>),
    GiveBack(u64),
    Open(RequestTicket),
}

/// The writes waiting for the writer.
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
    write: Write,
    done: oneshot::Sender<Result<Written>>,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        // Nothing panics while holding the lock; a poisoned queue is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SqliteStore {
    /// Queue `fetch` for the writer and wait for its own result.
    pub(super) async fn apply_grouped(&self, fetch: Prepared) -> Result<ApplyReport> {
        match self.grouped(Write::Fetch(Box::new(fetch))).await? {
            Written::Fetch(report) => Ok(report),
            other => Err(mismatch(&other)),
        }
    }

    /// Queue a claim of host leases and wait for its answers, one per host.
    pub(super) async fn claim_grouped(&self, claim: Claim) -> Result<Vec<HostClaim>> {
        match self.grouped(Write::Claim(claim)).await? {
            Written::Claim(claims) => Ok(claims),
            other => Err(mismatch(&other)),
        }
    }

    /// Queue a give-back of host leases and wait until it is committed.
    pub(super) async fn give_back_grouped(&self, give_back: GiveBack) -> Result<u64> {
        match self.grouped(Write::GiveBack(give_back)).await? {
            Written::GiveBack(n) => Ok(n),
            other => Err(mismatch(&other)),
        }
    }

    /// Queue a request's write-ahead row and wait until it is committed.
    pub(super) async fn open_grouped(&self, row: RequestLogRow) -> Result<RequestTicket> {
        match self.grouped(Write::Open(Box::new(row))).await? {
            Written::Open(ticket) => Ok(ticket),
            other => Err(mismatch(&other)),
        }
    }

    /// Queue `write`, starting the writer if idle, and wait for its own result.
    async fn grouped(&self, write: Write) -> Result<Written> {
        let (done, result) = oneshot::channel();
        let start = {
            let mut waiting = self.queue.lock();
            waiting.jobs.push(Job { write, done });
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
        let writes: Vec<&Write> = jobs.iter().map(|j| &j.write).collect();
        match self.try_batch(&writes).await {
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
                    let result = match self.try_batch(&[&job.write]).await {
                        Ok(mut results) => results.pop().unwrap_or(Err(StoreError::WriterStopped)),
                        Err(e) => Err(e),
                    };
                    let _ = job.done.send(result);
                }
            }
        }
    }

    /// One transaction for `writes`: their own results once committed, in their order, or
    /// the error that made the transaction fail (then nothing of it is stored).
    async fn try_batch(&self, writes: &[&Write]) -> Result<Vec<Result<Written>>> {
        let mut tx = self.writes.begin_with("BEGIN IMMEDIATE").await?;
        let results = apply_writes(&mut tx, writes).await?;
        tx.commit().await?;
        Ok(results)
    }
}

/// Apply `writes` in `tx`. The fetches go together (`apply::apply_batch`, in their order); the
/// lease writes touch only `host_leases`, which no fetch writes, and go after them; the
/// write-ahead rows last (a fetch closes only a row committed before its request was sent,
/// so never one of its own batch), so the outcome is that of applying every write one after
/// another.
async fn apply_writes(
    tx: &mut Transaction<'static, Sqlite>,
    writes: &[&Write],
) -> Result<Vec<Result<Written>>> {
    let fetches: Vec<&Prepared> = writes
        .iter()
        .filter_map(|w| match w {
            Write::Fetch(p) => Some(&**p),
            _ => None,
        })
        .collect();
    let mut applied = if fetches.is_empty() {
        Vec::new()
    } else {
        apply::apply_batch(tx, &fetches).await?
    }
    .into_iter();
    let mut leases = lease_writes(tx, writes).await?.into_iter();
    let mut opened = Vec::new();
    for write in writes {
        if let Write::Open(row) = write {
            opened.push(apply::open_request(tx, row).await?);
        }
    }
    let mut opened = opened.into_iter();
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        results.push(match write {
            Write::Fetch(_) => applied
                .next()
                .unwrap_or(Err(StoreError::WriterStopped))
                .map(Written::Fetch),
            Write::Claim(_) | Write::GiveBack(_) => leases.next().ok_or(StoreError::WriterStopped),
            Write::Open(_) => opened
                .next()
                .map(Written::Open)
                .ok_or(StoreError::WriterStopped),
        });
    }
    Ok(results)
}

/// The lease writes of `writes`, answered in their order. They are cut into phases in which
/// no host is named twice: within a phase their order does not matter, so all its claims are
/// one statement and all its give-backs another, and the phases go in order. (The usual batch,
/// each lane's claim or give-back, is one or two phases; a lane that gives its host back and
/// a lane that claims it again start a new one.)
async fn lease_writes(
    tx: &mut Transaction<'static, Sqlite>,
    writes: &[&Write],
) -> Result<Vec<Written>> {
    let mut out = Vec::new();
    let mut phase: Vec<&Write> = Vec::new();
    let mut hosts: HashSet<&str> = HashSet::new();
    for &write in writes {
        let named: Vec<&str> = match write {
            Write::Fetch(_) | Write::Open(_) => continue,
            Write::Claim(c) => c.hosts.iter().map(String::as_str).collect(),
            Write::GiveBack(g) => g.releases.iter().map(|r| r.host.as_str()).collect(),
        };
        let fresh: HashSet<&str> = named.iter().copied().collect();
        if fresh.len() < named.len() || fresh.iter().any(|h| hosts.contains(h)) {
            out.extend(lease_phase(tx, &phase).await?);
            phase.clear();
            hosts.clear();
        }
        if fresh.len() < named.len() {
            // One write naming a host twice goes alone, as written.
            out.extend(lease_phase(tx, &[write]).await?);
            continue;
        }
        hosts.extend(fresh);
        phase.push(write);
    }
    out.extend(lease_phase(tx, &phase).await?);
    Ok(out)
}

/// Lease writes none of which names a host another names: every claim in one statement,
/// every give-back in another. Claims answer as of the latest claim's time (the phase is
/// written after it).
async fn lease_phase(
    tx: &mut Transaction<'static, Sqlite>,
    phase: &[&Write],
) -> Result<Vec<Written>> {
    let mut claims = Vec::new();
    let mut gives = Vec::new();
    let mut now = None;
    for write in phase {
        match write {
            Write::Fetch(_) | Write::Open(_) => {}
            Write::Claim(c) => {
                claims.extend(c.rows());
                now = now.max(Some(c.now));
            }
            Write::GiveBack(g) => gives.extend(g.rows()),
        }
    }
    let mut claimed = match now {
        Some(now) => leases::claim(tx, &claims, now).await?,
        None => Vec::new(),
    }
    .into_iter();
    let mut given = if gives.is_empty() {
        Vec::new()
    } else {
        leases::give_back(tx, &gives).await?
    }
    .into_iter();
    let mut out = Vec::with_capacity(phase.len());
    for write in phase {
        match write {
            Write::Fetch(_) | Write::Open(_) => {}
            Write::Claim(c) => {
                out.push(Written::Claim(
                    claimed.by_ref().take(c.hosts.len()).collect(),
                ));
            }
            Write::GiveBack(g) => {
                let n = given.by_ref().take(g.releases.len()).filter(|e| *e).count();
                out.push(Written::GiveBack(n as u64));
            }
        }
    }
    Ok(out)
}

/// A write answered with another kind's result: a defect of this module.
fn mismatch(written: &Written) -> StoreError {
    StoreError::Corrupt(format!(
        "the writer answered with the wrong kind: {written:?}"
    ))
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
    use crate::{FetchRecord, NewFeed, Store};
    use chrono::{DateTime, Utc};
    use tidings_model::{Entry, FeedId, FeedUrl};

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + s, 0).unwrap_or_default()
    }

    fn entry(id: &str, title: &str) -> Entry {
        Entry {
            identity: id.to_owned(),
            title: Some(title.to_owned()),
            ..Entry::default()
        }
    }

    fn fetch(feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) -> FetchRecord {
        let mut record = crate::testkit::answered(feed, at, tidings_model::Label::Ok, Some(200));
        record.entries = entries;
        record
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
                write: Write::Fetch(Box::new(Prepared::of(r.clone()).unwrap())),
                done,
            });
            answers.push(answer);
        }
        store.commit_batch(jobs).await;
        let mut out = Vec::new();
        for a in answers {
            out.push(a.await.unwrap().map(|written| match written {
                Written::Fetch(report) => report,
                other => panic!("a fetch answered {other:?}"),
            }));
        }
        out
    }

    /// Runs `writes` as one batch, as the writer task would, and returns each answer.
    async fn written(store: &SqliteStore, writes: Vec<Write>) -> Vec<Written> {
        let mut jobs = Vec::new();
        let mut answers = Vec::new();
        for write in writes {
            let (done, answer) = oneshot::channel();
            jobs.push(Job { write, done });
            answers.push(answer);
        }
        store.commit_batch(jobs).await;
        let mut out = Vec::new();
        for a in answers {
            out.push(a.await.unwrap().unwrap());
        }
        out
    }

    fn claim(hosts: &[&str], holder: &str, now: i64) -> Write {
        Write::Claim(Claim {
            hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            holder: holder.to_owned(),
            now: t(now),
            until: t(now + 60),
        })
    }

    fn give_back(host: &str, token: i64, holder: &str, now: i64) -> Write {
        Write::GiveBack(GiveBack {
            holder: holder.to_owned(),
            releases: vec![crate::Release {
                host: host.to_owned(),
                token,
                last_end: Some(t(now - 1)),
            }],
            now: t(now),
        })
    }

    fn held(token: i64, until: i64, last_end: Option<i64>) -> HostClaim {
        HostClaim::Held(crate::HostLease {
            token,
            expires_at: t(until),
            last_end: last_end.map(t),
        })
    }

    #[tokio::test]
    async fn lease_writes_in_one_batch_answer_as_one_after_another_would() {
        let (_dir, store, ids) = store_with_feeds(1).await;
        // A host named twice (h1: claimed by a, given back, claimed by b): a new phase.
        let answers = written(
            &store,
            vec![
                claim(&["h1", "h2"], "a", 0),
                Write::Fetch(Box::new(
                    Prepared::of(fetch(ids[0], t(1), vec![entry("x", "x")])).unwrap(),
                )),
                claim(&["h3"], "b", 1),
                give_back("h1", 1, "a", 2),
                claim(&["h1"], "b", 3),
            ],
        )
        .await;
        let answers: Vec<String> = answers.iter().map(|a| format!("{a:?}")).collect();
        let want = [
            Written::Claim(vec![held(1, 60, None), held(1, 60, None)]),
            Written::Fetch(report(1, 0, 0)),
            Written::Claim(vec![held(1, 61, None)]),
            Written::GiveBack(1),
            Written::Claim(vec![held(2, 63, Some(1))]),
        ];
        let want: Vec<String> = want.iter().map(|w| format!("{w:?}")).collect();
        assert_eq!(answers, want);

        // Every host once (the usual batch): one phase, one statement per kind, the same
        // answers as one after another. h2 is a's, so b finds it busy; a stale token gives nothing back.
        let answers = written(
            &store,
            vec![
                give_back("h3", 1, "b", 10),
                claim(&["h2"], "b", 11),
                claim(&["h4"], "a", 12),
                give_back("h1", 1, "b", 12),
            ],
        )
        .await;
        let answers: Vec<String> = answers.iter().map(|a| format!("{a:?}")).collect();
        let want = [
            Written::GiveBack(1),
            Written::Claim(vec![HostClaim::Busy { until: t(60) }]),
            Written::Claim(vec![held(1, 72, None)]),
            Written::GiveBack(0),
        ];
        let want: Vec<String> = want.iter().map(|w| format!("{w:?}")).collect();
        assert_eq!(answers, want);
        // h3 is free again: a new holder gets it with b's last end.
        let answers = written(&store, vec![claim(&["h3"], "c", 20)]).await;
        assert_eq!(
            format!("{:?}", answers[0]),
            format!("{:?}", Written::Claim(vec![held(2, 80, Some(9))]))
        );
    }

    fn report(new: u64, updated: u64, unchanged: u64) -> ApplyReport {
        ApplyReport {
            new_entries: new,
            updated_entries: updated,
            unchanged_entries: unchanged,
            fenced_out: false,
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
