//! `PATCH /v1/feeds/{id}`: an operator pauses, resumes, sets a refresh interval or an egress
//! address; bad bodies are 400s, removed and blocked feeds are refused.

use crate::auth::{call, is_problem, key};
use crate::support::{Server, dated, ok, t};
use tidings_api::auth::Role;
use tidings_store::{FeedState, NewBlock};

#[tokio::test]
async fn an_admin_pauses_and_resumes_a_feed() {
    let server = Server::start().await;
    let (id, admin) = key(&server, Role::Admin).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let path = format!("/v1/feeds/{feed}");

    let paused = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"paused": true}"#),
    )
    .await;
    assert_eq!(paused.0, 200, "{}", paused.2);
    assert_eq!(paused.2["state"], "paused");
    assert_eq!(
        paused.2["state_reason"],
        format!("paused by an operator (key {id})")
    );
    let stored = server.store.feed(feed).await.unwrap().unwrap();
    assert_eq!(stored.state, FeedState::Paused);
    assert!(
        server
            .store
            .due_feeds(t(10_000_000), 10)
            .await
            .unwrap()
            .is_empty()
    );

    let resumed = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"paused": false}"#),
    )
    .await;
    assert_eq!(resumed.0, 200, "{}", resumed.2);
    assert_eq!(resumed.2["state"], "active");
    assert_eq!(resumed.2["state_reason"], serde_json::Value::Null);
    assert_eq!(
        resumed.2["next_fetch_reason"],
        format!("resumed by an operator (key {id})")
    );
}

#[tokio::test]
async fn an_interval_within_the_profile_is_kept_and_a_longer_one_moves_the_next_read() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    // Read at t(60): next read at t(60) + 1h.
    server.read(feed, t(60), vec![dated("a", t(30))]).await;
    let path = format!("/v1/feeds/{feed}");

    let set = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"interval_secs": 21600}"#),
    )
    .await;
    assert_eq!(set.0, 200, "{}", set.2);
    assert_eq!(set.2["overrides"]["interval_secs"], 21600);
    assert_eq!(
        set.2["next_fetch_at"], "2026-01-01T06:01:00Z",
        "last read + 6h"
    );
    assert_eq!(
        set.2["next_fetch_reason"],
        "interval 21600s (set by an operator)"
    );
    let stored = server.store.feed(feed).await.unwrap().unwrap();
    assert_eq!(stored.overrides.interval_secs, Some(21600));

    // A shorter one never brings the read forward: it applies from the next read on.
    let shorter = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"interval_secs": 1800}"#),
    )
    .await;
    assert_eq!(shorter.0, 200, "{}", shorter.2);
    assert_eq!(shorter.2["next_fetch_at"], "2026-01-01T06:01:00Z");
    assert_eq!(shorter.2["overrides"]["interval_secs"], 1800);

    let cleared = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"interval_secs": null}"#),
    )
    .await;
    assert_eq!(cleared.0, 200, "{}", cleared.2);
    assert_eq!(
        cleared.2["overrides"]["interval_secs"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn intervals_outside_the_profile_and_bad_bodies_are_400s() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let path = format!("/v1/feeds/{feed}");
    for (body, parameter) in [
        // The default profile reads at most every 15 minutes (WFM3-like floor).
        (r#"{"interval_secs": 60}"#, "interval_secs"),
        (r#"{"interval_secs": 99999999999}"#, "interval_secs"),
        (r#"{"interval_secs": -5}"#, "body"),
        (r#"{"egress": "not an address"}"#, "egress"),
        (r#"{"egress": "2001:db8::1x"}"#, "egress"),
        (r#"{"paused": "yes"}"#, "body"),
        (r#"{"colour": "red"}"#, "body"),
        (r#"{}"#, "body"),
        (r#"not json"#, "body"),
    ] {
        let answer = call(&server, "PATCH", &path, Some(&admin), Some(body)).await;
        is_problem(&answer, 400, "invalid-parameter");
        assert_eq!(answer.2["parameter"], parameter, "{body}: {}", answer.2);
    }
    let unchanged = server.store.feed(feed).await.unwrap().unwrap();
    assert_eq!(unchanged.overrides, Default::default());
    assert_eq!(unchanged.egress, None);
    assert_eq!(unchanged.state, FeedState::Active);
}

#[tokio::test]
async fn an_egress_address_is_stored_canonical_and_cleared_with_null() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let path = format!("/v1/feeds/{feed}");
    let set = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"egress": " 2001:DB8::0:1 "}"#),
    )
    .await;
    assert_eq!(set.0, 200, "{}", set.2);
    assert_eq!(set.2["egress"], "2001:db8::1");
    let cleared = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"egress": null}"#),
    )
    .await;
    assert_eq!(cleared.2["egress"], serde_json::Value::Null);
    assert_eq!(server.store.feed(feed).await.unwrap().unwrap().egress, None);
}

#[tokio::test]
async fn readers_missing_feeds_removed_and_blocked_feeds_are_refused() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let path = format!("/v1/feeds/{feed}");
    let pause = Some(r#"{"paused": true}"#);

    is_problem(
        &call(&server, "PATCH", &path, None, pause).await,
        401,
        "unauthorized",
    );
    is_problem(
        &call(&server, "PATCH", &path, Some(&reader), pause).await,
        403,
        "forbidden",
    );
    is_problem(
        &call(&server, "PATCH", "/v1/feeds/999", Some(&admin), pause).await,
        404,
        "not-found",
    );

    // A feed a do-not-crawl rule covers stays paused: resuming it is refused.
    server
        .store
        .add_block(&NewBlock {
            kind: "host".into(),
            value: "example.org".into(),
            reason: None,
            created_at: t(0),
        })
        .await
        .unwrap();
    let mut held = ok(feed, t(60), vec![]);
    held.update.state = FeedState::Paused;
    held.update.state_reason = Some("blocked: do-not-crawl: host example.org (FF13)".into());
    server.store.apply_fetch(&held).await.unwrap();
    let resume = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"paused": false}"#),
    )
    .await;
    is_problem(&resume, 422, "refused");
    assert_eq!(
        server.store.feed(feed).await.unwrap().unwrap().state,
        FeedState::Paused
    );

    // A feed removed on request (WFM10) stays removed.
    server.store.remove_feed(feed).await.unwrap();
    let answer = call(
        &server,
        "PATCH",
        &path,
        Some(&admin),
        Some(r#"{"paused": false}"#),
    )
    .await;
    is_problem(&answer, 422, "refused");
    assert_eq!(
        server.store.feed(feed).await.unwrap().unwrap().state,
        FeedState::Removed
    );
}
