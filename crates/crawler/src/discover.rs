//! Finding the feeds of a URL (FF1–FF3): the URL is read once; a feed is a feed, an HTML page
//! gives its candidates ([`tidings_page::discover::candidates`]: declared alternates, body
//! links that look like feeds, the profile's common paths), each candidate is read in turn and
//! kept when it parses as a feed, and every feed found is matched against the feeds already
//! stored ([`tidings_policy::discovery::match_known`]). Every read is the read machine's
//! ([`Purpose::Discovery`]): rules, robots.txt, the host's turn and gap, redirects hop by hop,
//! each request logged. Every URL checked is stored with its disposition (FF2), and a
//! candidate checked within the cooldown is not read again.
//!
//! A URL given as a feed (the submitted one, an alternate a page declares) is read by every
//! profile; guesses (body links, common paths) only by a profile that lists `discovery`.

use crate::drive::{Asker, log_row};
use crate::{CrawlError, Crawler};
use std::collections::BTreeMap;
use tidings_model::{
    CheckSource, Disposition, FeedFormat, FeedId, FeedUrl, ParsedFeed, RequestPurpose,
};
use tidings_page::discover::{Candidate, Plan, Source, candidates};
use tidings_policy::discovery::{self, Evidence, Match};
use tidings_read::{Found, Need, NotSent, Purpose, Read, ResourceState};
use tidings_store::{CheckApply, UrlCheck};
use url::Url;

/// How far discovery goes for one URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The common paths are tried only when nothing the page names is a feed: subscribing by
    /// a site's URL, where the declared feeds are what the reader wants.
    Declared,
    /// Every candidate is checked (FFBot's discovery, a spider's pages): a feed the page does
    /// not name is found too.
    Thorough,
}

/// Who the discovery job that keeps what a subscribed page offered is recorded as asked by
/// ([`Crawler::resolve_page`]): the page's feed, which readers who subscribed to it look up.
pub fn resolution_of(feed: FeedId) -> String {
    format!("{RESOLUTION}{feed}")
}

/// How [`resolution_of`] begins.
const RESOLUTION: &str = "first read of feed ";

/// The newest page jobs a resolution looks through for pages met before.
const RESOLUTIONS_REMEMBERED: u32 = 1000;

/// A feed discovery found.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundFeed {
    /// The URL to subscribe to: the stored feed's when it is one already (FF3), else the
    /// feed's own after redirects.
    pub url: FeedUrl,
    /// The URL that was checked.
    pub checked: String,
    pub source: CheckSource,
    pub title: Option<String>,
    /// The format it was read in (`None`: recalled from an earlier check).
    pub format: Option<FeedFormat>,
    pub entries: usize,
    /// The stored feed it is (FF3), if any.
    pub known: Option<FeedId>,
    /// Perhaps a stored feed: held for review (FF3), not offered to subscribe.
    pub held: bool,
    /// Why it is (or may be) a stored feed.
    pub note: Option<String>,
}

/// One URL checked, as it was stored (FF2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub url: String,
    pub source: CheckSource,
    pub disposition: Disposition,
    pub reason: String,
    /// `false` when an earlier check within the cooldown answered (FF2): nothing was sent.
    pub read: bool,
}

/// What discovery found for one URL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    /// The feeds found, in the order they are worth offering (declared ones first).
    pub feeds: Vec<FoundFeed>,
    /// Every URL looked at, in order.
    pub checked: Vec<Checked>,
    /// Requests sent (robots.txt and redirect hops included).
    pub requests: usize,
    /// The body hash of each feed found, with the URL checked: the same bytes at two URLs
    /// are one feed (FF3).
    hashes: Vec<(String, String)>,
    /// A spider run's budget (FF4), when the run has one.
    pub(crate) budget: Option<crate::spider::Budget>,
}

impl Discovery {
    /// The feeds a person may subscribe to: found, and not held for review.
    pub fn offered(&self) -> impl Iterator<Item = &FoundFeed> {
        self.feeds.iter().filter(|f| !f.held)
    }
}

/// What one check read.
pub(crate) enum Read1 {
    Feed {
        final_url: Url,
        parsed: Box<ParsedFeed>,
        hash: String,
    },
    Page {
        final_url: Url,
        page: Box<tidings_page::Page>,
    },
    Nothing {
        disposition: Disposition,
        reason: String,
    },
}

/// A feed a person may subscribe to, found on a page they gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub url: FeedUrl,
    pub title: Option<String>,
    /// Read and parsed as a feed already (a guess that was checked); `false` for a feed the
    /// page declares, which its first read checks.
    pub checked: bool,
}

/// The feeds of a page a person gave to subscribe to (FF1).
#[derive(Debug, Clone, PartialEq)]
pub struct PageFeeds {
    pub offers: Vec<Offer>,
    /// The guesses checked (and whether any was held for review, FF3), when the page declared
    /// none.
    pub discovery: Option<Discovery>,
}

impl Crawler {
    /// A URL `who` subscribed to answered an HTML page at its first read (the report's
    /// `html_page`): the subscription is dropped, and the feed row with it when nobody else
    /// holds it; the page's feeds are offered instead, in one home for every place people
    /// subscribe. The feeds it declares are offered unread: the person picks, and the first
    /// read of the pick is its check (no request is spent on the others). A page that
    /// declares none, under a profile that lists `discovery`, has its feed links and common
    /// feed paths read as candidates (FF1), each kept only when it parses.
    pub async fn page_feeds(
        &self,
        feed: FeedId,
        who: tidings_store::Subscriber<'_>,
        html: &crate::refresh::HtmlPage,
        progress: &(dyn Fn(&Checked) + Send + Sync),
    ) -> Result<PageFeeds, CrawlError> {
        let Some(record) = self.store.feed(feed).await? else {
            return Ok(PageFeeds {
                offers: Vec::new(),
                discovery: None,
            });
        };
        match who {
            tidings_store::Subscriber::Named(name) => {
                self.store.unsubscribe(feed, name).await?;
            }
            tidings_store::Subscriber::Account { id, .. } => {
                self.store.unsubscribe_account(id, feed).await?;
            }
        }
        if self.store.discard_feed(feed).await? {
            tracing::info!(url = %record.url, "an HTML page, not a feed: its feed row discarded");
        }
        self.page_offers(&record.url, html, progress).await
    }

    /// The feeds a page subscribed to by its URL offers (FF1): those it declares, unread
    /// (the first read of the one taken is its check); when it declares none, under a
    /// profile that lists `discovery`, its feed links and the common feed paths, each read
    /// and kept only when it parses.
    async fn page_offers(
        &self,
        subscribed: &FeedUrl,
        html: &crate::refresh::HtmlPage,
        progress: &(dyn Fn(&Checked) + Send + Sync),
    ) -> Result<PageFeeds, CrawlError> {
        let page = &html.page;
        // The page's own URL (after redirects): its directory and site for the common paths.
        let page_url = &html.url;
        let mut offers: Vec<Offer> = Vec::new();
        for declared in &page.feeds {
            let Ok(url) = FeedUrl::parse(declared.url.as_str()) else {
                continue;
            };
            if url != *subscribed && !offers.iter().any(|o| o.url == url) {
                offers.push(Offer {
                    url,
                    title: declared.title.clone(),
                    checked: false,
                });
            }
        }
        if !offers.is_empty() || !self.profile.requests.allows(RequestPurpose::Discovery) {
            return Ok(PageFeeds {
                offers,
                discovery: None,
            });
        }
        self.keep_signing_key().await;
        let mut found = Discovery::default();
        self.discover_page(page_url, page, Reach::Declared, true, progress, &mut found)
            .await?;
        let offers = found
            .offered()
            .map(|f| Offer {
                url: f.url.clone(),
                title: f.title.clone(),
                checked: true,
            })
            .collect();
        Ok(PageFeeds {
            offers,
            discovery: Some(found),
        })
    }

    /// A feed's first read in a crawl met an HTML page: it was subscribed to by a site's or
    /// page's URL (the API, the web UI, a sync client's quick-add). Its subscribers move to
    /// the feed the page offers first ([`Crawler::page_offers`]: the page's own first
    /// declared feed, or the first guess that parsed; never a page a resolution met before),
    /// each keeping its title and folder, and the feed is read at once; every feed offered is
    /// kept as a finished discovery job so a reader can take another. With none offered, the subscription stays as it is, its read
    /// failed as "an HTML page" with the reason.
    pub async fn resolve_page(
        &self,
        feed: FeedId,
        html: &crate::refresh::HtmlPage,
    ) -> Result<Option<FeedId>, CrawlError> {
        let Some(record) = self.store.feed(feed).await? else {
            return Ok(None);
        };
        let offered = self.page_offers(&record.url, html, &|_| {}).await?;
        // A page another page's resolution already met is no feed to move to: two pages
        // naming each other are each resolved once, never back and forth.
        let met: std::collections::HashSet<String> = self
            .store
            .page_jobs(RESOLUTIONS_REMEMBERED)
            .await?
            .into_iter()
            .filter(|j| j.requested_by.starts_with(RESOLUTION))
            .map(|j| j.url)
            .collect();
        let taken = offered
            .offers
            .iter()
            .position(|o| !met.contains(o.url.as_str()));
        let moved = match taken.map(|i| &offered.offers[i]) {
            Some(first) => {
                let new = crate::operator::new_feed(&self.profile, self.now());
                let moved = self
                    .store
                    .move_subscriptions(feed, &first.url, self.now(), &new)
                    .await?;
                tracing::info!(
                    page = %record.url,
                    feed = %first.url,
                    feed_id = moved.feed_id.0,
                    offered = offered.offers.len(),
                    "a page subscribed to by its URL: its subscribers moved to the feed it offers (FF1)"
                );
                Some(moved.feed_id)
            }
            None => {
                tracing::info!(feed_id = feed.0, url = %record.url, "an HTML page that offers no feed: kept as it is");
                None
            }
        };
        let job = self
            .store
            .submit_page_job(&tidings_store::NewPageJob {
                kind: tidings_model::PageJobKind::Discover,
                url: record.url.as_str().to_owned(),
                limits: None,
                requested_by: resolution_of(feed),
                at: self.now(),
                running: true,
            })
            .await?;
        let found = offered
            .offers
            .iter()
            .enumerate()
            .map(|(i, o)| tidings_store::JobFeed {
                url: o.url.as_str().to_owned(),
                title: o.title.clone(),
                feed_id: if Some(i) == taken { moved } else { None },
                held: false,
                note: if Some(i) == taken {
                    Some("taken for the page's subscribers".to_owned())
                } else if met.contains(o.url.as_str()) {
                    Some("a web page itself".to_owned())
                } else {
                    None
                },
            })
            .collect::<Vec<_>>();
        let (requests, checked) = offered
            .discovery
            .as_ref()
            .map_or((0, 0), |d| (d.requests, d.checked.len()));
        let step = tidings_store::JobStep {
            done: Some(record.url.as_str().to_owned()),
            queued: Vec::new(),
            spent: tidings_store::JobSpent {
                requests: u32::try_from(requests).unwrap_or(u32::MAX),
                urls: u32::try_from(checked).unwrap_or(u32::MAX),
                pages: 1,
                feeds: found.len() as u32,
                ..tidings_store::JobSpent::default()
            },
            found,
        };
        self.store.page_job_step(job.id, &step, self.now()).await?;
        self.store
            .finish_page_job(
                job.id,
                tidings_model::PageJobState::Done,
                None,
                None,
                self.now(),
            )
            .await?;
        if moved.is_some() {
            self.live.wake();
        }
        Ok(moved)
    }

    /// Find the feeds of `url` (FF1): a feed is itself; an HTML page's candidates are read in
    /// turn, as far as `reach` says. `progress` hears of each URL as it is checked.
    pub async fn discover(
        &self,
        url: &FeedUrl,
        reach: Reach,
        progress: &(dyn Fn(&Checked) + Send + Sync),
    ) -> Result<Discovery, CrawlError> {
        self.keep_signing_key().await;
        let mut out = Discovery::default();
        // The URL a person submitted is read now, whatever was found before.
        let first = self
            .check_url(url.as_url(), CheckSource::Submitted, None, &mut out)
            .await?;
        let (page_url, page) = match first {
            Some(Read1::Page { final_url, page }) => (final_url, page),
            _ => {
                for c in &out.checked {
                    progress(c);
                }
                return Ok(out);
            }
        };
        progress(&out.checked[0]);
        self.discover_page(&page_url, &page, reach, false, progress, &mut out)
            .await?;
        Ok(out)
    }

    /// Read the candidates of `page` (read from `page_url`) in turn, as far as `reach` says;
    /// `guesses_only`: its declared alternates are left out (a person picks among them).
    pub(crate) async fn discover_page(
        &self,
        page_url: &Url,
        page: &tidings_page::Page,
        reach: Reach,
        guesses_only: bool,
        progress: &(dyn Fn(&Checked) + Send + Sync),
        out: &mut Discovery,
    ) -> Result<(), CrawlError> {
        let settings = &self.profile.discovery;
        let plan = Plan {
            common_paths: &settings.common_paths,
            max_body_links: usize::try_from(settings.max_body_links).unwrap_or(usize::MAX),
            max_candidates: usize::try_from(settings.max_candidates).unwrap_or(usize::MAX),
        };
        let guesses = self.profile.requests.allows(RequestPurpose::Discovery);
        let all: Vec<Candidate> = candidates(page, page_url, &plan)
            .into_iter()
            .filter(|c| match c.source {
                Source::Alternate { .. } => !guesses_only,
                Source::BodyLink | Source::CommonPath => guesses,
            })
            .collect();
        // FF2: what was checked before, and when.
        let urls: Vec<String> = all.iter().map(|c| c.url.to_string()).collect();
        let earlier: BTreeMap<String, tidings_store::StoredCheck> = self
            .store
            .last_checks(&urls)
            .await?
            .into_iter()
            .map(|c| (c.check.url.clone(), c))
            .collect();
        for candidate in &all {
            // Each URL once in a run: a site's common paths are every page's candidates.
            if out.checked.iter().any(|c| c.url == candidate.url.as_str()) {
                continue;
            }
            if let Some(b) = out.budget.as_mut()
                && (b.spent(self.now()).is_some() || !b.take_url())
            {
                break;
            }
            let source = match candidate.source {
                Source::Alternate { .. } => CheckSource::Alternate,
                Source::BodyLink => CheckSource::BodyLink,
                Source::CommonPath => CheckSource::CommonPath,
            };
            if source == CheckSource::CommonPath
                && reach == Reach::Declared
                && out.offered().next().is_some()
            {
                break;
            }
            let key = candidate.url.to_string();
            if let Some(before) = earlier.get(&key)
                && !discovery::may_recheck(
                    before.check.disposition,
                    before.check.at,
                    self.now(),
                    settings,
                )
            {
                self.recall(before, source, out).await?;
            } else {
                self.check_url(&candidate.url, source, Some(page_url), out)
                    .await?;
            }
            if let Some(last) = out.checked.last() {
                progress(last);
            }
        }
        Ok(())
    }

    /// An earlier check within the cooldown stands for this one (FF2): nothing is read; a
    /// duplicate still names its stored feed.
    async fn recall(
        &self,
        before: &tidings_store::StoredCheck,
        source: CheckSource,
        out: &mut Discovery,
    ) -> Result<(), CrawlError> {
        let check = &before.check;
        let stored = match check.feed_id {
            Some(id) => self.store.feed(id).await?,
            None => None,
        };
        let found = match (check.disposition, stored) {
            // A duplicate names its stored feed; a feed is itself (the stored one when it
            // is stored), recalled without a request.
            (Disposition::Duplicate | Disposition::Feed, Some(feed)) => {
                Some((feed.url.clone(), feed.title.clone(), Some(feed.id)))
            }
            (Disposition::Feed, None) => {
                FeedUrl::parse(&check.url).ok().map(|url| (url, None, None))
            }
            _ => None,
        };
        if let Some((url, title, known)) = found
            && !out.feeds.iter().any(|f| f.url == url)
        {
            out.feeds.push(FoundFeed {
                url,
                checked: check.url.clone(),
                source,
                title,
                format: None,
                entries: 0,
                known,
                held: false,
                note: Some(check.reason.clone()),
            });
        }
        out.checked.push(Checked {
            url: check.url.clone(),
            source,
            disposition: check.disposition,
            reason: format!(
                "FF2: as checked at {}: {}",
                check.at.format("%Y-%m-%d %H:%M UTC"),
                check.reason
            ),
            read: false,
        });
        Ok(())
    }

    /// Read `target` for discovery, decide what it is, store the check with its request-log
    /// rows, and add it to `out`.
    pub(crate) async fn check_url(
        &self,
        target: &Url,
        source: CheckSource,
        found_on: Option<&Url>,
        out: &mut Discovery,
    ) -> Result<Option<Read1>, CrawlError> {
        let why = match found_on {
            Some(page) => format!("FF1: {} of {page}", source.as_str()),
            None => "FF1: submitted".to_owned(),
        };
        let state = ResourceState {
            target: target.clone(),
            why,
            retries: 0,
            user_agent: None,
        };
        let purpose = Purpose::Discovery {
            named: source.named(),
        };
        let asker = Asker {
            feed: None,
            egress: None,
            max_body: out.budget.as_ref().map(crate::spider::Budget::bytes_left),
        };
        let read = Read::resource(&state, purpose, &self.profile);
        // robots.txt requests are saved with their copy, not with the check's outcome.
        let mut robots_requests = 0;
        let mut robots_bytes = 0;
        let now = || self.now();
        let budget = &mut out.budget;
        let mut first = |need: &Need<'_, Url>| {
            match need {
                Need::SaveRobots { sent, .. } => {
                    robots_requests += sent.len();
                    robots_bytes += sent.iter().map(|s| s.bytes).sum::<u64>();
                }
                // FF4: a spent budget sends nothing more, robots.txt and redirect hops
                // included; every request sent counts.
                Need::Send { .. } => {
                    if let Some(b) = budget.as_mut() {
                        if let Some(spent) = b.spent(now()) {
                            return Some(tidings_read::Event::Answer(tidings_read::Answer {
                                outcome: tidings_model::FetchOutcome::Blocked {
                                    reason: format!("FF4: the spider's {spent} budget is spent"),
                                },
                                started_at: now(),
                                duration: std::time::Duration::ZERO,
                                bytes: 0,
                                ticket: None,
                            }));
                        }
                        b.requests += 1;
                    }
                }
                _ => {}
            }
            None
        };
        let outcome = self.drive_resource(read, &asker, &mut first).await?;
        out.requests += robots_requests + outcome.sent.len();
        if let Some(b) = out.budget.as_mut() {
            b.bytes += robots_bytes + outcome.sent.iter().map(|s| s.bytes).sum::<u64>();
            // An answer cut at the bytes left: the next body would not fit either.
            if let tidings_model::FetchOutcome::TooLarge { limit } = outcome.outcome
                && Some(limit) == asker.max_body
            {
                b.bytes = b.bytes.max(b.limits.max_bytes);
            }
        }
        let final_url = outcome.final_target.clone();
        let read1 = match outcome.found {
            Some(Found::Feed { parsed, hash }) => Read1::Feed {
                final_url,
                parsed,
                hash,
            },
            Some(Found::Page(page)) => Read1::Page { final_url, page },
            _ => {
                let reason = outcome
                    .error
                    .clone()
                    .or_else(|| tidings_read::failure_text(&outcome.outcome))
                    .unwrap_or_else(|| "nothing usable".to_owned());
                let disposition = match outcome.not_sent {
                    // The host asked everyone to wait, or its crawl-delay set the work aside.
                    Some(NotSent::HostFloor | NotSent::CrawlDelay) => Disposition::Failed,
                    Some(_) => Disposition::Refused,
                    None => discovery::disposition_of_answer(&outcome.outcome),
                };
                Read1::Nothing {
                    disposition,
                    reason,
                }
            }
        };
        let (disposition, reason, feed_id) = match &read1 {
            Read1::Feed {
                final_url,
                parsed,
                hash,
            } => {
                self.judge_found(target, source, final_url, parsed, hash, out)
                    .await?
            }
            Read1::Page { page, .. } => (
                Disposition::NotAFeed,
                format!(
                    "an HTML page naming {} feed{}",
                    page.feeds.len(),
                    if page.feeds.len() == 1 { "" } else { "s" }
                ),
                None,
            ),
            Read1::Nothing {
                disposition,
                reason,
            } => (*disposition, reason.clone(), None),
        };
        let at = self.now();
        let apply = CheckApply {
            check: UrlCheck {
                url: target.to_string(),
                at,
                disposition,
                reason: reason.clone(),
                feed_id,
                source,
                found_on: found_on.map(Url::to_string),
            },
            log: outcome
                .sent
                .iter()
                .map(|s| log_row(None, None, s))
                .collect(),
            host_floor: outcome
                .host_floor
                .map(|(host, until)| (host.to_string(), until)),
        };
        self.store.apply_check(&apply).await?;
        tracing::info!(
            url = %target,
            source = source.as_str(),
            disposition = disposition.as_str(),
            reason = %reason,
            "discovery check"
        );
        out.checked.push(Checked {
            url: target.to_string(),
            source,
            disposition,
            reason,
            read: true,
        });
        Ok(Some(read1))
    }

    /// A feed was read: one found just before (the same URL, body or self link), one stored
    /// (FF3), perhaps one stored (held), or a feed of its own. Added to `out.feeds` unless it
    /// repeats one found just before.
    async fn judge_found(
        &self,
        checked: &Url,
        source: CheckSource,
        final_url: &Url,
        parsed: &ParsedFeed,
        hash: &str,
        out: &mut Discovery,
    ) -> Result<(Disposition, String, Option<FeedId>), CrawlError> {
        let Ok(feed_url) = FeedUrl::parse(final_url.as_str()) else {
            return Ok((
                Disposition::Refused,
                format!("{final_url} is no URL a feed can have"),
                None,
            ));
        };
        let self_url = parsed
            .feed
            .self_url
            .as_deref()
            .and_then(|s| final_url.join(s).ok())
            .and_then(|u| FeedUrl::parse(u.as_str()).ok());
        // The same feed reached again in this run (`/feed` and `/feed/`, an alternate and a
        // common path): reported once.
        let same_bytes = out
            .hashes
            .iter()
            .find(|(h, _)| h == hash)
            .map(|(_, checked)| checked.clone());
        if let Some(earlier) = out.feeds.iter().find(|f| {
            f.url == feed_url
                || self_url.as_ref().is_some_and(|s| *s == f.url)
                || f.checked == final_url.as_str()
                || same_bytes.as_deref() == Some(f.checked.as_str())
        }) {
            return Ok((
                Disposition::Duplicate,
                format!(
                    "FF3: the same feed as {} found just before",
                    earlier.checked
                ),
                earlier.known,
            ));
        }
        out.hashes.push((hash.to_owned(), checked.to_string()));
        let evidence = self
            .evidence(&feed_url, self_url.as_ref(), parsed, hash)
            .await?;
        let ids = u32::try_from(parsed.entries.len()).unwrap_or(u32::MAX);
        let found = |url: FeedUrl, known, held, note| FoundFeed {
            url,
            checked: checked.to_string(),
            source,
            title: parsed.feed.title.clone(),
            format: Some(parsed.format),
            entries: parsed.entries.len(),
            known,
            held,
            note,
        };
        let same_url = evidence.iter().find(|e| e.same_url).map(|e| e.feed);
        Ok(
            match discovery::match_known(ids, &evidence, &self.profile.discovery) {
                Match::New => {
                    out.feeds.push(found(feed_url, None, false, None));
                    (
                        Disposition::Feed,
                        format!("a feed ({} entries)", parsed.entries.len()),
                        None,
                    )
                }
                // Stored at this very URL: a feed of its own, already known.
                Match::Same { feed, why } if same_url == Some(feed) => {
                    out.feeds
                        .push(found(feed_url, Some(feed), false, Some(why.clone())));
                    (Disposition::Feed, why, Some(feed))
                }
                Match::Same { feed, why } => {
                    let url = match self.store.feed(feed).await? {
                        Some(record) => record.url,
                        None => feed_url,
                    };
                    out.feeds
                        .push(found(url, Some(feed), false, Some(why.clone())));
                    (Disposition::Duplicate, why, Some(feed))
                }
                Match::Uncertain { feed, why } => {
                    out.feeds
                        .push(found(feed_url, Some(feed), true, Some(why.clone())));
                    (Disposition::Held, why, Some(feed))
                }
            },
        )
    }

    /// What ties a feed found to the feeds stored (FF3): the same URL, the same self link, the
    /// same last body, entry ids in common.
    async fn evidence(
        &self,
        url: &FeedUrl,
        self_url: Option<&FeedUrl>,
        parsed: &ParsedFeed,
        hash: &str,
    ) -> Result<Vec<Evidence>, CrawlError> {
        let mut by_feed: BTreeMap<FeedId, Evidence> = BTreeMap::new();
        let blank = |feed| Evidence {
            feed,
            same_url: false,
            same_self_link: false,
            same_body: false,
            shared_ids: 0,
            their_ids: 0,
        };
        if let Some(f) = self.store.feed_by_url(url).await? {
            by_feed.entry(f.id).or_insert_with(|| blank(f.id)).same_url = true;
        }
        if let Some(s) = self_url
            && let Some(f) = self.store.feed_by_url(s).await?
        {
            by_feed
                .entry(f.id)
                .or_insert_with(|| blank(f.id))
                .same_self_link = true;
        }
        for id in self.store.feeds_with_content_hash(hash).await? {
            by_feed.entry(id).or_insert_with(|| blank(id)).same_body = true;
        }
        let ids: Vec<String> = parsed
            .entries
            .iter()
            .take(discovery::MOST_IDS_COMPARED)
            .map(|e| e.identity.clone())
            .collect();
        if !ids.is_empty() {
            for overlap in self.store.entry_overlap(&ids, 16).await? {
                let e = by_feed
                    .entry(overlap.feed)
                    .or_insert_with(|| blank(overlap.feed));
                e.shared_ids = u32::try_from(overlap.shared).unwrap_or(u32::MAX);
                e.their_ids = u32::try_from(overlap.entries).unwrap_or(u32::MAX);
            }
        }
        Ok(by_feed.into_values().collect())
    }
}
