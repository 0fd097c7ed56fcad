//! No answer at all: connection refused, slow or silent servers past the total timeout, a TLS
//! failure, a connection dropped before the status line. Each is one `TransportError` kind.

mod support;

use std::time::Duration;
use support::{Reply, Server, config, fetcher, get, parse};
use tidings_fetch::{FetchConfig, FetchOutcome};
use tidings_model::TransportError;

fn impatient() -> FetchConfig {
    let mut config = config();
    config.total_timeout = Duration::from_millis(500);
    config
}

fn free_port_url(scheme: &str) -> url::Url {
    let listener = match std::net::TcpListener::bind("127.0.0.1:0") {
        Ok(l) => l,
        Err(e) => panic!("bind: {e}"),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => panic!("addr: {e}"),
    };
    drop(listener);
    parse(&format!("{scheme}://{addr}/feed"))
}

#[tokio::test]
async fn connection_refused_is_connect() {
    let got = get(&fetcher(config()), free_port_url("http")).await;
    assert!(
        matches!(
            got.outcome,
            FetchOutcome::Transport(TransportError::Connect(_))
        ),
        "{:?}",
        got.outcome
    );
    assert!(got.outcome.is_no_answer());
}

#[tokio::test]
async fn silent_server_past_the_total_timeout_is_timeout() {
    let server = Server::start(|_, _| Reply::Stall { head: Vec::new() }).await;
    let got = get(&fetcher(impatient()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Transport(TransportError::Timeout)
    );
}

#[tokio::test]
async fn total_timeout_spans_redirect_hops() {
    let server = Server::start(|req, _| match req.path() {
        "/feed" => Reply::Raw(support::response(301, &[("location", b"/slow")], b"")),
        _ => Reply::Stall { head: Vec::new() },
    })
    .await;
    let got = get(&fetcher(impatient()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Transport(TransportError::Timeout)
    );
    assert_eq!(got.final_url, server.url("/slow"));
    assert_eq!(got.redirects.len(), 1);
}

#[tokio::test]
async fn hangup_before_the_status_line_is_io_and_not_retried() {
    let server = Server::start(|_, _| Reply::Hangup).await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert!(
        matches!(got.outcome, FetchOutcome::Transport(TransportError::Io(_))),
        "{:?}",
        got.outcome
    );
    assert_eq!(server.requests().len(), 1, "one read is one request");
}

#[tokio::test]
async fn tls_to_a_plain_http_server_is_tls() {
    // A server that answers plain HTTP as soon as a connection opens, whatever it receives.
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => panic!("bind: {e}"),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => panic!("addr: {e}"),
    };
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            use tokio::io::AsyncWriteExt;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    let got = get(&fetcher(config()), parse(&format!("https://{addr}/feed"))).await;
    assert!(
        matches!(got.outcome, FetchOutcome::Transport(TransportError::Tls(_))),
        "{:?}",
        got.outcome
    );
}
