//! A server on port 0 over a fresh SQLite store, a small HTTP client, and store builders.

use chrono::{DateTime, Duration, TimeZone, Utc};
use std::sync::Arc;
use tidings_api::auth::{Auth, AuthConfig};
use tidings_api::{AppState, router};
use tidings_model::{Entry, FeedId, FeedUrl};
use tidings_policy::Profile;
use tidings_store::{FetchRecord, NewFeed, Store};

/// A running API over its own store; the temporary directory lives as long as it.
pub struct Server {
    pub store: Arc<dyn Store>,
    pub addr: std::net::SocketAddr,
    _dir: tempfile::TempDir,
}

/// One answer: status, content type, JSON body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub json: serde_json::Value,
}

/// The access rules of most tests: reads public, as `serve --public-reads`, so a test reads
/// without a key unless it asks for one; the tests of keyed reads use the default.
pub fn public() -> AuthConfig {
    AuthConfig {
        public_reads: true,
        ..AuthConfig::default()
    }
}

impl Server {
    pub async fn start() -> Server {
        Server::with_auth(public()).await
    }

    /// A server whose fetcher may send from `egress`.
    pub async fn with_egress(egress: &[&str]) -> Server {
        let egress = egress
            .iter()
            .map(|e| e.parse().expect("test address"))
            .collect();
        Server::configured(public(), egress).await
    }

    /// A server whose access rules are `auth`.
    pub async fn with_auth(auth: AuthConfig) -> Server {
        Server::configured(auth, Vec::new()).await
    }

    async fn configured(auth: AuthConfig, egress: Vec<std::net::IpAddr>) -> Server {
        let (store, dir) = fresh_store().await;
        Server::over_with(store, dir, auth, egress).await
    }

    /// A server over `store`.
    pub async fn over(store: Arc<dyn Store>, dir: tempfile::TempDir) -> Server {
        Server::over_with(store, dir, public(), Vec::new()).await
    }

    /// A server whose fetcher reads private networks, as `serve --allow-private-networks`.
    pub async fn allowing_private_networks() -> Server {
        let (store, dir) = fresh_store().await;
        let state = default_state(&store).with_private_networks(true);
        Server::listen(store, dir, state).await
    }

    /// A server running as the embedded profile `name`.
    pub async fn with_profile(name: &str) -> Server {
        let (store, dir) = fresh_store().await;
        let mut state = default_state(&store);
        state.profile = Arc::new(Profile::embedded(name).expect("embedded profile"));
        Server::listen(store, dir, state).await
    }

    /// A server that shows `live` as the crawler running in its process.
    pub async fn with_live(live: tidings_crawler::Live) -> Server {
        let (store, dir) = fresh_store().await;
        Server::serve(store, dir, public(), Vec::new(), Some(live)).await
    }

    async fn over_with(
        store: Arc<dyn Store>,
        dir: tempfile::TempDir,
        auth: AuthConfig,
        egress: Vec<std::net::IpAddr>,
    ) -> Server {
        Server::serve(store, dir, auth, egress, None).await
    }

    async fn serve(
        store: Arc<dyn Store>,
        dir: tempfile::TempDir,
        auth: AuthConfig,
        egress: Vec<std::net::IpAddr>,
        live: Option<tidings_crawler::Live>,
    ) -> Server {
        let mut state = default_state(&store)
            .with_auth(Auth::new(auth))
            .with_egress(egress);
        if let Some(live) = live {
            state = state.with_live(live);
        }
        Server::listen(store, dir, state).await
    }

    /// Serve `state` on port 0.
    async fn listen(store: Arc<dyn Store>, dir: tempfile::TempDir, state: AppState) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind port 0");
        let addr = listener.local_addr().expect("bound address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, router(state)).await;
        });
        Server {
            store,
            addr,
            _dir: dir,
        }
    }

    /// GET `path` (with its query string) and read the body as JSON.
    pub async fn get(&self, path: &str) -> Answer {
        self.request("GET", path).await
    }

    /// `method` on `path`; the body read as JSON.
    pub async fn request(&self, method: &str, path: &str) -> Answer {
        let (status, content_type, body) = http(self.addr, method, path).await;
        let json = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: {status} body is not JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        });
        Answer {
            status,
            content_type,
            json,
        }
    }

    /// GET `path` and expect a problem of `status` and type `slug`; returns its detail.
    pub async fn problem(&self, path: &str, status: u16, slug: &str) -> serde_json::Value {
        let answer = self.get(path).await;
        assert_eq!(answer.status, status, "GET {path}: {:?}", answer.json);
        assert_eq!(
            answer.content_type, "application/problem+json",
            "GET {path}"
        );
        assert_eq!(
            answer.json["type"],
            format!("https://tidings.example/problems/{slug}"),
            "GET {path}"
        );
        assert_eq!(answer.json["status"], status, "GET {path}");
        assert!(answer.json["title"].is_string(), "GET {path}");
        assert!(answer.json["detail"].is_string(), "GET {path}");
        answer.json
    }

    /// Subscribe `who` to the feed at `url`, added at `t(0)`.
    pub async fn subscribe(&self, url: &str, who: &str) -> FeedId {
        let new = NewFeed {
            next_fetch_at: t(0),
            next_fetch_reason: "first add".to_owned(),
            interval_secs: 3600,
        };
        self.store
            .subscribe(&FeedUrl::parse(url).expect("test url"), who, t(0), &new)
            .await
            .expect("subscribe")
            .feed_id
    }

    /// Store a 200 read of `feed` at `at` with `entries`.
    pub async fn read(&self, feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) {
        self.store
            .apply_fetch(ok(feed, at, entries))
            .await
            .expect("apply fetch");
    }
}

/// The state over `store` with the default profile and everything else default.
fn default_state(store: &Arc<dyn Store>) -> AppState {
    AppState::new(
        store.clone(),
        Arc::new(Profile::embedded("default").expect("default profile")),
        "test",
    )
}

/// A fresh SQLite store in its own temporary directory.
async fn fresh_store() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("api.db");
    let store = tidings_store::open(path.to_str().expect("utf-8 temp path"))
        .await
        .expect("open store");
    (store, dir)
}

/// A minimal HTTP/1.1 client: one request, `Connection: close`, the body read to the end
/// (the API answers with a length, never chunked). Returns status, content type and body.
pub async fn http(addr: std::net::SocketAddr, method: &str, path: &str) -> (u16, String, Vec<u8>) {
    let (status, head, body) = send(addr, method, path, "", None).await;
    (
        status,
        header(&head, "content-type").unwrap_or_default(),
        body,
    )
}

/// One request with extra `headers` (each line ending in CRLF) and a JSON `body`; returns the
/// status, the whole head and the body.
pub async fn send(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: Option<&str>,
) -> (u16, String, Vec<u8>) {
    send_typed(addr, method, path, headers, "application/json", body).await
}

/// [`send`] with a body of `content_type`.
pub async fn send_typed(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    content_type: &str,
    body: Option<&str>,
) -> (u16, String, Vec<u8>) {
    let mut pairs: Vec<(&str, &str)> = headers
        .split("\r\n")
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim(), value.trim()))
        .collect();
    if body.is_some() {
        pairs.push(("Content-Type", content_type));
    }
    let answer = tidings_sim::client::request(
        addr,
        method,
        path,
        &pairs,
        body.unwrap_or_default().as_bytes(),
        std::time::Duration::from_secs(30),
    )
    .await
    .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    assert!(
        answer.header("transfer-encoding").is_none(),
        "{method} {path}: chunked answer"
    );
    let mut head = format!("HTTP/1.1 {}\r\n", answer.status);
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    (answer.status, head, answer.body)
}

/// The value of header `name` in a response head.
pub fn header(head: &str, name: &str) -> Option<String> {
    head.lines().skip(1).find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}

/// A fixed origin of time.
pub fn t(seconds: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid time")
        + Duration::seconds(seconds)
}

/// An entry `key` published at `published`.
pub fn dated(key: &str, published: DateTime<Utc>) -> Entry {
    Entry {
        identity: key.to_owned(),
        id: Some(key.to_owned()),
        title: Some(format!("Title {key}")),
        link: Some(format!("https://example.org/{key}")),
        summary: Some(format!("Summary of {key}")),
        published: Some(published),
        ..Entry::default()
    }
}

/// A 200 with an ETag, a title and `entries`, read at `at`; the next read an hour later.
pub fn ok(feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) -> FetchRecord {
    let mut record = tidings_store::testkit::full(feed, at, entries);
    // An ETag only: the listings show which validators a feed holds.
    if let Some(validators) = record.update.validators.as_mut() {
        validators.last_modified = None;
    }
    record
}

/// A page-queue job `id` read with a 200 at `t(4000)`, finding `found` (for the UI and sync
/// API tests, which share this file).
#[allow(dead_code)]
pub fn resource_done(id: i64, found: tidings_store::ResourceFound) -> tidings_store::ResourceApply {
    tidings_store::ResourceApply {
        id,
        at: t(4000),
        state: tidings_store::QueueState::Done,
        due_at: None,
        reason: "read".into(),
        retries: 0,
        read: Some(tidings_store::ResourceRead {
            status: Some(200),
            outcome: tidings_model::Label::Ok,
            error: None,
        }),
        found,
        next_candidate_at: None,
        log: Vec::new(),
        host_floor: None,
        fence: None,
    }
}
