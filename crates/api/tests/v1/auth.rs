//! API keys: who may write, keyed reads, revoked keys, the rate per key, and tokens never
//! echoed back.

use crate::support::{Server, header, send, t};
use std::time::Duration;
use tidings_api::auth::{AuthConfig, RateLimit, Role, issue};
use tidings_store::NewBlock;

/// A key of `role` stored in the server's store; returns its id and token.
pub(crate) async fn key(server: &Server, role: Role) -> (i64, String) {
    let (token, new) = issue(Some("test".into()), role, t(0)).expect("random token");
    let stored = server.store.create_key(&new).await.expect("create key");
    (stored.id, token)
}

pub(crate) fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

/// `method path` with `token` (if any) and `body`: status, head, JSON body (`Null` if empty).
pub(crate) async fn call(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String, serde_json::Value) {
    let headers = token.map(bearer).unwrap_or_default();
    let (status, head, bytes) = send(server.addr, method, path, &headers, body).await;
    let json = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: {status} body is not JSON ({e}): {}",
                String::from_utf8_lossy(&bytes)
            )
        })
    };
    (status, head, json)
}

/// Assert a problem of `status` and type `slug`.
pub(crate) fn is_problem(answer: &(u16, String, serde_json::Value), status: u16, slug: &str) {
    let (got, head, json) = answer;
    assert_eq!(*got, status, "{json}");
    assert_eq!(
        header(head, "content-type").as_deref(),
        Some("application/problem+json")
    );
    assert_eq!(
        json["type"],
        format!("https://tidings.example/problems/{slug}")
    );
}

const FEED: &str = r#"{"url": "https://example.org/feed.xml"}"#;

#[tokio::test]
async fn a_write_without_a_key_is_a_401_with_www_authenticate() {
    let server = Server::start().await;
    let answer = call(&server, "POST", "/v1/feeds", None, Some(FEED)).await;
    is_problem(&answer, 401, "unauthorized");
    assert_eq!(
        header(&answer.1, "www-authenticate").as_deref(),
        Some("Bearer realm=\"tidings\"")
    );
    let answer = call(&server, "DELETE", "/v1/feeds/1", None, None).await;
    is_problem(&answer, 401, "unauthorized");
    let answer = call(
        &server,
        "POST",
        "/v1/feeds",
        Some("tdg_unknown"),
        Some(FEED),
    )
    .await;
    is_problem(&answer, 401, "unauthorized");
    assert!(server.store.feeds().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_reader_key_may_not_write() {
    let server = Server::start().await;
    let (_, reader) = key(&server, Role::Reader).await;
    let answer = call(&server, "POST", "/v1/feeds", Some(&reader), Some(FEED)).await;
    is_problem(&answer, 403, "forbidden");
    assert!(server.store.feeds().await.unwrap().is_empty());
    let answer = call(&server, "GET", "/v1/feeds", Some(&reader), None).await;
    assert_eq!(answer.0, 200);
}

#[tokio::test]
async fn an_admin_key_subscribes_and_unsubscribes() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (status, head, feed) = call(&server, "POST", "/v1/feeds", Some(&admin), Some(FEED)).await;
    assert_eq!(status, 201, "{feed}");
    assert_eq!(feed["url"], "https://example.org/feed.xml");
    let feed_id = feed["id"].as_i64().expect("feed id");
    assert_eq!(
        header(&head, "location"),
        Some(format!("/v1/feeds/{feed_id}"))
    );
    let listed = server.get("/v1/feeds").await;
    assert_eq!(listed.json["feeds"][0]["id"], feed_id);
    let keys = server.store.list_keys().await.unwrap();
    assert!(keys[0].last_used_at.is_some(), "the key's use is recorded");
    // Nothing was fetched: the feed waits for the crawl.
    let stored = server.store.feeds().await.unwrap();
    assert_eq!(stored.len(), 1);
    assert!(stored[0].last_fetch_at.is_none());

    // Subscribing again is harmless and names the same feed.
    let again = call(&server, "POST", "/v1/feeds", Some(&admin), Some(FEED)).await;
    assert_eq!(again.0, 201);
    assert_eq!(again.2["id"], feed_id);

    let path = format!("/v1/feeds/{feed_id}");
    let gone = call(&server, "DELETE", &path, Some(&admin), None).await;
    assert_eq!(gone.0, 204);
    let again = call(&server, "DELETE", &path, Some(&admin), None).await;
    is_problem(&again, 404, "not-found");
    // The subscription was the key's own: another subscriber's stays.
    server
        .subscribe("https://example.org/feed.xml", "cli")
        .await;
    let (_, other) = key(&server, Role::Admin).await;
    let theirs = call(&server, "DELETE", &path, Some(&other), None).await;
    is_problem(&theirs, 404, "not-found");
}

#[tokio::test]
async fn bad_bodies_and_urls_are_400s() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    for body in [
        "{",
        "[]",
        r#"{"link": "https://example.org/"}"#,
        r#"{"url": 7}"#,
    ] {
        let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(body)).await;
        is_problem(&answer, 400, "invalid-parameter");
        assert_eq!(answer.2["parameter"], "body", "{body}");
    }
    for url in ["not a url", "ftp://example.org/feed", ""] {
        let body = serde_json::json!({ "url": url }).to_string();
        let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(&body)).await;
        is_problem(&answer, 400, "invalid-parameter");
        assert_eq!(answer.2["parameter"], "url", "{url}");
    }
    let answer = call(&server, "DELETE", "/v1/feeds/zero", Some(&admin), None).await;
    is_problem(&answer, 400, "invalid-parameter");
    assert!(server.store.feeds().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_do_not_crawl_rule_refuses_the_subscription() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    server
        .store
        .add_block(&NewBlock {
            kind: "host".into(),
            value: "example.org".into(),
            reason: Some("publisher asked".into()),
            created_at: t(0),
        })
        .await
        .unwrap();
    let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(FEED)).await;
    is_problem(&answer, 422, "refused");
    assert!(server.store.feeds().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_revoked_key_is_a_401() {
    let server = Server::start().await;
    let (id, admin) = key(&server, Role::Admin).await;
    assert!(server.store.revoke_key(id, t(1)).await.unwrap());
    let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(FEED)).await;
    is_problem(&answer, 401, "unauthorized");
    // A revoked key sent with a public read is refused too.
    let answer = call(&server, "GET", "/v1/feeds", Some(&admin), None).await;
    is_problem(&answer, 401, "unauthorized");
}

#[tokio::test]
async fn reads_need_a_key_by_default() {
    let server = Server::with_auth(AuthConfig::default()).await;
    for path in [
        "/v1/feeds",
        "/v1/feeds/1",
        "/v1/entries",
        "/v1/feeds/1/atom",
        "/v1/feeds/1/feed.json",
        "/v1/entries/atom",
        "/v1/entries/feed.json",
    ] {
        let answer = call(&server, "GET", path, None, None).await;
        is_problem(&answer, 401, "unauthorized");
        assert!(header(&answer.1, "www-authenticate").is_some(), "{path}");
    }
    let (_, reader) = key(&server, Role::Reader).await;
    for path in ["/v1/feeds", "/v1/entries"] {
        let answer = call(&server, "GET", path, Some(&reader), None).await;
        assert_eq!(answer.0, 200, "{path}: {}", answer.2);
    }
    for path in ["/v1/entries/atom", "/v1/entries/feed.json"] {
        let (status, _, _) = send(server.addr, "GET", path, &bearer(&reader), None).await;
        assert_eq!(status, 200, "{path}");
    }
    // The bot page and the health check stay public.
    let (status, _, _) = send(server.addr, "GET", "/healthz", "", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_key_past_its_burst_is_a_429_with_retry_after() {
    // One request a minute after a burst of 3: the 4th, sent at once, cannot have been refilled.
    let server = Server::with_auth(AuthConfig {
        public_reads: true,
        rate: RateLimit {
            burst: 3,
            refill_every: Duration::from_secs(60),
        },
        ..AuthConfig::default()
    })
    .await;
    let (_, reader) = key(&server, Role::Reader).await;
    let (_, other) = key(&server, Role::Reader).await;
    for _ in 0..3 {
        let answer = call(&server, "GET", "/v1/feeds", Some(&reader), None).await;
        assert_eq!(answer.0, 200);
    }
    let answer = call(&server, "GET", "/v1/feeds", Some(&reader), None).await;
    is_problem(&answer, 429, "too-many-requests");
    let retry: u64 = header(&answer.1, "retry-after")
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    // The bucket is the key's own; anonymous reads are not counted against it.
    let answer = call(&server, "GET", "/v1/feeds", Some(&other), None).await;
    assert_eq!(answer.0, 200);
    let answer = call(&server, "GET", "/v1/feeds", None, None).await;
    assert_eq!(answer.0, 200);
}

#[tokio::test]
async fn tokens_are_never_echoed_in_problems() {
    let server = Server::start().await;
    let (id, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let secret = &admin[12..];
    let mut answers = vec![
        call(&server, "POST", "/v1/feeds", Some(&reader), Some(FEED)).await,
        call(
            &server,
            "POST",
            "/v1/feeds",
            Some(&format!("{admin}x")),
            Some(FEED),
        )
        .await,
        call(&server, "POST", "/v1/feeds", Some(&admin), Some("{")).await,
    ];
    server.store.revoke_key(id, t(1)).await.unwrap();
    answers.push(call(&server, "POST", "/v1/feeds", Some(&admin), Some(FEED)).await);
    for (status, head, json) in answers {
        assert!(status >= 400);
        let text = format!("{head}\n{json}");
        assert!(!text.contains(secret), "{text}");
        assert!(!text.contains(&reader[12..]), "{text}");
    }
}
