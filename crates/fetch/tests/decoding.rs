//! Compressed bodies (gzip, deflate, brotli) are decoded; broken or truncated ones are BadBody.

mod support;

use flate2::Compression;
use flate2::write::{GzEncoder, ZlibEncoder};
use std::io::Write;
use support::{Reply, Server, config, fetcher, get, head, response};
use tidings_fetch::FetchOutcome;

fn feed() -> Vec<u8> {
    let mut xml = b"<rss version=\"2.0\"><channel>".to_vec();
    for i in 0..200 {
        xml.extend_from_slice(format!("<item><title>entry {i}</title></item>").as_bytes());
    }
    xml.extend_from_slice(b"</channel></rss>");
    xml
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::default());
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        let _ = enc.write_all(data);
    }
    out
}

async fn check_decoded(coding: &'static str, encoded: Vec<u8>) {
    let server = Server::start(move |req, _| {
        let accepts = String::from_utf8_lossy(req.header("accept-encoding").unwrap_or_default())
            .contains(coding);
        if accepts {
            Reply::Raw(response(
                200,
                &[("content-encoding", coding.as_bytes())],
                &encoded,
            ))
        } else {
            Reply::Raw(response(406, &[], b""))
        }
    })
    .await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    let expected = feed();
    assert_eq!(support::body(&got.outcome), expected.as_slice(), "{coding}");
    assert_eq!(
        got.bytes,
        expected.len() as u64,
        "bytes counts the decoded size"
    );
}

#[tokio::test]
async fn gzip_body_is_decoded() {
    check_decoded("gzip", gzip(&feed())).await;
}

#[tokio::test]
async fn deflate_body_is_decoded() {
    check_decoded("deflate", zlib(&feed())).await;
}

#[tokio::test]
async fn brotli_body_is_decoded() {
    check_decoded("br", brotli(&feed())).await;
}

#[tokio::test]
async fn c8_broken_gzip_is_bad_body() {
    let mut broken = gzip(&feed());
    broken.truncate(broken.len() / 2);
    broken.extend_from_slice(b"not gzip at all");
    let server = Server::start(move |_, _| {
        Reply::Raw(response(200, &[("content-encoding", b"gzip")], &broken))
    })
    .await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert!(
        matches!(got.outcome, FetchOutcome::BadBody { status: 200, .. }),
        "{:?}",
        got.outcome
    );
}

#[tokio::test]
async fn c8_garbage_claiming_gzip_is_bad_body() {
    let server = Server::start(|_, _| {
        Reply::Raw(response(
            200,
            &[("content-encoding", b"gzip")],
            b"<rss>plain text, not gzip</rss>",
        ))
    })
    .await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert!(
        matches!(got.outcome, FetchOutcome::BadBody { status: 200, .. }),
        "{:?}",
        got.outcome
    );
}

#[tokio::test]
async fn c8_body_shorter_than_content_length_is_bad_body() {
    let server = Server::start(|_, _| {
        let mut bytes = head(200, &[("content-length", b"1000")]);
        bytes.extend_from_slice(b"<rss>cut short");
        Reply::Raw(bytes)
    })
    .await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert!(
        matches!(got.outcome, FetchOutcome::BadBody { status: 200, .. }),
        "{:?}",
        got.outcome
    );
}

#[tokio::test]
async fn c8_broken_chunking_is_bad_body() {
    let server = Server::start(|_, _| {
        let mut bytes = head(200, &[("transfer-encoding", b"chunked")]);
        bytes.extend_from_slice(b"5\r\n<rss>\r\nzz-not-hex\r\n");
        Reply::Raw(bytes)
    })
    .await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert!(
        matches!(got.outcome, FetchOutcome::BadBody { status: 200, .. }),
        "{:?}",
        got.outcome
    );
}
