//! `GET /v1/feeds` and `GET /v1/feeds/{id}`.

use crate::support::{Server, dated, t};

#[tokio::test]
async fn feeds_are_listed_with_state_schedule_and_validators() {
    let server = Server::start().await;
    let read = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    server
        .subscribe("https://one.example/feed.xml", "bob")
        .await;
    let unread = server.subscribe("https://two.example/atom", "alice").await;
    server.read(read, t(60), vec![dated("a", t(30))]).await;

    let answer = server.get("/v1/feeds").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    let feeds = answer.json["feeds"].as_array().expect("feeds array");
    assert_eq!(feeds.len(), 2);

    let one = &feeds[0];
    assert_eq!(one["id"], read.0);
    assert_eq!(one["url"], "https://one.example/feed.xml");
    assert_eq!(one["title"], "A feed");
    assert_eq!(one["state"], "active");
    assert_eq!(one["state_reason"], serde_json::Value::Null);
    assert_eq!(one["next_fetch_at"], "2026-01-01T01:01:00Z");
    assert_eq!(one["next_fetch_reason"], "interval 1h");
    assert_eq!(one["last_status"], 200);
    assert_eq!(one["last_outcome"], "ok");
    assert_eq!(one["subscribers"], 2);
    assert_eq!(
        one["validators"],
        serde_json::json!({"etag": true, "last_modified": false})
    );
    assert_eq!(one["counters"]["fetches"], 1);
    assert!(
        !answer.json.to_string().contains("\\\"v60\\\""),
        "validator values stay private"
    );

    let two = &feeds[1];
    assert_eq!(two["id"], unread.0);
    assert_eq!(two["title"], serde_json::Value::Null);
    assert_eq!(two["next_fetch_reason"], "first add");
    assert_eq!(two["last_status"], serde_json::Value::Null);
    assert_eq!(two["last_outcome"], serde_json::Value::Null);
    assert_eq!(
        two["validators"],
        serde_json::json!({"etag": false, "last_modified": false})
    );
}

#[tokio::test]
async fn an_empty_store_lists_no_feeds() {
    let server = Server::start().await;
    let answer = server.get("/v1/feeds").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json, serde_json::json!({"feeds": []}));
}

#[tokio::test]
async fn one_feed_by_id() {
    let server = Server::start().await;
    let id = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let answer = server.get(&format!("/v1/feeds/{}", id.0)).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json["id"], id.0);
    assert_eq!(answer.json["url"], "https://one.example/feed.xml");
    assert_eq!(answer.json["subscribers"], 1);
    let listed = server.get("/v1/feeds").await;
    assert_eq!(
        listed.json["feeds"][0], answer.json,
        "the same shape as in the list"
    );
}

#[tokio::test]
async fn a_missing_feed_is_a_404_problem() {
    let server = Server::start().await;
    let problem = server.problem("/v1/feeds/999", 404, "not-found").await;
    assert_eq!(problem["title"], "Not found");
    assert_eq!(problem["detail"], "no feed with id 999");
}

#[tokio::test]
async fn ff14_a_feeds_directives_and_their_history_are_served() {
    use tidings_rights::Directives;
    use tidings_rights::directive::Change;
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let noindex = Directives::parse_list("noindex");
    let mut first = crate::support::ok(feed, t(10), vec![dated("a", t(5))]);
    first.update.directives = Some(Change {
        seen: noindex,
        current: noindex,
        full: true,
    });
    server.store.apply_fetch(first).await.unwrap();
    let mut added = crate::support::ok(feed, t(20), Vec::new());
    added.update.directives = Some(Change {
        seen: Directives::parse_list("nosnippet"),
        current: Directives::parse_list("noindex, nosnippet"),
        full: false,
    });
    server.store.apply_fetch(added).await.unwrap();

    let one = server.get(&format!("/v1/feeds/{}", feed.0)).await;
    assert_eq!(one.json["directives"], "noindex, nosnippet");
    assert_eq!(
        one.json["decisions"],
        serde_json::json!({
            "index": {"allowed": false, "why": "noindex"},
            "archive": {"allowed": true, "why": "no noarchive directive"},
        })
    );
    let history = server
        .get(&format!("/v1/feeds/{}/directives", feed.0))
        .await;
    assert_eq!(history.status, 200);
    let changes = history.json["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0]["seen"], "nosnippet");
    assert_eq!(changes[0]["current"], "noindex, nosnippet");
    assert_eq!(changes[0]["full_response"], false);
    assert_eq!(changes[1]["current"], "noindex");
    assert_eq!(changes[1]["full_response"], true);
    assert_eq!(server.get("/v1/feeds/999/directives").await.status, 404);
    // A feed with none says so, and has no history.
    let other = server
        .subscribe("https://two.example/feed.xml", "alice")
        .await;
    let plain = server.get(&format!("/v1/feeds/{}", other.0)).await;
    assert_eq!(plain.json["directives"], "");
    assert_eq!(plain.json["decisions"]["index"]["allowed"], true);
    let empty = server
        .get(&format!("/v1/feeds/{}/directives", other.0))
        .await;
    assert_eq!(empty.json["changes"], serde_json::json!([]));
}

#[tokio::test]
async fn ff7_a_feeds_thumbnail_is_served_with_its_decision() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    assert_eq!(
        server.get(&format!("/v1/feeds/{}", feed.0)).await.json["image"],
        serde_json::Value::Null
    );
    let mut read = crate::support::ok(feed, t(10), Vec::new());
    if let Some(meta) = read.update.meta.as_mut() {
        meta.thumbnail = Some(tidings_model::SelectedImage {
            url: "https://one.example/logo.png".into(),
            source: "image".into(),
            shown: false,
            why: "no licence declared".into(),
            ..Default::default()
        });
    }
    server.store.apply_fetch(read).await.unwrap();
    let got = server.get(&format!("/v1/feeds/{}", feed.0)).await;
    assert_eq!(got.json["image"]["url"], "https://one.example/logo.png");
    assert_eq!(got.json["image"]["shown"], false);
    assert_eq!(got.json["image"]["why"], "no licence declared");
}

/// A feed's WebSub subscription: `null` until the hub was asked, then where it stands, never
/// its secret or callback token; 404 for no feed.
#[tokio::test]
async fn websub_a_feeds_subscription_is_shown_without_its_secret() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let path = format!("/v1/feeds/{}/websub", feed.0);
    let none = server.get(&path).await;
    assert_eq!(none.status, 200);
    assert!(none.json["subscription"].is_null(), "{}", none.json);
    server
        .store
        .save_websub(
            &tidings_store::WebSubRecord {
                feed_id: feed,
                token: "0123456789abcdef0123456789abcdef".into(),
                hub: "https://hub.example/".into(),
                topic: "https://one.example/feed.xml".into(),
                secret: "do-not-show".into(),
                state: tidings_model::SubscriptionState::Live,
                requested_at: t(0),
                lease_until: Some(t(3_600)),
                reason: None,
                pushes: 0,
                last_push_at: None,
            },
            &[],
        )
        .await
        .unwrap();
    let live = server.get(&path).await;
    assert_eq!(live.status, 200);
    let sub = &live.json["subscription"];
    assert_eq!(sub["state"], "live");
    assert_eq!(sub["hub"], "https://hub.example/");
    assert_eq!(sub["pushes"], 0);
    let text = live.json.to_string();
    assert!(
        !text.contains("do-not-show") && !text.contains("0123456789abcdef"),
        "{text}"
    );
    assert_eq!(server.get("/v1/feeds/999/websub").await.status, 404);
}
