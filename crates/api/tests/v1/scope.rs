//! Which entries a listing holds: by category, without expired ones (FF16) unless an admin
//! asks, and only the calling key's subscriptions with `mine=true` (also in the outputs).

use crate::auth::{call, is_problem, key};
use crate::support::{Server, dated, send, t};
use chrono::{Duration, Utc};
use tidings_api::auth::Role;
use tidings_model::Entry;

fn keys(page: &serde_json::Value) -> Vec<String> {
    page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["key"].as_str().expect("key").to_owned())
        .collect()
}

#[tokio::test]
async fn entries_filter_by_category() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let filed = |key: &str, at: i64, categories: &[&str]| Entry {
        categories: categories.iter().map(|c| (*c).to_owned()).collect(),
        ..dated(key, t(at))
    };
    server
        .read(
            feed,
            t(100),
            vec![
                filed("a", 10, &["Rust", "Async"]),
                filed("b", 20, &["rust"]),
                filed("c", 30, &["Go"]),
            ],
        )
        .await;
    let page = server.get("/v1/entries?category=RUST").await;
    assert_eq!(page.status, 200, "{}", page.json);
    assert_eq!(keys(&page.json), ["b", "a"]);
    let page = server.get("/v1/entries?category=go&feed=1").await;
    assert_eq!(keys(&page.json), ["c"]);
    let page = server.get("/v1/entries?category=rus").await;
    assert!(keys(&page.json).is_empty(), "whole categories only");
    let problem = server
        .problem("/v1/entries?category=%20", 400, "invalid-parameter")
        .await;
    assert_eq!(problem["parameter"], "category");
}

#[tokio::test]
async fn ff16_expired_entries_are_left_out_unless_an_admin_asks() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let expiring = |key: &str, at: i64, expires| Entry {
        expires: Some(expires),
        ..dated(key, t(at))
    };
    server
        .read(
            feed,
            t(100),
            vec![
                expiring("expired", 10, t(50)),
                expiring("valid", 20, Utc::now() + Duration::days(365)),
                dated("plain", t(30)),
            ],
        )
        .await;
    let page = server.get("/v1/entries").await;
    assert_eq!(keys(&page.json), ["plain", "valid"]);
    let page = server.get("/v1/entries?q=expired").await;
    assert!(keys(&page.json).is_empty(), "search leaves it out too");

    let all = call(
        &server,
        "GET",
        "/v1/entries?include_expired=true",
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(all.0, 200, "{}", all.2);
    assert_eq!(keys(&all.2), ["plain", "valid", "expired"]);
    is_problem(
        &call(
            &server,
            "GET",
            "/v1/entries?include_expired=true",
            Some(&reader),
            None,
        )
        .await,
        403,
        "forbidden",
    );
    is_problem(
        &call(
            &server,
            "GET",
            "/v1/entries?include_expired=true",
            None,
            None,
        )
        .await,
        403,
        "forbidden",
    );
    is_problem(
        &call(
            &server,
            "GET",
            "/v1/entries?include_expired=perhaps",
            Some(&admin),
            None,
        )
        .await,
        400,
        "invalid-parameter",
    );

    // The outputs never carry it.
    let (_, _, atom) = send(server.addr, "GET", "/v1/entries/atom", "", None).await;
    let atom = String::from_utf8(atom).expect("utf-8");
    assert!(
        atom.contains("Title valid") && !atom.contains("Title expired"),
        "{atom}"
    );
    let (_, _, json) = send(
        server.addr,
        "GET",
        &format!("/v1/feeds/{feed}/feed.json"),
        "",
        None,
    )
    .await;
    let json = String::from_utf8(json).expect("utf-8");
    assert!(
        json.contains("Title plain") && !json.contains("Title expired"),
        "{json}"
    );
}

#[tokio::test]
async fn mine_lists_only_the_keys_subscriptions_in_entries_and_outputs() {
    let server = Server::start().await;
    let (reader_id, reader) = key(&server, Role::Reader).await;
    let mine = server
        .subscribe("https://one.example/feed.xml", &format!("key:{reader_id}"))
        .await;
    let other = server
        .subscribe("https://two.example/feed.xml", "someone")
        .await;
    server.read(mine, t(100), vec![dated("mine", t(10))]).await;
    server
        .read(other, t(100), vec![dated("other", t(20))])
        .await;

    let everything = server.get("/v1/entries").await;
    assert_eq!(keys(&everything.json), ["other", "mine"]);
    let page = call(&server, "GET", "/v1/entries?mine=true", Some(&reader), None).await;
    assert_eq!(page.0, 200, "{}", page.2);
    assert_eq!(keys(&page.2), ["mine"]);
    is_problem(
        &call(&server, "GET", "/v1/entries?mine=true", None, None).await,
        401,
        "unauthorized",
    );

    let auth = format!("Authorization: Bearer {reader}\r\n");
    let (status, _, body) = send(
        server.addr,
        "GET",
        "/v1/entries/feed.json?mine=true",
        &auth,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let feed: serde_json::Value = serde_json::from_slice(&body).expect("json feed");
    let titles: Vec<_> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["title"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(titles, ["Title mine"]);
    assert_eq!(
        feed["title"],
        format!("tidings: the subscriptions of key {reader_id}")
    );
    let (status, _, body) = send(
        server.addr,
        "GET",
        "/v1/entries/atom?mine=true",
        &auth,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let atom = String::from_utf8(body).expect("utf-8");
    assert!(
        atom.contains("Title mine") && !atom.contains("Title other"),
        "{atom}"
    );
}

/// A reader key of an account lists only its account's feeds, asked or not; an admin key of
/// an account may list every feed (the operator's view).
#[tokio::test]
async fn an_accounts_reader_key_sees_only_its_feeds() {
    let server = Server::start().await;
    let account = server
        .store
        .add_account(&tidings_store::NewAccount {
            name: "ana".into(),
            role: tidings_store::AccountRole::Reader,
            password_hash: tidings_api::accounts::hash_password("a long password").unwrap(),
            created_at: t(0),
        })
        .await
        .unwrap()
        .unwrap()
        .id;
    let mut tokens = Vec::new();
    for role in [Role::Reader, Role::Admin] {
        let (token, mut new) = tidings_api::auth::issue(None, role, t(0)).unwrap();
        new.account_id = Some(account);
        server.store.create_key(&new).await.unwrap();
        tokens.push(token);
    }
    let placement = tidings_store::Placement {
        title: Some("Ana's own".into()),
        folder: Some("News".into()),
    };
    let mine = server
        .store
        .subscribe_account(
            &tidings_model::FeedUrl::parse("https://one.example/feed.xml").unwrap(),
            account,
            &placement,
            t(0),
            &tidings_store::NewFeed {
                next_fetch_at: t(0),
                next_fetch_reason: "first add".into(),
                interval_secs: 3600,
            },
        )
        .await
        .unwrap()
        .feed_id;
    let other = server
        .subscribe("https://two.example/feed.xml", "someone")
        .await;
    server.read(mine, t(100), vec![dated("mine", t(10))]).await;
    server
        .read(other, t(100), vec![dated("other", t(20))])
        .await;
    let page = call(&server, "GET", "/v1/entries", Some(&tokens[0]), None).await;
    assert_eq!(page.0, 200, "{}", page.2);
    assert_eq!(keys(&page.2), ["mine"]);
    let page = call(&server, "GET", "/v1/entries", Some(&tokens[1]), None).await;
    assert_eq!(keys(&page.2), ["other", "mine"]);
    // Its OPML is the account's: its feed, with its title, in its folder.
    let auth = format!("Authorization: Bearer {}\r\n", tokens[0]);
    let (status, _, body) = send(server.addr, "GET", "/v1/opml?mine=true", &auth, None).await;
    assert_eq!(status, 200);
    let opml = String::from_utf8(body).expect("utf-8");
    assert!(opml.contains("text=\"News\""), "{opml}");
    assert!(opml.contains("text=\"Ana&#39;s own\""), "{opml}");
    assert!(
        opml.contains("one.example") && !opml.contains("two.example"),
        "{opml}"
    );
}
