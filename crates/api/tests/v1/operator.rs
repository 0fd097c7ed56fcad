//! What an operator does with an admin key: do-not-crawl rules (FF13) that pause and resume
//! feeds at once, removal on request (WFM10), OPML import and export.

use crate::auth::{call, is_problem, key};
use crate::support::{Server, send};
use tidings_api::auth::Role;
use tidings_store::FeedState;

#[tokio::test]
async fn ff13_a_rule_added_through_the_api_pauses_covered_feeds_and_removing_it_resumes_them() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let covered = server
        .subscribe("https://Example.org/feed.xml", "alice")
        .await;
    let elsewhere = server
        .subscribe("https://other.example/feed.xml", "alice")
        .await;

    let body = r#"{"kind": "host", "value": " EXAMPLE.org ", "reason": "asked by its publisher"}"#;
    let added = call(&server, "POST", "/v1/rules", Some(&admin), Some(body)).await;
    assert_eq!(added.0, 201, "{}", added.2);
    assert_eq!(added.2["rule"]["kind"], "host");
    assert_eq!(added.2["rule"]["value"], "example.org");
    assert_eq!(added.2["rule"]["reason"], "asked by its publisher");
    assert_eq!(added.2["new"], true);
    assert_eq!(added.2["paused"], serde_json::json!([covered.0]));
    let held = server.store.feed(covered).await.unwrap().unwrap();
    assert_eq!(held.state, FeedState::Paused);
    assert_eq!(
        held.state_reason.as_deref(),
        Some("blocked: do-not-crawl: host example.org (FF13)")
    );
    let free = server.store.feed(elsewhere).await.unwrap().unwrap();
    assert_eq!(free.state, FeedState::Active);

    let again = call(&server, "POST", "/v1/rules", Some(&admin), Some(body)).await;
    assert_eq!(again.0, 200, "{}", again.2);
    assert_eq!(again.2["new"], false);
    assert_eq!(again.2["rule"]["id"], added.2["rule"]["id"]);

    let listed = call(&server, "GET", "/v1/rules", Some(&admin), None).await;
    assert_eq!(listed.0, 200);
    assert_eq!(listed.2["rules"].as_array().map(Vec::len), Some(1));

    let id = added.2["rule"]["id"].as_i64().expect("rule id");
    let removed = call(
        &server,
        "DELETE",
        &format!("/v1/rules/{id}"),
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(removed.0, 200, "{}", removed.2);
    assert_eq!(removed.2["resumed"], serde_json::json!([covered.0]));
    let back = server.store.feed(covered).await.unwrap().unwrap();
    assert_eq!((back.state, back.state_reason), (FeedState::Active, None));
    assert!(server.store.blocks().await.unwrap().is_empty());
    is_problem(
        &call(
            &server,
            "DELETE",
            &format!("/v1/rules/{id}"),
            Some(&admin),
            None,
        )
        .await,
        404,
        "not-found",
    );
}

#[tokio::test]
async fn bad_rules_are_400s_and_rules_need_an_admin_key() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    for (body, parameter) in [
        (r#"{"kind": "planet", "value": "mars"}"#, "kind"),
        (r#"{"kind": "url", "value": "not a url"}"#, "value"),
        (
            r#"{"kind": "url", "value": "ftp://example.org/feed"}"#,
            "value",
        ),
        (r#"{"kind": "host", "value": "  "}"#, "value"),
        (r#"{"kind": "host"}"#, "body"),
        (
            r#"{"kind": "host", "value": "a.example", "extra": 1}"#,
            "body",
        ),
        ("[]", "body"),
    ] {
        let answer = call(&server, "POST", "/v1/rules", Some(&admin), Some(body)).await;
        is_problem(&answer, 400, "invalid-parameter");
        assert_eq!(answer.2["parameter"], parameter, "{body}");
    }
    assert!(server.store.blocks().await.unwrap().is_empty());
    is_problem(
        &call(&server, "GET", "/v1/rules", Some(&reader), None).await,
        403,
        "forbidden",
    );
    is_problem(
        &call(&server, "GET", "/v1/rules", None, None).await,
        401,
        "unauthorized",
    );
    let host = r#"{"kind": "host", "value": "a.example"}"#;
    is_problem(
        &call(&server, "POST", "/v1/rules", Some(&reader), Some(host)).await,
        403,
        "forbidden",
    );
    is_problem(
        &call(&server, "DELETE", "/v1/rules/x", Some(&admin), None).await,
        400,
        "invalid-parameter",
    );
}

#[tokio::test]
async fn wfm10_a_feed_removed_on_request_ends_its_subscriptions_and_cannot_come_back() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    server
        .subscribe("https://example.org/feed.xml", "bob")
        .await;

    let body = r#"{"reason": "the publisher asked on 2026-11-30", "block": true}"#;
    let path = format!("/v1/feeds/{feed}/removal");
    let removed = call(&server, "POST", &path, Some(&admin), Some(body)).await;
    assert_eq!(removed.0, 200, "{}", removed.2);
    assert_eq!(removed.2["feed"]["state"], "removed");
    assert_eq!(removed.2["feed"]["subscribers"], 0);
    assert_eq!(removed.2["subscriptions_ended"], 2);
    assert_eq!(removed.2["rules"][0]["kind"], "url");
    assert_eq!(
        removed.2["rules"][0]["value"],
        "https://example.org/feed.xml"
    );
    assert_eq!(
        removed.2["rules"][0]["reason"],
        "the publisher asked on 2026-11-30"
    );
    assert!(
        server
            .store
            .due_feeds(chrono::Utc::now() + chrono::Duration::days(400), 10)
            .await
            .unwrap()
            .is_empty()
    );

    let again = call(
        &server,
        "POST",
        "/v1/feeds",
        Some(&admin),
        Some(r#"{"url": "https://example.org/feed.xml"}"#),
    )
    .await;
    is_problem(&again, 422, "refused");
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/feeds/999/removal",
            Some(&admin),
            Some("{}"),
        )
        .await,
        404,
        "not-found",
    );
}

const OPML: &str = r#"<?xml version="1.0"?>
<opml version="2.0"><head><title>mine</title></head><body>
  <outline text="News">
    <outline type="rss" text="One" xmlUrl="https://one.example/feed.xml"/>
    <outline type="rss" text="Blocked" xmlUrl="https://blocked.example/feed.xml"/>
    <outline type="rss" text="Odd" xmlUrl="ftp://files.example/feed"/>
  </outline>
  <outline type="rss" text="One again" xmlUrl="https://one.example/feed.xml"/>
</body></opml>"#;

#[tokio::test]
async fn opml_imports_subscribe_the_key_and_exports_list_its_feeds() {
    let server = Server::start().await;
    let (admin_id, admin) = key(&server, Role::Admin).await;
    let (_, other) = key(&server, Role::Admin).await;
    let rule = r#"{"kind": "host", "value": "blocked.example"}"#;
    assert_eq!(
        call(&server, "POST", "/v1/rules", Some(&admin), Some(rule))
            .await
            .0,
        201
    );

    let imported = call(&server, "POST", "/v1/opml", Some(&admin), Some(OPML)).await;
    assert_eq!(imported.0, 200, "{}", imported.2);
    let report = &imported.2;
    assert_eq!(report["subscribed"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        report["already"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert_eq!(
        report["refused"][0]["url"],
        "https://blocked.example/feed.xml"
    );
    assert!(
        report["refused"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("do-not-crawl: host blocked.example")),
        "{report}"
    );
    assert_eq!(report["skipped"][0]["url"], "ftp://files.example/feed");
    let feeds = server
        .store
        .feeds_of(&format!("key:{admin_id}"))
        .await
        .unwrap();
    assert_eq!(feeds.len(), 1);
    assert_eq!(feeds[0].url.as_str(), "https://one.example/feed.xml");

    let auth = format!("Authorization: Bearer {admin}\r\n");
    let (status, head, body) = send(server.addr, "GET", "/v1/opml?mine=true", &auth, None).await;
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/x-opml"),
        "{head}"
    );
    let doc = String::from_utf8(body).expect("utf-8");
    assert!(
        doc.contains("xmlUrl=\"https://one.example/feed.xml\""),
        "{doc}"
    );
    assert!(!doc.contains("blocked.example"), "{doc}");
    let round_trip = tidings_feed::opml::read(&doc).expect("our export reads back");
    assert_eq!(round_trip.len(), 1);

    let theirs = format!("Authorization: Bearer {other}\r\n");
    let (_, _, body) = send(server.addr, "GET", "/v1/opml?mine=true", &theirs, None).await;
    let empty = tidings_feed::opml::read(&String::from_utf8(body).expect("utf-8")).expect("opml");
    assert!(empty.is_empty(), "another key subscribed to nothing");

    for bad in ["not xml at all", "<html><body>hi</body></html>"] {
        is_problem(
            &call(&server, "POST", "/v1/opml", Some(&admin), Some(bad)).await,
            400,
            "invalid-parameter",
        );
    }
}
