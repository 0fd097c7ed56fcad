//! The do-not-crawl commands end to end (FF13, WFM10): `block`, `unblock`, `blocks`,
//! `remove [--block]`, against a local publisher that records every request.

mod support;

use std::sync::{Arc, Mutex};
use support::{Publisher, Resource, fast_profile, rss, stderr, stdout, tidings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server on 127.0.0.1 that answers every path with a 301 to `to`, recording the paths.
async fn redirector(to: String) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = vec![0u8; 8192];
            let n = stream.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            let path = head.split(' ').nth(1).unwrap_or("/").to_string();
            let answer = if path == "/robots.txt" {
                "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    .to_string()
            } else {
                format!(
                    "HTTP/1.1 301 Moved\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
            };
            log.lock().unwrap().push(path);
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
    });
    (port, seen)
}

async fn run(db: &std::path::Path, common: &[&str], args: &[&str]) -> std::process::Output {
    tidings(db, &[common, args].concat()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_blocked_host_is_not_fetched_and_rules_are_listed_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set("/f.xml", Resource::feed(rss("f", 1, 2), "\"f1\""));
    let resolve = format!("feeds.test:{}:127.0.0.1", publisher.port);
    let common = [
        "--profile",
        profile.as_str(),
        "--allow-private-networks",
        "--resolve",
        resolve.as_str(),
    ];
    let url = format!("http://feeds.test:{}/f.xml", publisher.port);

    let out = run(&db, &common, &["add", "--no-fetch", &url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(
        &db,
        &common,
        &["block", "HOST", "Feeds.Test.", "--reason", "asked by email"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("blocked host feeds.test"),
        "{}",
        stdout(&out)
    );
    // The feed it covers is paused at once, without a request, and shown as blocked.
    assert!(
        stdout(&out).contains("paused: blocked: do-not-crawl: host feeds.test (FF13)"),
        "{}",
        stdout(&out)
    );
    let out = run(&db, &common, &["feeds"]).await;
    assert!(stdout(&out).contains("    1  blocked"), "{}", stdout(&out));
    let out = run(&db, &common, &["block", "domain", "co.uk"]).await;
    assert!(!out.status.success(), "a public suffix is refused");
    assert!(stderr(&out).contains("public suffix"), "{}", stderr(&out));

    let out = run(&db, &common, &["blocks"]).await;
    assert!(
        stdout(&out).contains("host") && stdout(&out).contains("feeds.test  (asked by email)"),
        "{}",
        stdout(&out)
    );

    let out = run(&db, &common, &["fetch"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("0 feeds: fetched 0"),
        "a blocked feed is not due: {}",
        stdout(&out)
    );
    assert!(
        publisher.seen().is_empty(),
        "FF13: no request to a blocked host"
    );
    let out = run(&db, &common, &["feeds", "--json"]).await;
    assert!(
        stdout(&out).contains("do-not-crawl: host feeds.test (FF13)"),
        "{}",
        stdout(&out)
    );
    // A blocked URL is refused; the other URLs of the same command are still added.
    let elsewhere = format!("http://127.0.0.1:{}/f.xml", publisher.port);
    let out = run(
        &db,
        &common,
        &[
            "add",
            "--no-fetch",
            "http://feeds.test/other.xml",
            &elsewhere,
        ],
    )
    .await;
    assert!(!out.status.success(), "a blocked URL is not added");
    assert!(
        stderr(&out).contains("do-not-crawl: host feeds.test (FF13)"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains(&format!("feed 2: {elsewhere}")),
        "the next URL is added: {}",
        stdout(&out)
    );
    let out = run(&db, &common, &["remove", "2"]).await;
    assert!(out.status.success(), "{}", stderr(&out));

    // Without the rule the feed is resumed and read again.
    let out = run(&db, &common, &["unblock", "host", "FEEDS.test"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("feed 1: ") && stdout(&out).contains(" resumed"),
        "{}",
        stdout(&out)
    );
    let out = run(&db, &common, &["fetch"]).await;
    assert!(
        stdout(&out).contains("1 feed: fetched 1"),
        "{}",
        stdout(&out)
    );
    assert!(
        publisher.seen().iter().any(|p| p.path == "/f.xml"),
        "{:?}",
        publisher.seen()
    );
    let out = run(&db, &common, &["unblock", "host", "feeds.test"]).await;
    assert!(!out.status.success(), "already gone");
    let out = run(&db, &common, &["blocks", "--json"]).await;
    assert_eq!(stdout(&out), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_redirect_to_a_blocked_host_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set("/feed.xml", Resource::feed(rss("f", 1, 2), "\"f1\""));
    let target = format!("http://blocked.test:{}/feed.xml", publisher.port);
    let (port, redirects) = redirector(target).await;
    let resolve = format!("blocked.test:{}:127.0.0.1", publisher.port);
    let common = [
        "--profile",
        profile.as_str(),
        "--allow-private-networks",
        "--resolve",
        resolve.as_str(),
    ];
    let out = tidings(
        &db,
        &[&common[..], &["block", "host", "blocked.test"]].concat(),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let start = format!("http://127.0.0.1:{port}/old.xml");
    let out = tidings(&db, &[&common[..], &["add", &start]].concat()).await;
    assert!(!out.status.success(), "the first read failed");
    assert!(
        stdout(&out).contains("not fetched: do-not-crawl: host blocked.test (FF13)"),
        "{}",
        stdout(&out)
    );
    assert_eq!(*redirects.lock().unwrap(), ["/robots.txt", "/old.xml"]);
    assert!(
        publisher.seen().is_empty(),
        "neither robots.txt nor the feed of the blocked host was requested"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm10_a_removed_feed_stops_at_once_and_cannot_be_added_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set("/a.xml", Resource::feed(rss("a", 1, 2), "\"a1\""));
    publisher.set("/b.xml", Resource::feed(rss("b", 1, 2), "\"b1\""));
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];
    let (a, b) = (publisher.url("/a.xml"), publisher.url("/b.xml"));
    let out = tidings(&db, &[&common[..], &["add", &a, &b]].concat()).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let before = publisher.seen().len();

    // With --block: removed at once, and its URL blocked.
    let out = tidings(&db, &[&common[..], &["remove", "1", "--block"]].concat()).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("feed 1: "), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("blocked url {a}")),
        "{}",
        stdout(&out)
    );
    let out = tidings(&db, &[&common[..], &["add", &a]].concat()).await;
    assert!(
        !out.status.success(),
        "a removed and blocked feed is not added again"
    );
    assert!(
        stderr(&out).contains(&format!("do-not-crawl: url {a} (FF13)")),
        "{}",
        stderr(&out)
    );

    // Without --block: removed at once; adding it again is refused by the store.
    let out = tidings(&db, &[&common[..], &["remove", &b]].concat()).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &[&common[..], &["add", &b]].concat()).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("was removed on request and cannot be subscribed to again"),
        "{}",
        stderr(&out)
    );

    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = tidings(&db, &[&common[..], &["fetch"]].concat()).await;
    assert!(stdout(&out).contains("0 feeds"), "{}", stdout(&out));
    assert_eq!(
        publisher.seen().len(),
        before,
        "no request for a removed feed"
    );
    let out = tidings(&db, &[&common[..], &["feeds"]].concat()).await;
    assert_eq!(
        stdout(&out)
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|w| w.len() > 1 && w[0].parse::<i64>().is_ok() && w[1] == "removed")
            .count(),
        2,
        "{}",
        stdout(&out)
    );
    let out = tidings(&db, &[&common[..], &["remove", "99"]].concat()).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no feed 99"), "{}", stderr(&out));
}
