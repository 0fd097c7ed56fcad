//! The page queue's worker (FF1, FF4): a crawl takes the jobs people and apps submitted (a
//! URL whose feeds to find, a spider run) one at a time and works each where it stands. The
//! API and the web UI only put jobs in the queue: every request is the crawler's.

use crate::discover::Reach;
use crate::run::CrawlUntil;
use crate::spider::job_feed;
use crate::{CrawlError, Crawler, operator};
use tidings_model::{Disposition, FeedUrl, PageJobKind, PageJobState};
use tidings_store::{JobSpent, JobStep, PageJob};

/// A running job not heard of for this long (seconds) was left by a crawler that stopped:
/// the next crawl takes it and goes on where it was. A job writes after every URL it looks
/// at, and no URL takes this long.
pub const JOB_STALE_SECS: i64 = 600;

/// How often (real seconds) an idle crawl looks at the page queue without being woken.
const LOOK_EVERY_SECS: u64 = 30;

impl Crawler {
    /// Put a URL whose feeds to find (FF1) in the page queue for `requested_by`.
    pub async fn submit_discovery(
        &self,
        url: &FeedUrl,
        requested_by: &str,
    ) -> Result<PageJob, CrawlError> {
        self.submit_job(url, operator::JobAsk::Discover, requested_by, false)
            .await
    }

    /// [`operator::submit_page_job`] with this crawler's profile, address guard and clock.
    pub(crate) async fn submit_job(
        &self,
        url: &FeedUrl,
        ask: operator::JobAsk,
        requested_by: &str,
        running: bool,
    ) -> Result<PageJob, CrawlError> {
        let allow_private = self.fetcher.config().allow_private_networks;
        let job = operator::JobRequest {
            url,
            ask,
            requested_by,
            running,
        };
        operator::submit_page_job(&*self.store, &self.profile, job, allow_private, self.now())
            .await
            .map_err(|e| match e {
                operator::SubmitError::Refused(refusal) => crate::refused(refusal),
                operator::SubmitError::Limits(why) | operator::SubmitError::NoDiscovery(why) => {
                    CrawlError::Refused(why)
                }
                operator::SubmitError::Store(e) => CrawlError::Store(e),
            })
    }

    /// The oldest job waiting, taken (a queued one, or one a stopped crawler left).
    pub async fn claim_page_job(&self, only: Option<i64>) -> Result<Option<PageJob>, CrawlError> {
        let now = self.now();
        let stale = now - chrono::TimeDelta::seconds(JOB_STALE_SECS);
        Ok(self.store.claim_page_job(only, now, stale).await?)
    }

    /// Work a taken job to its end, or until `stop` (a spider run then goes back to the
    /// queue). A job that cannot be worked (its URL unreachable or refused) ends as failed
    /// with the reason; a store error leaves it running, to be taken again once stale.
    pub async fn work_page_job(
        &self,
        job: PageJob,
        stop: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<(), CrawlError> {
        let id = job.id;
        let worked = match job.kind {
            PageJobKind::Spider => self.spider_job(job, &|_, _| {}, stop).await.map(|r| {
                tracing::info!(
                    job = id,
                    pages = r.pages,
                    feeds = r.feeds.len(),
                    finished = r.finished,
                    stopped_by = r.stopped_by.as_deref().unwrap_or("-"),
                    "spider job worked (FF4)"
                );
            }),
            PageJobKind::Discover => self.discovery_job(&job).await,
            PageJobKind::Catalogue => self.catalogue_job(&job).await,
        };
        match worked {
            Err(e @ (CrawlError::Refused(_) | CrawlError::Unreachable { .. })) => {
                let why = e.to_string();
                tracing::info!(job = id, reason = %why, "page job failed");
                self.store
                    .finish_page_job(id, PageJobState::Failed, None, Some(&why), self.now())
                    .await?;
                Ok(())
            }
            other => other,
        }
    }

    /// Find the feeds of a discovery job's URL (FF1), as a person subscribing by a site's URL
    /// wants them: the page's declared feeds first, guesses only when it declares none.
    async fn discovery_job(&self, job: &PageJob) -> Result<(), CrawlError> {
        let url = FeedUrl::parse(&job.url).map_err(|e| CrawlError::Unreachable {
            url: job.url.clone(),
            reason: e.to_string(),
        })?;
        let started = self.now();
        let found = self.discover(&url, Reach::Declared, &|_| {}).await?;
        let count =
            |d: Disposition| found.checked.iter().filter(|c| c.disposition == d).count() as u32;
        let feeds: Vec<_> = found.feeds.iter().map(job_feed).collect();
        let step = JobStep {
            done: Some(job.url.clone()),
            queued: Vec::new(),
            spent: JobSpent {
                requests: u32::try_from(found.requests).unwrap_or(u32::MAX),
                bytes: 0,
                urls: found.checked.len() as u32,
                pages: 0,
                elapsed: (self.now() - started).to_std().unwrap_or_default(),
                feeds: feeds.len() as u32,
                duplicates: count(Disposition::Duplicate),
                refused: count(Disposition::Refused),
            },
            found: feeds,
        };
        self.store.page_job_step(job.id, &step, self.now()).await?;
        self.store
            .finish_page_job(job.id, PageJobState::Done, None, None, self.now())
            .await?;
        Ok(())
    }

    /// Read a feed once for the catalogue (SR2) and keep it there when it reads as a feed:
    /// to verify it before it is added, or because a reader views it with nothing stored. A
    /// feed never read is read as a first add, which does not wait for crawl-delay (SR9); a
    /// feed whose last read succeeded is verified by it, without a request.
    async fn catalogue_job(&self, job: &PageJob) -> Result<(), CrawlError> {
        /// The subscriber that holds a feed only while its verification reads it.
        const VERIFYING: &str = "catalogue:verify";
        let url = FeedUrl::parse(&job.url).map_err(|e| CrawlError::Unreachable {
            url: job.url.clone(),
            reason: e.to_string(),
        })?;
        let started = self.now();
        let known = match self.store.feed_by_url(&url).await? {
            Some(feed) if feed.last_fetch_at.is_some() && feed.last_error.is_none() => {
                has_entries(&*self.store, feed.id).await?.then_some(feed.id)
            }
            _ => None,
        };
        let mut requests = 0;
        let (feed, failure) = match known {
            Some(feed) => (feed, None),
            None => {
                // Held by a subscriber for the read only, due far off: the crawl's own loop
                // never reads it meanwhile, so this is its one read.
                let mut new = operator::new_feed(&self.profile, self.now());
                new.next_fetch_at = self.now() + chrono::TimeDelta::days(365);
                let held = self
                    .store
                    .subscribe(&url, VERIFYING, self.now(), &new)
                    .await?;
                let Some(record) = self.store.feed(held.feed_id).await? else {
                    return Err(CrawlError::Internal(format!(
                        "feed {} vanished",
                        held.feed_id
                    )));
                };
                let purpose = if record.last_fetch_at.is_none() {
                    crate::Purpose::FirstAdd
                } else {
                    crate::Purpose::Scheduled
                };
                let read = self.refresh(&record, purpose).await;
                self.store.unsubscribe(held.feed_id, VERIFYING).await?;
                let report = read?;
                requests = 1;
                let failure = match (&report.error, report.outcome) {
                    (Some(e), _) => Some(e.clone()),
                    (None, tidings_model::Label::Postponed) => Some(format!(
                        "not read yet: {}; try again after {}",
                        report.next_fetch_reason,
                        report.next_fetch_at.format("%Y-%m-%d %H:%M UTC")
                    )),
                    (None, _) => None,
                };
                if failure.is_some() && self.store.discard_feed(held.feed_id).await? {
                    tracing::info!(url = %url, "not a readable feed: not kept for the catalogue");
                }
                (held.feed_id, failure)
            }
        };
        let spent = JobSpent {
            requests,
            urls: 1,
            elapsed: (self.now() - started).to_std().unwrap_or_default(),
            feeds: u32::from(failure.is_none()),
            ..JobSpent::default()
        };
        let found = match &failure {
            Some(_) => Vec::new(),
            None => {
                let record = self.store.feed(feed).await?;
                vec![tidings_store::JobFeed {
                    url: url.as_str().to_owned(),
                    title: record.and_then(|r| r.title),
                    feed_id: Some(feed),
                    held: false,
                    note: None,
                }]
            }
        };
        let step = JobStep {
            done: Some(job.url.clone()),
            queued: Vec::new(),
            found,
            spent,
        };
        self.store.page_job_step(job.id, &step, self.now()).await?;
        match failure {
            None => {
                if self
                    .store
                    .add_to_catalogue(feed, &job.requested_by, self.now())
                    .await?
                {
                    tracing::info!(feed_id = feed.0, url = %url, "added to the catalogue (SR2)");
                }
                self.store
                    .finish_page_job(job.id, PageJobState::Done, None, None, self.now())
                    .await?;
            }
            Some(why) => {
                self.store
                    .finish_page_job(job.id, PageJobState::Failed, None, Some(&why), self.now())
                    .await?;
            }
        }
        Ok(())
    }

    /// Work the page queue until `until` says stop or the crawl ends (`crawl_ended`): one
    /// job at a time, looking again when woken (a job was submitted) or every
    /// [`LOOK_EVERY_SECS`].
    pub(crate) async fn work_page_jobs(
        self,
        until: CrawlUntil,
        mut crawl_ended: tokio::sync::watch::Receiver<bool>,
    ) {
        let mut stop = until.stop.clone();
        let mut stop_open = true;
        let ended = |ended: &tokio::sync::watch::Receiver<bool>| *ended.borrow();
        loop {
            if until.reached(self.now()) || ended(&crawl_ended) {
                return;
            }
            let job = match self.claim_page_job(None).await {
                Ok(job) => job,
                Err(e) => {
                    tracing::warn!(error = %e, "the page queue could not be read");
                    None
                }
            };
            if let Some(job) = job {
                let id = job.id;
                let halt = || until.reached(self.now()) || ended(&crawl_ended);
                if let Err(e) = self.work_page_job(job, &halt).await {
                    tracing::warn!(job = id, error = %e, "page job interrupted; taken again later");
                }
                continue;
            }
            tokio::select! {
                () = self.live.jobs_woken() => {}
                changed = stop.changed(), if stop_open => {
                    // A dropped sender can no longer stop us; only the deadline can.
                    stop_open = changed.is_ok();
                }
                _ = crawl_ended.changed() => {}
                () = tokio::time::sleep(std::time::Duration::from_secs(LOOK_EVERY_SECS)) => {}
            }
        }
    }
}

/// Whether `feed` has any entry stored.
pub async fn has_entries(
    store: &dyn tidings_store::Store,
    feed: tidings_model::FeedId,
) -> Result<bool, tidings_store::StoreError> {
    let query = tidings_store::EntryQuery {
        feed: Some(feed),
        limit: 1,
        ..tidings_store::EntryQuery::default()
    };
    Ok(!store.entries(&query).await?.is_empty())
}
