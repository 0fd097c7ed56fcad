//! What becomes of an article page or icon after one answer (SR4, SR6): done, asked again
//! soon, or left alone for a while, each with its reason. The memory is per URL: a page is
//! read once (SR1), so a failure is remembered rather than retried on every refresh.
//!
//! - SR4: a permanent failure (404, 410, and the other refusals of the page itself: 401, 403,
//!   another 4xx) is remembered for `pages.remember_failure` (30 days); a temporary one (no
//!   answer, a failed answer, 5xx but 503) is asked again after each of `pages.retry_steps`
//!   (about 30 s, 1 min, 2 min), then held for `pages.hold_after_retries` (at least an hour).
//! - SR6: 429 and 503 are asked again after each of `pages.throttle_steps` (three within about
//!   3.5 minutes), then held for the Retry-After the last answer gave, at most
//!   `pages.throttle_hold_max` (7 days), or that long without one. A Retry-After longer than a
//!   step is a floor under that retry too (C6: the answer's wait is never shortened).

use crate::profile::PagesSettings;
use chrono::{DateTime, Duration, Utc};
use tidings_model::FetchOutcome;

/// What to do with a page's URL after an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageNext {
    /// The page was read: nothing more to ask of it.
    Done,
    /// Ask again at `at`; `retries` is how many retries this one makes.
    Retry {
        at: DateTime<Utc>,
        retries: u32,
        reason: String,
    },
    /// Leave the URL alone until `until`.
    Hold {
        until: DateTime<Utc>,
        reason: String,
    },
}

/// What follows `outcome`, the answer to a page request that had been retried `retries` times
/// already (0 for the first request).
pub fn after_answer(
    outcome: &FetchOutcome,
    retries: u32,
    now: DateTime<Utc>,
    pages: &PagesSettings,
) -> PageNext {
    let at = |s: u64| later(now, s);
    let status = outcome
        .status()
        .map_or_else(|| "no answer".to_owned(), |s| s.to_string());
    match outcome {
        FetchOutcome::Fetched(_) | FetchOutcome::NotModified { .. } => PageNext::Done,
        // SR6: throttled; a few quick retries, then the publisher's wait, bounded.
        FetchOutcome::Refused { status: 429, .. }
        | FetchOutcome::ServerError { status: 503, .. }
        | FetchOutcome::Challenge {
            status: 429 | 503, ..
        } => match pages.throttle_steps.get(retries as usize) {
            // C6: a Retry-After is a floor under the quick retries too.
            Some(&step) => match outcome.retry_after().map(|r| r.wait_secs(now)) {
                Some(asked) if asked > step => PageNext::Retry {
                    at: at(asked.min(pages.throttle_hold_max)),
                    retries: retries + 1,
                    reason: format!(
                        "SR6 {status}: retry {} of {} after its Retry-After {asked}s (C6)",
                        retries + 1,
                        pages.throttle_steps.len()
                    ),
                },
                _ => PageNext::Retry {
                    at: at(step),
                    retries: retries + 1,
                    reason: format!(
                        "SR6 {status}: retry {} of {} in {step}s",
                        retries + 1,
                        pages.throttle_steps.len()
                    ),
                },
            },
            None => {
                let most = pages.throttle_hold_max;
                let (wait, why) = match outcome.retry_after() {
                    Some(r) => {
                        let asked = r.wait_secs(now);
                        if asked > most {
                            (most, format!("Retry-After {asked}s capped at {most}s"))
                        } else {
                            (asked, format!("Retry-After {asked}s"))
                        }
                    }
                    None => (most, format!("no Retry-After: {most}s")),
                };
                PageNext::Hold {
                    until: at(wait),
                    reason: format!("SR6 {status} after {retries} retries: {why}"),
                }
            }
        },
        // SR4: temporary; retried a few times, then held.
        FetchOutcome::Transport(_)
        | FetchOutcome::FailedAnswer { .. }
        | FetchOutcome::BadBody { .. }
        | FetchOutcome::ServerError { .. }
        | FetchOutcome::CrawlerPaused { .. } => temporary(&status, retries, now, pages),
        // SR4: permanent, remembered: the page is gone, refused, or no page we can read.
        FetchOutcome::NotFound
        | FetchOutcome::Gone
        | FetchOutcome::Refused { .. }
        | FetchOutcome::Challenge { .. }
        | FetchOutcome::ClientError { .. }
        | FetchOutcome::Redirect { .. }
        | FetchOutcome::TooLarge { .. }
        | FetchOutcome::Blocked { .. } => PageNext::Hold {
            until: at(pages.remember_failure),
            reason: format!(
                "SR4 {}: remembered {}s",
                outcome.label(),
                pages.remember_failure
            ),
        },
    }
}

/// The well-known places of a site's icon, asked after the one its feed declares (SR1).
pub const ICON_PATHS: [&str; 3] = [
    "/favicon.ico",
    "/apple-touch-icon.png",
    "/apple-touch-icon-precomposed.png",
];

/// A site's icon candidates in the order they are asked, one at a time (SR1): the icon the
/// feed declares (an http(s) URL), then [`ICON_PATHS`] at the site's origin; each once.
pub fn icon_candidates(site: &url::Url, declared: Option<&str>) -> Vec<url::Url> {
    let mut candidates: Vec<url::Url> = declared
        .and_then(|d| site.join(d.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .into_iter()
        .collect();
    for path in ICON_PATHS {
        if let Ok(url) = site.join(path)
            && !candidates.contains(&url)
        {
            candidates.push(url);
        }
    }
    candidates
}

/// `secs` seconds after `now`, or the end of time.
pub fn later(now: DateTime<Utc>, secs: u64) -> DateTime<Utc> {
    i64::try_from(secs)
        .ok()
        .and_then(Duration::try_seconds)
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// A temporary failure (SR4): asked again after each of `pages.retry_steps`, then held for
/// `pages.hold_after_retries`. `what` names it in the reason.
pub fn temporary(what: &str, retries: u32, now: DateTime<Utc>, pages: &PagesSettings) -> PageNext {
    let at = |s: u64| later(now, s);
    match pages.retry_steps.get(retries as usize) {
        Some(&step) => PageNext::Retry {
            at: at(step),
            retries: retries + 1,
            reason: format!(
                "SR4 {what}: retry {} of {} in {step}s",
                retries + 1,
                pages.retry_steps.len()
            ),
        },
        None => PageNext::Hold {
            until: at(pages.hold_after_retries),
            reason: format!(
                "SR4 {what} after {retries} retries: held {}s",
                pages.hold_after_retries
            ),
        },
    }
}

/// The answer came but its body is not what was asked for (no HTML page, no image, larger
/// than allowed): a permanent failure of that URL, remembered (SR4).
pub fn unusable(why: &str, now: DateTime<Utc>, pages: &PagesSettings) -> PageNext {
    PageNext::Hold {
        until: later(now, pages.remember_failure),
        reason: format!("SR4 {why}: remembered {}s", pages.remember_failure),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;
    use tidings_model::{RetryAfter, TransportError};

    fn now() -> DateTime<Utc> {
        "2030-01-01T00:00:00Z".parse().unwrap()
    }

    fn pages() -> PagesSettings {
        Profile::embedded("serenereader").unwrap().pages
    }

    /// (kind, seconds after now) of what follows.
    fn next(outcome: &FetchOutcome, retries: u32) -> (&'static str, i64) {
        match after_answer(outcome, retries, now(), &pages()) {
            PageNext::Done => ("done", 0),
            PageNext::Retry { at, .. } => ("retry", (at - now()).num_seconds()),
            PageNext::Hold { until, .. } => ("hold", (until - now()).num_seconds()),
        }
    }

    const DAY: i64 = 86_400;

    #[test]
    fn sr4_permanent_failures_are_remembered_30_days() {
        for outcome in [
            FetchOutcome::NotFound,
            FetchOutcome::Gone,
            FetchOutcome::ClientError { status: 401 },
            FetchOutcome::Refused {
                status: 403,
                retry_after: None,
            },
        ] {
            assert_eq!(next(&outcome, 0), ("hold", 30 * DAY), "{outcome:?}");
        }
    }

    #[test]
    fn sr4_temporary_failures_retry_three_times_then_hold_an_hour() {
        let timeout = FetchOutcome::Transport(TransportError::Timeout);
        let five_hundred = FetchOutcome::ServerError {
            status: 500,
            retry_after: None,
        };
        for outcome in [timeout, five_hundred] {
            let waits: Vec<_> = (0..4).map(|r| next(&outcome, r)).collect();
            assert_eq!(
                waits,
                [("retry", 30), ("retry", 60), ("retry", 120), ("hold", 3600)],
                "{outcome:?}"
            );
        }
        let PageNext::Hold { reason, .. } = after_answer(
            &FetchOutcome::Transport(TransportError::Timeout),
            3,
            now(),
            &pages(),
        ) else {
            panic!("held");
        };
        assert_eq!(reason, "SR4 no answer after 3 retries: held 3600s");
    }

    #[test]
    fn sr1_icon_candidates_are_the_declared_icon_then_the_well_known_paths() {
        let site = url::Url::parse("https://example.org/blog/").unwrap();
        let names = |declared| -> Vec<String> {
            icon_candidates(&site, declared)
                .iter()
                .map(|u| u.to_string())
                .collect()
        };
        assert_eq!(
            names(Some("https://cdn.example.org/i.png")),
            [
                "https://cdn.example.org/i.png",
                "https://example.org/favicon.ico",
                "https://example.org/apple-touch-icon.png",
                "https://example.org/apple-touch-icon-precomposed.png",
            ]
        );
        assert_eq!(names(Some("/favicon.ico")).len(), 3, "each once");
        assert_eq!(names(Some("javascript:alert(1)")).len(), 3, "http(s) only");
        assert_eq!(names(None)[0], "https://example.org/favicon.ico");
    }

    #[test]
    fn sr4_a_body_that_is_not_what_was_asked_for_is_remembered() {
        let PageNext::Hold { until, reason } = unusable("not an image", now(), &pages()) else {
            panic!("held");
        };
        assert_eq!((until - now()).num_seconds(), 30 * DAY);
        assert_eq!(reason, "SR4 not an image: remembered 2592000s");
    }

    #[test]
    fn sr6_throttled_pages_retry_within_minutes_then_wait_retry_after_capped_at_7_days() {
        let throttled = |retry_after| FetchOutcome::Refused {
            status: 429,
            retry_after,
        };
        let retries: Vec<_> = (0..3).map(|r| next(&throttled(None), r)).collect();
        assert_eq!(retries, [("retry", 30), ("retry", 60), ("retry", 120)]);
        let within: i64 = retries.iter().map(|(_, s)| s).sum();
        assert!(within <= 215, "about 3.5 minutes: {within}s");
        assert_eq!(next(&throttled(None), 3), ("hold", 7 * DAY));
        assert_eq!(
            next(&throttled(Some(RetryAfter::Seconds(7200))), 3),
            ("hold", 7200)
        );
        assert_eq!(
            next(&throttled(Some(RetryAfter::Seconds(30 * 86_400))), 3),
            ("hold", 7 * DAY)
        );
        let unavailable = FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(RetryAfter::At(now() + Duration::hours(5))),
        };
        assert_eq!(next(&unavailable, 3), ("hold", 5 * 3600));
        // C6: a Retry-After longer than the step is a floor under the retry too.
        assert_eq!(next(&unavailable, 0), ("retry", 5 * 3600));
        assert_eq!(
            next(&throttled(Some(RetryAfter::Seconds(10))), 0),
            ("retry", 30)
        );
        assert_eq!(
            next(&throttled(Some(RetryAfter::Seconds(30 * 86_400))), 1),
            ("retry", 7 * DAY),
            "capped as the hold is"
        );
    }

    #[test]
    fn page_settings_are_bounded() {
        for bad in [
            "[pages]\nretry_steps = [0]",
            "[pages]\nthrottle_steps = [1,1,1,1,1,1,1,1,1,1,1]",
            "[pages]\nremember_failure = 0",
            "[pages]\nmax_page_bytes = 0",
        ] {
            let text = format!("name = \"t\"\n{bad}\n");
            let err = Profile::from_toml(&text).unwrap_err().to_string();
            assert!(err.contains("pages."), "{bad}: {err}");
        }
        assert_eq!(
            Profile::from_toml("name = \"t\"\n").unwrap().pages,
            PagesSettings::default()
        );
    }

    #[test]
    fn a_page_read_is_done() {
        let ok = FetchOutcome::Fetched(tidings_model::Fetched {
            status: 200,
            body: Vec::new(),
            content_type: Some("text/html".into()),
            validators: Default::default(),
            cache: Default::default(),
            rights: None,
        });
        assert_eq!(next(&ok, 0), ("done", 0));
    }
}
