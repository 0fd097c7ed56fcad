//! Cross-site request forgery through the UI's login cookie (issue 12, item 2): a browser
//! logged in to the UI attaches the cookie to a `text/plain` POST another site makes it send,
//! without a preflight. The API takes only a Bearer header, so every write it documents
//! refuses such a request and changes nothing; the same write with the Bearer key works.

use crate::auth::is_problem;
use crate::support::{Server, send_typed, t};
use std::collections::BTreeSet;
use tidings_api::auth::Role;
use tidings_model::FeedUrl;
use tidings_store::{NewBlock, NewFeed};

/// One documented write, with a body an admin key's request succeeds with.
struct Write {
    method: &'static str,
    /// The documented path; `{id}` is replaced by the fixture's feed or rule id.
    path: &'static str,
    content_type: &'static str,
    body: Option<&'static str>,
    /// What the Bearer request answers.
    ok: u16,
}

const OPML: &str = r#"<?xml version="1.0"?>
<opml version="2.0"><head><title>evil</title></head><body>
<outline type="rss" text="x" xmlUrl="https://evil.example/feed.xml"/>
</body></opml>"#;

/// Every write route of `/v1`, in an order in which each succeeds after the ones before.
const WRITES: &[Write] = &[
    Write {
        method: "POST",
        path: "/v1/feeds",
        content_type: "application/json",
        body: Some(r#"{"url": "https://evil.example/new.xml"}"#),
        ok: 201,
    },
    Write {
        method: "PATCH",
        path: "/v1/feeds/{id}",
        content_type: "application/json",
        body: Some(r#"{"paused": true}"#),
        ok: 200,
    },
    Write {
        method: "PATCH",
        path: "/v1/subscriptions/{id}",
        content_type: "application/json",
        body: Some(r#"{"folder": "Forged"}"#),
        ok: 200,
    },
    Write {
        method: "POST",
        path: "/v1/reading/marks",
        content_type: "application/json",
        body: Some(r#"{"entry_ids": [1], "starred": true}"#),
        ok: 200,
    },
    Write {
        method: "POST",
        path: "/v1/reading/mark-all-read",
        content_type: "application/json",
        body: Some("{}"),
        ok: 200,
    },
    Write {
        method: "DELETE",
        path: "/v1/feeds/{id}",
        content_type: "application/json",
        body: None,
        ok: 204,
    },
    Write {
        method: "POST",
        path: "/v1/feeds/{id}/removal",
        content_type: "application/json",
        body: Some(r#"{"reason": "forged"}"#),
        ok: 200,
    },
    Write {
        method: "POST",
        path: "/v1/discovery/held/{id}",
        content_type: "application/json",
        body: Some(r#"{"decision": "reject"}"#),
        ok: 200,
    },
    Write {
        method: "POST",
        path: "/v1/discovery/jobs",
        content_type: "application/json",
        body: Some(r#"{"url": "https://evil.example/", "kind": "discover"}"#),
        ok: 202,
    },
    Write {
        method: "POST",
        path: "/v1/catalogue",
        content_type: "application/json",
        body: Some(r#"{"url": "https://evil.example/feed.xml"}"#),
        ok: 202,
    },
    Write {
        method: "POST",
        path: "/v1/rules",
        content_type: "application/json",
        body: Some(r#"{"kind": "host", "value": "victim.example"}"#),
        ok: 201,
    },
    Write {
        method: "DELETE",
        path: "/v1/rules/{id}",
        content_type: "application/json",
        body: None,
        ok: 200,
    },
    Write {
        method: "DELETE",
        path: "/v1/catalogue/{id}",
        content_type: "application/json",
        body: None,
        ok: 204,
    },
    Write {
        method: "POST",
        path: "/v1/opml",
        content_type: "text/x-opml",
        body: Some(OPML),
        ok: 200,
    },
];

/// Every `(METHOD, path)` of the OpenAPI document that may change something.
fn documented_writes() -> BTreeSet<(String, String)> {
    let doc = serde_json::to_value(tidings_api::openapi::document()).expect("document as JSON");
    let paths = doc["paths"].as_object().expect("paths");
    let mut writes = BTreeSet::new();
    for (path, item) in paths {
        for method in item.as_object().expect("path item").keys() {
            if matches!(method.as_str(), "post" | "put" | "patch" | "delete") {
                writes.insert((method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    writes
}

#[test]
fn every_documented_write_is_in_the_table() {
    let table: BTreeSet<(String, String)> = WRITES
        .iter()
        .map(|w| (w.method.to_owned(), w.path.to_owned()))
        .collect();
    assert_eq!(
        documented_writes(),
        table,
        "a write route was added or removed: list it in WRITES so its CSRF test runs"
    );
}

/// What the writes could change: feeds (and their states), subscriptions (with their folders
/// and unread counts), rules.
async fn snapshot(server: &Server, account: i64) -> String {
    let feeds = server.store.feeds().await.expect("feeds");
    let mine = server
        .store
        .feeds_of(&tidings_store::account_subscriber(account))
        .await
        .expect("feeds of");
    let reading = server
        .store
        .subscriptions(account)
        .await
        .expect("subscriptions");
    let rules = server.store.blocks().await.expect("rules");
    let held = server.store.held_checks(100).await.expect("held");
    let jobs = server.store.page_jobs(100).await.expect("page jobs");
    let catalogue = server.store.catalogue().await.expect("catalogue");
    format!("{feeds:?}\n{mine:?}\n{reading:?}\n{rules:?}\n{held:?}\n{jobs:?}\n{catalogue:?}")
}

#[tokio::test]
async fn a_cookie_from_another_site_writes_nothing_and_the_bearer_key_does() {
    let server = Server::start().await;
    // An admin key of an account: every write, the account's own reading included, works
    // with it as a Bearer token.
    let account = server
        .store
        .add_account(&tidings_store::NewAccount {
            name: "ops".into(),
            role: tidings_store::AccountRole::Admin,
            password_hash: "$argon2id$x".into(),
            created_at: t(0),
        })
        .await
        .expect("account")
        .expect("new account")
        .id;
    let (admin, mut new_key) = tidings_api::auth::issue(None, Role::Admin, t(0)).expect("key");
    new_key.account_id = Some(account);
    server.store.create_key(&new_key).await.expect("create key");
    let new = NewFeed {
        next_fetch_at: t(0),
        next_fetch_reason: "first add".to_owned(),
        interval_secs: 3600,
    };
    let url = FeedUrl::parse("https://example.org/feed.xml").expect("url");
    let placement = tidings_store::Placement::default();
    let feed = server
        .store
        .subscribe_account(&url, account, &placement, t(0), &new)
        .await
        .expect("subscribe")
        .feed_id;
    server
        .store
        .add_to_catalogue(feed, "test", t(0))
        .await
        .expect("catalogue");
    let rule = server
        .store
        .add_block(&NewBlock {
            kind: "host".into(),
            value: "blocked.example".into(),
            reason: None,
            created_at: t(0),
        })
        .await
        .expect("rule")
        .block
        .id;
    // A feed found that may be the subscribed one, held for review (FF3).
    let held = server
        .store
        .apply_check(&tidings_store::CheckApply {
            check: tidings_store::UrlCheck {
                url: "https://mirror.example/feed.xml".into(),
                at: t(0),
                disposition: tidings_model::Disposition::Held,
                reason: "FF3: 10 of 20 entry ids in common".into(),
                feed_id: Some(feed),
                source: tidings_model::CheckSource::Submitted,
                found_on: None,
            },
            log: Vec::new(),
            host_floor: None,
        })
        .await
        .expect("held check");
    let path_of = |write: &Write| {
        let id = if write.path.starts_with("/v1/rules") {
            rule.to_string()
        } else if write.path.starts_with("/v1/discovery") {
            held.to_string()
        } else {
            feed.to_string()
        };
        write.path.replace("{id}", &id)
    };

    let before = snapshot(&server, account).await;
    let forged = format!("Cookie: tidings_key={admin}\r\nOrigin: http://evil.example\r\n");
    for write in WRITES {
        let path = path_of(write);
        let (status, head, body) = send_typed(
            server.addr,
            write.method,
            &path,
            &forged,
            "text/plain",
            Some(write.body.unwrap_or("")),
        )
        .await;
        let json = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        let answer = (status, head, json);
        is_problem(&answer, 401, "unauthorized");
        assert_eq!(
            snapshot(&server, account).await,
            before,
            "{} {path} changed the store",
            write.method
        );
    }

    let bearer = format!("Authorization: Bearer {admin}\r\n");
    for write in WRITES {
        let path = path_of(write);
        let (status, _, body) = send_typed(
            server.addr,
            write.method,
            &path,
            &bearer,
            write.content_type,
            write.body,
        )
        .await;
        assert_eq!(
            status,
            write.ok,
            "{} {path}: {}",
            write.method,
            String::from_utf8_lossy(&body)
        );
    }
    assert_ne!(snapshot(&server, account).await, before);
}
