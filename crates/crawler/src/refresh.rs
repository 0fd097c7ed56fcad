//! One read of one feed: request, body verdict, decision, one transaction.

use crate::robots::RobotsCheck;
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use tidings_feed::{ParseError, ParseOptions, ParsedFeed};
use tidings_fetch::{FetchRequest, FetchResponse, Hop};
use tidings_model::{AnswerFailure, FeedId, FeedUrl, FetchOutcome, HostKey, TransportError};
use tidings_policy::profile::EntryLimits;
use tidings_policy::redirect::url_move;
use tidings_policy::retry::second_attempt;
use tidings_policy::robots::{RobotsGate, crawl_delay_pause, host_gap};
use tidings_policy::{
    BodyVerdict, Decision, FailureKind, FeedHints, FeedSchedule, Lifecycle, conditional, decide,
    hold_blocked, host_floor, postpone, set_aside,
};
use tidings_policy::{egress, volume};
use tidings_store::{FeedMeta, FeedRecord, FeedState, FeedUpdate, FetchRecord, RequestLogRow};

/// Why a request is made; written to the request log (C7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The first read after a feed was added.
    FirstAdd,
    /// A scheduled refresh.
    Scheduled,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::FirstAdd => "first_add",
            Purpose::Scheduled => "feed",
        }
    }
}

/// What happened to one feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    pub feed_id: FeedId,
    pub url: String,
    /// `FetchOutcome::label`, `unchanged` (same body, C5) or `parse_error`.
    pub outcome: String,
    pub status: Option<u16>,
    pub new_entries: u64,
    pub updated_entries: u64,
    /// A one-line explanation when the read failed.
    pub error: Option<String>,
    pub next_fetch_at: DateTime<Utc>,
    pub next_fetch_reason: String,
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
    /// Redirects are followed here, hop by hop, each hop a request of its own: before each
    /// one the do-not-crawl rules (FF13), robots.txt of its origin (FF11, redirect
    /// destinations included) and its host's gate (C3); each is logged with the rule that
    /// allowed it (C7). Up to the fetcher's `max_redirects` hops are followed, a URL seen
    /// before in the chain is not followed again (C8), and each hop has the fetcher's whole
    /// time limit.
    pub async fn refresh(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
    ) -> Result<FeedReport, CrawlError> {
        // FF13, WFM10: a blocked feed sends nothing, not even robots.txt.
        // The feed is paused with the rule as its reason, not failed: nothing was sent.
        if let Some(reason) = self.blocked(feed.url.as_url(), Some(feed.id)).await? {
            return self.hold_blocked(feed, purpose, reason).await;
        }
        // SR11: the signer holds the key that signs now (a new one is made when due).
        self.keep_signing_key().await;
        // C6: the host asked everyone to wait; this feed waits too, without a request.
        let origin = HostKey::of(feed.url.as_url());
        let now = self.now();
        if let Some(until) = self.store.host_floor(origin.as_str()).await?
            && until > now
        {
            return self.postponed(feed, until, now).await;
        }
        let validators = conditional::request_validators(&feed.validators);
        // PF10: the live subscriber count, the same on every request of this read (C1).
        let user_agent = self.user_agent_of(feed.subscribers);
        let max_hops = usize::from(self.fetcher.config().max_redirects);
        let mut read = Read::start(feed);
        // WFM5: one early second attempt per read, after no answer at all.
        let mut attempts = 1;
        loop {
            let url = read.url.clone();
            if !read.hops.is_empty()
                && let Some(reason) = self.blocked(&url, Some(feed.id)).await?
            {
                return self.not_fetched(feed, purpose, reason, read).await;
            }
            // C6 on every hop: a redirect into a host that asked everyone to wait waits too.
            if !read.hops.is_empty() {
                let target = HostKey::of(&url);
                let now = self.now();
                if let Some(until) = self.store.host_floor(target.as_str()).await?
                    && until > now
                {
                    let reason = format!(
                        "redirect target {target}: host Retry-After until {} (C6)",
                        until.format("%Y-%m-%d %H:%M:%S UTC")
                    );
                    let decision = set_aside(&schedule_state(feed), until, now, reason);
                    return self.store_set_aside(feed, decision, now, read.log).await;
                }
            }
            let (robots, crawl_delay, unanswered) = match self
                .robots_gate(&url, Some(feed.id), user_agent.as_deref())
                .await?
            {
                RobotsCheck::Checked {
                    gate,
                    crawl_delay,
                    unanswered,
                } => (gate, crawl_delay, unanswered),
                RobotsCheck::NotSent(reason) => {
                    // Without the file no URL of its origin is fetched (FF11); say which
                    // request of the read could not go.
                    let reason = match read.hops.last() {
                        None => format!("robots.txt not fetched: {reason}"),
                        Some(hop) => {
                            format!("redirect from {} to {url} not followed: {reason}", hop.from)
                        }
                    };
                    return self.not_fetched(feed, purpose, reason, read).await;
                }
            };
            // FF11: a crawl-delay longer than the request window sets the host's work aside
            // until it has passed, rather than shortening it (before a read's first request;
            // a redirect hop already under way is paced by the capped gap).
            let quiet = self
                .gate
                .quiet_for(&url)
                .map(|real| real.saturating_mul(self.config.clock.scale()));
            if read.hops.is_empty()
                && let Some(rest) = crawl_delay_pause(&self.profile, crawl_delay, quiet)
            {
                // A delay too long to count is the longest wait, never none.
                let until = chrono::Duration::from_std(rest)
                    .ok()
                    .and_then(|rest| now.checked_add_signed(rest))
                    .unwrap_or(DateTime::<Utc>::MAX_UTC);
                let reason = format!(
                    "FF11 crawl-delay {}s is longer than the request window {}s: host set aside",
                    crawl_delay.map_or(0, |d| d.as_secs()),
                    self.profile.robots.crawl_delay_cap
                );
                return self.set_aside(feed, until, now, reason).await;
            }
            let allowed_by = match robots {
                RobotsGate::Allowed(reason) => reason,
                RobotsGate::Denied(reason) | RobotsGate::Deferred(reason) => {
                    if let Some(error) = unanswered {
                        return self
                            .robots_unanswered(feed, purpose, error, reason, read)
                            .await;
                    }
                    return self.not_fetched(feed, purpose, reason, read).await;
                }
            };
            let mut rule = match read.hops.last() {
                None => match purpose {
                    Purpose::FirstAdd => format!("first add; {allowed_by}"),
                    Purpose::Scheduled => format!("due: {}; {allowed_by}", feed.next_fetch_reason),
                },
                Some(hop) if HostKey::of(&hop.from) == HostKey::of(&url) => {
                    format!("redirect from {}", hop.from)
                }
                Some(hop) => format!("redirect from {}; {allowed_by}", hop.from),
            };
            let gap = host_gap(&self.profile, crawl_delay, purpose == Purpose::FirstAdd);
            let request = FetchRequest {
                validators: validators.clone(),
                follow_redirects: false,
                egress: egress_of(feed),
                user_agent: user_agent.clone(),
                ..FetchRequest::new(url.clone())
            };
            let response = {
                let first = {
                    let _permit = self.host_turn(&url, gap).await;
                    self.send(&request, purpose.as_str()).await
                };
                // WFM5: no answer at all gets one more attempt at once, same URL, address and
                // User-Agent, with more time; nothing else is tried again early (WFM4).
                match second_attempt(&first.outcome, attempts, &self.profile) {
                    None => first,
                    Some(patience) => {
                        attempts += 1;
                        read.log
                            .push(log_row(feed, purpose, &first, first.outcome.label(), rule));
                        rule = "second attempt after no answer (WFM5)".to_string();
                        let longer = FetchRequest {
                            timeout: Some(
                                self.fetcher.config().total_timeout.saturating_mul(patience),
                            ),
                            ..request.clone()
                        };
                        // A new turn: the gap follows the unanswered request too (C3).
                        let _permit = self.host_turn(&url, gap).await;
                        self.send(&longer, purpose.as_str()).await
                    }
                }
            };
            if let Some(next) = response.redirect_target() {
                let seen = next == *feed.url.as_url() || read.hops.iter().any(|h| h.to == next);
                if !seen && read.hops.len() < max_hops {
                    read.log
                        .push(log_row(feed, purpose, &response, "redirect", rule));
                    read.hops.push(Hop {
                        status: response.outcome.status().unwrap_or(0),
                        from: url,
                        to: next.clone(),
                    });
                    read.url = next;
                    continue;
                }
            }
            let response = FetchResponse {
                redirects: std::mem::take(&mut read.hops),
                ..response
            };
            return self
                .conclude(feed, purpose, response, read.log, Some(rule))
                .await;
        }
    }

    /// Reschedule a feed whose host asked to wait, without a request and without counting a
    /// failure.
    async fn postponed(
        &self,
        feed: &FeedRecord,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<FeedReport, CrawlError> {
        let decision = postpone(&schedule_state(feed), until, now);
        self.store_set_aside(feed, decision, now, Vec::new()).await
    }

    /// Reschedule a feed for a reason of its host's (FF11), without a request or a failure.
    async fn set_aside(
        &self,
        feed: &FeedRecord,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        reason: String,
    ) -> Result<FeedReport, CrawlError> {
        let decision = set_aside(&schedule_state(feed), until, now, reason);
        self.store_set_aside(feed, decision, now, Vec::new()).await
    }

    /// Store a set-aside decision; `log` holds the rows of requests a read sent before it
    /// was set aside (redirect hops).
    async fn store_set_aside(
        &self,
        feed: &FeedRecord,
        decision: Decision,
        now: DateTime<Utc>,
        mut log: Vec<RequestLogRow>,
    ) -> Result<FeedReport, CrawlError> {
        for row in &mut log {
            row.at = self.config.clock.crawler_time_of(row.at);
        }
        let response = unsent(
            FetchOutcome::Blocked {
                reason: decision.reason.clone(),
            },
            feed.url.as_url().clone(),
            Vec::new(),
            now,
        );
        let verdict = Verdict {
            body: BodyVerdict::NotApplicable,
            parsed: None,
            hash: None,
            error: None,
        };
        // Not a read: the store keeps what the last read said (failure streaks count across
        // the wait, and a first read stays a first read).
        let record = record(feed, &response, verdict, &decision, "postponed", log, now);
        self.store.apply_fetch(record).await?;
        Ok(FeedReport {
            feed_id: feed.id,
            url: feed.url.to_string(),
            outcome: "postponed".into(),
            status: None,
            new_entries: 0,
            updated_entries: 0,
            error: None,
            next_fetch_at: decision.next_fetch_at,
            next_fetch_reason: decision.reason,
        })
    }

    /// Store what a do-not-crawl rule, robots.txt or the address guard decided when the next
    /// request of `read` was not sent; the hops sent before it are logged.
    async fn not_fetched(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        reason: String,
        read: Read,
    ) -> Result<FeedReport, CrawlError> {
        tracing::info!(feed_id = feed.id.0, url = %read.url, %reason, "request not sent");
        let response = unsent(
            FetchOutcome::Blocked { reason },
            read.url,
            read.hops,
            self.now(),
        );
        self.conclude(feed, purpose, response, read.log, None).await
    }

    /// The host did not answer the robots.txt request just made (refused connection, failed
    /// name resolution, time-out) and the profile does not read the origin without it: the
    /// read ends as that host not answering, with what happened, not as a refusal by the
    /// file. Its robots.txt row is already logged; the feed was not requested.
    async fn robots_unanswered(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        error: TransportError,
        gate_reason: String,
        read: Read,
    ) -> Result<FeedReport, CrawlError> {
        let now = self.now();
        let text = format!(
            "robots.txt did not answer ({error}); the feed was not requested ({gate_reason})"
        );
        tracing::info!(feed_id = feed.id.0, url = %read.url, reason = %text, "request not sent");
        let response = unsent(FetchOutcome::Transport(error), read.url, read.hops, now);
        let verdict = Verdict {
            body: BodyVerdict::NotApplicable,
            parsed: None,
            hash: None,
            error: Some(text),
        };
        let decision = decide(
            &schedule_state(feed),
            &response.outcome,
            &verdict.body,
            now,
            &self.profile,
        );
        self.store_decided(feed, purpose, response, verdict, decision, read.log, None)
            .await
    }

    /// Pause a feed whose own URL a do-not-crawl rule covers (FF13, WFM10); no request.
    async fn hold_blocked(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        reason: String,
    ) -> Result<FeedReport, CrawlError> {
        tracing::info!(feed_id = feed.id.0, url = %feed.url, %reason, "feed blocked: paused");
        let now = self.now();
        let decision = hold_blocked(&schedule_state(feed), now, &reason);
        let response = unsent(
            FetchOutcome::Blocked { reason },
            feed.url.as_url().clone(),
            Vec::new(),
            now,
        );
        self.store_read(feed, purpose, response, decision, Vec::new(), None)
            .await
    }

    /// Judge the body, decide, and store everything of one read in one transaction. `log`
    /// holds the rows of earlier requests (hops, attempts); the final answer gets a row with
    /// `final_rule` unless no request was sent (`None`).
    async fn conclude(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        response: FetchResponse,
        log: Vec<RequestLogRow>,
        final_rule: Option<String>,
    ) -> Result<FeedReport, CrawlError> {
        // Hashing and parsing a body is CPU work: off the async threads, so other hosts'
        // requests and timers are not held up by it. Answers without a body stay here.
        let limits = self.profile.entries;
        let (verdict, response) = if matches!(response.outcome, FetchOutcome::Fetched(_)) {
            let stored_hash = feed.content_hash.clone();
            tokio::task::spawn_blocking(move || {
                let mut response = response;
                let verdict = judge_body(stored_hash.as_deref(), &response, &limits);
                // Judged: nothing after this reads the body, so it is not held while the
                // entries are stored (C8: one read's memory).
                if let FetchOutcome::Fetched(fetched) = &mut response.outcome {
                    fetched.body = Vec::new();
                }
                (verdict, response)
            })
            .await
            .map_err(|e| match e.try_into_panic() {
                // A parser bug: the same panic as if it had run here (`read_one` catches it).
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(e) => CrawlError::Internal(format!("reading the body was cancelled: {e}")),
            })?
        } else {
            (
                judge_body(feed.content_hash.as_deref(), &response, &limits),
                response,
            )
        };
        let decision = decide(
            &schedule_state(feed),
            &response.outcome,
            &verdict.body,
            self.now(),
            &self.profile,
        );
        let (verdict, decision) = self.bound_new_entries(feed, verdict, decision).await?;
        self.store_decided(feed, purpose, response, verdict, decision, log, final_rule)
            .await
    }

    /// C8: a read whose new entries would pass the profile's `entries.max_new_per_day` keeps
    /// none of them, and the feed is held for an operator (`policy::volume`).
    async fn bound_new_entries(
        &self,
        feed: &FeedRecord,
        mut verdict: Verdict,
        decision: Decision,
    ) -> Result<(Verdict, Decision), CrawlError> {
        let Some(parsed) = verdict.parsed.as_ref().filter(|p| !p.entries.is_empty()) else {
            return Ok((verdict, decision));
        };
        let ids: Vec<&str> = parsed.entries.iter().map(|e| e.id.as_str()).collect();
        let now = self.now();
        let counts = self
            .store
            .new_entry_counts(feed.id, &ids, volume::window_start(now))
            .await?;
        let Some(reason) =
            volume::over_daily_bound(counts.first_seen_since, counts.unseen, &self.profile)
        else {
            return Ok((verdict, decision));
        };
        tracing::warn!(feed_id = feed.id.0, feed_url = %feed.url, %reason, "feed held");
        verdict.parsed = None;
        verdict.hash = None;
        verdict.error = Some(reason.clone());
        Ok((
            verdict,
            volume::hold_for_volume(&schedule_state(feed), now, reason),
        ))
    }

    /// [`Self::store_decided`] for a read that got no body.
    async fn store_read(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        response: FetchResponse,
        decision: Decision,
        log: Vec<RequestLogRow>,
        final_rule: Option<String>,
    ) -> Result<FeedReport, CrawlError> {
        let verdict = judge_body(
            feed.content_hash.as_deref(),
            &response,
            &self.profile.entries,
        );
        self.store_decided(feed, purpose, response, verdict, decision, log, final_rule)
            .await
    }

    /// Store one decided read: the feed's new state, its entries and the request-log rows, in
    /// one transaction.
    #[allow(clippy::too_many_arguments)]
    async fn store_decided(
        &self,
        feed: &FeedRecord,
        purpose: Purpose,
        response: FetchResponse,
        verdict: Verdict,
        decision: Decision,
        mut log: Vec<RequestLogRow>,
        final_rule: Option<String>,
    ) -> Result<FeedReport, CrawlError> {
        let now = self.now();
        tracing::info!(
            feed_id = feed.id.0,
            feed_url = %feed.url,
            status = response.outcome.status(),
            outcome = response.outcome.label(),
            next_fetch_at = %decision.next_fetch_at,
            reason = %decision.reason,
            "feed read"
        );
        let error = verdict.error.clone();
        let outcome_label = match (&verdict.body, decision.failure) {
            (BodyVerdict::Unparseable { .. }, Some(FailureKind::Challenge)) => {
                "challenge".to_string()
            }
            (BodyVerdict::Unparseable { .. }, _) => "parse_error".to_string(),
            (BodyVerdict::Unchanged, _) => "unchanged".to_string(),
            _ => response.outcome.label().to_string(),
        };
        if let Some(rule) = final_rule {
            log.push(log_row(feed, purpose, &response, &outcome_label, rule));
        }
        // Rows carry the fetcher's real start time; the log is kept in crawler time.
        for row in &mut log {
            row.at = self.config.clock.crawler_time_of(row.at);
        }
        let mut record = record(
            feed,
            &response,
            verdict,
            &decision,
            &outcome_label,
            log,
            now,
        );
        self.follow_permanent_redirect(feed, &response, &decision, &mut record, now)
            .await?;
        // C6: a busy host's Retry-After holds back every feed of that host.
        record.host_floor = host_floor(&response.outcome, now, &self.profile)
            .map(|until| (HostKey::of(&response.final_url).to_string(), until));
        let applied = self.store.apply_fetch(record).await?;
        Ok(FeedReport {
            feed_id: feed.id,
            url: feed.url.to_string(),
            outcome: outcome_label,
            status: response.outcome.status(),
            new_entries: applied.new_entries,
            updated_entries: applied.updated_entries,
            error,
            next_fetch_at: decision.next_fetch_at,
            next_fetch_reason: decision.reason,
        })
    }
}

impl Crawler {
    /// PF9: move the feed's stored URL after permanent redirects, as the profile says.
    async fn follow_permanent_redirect(
        &self,
        feed: &FeedRecord,
        response: &FetchResponse,
        decision: &Decision,
        record: &mut FetchRecord,
        now: DateTime<Utc>,
    ) -> Result<(), CrawlError> {
        let hops: Vec<(u16, String)> = response
            .redirects
            .iter()
            .map(|hop| (hop.status, hop.to.to_string()))
            .collect();
        let read_ok =
            decision.failure.is_none() && !matches!(response.outcome, FetchOutcome::Blocked { .. });
        let verdict = url_move(
            feed.pending_move.as_ref(),
            &hops,
            read_ok,
            now,
            &self.profile,
        );
        record.update.pending_move = verdict.pending;
        let Some(target) = verdict.move_to else {
            return Ok(());
        };
        let Ok(url) = FeedUrl::parse(&target) else {
            return Ok(());
        };
        match self.store.feed_by_url(&url).await? {
            // Another feed already lives there: the two stay apart (an operator may merge).
            Some(other) if other.id != feed.id => {
                tracing::warn!(
                    feed_id = feed.id.0,
                    target = %url,
                    other = other.id.0,
                    "permanent redirect onto another feed's URL; not moved"
                );
            }
            _ => {
                tracing::info!(feed_id = feed.id.0, from = %feed.url, to = %url, "feed moved (PF9)");
                record.update.url = Some(url);
            }
        }
        Ok(())
    }
}

/// The response of a request that was not sent (or of a read that ended before its feed's
/// request): `outcome` says why; no bytes, no time.
fn unsent(
    outcome: FetchOutcome,
    final_url: url::Url,
    redirects: Vec<Hop>,
    at: DateTime<Utc>,
) -> FetchResponse {
    FetchResponse {
        outcome,
        final_url,
        redirects,
        bytes: 0,
        started_at: at,
        duration: std::time::Duration::ZERO,
    }
}

/// What scheduling reads of a stored feed.
fn schedule_state(feed: &FeedRecord) -> FeedSchedule {
    FeedSchedule {
        interval_secs: u64::try_from(feed.interval_secs).unwrap_or(0),
        consecutive_failures: u32::try_from(feed.consecutive_failures).unwrap_or(0),
        validators: feed.validators.clone(),
        last_failure: feed.last_outcome.as_deref().and_then(|label| {
            FailureKind::from_stored(label, feed.last_status.and_then(|s| u16::try_from(s).ok()))
        }),
        seed: u64::try_from(feed.id.0).unwrap_or(0),
        fixed_interval_secs: feed.overrides.interval_secs,
    }
}

/// Whether a body that did not parse is an HTML page (a challenge page, after a refusal).
fn looks_like_html(content_type: Option<&str>, body: &[u8]) -> bool {
    if content_type.is_some_and(|ct| ct.to_ascii_lowercase().contains("html")) {
        return true;
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

/// The body's fate, with what it yielded.
struct Verdict {
    body: BodyVerdict,
    parsed: Option<ParsedFeed>,
    /// The new content hash to store, for a body that parsed (or was unchanged).
    hash: Option<String>,
    error: Option<String>,
}

fn judge_body(
    stored_hash: Option<&str>,
    response: &FetchResponse,
    limits: &EntryLimits,
) -> Verdict {
    let fetched = match &response.outcome {
        FetchOutcome::Fetched(f) => f,
        other => {
            return Verdict {
                body: BodyVerdict::NotApplicable,
                parsed: None,
                hash: None,
                error: failure_text(other),
            };
        }
    };
    let hash = hex::encode(Sha256::digest(&fetched.body));
    if stored_hash == Some(hash.as_str()) {
        return Verdict {
            body: BodyVerdict::Unchanged,
            parsed: None,
            hash: Some(hash),
            error: None,
        };
    }
    let options = ParseOptions {
        base_url: Some(response.final_url.as_str()),
        charset: fetched.content_type.as_deref().and_then(charset_of),
        content_type: fetched.content_type.as_deref(),
        max_entries: usize::try_from(limits.max_per_response).ok(),
        max_text_bytes: usize::try_from(limits.max_text_bytes).ok(),
    };
    match tidings_feed::parse(&fetched.body, &options) {
        Ok(parsed) => Verdict {
            body: BodyVerdict::Parsed(FeedHints::of(&parsed.feed, &parsed.entries)),
            parsed: Some(parsed),
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
                html: looks_like_html(fetched.content_type.as_deref(), &fetched.body),
            },
            parsed: None,
            hash: None,
            error: Some(e.to_string()),
        },
    }
}

fn failure_text(outcome: &FetchOutcome) -> Option<String> {
    Some(match outcome {
        FetchOutcome::Fetched(_) | FetchOutcome::NotModified { .. } => return None,
        FetchOutcome::Redirect { status, location } => format!(
            "too many redirects (last {status} to {})",
            location.as_deref().unwrap_or("nowhere")
        ),
        FetchOutcome::Refused { status, .. } => format!("refused with {status}"),
        FetchOutcome::Challenge { status, .. } => {
            format!("refused with a bot challenge page ({status})")
        }
        FetchOutcome::NotFound => "404 not found".into(),
        FetchOutcome::Gone => "410 gone".into(),
        FetchOutcome::ClientError { status } | FetchOutcome::ServerError { status, .. } => {
            format!("http {status}")
        }
        FetchOutcome::TooLarge { limit } => format!("body larger than {limit} bytes"),
        FetchOutcome::BadBody { detail, .. } => format!("unreadable body: {detail}"),
        FetchOutcome::FailedAnswer {
            status,
            failure: AnswerFailure::Stalled,
        } => match status {
            Some(status) => format!("answered {status}, then the body stalled past the time-out"),
            None => "the answer stalled past the time-out".into(),
        },
        FetchOutcome::FailedAnswer {
            failure: AnswerFailure::HeadTooLarge,
            ..
        } => "the response headers were too large to read".into(),
        FetchOutcome::Transport(e) => e.to_string(),
        FetchOutcome::CrawlerPaused { .. } => return None,
        FetchOutcome::Blocked { reason } => format!("not fetched: {reason}"),
    })
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

fn record(
    feed: &FeedRecord,
    response: &FetchResponse,
    verdict: Verdict,
    decision: &Decision,
    outcome_label: &str,
    log: Vec<RequestLogRow>,
    now: DateTime<Utc>,
) -> FetchRecord {
    // WFM8: each address's latest answer; a read that got none changes nothing.
    let answered = !matches!(
        response.outcome,
        FetchOutcome::Transport(_)
            | FetchOutcome::Blocked { .. }
            | FetchOutcome::CrawlerPaused { .. }
    );
    let egress_refusals = answered.then(|| {
        egress::after_answer(
            &feed.egress_refusals,
            feed.egress.as_deref(),
            egress::is_refusal(decision.failure),
        )
    });
    let refused_everywhere = egress_refusals
        .as_ref()
        .and_then(egress::refused_everywhere);
    let mut next_fetch_reason = decision.reason.clone();
    let (state, state_reason) = match (refused_everywhere, decision.lifecycle) {
        (Some(why), _) => {
            next_fetch_reason = format!("off: {why}");
            (FeedState::Off, Some(why))
        }
        (None, Lifecycle::Active) => (FeedState::Active, None),
        (None, Lifecycle::Paused) => (FeedState::Paused, decision.lifecycle_reason.clone()),
        (None, Lifecycle::Off) => (FeedState::Off, decision.lifecycle_reason.clone()),
    };
    let (meta, entries) = match verdict.parsed {
        Some(parsed) => (
            Some(FeedMeta {
                title: parsed.feed.title,
                site_link: parsed.feed.link,
                expires: parsed.feed.expires,
            }),
            parsed.entries,
        ),
        None => (None, Vec::new()),
    };
    FetchRecord {
        feed_id: feed.id,
        fetched_at: now,
        update: FeedUpdate {
            validators: decision.validators.clone(),
            content_hash: verdict.hash,
            url: None,
            pending_move: feed.pending_move.clone(),
            state,
            state_reason,
            next_fetch_at: decision.next_fetch_at,
            next_fetch_reason,
            interval_secs: i64::try_from(decision.interval_secs).unwrap_or(i64::MAX),
            consecutive_failures: i32::try_from(decision.consecutive_failures).unwrap_or(i32::MAX),
            last_status: response.outcome.status().map(i32::from),
            last_outcome: outcome_label.to_string(),
            last_error: verdict.error,
            meta,
            egress_refusals,
        },
        entries,
        log,
        host_floor: None,
    }
}

/// Where a read has got to: the URL to request next, the hops followed, the rows of the
/// requests sent so far.
struct Read {
    url: url::Url,
    hops: Vec<Hop>,
    log: Vec<RequestLogRow>,
}

impl Read {
    fn start(feed: &FeedRecord) -> Read {
        Read {
            url: feed.url.as_url().clone(),
            hops: Vec::new(),
            log: Vec::new(),
        }
    }
}

/// The local address an operator assigned to `feed` (WFM7); a stored value that is no address
/// (never written by tidings) is read as the default.
fn egress_of(feed: &FeedRecord) -> Option<std::net::IpAddr> {
    feed.egress.as_deref().and_then(|e| e.parse().ok())
}

/// The request-log row of one request sent (C7) for a feed's read, allowed by `rule`.
fn log_row(
    feed: &FeedRecord,
    purpose: Purpose,
    response: &FetchResponse,
    outcome_label: &str,
    rule: String,
) -> RequestLogRow {
    RequestLogRow {
        egress: feed.egress.clone(),
        ..request_row(
            Some(feed.id),
            purpose.as_str(),
            response,
            outcome_label,
            rule,
        )
    }
}

/// The request-log row of one request sent (C7): `at` is the request's real start time.
pub(crate) fn request_row(
    feed: Option<FeedId>,
    purpose: &str,
    response: &FetchResponse,
    outcome_label: &str,
    rule: String,
) -> RequestLogRow {
    RequestLogRow {
        at: response.started_at,
        feed_id: feed,
        host: HostKey::of(&response.final_url).to_string(),
        purpose: purpose.to_string(),
        url: response.final_url.to_string(),
        egress: None,
        status: response.outcome.status().map(i32::from),
        outcome: outcome_label.to_string(),
        bytes: i64::try_from(response.bytes).unwrap_or(i64::MAX),
        duration_ms: i64::try_from(response.duration.as_millis()).unwrap_or(i64::MAX),
        rule,
    }
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
