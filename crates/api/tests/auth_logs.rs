//! No API token ever reaches a log line, whatever happens to the request: every event at
//! every level, from tidings and from the libraries under it, is captured and searched.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use support::{Server, send, t};
use tidings_api::auth::{Role, issue};

/// Where the log lines go.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_never_reach_the_logs() {
    let capture = Capture::default();
    let writer = capture.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let server = Server::start().await;
    let mut tokens = Vec::new();
    let mut ids = Vec::new();
    for role in [Role::Admin, Role::Reader, Role::Admin] {
        let (token, new) = issue(None, role, t(0)).expect("random token");
        ids.push(server.store.create_key(&new).await.expect("create key").id);
        tokens.push(token);
    }
    server.store.revoke_key(ids[2], t(1)).await.expect("revoke");
    let feed = r#"{"url": "https://example.org/feed.xml"}"#;
    for token in &tokens {
        let auth = format!("Authorization: Bearer {token}\r\n");
        for (method, path, body) in [
            ("POST", "/v1/feeds", Some(feed)),
            ("POST", "/v1/feeds", Some("{")),
            ("DELETE", "/v1/feeds/1", None),
            ("DELETE", "/v1/feeds/1", None),
            ("GET", "/v1/feeds", None),
            ("GET", "/v1/entries?limit=0", None),
        ] {
            send(server.addr, method, path, &auth, body).await;
        }
        let wrong = format!("Authorization: Bearer {token}0\r\n");
        send(server.addr, "POST", "/v1/feeds", &wrong, Some(feed)).await;
    }

    let logs =
        String::from_utf8_lossy(&capture.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    assert!(
        logs.contains("subscribed through the api"),
        "the capture works: {logs}"
    );
    for token in &tokens {
        // Only the prefix (12 characters) is not secret.
        assert!(!logs.contains(&token[12..]), "a token was logged: {logs}");
    }
}
