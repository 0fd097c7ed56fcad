//! C8: the body cap bounds the announced, the streamed and the decompressed size.

mod support;

use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;
use support::{Reply, Server, config, fetcher, get, head, response};
use tidings_fetch::{FetchConfig, FetchOutcome};

const CAP: u64 = 1024 * 1024;

fn capped() -> FetchConfig {
    let mut config = config();
    config.max_body_bytes = CAP;
    config
}

fn assert_too_large(outcome: &FetchOutcome) {
    assert_eq!(outcome, &FetchOutcome::TooLarge { limit: CAP });
}

#[tokio::test]
async fn c8_content_length_over_cap_is_refused_before_reading() {
    // The head announces 5 MB and then nothing comes: reading would end in a timeout,
    // so a TooLarge proves the body was never waited for.
    let server = Server::start(|_, _| Reply::Stall {
        head: head(200, &[("content-length", b"5242880")]),
    })
    .await;
    let got = get(&fetcher(capped()), server.url("/feed")).await;
    assert_too_large(&got.outcome);
    assert_eq!(got.bytes, 0);
}

#[tokio::test]
async fn c8_endless_chunked_body_stops_at_the_cap() {
    let server = Server::start(|_, _| Reply::Endless {
        head: head(200, &[("transfer-encoding", b"chunked")]),
    })
    .await;
    let got = get(&fetcher(capped()), server.url("/feed")).await;
    assert_too_large(&got.outcome);
    assert!(got.bytes <= CAP, "kept {} bytes past the cap", got.bytes);
    assert!(got.bytes > CAP / 2, "stopped early at {} bytes", got.bytes);
}

#[tokio::test]
async fn c8_gzip_bomb_stops_at_the_cap() {
    // 10 MB of zeros, about 10 kB on the wire: the compressed size passes every header check.
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..10 {
        let _ = enc.write_all(&zeros);
    }
    let bomb = enc.finish().unwrap_or_default();
    assert!(
        (bomb.len() as u64) < CAP / 10,
        "the bomb is {} bytes",
        bomb.len()
    );
    let server = Server::start(move |_, _| {
        Reply::Raw(response(200, &[("content-encoding", b"gzip")], &bomb))
    })
    .await;
    let got = get(&fetcher(capped()), server.url("/feed")).await;
    assert_too_large(&got.outcome);
    assert!(got.bytes <= CAP);
}

#[tokio::test]
async fn c8_body_of_exactly_the_cap_is_accepted_and_one_more_byte_is_not() {
    let exact = vec![b'x'; CAP as usize];
    let over = vec![b'x'; CAP as usize + 1];
    let server = Server::start(move |req, _| {
        let body = if req.path() == "/exact" {
            &exact
        } else {
            &over
        };
        Reply::Raw(response(200, &[], body))
    })
    .await;
    let fetcher = fetcher(capped());
    let got = get(&fetcher, server.url("/exact")).await;
    assert_eq!(support::body(&got.outcome).len() as u64, CAP);
    assert_eq!(got.bytes, CAP);
    let got = get(&fetcher, server.url("/over")).await;
    assert_too_large(&got.outcome);
}

/// SR1: a request may read less than the fetcher's cap (an article page's 1 MB), never more.
#[tokio::test]
async fn sr1_a_requests_own_cap_bounds_its_body_below_the_fetchers() {
    let body = vec![b'x'; 2048];
    let server = Server::start(move |_, _| Reply::Raw(response(200, &[], &body))).await;
    let fetcher = fetcher(capped());
    let small = tidings_fetch::FetchRequest {
        max_body_bytes: Some(1024),
        ..tidings_fetch::FetchRequest::new(server.url("/page"))
    };
    let got = fetcher.fetch(&small).await;
    assert_eq!(got.outcome, FetchOutcome::TooLarge { limit: 1024 });
    let enough = tidings_fetch::FetchRequest {
        max_body_bytes: Some(2048),
        ..tidings_fetch::FetchRequest::new(server.url("/page"))
    };
    assert_eq!(
        support::body(&fetcher.fetch(&enough).await.outcome).len(),
        2048
    );
    // SR1: the head of a longer page is kept, the rest not read.
    let head = tidings_fetch::FetchRequest {
        max_body_bytes: Some(1000),
        keep_prefix: true,
        ..tidings_fetch::FetchRequest::new(server.url("/page"))
    };
    let got = fetcher.fetch(&head).await;
    assert_eq!(support::body(&got.outcome).len(), 1000);
    assert!(got.bytes <= 1000, "{}", got.bytes);
    // A request's cap above the fetcher's is the fetcher's.
    let over = tidings_fetch::FetchRequest {
        max_body_bytes: Some(CAP * 4),
        ..tidings_fetch::FetchRequest::new(server.url("/page"))
    };
    assert_eq!(
        support::body(&fetcher.fetch(&over).await.outcome).len(),
        2048
    );
}

#[tokio::test]
async fn c8_chunked_body_one_byte_over_the_cap_is_refused() {
    // No Content-Length: only the streamed count can catch it.
    let server = Server::start(|_, _| {
        let mut bytes = head(200, &[("transfer-encoding", b"chunked")]);
        for _ in 0..2 {
            let chunk = vec![b'y'; (CAP / 2) as usize];
            bytes.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            bytes.extend_from_slice(&chunk);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"1\r\nz\r\n0\r\n\r\n");
        Reply::Raw(bytes)
    })
    .await;
    let got = get(&fetcher(capped()), server.url("/feed")).await;
    assert_too_large(&got.outcome);
}

#[tokio::test]
async fn c8_error_bodies_are_not_read() {
    // A 404 announcing a huge body is still a 404: the body is irrelevant and never read.
    let server = Server::start(|_, _| Reply::Stall {
        head: head(404, &[("content-length", b"999999999")]),
    })
    .await;
    let got = get(&fetcher(capped()), server.url("/feed")).await;
    assert_eq!(got.outcome, FetchOutcome::NotFound);
    assert_eq!(got.bytes, 0);
}

#[tokio::test]
async fn c8_a_refused_body_is_not_read_on_in_the_background() {
    // The server announces 200 MB and writes as fast as it can: once the fetcher has refused
    // the body, the connection must be dropped (the server's writes fail), not drained.
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const TOTAL: u64 = 200 * 1024 * 1024;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let written = Arc::new(AtomicU64::new(0));
    let counter = written.clone();
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request).await;
        let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {TOTAL}\r\n\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        let chunk = vec![b'x'; 64 * 1024];
        while counter.load(Ordering::Relaxed) < TOTAL {
            if stream.write_all(&chunk).await.is_err() {
                return false; // the client went away
            }
            counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
        true
    });
    let url = url::Url::parse(&format!("http://127.0.0.1:{port}/feed")).unwrap();
    let got = fetcher(capped())
        .fetch(&tidings_fetch::FetchRequest::new(url))
        .await;
    assert_too_large(&got.outcome);
    let finished = tokio::time::timeout(std::time::Duration::from_secs(30), server)
        .await
        .expect("the server's writes neither failed nor ended")
        .unwrap();
    assert!(
        !finished,
        "the whole refused body was read: {} bytes",
        written.load(Ordering::Relaxed)
    );
    // What the kernel's socket buffers took before the close, no more.
    assert!(
        written.load(Ordering::Relaxed) < 64 * 1024 * 1024,
        "{} bytes written",
        written.load(Ordering::Relaxed)
    );
}
