//! What every read asks of its driver, answered once for the feed's read ([`crate::refresh`])
//! and a resource's ([`crate::enrich`]): whether a rule covers a URL (FF13), a host's floor and
//! robots.txt copy, how long a host has been quiet (FF11), a request sent in its host's turn
//! (C3) with the rule checked again once the turn is taken, and a robots.txt copy saved with
//! its request-log rows (C7).

use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use std::net::IpAddr;
use std::sync::{Arc, PoisonError};
use tidings_fetch::FetchRequest;
use tidings_model::{FeedId, FetchOutcome, HostKey, Label};
use tidings_read::{Answer, Event, Need, RequestKind, RobotsCopy, Sent};
use tidings_store::{HeldRobots, RequestLogRow};
use url::Url;

/// Whose read it is: the feed it is for (its request-log rows and the rules that name it),
/// and the address its own requests go from (WFM7; robots.txt always from the default).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asker {
    pub feed: Option<FeedId>,
    pub egress: Option<IpAddr>,
    /// The most body bytes any one answer may bring, when the asker's own budget is smaller
    /// than the request's (a spider run's bytes left, FF4).
    pub max_body: Option<u64>,
}

impl Crawler {
    /// A host's floor and its robots.txt copy: the one this process keeps while the store
    /// still holds it (its text not read again), else the stored one, kept.
    async fn host_state(
        &self,
        host: &str,
    ) -> Result<(Option<DateTime<Utc>>, Option<Arc<RobotsCopy>>), CrawlError> {
        let copies = || self.copies.lock().unwrap_or_else(PoisonError::into_inner);
        let held = copies().held(host);
        if let Some(held) = held {
            let state = self.store.host_state_holding(host, held.0, held.1).await?;
            match state.robots {
                HeldRobots::Never => return Ok((state.floor, None)),
                HeldRobots::Stored(stored) => {
                    return Ok((state.floor, Some(copies().copy(host, stored))));
                }
                HeldRobots::Held => {
                    if let Some(kept) = copies().kept(host, held) {
                        return Ok((state.floor, Some(kept)));
                    }
                    // Let go or replaced meanwhile: read it whole.
                }
            }
        }
        let state = self.store.host_state(host).await?;
        let robots = state.robots.map(|stored| copies().copy(host, stored));
        Ok((state.floor, robots))
    }

    /// The answer to a need every read has; `None` for the needs that are a feed's or a
    /// resource's own (judging a body, counting entries, examining a page).
    pub(crate) async fn answer_shared(
        &self,
        need: &Need<'_, Url>,
        asker: &Asker,
    ) -> Result<Option<Event>, CrawlError> {
        Ok(Some(match need {
            Need::Rules { target } => Event::Rules(self.blocked(target, asker.feed).await?),
            Need::HostState { host } => {
                let (floor, robots) = self.host_state(host.as_str()).await?;
                Event::HostState { floor, robots }
            }
            Need::QuietFor { target } => {
                // After a restart the gate learns the host's last request from the log
                // first, so a long crawl-delay is measured from it (FF11).
                if !self.gate.knows(target) {
                    self.seed_gate(target).await;
                }
                let quiet = self
                    .gate
                    .quiet_for(target)
                    .map(|real| real.saturating_mul(self.config.clock.scale()));
                Event::Quiet(quiet)
            }
            Need::Send {
                request,
                gap,
                allowed,
            } => {
                let budget = crate::time_limit(&self.fetcher, request.patience);
                let fetch = FetchRequest {
                    validators: request.validators.clone(),
                    follow_redirects: false,
                    // WFM7: the feed's own address; robots.txt goes from the default.
                    egress: match request.kind {
                        RequestKind::Resource(_) => asker.egress,
                        RequestKind::Robots => None,
                    },
                    user_agent: request.user_agent.clone(),
                    timeout: (request.patience > 1).then_some(budget),
                    max_body_bytes: match (request.max_bytes, asker.max_body) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    },
                    keep_prefix: request.keep_prefix,
                    ..FetchRequest::new(request.target.clone())
                };
                let turn = self.host_turn(&request.target, *gap, budget).await?;
                // FF13 once more, now that the turn is taken: a rule added while the request
                // waited for its host's gap stops it.
                let rule = match self.blocked(&request.target, asker.feed).await {
                    Ok(rule) => rule,
                    Err(e) => {
                        turn.end(self).await;
                        return Err(e);
                    }
                };
                let event = if let Some(reason) = rule {
                    Event::Answer(Answer {
                        outcome: FetchOutcome::Blocked { reason },
                        started_at: self.now(),
                        duration: std::time::Duration::ZERO,
                        bytes: 0,
                        ticket: None,
                    })
                } else {
                    // C7: the request's row is written before it is sent.
                    let ahead = RequestLogRow {
                        egress: fetch.egress.map(|a| a.to_string()),
                        ..ahead_row(
                            self.now(),
                            match request.kind {
                                RequestKind::Resource(_) => asker.feed,
                                RequestKind::Robots => None,
                            },
                            &request.target,
                            request.kind.as_str(),
                            &allowed.to_string(),
                        )
                    };
                    let (response, ticket) = match self
                        .send(&turn, &fetch, request.kind.as_str(), &ahead)
                        .await
                    {
                        Ok(sent) => sent,
                        Err(e) => {
                            turn.end(self).await;
                            return Err(e);
                        }
                    };
                    let clock = &self.config.clock;
                    Event::Answer(Answer {
                        // Rows and every instant are kept in crawler time; the fetcher's clock
                        // and the publisher's dates are real.
                        started_at: clock.crawler_time_of(response.started_at),
                        duration: response.duration,
                        bytes: response.bytes,
                        outcome: clock.answer_outcome(response.outcome),
                        ticket: Some(ticket),
                    })
                };
                turn.end(self).await;
                event
            }
            Need::SaveRobots { host, copy, sent } => {
                let cache = tidings_store::RobotsCache {
                    fetched_at: copy.fetched_at,
                    status: copy.status.map(i32::from),
                    body: copy.body.clone(),
                };
                let rows: Vec<RequestLogRow> =
                    sent.iter().map(|s| log_row(None, None, s)).collect();
                self.store.save_robots(host.as_str(), &cache, &rows).await?;
                Event::Saved
            }
            Need::Judge { .. }
            | Need::EntryCounts { .. }
            | Need::FeedAt { .. }
            | Need::Examine { .. }
            | Need::Done => return Ok(None),
        }))
    }
}

/// The request-log row of one request sent (C7), for `feed` (none for robots.txt) from
/// `egress`.
pub(crate) fn log_row(
    feed: Option<FeedId>,
    egress: Option<String>,
    sent: &Sent<Url>,
) -> RequestLogRow {
    RequestLogRow {
        egress: match sent.kind {
            RequestKind::Resource(_) => egress,
            RequestKind::Robots => None,
        },
        ticket: sent.ticket,
        ..log_row_of(
            sent.at,
            feed,
            &sent.target,
            sent.kind.as_str(),
            sent.status,
            sent.label,
            sent.bytes,
            sent.duration,
            &sent.allowed.to_string(),
        )
    }
}

/// The row a request to `url` for `purpose` is logged with before it is sent (C7): no answer
/// yet (`in_flight`), `rule` what allows it.
pub(crate) fn ahead_row(
    at: chrono::DateTime<chrono::Utc>,
    feed: Option<FeedId>,
    url: &Url,
    purpose: &str,
    rule: &str,
) -> RequestLogRow {
    log_row_of(
        at,
        feed,
        url,
        purpose,
        None,
        Label::InFlight,
        0,
        std::time::Duration::ZERO,
        rule,
    )
}

/// The request-log row of a request to `url` for `purpose` (the log's name of it), sent from
/// the default address at `at`, that ended in `label` after `duration`; `rule` says what
/// allowed it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn log_row_of(
    at: chrono::DateTime<chrono::Utc>,
    feed: Option<FeedId>,
    url: &Url,
    purpose: &str,
    status: Option<u16>,
    label: tidings_model::Label,
    bytes: u64,
    duration: std::time::Duration,
    rule: &str,
) -> RequestLogRow {
    RequestLogRow {
        at,
        feed_id: feed,
        host: HostKey::of(url).to_string(),
        purpose: purpose.to_string(),
        url: url.to_string(),
        egress: None,
        status: status.map(i32::from),
        outcome: label,
        bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
        duration_ms: i64::try_from(duration.as_millis()).unwrap_or(i64::MAX),
        rule: rule.to_owned(),
        ticket: None,
    }
}
