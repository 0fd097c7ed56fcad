//! C4: validators are stored exactly as received and echoed byte for byte.

mod support;

use support::{Reply, Server, config, fetcher, head, response};
use tidings_fetch::{FetchOutcome, FetchRequest, Validators};

const FEED: &[u8] = b"<rss version=\"2.0\"><channel><title>t</title></channel></rss>";

/// A publisher that answers 304 only when both validators come back exactly as it sent them.
async fn publisher(etag: &'static [u8], last_modified: &'static [u8]) -> Server {
    Server::start(move |req, _| {
        if req.header("if-none-match") == Some(etag)
            && req.header("if-modified-since") == Some(last_modified)
        {
            Reply::Raw(head(304, &[("etag", etag)]))
        } else {
            Reply::Raw(response(
                200,
                &[("etag", etag), ("last-modified", last_modified)],
                FEED,
            ))
        }
    })
    .await
}

async fn round_trip(etag: &'static [u8], last_modified: &'static [u8]) {
    let server = publisher(etag, last_modified).await;
    let fetcher = fetcher(config());
    let first = fetcher.fetch(&FetchRequest::new(server.url("/feed"))).await;
    let stored = match first.outcome {
        FetchOutcome::Fetched(f) => f.validators,
        other => panic!("expected fetched, got {other:?}"),
    };
    assert_eq!(stored.etag.as_deref().map(str::as_bytes), Some(etag));
    assert_eq!(
        stored.last_modified.as_deref().map(str::as_bytes),
        Some(last_modified)
    );

    let second = fetcher
        .fetch(&FetchRequest {
            url: server.url("/feed"),
            validators: stored,
            timeout: None,
            follow_redirects: true,
            check: None,
            egress: None,
            user_agent: None,
            max_body_bytes: None,
            keep_prefix: false,
            form: None,
        })
        .await;
    assert!(
        matches!(second.outcome, FetchOutcome::NotModified { .. }),
        "{:?}",
        second.outcome
    );
    assert_eq!(second.bytes, 0);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("if-none-match"), None);
    assert_eq!(requests[0].header("if-modified-since"), None);
    assert_eq!(requests[1].header("if-none-match"), Some(etag));
    assert_eq!(requests[1].header("if-modified-since"), Some(last_modified));
}

#[tokio::test]
async fn c4_strong_etag_and_last_modified_echoed_exactly() {
    round_trip(b"\"5f3a-1b2c\"", b"Tue, 03 Mar 2026 10:00:00 GMT").await;
}

#[tokio::test]
async fn c4_weak_etag_echoed_exactly() {
    round_trip(b"W/\"x\"", b"Tue, 03 Mar 2026 10:00:00 GMT").await;
}

#[tokio::test]
async fn c4_odd_last_modified_is_never_reformatted() {
    // An obsolete RFC 850 date and an unquoted ETag: sent back as they came.
    round_trip(b"abc123", b"Tuesday, 03-Mar-26 10:00:00 GMT").await;
}

#[tokio::test]
async fn c4_not_modified_carries_the_304s_own_validators_only() {
    let server = Server::start(|_, _| Reply::Raw(head(304, &[]))).await;
    let fetcher = fetcher(config());
    let stored = Validators {
        etag: Some("\"v1\"".to_owned()),
        last_modified: None,
    };
    let got = fetcher
        .fetch(&FetchRequest {
            url: server.url("/feed"),
            validators: stored,
            timeout: None,
            follow_redirects: true,
            check: None,
            egress: None,
            user_agent: None,
            max_body_bytes: None,
            keep_prefix: false,
            form: None,
        })
        .await;
    // Empty: the caller keeps what it stored.
    match got.outcome {
        FetchOutcome::NotModified { validators, .. } => assert!(validators.is_empty()),
        other => panic!("expected not modified, got {other:?}"),
    }
    assert_eq!(
        server.requests()[0].header("if-none-match"),
        Some(&b"\"v1\""[..])
    );
}

#[tokio::test]
async fn c4_non_ascii_validator_bytes_are_skipped_without_panic() {
    let server = Server::start(|_, _| {
        Reply::Raw(response(
            200,
            &[("etag", b"\"caf\xc3\xa9\""), ("last-modified", b"\xff\xfe")],
            FEED,
        ))
    })
    .await;
    let got = fetcher(config())
        .fetch(&FetchRequest::new(server.url("/feed")))
        .await;
    match got.outcome {
        FetchOutcome::Fetched(f) => {
            assert!(f.validators.is_empty(), "{:?}", f.validators);
            assert_eq!(f.body, FEED);
        }
        other => panic!("expected fetched, got {other:?}"),
    }
}

#[tokio::test]
async fn c4_validators_follow_redirect_hops() {
    let server = Server::start(|req, _| match req.path() {
        "/old" => Reply::Raw(response(301, &[("location", b"/new")], b"")),
        _ if req.header("if-none-match") == Some(b"\"n1\"") => Reply::Raw(head(304, &[])),
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let got = fetcher(config())
        .fetch(&FetchRequest {
            url: server.url("/old"),
            validators: Validators {
                etag: Some("\"n1\"".to_owned()),
                last_modified: None,
            },
            timeout: None,
            follow_redirects: true,
            check: None,
            egress: None,
            user_agent: None,
            max_body_bytes: None,
            keep_prefix: false,
            form: None,
        })
        .await;
    assert!(
        matches!(got.outcome, FetchOutcome::NotModified { .. }),
        "{:?}",
        got.outcome
    );
    assert_eq!(got.final_url, server.url("/new"));
}

#[tokio::test]
async fn c1_user_agent_and_accept_are_sent() {
    let server = Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await;
    let got = fetcher(config())
        .fetch(&FetchRequest::new(server.url("/feed")))
        .await;
    assert_eq!(support::body(&got.outcome), FEED);
    let req = &server.requests()[0];
    assert_eq!(req.method, "GET");
    assert_eq!(req.header("user-agent"), Some(support::UA.as_bytes()));
    assert_eq!(req.header("accept"), Some(tidings_fetch::ACCEPT.as_bytes()));
    let encodings =
        String::from_utf8_lossy(req.header("accept-encoding").unwrap_or_default()).into_owned();
    for coding in ["gzip", "deflate", "br"] {
        assert!(
            encodings.contains(coding),
            "accept-encoding {encodings:?} lacks {coding}"
        );
    }
}
