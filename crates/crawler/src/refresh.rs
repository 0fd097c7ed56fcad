//! One read of one feed, driven: the read machine (`tidings_read`) decides every step; this
//! driver answers each of its needs with the store, the host gate and the fetcher, then stores
//! the one outcome in one transaction.

use crate::drive::{Asker, log_row};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use tidings_feed::{ParseError, ParseOptions};
use tidings_model::{FeedId, FeedUrl, Label};
use tidings_policy::profile::EntryLimits;
use tidings_policy::{BodyVerdict, FeedHints, FeedSchedule, Lifecycle, volume};
use tidings_read::{Body, Ending, Event, FeedState as ReadFeed, Need, Read, ReadOutcome, Verdict};
use tidings_store::{FeedMeta, FeedRecord, FeedState, FeedUpdate, FetchRecord, RequestLogRow};
use url::Url;

/// How long a read's record is offered to a store that fails for a passing reason.
const APPLY_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

pub use tidings_read::Purpose;

/// What happened to one feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    pub feed_id: FeedId,
    pub url: String,
    /// `FetchOutcome::label`, `unchanged` (same body, C5), `parse_error`, `postponed`, or
    /// `internal_error` for a read that failed inside tidings.
    pub outcome: Label,
    pub status: Option<u16>,
    pub new_entries: u64,
    pub updated_entries: u64,
    /// A one-line explanation when the read failed.
    pub error: Option<String>,
    pub next_fetch_at: DateTime<Utc>,
    pub next_fetch_reason: String,
    /// The read queued resources for the feed, due now (article pages, its site's icon: SR1).
    pub queued: bool,
    /// The feed's URL answered an HTML page: what the page names (its feed alternates), for
    /// a person who gave a site's URL to subscribe to (FF1).
    pub html_page: Option<Box<HtmlPage>>,
}

/// An HTML page a feed's URL answered, and the URL it was read from (after redirects).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlPage {
    pub url: Url,
    pub page: tidings_page::Page,
}

impl FeedReport {
    /// The read succeeded (new body, unchanged body or 304).
    pub fn is_success(&self) -> bool {
        self.error.is_none()
    }
}

impl Crawler {
    /// Read one feed now, waiting for its host's turn, and store the result.
    ///
    /// The step order is the read machine's ([`tidings_read`]): every request, redirect hops
    /// and robots.txt included, is checked against the do-not-crawl rules (FF13), its host's
    /// Retry-After floor (C6) and its origin's robots.txt (FF11), waits for its host's turn
    /// (C3), and is logged with the rule that allowed it (C7).
    pub async fn refresh(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
    ) -> Result<FeedReport, CrawlError> {
        // SR11: the signer holds the key that signs now (a new one is made when due).
        self.keep_signing_key().await;
        let state = ReadFeed {
            target: feed.url.as_url().clone(),
            schedule: schedule_state(feed),
            next_fetch_reason: feed.next_fetch_reason.clone(),
            egress: feed.egress.clone(),
            egress_refusals: feed.egress_refusals.clone(),
            pending_move: feed.pending_move.clone(),
            content_hash: feed.content_hash.clone(),
            // PF10: the live subscriber count, the same on every request of this read (C1).
            user_agent: self.user_agent_of(feed.subscribers),
            directives: feed.directives,
        };
        let mut read = Read::new(&state, purpose, &self.profile);
        let asker = Asker {
            feed: Some(feed.id),
            egress: egress_of(feed),
            max_body: None,
        };
        // An HTML page where a feed was expected: what it names (FF1, subscribing by a site).
        let mut html_page = None;
        let mut need = read.start();
        loop {
            let event = match self.answer_shared(&need, &asker).await? {
                Some(event) => event,
                None => match need {
                    Need::Judge {
                        body,
                        base,
                        stored_hash,
                    } => {
                        // Only a first read serves a person who gave a page's URL.
                        let first_add = purpose == Purpose::FirstAdd;
                        let (verdict, page) =
                            self.judge(body, base, stored_hash, first_add).await?;
                        html_page = page.map(|page| {
                            Box::new(HtmlPage {
                                url: base.clone(),
                                page: *page,
                            })
                        });
                        Event::Judged(Box::new(verdict))
                    }
                    Need::EntryCounts { ids, since } => {
                        let counts = self.store.new_entry_counts(feed.id, &ids, since).await?;
                        Event::EntryCounts {
                            unseen: counts.unseen,
                            first_seen_since: counts.first_seen_since,
                        }
                    }
                    Need::FeedAt { url } => {
                        let other_feed = match FeedUrl::parse(url) {
                            Ok(url) => self
                                .store
                                .feed_by_url(&url)
                                .await?
                                .is_some_and(|other| other.id != feed.id),
                            Err(_) => true,
                        };
                        Event::FeedAt { other_feed }
                    }
                    Need::Done => break,
                    other => {
                        return Err(CrawlError::Internal(format!(
                            "a feed's read asked for {other:?}"
                        )));
                    }
                },
            };
            need = read.step(event, self.now());
        }
        let outcome = read
            .finish()
            .ok_or_else(|| CrawlError::Internal("the read ended without an outcome".into()))?;
        let mut report = self.store_outcome(feed, *outcome, purpose).await?;
        report.html_page = html_page;
        Ok(report)
    }

    /// Hash and parse a body off the async threads (CPU work), so other hosts' requests and
    /// timers are not held up by it.
    /// With `inspect_html`, a body that is an HTML page is inspected too (its first
    /// `discovery.max_page_bytes`): the feeds it names are what a person who gave its URL
    /// wants (FF1).
    async fn judge(
        &self,
        body: Body,
        base: &Url,
        stored_hash: Option<&str>,
        inspect_html: bool,
    ) -> Result<(Verdict, Option<Box<tidings_page::Page>>), CrawlError> {
        let profile = self.profile.clone();
        let stored_hash = stored_hash.map(str::to_owned);
        let base = base.clone();
        tokio::task::spawn_blocking(move || {
            let verdict = judge_body(
                stored_hash.as_deref(),
                &body,
                base.as_str(),
                &profile.entries,
            );
            let html = matches!(verdict.body, BodyVerdict::Unparseable { html: true, .. });
            let page = (inspect_html && html).then(|| {
                let max = usize::try_from(profile.discovery.max_page_bytes).unwrap_or(usize::MAX);
                Box::new(crate::enrich::inspect_page(&body, &base, &profile, max))
            });
            (verdict, page)
        })
        .await
        .map_err(|e| match e.try_into_panic() {
            // A parser bug: the same panic as if it had run here (`read_one` catches it).
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => CrawlError::Internal(format!("reading the body was cancelled: {e}")),
        })
    }

    /// Apply one read's record. The requests it made were sent, so a store that went away
    /// (a database restart, a network cut) is asked again, with growing waits, for up to
    /// [`APPLY_PATIENCE`] before the read is given up: a fetch made is not lost to an outage
    /// the store comes back from. (Its lease is fenced as before: if another holder took the
    /// host meanwhile, only the log rows are written.)
    async fn apply_durably(
        &self,
        record: FetchRecord,
    ) -> Result<tidings_store::ApplyReport, CrawlError> {
        let started = std::time::Instant::now();
        let mut backoff = crate::backoff::Backoff::new(
            std::time::Duration::from_millis(100),
            std::time::Duration::from_secs(5),
        );
        loop {
            match self.store.apply_fetch(record.clone()).await {
                Err(e)
                    if e.is_transient() && started.elapsed() + backoff.peek() < APPLY_PATIENCE =>
                {
                    let wait = backoff.next_wait();
                    tracing::warn!(feed_id = record.feed_id.0, error = %e, retry_in = ?wait, "storing a read failed; trying again");
                    tokio::time::sleep(wait).await;
                }
                other => return Ok(other?),
            }
        }
    }

    /// Store one read's outcome: the feed's new state, its entries and the request-log rows,
    /// in one transaction.
    async fn store_outcome(
        &self,
        feed: &FeedRecord,
        out: ReadOutcome<Url>,
        purpose: Purpose,
    ) -> Result<FeedReport, CrawlError> {
        let now = self.now();
        let ending = out.ending();
        match ending {
            Ending::Held => tracing::info!(
                feed_id = feed.id.0, url = %feed.url, reason = %out.decision.reason,
                "feed blocked: paused"
            ),
            Ending::SetAside => {}
            Ending::Read => tracing::info!(
                feed_id = feed.id.0,
                feed_url = %feed.url,
                status = out.outcome.status(),
                outcome = %out.label,
                next_fetch_at = %out.decision.next_fetch_at,
                reason = %out.decision.reason,
                "feed read"
            ),
        }
        let status = out.outcome.status();
        let log: Vec<RequestLogRow> = out
            .sent
            .iter()
            .map(|s| log_row(Some(feed.id), feed.egress.clone(), s))
            .collect();
        // What the read asks of the page queue (SR1), decided before its entries are stored.
        let enrichment = self.enrichment_of(feed, out.verdict.parsed.as_deref());
        // WebSub: the hub the body names, and the feed's subscription, which slows its polls.
        let named = out
            .verdict
            .parsed
            .as_deref()
            .and_then(|p| crate::websub::Named::of(p, feed.url.as_url()));
        let websub = self.websub_of(feed.id).await;
        let mut next_fetch_at = out.decision.next_fetch_at;
        let mut next_fetch_reason = out.decision.reason.to_string();
        if ending == Ending::Read
            && out.decision.lifecycle == Lifecycle::Active
            && out.decision.failure.is_none()
            && let Some((at, reason)) = self.websub_stretch(websub.as_ref(), next_fetch_at)
        {
            next_fetch_at = at;
            next_fetch_reason = reason;
        }
        let (meta, entries) = match out.verdict.parsed.map(|p| *p) {
            Some(parsed) => (
                Some(FeedMeta {
                    title: parsed.feed.title,
                    site_link: parsed.feed.link,
                    expires: parsed.feed.expires,
                    thumbnail: parsed.feed.selected_image,
                }),
                parsed.entries,
            ),
            None => (None, Vec::new()),
        };
        let (state, state_reason) = match out.decision.lifecycle {
            Lifecycle::Active => (FeedState::Active, None),
            Lifecycle::Paused => (FeedState::Paused, out.decision.lifecycle_reason.clone()),
            Lifecycle::Off => (FeedState::Off, out.decision.lifecycle_reason.clone()),
        };
        let url = out
            .move_to
            .as_deref()
            .and_then(|to| FeedUrl::parse(to).ok());
        if let Some(url) = &url {
            tracing::info!(feed_id = feed.id.0, from = %feed.url, to = %url, "feed moved (PF9)");
        }
        let error = out.verdict.error.clone();
        let record = FetchRecord {
            feed_id: feed.id,
            fetched_at: now,
            update: FeedUpdate {
                validators: out.decision.validators.clone(),
                content_hash: out.verdict.hash,
                url,
                pending_move: out.pending_move,
                state,
                state_reason,
                held_by: out.decision.held_by.clone(),
                next_fetch_at,
                next_fetch_reason: next_fetch_reason.clone(),
                interval_secs: i64::try_from(out.decision.interval_secs).unwrap_or(i64::MAX),
                consecutive_failures: i32::try_from(out.decision.consecutive_failures)
                    .unwrap_or(i32::MAX),
                last_status: status.map(i32::from),
                last_outcome: out.label,
                last_error: error.clone(),
                last_failure: out.decision.failure,
                failure_totals: out.decision.failure_totals,
                meta,
                egress_refusals: out.egress_refusals,
                directives: out.directives,
            },
            entries,
            log,
            host_floor: out
                .host_floor
                .map(|(host, until)| (host.to_string(), until)),
            fence: self.leases.fence(&crate::gate::host_of(feed.url.as_url())),
        };
        let applied = self.apply_durably(record).await?;
        if applied.fenced_out {
            // Another process claimed the host while this read was under way (this one was
            // paused or cut off past its lease): its state stands, this read is only logged.
            tracing::warn!(
                feed_id = feed.id.0,
                url = %feed.url,
                "host lease lost during the read; its result was not stored"
            );
        }
        if !applied.fenced_out {
            self.websub_after(feed, websub, named);
        }
        let mut queued = false;
        if let Some(enrichment) = enrichment {
            match self
                .queue_enrichment(
                    feed,
                    enrichment,
                    applied.new_entries,
                    purpose == Purpose::FirstAdd,
                )
                .await
            {
                Ok(q) => queued = q,
                // The read itself is stored; its previews and icon wait for the next read.
                Err(e) => tracing::warn!(feed_id = feed.id.0, error = %e, "enrichment not queued"),
            }
        }
        Ok(FeedReport {
            feed_id: feed.id,
            url: feed.url.to_string(),
            outcome: out.label,
            status: match ending {
                Ending::SetAside => None,
                _ => status,
            },
            new_entries: applied.new_entries,
            updated_entries: applied.updated_entries,
            error: match ending {
                Ending::SetAside => None,
                _ => error,
            },
            next_fetch_at,
            next_fetch_reason,
            queued,
            html_page: None,
        })
    }
}

/// What scheduling reads of a stored feed.
fn schedule_state(feed: &FeedRecord) -> FeedSchedule {
    FeedSchedule {
        interval_secs: u64::try_from(feed.interval_secs).unwrap_or(0),
        consecutive_failures: u32::try_from(feed.consecutive_failures).unwrap_or(0),
        validators: feed.validators.clone(),
        last_failure: feed.last_failure,
        failure_totals: feed.failure_totals,
        seed: u64::try_from(feed.id.0).unwrap_or(0),
        fixed_interval_secs: feed.overrides.interval_secs,
    }
}

/// Whether a body that did not parse is an HTML page (a challenge page, after a refusal).
pub(crate) fn looks_like_html(content_type: Option<&str>, body: &[u8]) -> bool {
    if content_type.is_some_and(|ct| ct.to_ascii_lowercase().contains("html")) {
        return true;
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

/// The body's fate: the same bytes as last time (C5), a feed, or no readable feed.
pub(crate) fn judge_body(
    stored_hash: Option<&str>,
    body: &Body,
    base: &str,
    limits: &EntryLimits,
) -> Verdict {
    let hash = hex::encode(Sha256::digest(&body.bytes));
    if stored_hash == Some(hash.as_str()) {
        return Verdict {
            body: BodyVerdict::Unchanged,
            parsed: None,
            hash: Some(hash),
            error: None,
        };
    }
    let options = ParseOptions {
        base_url: Some(base),
        charset: body.content_type.as_deref().and_then(charset_of),
        content_type: body.content_type.as_deref(),
        max_entries: usize::try_from(limits.max_per_response).ok(),
        max_text_bytes: usize::try_from(limits.max_text_bytes).ok(),
    };
    match tidings_feed::parse(&body.bytes, &options) {
        Ok(parsed) => Verdict {
            body: BodyVerdict::Parsed(FeedHints::of(&parsed.feed, &parsed.entries)),
            parsed: Some(Box::new(parsed)),
            hash: Some(hash),
            error: None,
        },
        Err(ParseError::TooManyEntries { .. }) => {
            let detail = volume::too_many_entries(limits);
            Verdict {
                body: BodyVerdict::Unparseable {
                    detail: detail.clone(),
                    html: false,
                },
                parsed: None,
                hash: None,
                error: Some(detail),
            }
        }
        Err(e) => Verdict {
            body: BodyVerdict::Unparseable {
                detail: e.to_string(),
                html: looks_like_html(body.content_type.as_deref(), &body.bytes),
            },
            parsed: None,
            hash: None,
            error: Some(e.to_string()),
        },
    }
}

/// The `charset` parameter of a Content-Type.
fn charset_of(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// The local address an operator assigned to `feed` (WFM7); a stored value that is no address
/// (never written by tidings) is read as the default.
fn egress_of(feed: &FeedRecord) -> Option<std::net::IpAddr> {
    feed.egress.as_deref().and_then(|e| e.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::charset_of;

    #[test]
    fn charset_parameter_is_read_from_content_type() {
        let cases = [
            (
                "application/rss+xml; charset=ISO-8859-1",
                Some("ISO-8859-1"),
            ),
            ("text/xml;Charset=\"utf-8\"", Some("utf-8")),
            ("application/xml", None),
            ("text/xml; q=1; charset = koi8-r ", Some("koi8-r")),
        ];
        for (ct, want) in cases {
            assert_eq!(charset_of(ct), want, "{ct}");
        }
    }
}
