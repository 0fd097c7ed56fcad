//! Due work: everything due once ([`Crawler::refresh_due`]), or continuously until stopped
//! ([`Crawler::crawl`]). Hosts in parallel, each host's feeds one after another.

use crate::refresh::{FeedReport, Purpose};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use futures_util::FutureExt;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{FeedId, Label};
use tidings_store::FeedRecord;
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How many due feeds are taken from the store at a time.
const BATCH: u32 = 1000;
/// The most due feeds held in the backlog: beyond it, no page is read until workers took
/// some (a host with a million due feeds does not fill memory).
const MAX_BACKLOG: usize = 20_000;

/// Due feeds per host, waiting for their host's worker, hosts in the order they were met.
#[derive(Default)]
struct Backlog {
    hosts: std::collections::VecDeque<String>,
    feeds: HashMap<String, Vec<FeedRecord>>,
    ids: HashSet<FeedId>,
}

impl Backlog {
    fn push(&mut self, feed: FeedRecord) {
        if !self.ids.insert(feed.id) {
            return;
        }
        let host = crate::gate::host_of(feed.url.as_url());
        let feeds = self.feeds.entry(host.clone()).or_default();
        if feeds.is_empty() {
            self.hosts.push_back(host);
        }
        feeds.push(feed);
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether a host of the backlog has no worker now.
    fn runnable(&self, busy: &HashMap<String, Vec<FeedId>>) -> bool {
        self.hosts.iter().any(|h| !busy.contains_key(h))
    }

    /// Hosts of the backlog whose worker is busy.
    fn hosts_waiting(&self, busy: &HashMap<String, Vec<FeedId>>) -> usize {
        self.hosts.iter().filter(|h| busy.contains_key(*h)).count()
    }

    /// The first host without a worker, and its feeds.
    fn take_runnable(
        &mut self,
        busy: &HashMap<String, Vec<FeedId>>,
    ) -> Option<(String, Vec<FeedRecord>)> {
        let at = self.hosts.iter().position(|h| !busy.contains_key(h))?;
        let host = self.hosts.remove(at)?;
        let feeds = self.feeds.remove(&host).unwrap_or_default();
        for feed in &feeds {
            self.ids.remove(&feed.id);
        }
        Some((host, feeds))
    }
}

/// What a run of [`Crawler::work`] reads.
enum Work {
    /// Due feeds until told to stop ([`Crawler::crawl`]).
    Until(CrawlUntil),
    /// Every feed due at `due_at`, once ([`Crawler::refresh_due`]).
    Once { due_at: DateTime<Utc> },
    /// These feeds, once each, due or not ([`Crawler::refresh_feeds`]).
    These(Vec<FeedRecord>),
}

/// What a run of [`Crawler::work`] did: its totals, and each feed's report when the run read
/// feeds it was given (a crawl's would grow without end).
struct Ran {
    summary: RunSummary,
    reports: Vec<FeedReport>,
}

/// The longest real time a crawl sleeps without looking at the store again, so feeds
/// subscribed by another process while it sleeps are not left waiting for hours.
const MAX_SLEEP: Duration = Duration::from_secs(30);
/// How often (real time) a running crawl reads the do-not-crawl rules again, so a rule added
/// by another process (`tidings block`) holds within this long (FF13).
const RELOAD_BLOCKS_EVERY: Duration = Duration::from_secs(30);

/// Receives progress while a run goes on (a progress bar, logs).
pub trait Progress: Send + Sync {
    /// More due feeds were found; `total` is the count so far.
    fn found(&self, total: usize);
    /// One feed is done.
    fn done(&self, report: &FeedReport);
    /// A continuous crawl looked at its work (after every change of it).
    fn state(&self, _state: &CrawlState) {}
}

/// Where a continuous crawl stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrawlState {
    /// Hosts whose feeds are being read now.
    pub hosts_busy: usize,
    /// Hosts with due feeds waiting for a free slot (`host_concurrency`).
    pub hosts_waiting: usize,
    /// When the next feed falls due that is not due yet (crawler time).
    pub next_due: Option<DateTime<Utc>>,
}

/// When a continuous crawl ends.
#[derive(Debug, Clone)]
pub struct CrawlUntil {
    /// Set to `true` to stop: no new feed read starts after it, reads in flight finish.
    pub stop: watch::Receiver<bool>,
    /// Stop at this crawler time, if set (same rule: reads in flight finish).
    pub deadline: Option<DateTime<Utc>>,
}

impl CrawlUntil {
    fn reached(&self, now: DateTime<Utc>) -> bool {
        *self.stop.borrow() || self.deadline.is_some_and(|d| now >= d)
    }
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn found(&self, _total: usize) {}
    fn done(&self, _report: &FeedReport) {}
}

/// Totals of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Feeds read (whatever the outcome).
    pub feeds: u64,
    /// 200 with a new body that parsed.
    pub fetched: u64,
    /// 304, or a 200 with the same body as last time.
    pub not_modified: u64,
    pub failed: u64,
    pub new_entries: u64,
    pub updated_entries: u64,
}

impl RunSummary {
    fn add(&mut self, r: &FeedReport) {
        self.feeds += 1;
        match (r.is_success(), r.outcome.is_not_modified()) {
            (false, _) => self.failed += 1,
            (true, true) => self.not_modified += 1,
            (true, false) => self.fetched += 1,
        }
        self.new_entries += r.new_entries;
        self.updated_entries += r.updated_entries;
    }
}

impl Crawler {
    /// Read every feed that is due at `now`, once. Feeds that become due while the run goes on
    /// wait for the next run. Hosts are worked as [`Crawler::crawl`] works them: each host's
    /// lane takes its next due feeds as soon as it is done with the last, whatever the others.
    pub async fn refresh_due(
        &self,
        now: DateTime<Utc>,
        progress: Arc<dyn Progress>,
    ) -> Result<RunSummary, CrawlError> {
        Ok(self
            .work(Work::Once { due_at: now }, progress)
            .await?
            .summary)
    }

    /// Read these feeds now, due or not, once each: worked as [`Crawler::crawl`] works due
    /// feeds (at most `host_concurrency` hosts at once, each host's feeds one after another
    /// through its lane). Returns each feed's report, in the order the feeds were given.
    pub async fn refresh_feeds(
        &self,
        feeds: Vec<FeedRecord>,
        progress: Arc<dyn Progress>,
    ) -> Result<Vec<FeedReport>, CrawlError> {
        let order: HashMap<FeedId, usize> =
            feeds.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        let mut reports = self.work(Work::These(feeds), progress).await?.reports;
        reports.sort_by_key(|r| order.get(&r.feed_id).copied());
        Ok(reports)
    }
}

impl Crawler {
    /// Read due feeds until `until` says stop: each host's due feeds one after another through
    /// the host gate, at most `host_concurrency` hosts at once, hosts independent of each other
    /// (a host that is done takes its next due feeds at once, without waiting for the others).
    /// Between reads it sleeps until the next feed is due (in crawler time, so an Nth of it
    /// under a clock N times faster), waking early on stop.
    ///
    /// On stop or at the deadline no new feed read starts; reads in flight finish and are
    /// stored. Each read is stored in one transaction, so even an abrupt end loses nothing, and
    /// the schedule lives in the store: a crawl started again reads nothing before its time.
    pub async fn crawl(
        &self,
        until: CrawlUntil,
        progress: Arc<dyn Progress>,
    ) -> Result<RunSummary, CrawlError> {
        Ok(self.work(Work::Until(until), progress).await?.summary)
    }

    /// The one loop behind [`Crawler::crawl`], [`Crawler::refresh_due`] and
    /// [`Crawler::refresh_feeds`] (whose feeds are the whole backlog: no page is read).
    ///
    /// Due feeds are read a page at a time in order of lateness (`Store::due_feeds_after`,
    /// each page an index range) into a backlog per host; every host with a backlog and no
    /// worker gets one, at most `host_concurrency` at once; a worker reads its host's feeds one
    /// after another and, when it ends, its host takes its next backlog at once. A page is read
    /// only when a worker slot would otherwise idle, so a host with many feeds never keeps the
    /// others from starting. A single pass reads each feed due at its time once; a crawl
    /// starts its pass again once it reaches the end, after sleeping until the next is due.
    async fn work(&self, work: Work, progress: Arc<dyn Progress>) -> Result<Ran, CrawlError> {
        // Nobody stops a single pass; it ends when nothing due at its time is left.
        let single = || CrawlUntil {
            stop: watch::channel(false).1,
            deadline: None,
        };
        // Hosts with due feeds not yet given to a worker, in the order they were met.
        let mut backlog = Backlog::default();
        // Whether the pass reached the end of what is due.
        let mut at_end = false;
        let keep_reports = matches!(work, Work::These(_));
        let (mut until, once) = match work {
            Work::Until(until) => (until, None),
            Work::Once { due_at } => (single(), Some(due_at)),
            Work::These(feeds) => {
                feeds.into_iter().for_each(|feed| backlog.push(feed));
                at_end = true;
                (single(), Some(self.now()))
            }
        };
        let mut summary = RunSummary::default();
        let mut reports = Vec::new();
        let mut found = 0usize;
        // Where the pass stands.
        let mut cursor: Option<(DateTime<Utc>, FeedId)> = None;
        // Host → the feeds its worker holds, and all those feeds.
        let mut busy: HashMap<String, Vec<FeedId>> = HashMap::new();
        let mut in_work: HashSet<FeedId> = HashSet::new();
        // A single pass reads each feed once, even one it made due again at its time.
        let mut seen: HashSet<FeedId> = HashSet::new();
        // Feeds whose read could not be completed, left alone until then.
        let mut held: HashMap<FeedId, DateTime<Utc>> = HashMap::new();
        let mut workers: JoinSet<(String, Vec<FeedReport>)> = JoinSet::new();
        let mut hosts_of: HashMap<tokio::task::Id, String> = HashMap::new();
        let slots = self.config.host_concurrency.max(1);
        let mut stop_open = true;
        let mut blocks_read = std::time::Instant::now();
        // A feed whose read could not be completed (a store error, a bug) is left alone this
        // long (crawler time) before it is tried again.
        let hold_after_error = i64::try_from(self.profile.backoff.after_internal_error)
            .ok()
            .and_then(chrono::TimeDelta::try_seconds)
            .unwrap_or(chrono::TimeDelta::MAX);
        let outcome = loop {
            let now = once.unwrap_or_else(|| self.now());
            if until.reached(self.now()) {
                break Ok(());
            }
            if once.is_none() && blocks_read.elapsed() >= RELOAD_BLOCKS_EVERY {
                if let Err(e) = self.reload_blocks().await {
                    break Err(e);
                }
                blocks_read = std::time::Instant::now();
            }
            held.retain(|_, at| *at > now);
            // Read pages while a worker slot would idle.
            let mut failed = None;
            while workers.len() < slots
                && !backlog.runnable(&busy)
                && !at_end
                && backlog.len() < MAX_BACKLOG
            {
                let page = match self.store.due_feeds_after(now, cursor, BATCH).await {
                    Ok(page) => page,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                };
                at_end = page.len() < BATCH as usize;
                if let Some(last) = page.last() {
                    cursor = Some((last.next_fetch_at, last.id));
                }
                for feed in page {
                    let again = once.is_some() && seen.contains(&feed.id);
                    if !again && !in_work.contains(&feed.id) && !held.contains_key(&feed.id) {
                        backlog.push(feed);
                    }
                }
            }
            if let Some(e) = failed {
                break Err(e.into());
            }
            // Every free host with a backlog gets a worker, most overdue first. Each worker
            // claims its host's lease in its first request, not this loop: a claim waits for a
            // store write, and the loop would start one lane per write.
            let mut starting = Vec::new();
            while workers.len() + starting.len() < slots {
                let Some((host, feeds)) = backlog.take_runnable(&busy) else {
                    break;
                };
                busy.insert(host.clone(), Vec::new());
                starting.push((host, feeds));
            }
            for (host, feeds) in starting {
                self.start_lane(&host);
                found += feeds.len();
                in_work.extend(feeds.iter().map(|f| f.id));
                if once.is_some() {
                    seen.extend(feeds.iter().map(|f| f.id));
                }
                busy.insert(host.clone(), feeds.iter().map(|f| f.id).collect());
                let worker = workers.spawn(self.clone().host_worker(
                    host.clone(),
                    feeds,
                    until.clone(),
                    progress.clone(),
                ));
                hosts_of.insert(worker.id(), host);
            }
            progress.found(found);
            if once.is_some() && workers.is_empty() && backlog.is_empty() && at_end {
                // Nothing due at the pass's time is left unread.
                break Ok(());
            }
            let next_due = if once.is_none() && at_end {
                match self.store.next_due_after(now).await {
                    Ok(next) => next,
                    Err(e) => break Err(e.into()),
                }
            } else {
                None
            };
            progress.state(&CrawlState {
                hosts_busy: workers.len(),
                hosts_waiting: backlog.hosts_waiting(&busy),
                next_due,
            });
            // A crawl at the end of its pass sleeps until the next feed falls due (or a worker
            // ends, or it is woken), then passes over what is due again.
            let sleeping = once.is_none() && at_end;
            let mut wake = next_due;
            if let Some(at) = held.values().min() {
                wake = Some(wake.map_or(*at, |w| w.min(*at)));
            }
            if let Some(deadline) = until.deadline {
                wake = Some(wake.map_or(deadline, |at| at.min(deadline)));
            }
            let sleep = wake.map_or(MAX_SLEEP, |at| {
                self.config.clock.real_until(at).min(MAX_SLEEP)
            });
            tokio::select! {
                Some(joined) = workers.join_next_with_id(), if !workers.is_empty() => {
                    // Every worker done by now is taken in, so their slots refill together.
                    let mut next = Some(joined);
                    while let Some(joined) = next {
                        let id = match &joined {
                            Ok((id, _)) => *id,
                            Err(e) => e.id(),
                        };
                        if let Some(host) = hosts_of.remove(&id)
                            && let Some(ids) = busy.remove(&host)
                        {
                            for id in ids {
                                in_work.remove(&id);
                            }
                        }
                        if let Ok((_, (_, done))) = joined {
                            for report in done {
                                if report.outcome == Label::InternalError {
                                    held.insert(report.feed_id, self.now() + hold_after_error);
                                }
                                summary.add(&report);
                                if keep_reports {
                                    reports.push(report);
                                }
                            }
                        }
                        next = workers.try_join_next_with_id();
                    }
                }
                changed = until.stop.changed(), if stop_open => {
                    // A dropped sender can no longer stop us; only the deadline can.
                    stop_open = changed.is_ok();
                }
                () = tokio::time::sleep(sleep), if sleeping => {
                    (cursor, at_end) = (None, false);
                }
                () = self.live.woken(), if once.is_none() => {
                    (cursor, at_end) = (None, false);
                }
            }
        };
        // Reads in flight finish; their workers start nothing new.
        while let Some(joined) = workers.join_next().await {
            if let Ok((_, done)) = joined {
                for report in done {
                    summary.add(&report);
                    if keep_reports {
                        reports.push(report);
                    }
                }
            }
        }
        self.give_back_unkept().await;
        outcome.map(|()| Ran { summary, reports })
    }

    /// One host's due feeds, one after another, until done or told to stop.
    async fn host_worker(
        self,
        host: String,
        feeds: Vec<FeedRecord>,
        until: CrawlUntil,
        progress: Arc<dyn Progress>,
    ) -> (String, Vec<FeedReport>) {
        // The lane was started (its lease kept) by the loop that spawned this worker.
        let mut reports = Vec::with_capacity(feeds.len());
        for feed in feeds {
            if until.reached(self.now()) {
                break;
            }
            let report = self.read_one(&feed).await;
            progress.done(&report);
            reports.push(report);
        }
        self.end_lane(&host);
        (host, reports)
    }

    /// Read one feed; its trouble (a store error, a bug) is that feed's failure, not the end
    /// of the run.
    async fn read_one(&self, feed: &FeedRecord) -> FeedReport {
        let purpose = if feed.last_fetch_at.is_none() {
            Purpose::FirstAdd
        } else {
            Purpose::Scheduled
        };
        match AssertUnwindSafe(self.refresh(feed, purpose))
            .catch_unwind()
            .await
        {
            Ok(Ok(report)) => report,
            Ok(Err(e)) => failed(feed, format!("not stored: {e}")),
            Err(_) => failed(feed, "internal error while reading this feed".into()),
        }
    }
}

/// The report of a feed whose read could not be completed; it stays due as it was.
fn failed(feed: &FeedRecord, error: String) -> FeedReport {
    tracing::error!(feed_id = feed.id.0, feed_url = %feed.url, error = %error, "feed read failed");
    FeedReport {
        feed_id: feed.id,
        url: feed.url.to_string(),
        outcome: Label::InternalError,
        status: None,
        new_entries: 0,
        updated_entries: 0,
        error: Some(error),
        next_fetch_at: feed.next_fetch_at,
        next_fetch_reason: feed.next_fetch_reason.clone(),
    }
}
