//! `tidings_api::server::serve` against slow and many clients (issue 12, item 4), on loopback
//! with short limits: a head or a body that trickles in is cut, connections past the limits
//! (per address, in all) are refused while other clients are served, and failed key checks
//! (logins, Bearer tokens) from one address are answered 429 past their limit. Clients on
//! 127.0.0.2 and 127.0.0.3 stand for other addresses (Linux routes all of 127/8 to loopback).
//! Every wait is bounded by [`BOUND`], far above the limits configured, and no test asserts
//! how long anything took.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tidings_api::auth::{Auth, AuthConfig, RateLimit, Role, issue};
use tidings_api::server::{ServerLimits, serve};
use tidings_api::{AppState, router};
use tidings_policy::Profile;
use tidings_store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The longest any test waits for the server to act.
const BOUND: Duration = Duration::from_secs(15);

/// A running server, its store and an admin key's token.
struct Running {
    addr: SocketAddr,
    store: Arc<dyn Store>,
    admin: String,
    _dir: tempfile::TempDir,
}

async fn start(limits: ServerLimits, failures: RateLimit) -> Running {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("server.db");
    let store = tidings_store::open(path.to_str().expect("utf-8 path"))
        .await
        .expect("open store");
    let (admin, key) = issue(None, Role::Admin, chrono::Utc::now()).expect("token");
    store.create_key(&key).await.expect("store key");
    let state = AppState::new(
        store.clone(),
        Arc::new(Profile::embedded("default").expect("profile")),
        "test",
    )
    .with_auth(Auth::new(AuthConfig {
        failures,
        ..AuthConfig::default()
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(serve(
        listener,
        router(state),
        limits,
        std::future::pending::<()>(),
    ));
    Running {
        addr,
        store,
        admin,
        _dir: dir,
    }
}

fn limits(header: u64, body: u64, all: usize, per_address: usize) -> ServerLimits {
    ServerLimits {
        header_read_timeout: Duration::from_secs(header),
        body_read_timeout: Duration::from_secs(body),
        max_connections: all,
        max_connections_per_address: per_address,
    }
}

/// A generous limit on failed key checks, for tests about something else.
fn lenient() -> RateLimit {
    RateLimit {
        burst: 1000,
        refill_every: Duration::from_secs(1),
    }
}

/// A connection to `server` from the loopback address `from`.
async fn connect_from(from: &str, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    let ip: IpAddr = from.parse().expect("address");
    socket.bind(SocketAddr::new(ip, 0)).expect("bind client");
    socket.connect(server).await.expect("connect")
}

/// Everything the server sends until it closes the connection (an error, such as a reset,
/// ends it too), or `None` if it is still open after [`BOUND`].
async fn until_closed(stream: &mut TcpStream) -> Option<String> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(BOUND, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&got).into_owned())
}

/// The status of a raw answer.
fn status(answer: &str) -> Option<u16> {
    answer.split_whitespace().nth(1)?.parse().ok()
}

/// One request `head` (without its blank line) and `body` from `from`: the whole answer.
async fn exchange(from: &str, server: SocketAddr, head: &str, body: &str) -> String {
    let mut stream = connect_from(from, server).await;
    let request = format!(
        "{head}\r\nHost: {server}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    until_closed(&mut stream).await.expect("an answer")
}

#[tokio::test]
async fn a_head_sent_byte_by_byte_or_not_at_all_is_cut_after_the_header_timeout() {
    let server = start(limits(1, 60, 64, 64), lenient()).await;
    let mut slow = connect_from("127.0.0.1", server.addr).await;
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("send");
    let (mut reader, mut writer) = slow.into_split();
    // One more header byte every 200 ms: never a whole head.
    let trickle = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(b"X").await.is_err() {
                break;
            }
        }
    });
    let closed = tokio::time::timeout(BOUND, async {
        let mut buf = [0u8; 512];
        while let Ok(n) = reader.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    trickle.abort();
    assert!(
        closed.is_ok(),
        "a trickling head still held after {BOUND:?}"
    );

    let mut silent = connect_from("127.0.0.1", server.addr).await;
    assert!(
        until_closed(&mut silent).await.is_some(),
        "a silent connection still held after {BOUND:?}"
    );
    // A client that sends its head at once is answered.
    let answer = exchange("127.0.0.1", server.addr, "GET /healthz HTTP/1.1", "").await;
    assert_eq!(status(&answer), Some(200), "{answer}");
}

#[tokio::test]
async fn a_body_sent_byte_by_byte_is_cut_with_a_408_after_the_body_timeout() {
    let server = start(limits(30, 1, 64, 64), lenient()).await;
    let mut stream = connect_from("127.0.0.1", server.addr).await;
    let head = format!(
        "POST /login HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: 1000\r\n\r\ntoken=",
        server.addr
    );
    stream.write_all(head.as_bytes()).await.expect("send");
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(b"a").await.is_err() {
                break;
            }
        }
    });
    let mut got = Vec::new();
    let closed = tokio::time::timeout(BOUND, async {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf).await {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    trickle.abort();
    assert!(
        closed.is_ok(),
        "a trickling body still held after {BOUND:?}"
    );
    let answer = String::from_utf8_lossy(&got);
    assert_eq!(status(&answer), Some(408), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.contains("request-timeout"), "{answer}");
    // A whole body in time is read as usual: a bad key is a 401 page, not a 408.
    let answer = exchange(
        "127.0.0.1",
        server.addr,
        "POST /login HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded",
        "token=tdg_0",
    )
    .await;
    assert_eq!(status(&answer), Some(401), "{answer}");
}

#[tokio::test]
async fn connections_past_the_limits_are_refused_while_other_clients_are_served() {
    // Two per address, three in all; idle connections are held for the 30 s header timeout.
    let server = start(limits(30, 60, 3, 2), lenient()).await;
    let _one = connect_from("127.0.0.1", server.addr).await;
    let mut two = connect_from("127.0.0.1", server.addr).await;
    let mut third = connect_from("127.0.0.1", server.addr).await;
    let refused = until_closed(&mut third).await.expect("refused at once");
    assert!(
        refused.is_empty() || status(&refused) == Some(503),
        "{refused}"
    );
    // Another address is still served, and a request's answer comes on a held connection.
    let answer = exchange("127.0.0.2", server.addr, "GET /healthz HTTP/1.1", "").await;
    assert_eq!(status(&answer), Some(200), "{answer}");

    // The third connection in all fills the server: a fourth address is refused.
    let _held = loop {
        // The connection just answered gives its slot back as its task ends.
        let mut stream = connect_from("127.0.0.2", server.addr).await;
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("send");
        let mut buf = [0u8; 12];
        let ok = tokio::time::timeout(BOUND, stream.read_exact(&mut buf)).await;
        if ok.is_ok_and(|r| r.is_ok()) && buf.starts_with(b"HTTP/1.1 200") {
            break stream;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut fourth = connect_from("127.0.0.3", server.addr).await;
    let refused = until_closed(&mut fourth).await.expect("refused at once");
    assert!(
        refused.is_empty() || status(&refused) == Some(503),
        "{refused}"
    );
    // Once a connection closes, its slot serves the next client.
    two.shutdown().await.expect("close");
    drop(two);
    let served = tokio::time::timeout(BOUND, async {
        loop {
            let answer = exchange("127.0.0.3", server.addr, "GET /healthz HTTP/1.1", "").await;
            if status(&answer) == Some(200) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "a freed slot was never given again");
}

/// `POST /login` with `token` from `from`: the whole answer.
async fn login(from: &str, server: SocketAddr, token: &str) -> String {
    exchange(
        from,
        server,
        "POST /login HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded",
        &format!("token={token}"),
    )
    .await
}

/// The `Retry-After` of a raw answer.
fn retry_after(answer: &str) -> Option<u64> {
    answer.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after")
            .then(|| value.trim().parse().ok())?
    })
}

/// Three failures per address, then one more every ten minutes.
const THREE_FAILURES: RateLimit = RateLimit {
    burst: 3,
    refill_every: Duration::from_secs(600),
};

#[tokio::test]
async fn failed_logins_from_one_address_are_429_past_the_limit() {
    let server = start(limits(30, 60, 64, 64), THREE_FAILURES).await;
    let good = login("127.0.0.1", server.addr, &server.admin).await;
    assert_eq!(status(&good), Some(303), "{good}");
    let wrong = format!("tdg_{}", "0".repeat(64));
    for bad in [wrong.as_str(), "not-a-key", wrong.as_str()] {
        let answer = login("127.0.0.1", server.addr, bad).await;
        assert_eq!(status(&answer), Some(401), "{answer}");
    }
    for token in [wrong.as_str(), server.admin.as_str()] {
        let answer = login("127.0.0.1", server.addr, token).await;
        assert_eq!(status(&answer), Some(429), "{answer}");
        let wait = retry_after(&answer).expect("Retry-After");
        assert!((1..=600).contains(&wait), "{wait}");
    }
    // Another address logs in as before.
    let good = login("127.0.0.2", server.addr, &server.admin).await;
    assert_eq!(status(&good), Some(303), "{good}");
}

#[tokio::test]
async fn failed_bearer_checks_from_one_address_are_429_past_the_limit() {
    let server = start(limits(30, 60, 64, 64), THREE_FAILURES).await;
    let get = |from: &'static str, auth: String| {
        let addr = server.addr;
        async move {
            exchange(
                from,
                addr,
                &format!("GET /v1/log HTTP/1.1\r\nAuthorization: {auth}"),
                "",
            )
            .await
        }
    };
    let admin = format!("Bearer {}", server.admin);
    let answer = get("127.0.0.1", admin.clone()).await;
    assert_eq!(status(&answer), Some(200), "{answer}");
    for bad in ["Bearer tdg_wrong", "Basic eDp5", "Bearer tdg_other"] {
        let answer = get("127.0.0.1", bad.to_owned()).await;
        assert_eq!(status(&answer), Some(401), "{bad}: {answer}");
    }
    for auth in ["Bearer tdg_wrong".to_owned(), admin.clone()] {
        let answer = get("127.0.0.1", auth).await;
        assert_eq!(status(&answer), Some(429), "{answer}");
        assert!(answer.contains("application/problem+json"), "{answer}");
        assert!(retry_after(&answer).is_some(), "{answer}");
    }
    let answer = get("127.0.0.2", admin).await;
    assert_eq!(status(&answer), Some(200), "another address: {answer}");
    // Nothing was written by the failures.
    assert_eq!(server.store.list_keys().await.expect("keys").len(), 1);
}
