//! What one request to a publisher produced, classified into a closed set.
//!
//! `tidings-fetch` builds a [`FetchOutcome`] in one pure function from the status, the headers
//! and the body (or the transport error); everything downstream matches on it exhaustively.

use crate::Label;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// HTTP cache validators, stored exactly as received and echoed exactly (C4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// A `Retry-After` header as sent: delta seconds or an HTTP-date (C6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfter {
    Seconds(u64),
    At(DateTime<Utc>),
}

impl RetryAfter {
    /// How many seconds after `now` the resource may be asked again, saturating: a value too
    /// large to count is the largest wait, never none (C6). A date in the past is 0.
    pub fn wait_secs(self, now: DateTime<Utc>) -> u64 {
        match self {
            RetryAfter::Seconds(s) => s,
            RetryAfter::At(t) => u64::try_from((t - now).num_seconds()).unwrap_or(0),
        }
    }

    /// The earliest time the resource may be asked again, but never later than `cap` after
    /// `now`: a value years away is a mistake (or an attack on the scheduler), and no value may
    /// overflow the clock.
    pub fn not_before(self, now: DateTime<Utc>, cap: chrono::Duration) -> DateTime<Utc> {
        let latest = now
            .checked_add_signed(cap)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let wanted = match self {
            RetryAfter::Seconds(s) => i64::try_from(s)
                .ok()
                .and_then(chrono::Duration::try_seconds)
                .and_then(|d| now.checked_add_signed(d))
                .unwrap_or(latest),
            RetryAfter::At(t) => t.max(now),
        };
        wanted.min(latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c6_pf3_instants_the_publisher_sent_are_mapped_and_nothing_else() {
        let at: DateTime<Utc> = "2030-01-01T00:00:00Z".parse().unwrap();
        let later = |t: DateTime<Utc>| t + chrono::Duration::hours(1);
        let throttled = FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(RetryAfter::At(at)),
        };
        assert_eq!(
            throttled.map_instants(later).retry_after(),
            Some(RetryAfter::At(later(at)))
        );
        let counted = FetchOutcome::Refused {
            status: 429,
            retry_after: Some(RetryAfter::Seconds(30)),
        };
        assert_eq!(counted.clone().map_instants(later), counted);
        let fresh = FetchOutcome::NotModified {
            validators: Validators::default(),
            cache: CacheHints {
                max_age: Some(60),
                expires: Some(at),
            },
            rights: None,
        };
        let FetchOutcome::NotModified { cache, .. } = fresh.map_instants(later) else {
            unreachable!()
        };
        assert_eq!(cache.expires, Some(later(at)));
        assert_eq!(cache.max_age, Some(60));
    }

    #[test]
    fn c6_retry_after_is_bounded_and_never_overflows() {
        let now: DateTime<Utc> = "2030-01-01T00:00:00Z".parse().unwrap();
        let cap = chrono::Duration::days(30);
        let cases = [
            (
                RetryAfter::Seconds(120),
                now + chrono::Duration::seconds(120),
            ),
            (RetryAfter::Seconds(99_999_999_999_999_999), now + cap),
            (RetryAfter::Seconds(9_000_000_000_000), now + cap),
            (RetryAfter::Seconds(u64::MAX), now + cap),
            (RetryAfter::At(now - chrono::Duration::hours(1)), now),
            (RetryAfter::At(DateTime::<Utc>::MAX_UTC), now + cap),
        ];
        for (retry_after, want) in cases {
            assert_eq!(retry_after.not_before(now, cap), want, "{retry_after:?}");
        }
        let waits = [
            (RetryAfter::Seconds(60), 60),
            (RetryAfter::Seconds(u64::MAX), u64::MAX),
            (
                RetryAfter::At(now + chrono::Duration::days(60)),
                60 * 86_400,
            ),
            (RetryAfter::At(now - chrono::Duration::days(1)), 0),
            (
                RetryAfter::At(DateTime::<Utc>::MAX_UTC),
                (DateTime::<Utc>::MAX_UTC - now).num_seconds() as u64,
            ),
            (RetryAfter::At(DateTime::<Utc>::MIN_UTC), 0),
        ];
        for (retry_after, want) in waits {
            assert_eq!(retry_after.wait_secs(now), want, "{retry_after:?}");
        }
        let near_the_end = DateTime::<Utc>::MAX_UTC - chrono::Duration::days(1);
        assert_eq!(
            RetryAfter::Seconds(u64::MAX).not_before(near_the_end, cap),
            DateTime::<Utc>::MAX_UTC
        );
    }
}

/// Freshness hints a response carried (PF3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheHints {
    /// `Cache-Control: max-age` in seconds.
    pub max_age: Option<u64>,
    /// `Expires`.
    pub expires: Option<DateTime<Utc>>,
}

/// What a response said of what may be done with it, as sent (FF14, DFB2): read by the
/// `rights` crate. Boxed in an `Option` by the answers that carry it: most responses send
/// none of these headers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RightsHeaders {
    /// `X-Robots-Tag` values, one per header line.
    pub x_robots_tag: Vec<String>,
    /// TDMRep `tdm-reservation` values.
    pub tdm_reservation: Vec<String>,
    /// TDMRep `tdm-policy` values.
    pub tdm_policy: Vec<String>,
}

impl RightsHeaders {
    pub fn is_empty(&self) -> bool {
        self.x_robots_tag.is_empty()
            && self.tdm_reservation.is_empty()
            && self.tdm_policy.is_empty()
    }
}

/// A 2xx answer with its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub status: u16,
    pub body: Vec<u8>,
    /// `Content-Type` as sent.
    pub content_type: Option<String>,
    pub validators: Validators,
    pub cache: CacheHints,
    /// The rights headers, when the response sent any.
    pub rights: Option<Box<RightsHeaders>>,
}

/// Why no answer came back at all (WFM5: only these may be tried a second time early).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum TransportError {
    #[error("name resolution failed: {0}")]
    Dns(String),
    #[error("connection failed: {0}")]
    Connect(String),
    #[error("timed out")]
    Timeout,
    #[error("tls failed: {0}")]
    Tls(String),
    #[error("connection broke: {0}")]
    Io(String),
}

/// How an answer that had begun could not be used (WFM4: it was an answer, not silence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerFailure {
    /// The status line and headers arrived, then the body stopped arriving or came too slowly
    /// to end within the read's time (a body dripping a byte a second, a stall).
    Stalled,
    /// The server sent a response head larger than the client reads (hundreds of KiB of
    /// headers): it spoke, so this is an answer, whether or not its status line was readable.
    HeadTooLarge,
}

/// The closed set of things a fetch can end in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// 2xx with a body within the cap.
    Fetched(Fetched),
    /// 304: nothing changed; no parsing, no entry changes (C4).
    NotModified {
        validators: Validators,
        cache: CacheHints,
        /// The rights headers of the 304 itself (FF14: they may add restrictions).
        rights: Option<Box<RightsHeaders>>,
    },
    /// 3xx with a Location (followed hop by hop by the fetcher; seen here only past the limit).
    Redirect {
        status: u16,
        location: Option<String>,
    },
    /// 403 or 429: the publisher said no (WFM6, PF5, PF6).
    Refused {
        status: u16,
        retry_after: Option<RetryAfter>,
    },
    /// A bot challenge page instead of the resource: 403, 429 or 503 marked
    /// `cf-mitigated: challenge`. A refusal, not a parse error.
    Challenge {
        status: u16,
        retry_after: Option<RetryAfter>,
    },
    /// 404.
    NotFound,
    /// 410: the feed is gone for good.
    Gone,
    /// Any other 4xx, 401 included (PF7).
    ClientError { status: u16 },
    /// 5xx (503 may carry Retry-After).
    ServerError {
        status: u16,
        retry_after: Option<RetryAfter>,
    },
    /// The body passed the size cap (after decompression); nothing of it is used.
    TooLarge { limit: u64 },
    /// The body could not be read or decoded (bad gzip, broken chunking) after a status line.
    BadBody { status: u16, detail: String },
    /// An answer began and failed before it could be used: counted as a failed answer on the
    /// failure ladders, never tried again early (WFM4). `status` when the head was read.
    FailedAnswer {
        status: Option<u16>,
        failure: AnswerFailure,
    },
    /// No answer at all.
    Transport(TransportError),
    /// The read failed because the crawler itself was not running (stopped by SIGSTOP, a
    /// suspended machine): it ended `overran_secs` after its own deadline, far beyond any
    /// timer's lateness. Nobody is blamed: no failure, read again soon.
    CrawlerPaused { overran_secs: u64 },
    /// The request was not sent: the target is not allowed (address guard, do-not-crawl).
    Blocked { reason: String },
}

impl FetchOutcome {
    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchOutcome::Fetched(f) => Some(f.status),
            FetchOutcome::NotModified { .. } => Some(304),
            FetchOutcome::Redirect { status, .. }
            | FetchOutcome::Refused { status, .. }
            | FetchOutcome::Challenge { status, .. }
            | FetchOutcome::ClientError { status }
            | FetchOutcome::ServerError { status, .. }
            | FetchOutcome::BadBody { status, .. } => Some(*status),
            FetchOutcome::NotFound => Some(404),
            FetchOutcome::Gone => Some(410),
            FetchOutcome::FailedAnswer { status, .. } => *status,
            FetchOutcome::TooLarge { .. }
            | FetchOutcome::Transport(_)
            | FetchOutcome::CrawlerPaused { .. }
            | FetchOutcome::Blocked { .. } => None,
        }
    }

    /// True when the server did not answer at all (WFM5's one early retry is allowed only then).
    /// A failed answer (a body that stalled, a head too large) is an answer: false.
    pub fn is_no_answer(&self) -> bool {
        matches!(self, FetchOutcome::Transport(_))
    }

    /// The outcome's [`Label`] for logs and counters.
    pub fn label(&self) -> Label {
        match self {
            FetchOutcome::Fetched(_) => Label::Ok,
            FetchOutcome::NotModified { .. } => Label::NotModified,
            FetchOutcome::Redirect { .. } => Label::Redirect,
            FetchOutcome::Refused { .. } => Label::Refused,
            FetchOutcome::Challenge { .. } => Label::Challenge,
            FetchOutcome::NotFound => Label::NotFound,
            FetchOutcome::Gone => Label::Gone,
            FetchOutcome::ClientError { .. } => Label::ClientError,
            FetchOutcome::ServerError { .. } => Label::ServerError,
            FetchOutcome::TooLarge { .. } => Label::TooLarge,
            FetchOutcome::BadBody { .. } => Label::BadBody,
            FetchOutcome::FailedAnswer {
                failure: AnswerFailure::Stalled,
                ..
            } => Label::StalledAnswer,
            FetchOutcome::FailedAnswer {
                failure: AnswerFailure::HeadTooLarge,
                ..
            } => Label::HeadTooLarge,
            FetchOutcome::Transport(_) => Label::NoAnswer,
            FetchOutcome::CrawlerPaused { .. } => Label::CrawlerPaused,
            FetchOutcome::Blocked { .. } => Label::Blocked,
        }
    }

    /// This outcome with every absolute instant the publisher sent (a Retry-After date,
    /// `Expires`) passed through `map`: a crawler whose clock is not the wall clock
    /// (`--time-scale`) reads them on its own clock as it reads its own time.
    #[must_use]
    pub fn map_instants(mut self, map: impl Fn(DateTime<Utc>) -> DateTime<Utc>) -> FetchOutcome {
        match &mut self {
            FetchOutcome::Refused { retry_after, .. }
            | FetchOutcome::Challenge { retry_after, .. }
            | FetchOutcome::ServerError { retry_after, .. } => {
                if let Some(RetryAfter::At(at)) = retry_after {
                    *at = map(*at);
                }
            }
            FetchOutcome::Fetched(Fetched { cache, .. })
            | FetchOutcome::NotModified { cache, .. } => {
                cache.expires = cache.expires.map(&map);
            }
            _ => {}
        }
        self
    }

    /// Retry-After carried by the answer, if any.
    pub fn retry_after(&self) -> Option<RetryAfter> {
        match self {
            FetchOutcome::Refused { retry_after, .. }
            | FetchOutcome::Challenge { retry_after, .. }
            | FetchOutcome::ServerError { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
