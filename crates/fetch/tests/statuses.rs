//! Status answers end the read at once: refusals with Retry-After (C6), server errors,
//! and no retries of any answered request (WFM4).

mod support;

use chrono::{TimeZone, Utc};
use support::{Reply, Server, config, fetcher, get, response};
use tidings_fetch::FetchOutcome;
use tidings_model::RetryAfter;

async fn answer(
    status: u16,
    headers: &'static [(&'static str, &'static [u8])],
) -> (FetchOutcome, usize) {
    let server = Server::start(move |_, _| Reply::Raw(response(status, headers, b"go away"))).await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    (got.outcome, server.requests().len())
}

#[tokio::test]
async fn c6_429_with_retry_after_seconds() {
    let (outcome, requests) = answer(429, &[("retry-after", b"3600")]).await;
    assert_eq!(
        outcome,
        FetchOutcome::Refused {
            status: 429,
            retry_after: Some(RetryAfter::Seconds(3600))
        }
    );
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn c6_429_with_retry_after_date() {
    let (outcome, _) = answer(429, &[("retry-after", b"Sun, 01 Mar 2026 18:30:00 GMT")]).await;
    let at = Utc.with_ymd_and_hms(2026, 3, 1, 18, 30, 0).single();
    assert_eq!(
        outcome,
        FetchOutcome::Refused {
            status: 429,
            retry_after: at.map(RetryAfter::At)
        }
    );
}

#[tokio::test]
async fn wfm4_503_is_asked_exactly_once() {
    let (outcome, requests) = answer(503, &[("retry-after", b"120")]).await;
    assert_eq!(
        outcome,
        FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(RetryAfter::Seconds(120))
        }
    );
    assert_eq!(requests, 1, "no retries: one read is one request");
}

#[tokio::test]
async fn wfm6_403_is_a_refusal_asked_once() {
    let (outcome, requests) = answer(403, &[]).await;
    assert_eq!(
        outcome,
        FetchOutcome::Refused {
            status: 403,
            retry_after: None
        }
    );
    assert_eq!(requests, 1);
}

#[tokio::test]
async fn not_found_and_gone() {
    assert_eq!(answer(404, &[]).await.0, FetchOutcome::NotFound);
    assert_eq!(answer(410, &[]).await.0, FetchOutcome::Gone);
    assert_eq!(
        answer(418, &[]).await.0,
        FetchOutcome::ClientError { status: 418 }
    );
}

#[tokio::test]
async fn pf3_cache_hints_reach_the_outcome() {
    let (outcome, _) = answer(
        200,
        &[
            ("cache-control", b"public, max-age=7200"),
            ("expires", b"Mon, 02 Mar 2026 00:00:00 GMT"),
            ("content-type", b"application/atom+xml"),
        ],
    )
    .await;
    match outcome {
        FetchOutcome::Fetched(f) => {
            assert_eq!(f.cache.max_age, Some(7200));
            assert_eq!(
                f.cache.expires,
                Utc.with_ymd_and_hms(2026, 3, 2, 0, 0, 0).single()
            );
            assert_eq!(f.content_type.as_deref(), Some("application/atom+xml"));
            assert_eq!(f.body, b"go away");
        }
        other => panic!("expected fetched, got {other:?}"),
    }
}
