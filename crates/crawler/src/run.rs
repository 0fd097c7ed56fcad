//! Everything due, once: hosts in parallel, each host's feeds one after another.

use crate::refresh::{FeedReport, Purpose};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use futures_util::FutureExt;
use std::collections::{BTreeMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tidings_model::FeedId;
use tidings_store::FeedRecord;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// How many due feeds are taken from the store at a time.
const BATCH: u32 = 1000;

/// Receives progress while a run goes on (a progress bar, logs).
pub trait Progress: Send + Sync {
    /// More due feeds were found; `total` is the count so far.
    fn found(&self, total: usize);
    /// One feed is done.
    fn done(&self, report: &FeedReport);
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
        match (r.is_success(), r.outcome.as_str()) {
            (false, _) => self.failed += 1,
            (true, "not_modified" | "unchanged") => self.not_modified += 1,
            (true, _) => self.fetched += 1,
        }
        self.new_entries += r.new_entries;
        self.updated_entries += r.updated_entries;
    }
}

impl Crawler {
    /// Read every feed that is due at `now`, once. Feeds that become due while the run goes on
    /// wait for the next run.
    pub async fn refresh_due(
        &self,
        now: DateTime<Utc>,
        progress: Arc<dyn Progress>,
    ) -> Result<RunSummary, CrawlError> {
        let mut summary = RunSummary::default();
        let mut seen: HashSet<FeedId> = HashSet::new();
        loop {
            let due: Vec<FeedRecord> = self
                .store
                .due_feeds(now, BATCH)
                .await?
                .into_iter()
                .filter(|f| seen.insert(f.id))
                .collect();
            if due.is_empty() {
                return Ok(summary);
            }
            progress.found(seen.len());
            for report in self.refresh_feeds(due, progress.clone()).await? {
                summary.add(&report);
            }
        }
    }

    /// Read these feeds now: one task per host, at most `host_concurrency` hosts at once, each
    /// host's feeds one after another through the host gate.
    pub async fn refresh_feeds(
        &self,
        feeds: Vec<FeedRecord>,
        progress: Arc<dyn Progress>,
    ) -> Result<Vec<FeedReport>, CrawlError> {
        let mut by_host: BTreeMap<String, Vec<FeedRecord>> = BTreeMap::new();
        for feed in feeds {
            by_host
                .entry(crate::gate::host_of(feed.url.as_url()))
                .or_default()
                .push(feed);
        }
        let limit = Arc::new(Semaphore::new(self.config.host_concurrency.max(1)));
        let mut tasks = JoinSet::new();
        for (_, feeds) in by_host {
            let crawler = self.clone();
            let limit = limit.clone();
            let progress = progress.clone();
            tasks.spawn(async move {
                let _slot = limit.acquire_owned().await;
                let mut reports = Vec::with_capacity(feeds.len());
                for feed in feeds {
                    let purpose = if feed.last_fetch_at.is_none() {
                        Purpose::FirstAdd
                    } else {
                        Purpose::Scheduled
                    };
                    // One feed's trouble (a store error, a bug) is that feed's failure, not
                    // the end of the run.
                    let report = match AssertUnwindSafe(crawler.refresh(&feed, purpose))
                        .catch_unwind()
                        .await
                    {
                        Ok(Ok(report)) => report,
                        Ok(Err(e)) => failed(&feed, format!("not stored: {e}")),
                        Err(_) => failed(&feed, "internal error while reading this feed".into()),
                    };
                    progress.done(&report);
                    reports.push(report);
                }
                reports
            });
        }
        let mut all = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            if let Ok(reports) = joined {
                all.extend(reports);
            }
        }
        Ok(all)
    }
}

/// The report of a feed whose read could not be completed; it stays due as it was.
fn failed(feed: &FeedRecord, error: String) -> FeedReport {
    tracing::error!(feed_id = feed.id.0, feed_url = %feed.url, error = %error, "feed read failed");
    FeedReport {
        feed_id: feed.id,
        url: feed.url.to_string(),
        outcome: "internal_error".into(),
        status: None,
        new_entries: 0,
        updated_entries: 0,
        error: Some(error),
        next_fetch_at: feed.next_fetch_at,
        next_fetch_reason: feed.next_fetch_reason.clone(),
    }
}
