//! WebSub end to end: `tidings serve --websub-callback URL` subscribes a feed to the hub it
//! names (the simulated hub, written apart from tidings), answers the hub's verification,
//! reads the feed less often while the hub pushes, and stores pushed entries only when they
//! are signed with the subscription's secret.

mod support;

use std::net::SocketAddr;
use std::time::Duration;
use support::{spawn_serve, stderr, tidings};
use tidings_sim::client::{self, Answer};
use tidings_sim::hub::Hub;
use tidings_sim::{Behaviour, HostSpec, Resource, Web};

/// Feeds read every second (the tests' fast profile), a hub asked for an hour's lease, and a
/// pushed feed read every minute.
const WEBSUB: &str = r#"
[requests]
purposes = ["feed", "robots", "websub"]
[websub]
lease = 3600
live_poll = 60
renew_before = 120
retry = 60
"#;

/// An RSS feed that names `hub`, with items `ids`.
fn rss(hub: &str, ids: &[&str]) -> Vec<u8> {
    let items: String = ids
        .iter()
        .map(|id| {
            format!(
                "<item><guid>urn:x:{id}</guid><title>{id}</title>\
                 <link>http://news.test/{id}</link><description>about {id}</description></item>"
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:atom=\"http://www.w3.org/2005/Atom\"><channel><title>News</title>\
         <link>http://news.test/</link><atom:link rel=\"hub\" href=\"{hub}\"/>{items}\
         </channel></rss>"
    )
    .into_bytes()
}

async fn call(addr: SocketAddr, method: &str, target: &str, key: Option<&str>) -> Answer {
    let bearer = key.map(|k| format!("Bearer {k}"));
    let headers: Vec<(&str, &str)> = bearer
        .as_deref()
        .map(|b| vec![("Authorization", b)])
        .unwrap_or_default();
    client::request(addr, method, target, &headers, b"", Duration::from_secs(10))
        .await
        .expect("serve answers")
}

async fn json(addr: SocketAddr, target: &str, key: Option<&str>) -> serde_json::Value {
    let answer = call(addr, "GET", target, key).await;
    assert_eq!(answer.status, 200, "{target}: {}", answer.text());
    serde_json::from_slice(&answer.body).expect("JSON")
}

async fn titles(addr: SocketAddr) -> Vec<String> {
    json(addr, "/v1/entries?limit=100", None).await["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["title"].as_str().map(str::to_owned))
        .collect()
}

/// Poll `check` every 50 ms for up to `secs` seconds.
async fn eventually<F, Fut>(secs: u64, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c7_websub_a_feed_naming_a_hub_is_pushed_and_polled_less() {
    let hub = Hub::start("127.0.0.1".parse().unwrap()).await.unwrap();
    let feed = |ids: &[&str]| {
        Resource::new(Behaviour::Body {
            content_type: "application/rss+xml".into(),
            body: rss(&hub.url(), ids).into(),
        })
    };
    let web = Web::start(vec![
        HostSpec::new("news.test")
            .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
            .at("/feed.xml", feed(&["one", "two"])),
    ])
    .await
    .expect("start the simulated web");
    let feed_url = web.url("news.test", "/feed.xml").unwrap();

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = dir.path().join("websub.toml");
    std::fs::write(&profile, format!("{}{WEBSUB}", support::FAST_PROFILE)).unwrap();
    let mut global = vec![
        "--profile".to_owned(),
        profile.to_string_lossy().into_owned(),
        "--allow-private-networks".to_owned(),
    ];
    for resolve in web.resolve_args() {
        global.push("--resolve".into());
        global.push(resolve);
    }
    let global: Vec<&str> = global.iter().map(String::as_str).collect();
    let mut add = global.clone();
    add.extend(["add", "--no-fetch", &feed_url]);
    let out = tidings(&db, &add).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["keys", "create", "--role", "admin"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let admin = String::from_utf8_lossy(&out.stdout).trim().to_owned();

    // The callback must be known before serve starts: a port found free just before.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/");
    let mut global = global.clone();
    global.extend(["--websub-callback", base.as_str()]);
    let listen = format!("127.0.0.1:{port}");
    let (child, addr) = spawn_serve(
        &db,
        &global,
        &["--public-reads", "--addr", &listen],
        std::process::Stdio::piped(),
    )
    .await;

    // The first read finds the hub: one request asks it, with our callback and a secret.
    eventually(30, "the hub verified a subscription", || async {
        hub.subscriptions().iter().any(|s| s.verified)
    })
    .await;
    let asked = hub.requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let ask = &asked[0];
    assert_eq!(ask.method, "POST");
    assert_eq!(
        ask.content_type.as_deref(),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(ask.field("hub.mode"), Some("subscribe"));
    assert_eq!(ask.field("hub.topic"), Some(feed_url.as_str()));
    assert_eq!(ask.field("hub.lease_seconds"), Some("3600"));
    let callback = ask.field("hub.callback").unwrap().to_owned();
    let token = callback
        .strip_prefix(&format!("{base}websub/"))
        .unwrap_or_else(|| panic!("{callback} is under {base}"))
        .to_owned();
    assert_eq!(token.len(), 32, "{token}");
    assert_eq!(ask.field("hub.secret").map(str::len), Some(64));
    assert!(
        ask.user_agent
            .as_deref()
            .is_some_and(|ua| ua.starts_with("tidings-test/")),
        "{ask:?}"
    );

    // While the hub pushes, the feed is read every minute, not every second.
    eventually(30, "a read under the live subscription", || async {
        json(addr, "/v1/feeds/1", None).await["next_fetch_reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("WebSub:"))
    })
    .await;
    let feed_reads = || {
        web.recorder()
            .exchanges()
            .iter()
            .filter(|e| e.target == "/feed.xml")
            .count()
    };
    let reads = feed_reads();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(feed_reads(), reads, "no read while the hub pushes");

    // A signed push is stored; a forged or unsigned one is acknowledged and dropped.
    let pushed = hub
        .publish(
            &feed_url,
            "application/rss+xml",
            &rss(&hub.url(), &["pushed"]),
        )
        .await;
    assert_eq!(pushed.len(), 1);
    assert_eq!(pushed[0].status, Some(202), "{pushed:?}");
    eventually(10, "the pushed entry listed", || async {
        titles(addr).await.contains(&"pushed".to_owned())
    })
    .await;
    let forged_body = rss(&hub.url(), &["forged"]);
    let forged = format!(
        "sha256={}",
        tidings_sim::hub::sign("not the secret", &forged_body)
    );
    let dropped = hub
        .publish_signed_as(
            &feed_url,
            "application/rss+xml",
            &forged_body,
            Some(&forged),
        )
        .await;
    assert_eq!(dropped[0].status, Some(202));
    let unsigned = hub
        .publish_signed_as(
            &feed_url,
            "application/rss+xml",
            &rss(&hub.url(), &["unsigned"]),
            None,
        )
        .await;
    assert_eq!(unsigned[0].status, Some(202));
    let listed = titles(addr).await;
    for kept in ["one", "two", "pushed"] {
        assert!(listed.contains(&kept.to_owned()), "{listed:?}");
    }
    for dropped in ["forged", "unsigned"] {
        assert!(!listed.contains(&dropped.to_owned()), "{listed:?}");
    }

    // The subscription as the API shows it: live, one push stored, never its secret.
    let shown = call(addr, "GET", "/v1/feeds/1/websub", None).await;
    assert_eq!(shown.status, 200, "{}", shown.text());
    let shown_json: serde_json::Value = serde_json::from_slice(&shown.body).unwrap();
    let sub = &shown_json["subscription"];
    assert_eq!(sub["state"], "live", "{sub}");
    assert_eq!(sub["hub"], hub.url());
    assert_eq!(sub["topic"], feed_url.as_str());
    assert_eq!(sub["pushes"], 1, "only the signed push counts: {sub}");
    assert!(sub["lease_until"].is_string(), "{sub}");
    let secret = ask.field("hub.secret").unwrap();
    assert!(!shown.text().contains(secret) && !shown.text().contains(&token));

    // Callbacks that are not ours: an unknown token, another topic.
    let unknown = format!("/websub/{}", "0".repeat(32));
    assert_eq!(call(addr, "POST", &unknown, None).await.status, 410);
    let other_topic = format!(
        "/websub/{token}?hub.mode=subscribe&hub.topic=http%3A%2F%2Fother.test%2F&hub.challenge=x"
    );
    assert_eq!(call(addr, "GET", &other_topic, None).await.status, 404);
    let unsubscribe = format!(
        "/websub/{token}?hub.mode=unsubscribe&hub.topic={}&hub.challenge=x",
        url_encode(&feed_url)
    );
    assert_eq!(call(addr, "GET", &unsubscribe, None).await.status, 404);

    // The hub request is in the request log (C7), under its purpose.
    let log = json(addr, "/v1/log?limit=100", Some(&admin)).await;
    let websub_rows: Vec<&serde_json::Value> = log["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["purpose"] == "websub")
        .collect();
    assert_eq!(websub_rows.len(), 1, "{log}");
    assert_eq!(websub_rows[0]["url"], hub.url());
    assert_eq!(websub_rows[0]["status"], 202);

    let pid = child.id().expect("running");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("serve exits after SIGTERM")
        .expect("wait");
    assert!(out.status.success(), "{}", stderr(&out));
}

fn url_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
