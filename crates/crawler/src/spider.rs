//! Spider Mode (FF4): a bounded run from one page of one site, following its links (and, when
//! asked, onto the sites it links) to find feeds. Every page is a discovery read
//! ([`Crawler::discover`]'s `check_url`: rules, robots.txt, the host's turn and gap, each hop
//! checked and logged), and every page's feed candidates are checked as discovery checks them.
//! A run never goes past its budget: link depth, URLs looked at, requests (pages, feed checks,
//! redirect hops and robots.txt all count: a request the budget does not allow is not sent),
//! response bytes (no answer may bring more than what is left) and elapsed time (no request
//! starts after it). Links marked `nofollow` are not followed; no query is made up; no script
//! runs. What was checked within the cooldown is not read again (FF2).
//!
//! A run is a job of the page queue: its frontier, what it spent and what it found are written
//! after every URL, so a run stopped (or its crawler killed) goes on where it was, its budget
//! spent before counted. Only the FF3 same-body match across its stints is lost: the bodies'
//! hashes live in memory.

use crate::discover::{Checked, Discovery, FoundFeed, Reach, Read1};
use crate::{CrawlError, Crawler, operator};
use chrono::{DateTime, Utc};
use std::collections::{HashSet, VecDeque};
use std::time::Duration;
use tidings_model::{CheckSource, Disposition, FeedUrl, PageJobState};
use tidings_store::{JobFeed, JobSpent, JobStep, PageJob, QueuedPage};
use url::Url;

pub use tidings_model::SpiderLimits;

/// What a run has spent, and of what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limits: SpiderLimits,
    pub started_at: DateTime<Utc>,
    pub requests: u32,
    pub bytes: u64,
    pub urls: u32,
}

impl Budget {
    pub fn new(limits: SpiderLimits, started_at: DateTime<Utc>) -> Budget {
        Budget::resume(limits, started_at, &JobSpent::default())
    }

    /// The budget of a job that spent `spent` in earlier stints, going on at `now`: the time
    /// it ran before counts, the time it was stopped does not.
    pub fn resume(limits: SpiderLimits, now: DateTime<Utc>, spent: &JobSpent) -> Budget {
        let before = chrono::TimeDelta::from_std(spent.elapsed).unwrap_or(chrono::TimeDelta::MAX);
        Budget {
            limits,
            started_at: now
                .checked_sub_signed(before)
                .unwrap_or(DateTime::<Utc>::MIN_UTC),
            requests: spent.requests,
            bytes: spent.bytes,
            urls: spent.urls,
        }
    }

    /// Which budget no further request may come from at `now`, if one is spent.
    pub fn spent(&self, now: DateTime<Utc>) -> Option<&'static str> {
        if self.requests >= self.limits.max_requests {
            Some("requests")
        } else if self.bytes >= self.limits.max_bytes {
            Some("bytes")
        } else if self.elapsed(now) >= self.limits.max_time {
            Some("time")
        } else {
            None
        }
    }

    /// Take one more URL to look at, if the budget allows it.
    pub fn take_url(&mut self) -> bool {
        if self.urls >= self.limits.max_urls {
            return false;
        }
        self.urls += 1;
        true
    }

    /// The body bytes the next answer may bring.
    pub fn bytes_left(&self) -> u64 {
        self.limits.max_bytes.saturating_sub(self.bytes)
    }

    pub fn elapsed(&self, now: DateTime<Utc>) -> Duration {
        (now - self.started_at).to_std().unwrap_or_default()
    }
}

/// What a run did, over every stint of its job.
#[derive(Debug, Clone, PartialEq)]
pub struct SpiderReport {
    /// The job as it stands after this stint (its spending over every stint).
    pub job: PageJob,
    /// HTML pages read, over every stint.
    pub pages: u32,
    /// The feeds found, each once, over every stint.
    pub feeds: Vec<JobFeed>,
    /// URLs whose check made them a duplicate of a feed found or stored (FF3).
    pub duplicates: u32,
    /// URLs refused (a rule, robots.txt, a refusal by the site, the budget).
    pub refused: u32,
    /// Every URL looked at in this stint, in order.
    pub checked: Vec<Checked>,
    pub budget: Budget,
    /// Which budget ended the run, or `None` when it ran out of links first (or was stopped).
    pub stopped_by: Option<String>,
    /// Requests sent in this stint, counted as the run sent them.
    pub requests: usize,
    /// `false` when told to stop: the job went back to the queue and goes on where it was.
    pub finished: bool,
}

/// File extensions of links that are no page (never followed).
const NOT_PAGES: [&str; 18] = [
    "jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "pdf", "zip", "gz", "mp3", "mp4", "m4a",
    "mov", "avi", "css", "js", "woff2",
];

impl Crawler {
    /// Put a spider run from `start` within `limits` in the page queue for `requested_by`
    /// ([`operator::submit_page_job`]: refused past the profile's ceilings, under a profile
    /// that does not discover, or where a rule or the address guard forbids); `running`
    /// takes it at once for the caller to work.
    pub async fn submit_spider(
        &self,
        start: &FeedUrl,
        limits: SpiderLimits,
        requested_by: &str,
        running: bool,
    ) -> Result<PageJob, CrawlError> {
        self.submit_job(
            start,
            operator::JobAsk::Spider(limits),
            requested_by,
            running,
        )
        .await
    }

    /// Spider from `start` within `limits` (FF4), now, as a job of the page queue taken at
    /// once. `progress` hears of each URL as it is checked, with the budget spent so far.
    pub async fn spider(
        &self,
        start: &FeedUrl,
        limits: SpiderLimits,
        progress: &(dyn Fn(&Checked, &Budget) + Send + Sync),
    ) -> Result<SpiderReport, CrawlError> {
        let job = self.submit_spider(start, limits, "cli", true).await?;
        self.spider_job(job, progress, &|| false).await
    }

    /// Work a spider job from where it stands (its frontier, its spending and its finds are
    /// in the store, written after every URL), until its frontier is empty, a budget is spent
    /// or `stop` is set (then it goes back to the queue).
    pub async fn spider_job(
        &self,
        job: PageJob,
        progress: &(dyn Fn(&Checked, &Budget) + Send + Sync),
        stop: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<SpiderReport, CrawlError> {
        let limits = job
            .limits
            .ok_or_else(|| CrawlError::Refused(format!("page job {} is no spider run", job.id)))?;
        // Queued under another profile, worked under one that does not discover: refused
        // whole, rather than every page not sent.
        if !self
            .profile
            .requests
            .allows(tidings_model::RequestPurpose::Discovery)
        {
            return Err(CrawlError::Refused(format!(
                "profile {} does not request discovery pages: spider job {} is not run",
                self.profile.name, job.id
            )));
        }
        let start = Url::parse(&job.url)
            .map_err(|e| CrawlError::Refused(format!("page job {}: {e}", job.id)))?;
        self.keep_signing_key().await;
        let mut out = Discovery::default();
        out.budget = Some(Budget::resume(limits, self.now(), &job.spent));
        let start_host = start.host_str().map(str::to_owned);
        let frontier = self.store.page_job_frontier(job.id).await?;
        let mut queued: HashSet<String> = frontier.seen.into_iter().collect();
        let mut queue: VecDeque<QueuedPage> = frontier.pending.into();
        let mut spent = job.spent;
        let mut reported = 0;
        let mut stored_feeds = 0;
        let mut stopped_by = None;
        let mut finished = true;
        let report = |out: &Discovery, reported: &mut usize| {
            if let Some(budget) = &out.budget {
                for c in &out.checked[*reported..] {
                    progress(c, budget);
                }
            }
            *reported = out.checked.len();
        };
        while let Some(next) = queue.pop_front() {
            if stop() {
                finished = false;
                break;
            }
            let now = self.now();
            let budget = out.budget.as_mut().expect("a spider run has a budget");
            if let Some(spent) = budget.spent(now) {
                stopped_by = Some(spent.to_owned());
                break;
            }
            if !budget.take_url() {
                stopped_by = Some("urls".to_owned());
                break;
            }
            let url = match Url::parse(&next.url) {
                Ok(url) => url,
                Err(e) => {
                    tracing::warn!(job = job.id, url = %next.url, error = %e, "a queued URL that does not parse, skipped");
                    continue;
                }
            };
            let found_on = next.found_on.as_deref().and_then(|u| Url::parse(u).ok());
            let source = if found_on.is_none() {
                CheckSource::Submitted
            } else {
                CheckSource::Spider
            };
            let checked_before = out.checked.len();
            let read = self
                .check_url(&url, source, found_on.as_ref(), &mut out)
                .await?;
            report(&out, &mut reported);
            let mut links = Vec::new();
            if let Some(Read1::Page { final_url, page }) = read {
                spent.pages += 1;
                if next.depth < limits.depth {
                    for link in page.links.iter().filter(|l| !l.nofollow) {
                        let same_site = link.url.host_str().map(str::to_owned) == start_host;
                        if (!same_site && !limits.linked_sites) || !is_page_link(&link.url) {
                            continue;
                        }
                        if queued.insert(link.url.as_str().to_owned()) {
                            let page = QueuedPage {
                                url: link.url.as_str().to_owned(),
                                depth: next.depth + 1,
                                found_on: Some(final_url.as_str().to_owned()),
                            };
                            queue.push_back(page.clone());
                            links.push(page);
                        }
                    }
                }
                self.discover_page(&final_url, &page, Reach::Thorough, false, &|_| {}, &mut out)
                    .await?;
                report(&out, &mut reported);
            }
            // What this URL did, written at once: a stop (or a crash) goes on from here.
            let count = |d: Disposition| {
                out.checked[checked_before..]
                    .iter()
                    .filter(|c| c.disposition == d)
                    .count() as u32
            };
            spent.duplicates += count(Disposition::Duplicate);
            spent.refused += count(Disposition::Refused);
            let found: Vec<JobFeed> = out.feeds[stored_feeds..].iter().map(job_feed).collect();
            stored_feeds = out.feeds.len();
            spent.feeds += found.len() as u32;
            let budget = out.budget.as_ref().expect("a spider run has a budget");
            spent.requests = budget.requests;
            spent.bytes = budget.bytes;
            spent.urls = budget.urls;
            spent.elapsed = budget.elapsed(self.now());
            let step = JobStep {
                done: Some(next.url),
                queued: links,
                found,
                spent,
            };
            self.store.page_job_step(job.id, &step, self.now()).await?;
        }
        // A budget spent by the last page's candidates ended the run too (they were cut).
        if finished
            && stopped_by.is_none()
            && let Some(spent) = out.budget.as_ref().and_then(|b| b.spent(self.now()))
        {
            stopped_by = Some(spent.to_owned());
        }
        if finished {
            self.store
                .finish_page_job(
                    job.id,
                    PageJobState::Done,
                    stopped_by.as_deref(),
                    None,
                    self.now(),
                )
                .await?;
        } else {
            self.store.release_page_job(job.id, self.now()).await?;
        }
        let now_job = self.store.page_job(job.id).await?.unwrap_or(job);
        let feeds = self.store.page_job_feeds(now_job.id).await?;
        Ok(SpiderReport {
            pages: now_job.spent.pages,
            duplicates: now_job.spent.duplicates,
            refused: now_job.spent.refused,
            budget: out.budget.expect("a spider run has a budget"),
            feeds,
            checked: out.checked,
            stopped_by,
            requests: out.requests,
            finished,
            job: now_job,
        })
    }
}

/// A feed found, as a job keeps it.
pub fn job_feed(f: &FoundFeed) -> JobFeed {
    JobFeed {
        url: f.url.as_str().to_owned(),
        title: f.title.clone(),
        feed_id: f.known,
        held: f.held,
        note: f.note.clone(),
    }
}

/// Whether a link may be a page: http(s), and no file type that is never one.
fn is_page_link(url: &Url) -> bool {
    if !matches!(url.scheme(), "http" | "https") {
        return false;
    }
    let last = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or("");
    match last.rsplit_once('.') {
        Some((_, ext)) => !NOT_PAGES.contains(&ext.to_ascii_lowercase().as_str()),
        None => true,
    }
}
