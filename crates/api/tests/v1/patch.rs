//! `PATCH /v1/feeds/{id}`: an operator pauses, resumes, sets a refresh interval or an egress
//! address; bad bodies are 400s, removed and blocked feeds are refused.

use crate::auth::{call, is_problem, key};
use crate::support::{Server, dated, ok, t};
use tidings_api::auth::Role;
use tidings_model::FeedId;
use tidings_store::{FeedState, NewBlock};

type Answer = (u16, String, serde_json::Value);

/// A server with an admin key and one subscribed feed.
struct Fixture {
    server: Server,
    admin_id: i64,
    admin: String,
    feed: FeedId,
}

impl Fixture {
    async fn on(server: Server) -> Fixture {
        let (admin_id, admin) = key(&server, Role::Admin).await;
        let feed = server
            .subscribe("https://example.org/feed.xml", "alice")
            .await;
        Fixture {
            server,
            admin_id,
            admin,
            feed,
        }
    }

    async fn new() -> Fixture {
        Fixture::on(Server::start().await).await
    }

    /// PATCH the feed with `body` as the admin.
    async fn patch(&self, body: &str) -> Answer {
        self.patch_as(Some(&self.admin), body).await
    }

    async fn patch_as(&self, token: Option<&str>, body: &str) -> Answer {
        let path = format!("/v1/feeds/{}", self.feed);
        call(&self.server, "PATCH", &path, token, Some(body)).await
    }

    async fn stored(&self) -> tidings_store::FeedRecord {
        let feed = self.server.store.feed(self.feed).await.unwrap();
        feed.expect("the feed is stored")
    }
}

/// A 400 whose detail says `text`.
fn refused_saying(answer: &Answer, text: &str) {
    is_problem(answer, 400, "invalid-parameter");
    assert!(
        answer.2["detail"]
            .as_str()
            .is_some_and(|d| d.contains(text)),
        "{}",
        answer.2
    );
}

#[tokio::test]
async fn an_admin_pauses_and_resumes_a_feed() {
    let f = Fixture::new().await;
    let paused = f.patch(r#"{"paused": true}"#).await;
    assert_eq!(paused.0, 200, "{}", paused.2);
    assert_eq!(paused.2["state"], "paused");
    let by = format!("by an operator (key {})", f.admin_id);
    assert_eq!(paused.2["state_reason"], format!("paused {by}"));
    assert_eq!(f.stored().await.state, FeedState::Paused);
    let due = f.server.store.due_feeds(t(10_000_000), 10).await.unwrap();
    assert!(due.is_empty());

    let resumed = f.patch(r#"{"paused": false}"#).await;
    assert_eq!(resumed.0, 200, "{}", resumed.2);
    assert_eq!(resumed.2["state"], "active");
    assert_eq!(resumed.2["state_reason"], serde_json::Value::Null);
    assert_eq!(resumed.2["next_fetch_reason"], format!("resumed {by}"));
}

#[tokio::test]
async fn an_interval_within_the_profile_is_kept_and_a_longer_one_moves_the_next_read() {
    let f = Fixture::new().await;
    // Read at t(60): next read at t(60) + 1h.
    f.server.read(f.feed, t(60), vec![dated("a", t(30))]).await;

    let set = f.patch(r#"{"interval_secs": 21600}"#).await;
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
    assert_eq!(f.stored().await.overrides.interval_secs, Some(21600));

    // A shorter one never brings the read forward: it applies from the next read on.
    let shorter = f.patch(r#"{"interval_secs": 1800}"#).await;
    assert_eq!(shorter.0, 200, "{}", shorter.2);
    assert_eq!(shorter.2["next_fetch_at"], "2026-01-01T06:01:00Z");
    assert_eq!(shorter.2["overrides"]["interval_secs"], 1800);

    let cleared = f.patch(r#"{"interval_secs": null}"#).await;
    assert_eq!(cleared.0, 200, "{}", cleared.2);
    assert_eq!(
        cleared.2["overrides"]["interval_secs"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn wfm3_intervals_outside_the_profile_and_bad_bodies_are_400s() {
    let f = Fixture::new().await;
    for (body, parameter) in [
        // The default profile reads a feed at most every 15 minutes.
        (r#"{"interval_secs": 60}"#, "interval_secs"),
        (r#"{"interval_secs": 99999999999}"#, "interval_secs"),
        (r#"{"interval_secs": -5}"#, "body"),
        (r#"{"egress": "not an address"}"#, "egress"),
        (r#"{"egress": "2001:db8::1x"}"#, "egress"),
        (r#"{"paused": "yes"}"#, "body"),
        (r#"{"colour": "red"}"#, "body"),
        (r#"{}"#, "body"),
        (r#"not json"#, "body"),
        // Serde would read a struct from an array of its fields; the API takes objects only.
        (r#"[null, null]"#, "body"),
        (r#"[true]"#, "body"),
    ] {
        let answer = f.patch(body).await;
        is_problem(&answer, 400, "invalid-parameter");
        assert_eq!(answer.2["parameter"], parameter, "{body}: {}", answer.2);
    }
    let unchanged = f.stored().await;
    assert_eq!(unchanged.overrides, Default::default());
    assert_eq!(unchanged.egress, None);
    assert_eq!(unchanged.state, FeedState::Active);
}

#[tokio::test]
async fn an_egress_address_is_one_configured_stored_canonical_and_cleared_with_null() {
    let f = Fixture::on(Server::with_egress(&["192.0.2.7", "2001:db8::1"]).await).await;
    let set = f.patch(r#"{"egress": " 2001:DB8::0:1 "}"#).await;
    assert_eq!(set.0, 200, "{}", set.2);
    assert_eq!(set.2["egress"], "2001:db8::1");
    let cleared = f.patch(r#"{"egress": null}"#).await;
    assert_eq!(cleared.2["egress"], serde_json::Value::Null);
    assert_eq!(f.stored().await.egress, None);

    let elsewhere = f.patch(r#"{"egress": "192.0.2.8"}"#).await;
    refused_saying(&elsewhere, "the configured ones are 192.0.2.7, 2001:db8::1");

    let none = Fixture::new().await;
    let answer = none.patch(r#"{"egress": "192.0.2.7"}"#).await;
    refused_saying(&answer, "none is configured");
}

#[tokio::test]
async fn readers_missing_feeds_removed_and_blocked_feeds_are_refused() {
    let f = Fixture::new().await;
    let (_, reader) = key(&f.server, Role::Reader).await;
    let pause = r#"{"paused": true}"#;
    is_problem(&f.patch_as(None, pause).await, 401, "unauthorized");
    is_problem(&f.patch_as(Some(&reader), pause).await, 403, "forbidden");
    let missing = call(
        &f.server,
        "PATCH",
        "/v1/feeds/999",
        Some(&f.admin),
        Some(pause),
    )
    .await;
    is_problem(&missing, 404, "not-found");

    // A feed a do-not-crawl rule covers stays paused: resuming it is refused.
    let rule = NewBlock {
        kind: "host".into(),
        value: "example.org".into(),
        reason: None,
        created_at: t(0),
    };
    f.server.store.add_block(&rule).await.unwrap();
    let mut held = ok(f.feed, t(60), vec![]);
    held.update.state = FeedState::Paused;
    held.update.state_reason = Some("blocked: do-not-crawl: host example.org (FF13)".into());
    held.update.held_by = Some("do-not-crawl: host example.org (FF13)".into());
    f.server.store.apply_fetch(held).await.unwrap();
    is_problem(&f.patch(r#"{"paused": false}"#).await, 422, "refused");
    assert_eq!(f.stored().await.state, FeedState::Paused);

    // A feed removed on request (WFM10) stays removed.
    f.server.store.remove_feed(f.feed).await.unwrap();
    is_problem(&f.patch(r#"{"paused": false}"#).await, 422, "refused");
    assert_eq!(f.stored().await.state, FeedState::Removed);
}
