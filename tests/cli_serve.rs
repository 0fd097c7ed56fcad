//! `tidings serve` as a process: listens where it says (port 0 included), answers `/healthz`
//! and the API, crawls in the same process unless `--no-crawl`, and stops cleanly on SIGTERM.

mod support;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use support::{Publisher, Resource, command, rss, stderr, tidings};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Child;

/// A started `tidings serve` and the address it printed.
struct Serving {
    child: Child,
    addr: SocketAddr,
    /// What it prints afterwards, once it has exited (read all along, so the pipe never fills).
    rest: tokio::sync::oneshot::Receiver<String>,
}

/// Start `tidings ARGS serve --addr 127.0.0.1:0 SERVE_ARGS` and read the address it prints.
async fn serve(db: &std::path::Path, global: &[&str], serve_args: &[&str]) -> Serving {
    let mut child = command(db)
        .args(global)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(serve_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tidings serve");
    let out = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    let mut printed = Vec::new();
    let addr = loop {
        let Some(line) = lines.next_line().await.expect("read stdout") else {
            let output = child.wait_with_output().await.expect("exit");
            panic!(
                "serve ended before listening: {printed:?} {}",
                stderr(&output)
            );
        };
        printed.push(line.clone());
        if let Some(rest) = line.strip_prefix("listening on http://") {
            break rest.parse::<SocketAddr>().expect("a socket address");
        }
    };
    // Keep reading stdout so the process never blocks on a full pipe.
    let mut tail = lines.into_inner();
    let (tx, rest) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut text = String::new();
        let _ = tail.read_to_string(&mut text).await;
        let _ = tx.send(text);
    });
    Serving { child, addr, rest }
}

/// SIGTERM, then wait for the exit; returns (success, the rest of stdout, stderr).
async fn stop(serving: Serving) -> (bool, String, String) {
    let pid = serving.child.id().expect("running");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = tokio::time::timeout(Duration::from_secs(30), serving.child.wait_with_output())
        .await
        .expect("serve exits after SIGTERM")
        .expect("wait");
    let rest = serving.rest.await.unwrap_or_default();
    (out.status.success(), rest, stderr(&out))
}

/// GET `path` over one HTTP/1.1 connection, without a key: status and body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    call(addr, "GET", path, None, None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_no_crawl_answers_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    // Subscribed without a read: nothing goes to the network.
    let out = tidings(
        &db,
        &["add", "--no-fetch", "https://feeds.example/feed.xml"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let serving = serve(&db, &[], &["--no-crawl", "--public-reads"]).await;
    assert_ne!(serving.addr.port(), 0, "the bound port is printed, not 0");
    let (status, body) = get(serving.addr, "/healthz").await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    let (status, body) = get(serving.addr, "/v1/feeds").await;
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(json["feeds"][0]["url"], "https://feeds.example/feed.xml");
    assert_eq!(json["feeds"][0]["last_outcome"], serde_json::Value::Null);
    // The store's gauges without a crawler; no fetch series.
    let (status, metrics) = get(serving.addr, "/metrics").await;
    assert_eq!(status, 200, "{metrics}");
    assert!(metrics.contains("\ntidings_due_feeds 1\n"), "{metrics}");
    assert!(metrics.contains("\ntidings_feeds{state=\"active\"} 1\n"));
    assert!(!metrics.contains("tidings_fetches_total"), "{metrics}");

    let (ok, rest, err) = stop(serving).await;
    assert!(ok, "clean exit after SIGTERM: {rest} {err}");
    assert!(rest.contains("\nnot crawling"), "{rest}");
    // Each hint names this server's database, so the key or account lands where it serves.
    let on = format!("--db {}", db.display());
    assert!(
        rest.contains(&format!(
            "no admin key yet: `tidings keys create --role admin {on}`"
        )),
        "the first start says how to get an admin key: {rest}"
    );
    assert!(
        rest.contains(&format!(
            "no accounts yet: `tidings users add NAME --role admin {on}`"
        )),
        "the first start says how to make the first admin: {rest}"
    );
    assert!(
        rest.contains("anyone may read every feed here without logging in"),
        "public reads are said: {rest}"
    );
    assert!(rest.contains("stopped"), "{rest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_crawls_in_the_same_process() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let publisher = Publisher::start().await;
    publisher.set("/feed.xml", Resource::feed(rss("alpha", 1, 3), "\"a1\""));
    let out = tidings(
        &db,
        &[
            "--allow-private-networks",
            "add",
            "--no-fetch",
            &publisher.url("/feed.xml"),
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let serving = serve(&db, &["--allow-private-networks"], &["--public-reads"]).await;
    // The feed is due at once: its entries show through the API once read.
    let mut entries = 0;
    for _ in 0..1500 {
        let (status, body) = get(serving.addr, "/v1/entries").await;
        assert_eq!(status, 200, "{body}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        entries = json["entries"].as_array().map_or(0, Vec::len);
        if entries > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(entries, 3, "the crawl read the feed");
    // The crawl's requests show in /metrics: the feed's first read, and robots.txt before it.
    let (status, metrics) = get(serving.addr, "/metrics").await;
    assert_eq!(status, 200, "{metrics}");
    assert!(
        metrics.contains("\ntidings_fetches_total{outcome=\"ok\",purpose=\"first_add\"} 1\n"),
        "{metrics}"
    );
    assert!(metrics.contains("purpose=\"robots\"} 1\n"), "{metrics}");
    assert!(
        metrics.contains("\ntidings_fetch_duration_seconds_count 2\n"),
        "{metrics}"
    );
    assert!(metrics.contains("\ntidings_hosts_in_flight "), "{metrics}");
    let (ok, rest, err) = stop(serving).await;
    assert!(ok, "clean exit after SIGTERM: {rest} {err}");
    assert!(rest.contains("stopped: 1 feeds read (ok 1"), "{rest}");
}

/// `method path` with `Authorization: Bearer token` (if any) and a JSON `body`: status, body.
async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String) {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(b) = bearer.as_deref() {
        headers.push(("Authorization", b));
    }
    let answer = tidings_sim::client::request(
        addr,
        method,
        path,
        &headers,
        body.unwrap_or_default().as_bytes(),
        Duration::from_secs(30),
    )
    .await
    .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    (answer.status, answer.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_reads_need_keys_made_by_the_cli_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let mut tokens = Vec::new();
    for role in ["reader", "admin"] {
        let out = tidings(&db, &["keys", "create", "--role", role]).await;
        assert!(out.status.success(), "{}", stderr(&out));
        tokens.push(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    }
    let (reader, admin) = (tokens[0].as_str(), tokens[1].as_str());

    let serving = serve(&db, &[], &["--no-crawl"]).await;
    let addr = serving.addr;
    assert_eq!(call(addr, "GET", "/v1/feeds", None, None).await.0, 401);
    assert_eq!(call(addr, "GET", "/healthz", None, None).await.0, 200);
    assert_eq!(
        call(addr, "GET", "/v1/feeds", Some(reader), None).await.0,
        200
    );
    let feed = r#"{"url": "https://feeds.example/feed.xml"}"#;
    let (status, body) = call(addr, "POST", "/v1/feeds", Some(reader), Some(feed)).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = call(addr, "POST", "/v1/feeds", Some(admin), Some(feed)).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = call(addr, "GET", "/v1/feeds", Some(reader), None).await;
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(json["feeds"][0]["url"], "https://feeds.example/feed.xml");

    let out = tidings(&db, &["keys", "revoke", "1"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        call(addr, "GET", "/v1/feeds", Some(reader), None).await.0,
        401
    );

    let (ok, rest, err) = stop(serving).await;
    assert!(ok, "clean exit after SIGTERM: {rest} {err}");
    assert!(!err.contains(&admin[12..]) && !err.contains(&reader[12..]));
}

/// FF13: a rule added through the API governs every request that follows its 201, from the
/// publisher's own record, while `serve` crawls the host; removing the rule resumes the feeds
/// it held, and they are read again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_rule_added_through_the_api_stops_requests_before_it_is_answered() {
    use tidings_sim::{Behaviour, FeedSpec, HostSpec, Web};
    let slow = |title: &str| {
        tidings_sim::Resource::feed(FeedSpec::changing(title, Duration::from_secs(1)))
            .with(Behaviour::Delay(Duration::from_millis(300)))
    };
    let web = Web::start(vec![
        HostSpec::new("ruled.test")
            .at(
                "/robots.txt",
                tidings_sim::Resource::robots("User-agent: *\nAllow: /\n"),
            )
            .at("/a.xml", slow("a"))
            .at("/b.xml", slow("b"))
            .at("/c.xml", slow("c")),
    ])
    .await
    .expect("start the simulated web");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = support::fast_profile(dir.path());
    let mut global = vec![
        "--profile".to_owned(),
        profile,
        "--allow-private-networks".to_owned(),
    ];
    for resolve in web.resolve_args() {
        global.push("--resolve".into());
        global.push(resolve);
    }
    let global: Vec<&str> = global.iter().map(String::as_str).collect();
    let urls: Vec<String> = ["/a.xml", "/b.xml", "/c.xml"]
        .iter()
        .map(|p| web.url("ruled.test", p).unwrap())
        .collect();
    let mut add = global.clone();
    add.extend(["add", "--no-fetch"]);
    add.extend(urls.iter().map(String::as_str));
    let out = tidings(&db, &add).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["keys", "create", "--role", "admin"]).await;
    let admin = String::from_utf8_lossy(&out.stdout).trim().to_owned();

    let serving = serve(&db, &global, &[]).await;
    let requests = |web: &tidings_sim::RunningWeb| {
        web.recorder()
            .exchanges()
            .into_iter()
            .filter(|e| e.target != "/robots.txt")
            .collect::<Vec<_>>()
    };
    // Wait until the crawl is reading the host.
    let mut waited = Duration::ZERO;
    while requests(&web).len() < 4 && waited < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    }
    assert!(requests(&web).len() >= 4, "the crawl reads the host");
    let (status, body) = call(
        serving.addr,
        "POST",
        "/v1/rules",
        Some(&admin),
        Some(r#"{"kind": "host", "value": "ruled.test", "reason": "asked by email"}"#),
    )
    .await;
    let answered = std::time::SystemTime::now();
    assert_eq!(status, 201, "{body}");
    let rule: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(rule["paused"].as_array().map(Vec::len), Some(3), "{body}");
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after: Vec<_> = requests(&web)
        .into_iter()
        .filter(|e| e.started.wall > answered)
        .map(|e| e.target)
        .collect();
    assert!(after.is_empty(), "requests after the 201: {after:?}");

    // The rule goes: its feeds are resumed and read again.
    let id = rule["rule"]["id"].as_i64().unwrap();
    let (status, body) = call(
        serving.addr,
        "DELETE",
        &format!("/v1/rules/{id}"),
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let removed: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        removed["resumed"].as_array().map(Vec::len),
        Some(3),
        "{body}"
    );
    let before = requests(&web).len();
    let mut waited = Duration::ZERO;
    while requests(&web).len() == before && waited < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    }
    assert!(
        requests(&web).len() > before,
        "read again after the rule went"
    );
    let (ok, rest, err) = stop(serving).await;
    assert!(ok, "{rest} {err}");
}
