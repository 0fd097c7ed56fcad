//! The one pure function that turns an answer into a [`FetchOutcome`], and the header readers
//! it uses. No I/O, no clock: status, headers and the body-read result in, a value out.
//!
//! Choices made here (the policy crate decides what they mean for the schedule):
//! - 304 carries the validators the 304 itself sent, often none: when they are empty the
//!   caller keeps the stored ones (a 304 does not erase validators).
//! - `Cache-Control: max-age` is reported only when no `no-cache` or `no-store` directive is
//!   present (those ask for revalidation, not a freshness lifetime) and when every `max-age` in
//!   the header agrees; `Expires` is reported as sent, even beside `max-age` (which overrides it
//!   per RFC 9111; the caller decides); an invalid `Expires` (`0`, `-1`) is `None`.
//! - Header values that are not visible ASCII (raw non-UTF-8 bytes) are skipped, never guessed.
//! - A status outside 200..=599 (1xx surfacing as final, 6xx..9xx) is a protocol oddity and is
//!   classified `ClientError` with its status, so it pauses like any other unexpected 4xx.
//! - 300 and 305/306 are `Redirect` (never followed by the fetcher); 304 is `NotModified`.
//! - A 2xx whose body did not arrive in time is `FailedAnswer { Stalled }`: the status line
//!   came, so it was an answer (WFM4), never `Transport` (which alone may be tried again early).

use chrono::{DateTime, Utc};
use reqwest::header::{self, HeaderMap, HeaderName};
use tidings_model::{
    AnswerFailure, CacheHints, FetchOutcome, Fetched, RetryAfter, RightsHeaders, Validators,
};

/// Why the body of a 2xx answer was not read to its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The body passed the cap (announced by Content-Length or counted after decompression).
    #[error("body larger than {limit} bytes")]
    TooLarge { limit: u64 },
    /// Reading or decoding the body failed after the status line (bad gzip, reset, truncation).
    #[error("body broken: {0}")]
    Broken(String),
    /// The total time ran out while the body was arriving.
    #[error("body timed out")]
    TimedOut,
}

/// Classify an answer into a [`FetchOutcome`] (pure).
///
/// `body` is what reading the body produced; it matters only for 2xx answers (the fetcher does
/// not read other bodies and passes `Ok(Vec::new())`).
pub fn classify(
    status: u16,
    headers: &HeaderMap,
    body: Result<Vec<u8>, BodyError>,
) -> FetchOutcome {
    match status {
        200..=299 => match body {
            Ok(body) => FetchOutcome::Fetched(Fetched {
                status,
                body,
                content_type: header_text(headers, &header::CONTENT_TYPE),
                validators: validators(headers),
                cache: cache_hints(headers),
                rights: rights_headers(headers),
            }),
            Err(BodyError::TooLarge { limit }) => FetchOutcome::TooLarge { limit },
            Err(BodyError::Broken(detail)) => FetchOutcome::BadBody { status, detail },
            // The head arrived: an answer that stalled, not silence (WFM4).
            Err(BodyError::TimedOut) => FetchOutcome::FailedAnswer {
                status: Some(status),
                failure: AnswerFailure::Stalled,
            },
        },
        304 => FetchOutcome::NotModified {
            validators: validators(headers),
            cache: cache_hints(headers),
            rights: rights_headers(headers),
        },
        300..=399 => FetchOutcome::Redirect {
            status,
            location: headers
                .get(header::LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        },
        403 | 429 | 503 if is_challenge(headers) => FetchOutcome::Challenge {
            status,
            retry_after: retry_after(headers),
        },
        // A refusal is 403 or 429 (WFM6); 401 asks for credentials, like any other 4xx (PF7).
        403 | 429 => FetchOutcome::Refused {
            status,
            retry_after: retry_after(headers),
        },
        404 => FetchOutcome::NotFound,
        410 => FetchOutcome::Gone,
        500..=599 => FetchOutcome::ServerError {
            status,
            retry_after: retry_after(headers),
        },
        _ => FetchOutcome::ClientError { status },
    }
}

/// A bot-challenge page says so in `cf-mitigated: challenge` (the header CDNs send with one).
fn is_challenge(headers: &HeaderMap) -> bool {
    headers
        .get_all("cf-mitigated")
        .iter()
        .any(|v| v.as_bytes().eq_ignore_ascii_case(b"challenge"))
}

/// The first value of `name` when it is non-empty visible ASCII, exactly as received.
pub fn header_text(headers: &HeaderMap, name: &HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The most values of one rights header kept, and the most bytes of each.
const RIGHTS_VALUES: usize = 16;
const RIGHTS_VALUE_BYTES: usize = 1024;

/// `X-Robots-Tag`, `tdm-reservation` and `tdm-policy` as sent, one entry per header line (a
/// bounded number, each bounded; unreadable values skipped); `None` when there are none.
pub fn rights_headers(headers: &HeaderMap) -> Option<Box<RightsHeaders>> {
    let values = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty() && v.len() <= RIGHTS_VALUE_BYTES)
            .take(RIGHTS_VALUES)
            .map(str::to_owned)
            .collect()
    };
    let rights = RightsHeaders {
        x_robots_tag: values("x-robots-tag"),
        tdm_reservation: values("tdm-reservation"),
        tdm_policy: values("tdm-policy"),
    };
    (!rights.is_empty()).then(|| Box::new(rights))
}

/// ETag and Last-Modified exactly as received (C4); unreadable values are skipped.
pub fn validators(headers: &HeaderMap) -> Validators {
    Validators {
        etag: header_text(headers, &header::ETAG),
        last_modified: header_text(headers, &header::LAST_MODIFIED),
    }
}

/// `Cache-Control: max-age` and `Expires` (PF3).
pub fn cache_hints(headers: &HeaderMap) -> CacheHints {
    CacheHints {
        max_age: max_age(headers),
        expires: header_text(headers, &header::EXPIRES).and_then(|s| http_date(&s)),
    }
}

fn max_age(headers: &HeaderMap) -> Option<u64> {
    let mut found: Option<u64> = None;
    for value in headers.get_all(header::CACHE_CONTROL) {
        let Ok(text) = value.to_str() else { continue };
        for directive in text.split(',') {
            let (name, arg) = match directive.split_once('=') {
                Some((n, a)) => (n.trim(), Some(a.trim().trim_matches('"'))),
                None => (directive.trim(), None),
            };
            if name.eq_ignore_ascii_case("no-cache") || name.eq_ignore_ascii_case("no-store") {
                return None;
            }
            if name.eq_ignore_ascii_case("max-age") {
                let seconds = arg.and_then(|a| a.parse::<u64>().ok())?;
                match found {
                    Some(previous) if previous != seconds => return None,
                    _ => found = Some(seconds),
                }
            }
        }
    }
    found
}

/// `Retry-After` as delta seconds or an HTTP-date (C6); anything else is `None`.
///
/// Delta seconds too large for a `u64` (`18446744073709551616`, thirty digits, ten thousand)
/// are `u64::MAX`: the server asked for the longest wait there is, not for none. What that
/// wait means (a floor, or a pause past the profile's `backoff.retry_after_max`) is policy's.
pub fn retry_after(headers: &HeaderMap) -> Option<RetryAfter> {
    let text = header_text(headers, &header::RETRY_AFTER)?;
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // Only digits: the one way `parse` fails is overflow.
        return Some(RetryAfter::Seconds(text.parse::<u64>().unwrap_or(u64::MAX)));
    }
    http_date(text).map(RetryAfter::At)
}

fn http_date(text: &str) -> Option<DateTime<Utc>> {
    httpdate::parse_http_date(text.trim())
        .ok()
        .map(DateTime::<Utc>::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_bytes(value),
            ) {
                (Ok(n), Ok(v)) => {
                    map.append(n, v);
                }
                _ => panic!("bad test header {name:?}"),
            }
        }
        map
    }

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
        match Utc.with_ymd_and_hms(y, mo, d, h, mi, s).single() {
            Some(t) => t,
            None => panic!("bad test date"),
        }
    }

    /// One row: what the server sent, what the outcome must be.
    fn check(
        status: u16,
        pairs: &[(&str, &[u8])],
        body: Result<Vec<u8>, BodyError>,
        expected: FetchOutcome,
    ) {
        assert_eq!(
            classify(status, &headers(pairs), body),
            expected,
            "status {status} {pairs:?}"
        );
    }

    fn ok() -> Result<Vec<u8>, BodyError> {
        Ok(b"<rss/>".to_vec())
    }

    #[test]
    fn c4_fetched_keeps_validators_and_type_exactly() {
        check(
            200,
            &[
                ("content-type", b"application/rss+xml; charset=ISO-8859-1"),
                ("etag", b"W/\"abc-123\""),
                ("last-modified", b"Tue, 03 Mar 2026 10:00:00 GMT"),
            ],
            ok(),
            FetchOutcome::Fetched(Fetched {
                status: 200,
                body: b"<rss/>".to_vec(),
                content_type: Some("application/rss+xml; charset=ISO-8859-1".to_owned()),
                validators: Validators {
                    etag: Some("W/\"abc-123\"".to_owned()),
                    last_modified: Some("Tue, 03 Mar 2026 10:00:00 GMT".to_owned()),
                },
                cache: CacheHints::default(),
                rights: None,
            }),
        );
    }

    #[test]
    fn ff14_dfb2_rights_headers_are_kept_as_sent_one_per_line() {
        let long = "n".repeat(RIGHTS_VALUE_BYTES + 1);
        let got = rights_headers(&headers(&[
            ("x-robots-tag", b"noindex"),
            ("X-Robots-Tag", b"FFBot: nosnippet, noarchive"),
            ("x-robots-tag", long.as_bytes()),
            ("x-robots-tag", b"\xffbroken"),
            ("tdm-reservation", b" 1 "),
            ("tdm-policy", b"https://pub.example/tdm.json"),
        ]))
        .expect("some were sent");
        assert_eq!(
            *got,
            RightsHeaders {
                x_robots_tag: vec!["noindex".into(), "FFBot: nosnippet, noarchive".into()],
                tdm_reservation: vec!["1".into()],
                tdm_policy: vec!["https://pub.example/tdm.json".into()],
            }
        );
        assert_eq!(rights_headers(&headers(&[("etag", b"\"e\"")])), None);
        // Carried by a 200 and by a 304.
        let pairs: &[(&str, &[u8])] = &[("x-robots-tag", b"noindex")];
        let FetchOutcome::NotModified { rights, .. } = classify(304, &headers(pairs), ok()) else {
            panic!("a 304");
        };
        assert_eq!(rights.unwrap().x_robots_tag, ["noindex"]);
        let FetchOutcome::Fetched(f) = classify(200, &headers(pairs), ok()) else {
            panic!("a 200");
        };
        assert_eq!(f.rights.unwrap().x_robots_tag, ["noindex"]);
    }

    #[test]
    fn c4_unreadable_validator_bytes_are_skipped() {
        let outcome = classify(
            200,
            &headers(&[("etag", b"\"caf\xe9\""), ("last-modified", b"")]),
            ok(),
        );
        match outcome {
            FetchOutcome::Fetched(f) => assert!(f.validators.is_empty()),
            other => panic!("expected fetched, got {other:?}"),
        }
    }

    #[test]
    fn c4_not_modified_with_and_without_validators() {
        check(
            304,
            &[("etag", b"\"v2\"")],
            Ok(Vec::new()),
            FetchOutcome::NotModified {
                validators: Validators {
                    etag: Some("\"v2\"".to_owned()),
                    last_modified: None,
                },
                cache: CacheHints::default(),
                rights: None,
            },
        );
        check(
            304,
            &[],
            Ok(Vec::new()),
            FetchOutcome::NotModified {
                validators: Validators::default(),
                cache: CacheHints::default(),
                rights: None,
            },
        );
    }

    #[test]
    fn pf3_cache_hints() {
        let hints = |pairs: &[(&str, &[u8])]| cache_hints(&headers(pairs));
        assert_eq!(
            hints(&[("cache-control", b"public, max-age=3600")]).max_age,
            Some(3600)
        );
        assert_eq!(
            hints(&[("cache-control", b"max-age=\"60\"")]).max_age,
            Some(60)
        );
        assert_eq!(hints(&[("cache-control", b"MAX-AGE=60")]).max_age, Some(60));
        assert_eq!(
            hints(&[("cache-control", b"no-cache, max-age=3600")]).max_age,
            None
        );
        assert_eq!(
            hints(&[
                ("cache-control", b"max-age=3600"),
                ("cache-control", b"no-store")
            ])
            .max_age,
            None
        );
        assert_eq!(
            hints(&[("cache-control", b"max-age=60, max-age=120")]).max_age,
            None
        );
        assert_eq!(
            hints(&[("cache-control", b"max-age=60, max-age=60")]).max_age,
            Some(60)
        );
        assert_eq!(hints(&[("cache-control", b"max-age=soon")]).max_age, None);
        assert_eq!(hints(&[("cache-control", b"max-age=-5")]).max_age, None);
        assert_eq!(hints(&[("cache-control", b"s-maxage=600")]).max_age, None);
        assert_eq!(
            hints(&[("expires", b"Wed, 04 Mar 2026 12:30:00 GMT")]).expires,
            Some(at(2026, 3, 4, 12, 30, 0))
        );
        assert_eq!(hints(&[("expires", b"0")]).expires, None);
        assert_eq!(hints(&[("expires", b"-1")]).expires, None);
    }

    #[test]
    fn a_challenge_page_is_a_refusal_not_a_body() {
        for status in [403, 429, 503] {
            check(
                status,
                &[("cf-mitigated", b"Challenge"), ("retry-after", b"30")],
                Ok(b"<html>checking your browser</html>".to_vec()),
                FetchOutcome::Challenge {
                    status,
                    retry_after: Some(RetryAfter::Seconds(30)),
                },
            );
        }
        // A 200 is the resource, whatever the header says; other values are no challenge.
        assert!(matches!(
            classify(
                200,
                &headers(&[("cf-mitigated", b"challenge")]),
                Ok(Vec::new())
            ),
            FetchOutcome::Fetched(_)
        ));
        check(
            403,
            &[("cf-mitigated", b"no")],
            Ok(Vec::new()),
            FetchOutcome::Refused {
                status: 403,
                retry_after: None,
            },
        );
    }

    #[test]
    fn c6_refusals_and_retry_after() {
        check(
            429,
            &[("retry-after", b"120")],
            Ok(Vec::new()),
            FetchOutcome::Refused {
                status: 429,
                retry_after: Some(RetryAfter::Seconds(120)),
            },
        );
        check(
            429,
            &[("retry-after", b"Fri, 06 Mar 2026 08:00:00 GMT")],
            Ok(Vec::new()),
            FetchOutcome::Refused {
                status: 429,
                retry_after: Some(RetryAfter::At(at(2026, 3, 6, 8, 0, 0))),
            },
        );
        check(
            403,
            &[],
            Ok(Vec::new()),
            FetchOutcome::Refused {
                status: 403,
                retry_after: None,
            },
        );
        check(
            401,
            &[("retry-after", b"soon")],
            Ok(Vec::new()),
            FetchOutcome::ClientError { status: 401 },
        );
        check(
            503,
            &[("retry-after", b" 30 ")],
            Ok(Vec::new()),
            FetchOutcome::ServerError {
                status: 503,
                retry_after: Some(RetryAfter::Seconds(30)),
            },
        );
        check(
            503,
            &[("retry-after", b"99999999999999999999999")],
            Ok(Vec::new()),
            FetchOutcome::ServerError {
                status: 503,
                retry_after: Some(RetryAfter::Seconds(u64::MAX)),
            },
        );
        check(
            500,
            &[],
            Ok(Vec::new()),
            FetchOutcome::ServerError {
                status: 500,
                retry_after: None,
            },
        );
    }

    #[test]
    fn c6_sr5_dfb6_retry_after_values_that_do_not_fit_are_the_longest_wait() {
        let ten_to_the_30 = format!("1{}", "0".repeat(30));
        let ten_thousand_digits = "9".repeat(10_000);
        let cases: &[(&str, &[u8], Option<RetryAfter>)] = &[
            ("plain seconds", b"120", Some(RetryAfter::Seconds(120))),
            ("zero", b"0", Some(RetryAfter::Seconds(0))),
            ("leading zeros", b"000120", Some(RetryAfter::Seconds(120))),
            (
                "u64::MAX exactly",
                b"18446744073709551615",
                Some(RetryAfter::Seconds(u64::MAX)),
            ),
            (
                "u64::MAX + 1 (issue 12)",
                b"18446744073709551616",
                Some(RetryAfter::Seconds(u64::MAX)),
            ),
            (
                "10^30 (issue 12)",
                ten_to_the_30.as_bytes(),
                Some(RetryAfter::Seconds(u64::MAX)),
            ),
            (
                "ten thousand digits",
                ten_thousand_digits.as_bytes(),
                Some(RetryAfter::Seconds(u64::MAX)),
            ),
            ("60 days", b"5184000", Some(RetryAfter::Seconds(5_184_000))),
            (
                "an HTTP-date far ahead",
                b"Fri, 31 Dec 9999 23:59:59 GMT",
                Some(RetryAfter::At(at(9999, 12, 31, 23, 59, 59))),
            ),
            (
                "an HTTP-date in the past",
                b"Thu, 01 Jan 1970 00:00:00 GMT",
                Some(RetryAfter::At(at(1970, 1, 1, 0, 0, 0))),
            ),
            ("negative", b"-5", None),
            ("signed", b"+120", None),
            ("fraction", b"1.5", None),
            ("exponent", b"1e30", None),
            ("unit", b"120s", None),
            ("digits with a space inside", b"12 0", None),
            ("garbage", b"soon", None),
            ("empty", b"", None),
            (
                "a date past year 9999",
                b"Sat, 01 Jan 10000 00:00:00 GMT",
                None,
            ),
        ];
        for (row, value, want) in cases {
            let got = retry_after(&headers(&[("retry-after", value)]));
            assert_eq!(got, *want, "{row}");
        }
    }

    #[test]
    fn statuses_map_to_their_outcome() {
        check(404, &[], Ok(Vec::new()), FetchOutcome::NotFound);
        check(410, &[], Ok(Vec::new()), FetchOutcome::Gone);
        check(
            400,
            &[],
            Ok(Vec::new()),
            FetchOutcome::ClientError { status: 400 },
        );
        check(
            451,
            &[],
            Ok(Vec::new()),
            FetchOutcome::ClientError { status: 451 },
        );
        check(
            101,
            &[],
            Ok(Vec::new()),
            FetchOutcome::ClientError { status: 101 },
        );
        check(
            600,
            &[],
            Ok(Vec::new()),
            FetchOutcome::ClientError { status: 600 },
        );
        check(
            301,
            &[("location", b"/new")],
            Ok(Vec::new()),
            FetchOutcome::Redirect {
                status: 301,
                location: Some("/new".to_owned()),
            },
        );
        check(
            302,
            &[],
            Ok(Vec::new()),
            FetchOutcome::Redirect {
                status: 302,
                location: None,
            },
        );
        check(
            300,
            &[],
            Ok(Vec::new()),
            FetchOutcome::Redirect {
                status: 300,
                location: None,
            },
        );
    }

    #[test]
    fn c8_body_failures_of_a_2xx() {
        check(
            200,
            &[],
            Err(BodyError::TooLarge { limit: 10 }),
            FetchOutcome::TooLarge { limit: 10 },
        );
        check(
            200,
            &[],
            Err(BodyError::Broken("corrupt deflate stream".to_owned())),
            FetchOutcome::BadBody {
                status: 200,
                detail: "corrupt deflate stream".to_owned(),
            },
        );
        check(
            200,
            &[],
            Err(BodyError::TimedOut),
            FetchOutcome::FailedAnswer {
                status: Some(200),
                failure: AnswerFailure::Stalled,
            },
        );
        check(
            204,
            &[],
            Ok(Vec::new()),
            FetchOutcome::Fetched(Fetched {
                status: 204,
                body: Vec::new(),
                content_type: None,
                validators: Validators::default(),
                cache: CacheHints::default(),
                rights: None,
            }),
        );
    }
}
