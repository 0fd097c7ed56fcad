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
    let api = tidings_api::accounts::api_password("Ana", "sync-secret-1").unwrap();
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

const GREADER: &str = "/compat/greader";

/// A form POST (or GET with the form as query) to the Google Reader API.
async fn greader(
    server: &Server,
    method: &str,
    path: &str,
    token: &str,
    form: &str,
) -> (u16, String, Vec<u8>) {
    let auth = if token.is_empty() {
        String::new()
    } else {
        format!("Authorization: GoogleLogin auth={token}\r\n")
    };
    if method == "GET" {
        let sep = if path.contains('?') { '&' } else { '?' };
        let path = if form.is_empty() {
            format!("{GREADER}{path}")
        } else {
            format!("{GREADER}{path}{sep}{form}")
        };
        send(server.addr, "GET", &path, &auth, None).await
    } else {
        send_typed(
            server.addr,
            "POST",
            &format!("{GREADER}{path}"),
            &auth,
            "application/x-www-form-urlencoded",
            Some(form),
        )
        .await
    }
}

async fn greader_json(server: &Server, path: &str, token: &str, form: &str) -> Value {
    let (status, _, body) = greader(server, "GET", path, token, form).await;
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

async fn greader_ok(server: &Server, path: &str, token: &str, form: &str) {
    let (status, _, body) = greader(server, "POST", path, token, form).await;
    assert_eq!(
        (status, String::from_utf8_lossy(&body).into_owned()),
        (200, "OK".to_owned()),
        "{path} {form}"
    );
}

#[tokio::test]
async fn greader_client_sequence_logs_in_lists_reads_and_marks() {
    let (server, ana) = setup().await;

    // ClientLogin: the API password, not the login one; lines of key=value, no `=` in the token.
    let (status, _, body) = greader(
        &server,
        "POST",
        "/accounts/ClientLogin",
        "",
        "Email=ana&Passwd=login-secret-1&service=reader&accountType=HOSTED_OR_GOOGLE",
    )
    .await;
    assert_eq!(status, 401);
    assert!(String::from_utf8_lossy(&body).contains("BadAuthentication"));
    let (status, _, body) = greader(
        &server,
        "POST",
        "/accounts/ClientLogin",
        "",
        "Email=ana&Passwd=sync-secret-1&service=reader&source=test",
    )
    .await;
    assert_eq!(status, 200);
    let text = String::from_utf8(body).unwrap();
    let lines: Vec<(&str, &str)> = text
        .lines()
        .map(|l| {
            let parts: Vec<&str> = l.split('=').collect();
            assert_eq!(parts.len(), 2, "NetNewsWire splits on '=': {l}");
            (parts[0], parts[1])
        })
        .collect();
    assert_eq!(
        lines.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        ["SID", "LSID", "Auth"]
    );
    let token = lines[2].1.to_owned();
    let (_, _, body) = greader(
        &server,
        "POST",
        "/accounts/ClientLogin",
        "",
        "Email=ana&Passwd=sync-secret-1&output=json",
    )
    .await;
    let json: Value = serde_json::from_slice(&body).unwrap();
    assert!(json["Auth"].as_str().is_some_and(|t| !t.contains('=')));

    // Never as a GET: the password would be in the URL.
    let (status, _, _) = greader(
        &server,
        "GET",
        "/accounts/ClientLogin",
        "",
        "Email=ana&Passwd=sync-secret-1",
    )
    .await;
    assert_eq!(status, 405);

    // A bad token: 401 with the header clients look for.
    let (status, head, _) = greader(&server, "GET", "/reader/api/0/user-info", "nope", "").await;
    assert_eq!(status, 401);
    assert_eq!(
        support::header(&head, "x-reader-google-bad-token").as_deref(),
        Some("true")
    );

    let (status, _, edit) = greader(&server, "GET", "/reader/api/0/token", &token, "").await;
    assert_eq!(
        (status, String::from_utf8(edit).unwrap()),
        (200, token.clone())
    );
    let info = greader_json(&server, "/reader/api/0/user-info", &token, "").await;
    assert_eq!(info["userName"], "Ana");

    let tags = greader_json(&server, "/reader/api/0/tag/list", &token, "output=json").await;
    let tag_ids: Vec<&str> = tags["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        tag_ids,
        ["user/-/state/com.google/starred", "user/-/label/News"]
    );

    let subs = greader_json(
        &server,
        "/reader/api/0/subscription/list",
        &token,
        "output=json",
    )
    .await;
    let subs = subs["subscriptions"].as_array().unwrap().clone();
    assert_eq!(subs.len(), 2);
    let news = subs
        .iter()
        .find(|s| s["categories"][0]["label"] == "News")
        .expect("the feed in News");
    let news_id = news["id"].as_str().unwrap().to_owned();
    assert!(news_id.starts_with("feed/"));

    let counts = greader_json(&server, "/reader/api/0/unread-count", &token, "output=json").await;
    let count_of = |id: &str| {
        counts["unreadcounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["count"].as_u64().unwrap())
    };
    assert_eq!(count_of("user/-/state/com.google/reading-list"), Some(5));
    assert_eq!(count_of("user/-/label/News"), Some(3));
    assert_eq!(count_of(&news_id), Some(3));

    // Unread ids of the reading list, decimal strings, paged with a continuation.
    let page = greader_json(
        &server,
        "/reader/api/0/stream/items/ids",
        &token,
        "s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read&n=3&output=json",
    )
    .await;
    let first: Vec<String> = page["itemRefs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(first.len(), 3);
    assert!(
        first.iter().all(|id| id.parse::<i64>().is_ok()),
        "{first:?}"
    );
    let c = page["continuation"]
        .as_str()
        .expect("more to come")
        .to_owned();
    let rest = greader_json(
        &server,
        "/reader/api/0/stream/items/ids",
        &token,
        &format!("xt=user/-/state/com.google/read&n=3&c={c}"),
    )
    .await;
    assert_eq!(rest["itemRefs"].as_array().unwrap().len(), 2);
    assert!(rest.get("continuation").is_none());

    // Contents by id, each id in another of the forms clients send.
    let ids: Vec<i64> = first.iter().map(|i| i.parse().unwrap()).collect();
    let form = format!(
        "i=tag:google.com,2005:reader/item/{:016x}&i=tag:google.com,2005:reader/item/{:x}&i={:016x}&output=json",
        ids[0], ids[1], ids[2]
    );
    let (status, _, body) = greader(
        &server,
        "POST",
        "/reader/api/0/stream/items/contents",
        &token,
        &form,
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let contents: Value = serde_json::from_slice(&body).unwrap();
    let items = contents["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    for item in items {
        let id = item["id"].as_str().unwrap();
        assert!(
            id.starts_with("tag:google.com,2005:reader/item/") && id.len() == 48,
            "{id}"
        );
        let html = item["summary"]["content"].as_str().unwrap();
        assert!(
            !html.contains("<script") && !html.contains("javascript:"),
            "{html}"
        );
        assert!(
            item["origin"]["streamId"]
                .as_str()
                .unwrap()
                .starts_with("feed/")
        );
        assert!(
            item["categories"]
                .as_array()
                .unwrap()
                .contains(&json_str("user/-/state/com.google/reading-list"))
        );
    }

    // edit-tag: read (long id) and starred (decimal id); then kept-unread again.
    greader_ok(
        &server,
        "/reader/api/0/edit-tag",
        &token,
        &format!(
            "i=tag:google.com,2005:reader/item/{:016x}&a=user/-/state/com.google/read&ac=edit&T={token}",
            ids[0]
        ),
    )
    .await;
    assert_eq!(unread(&server, ana).await, 4);
    greader_ok(
        &server,
        "/reader/api/0/edit-tag",
        &token,
        &format!("i={}&a=user/-/state/com.google/starred", ids[1]),
    )
    .await;
    let starred = greader_json(
        &server,
        "/reader/api/0/stream/items/ids",
        &token,
        "s=user/-/state/com.google/starred",
    )
    .await;
    assert_eq!(starred["itemRefs"][0]["id"], ids[1].to_string());
    greader_ok(
        &server,
        "/reader/api/0/edit-tag",
        &token,
        &format!("i={}&r=user/-/state/com.google/read", ids[0]),
    )
    .await;
    assert_eq!(unread(&server, ana).await, 5);

    // A stream by path, then mark-all-as-read of the folder up to a time in microseconds.
    let stream = greader_json(
        &server,
        "/reader/api/0/stream/contents/user%2F-%2Flabel%2FNews",
        &token,
        "n=50",
    )
    .await;
    assert_eq!(stream["items"].as_array().unwrap().len(), 3);
    let ts = (chrono::Utc::now().timestamp_micros()).to_string();
    greader_ok(
        &server,
        "/reader/api/0/mark-all-as-read",
        &token,
        &format!("s=user/-/label/News&ts={ts}"),
    )
    .await;
    assert_eq!(unread(&server, ana).await, 2);

    // Folders: move a feed, rename and remove a folder; quickadd and unsubscribe.
    greader_ok(
        &server,
        "/reader/api/0/subscription/edit",
        &token,
        &format!("ac=edit&s={news_id}&t=Renamed&a=user/-/label/Daily"),
    )
    .await;
    greader_ok(
        &server,
        "/reader/api/0/rename-tag",
        &token,
        "s=user/-/label/Daily&dest=user/-/label/Morning",
    )
    .await;
    let subs = greader_json(&server, "/reader/api/0/subscription/list", &token, "").await;
    let moved = subs["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == news_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(moved["title"], "Renamed");
    assert_eq!(moved["categories"][0]["label"], "Morning");
    greader_ok(
        &server,
        "/reader/api/0/disable-tag",
        &token,
        "s=user/-/label/Morning",
    )
    .await;

    let (status, _, body) = greader(
        &server,
        "POST",
        "/reader/api/0/subscription/quickadd",
        &token,
        "quickadd=https://three.example/feed.xml",
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let added: Value = serde_json::from_slice(&body).unwrap();
    let added_id = added["streamId"].as_str().unwrap().to_owned();
    assert_eq!(server.store.subscriptions(ana).await.unwrap().len(), 3);
    greader_ok(
        &server,
        "/reader/api/0/subscription/edit",
        &token,
        &format!("ac=unsubscribe&s={added_id}"),
    )
    .await;
    assert_eq!(server.store.subscriptions(ana).await.unwrap().len(), 2);
    // The do-not-crawl path applies: a private address is refused, nothing subscribed.
    let (status, _, _) = greader(
        &server,
        "POST",
        "/reader/api/0/subscription/quickadd",
        &token,
        "quickadd=http://127.0.0.1/feed.xml",
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(server.store.subscriptions(ana).await.unwrap().len(), 2);

    // Bad input: a clear 400, nothing changed.
    let (status, _, _) = greader(
        &server,
        "POST",
        "/reader/api/0/edit-tag",
        &token,
        "i=zz&a=user/-/state/com.google/read",
    )
    .await;
    assert_eq!(status, 400);
    let (status, _, _) = greader(
        &server,
        "GET",
        "/reader/api/0/stream/items/ids",
        &token,
        "s=user/-/state/com.google/broadcast",
    )
    .await;
    assert_eq!(status, 400);

    // A new API password ends the session.
    let api = tidings_api::accounts::api_password("Ana", "sync-secret-2").unwrap();
    server
        .store
        .set_api_password("ana", Some(&api), t(0))
        .await
        .unwrap();
    let (status, _, _) = greader(&server, "GET", "/reader/api/0/user-info", &token, "").await;
    assert_eq!(status, 401);
}

fn json_str(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// A Fever request the way its clients send them: `how` is "form" (a urlencoded body), "get"
/// (everything in the URL), "bare" (a POST with no body type and everything in the URL) or
/// "multipart".
async fn fever(server: &Server, path: &str, how: &str, key: &str, params: &str) -> (u16, Value) {
    let all = format!("api_key={key}&{params}");
    let (status, _, body) = match how {
        "form" => {
            send_typed(
                server.addr,
                "POST",
                &format!("{path}?api"),
                "",
                "application/x-www-form-urlencoded",
                Some(&all),
            )
            .await
        }
        "get" => send(server.addr, "GET", &format!("{path}?api&{all}"), "", None).await,
        "bare" => {
            send(
                server.addr,
                "POST",
                &format!("{path}?api&{all}"),
                "Content-Length: 0\r\n",
                None,
            )
            .await
        }
        _ => {
            let boundary = "tidingsboundary";
            let mut body = String::new();
            for pair in all.split('&') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                body.push_str(&format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                ));
            }
            body.push_str(&format!("--{boundary}--\r\n"));
            send_typed(
                server.addr,
                "POST",
                &format!("{path}?api"),
                "",
                &format!("multipart/form-data; boundary={boundary}"),
                Some(&body),
            )
            .await
        }
    };
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn id_list(value: &Value) -> Vec<i64> {
    value
        .as_str()
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

#[tokio::test]
async fn fever_client_sequences_in_every_transport() {
    let (server, ana) = setup().await;
    let key = tidings_api::accounts::fever_key("Ana", "sync-secret-1");

    // A wrong key: status 200 and auth 0, as the protocol has it.
    let (status, body) = fever(
        &server,
        "/fever/",
        "form",
        "0123456789abcdef0123456789abcdef",
        "groups",
    )
    .await;
    assert_eq!(
        (status, body["auth"].clone(), body["api_version"].clone()),
        (200, json_i(0), json_i(3))
    );
    assert!(body.get("groups").is_none());
    let login_key = tidings_api::accounts::fever_key("Ana", "login-secret-1");
    assert_eq!(
        fever(&server, "/fever/", "form", &login_key, "").await.1["auth"],
        0
    );

    for (path, how) in [
        ("/fever/", "form"),
        ("/api/fever.php", "form"),
        ("/fever", "get"),
        ("/fever/", "bare"),
        ("/api/fever.php", "multipart"),
    ] {
        let (status, body) = fever(&server, path, how, &key, "groups&feeds").await;
        assert_eq!(status, 200, "{path} {how}: {body}");
        assert_eq!(body["auth"], 1, "{path} {how}");
        assert!(body["last_refreshed_on_time"].is_i64());
        let groups = body["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{path} {how}");
        assert_eq!(groups[0]["title"], "News");
        assert_eq!(body["feeds"].as_array().unwrap().len(), 2);
        let in_group = body["feeds_groups"][0]["feed_ids"].as_str().unwrap();
        assert_eq!(in_group.split(',').count(), 1);
    }

    // Items: pages by since_id, by max_id, and by with_ids.
    let (_, body) = fever(&server, "/fever/", "form", &key, "items&since_id=0").await;
    assert_eq!(body["total_items"], 5);
    let items = body["items"].as_array().unwrap();
    let ids: Vec<i64> = items.iter().map(|i| i["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    for item in items {
        assert_eq!(item["is_read"], 0);
        let html = item["html"].as_str().unwrap();
        assert!(
            !html.contains("<script") && !html.contains("javascript:"),
            "{html}"
        );
    }
    let (_, body) = fever(
        &server,
        "/fever/",
        "get",
        &key,
        &format!("items&since_id={}", ids[2]),
    )
    .await;
    assert_eq!(body["items"].as_array().unwrap().len(), 2);
    let (_, body) = fever(
        &server,
        "/fever/",
        "get",
        &key,
        &format!("items&max_id={}", ids[2]),
    )
    .await;
    let below: Vec<i64> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    assert_eq!(below, vec![ids[1], ids[0]], "highest first below max_id");
    let (_, body) = fever(
        &server,
        "/fever/",
        "form",
        &key,
        &format!("items&with_ids={},{}", ids[0], ids[4]),
    )
    .await;
    assert_eq!(body["items"].as_array().unwrap().len(), 2);

    // Marks answer with the list they change.
    let (_, body) = fever(
        &server,
        "/fever/",
        "bare",
        &key,
        &format!("mark=item&as=read&id={}", ids[0]),
    )
    .await;
    assert_eq!(body["auth"], 1);
    let unread_ids = id_list(&body["unread_item_ids"]);
    assert_eq!(unread_ids.len(), 4);
    assert!(!unread_ids.contains(&ids[0]));
    assert_eq!(unread(&server, ana).await, 4);
    let (_, body) = fever(
        &server,
        "/fever/",
        "multipart",
        &key,
        &format!("mark=item&as=saved&id={}", ids[1]),
    )
    .await;
    assert_eq!(id_list(&body["saved_item_ids"]), vec![ids[1]]);
    let (_, body) = fever(
        &server,
        "/fever/",
        "form",
        &key,
        &format!("mark=item&as=unsaved&id={}", ids[1]),
    )
    .await;
    assert_eq!(
        id_list(&body["saved_item_ids"]),
        Vec::<i64>::new(),
        "unsaved is unsaved"
    );
    let (_, body) = fever(
        &server,
        "/fever/",
        "form",
        &key,
        "unread_item_ids&saved_item_ids",
    )
    .await;
    assert_eq!(id_list(&body["unread_item_ids"]).len(), 4);

    // A group up to now, then everything (group 0).
    let group =
        fever(&server, "/fever/", "form", &key, "groups").await.1["groups"][0]["id"].clone();
    let before = chrono::Utc::now().timestamp() + 1;
    let (_, body) = fever(
        &server,
        "/fever/",
        "form",
        &key,
        &format!("mark=group&as=read&id={group}&before={before}"),
    )
    .await;
    assert_eq!(
        id_list(&body["unread_item_ids"]).len(),
        2,
        "the group's three are read"
    );
    let (_, body) = fever(
        &server,
        "/fever/",
        "form",
        &key,
        &format!("mark=group&as=read&id=0&before={before}"),
    )
    .await;
    assert_eq!(id_list(&body["unread_item_ids"]), Vec::<i64>::new());
    assert_eq!(unread(&server, ana).await, 0);

    // Bad input: a 400 with the reason, nothing changed.
    let (status, body) = fever(&server, "/fever/", "form", &key, "mark=item&as=burnt&id=1").await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("as is"), "{body}");
    let (status, _) = fever(&server, "/fever/", "form", &key, "items&with_ids=1,x").await;
    assert_eq!(status, 400);
}

fn json_i(n: i64) -> Value {
    Value::from(n)
}

#[tokio::test]
async fn miniflux_takes_an_accounts_api_key_as_x_auth_token() {
    let (server, ana) = setup().await;
    let (token, mut new) =
        tidings_api::auth::issue(None, tidings_api::auth::Role::Reader, t(0)).unwrap();
    new.account_id = Some(ana);
    server.store.create_key(&new).await.unwrap();
    let (status, _, body) = send(
        server.addr,
        "GET",
        &format!("{PREFIX}/v1/me"),
        &format!("X-Auth-Token: {token}\r\n"),
        None,
    )
    .await;
    let me: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, me["username"].as_str()), (200, Some("Ana")));
    // An operator's key has no account; an unknown token is refused.
    let (operator, key) =
        tidings_api::auth::issue(None, tidings_api::auth::Role::Admin, t(0)).unwrap();
    server.store.create_key(&key).await.unwrap();
    for token in [operator.as_str(), "tdg_0000"] {
        let (status, _, _) = send(
            server.addr,
            "GET",
            &format!("{PREFIX}/v1/feeds"),
            &format!("X-Auth-Token: {token}\r\n"),
            None,
        )
        .await;
        assert_eq!(status, 401, "{token}");
    }
}

/// Fever's favicons are the site icons tidings keeps (SR1's), by feed id, as `TYPE;base64`
/// data; a feed whose site has none names favicon 0.
#[tokio::test]
async fn fever_favicons_are_the_kept_site_icons() {
    use tidings_store::ResourceFound;
    let (server, _) = setup().await;
    let key = tidings_api::accounts::fever_key("Ana", "sync-secret-1");
    let (_, body) = fever(&server, "/fever/", "form", &key, "feeds&favicons").await;
    assert_eq!(body["favicons"], serde_json::json!([]));
    assert!(
        body["feeds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["favicon_id"] == 0)
    );

    // Both feeds' site is example.org: keep its icon, as the crawler would.
    let feeds = server.store.feeds().await.unwrap();
    let site = "https://example.org".to_owned();
    let png = b"\x89PNG\r\n\x1a\nnot really a picture".to_vec();
    let keep = |media_type: &str| {
        let (site, png, media_type) = (site.clone(), png.clone(), media_type.to_owned());
        let store = server.store.clone();
        let feed = feeds[0].id;
        async move {
            store
                .queue_icons(feed, &site, &[format!("{site}/icon")], true, t(700), "icon")
                .await
                .unwrap();
            for job in store.due_resources(t(5000), 10).await.unwrap() {
                let found = ResourceFound::Icon {
                    site: site.clone(),
                    media_type: media_type.clone(),
                    body: png.clone(),
                };
                let apply = support::resource_done(job.id, found);
                store.apply_resource(&apply).await.unwrap();
            }
        }
    };
    keep("image/png").await;
    // The icon was found for the first feed, which now names its site; the other does not.
    let (_, body) = fever(&server, "/fever/", "form", &key, "feeds&favicons").await;
    let favicons = body["favicons"].as_array().unwrap();
    assert_eq!(favicons.len(), 1, "{body}");
    let listed = body["feeds"].as_array().unwrap();
    let with = listed.iter().find(|f| f["id"] == feeds[0].id.0).unwrap();
    let without = listed.iter().find(|f| f["id"] != feeds[0].id.0).unwrap();
    assert_eq!(with["favicon_id"], with["id"], "{body}");
    assert_eq!(without["favicon_id"], 0, "{body}");
    assert_eq!(favicons[0]["id"], with["id"]);
    let data = favicons[0]["data"].as_str().unwrap();
    let encoded = data.strip_prefix("image/png;base64,").expect(data);
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(decoded, png);
}
