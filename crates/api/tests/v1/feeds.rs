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
