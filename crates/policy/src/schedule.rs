//! After an answer: when to read the feed next, and why.
//!
//! [`decide`] is the one function that turns (state, outcome, body verdict, now, profile) into a
//! [`Decision`]. Its rules, in order:
//! - 410 switches the feed off.
//! - A success (200 with a feed, 304, unchanged body) resets the failure count and schedules the
//!   profile's interval.
//! - Anything else is a failure: the wait doubles per consecutive failure from
//!   `backoff.first` up to `backoff.max`, and is never shorter than the normal interval, so a
//!   refusal never brings a read forward.
//! - Retry-After (C6) is a floor under whatever was decided.
//!
//! The politeness issue extends this with the profiles' ladders, pauses and hints.

use crate::conditional;
use crate::profile::Profile;
use chrono::{DateTime, Duration, Utc};
use tidings_model::{FetchOutcome, Validators};

/// The part of a feed's stored state that scheduling reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedSchedule {
    pub interval_secs: u64,
    pub consecutive_failures: u32,
    pub validators: Validators,
}

/// What became of a 200's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyVerdict {
    /// No body to judge (not a 200).
    NotApplicable,
    /// Parsed as a feed.
    Parsed,
    /// Same bytes as last time: nothing parsed (C5).
    Unchanged,
    /// Not a feed we can read.
    Unparseable(String),
}

/// Whether the feed keeps being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    Active,
    /// Switched off until an operator acts.
    Off,
}

/// What the crawler stores after one read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub next_fetch_at: DateTime<Utc>,
    /// Human-readable: "interval 1h", "failure 3: backoff 1h", "Retry-After 120s".
    pub reason: String,
    pub interval_secs: u64,
    pub consecutive_failures: u32,
    pub lifecycle: Lifecycle,
    pub lifecycle_reason: Option<String>,
    /// Validators to store; `None` keeps the stored ones.
    pub validators: Option<Validators>,
}

/// The schedule of a feed that was just added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstFetch {
    pub next_fetch_at: DateTime<Utc>,
    pub reason: String,
    pub interval_secs: u64,
}

/// When a newly added feed is read: at once, with the profile's interval to start from.
pub fn first_fetch(now: DateTime<Utc>, profile: &Profile) -> FirstFetch {
    FirstFetch {
        next_fetch_at: now,
        reason: "first add".into(),
        interval_secs: profile.schedule.default_interval,
    }
}

/// Decide what follows one read. See the module docs for the rules.
pub fn decide(
    state: &FeedSchedule,
    outcome: &FetchOutcome,
    body: &BodyVerdict,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Decision {
    let interval = profile
        .schedule
        .default_interval
        .clamp(profile.schedule.min_interval, profile.schedule.max_interval);
    let unparseable = matches!(body, BodyVerdict::Unparseable(_));
    let validators = match outcome {
        // A body that is no feed must not be validated: its 304s would pass for success.
        FetchOutcome::Fetched(_) if unparseable => None,
        FetchOutcome::Fetched(f) => Some(f.validators.clone()),
        FetchOutcome::NotModified { validators, .. } => Some(conditional::after_not_modified(
            &state.validators,
            validators,
        )),
        _ => None,
    };
    let success = match outcome {
        FetchOutcome::Fetched(_) => !unparseable,
        FetchOutcome::NotModified { .. } => true,
        _ => false,
    };

    if matches!(outcome, FetchOutcome::Gone) {
        return Decision {
            next_fetch_at: now + secs(profile.schedule.max_interval),
            reason: "off: 410 gone".into(),
            interval_secs: interval,
            consecutive_failures: state.consecutive_failures.saturating_add(1),
            lifecycle: Lifecycle::Off,
            lifecycle_reason: Some("the server answered 410 Gone".into()),
            validators,
        };
    }

    let (mut next, mut reason, failures) = if success {
        (
            now + secs(interval),
            format!("interval {}", human(interval)),
            0,
        )
    } else {
        let failures = state.consecutive_failures.saturating_add(1);
        let label = if unparseable {
            "parse_error"
        } else {
            outcome.label()
        };
        let wait = backoff(profile, failures).max(interval);
        (
            now + secs(wait),
            format!("failure {failures} ({label}): backoff {}", human(wait)),
            failures,
        )
    };
    if let Some(retry_after) = outcome.retry_after() {
        let floor = retry_after.not_before(now, secs(profile.backoff.retry_after_max));
        if floor > next {
            next = floor;
            reason = format!("Retry-After {}s", (floor - now).num_seconds());
        }
    }
    Decision {
        next_fetch_at: next,
        reason,
        interval_secs: interval,
        consecutive_failures: failures,
        lifecycle: Lifecycle::Active,
        lifecycle_reason: None,
        validators,
    }
}

/// The floor a 429 or 503 with Retry-After sets for every request to its host (C6): the
/// server said it is busy, not only this feed.
pub fn host_floor(
    outcome: &FetchOutcome,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Option<DateTime<Utc>> {
    match outcome {
        FetchOutcome::Refused {
            status: 429,
            retry_after: Some(ra),
        }
        | FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(ra),
        } => Some(ra.not_before(now, secs(profile.backoff.retry_after_max))),
        _ => None,
    }
}

/// A feed not read because its host asked everyone to wait (C6): it is read at the floor,
/// and nothing else about it changes (this is not a failure of the feed).
pub fn postpone(state: &FeedSchedule, until: DateTime<Utc>, now: DateTime<Utc>) -> Decision {
    Decision {
        next_fetch_at: until.max(now),
        reason: format!(
            "host Retry-After until {}",
            until.format("%Y-%m-%d %H:%M:%S UTC")
        ),
        interval_secs: state.interval_secs,
        consecutive_failures: state.consecutive_failures,
        lifecycle: Lifecycle::Active,
        lifecycle_reason: None,
        validators: None,
    }
}

/// The wait after `failures` consecutive failures: `first * 2^(failures-1)`, capped at `max`.
fn backoff(profile: &Profile, failures: u32) -> u64 {
    let doublings = failures.saturating_sub(1).min(40);
    profile
        .backoff
        .first
        .saturating_mul(1u64 << doublings)
        .min(profile.backoff.max)
}

fn secs(s: u64) -> Duration {
    Duration::seconds(
        i64::try_from(s)
            .unwrap_or(i64::MAX / 1000)
            .min(100 * 365 * 86_400),
    )
}

/// `90` → `1m30s`, `3600` → `1h`, `86400` → `1d`.
pub fn human(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    for (n, unit) in [(d, "d"), (h, "h"), (m, "m"), (s, "s")] {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    if out.is_empty() { "0s".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidings_model::{CacheHints, Fetched, RetryAfter, TransportError};

    fn profile() -> Profile {
        Profile::embedded("default").unwrap()
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z")
            .unwrap()
            .into()
    }

    fn ok(etag: &str) -> FetchOutcome {
        FetchOutcome::Fetched(Fetched {
            status: 200,
            body: b"<rss/>".to_vec(),
            content_type: None,
            validators: Validators {
                etag: Some(etag.into()),
                last_modified: None,
            },
            cache: CacheHints::default(),
        })
    }

    fn state(failures: u32) -> FeedSchedule {
        FeedSchedule {
            interval_secs: 3600,
            consecutive_failures: failures,
            validators: Validators {
                etag: Some("\"old\"".into()),
                last_modified: Some("Mon, 31 Dec 2029 00:00:00 GMT".into()),
            },
        }
    }

    /// One row: state's failure count, outcome, body verdict → (seconds until next, reason, failures).
    fn check(failures: u32, outcome: FetchOutcome, body: BodyVerdict, want: (i64, &str, u32)) {
        let d = decide(&state(failures), &outcome, &body, now(), &profile());
        assert_eq!(
            (
                (d.next_fetch_at - now()).num_seconds(),
                d.reason.as_str(),
                d.consecutive_failures
            ),
            want,
            "{outcome:?}"
        );
    }

    #[test]
    fn success_schedules_the_interval_and_resets_failures() {
        check(
            3,
            ok("\"e\""),
            BodyVerdict::Parsed,
            (3600, "interval 1h", 0),
        );
        check(
            3,
            ok("\"e\""),
            BodyVerdict::Unchanged,
            (3600, "interval 1h", 0),
        );
        let not_modified = FetchOutcome::NotModified {
            validators: Validators::default(),
            cache: CacheHints::default(),
        };
        check(
            2,
            not_modified,
            BodyVerdict::NotApplicable,
            (3600, "interval 1h", 0),
        );
    }

    #[test]
    fn failures_back_off_doubling_and_never_below_the_interval() {
        let refused = || FetchOutcome::Refused {
            status: 403,
            retry_after: None,
        };
        check(
            0,
            refused(),
            BodyVerdict::NotApplicable,
            (3600, "failure 1 (refused): backoff 1h", 1),
        );
        check(
            2,
            refused(),
            BodyVerdict::NotApplicable,
            (3600, "failure 3 (refused): backoff 1h", 3),
        );
        check(
            3,
            refused(),
            BodyVerdict::NotApplicable,
            (7200, "failure 4 (refused): backoff 2h", 4),
        );
        check(
            30,
            refused(),
            BodyVerdict::NotApplicable,
            (86_400, "failure 31 (refused): backoff 1d", 31),
        );
        let unparseable = BodyVerdict::Unparseable("not a feed".into());
        check(
            0,
            ok("\"e\""),
            unparseable,
            (3600, "failure 1 (parse_error): backoff 1h", 1),
        );
        let timeout = FetchOutcome::Transport(TransportError::Timeout);
        check(
            4,
            timeout,
            BodyVerdict::NotApplicable,
            (14_400, "failure 5 (no_answer): backoff 4h", 5),
        );
    }

    #[test]
    fn c6_retry_after_is_a_floor() {
        let limited = |ra| FetchOutcome::Refused {
            status: 429,
            retry_after: Some(ra),
        };
        check(
            0,
            limited(RetryAfter::Seconds(7200)),
            BodyVerdict::NotApplicable,
            (7200, "Retry-After 7200s", 1),
        );
        // A Retry-After shorter than the backoff does not bring the read forward.
        check(
            0,
            limited(RetryAfter::Seconds(60)),
            BodyVerdict::NotApplicable,
            (3600, "failure 1 (refused): backoff 1h", 1),
        );
        let at = now() + Duration::hours(5);
        check(
            0,
            limited(RetryAfter::At(at)),
            BodyVerdict::NotApplicable,
            (18_000, "Retry-After 18000s", 1),
        );
    }

    #[test]
    fn a_new_feed_is_read_at_once_from_the_profiles_interval() {
        let mut p = profile();
        p.schedule.default_interval = 7200;
        let first = first_fetch(now(), &p);
        assert_eq!(
            (
                first.next_fetch_at,
                first.reason.as_str(),
                first.interval_secs
            ),
            (now(), "first add", 7200)
        );
    }

    #[test]
    fn c6_a_busy_host_sets_a_floor_for_all_its_feeds() {
        let p = profile();
        let ra = Some(RetryAfter::Seconds(600));
        let cases = [
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: ra,
                },
                Some(600),
            ),
            (
                FetchOutcome::ServerError {
                    status: 503,
                    retry_after: ra,
                },
                Some(600),
            ),
            (
                FetchOutcome::Refused {
                    status: 403,
                    retry_after: ra,
                },
                None,
            ),
            (
                FetchOutcome::ServerError {
                    status: 500,
                    retry_after: ra,
                },
                None,
            ),
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: None,
                },
                None,
            ),
        ];
        for (outcome, want) in cases {
            let got = host_floor(&outcome, now(), &p).map(|t| (t - now()).num_seconds());
            assert_eq!(got, want, "{outcome:?}");
        }
        let d = postpone(&state(2), now() + Duration::seconds(600), now());
        assert_eq!(d.next_fetch_at, now() + Duration::seconds(600));
        assert_eq!(
            d.consecutive_failures, 2,
            "waiting for the host is no failure of the feed"
        );
        assert_eq!(d.reason, "host Retry-After until 2030-01-01 00:10:00 UTC");
    }

    #[test]
    fn gone_switches_the_feed_off() {
        let d = decide(
            &state(0),
            &FetchOutcome::Gone,
            &BodyVerdict::NotApplicable,
            now(),
            &profile(),
        );
        assert_eq!(d.lifecycle, Lifecycle::Off);
        assert_eq!(d.reason, "off: 410 gone");
    }

    #[test]
    fn c4_validators_follow_the_answer() {
        let d = decide(
            &state(0),
            &ok("\"new\""),
            &BodyVerdict::Parsed,
            now(),
            &profile(),
        );
        assert_eq!(d.validators.unwrap().etag.as_deref(), Some("\"new\""));
        let d = decide(
            &state(0),
            &FetchOutcome::NotFound,
            &BodyVerdict::NotApplicable,
            now(),
            &profile(),
        );
        assert_eq!(d.validators, None, "errors keep the stored validators");
        let html = BodyVerdict::Unparseable("not a feed".into());
        let d = decide(&state(0), &ok("\"page\""), &html, now(), &profile());
        assert_eq!(
            d.validators, None,
            "a body that is no feed is not validated"
        );
    }

    #[test]
    fn human_durations() {
        for (s, want) in [
            (0, "0s"),
            (90, "1m30s"),
            (3600, "1h"),
            (86_400, "1d"),
            (90_061, "1d1h1m1s"),
        ] {
            assert_eq!(human(s), want);
        }
    }

    proptest::proptest! {
        /// C6: any Retry-After, however absurd, gives a floor within the profile's cap and
        /// never a panic.
        #[test]
        fn c6_any_retry_after_is_bounded(seconds in proptest::prelude::any::<u64>(), at in proptest::prelude::any::<i64>()) {
            let p = profile();
            let cap = p.backoff.retry_after_max as i64;
            let at = DateTime::from_timestamp(at % 253_402_300_799, 0).unwrap_or(now());
            for ra in [RetryAfter::Seconds(seconds), RetryAfter::At(at)] {
                let refused = FetchOutcome::Refused { status: 429, retry_after: Some(ra) };
                let d = decide(&state(0), &refused, &BodyVerdict::NotApplicable, now(), &p);
                let wait = (d.next_fetch_at - now()).num_seconds();
                proptest::prop_assert!(wait >= p.schedule.default_interval as i64);
                proptest::prop_assert!(wait <= cap.max(p.backoff.max as i64));
            }
        }

        /// A refusal never shortens the wait compared with a success, and the wait stays within
        /// the profile's bounds (or a Retry-After floor).
        #[test]
        fn refusal_never_shortens_the_wait(failures in 0u32..200, status in 400u16..600) {
            let p = profile();
            let good = decide(&state(failures), &ok("\"x\""), &BodyVerdict::Parsed, now(), &p);
            let bad = FetchOutcome::ServerError { status, retry_after: None };
            let d = decide(&state(failures), &bad, &BodyVerdict::NotApplicable, now(), &p);
            proptest::prop_assert!(d.next_fetch_at >= good.next_fetch_at);
            let wait = (d.next_fetch_at - now()).num_seconds();
            proptest::prop_assert!(wait >= p.schedule.min_interval as i64);
            proptest::prop_assert!(wait <= p.backoff.max.max(p.schedule.max_interval) as i64);
        }
    }
}
