//! The Miniflux-compatible API replayed as newsboat 2.21 speaks it (the requests it makes on
//! the wire: categories, feeds, each feed's entries newest first, `PUT /v1/entries` with a
//! JSON body labelled as a form), against a real server with a fresh SQLite store.

#[path = "v1/support.rs"]
#[allow(dead_code)]
mod support;

use base64::Engine;
use serde_json::Value;
use support::{Server, dated, ok, send, send_typed, t};
use tidings_model::FeedUrl;
use tidings_store::{AccountRole, NewAccount, NewFeed, Placement, ReadStatus, ReadingQuery};

const PREFIX: &str = "/compat/miniflux";

/// A server with account `ana` (API password `sync-secret-1`) subscribed to two feeds, one in
/// folder "News", with 3 and 2 entries.
async fn setup() -> (Server, i64) {
    let server = Server::start().await;
    let hash = tidings_api::accounts::hash_password("login-secret-1").unwrap();
    let api = tidings_api::accounts::hash_password("sync-secret-1").unwrap();
    let ana = server
        .store
        .add_account(&NewAccount {
            name: "Ana".into(),
            role: AccountRole::Reader,
            password_hash: hash,
            created_at: t(0),
        })
        .await
        .unwrap()
        .unwrap()
        .id;
    assert!(
        server
            .store
            .set_api_password("ana", Some(&api), t(0))
            .await
            .unwrap()
    );
    for (url, folder, n) in [
        ("https://one.example/feed.xml", Some("News"), 3),
        ("https://two.example/feed.xml", None, 2),
    ] {
        let placement = Placement {
            title: None,
            folder: folder.map(str::to_owned),
        };
        let new = NewFeed {
            next_fetch_at: t(0),
            next_fetch_reason: "first add".into(),
            interval_secs: 3600,
        };
        let feed = server
            .store
            .subscribe_account(&FeedUrl::parse(url).unwrap(), ana, &placement, t(0), &new)
            .await
            .unwrap()
            .feed_id;
        let entries = (0..n)
            .map(|i| {
                let mut e = dated(&format!("{url}#{i}"), t(60 * i));
                e.content = Some(format!(
                    "<p>Entry {i}</p><script>alert(1)</script><a href=\"javascript:x\">x</a>"
                ));
                e
            })
            .collect();
        server
            .store
            .apply_fetch(ok(feed, t(600), entries))
            .await
            .unwrap();
    }
    (server, ana)
}

fn basic(name: &str, password: &str) -> String {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"));
    format!("Authorization: Basic {token}\r\nUser-Agent: newsboat/2.21.0 (Linux x86_64)\r\n")
}

async fn get(server: &Server, path: &str, auth: &str) -> (u16, Value) {
    let (status, _, body) = send(server.addr, "GET", &format!("{PREFIX}{path}"), auth, None).await;
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

async fn unread(server: &Server, ana: i64) -> u64 {
    let q = ReadingQuery {
        account: ana,
        status: Some(ReadStatus::Unread),
        ..Default::default()
    };
    server.store.count_reading(&q).await.unwrap()
}

#[tokio::test]
async fn miniflux_newsboat_sequence_reads_lists_and_marks_read() {
    let (server, ana) = setup().await;
    let auth = basic("ana", "sync-secret-1");

    let (status, categories) = get(&server, "/v1/categories", &auth).await;
    assert_eq!(status, 200);
    let titles: Vec<&str> = categories
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, vec!["All", "News"]);

    let (status, feeds) = get(&server, "/v1/feeds", &auth).await;
    assert_eq!(status, 200);
    let feeds = feeds.as_array().unwrap();
    assert_eq!(feeds.len(), 2);
    for feed in feeds {
        assert!(feed["id"].as_i64().unwrap() < 1 << 31);
        assert!(feed["category"].is_object(), "newsboat reads category.id");
        assert!(feed["feed_url"].as_str().unwrap().starts_with("https://"));
    }
    let news = categories[1]["id"].as_i64().unwrap();
    let one = feeds
        .iter()
        .find(|f| f["category"]["id"].as_i64() == Some(news))
        .unwrap();

    let path = format!(
        "/v1/feeds/{}/entries?order=published_at&direction=desc",
        one["id"]
    );
    let (status, listed) = get(&server, &path, &auth).await;
    assert_eq!(status, 200);
    assert_eq!(listed["total"], 3);
    let entries = listed["entries"].as_array().unwrap();
    let published: Vec<&str> = entries
        .iter()
        .map(|e| e["published_at"].as_str().unwrap())
        .collect();
    let mut sorted = published.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(published, sorted, "newest first");
    for e in entries {
        assert_eq!(e["status"], "unread");
        let content = e["content"].as_str().unwrap();
        assert!(content.contains("Entry"), "{content}");
        assert!(
            !content.contains("script") && !content.contains("javascript:"),
            "{content}"
        );
        assert!(e["id"].as_i64().unwrap() < 1 << 31);
    }
    assert_eq!(unread(&server, ana).await, 5);

    // newsboat's read mark: a JSON body sent as a form; the answer must be empty.
    let first = entries[0]["id"].as_i64().unwrap();
    let body = format!("{{\"entry_ids\":[{first}],\"status\":\"read\"}}");
    let (status, _, answer) = send_typed(
        server.addr,
        "PUT",
        &format!("{PREFIX}/v1/entries"),
        &auth,
        "application/x-www-form-urlencoded",
        Some(&body),
    )
    .await;
    assert_eq!(status, 204);
    assert!(
        answer.is_empty(),
        "newsboat takes any reply body as a failure"
    );
    assert_eq!(unread(&server, ana).await, 4);

    // Marking the feed read: every id of it at once.
    let ids: Vec<String> = entries.iter().map(|e| e["id"].to_string()).collect();
    let body = format!("{{\"entry_ids\":[{}],\"status\":\"read\"}}", ids.join(","));
    let (status, _, _) = send_typed(
        server.addr,
        "PUT",
        &format!("{PREFIX}/v1/entries"),
        &auth,
        "application/x-www-form-urlencoded",
        Some(&body),
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(unread(&server, ana).await, 2);
    let (_, counters) = get(&server, "/v1/feeds/counters", &auth).await;
    assert_eq!(counters["unreads"][one["id"].to_string()], 0);
    assert_eq!(counters["reads"][one["id"].to_string()], 3);

    // Scripts: unread entries, a limit, starring.
    let (_, page) = get(&server, "/v1/entries?status=unread&limit=1", &auth).await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["entries"].as_array().unwrap().len(), 1);
    let id = page["entries"][0]["id"].clone();
    let (status, _, _) = send(
        server.addr,
        "PUT",
        &format!("{PREFIX}/v1/entries/{id}/bookmark"),
        &auth,
        None,
    )
    .await;
    assert_eq!(status, 204);
    let (_, starred) = get(&server, "/v1/entries?starred=true", &auth).await;
    assert_eq!(starred["total"], 1);
    assert_eq!(starred["entries"][0]["id"], id);
    let (status, me) = get(&server, "/v1/me", &auth).await;
    assert_eq!((status, me["username"].as_str()), (200, Some("Ana")));
}

#[tokio::test]
async fn miniflux_refuses_bad_logins_and_bad_input_clearly() {
    let (server, ana) = setup().await;
    // The login password is not the API password; unknown names and no header are refused.
    for auth in [
        basic("ana", "login-secret-1"),
        basic("nobody", "sync-secret-1"),
        String::new(),
    ] {
        let (status, head, body) = send(
            server.addr,
            "GET",
            &format!("{PREFIX}/v1/feeds"),
            &auth,
            None,
        )
        .await;
        assert_eq!(status, 401, "{auth}");
        assert!(support::header(&head, "www-authenticate").is_some());
        let json: Value = serde_json::from_slice(&body).unwrap();
        assert!(json["error_message"].is_string());
    }
    let auth = basic("ana", "sync-secret-1");
    for (body, why) in [
        ("not json", "JSON"),
        ("{\"entry_ids\":[],\"status\":\"read\"}", "empty"),
        ("{\"entry_ids\":[1],\"status\":\"removed\"}", "status"),
    ] {
        let (status, _, answer) = send_typed(
            server.addr,
            "PUT",
            &format!("{PREFIX}/v1/entries"),
            &auth,
            "text/plain",
            Some(body),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        let json: Value = serde_json::from_slice(&answer).unwrap();
        assert!(
            json["error_message"].as_str().unwrap().contains(why),
            "{json}"
        );
    }
    for path in [
        "/v1/entries?limit=lots",
        "/v1/entries?direction=sideways",
        "/v1/entries?status=removed",
    ] {
        assert_eq!(get(&server, path, &auth).await.0, 400, "{path}");
    }
    // A feed the account does not subscribe to, and ids past 2^31, are not found.
    assert_eq!(get(&server, "/v1/feeds/999/entries", &auth).await.0, 404);
    assert_eq!(get(&server, "/v1/entries/5000000001", &auth).await.0, 404);
    assert_eq!(unread(&server, ana).await, 5, "nothing changed");
}
