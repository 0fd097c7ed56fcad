//! An account's own reading through `/v1`, with a key that belongs to the account: its
//! subscriptions and unread counts, its entries with their state, marks, "mark all read", and
//! a subscription renamed and filed; other keys are refused.

use crate::auth::{call, key};
use crate::support::{Server, dated, ok, t};
use tidings_api::auth::{Role, issue};
use tidings_store::{AccountRole, NewAccount};

/// An account and a key of it; returns the account id and the token.
async fn account_key(server: &Server, name: &str, role: AccountRole) -> (i64, String) {
    let account = server
        .store
        .add_account(&NewAccount {
            name: name.into(),
            role,
            password_hash: "$argon2id$x".into(),
            created_at: t(0),
        })
        .await
        .unwrap()
        .unwrap();
    let key_role = match role {
        AccountRole::Admin => Role::Admin,
        AccountRole::Reader => Role::Reader,
    };
    let (token, mut new) = issue(None, key_role, t(0)).unwrap();
    new.account_id = Some(account.id);
    server.store.create_key(&new).await.unwrap();
    (account.id, token)
}

#[tokio::test]
async fn an_accounts_key_reads_and_marks_its_own_entries() {
    let server = Server::start().await;
    let (_, ana) = account_key(&server, "ana", AccountRole::Admin).await;
    let (_, bo) = account_key(&server, "bo", AccountRole::Reader).await;
    let (_, admin) = key(&server, Role::Admin).await;

    // An account's admin key subscribes its account; a reader key may not subscribe.
    let (status, _, feed) = call(
        &server,
        "POST",
        "/v1/feeds",
        Some(&ana),
        Some(r#"{"url": "https://one.example/feed.xml"}"#),
    )
    .await;
    assert_eq!(status, 201, "{feed}");
    let feed_id = feed["id"].as_i64().unwrap();
    let (status, _, _) = call(
        &server,
        "POST",
        "/v1/feeds",
        Some(&bo),
        Some(r#"{"url": "https://one.example/feed.xml"}"#),
    )
    .await;
    assert_eq!(status, 403);
    let (status, _, _) = call(
        &server,
        "PATCH",
        &format!("/v1/subscriptions/{feed_id}"),
        Some(&ana),
        Some(r#"{"folder": "News"}"#),
    )
    .await;
    assert_eq!(status, 200);
    server
        .store
        .apply_fetch(ok(
            tidings_model::FeedId(feed_id),
            t(60),
            (0..4).map(|i| dated(&format!("e{i}"), t(i))).collect(),
        ))
        .await
        .unwrap();

    let (status, _, subs) = call(&server, "GET", "/v1/subscriptions", Some(&ana), None).await;
    assert_eq!(status, 200, "{subs}");
    assert_eq!(subs["unread"], 4);
    assert_eq!(subs["folders"][0]["folder"], "News");
    assert_eq!(
        subs["subscriptions"][0]["feed_url"],
        "https://one.example/feed.xml"
    );

    let (status, _, page) = call(
        &server,
        "GET",
        "/v1/reading?status=unread&limit=2",
        Some(&ana),
        None,
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 4);
    let entries = page["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["read"], false);
    let first = entries[0]["entry"]["id"].as_i64().unwrap();

    let body = format!(r#"{{"entry_ids": [{first}], "read": true, "starred": true}}"#);
    let (status, _, marked) = call(
        &server,
        "POST",
        "/v1/reading/marks",
        Some(&ana),
        Some(&body),
    )
    .await;
    assert_eq!(
        (status, marked["changed"].clone()),
        (200, serde_json::json!(1))
    );
    let (_, _, starred) = call(&server, "GET", "/v1/reading?starred=true", Some(&ana), None).await;
    assert_eq!(starred["total"], 1);
    assert_eq!(starred["entries"][0]["read"], true);

    // Bo has no subscription: nothing to read, and a mark of Ana's entry changes nothing.
    let (_, _, none) = call(&server, "GET", "/v1/reading", Some(&bo), None).await;
    assert_eq!(none["total"], 0);
    let (_, _, marked) = call(&server, "POST", "/v1/reading/marks", Some(&bo), Some(&body)).await;
    assert_eq!(marked["changed"], 0);

    let (status, _, sub) = call(
        &server,
        "PATCH",
        &format!("/v1/subscriptions/{feed_id}"),
        Some(&ana),
        Some(r#"{"title": "Mine", "folder": null}"#),
    )
    .await;
    assert_eq!(status, 200, "{sub}");
    assert_eq!(
        (sub["title"].as_str(), sub["folder"].is_null()),
        (Some("Mine"), true)
    );
    let (status, _, _) = call(
        &server,
        "PATCH",
        &format!("/v1/subscriptions/{feed_id}"),
        Some(&bo),
        Some(r#"{"title": "x"}"#),
    )
    .await;
    assert_eq!(status, 404, "not Bo's subscription");

    let (status, _, all) = call(
        &server,
        "POST",
        "/v1/reading/mark-all-read",
        Some(&ana),
        Some(&format!(r#"{{"feed_id": {feed_id}}}"#)),
    )
    .await;
    assert_eq!((status, all["marked"].clone()), (200, serde_json::json!(3)));
    let (_, _, subs) = call(&server, "GET", "/v1/subscriptions", Some(&ana), None).await;
    assert_eq!(subs["unread"], 0);

    // Refusals: no key, an operator's key, bad input.
    let (status, head, _) = call(&server, "GET", "/v1/subscriptions", None, None).await;
    assert_eq!(status, 401);
    assert!(head.to_ascii_lowercase().contains("www-authenticate"));
    let (status, _, problem) = call(&server, "GET", "/v1/reading", Some(&admin), None).await;
    assert_eq!(status, 403);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("keys create --user")
    );
    for (path, body) in [
        ("/v1/reading/marks", r#"{"entry_ids": [], "read": true}"#),
        ("/v1/reading/marks", r#"{"entry_ids": [1]}"#),
        ("/v1/reading/marks", r#"[1]"#),
        (
            "/v1/reading/mark-all-read",
            r#"{"feed_id": 1, "folder": "x"}"#,
        ),
    ] {
        let (status, _, _) = call(&server, "POST", path, Some(&ana), Some(body)).await;
        assert_eq!(status, 400, "{path} {body}");
    }
    let (status, _, _) = call(&server, "GET", "/v1/reading?status=maybe", Some(&ana), None).await;
    assert_eq!(status, 400);
}
