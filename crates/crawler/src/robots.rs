//! robots.txt before every feed request, redirect hops included (FF11): read (or re-read) the
//! origin's file through the host gate, store it with its request-log row, and ask the policy
//! whether the URL may be fetched. The robots.txt request itself is checked against the
//! do-not-crawl rules first, each of its redirect hops too (FF13).

use crate::refresh::request_row;
use crate::{CrawlError, Crawler};
use std::time::Duration;
use tidings_fetch::{FetchRequest, FetchResponse};
use tidings_model::{FeedId, FetchOutcome, HostKey, TransportError};
use tidings_policy::robots::{
    RobotsGate, StoredRobots, deferred_copy_is_due, gate_for_feed, host_gap, needs_refetch,
};
use tidings_robots::path_and_query;
use tidings_store::{RequestLogRow, RobotsCache};
use url::Url;

/// What robots.txt says about one URL.
pub(crate) enum RobotsCheck {
    /// The file (stored, or read just now) was consulted.
    Checked {
        gate: RobotsGate,
        /// The crawl-delay the file asks of this profile's token.
        crawl_delay: Option<Duration>,
        /// The file was asked for just now and got no answer at all: the host did not answer,
        /// which is what a read that stops here reports (not a refusal by the file).
        unanswered: Option<TransportError>,
    },
    /// robots.txt (or a redirect hop of it) was not requested: the address guard or a
    /// do-not-crawl rule refused it, with the reason.
    NotSent(String),
}

impl Crawler {
    /// Whether `url` (a feed, or a redirect hop of one) may be fetched now under its origin's
    /// robots.txt (FF11: checked for every origin before fetching, redirect destinations
    /// included), reading the file first when there is no fresh copy (DFB7), with the
    /// crawl-delay the file asks of this profile's token. `feed` is the feed the request is
    /// for, for its do-not-crawl rules.
    pub(crate) async fn robots_gate(
        &self,
        url: &Url,
        feed: Option<FeedId>,
        user_agent: Option<&str>,
    ) -> Result<RobotsCheck, CrawlError> {
        let mut unanswered = None;
        let origin = HostKey::of(url);
        let stored = self.store.robots(origin.as_str()).await?;
        let cache = match stored {
            Some(cache)
                if !needs_refetch(Some(cache.fetched_at), self.now(), &self.profile)
                    && !deferred_copy_is_due(
                        cache.status.and_then(|s| u16::try_from(s).ok()),
                        cache.fetched_at,
                        self.now(),
                        &self.profile,
                    ) =>
            {
                cache
            }
            stale => {
                let mut robots_url = url.clone();
                robots_url.set_path("/robots.txt");
                robots_url.set_query(None);
                robots_url.set_fragment(None);
                // Redirects are followed here, hop by hop (RFC 9309 allows five), so each
                // request waits for its own host's turn and is checked and logged.
                let (response, hops) =
                    match self.fetch_robots(&robots_url, feed, user_agent).await? {
                        Ok(fetched) => fetched,
                        Err(reason) => {
                            // The file (or a hop of it) was not requested: the target is refused
                            // by the address guard or a do-not-crawl rule, and without the file no
                            // feed of this origin is fetched (FF11).
                            return Ok(RobotsCheck::NotSent(reason));
                        }
                    };
                if let FetchOutcome::Transport(error) = &response.outcome {
                    unanswered = Some(error.clone());
                }
                let body = match &response.outcome {
                    FetchOutcome::Fetched(f) => Some(String::from_utf8_lossy(&f.body).into_owned()),
                    _ => None,
                };
                // A 2xx whose body could not be read is an answer, kept as its status without
                // a body (the profile's rule for an unreadable file applies), not as silence.
                let status = match &response.outcome {
                    FetchOutcome::TooLarge { .. } => Some(200),
                    other => other.status(),
                };
                let cache = RobotsCache {
                    fetched_at: self.now(),
                    status: status.map(i32::from),
                    body,
                };
                let rule = match stale {
                    None => "robots.txt before the first feed of this origin (FF11)",
                    Some(old) if needs_refetch(Some(old.fetched_at), self.now(), &self.profile) => {
                        "robots.txt older than the profile's max_age (DFB7)"
                    }
                    Some(_) => "robots.txt asked again after a deferring failure (FF11)",
                };
                let mut rows: Vec<RequestLogRow> = hops
                    .iter()
                    .map(|hop| self.robots_row(&origin, hop, "redirect", rule))
                    .collect();
                rows.push(self.robots_row(&origin, &response, response.outcome.label(), rule));
                self.store
                    .save_robots(origin.as_str(), &cache, &rows)
                    .await?;
                cache
            }
        };
        let stored = StoredRobots {
            fetched_at: cache.fetched_at,
            status: cache.status.and_then(|s| u16::try_from(s).ok()),
            body: cache.body.as_deref().map(str::as_bytes),
        };
        let answer = gate_for_feed(&stored, path_and_query(url), &self.profile);
        Ok(RobotsCheck::Checked {
            gate: answer.gate,
            crawl_delay: answer.crawl_delay,
            unanswered,
        })
    }

    /// Request `robots_url`, following redirects one hop at a time: each hop is checked
    /// against the do-not-crawl rules, waits for its own host's turn and is returned for the
    /// log. A URL seen before in the chain, or one hop more than the profile allows, ends the
    /// chain with the 3xx as the answer. `Err(reason)` when a request was refused before it
    /// was sent.
    async fn fetch_robots(
        &self,
        robots_url: &Url,
        feed: Option<FeedId>,
        user_agent: Option<&str>,
    ) -> Result<Result<(FetchResponse, Vec<FetchResponse>), String>, CrawlError> {
        let max_hops = usize::from(self.fetcher.config().max_redirects);
        let gap = host_gap(&self.profile, None, false);
        let mut target = robots_url.clone();
        let mut hops: Vec<FetchResponse> = Vec::new();
        loop {
            if let Some(reason) = self.blocked(&target, feed).await? {
                return Ok(Err(reason));
            }
            let request = FetchRequest {
                follow_redirects: false,
                user_agent: user_agent.map(str::to_owned),
                ..FetchRequest::new(target.clone())
            };
            let response = {
                let _permit = self.host_turn(&target, gap).await;
                self.send(&request, "robots").await
            };
            if let FetchOutcome::Blocked { reason } = &response.outcome {
                return Ok(Err(reason.clone()));
            }
            if let Some(next) = response.redirect_target() {
                let seen = next == *robots_url || hops.iter().any(|h| h.final_url == next);
                if !seen && hops.len() < max_hops {
                    hops.push(response);
                    target = next;
                    continue;
                }
            }
            return Ok(Ok((response, hops)));
        }
    }

    /// The request-log row of one robots.txt request (C7).
    fn robots_row(
        &self,
        origin: &HostKey,
        response: &FetchResponse,
        outcome: &str,
        rule: &str,
    ) -> RequestLogRow {
        let rule = if HostKey::of(&response.final_url) == *origin {
            rule.to_string()
        } else {
            format!("{rule}; redirected from {origin}")
        };
        let mut row = request_row(None, "robots", response, outcome, rule);
        row.at = self.config.clock.crawler_time_of(row.at);
        row
    }
}
