//! Group commit of fetches on PostgreSQL: concurrent `apply_fetch` calls of one process are
//! queued and written by one task, up to [`MAX_BATCH`] at a time, in one transaction, and each
//! call gets its own result once that transaction is committed.
//!
//! A commit waits for its write-ahead log to reach the disk; one per fetch made that wait the
//! bound on a crawler's rate. Within a batch the fetches are applied in the order they were
//! queued, each as [`apply::apply`] applies one, so the result is that of applying them one
//! after another. If the batch's transaction fails (a fetch of a feed that was removed, a
//! deadlock with another process's batch, the server gone), nothing of it is stored and each
//! fetch is applied again in a transaction of its own, so one fetch's failure stays its own.
//!
//! The feeds of a batch are locked in the order of their ids (the batch is applied in that
//! order, each feed's fetches keeping theirs), so two processes' batches do not deadlock on
//! the feeds they share.
//!
//! Host-lease claims and give-backs are queued the same way, on a queue of their own: those
//! queued together are sent as one claim statement and one give-back statement over all their
//! hosts (cut where a holder changes or a host is named again, so each answers as it would
//! alone), instead of a pair of statements, and a commit, per lane.
//!
//! Requests' write-ahead log rows (C7), one before every request, have a queue too: those
//! queued together are written by one statement and one commit, each caller answered with its
//! own ticket once committed (a commit per request halved the crawl's rate).

use super::{apply, leases};
use crate::{ApplyReport, FetchRecord, HostClaim, Release, RequestLogRow, Result, StoreError};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::collections::HashSet;
use tidings_model::RequestTicket;
use tokio::sync::{mpsc, oneshot};

/// The most fetches written in one transaction.
const MAX_BATCH: usize = 64;
/// Writing tasks, each on a connection of its own: a feed's fetches always go to the same
/// one (by its id), so they are written in their order.
const WRITERS: usize = 4;

/// One queued fetch and who waits for its result.
struct Job {
    fetch: FetchRecord,
    done: oneshot::Sender<Result<ApplyReport>>,
}

/// A queued lease write and who waits for its answer.
enum LeaseJob {
    Claim {
        hosts: Vec<String>,
        holder: String,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        done: oneshot::Sender<Result<Vec<HostClaim>>>,
    },
    GiveBack {
        holder: String,
        releases: Vec<Release>,
        now: DateTime<Utc>,
        done: oneshot::Sender<Result<u64>>,
    },
}

impl LeaseJob {
    fn holder(&self) -> &str {
        match self {
            LeaseJob::Claim { holder, .. } | LeaseJob::GiveBack { holder, .. } => holder,
        }
    }

    fn hosts(&self) -> Vec<&str> {
        match self {
            LeaseJob::Claim { hosts, .. } => hosts.iter().map(String::as_str).collect(),
            LeaseJob::GiveBack { releases, .. } => {
                releases.iter().map(|r| r.host.as_str()).collect()
            }
        }
    }
}

/// The most lease writes sent together.
const MAX_LEASE_BATCH: usize = 256;

/// A queued write-ahead row and who waits for its ticket.
struct OpenJob {
    row: RequestLogRow,
    done: oneshot::Sender<Result<RequestTicket>>,
}

/// The most write-ahead rows written together.
const MAX_OPEN_BATCH: usize = 256;

/// The queues of this process's fetches, lease writes and write-ahead rows.
#[derive(Debug, Clone)]
pub(super) struct Writer {
    queues: Vec<mpsc::UnboundedSender<Job>>,
    leases: mpsc::UnboundedSender<LeaseJob>,
    opens: mpsc::UnboundedSender<OpenJob>,
}

impl Writer {
    /// Start the writing task over `pool`; it ends when every `Writer` is dropped.
    pub(super) fn start(pool: PgPool) -> Writer {
        let queues = (0..WRITERS)
            .map(|_| {
                let (queue, jobs) = mpsc::unbounded_channel();
                tokio::spawn(write_queued(pool.clone(), jobs));
                queue
            })
            .collect();
        let (leases, lease_jobs) = mpsc::unbounded_channel();
        tokio::spawn(write_leases(pool.clone(), lease_jobs));
        let (opens, open_jobs) = mpsc::unbounded_channel();
        tokio::spawn(write_opens(pool, open_jobs));
        Writer {
            queues,
            leases,
            opens,
        }
    }

    /// Queue a request's write-ahead row (see `Store::open_request`) and wait until it is
    /// committed.
    pub(super) async fn open(&self, row: RequestLogRow) -> Result<RequestTicket> {
        let (done, ticket) = oneshot::channel();
        self.opens
            .send(OpenJob { row, done })
            .map_err(|_| StoreError::WriterStopped)?;
        ticket.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// Queue a claim (see `Store::claim_hosts`) and wait for its answer.
    pub(super) async fn claim(
        &self,
        hosts: &[String],
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<HostClaim>> {
        let (done, answer) = oneshot::channel();
        self.leases
            .send(LeaseJob::Claim {
                hosts: hosts.to_vec(),
                holder: holder.to_owned(),
                now,
                until,
                done,
            })
            .map_err(|_| StoreError::WriterStopped)?;
        answer.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// Queue a give-back (see `Store::release_hosts`) and wait for its answer.
    pub(super) async fn give_back(
        &self,
        holder: &str,
        releases: &[Release],
        now: DateTime<Utc>,
    ) -> Result<u64> {
        if releases.is_empty() {
            return Ok(0);
        }
        let (done, answer) = oneshot::channel();
        self.leases
            .send(LeaseJob::GiveBack {
                holder: holder.to_owned(),
                releases: releases.to_vec(),
                now,
                done,
            })
            .map_err(|_| StoreError::WriterStopped)?;
        answer.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// Queue `fetch` and wait until it is committed (or failed).
    pub(super) async fn apply(&self, fetch: FetchRecord) -> Result<ApplyReport> {
        let (done, result) = oneshot::channel();
        let writer = usize::try_from(fetch.feed_id.0.unsigned_abs()).unwrap_or(0) % WRITERS;
        self.queues[writer]
            .send(Job { fetch, done })
            .map_err(|_| StoreError::WriterStopped)?;
        result.await.map_err(|_| StoreError::WriterStopped)?
    }
}

async fn write_queued(pool: PgPool, mut jobs: mpsc::UnboundedReceiver<Job>) {
    while let Some(first) = jobs.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit(&pool, batch).await;
    }
}

/// Write `batch` in one transaction, or each of its fetches in its own when that fails.
async fn commit(pool: &PgPool, mut batch: Vec<Job>) {
    // Feed by feed, each feed's fetches in their order (a stable sort).
    batch.sort_by_key(|job| job.fetch.feed_id.0);
    let mut fetches: Vec<&mut FetchRecord> = batch.iter_mut().map(|j| &mut j.fetch).collect();
    match try_batch(pool, &mut fetches).await {
        Ok(reports) => {
            for (job, report) in batch.into_iter().zip(reports) {
                // A caller that stopped waiting needs no answer.
                let _ = job.done.send(Ok(report));
            }
        }
        Err(e) if batch.len() == 1 => {
            if let Some(job) = batch.pop() {
                let _ = job.done.send(Err(e));
            }
        }
        Err(_) => {
            for mut job in batch {
                let result = try_batch(pool, &mut [&mut job.fetch])
                    .await
                    .map(|mut reports| reports.pop().unwrap_or_default());
                let _ = job.done.send(result);
            }
        }
    }
}

/// One transaction for `fetches`, applied in order: their reports once committed.
async fn try_batch(pool: &PgPool, fetches: &mut [&mut FetchRecord]) -> Result<Vec<ApplyReport>> {
    let mut tx = pool.begin().await?;
    let mut reports = Vec::with_capacity(fetches.len());
    for fetch in fetches.iter_mut() {
        reports.push(apply::apply(&mut tx, fetch).await?);
    }
    tx.commit().await?;
    Ok(reports)
}

async fn write_opens(pool: PgPool, mut jobs: mpsc::UnboundedReceiver<OpenJob>) {
    while let Some(first) = jobs.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_OPEN_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let rows: Vec<&RequestLogRow> = batch.iter().map(|j| &j.row).collect();
        match apply::open_requests(&pool, &rows).await {
            Ok(tickets) => {
                for (job, ticket) in batch.into_iter().zip(tickets) {
                    let _ = job.done.send(Ok(ticket));
                }
            }
            Err(_) => {
                // Each alone, so each gets its own error.
                for job in batch {
                    let ticket = apply::open_requests(&pool, &[&job.row])
                        .await
                        .and_then(|mut t| t.pop().ok_or(StoreError::WriterStopped));
                    let _ = job.done.send(ticket);
                }
            }
        }
    }
}

async fn write_leases(pool: PgPool, mut jobs: mpsc::UnboundedReceiver<LeaseJob>) {
    while let Some(first) = jobs.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_LEASE_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        // Phases in which one holder names each host once: within one, order does not matter.
        let mut phase: Vec<LeaseJob> = Vec::new();
        let mut named: HashSet<String> = HashSet::new();
        for job in batch {
            let hosts = job.hosts();
            let clash = phase.first().is_some_and(|p| p.holder() != job.holder())
                || hosts.iter().any(|h| named.contains(*h));
            if clash {
                lease_phase(&pool, std::mem::take(&mut phase)).await;
                named.clear();
            }
            named.extend(hosts.into_iter().map(str::to_owned));
            phase.push(job);
        }
        lease_phase(&pool, phase).await;
    }
}

/// The lease writes of one phase: every claim in one statement, every give-back in another,
/// each job answered with its own part. When a statement fails, each of its jobs is sent
/// alone, so each gets its own error.
async fn lease_phase(pool: &PgPool, phase: Vec<LeaseJob>) {
    let Some(holder) = phase.first().map(|j| j.holder().to_owned()) else {
        return;
    };
    let mut claims = Vec::new();
    let mut gives = Vec::new();
    for job in phase {
        match job {
            LeaseJob::Claim { .. } => claims.push(job),
            LeaseJob::GiveBack { .. } => gives.push(job),
        }
    }
    if !claims.is_empty() {
        let (mut hosts, mut now, mut until) = (
            Vec::new(),
            DateTime::<Utc>::MIN_UTC,
            DateTime::<Utc>::MIN_UTC,
        );
        for job in &claims {
            if let LeaseJob::Claim {
                hosts: h,
                now: n,
                until: u,
                ..
            } = job
            {
                hosts.extend(h.iter().cloned());
                now = now.max(*n);
                until = until.max(*u);
            }
        }
        match leases::claim(pool, &hosts, &holder, now, until).await {
            Ok(answers) => {
                let mut answers = answers.into_iter();
                for job in claims {
                    if let LeaseJob::Claim { hosts, done, .. } = job {
                        let _ = done.send(Ok(answers.by_ref().take(hosts.len()).collect()));
                    }
                }
            }
            Err(_) => {
                for job in claims {
                    if let LeaseJob::Claim {
                        hosts,
                        holder,
                        now,
                        until,
                        done,
                    } = job
                    {
                        let _ = done.send(leases::claim(pool, &hosts, &holder, now, until).await);
                    }
                }
            }
        }
    }
    if !gives.is_empty() {
        let mut releases = Vec::new();
        let mut now = DateTime::<Utc>::MIN_UTC;
        for job in &gives {
            if let LeaseJob::GiveBack {
                releases: r,
                now: n,
                ..
            } = job
            {
                releases.extend(r.iter().cloned());
                now = now.max(*n);
            }
        }
        match leases::give_back(pool, &holder, &releases, now).await {
            Ok(given) => {
                let given: HashSet<String> = given.into_iter().collect();
                for job in gives {
                    if let LeaseJob::GiveBack { releases, done, .. } = job {
                        let n = releases.iter().filter(|r| given.contains(&r.host)).count();
                        let _ = done.send(Ok(n as u64));
                    }
                }
            }
            Err(_) => {
                for job in gives {
                    if let LeaseJob::GiveBack {
                        releases,
                        holder,
                        now,
                        done,
                    } = job
                    {
                        let n = leases::give_back(pool, &holder, &releases, now)
                            .await
                            .map(|given| given.len() as u64);
                        let _ = done.send(n);
                    }
                }
            }
        }
    }
}
