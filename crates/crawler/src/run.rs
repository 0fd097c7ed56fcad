//! Due work: everything due once ([`Crawler::refresh_due`]), or continuously until stopped
//! ([`Crawler::crawl`]). Hosts in parallel, each host's feeds one after another.

use crate::enrich::ResourceReport;
use crate::refresh::{FeedReport, Purpose};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use futures_util::FutureExt;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{FeedId, Label};
use tidings_store::{FeedRecord, ResourceRecord};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How many due feeds are taken from the store at a time.
const BATCH: u32 = 1000;
/// The most due feeds held in the backlog: beyond it, no page is read until workers took
/// some (a host with a million due feeds does not fill memory).
const MAX_BACKLOG: usize = 20_000;

/// How many due resources (article pages, icons) are taken from the store at a time.
const RESOURCE_BATCH: u32 = 200;

/// What a host's worker did.
#[derive(Default)]
struct Worked {
    feeds: Vec<FeedReport>,
    /// Resources read (whatever the outcome).
    resources: u64,
    /// Resources whose read could not be completed (a store error, a bug).
    failed_resources: Vec<i64>,
    /// The earliest time a resource its reads queued or answered falls due.
    resource_due: Option<DateTime<Utc>>,
}

impl Worked {
    fn resource_due_at(&mut self, at: Option<DateTime<Utc>>) {
        if let Some(at) = at {
            earliest(&mut self.resource_due, at);
        }
    }
}

/// Bring `slot` forward to `at` when `at` is earlier (or `slot` is empty).
fn earliest(slot: &mut Option<DateTime<Utc>>, at: DateTime<Utc>) {
    *slot = Some(slot.map_or(at, |s| s.min(at)));
}

/// One piece of a host's work: a feed's read, or a resource read for a feed (SR1).
enum Job {
    Feed(Box<FeedRecord>),
    Resource(Box<ResourceRecord>),
}

/// What names a job while it waits or is worked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum JobId {
    Feed(FeedId),
    Resource(i64),
}

impl Job {
    fn id(&self) -> JobId {
        match self {
            Job::Feed(f) => JobId::Feed(f.id),
            Job::Resource(r) => JobId::Resource(r.id),
        }
    }

    /// The host lane it belongs to; `None` for a resource whose URL does not parse (read at
    /// once, it is refused without a request).
    fn host(&self) -> String {
        match self {
            Job::Feed(f) => crate::gate::host_of(f.url.as_url()),
            Job::Resource(r) => url::Url::parse(&r.url)
                .map(|u| crate::gate::host_of(&u))
                .unwrap_or_else(|_| r.url.clone()),
        }
    }
}

/// Due work per host, waiting for its host's worker, hosts in the order they were met.
#[derive(Default)]
struct Backlog {
    hosts: std::collections::VecDeque<String>,
    feeds: HashMap<String, Vec<Job>>,
    ids: HashSet<JobId>,
}

impl Backlog {
    fn push(&mut self, job: Job) {
        if !self.ids.insert(job.id()) {
            return;
        }
        let host = job.host();
        let jobs = self.feeds.entry(host.clone()).or_default();
        if jobs.is_empty() {
            self.hosts.push_back(host);
        }
        jobs.push(job);
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether a host of the backlog has no worker now.
    fn runnable(&self, busy: &HashMap<String, Vec<JobId>>) -> bool {
        self.hosts.iter().any(|h| !busy.contains_key(h))
    }

    /// Hosts of the backlog whose worker is busy.
    fn hosts_waiting(&self, busy: &HashMap<String, Vec<JobId>>) -> usize {
        self.hosts.iter().filter(|h| busy.contains_key(*h)).count()
    }

    /// The first host without a worker, and its work.
    fn take_runnable(&mut self, busy: &HashMap<String, Vec<JobId>>) -> Option<(String, Vec<Job>)> {
        let at = self.hosts.iter().position(|h| !busy.contains_key(h))?;
        let host = self.hosts.remove(at)?;
        let jobs = self.feeds.remove(&host).unwrap_or_default();
        for job in &jobs {
            self.ids.remove(&job.id());
        }
        Some((host, jobs))
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

/// How often a crawl prunes the request log (FF17), in crawler seconds.
const PRUNE_LOG_EVERY_SECS: i64 = 3600;

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
    /// One resource read for a feed (an article page, an icon) is done.
    fn resource_done(&self, _report: &ResourceReport) {}
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
    pub(crate) fn reached(&self, now: DateTime<Utc>) -> bool {
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
    /// Resources read for feeds (article pages, icons: SR1), whatever the outcome.
    pub resources: u64,
}

/// How long a crawl waits after its store failed before it tries again: 0.5 s, doubled after
/// each failure in a row up to 30 s.
const STORE_RETRY: crate::backoff::Backoff = crate::backoff::Backoff::new(
    std::time::Duration::from_millis(500),
    std::time::Duration::from_secs(30),
);

impl RunSummary {
    /// Add the totals of another run.
    pub fn merge(&mut self, other: &RunSummary) {
        self.feeds += other.feeds;
        self.fetched += other.fetched;
        self.not_modified += other.not_modified;
        self.failed += other.failed;
        self.new_entries += other.new_entries;
        self.updated_entries += other.updated_entries;
        self.resources += other.resources;
    }

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
    /// FF17: delete the request-log rows past the profile's retention period. A failure is
    /// logged, never a reason to stop reading.
    async fn prune_log(&self) {
        let before = self.profile.discovery.log_kept_from(self.now());
        match self.store.prune_request_log(before).await {
            Ok(0) => {}
            Ok(rows) => tracing::info!(rows, %before, "request log pruned (FF17)"),
            Err(e) => tracing::warn!(error = %e, "the request log could not be pruned"),
        }
        let before = self.profile.discovery.jobs_kept_from(self.now());
        match self.store.prune_page_jobs(before).await {
            Ok(0) => {}
            Ok(jobs) => tracing::info!(jobs, %before, "finished page jobs dropped (FF17)"),
            Err(e) => tracing::warn!(error = %e, "finished page jobs could not be dropped"),
        }
    }

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
        // The page queue is worked beside the feeds, one job at a time (FF1, FF4).
        let (ended, crawl_ended) = watch::channel(false);
        let jobs = tokio::spawn(self.clone().work_page_jobs(until.clone(), crawl_ended));
        let mut summary = RunSummary::default();
        let mut outage = STORE_RETRY;
        let ran = loop {
            let started = std::time::Instant::now();
            match self
                .work(Work::Until(until.clone()), progress.clone())
                .await
            {
                Ok(ran) => {
                    summary.merge(&ran.summary);
                    break Ok(());
                }
                // The store went away (a database restarted, a network cut): what was
                // committed stays, reads in flight have finished, leases were given back or
                // expire. The crawl waits and starts its pass again.
                Err(CrawlError::Store(e)) if !until.reached(self.now()) => {
                    if started.elapsed() > outage.max() {
                        // A new outage after a good while: not one that goes on.
                        outage.reset();
                    }
                    let wait = outage.next_wait();
                    tracing::warn!(error = %e, retry_in = ?wait, "the store failed; the crawl goes on once it answers");
                    let mut stop = until.stop.clone();
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        _ = stop.changed() => {}
                    }
                }
                Err(e) => break Err(e),
            }
        };
        // The crawl ended (stopped, at its deadline, or failed): so does the queue's worker.
        let _ = ended.send(true);
        if jobs.await.is_err() {
            tracing::error!("internal error in the page queue's worker");
        }
        ran.map(|()| summary)
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
        // The feeds a run was given: it reads only the resources queued for them.
        let mut given: Option<HashSet<FeedId>> = None;
        let (mut until, once) = match work {
            Work::Until(until) => (until, None),
            Work::Once { due_at } => (single(), Some(due_at)),
            Work::These(feeds) => {
                given = Some(feeds.iter().map(|f| f.id).collect());
                feeds
                    .into_iter()
                    .for_each(|feed| backlog.push(Job::Feed(Box::new(feed))));
                at_end = true;
                (single(), Some(self.now()))
            }
        };
        let mut summary = RunSummary::default();
        let mut reports = Vec::new();
        let mut found = 0usize;
        // Where the pass stands.
        let mut cursor: Option<(DateTime<Utc>, FeedId)> = None;
        // Host → the work its worker holds, and all that work.
        let mut busy: HashMap<String, Vec<JobId>> = HashMap::new();
        let mut in_work: HashSet<JobId> = HashSet::new();
        // A single pass reads each feed (and resource) once, even one it made due again.
        let mut seen: HashSet<JobId> = HashSet::new();
        // Work that could not be completed, left alone until then.
        let mut held: HashMap<JobId, DateTime<Utc>> = HashMap::new();
        let mut workers: JoinSet<(String, Worked)> = JoinSet::new();
        // Pages subscribed to by their URL, being resolved to their feeds (FF1).
        let mut resolving: JoinSet<()> = JoinSet::new();
        // Resources read for feeds (SR1), asked of the store at most this often.
        let reads_resources = [
            tidings_model::RequestPurpose::ArticlePage,
            tidings_model::RequestPurpose::Icon,
            tidings_model::RequestPurpose::Image,
        ]
        .into_iter()
        .any(|p| self.profile.requests.allows(p));
        // Whether the queue was looked at, and when its next resource falls due (crawler
        // time): as the store said at the last look, or earlier as the workers queued some.
        let mut resources_polled = false;
        let mut resource_wake: Option<DateTime<Utc>> = None;
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
        // FF17: a crawl or a pass prunes the request log to its retention period when it
        // starts, and a crawl again every PRUNE_LOG_EVERY of crawler time.
        let mut next_prune = (!keep_reports).then(|| self.now());
        let outcome = loop {
            while resolving.try_join_next().is_some() {}
            let now = once.unwrap_or_else(|| self.now());
            if until.reached(self.now()) {
                break Ok(());
            }
            if let Some(at) = next_prune
                && self.now() >= at
            {
                self.prune_log().await;
                next_prune = once
                    .is_none()
                    .then(|| self.now() + chrono::TimeDelta::seconds(PRUNE_LOG_EVERY_SECS));
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
                    let id = JobId::Feed(feed.id);
                    let again = once.is_some() && seen.contains(&id);
                    if !again && !in_work.contains(&id) && !held.contains_key(&id) {
                        backlog.push(Job::Feed(Box::new(feed)));
                    }
                }
            }
            if let Some(e) = failed {
                break Err(e.into());
            }
            // Resources due now (queued by the reads: SR1), at most a batch a second, while a
            // slot is free and the backlog has room.
            if reads_resources
                && workers.len() < slots
                && backlog.len() < MAX_BACKLOG
                && (!resources_polled || resource_wake.is_some_and(|at| at <= self.now()))
            {
                resources_polled = true;
                resource_wake = match self.store.next_resource_due(self.now()).await {
                    Ok(next) => next,
                    Err(e) => break Err(e.into()),
                };
                match self.store.due_resources(self.now(), RESOURCE_BATCH).await {
                    Ok(due) => {
                        for resource in due {
                            if let Some(given) = &given
                                && !resource.feed_id.is_some_and(|f| given.contains(&f))
                            {
                                continue;
                            }
                            let id = JobId::Resource(resource.id);
                            let again = once.is_some() && seen.contains(&id);
                            if !again && !in_work.contains(&id) && !held.contains_key(&id) {
                                backlog.push(Job::Resource(Box::new(resource)));
                            }
                        }
                    }
                    Err(e) => break Err(e.into()),
                }
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
            for (host, jobs) in starting {
                self.start_lane(&host);
                found += jobs.iter().filter(|j| matches!(j, Job::Feed(_))).count();
                let ids: Vec<JobId> = jobs.iter().map(Job::id).collect();
                in_work.extend(ids.iter().copied());
                if once.is_some() {
                    seen.extend(ids.iter().copied());
                }
                busy.insert(host.clone(), ids);
                let worker = workers.spawn(self.clone().host_worker(
                    host.clone(),
                    jobs,
                    until.clone(),
                    progress.clone(),
                ));
                hosts_of.insert(worker.id(), host);
            }
            progress.found(found);
            if once.is_some() && workers.is_empty() && backlog.is_empty() && at_end {
                if reads_resources && resource_wake.is_some_and(|at| at <= self.now()) {
                    // The last reads queued resources due now: look once more.
                    continue;
                }
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
            // A resource falling due wakes the loop too; what the last reads queued is looked
            // for soon (below).
            if let Some(at) = resource_wake.filter(|_| once.is_none()) {
                earliest(&mut wake, at);
            }
            if let Some(at) = held.values().min() {
                earliest(&mut wake, *at);
            }
            if let Some(deadline) = until.deadline {
                earliest(&mut wake, deadline);
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
                            for mut report in done.feeds {
                                // A crawl's first read of a page subscribed to by its URL
                                // moves its subscribers to the feed the page offers (FF1);
                                // a caller given the reports (`tidings add`) asks its person.
                                if !keep_reports && let Some(page) = report.html_page.take() {
                                    resolving.spawn(self.clone().resolve(report.feed_id, page));
                                }
                                if report.outcome == Label::InternalError {
                                    held.insert(
                                        JobId::Feed(report.feed_id),
                                        self.now() + hold_after_error,
                                    );
                                }
                                summary.add(&report);
                                if keep_reports {
                                    reports.push(report);
                                }
                            }
                            for id in done.failed_resources {
                                held.insert(JobId::Resource(id), self.now() + hold_after_error);
                            }
                            summary.resources += done.resources;
                            if let Some(at) = done.resource_due {
                                earliest(&mut resource_wake, at);
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
                    // Another process may have queued resources meanwhile.
                    resources_polled = false;
                }
                () = self.live.woken(), if once.is_none() => {
                    (cursor, at_end) = (None, false);
                }
            }
        };
        // Reads in flight finish; their workers start nothing new.
        while let Some(joined) = workers.join_next().await {
            if let Ok((_, done)) = joined {
                for mut report in done.feeds {
                    if !keep_reports && let Some(page) = report.html_page.take() {
                        resolving.spawn(self.clone().resolve(report.feed_id, page));
                    }
                    summary.add(&report);
                    if keep_reports {
                        reports.push(report);
                    }
                }
                summary.resources += done.resources;
            }
        }
        while resolving.join_next().await.is_some() {}
        self.give_back_unkept().await;
        outcome.map(|()| Ran { summary, reports })
    }

    /// [`Crawler::resolve_page`], its trouble logged: the page's subscription stays as it is.
    async fn resolve(self, feed: FeedId, page: Box<crate::refresh::HtmlPage>) {
        if let Err(e) = self.resolve_page(feed, &page).await {
            tracing::warn!(feed_id = feed.0, error = %e, "a page subscribed to by its URL could not be resolved to a feed");
        }
    }

    /// One host's due work, one after another, until done or told to stop.
    async fn host_worker(
        self,
        host: String,
        jobs: Vec<Job>,
        until: CrawlUntil,
        progress: Arc<dyn Progress>,
    ) -> (String, Worked) {
        // The lane was started (its lease kept) by the loop that spawned this worker.
        let mut worked = Worked::default();
        for job in jobs {
            if until.reached(self.now()) {
                break;
            }
            match job {
                Job::Feed(feed) => {
                    let report = self.read_one(&feed).await;
                    progress.done(&report);
                    worked.resource_due_at(report.queued.then(|| self.now()));
                    worked.feeds.push(report);
                }
                Job::Resource(resource) => {
                    worked.resources += 1;
                    match AssertUnwindSafe(self.read_resource(&resource))
                        .catch_unwind()
                        .await
                    {
                        Ok(Ok(report)) => {
                            worked.resource_due_at(report.due_at);
                            progress.resource_done(&report);
                        }
                        Ok(Err(e)) => {
                            tracing::error!(url = %resource.url, error = %e, "resource read failed");
                            worked.failed_resources.push(resource.id);
                        }
                        Err(_) => {
                            tracing::error!(url = %resource.url, "internal error while reading a resource");
                            worked.failed_resources.push(resource.id);
                        }
                    }
                }
            }
        }
        self.end_lane(&host);
        (host, worked)
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
        queued: false,
        html_page: None,
    }
}
