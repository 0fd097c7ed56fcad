//! A web written out by hand, for comparing drivers: each host's robots.txt (one of the
//! model's [`RobotsKind`]s) and, per feed, the answers it gives one after another (the last
//! repeats), whatever the time.
//!
//! The simulation answers from a [`Script`] ([`Web::scripted`](crate::web::Web::scripted)), and
//! a test can serve the same script over HTTP to the crawler: both drive the one read machine,
//! so for a web whose answers do not depend on time they must make the same requests and the
//! same decisions, feed by feed ([`trace`]).

use crate::web::RobotsKind;
use tidings_model::{FetchOutcome, Label, RetryAfter, TransportError};

/// One answer of a scripted feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// 200 with body version `n` (the same version is the same bytes) and its own ETag; 304
    /// when the request echoes that ETag.
    Version(u64),
    /// This status with no Retry-After: 403, 404, 410, any other 4xx, 5xx.
    Status(u16),
    /// 429 or 503 with `Retry-After: <secs>`.
    RetryAfter { status: u16, secs: u64 },
    /// No answer at all (the request times out).
    NoAnswer,
}

impl Step {
    /// What the fetcher makes of this answer when it is not a 200 or 304 (as
    /// `tidings_fetch::classify` does); `None` for [`Step::Version`].
    pub fn outcome(self) -> Option<FetchOutcome> {
        let refusal = |status, retry_after| match status {
            403 | 429 => FetchOutcome::Refused {
                status,
                retry_after,
            },
            404 => FetchOutcome::NotFound,
            410 => FetchOutcome::Gone,
            400..=499 => FetchOutcome::ClientError { status },
            _ => FetchOutcome::ServerError {
                status,
                retry_after,
            },
        };
        Some(match self {
            Step::Version(_) => return None,
            Step::Status(status) => refusal(status, None),
            Step::RetryAfter { status, secs } => refusal(status, Some(RetryAfter::Seconds(secs))),
            Step::NoAnswer => FetchOutcome::Transport(TransportError::Timeout),
        })
    }
}

/// One scripted host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptHost {
    pub robots: RobotsKind,
    /// Each feed's answers in order; the last repeats. A feed with none answers 404.
    pub feeds: Vec<Vec<Step>>,
}

/// A scripted web: hosts in order, their feeds numbered across all hosts in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    pub hosts: Vec<ScriptHost>,
}

impl Script {
    /// Every feed as (host index, its steps), numbered as the simulation numbers them.
    pub fn feeds(&self) -> impl Iterator<Item = (u32, &[Step])> + '_ {
        self.hosts.iter().enumerate().flat_map(|(h, host)| {
            host.feeds
                .iter()
                .map(move |steps| (h as u32, steps.as_slice()))
        })
    }

    /// The step of the `hit`-th request (from 0) of a feed's `steps`.
    pub fn step(steps: &[Step], hit: usize) -> Step {
        steps
            .get(hit)
            .or(steps.last())
            .copied()
            .unwrap_or(Step::Status(404))
    }
}

/// One read of a feed, as a driver ended it: what it was labelled and why the next read is
/// when it is, with every absolute time in the reason replaced by `<time>` (the drivers' clocks
/// start at different instants).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    pub feed: u32,
    pub label: Label,
    pub reason: String,
}

impl TraceRow {
    pub fn new(feed: u32, label: Label, reason: &str) -> TraceRow {
        TraceRow {
            feed,
            label,
            reason: without_times(reason),
        }
    }
}

/// `reason` with each `YYYY-MM-DD HH:MM[:SS] UTC` replaced by `<time>`.
fn without_times(reason: &str) -> String {
    let bytes = reason.as_bytes();
    let mut out = String::with_capacity(reason.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &reason[i..];
        let shape = |s: &str, pattern: &str| {
            s.len() >= pattern.len()
                && s.bytes().zip(pattern.bytes()).all(|(c, p)| {
                    if p == b'9' {
                        c.is_ascii_digit()
                    } else {
                        c == p
                    }
                })
        };
        if shape(rest, "9999-99-99 99:99:99 UTC") {
            out.push_str("<time>");
            i += "9999-99-99 99:99:99 UTC".len();
        } else if shape(rest, "9999-99-99 99:99 UTC") {
            out.push_str("<time>");
            i += "9999-99-99 99:99 UTC".len();
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every read of every feed of `script` over `days` virtual days under `profile`, in order,
/// as the simulation drives the read machine.
pub fn trace(script: &Script, profile: &tidings_policy::Profile, days: u32) -> Vec<TraceRow> {
    let web = crate::web::Web::scripted(script, &profile.robots.token);
    let mut shard = crate::engine::Shard::new(&web, profile, days, 0, 1);
    shard.trace = Some(Vec::new());
    shard.run(&|_| {});
    shard.trace.take().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_times_leave_reasons_and_nothing_else_does() {
        assert_eq!(
            without_times("redirect target a: host Retry-After until 2030-01-01 10:00:00 UTC (C6)"),
            "redirect target a: host Retry-After until <time> (C6)"
        );
        assert_eq!(
            without_times("interval 1h; skipHours/skipDays until 2030-01-01 10:00 UTC"),
            "interval 1h; skipHours/skipDays until <time>"
        );
        assert_eq!(without_times("PF5 404 #2: 6h"), "PF5 404 #2: 6h");
        assert_eq!(without_times("é 2030-01-01"), "é 2030-01-01");
    }

    #[test]
    fn steps_repeat_the_last_and_classify_as_the_fetcher_does() {
        let steps = [Step::Version(1), Step::Status(404)];
        assert_eq!(Script::step(&steps, 0), Step::Version(1));
        assert_eq!(Script::step(&steps, 5), Step::Status(404));
        assert_eq!(Script::step(&[], 0), Step::Status(404));
        assert_eq!(Step::Status(404).outcome(), Some(FetchOutcome::NotFound));
        assert_eq!(
            Step::Status(401).outcome(),
            Some(FetchOutcome::ClientError { status: 401 })
        );
        assert_eq!(
            Step::RetryAfter {
                status: 503,
                secs: 60
            }
            .outcome(),
            Some(FetchOutcome::ServerError {
                status: 503,
                retry_after: Some(RetryAfter::Seconds(60))
            })
        );
        assert_eq!(Step::Version(3).outcome(), None);
    }
}
