//! Spider Mode (FF4): a bounded run from one page of one site, following its links (and, when
//! asked, onto the sites it links) to find feeds. Every page is a discovery read
//! ([`Crawler::discover`]'s `check_url`: rules, robots.txt, the host's turn and gap, each hop
//! checked and logged), and every page's feed candidates are checked as discovery checks them.
//! A run never goes past its budget: link depth, URLs looked at, requests (pages, feed checks,
//! redirect hops and robots.txt all count: a request the budget does not allow is not sent),
//! response bytes (no answer may bring more than what is left) and elapsed time (no request
//! starts after it). Links marked `nofollow` are not followed; no query is made up; no script
//! runs. What was checked within the cooldown is not read again (FF2).

use crate::discover::{Checked, Discovery, FoundFeed, Reach, Read1};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use std::collections::{HashSet, VecDeque};
use std::time::Duration;
use tidings_model::{CheckSource, Disposition, FeedUrl, RequestPurpose};
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
        Budget {
            limits,
            started_at,
            requests: 0,
            bytes: 0,
            urls: 0,
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

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SpiderReport {
    /// HTML pages read.
    pub pages: u32,
    /// The feeds found, each once (a stored one named as such).
    pub feeds: Vec<FoundFeed>,
    /// URLs whose check made them a duplicate of a feed found or stored (FF3).
    pub duplicates: u32,
    /// URLs refused (a rule, robots.txt, a refusal by the site, the budget).
    pub refused: u32,
    /// Every URL looked at, in order.
    pub checked: Vec<Checked>,
    pub budget: Budget,
    /// Which budget ended the run, or `None` when it ran out of links first.
    pub stopped_by: Option<String>,
    /// Requests sent, counted as the run sent them.
    pub requests: usize,
}

/// File extensions of links that are no page (never followed).
const NOT_PAGES: [&str; 18] = [
    "jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "pdf", "zip", "gz", "mp3", "mp4", "m4a",
    "mov", "avi", "css", "js", "woff2",
];

impl Crawler {
    /// Spider from `start` within `limits` (FF4). `progress` hears of each URL as it is
    /// checked, with the budget spent so far.
    pub async fn spider(
        &self,
        start: &FeedUrl,
        limits: SpiderLimits,
        progress: &(dyn Fn(&Checked, &Budget) + Send + Sync),
    ) -> Result<SpiderReport, CrawlError> {
        self.profile
            .spider
            .check(&limits)
            .map_err(CrawlError::Refused)?;
        if !self.profile.requests.allows(RequestPurpose::Discovery) {
            return Err(CrawlError::Refused(format!(
                "profile {} does not request discovery pages ([requests] purposes): a spider \
                 run needs a profile that lists \"discovery\" (FFBot)",
                self.profile.name
            )));
        }
        self.keep_signing_key().await;
        let mut out = Discovery::default();
        out.budget = Some(Budget::new(limits, self.now()));
        let start_host = start.as_url().host_str().map(str::to_owned);
        let mut queue: VecDeque<(Url, u32, Option<Url>)> = VecDeque::new();
        let mut queued: HashSet<String> = HashSet::new();
        queue.push_back((start.as_url().clone(), 0, None));
        queued.insert(start.as_str().to_owned());
        let mut pages = 0;
        let mut reported = 0;
        let mut stopped_by = None;
        let report = |out: &Discovery, reported: &mut usize| {
            if let Some(budget) = &out.budget {
                for c in &out.checked[*reported..] {
                    progress(c, budget);
                }
            }
            *reported = out.checked.len();
        };
        while let Some((url, depth, found_on)) = queue.pop_front() {
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
            let source = if found_on.is_none() {
                CheckSource::Submitted
            } else {
                CheckSource::Spider
            };
            let read = self
                .check_url(&url, source, found_on.as_ref(), &mut out)
                .await?;
            report(&out, &mut reported);
            let Some(Read1::Page { final_url, page }) = read else {
                continue;
            };
            pages += 1;
            if depth < limits.depth {
                for link in page.links.iter().filter(|l| !l.nofollow) {
                    let same_site = link.url.host_str().map(str::to_owned) == start_host;
                    if (!same_site && !limits.linked_sites) || !is_page_link(&link.url) {
                        continue;
                    }
                    if queued.insert(link.url.as_str().to_owned()) {
                        queue.push_back((link.url.clone(), depth + 1, Some(final_url.clone())));
                    }
                }
            }
            self.discover_page(&final_url, &page, Reach::Thorough, false, &|_| {}, &mut out)
                .await?;
            report(&out, &mut reported);
        }
        // A budget spent by the last page's candidates ended the run too (they were cut).
        if stopped_by.is_none()
            && let Some(spent) = out.budget.as_ref().and_then(|b| b.spent(self.now()))
        {
            stopped_by = Some(spent.to_owned());
        }
        let count =
            |d: Disposition| out.checked.iter().filter(|c| c.disposition == d).count() as u32;
        Ok(SpiderReport {
            pages,
            duplicates: count(Disposition::Duplicate),
            refused: count(Disposition::Refused),
            budget: out.budget.expect("a spider run has a budget"),
            feeds: out.feeds,
            checked: out.checked,
            stopped_by,
            requests: out.requests,
        })
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
