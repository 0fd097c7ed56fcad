//! WFM4: once a response head arrived, whatever goes wrong is a failed answer, not silence:
//! a body that stalls or drips past the deadline, a head too large to read. Only silence may
//! be tried again early. And a read the crawler slept through (SIGSTOP) blames nobody.

mod support;

use std::time::Duration;
use support::{Reply, Server, config, fetcher, get, head, response};
use tidings_fetch::{FetchConfig, FetchOutcome};
use tidings_model::{AnswerFailure, TransportError};

fn impatient() -> FetchConfig {
    let mut config = config();
    config.total_timeout = Duration::from_millis(500);
    config
}

#[tokio::test]
async fn wfm4_a_body_that_stops_after_the_status_line_is_a_failed_answer() {
    let server = Server::start(|_, _| {
        let mut bytes = head(200, &[("content-length", b"1000")]);
        bytes.extend_from_slice(b"<rss><channel>");
        Reply::Stall { head: bytes }
    })
    .await;
    let got = get(&fetcher(impatient()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::FailedAnswer {
            status: Some(200),
            failure: AnswerFailure::Stalled,
        }
    );
    assert!(!got.outcome.is_no_answer(), "an answer, not silence");
    assert_eq!(got.outcome.label(), "stalled_answer");
    assert_eq!(got.bytes, 14, "what arrived is counted");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn wfm4_a_megabyte_of_headers_is_a_failed_answer() {
    let server = Server::start(|_, _| {
        let padding = vec![b'a'; 1024 * 1024];
        Reply::Raw(response(200, &[("x-padding", &padding)], b"<rss/>"))
    })
    .await;
    let got = get(&fetcher(impatient()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::FailedAnswer {
            status: None,
            failure: AnswerFailure::HeadTooLarge,
        }
    );
    assert!(!got.outcome.is_no_answer());
    assert_eq!(got.outcome.label(), "head_too_large");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn wfm5_a_head_that_stalls_before_its_end_is_still_no_answer() {
    // The client sees a response only once its head is complete: a status line followed by
    // silence cannot be told from silence (a documented limit), so it stays `Transport`.
    let server = Server::start(|_, _| Reply::Stall {
        head: b"HTTP/1.1 200 OK\r\nx-slow: 1\r\n".to_vec(),
    })
    .await;
    let got = get(&fetcher(impatient()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Transport(TransportError::Timeout)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn c8_a_read_the_crawler_slept_through_blames_nobody() {
    // The one runtime thread is blocked for 3 s while a 100 ms read is under way, as if the
    // process had been stopped: its deadline fires 2.9 s late, past the 2 s floor.
    let server = Server::start(|_, _| Reply::Stall { head: Vec::new() }).await;
    let mut config = config();
    config.total_timeout = Duration::from_millis(100);
    let fetcher = fetcher(config);
    let url = server.url("/feed");
    let read = tokio::spawn(async move { get(&fetcher, url).await });
    tokio::time::sleep(Duration::from_millis(20)).await;
    std::thread::sleep(Duration::from_secs(3));
    let got = match read.await {
        Ok(got) => got,
        Err(e) => panic!("the read panicked: {e}"),
    };
    match got.outcome {
        FetchOutcome::CrawlerPaused { overran_secs } => assert_eq!(overran_secs, 2),
        other => panic!("expected crawler_paused, got {other:?}"),
    }
    assert!(!got.outcome.is_no_answer());
    assert!(got.duration >= Duration::from_secs(3));
}
