//! WFM7: a feed an operator assigned an egress address is read from that address, hop by hop,
//! and the request log says which; robots.txt and other feeds go from the default address.

mod support;

use std::net::IpAddr;
use support::{Answer, FEED, Script, crawler_configured, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::{FeedPatch, LogQuery};

fn ip(text: &str) -> IpAddr {
    text.parse().expect("test address")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm7_an_assigned_egress_sends_the_feeds_requests_and_is_logged() {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok("User-agent: *\nAllow: /\n"));
    script.push(
        "/old.xml",
        Answer {
            status: 301,
            headers: vec![("location".into(), "/feed.xml".into())],
            body: String::new(),
        },
    );
    script.push("/feed.xml", Answer::ok(FEED));
    script.push("/other.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_configured(
        dir.path(),
        |_| {},
        |config| config.egress = vec![ip("127.0.0.5")],
    )
    .await;
    let base = format!("http://127.0.0.1:{port}");
    let assigned = subscribe(&store, &format!("{base}/old.xml")).await;
    let plain = subscribe(&store, &format!("{base}/other.xml")).await;
    let assigned = store
        .patch_feed(
            assigned.id,
            &FeedPatch {
                paused: None,
                reason: String::new(),
                egress: Some(Some("127.0.0.5".into())),
                overrides: None,
                reschedule: None,
                at: chrono::Utc::now(),
            },
        )
        .await
        .unwrap()
        .unwrap();

    crawler.refresh(&assigned, Purpose::FirstAdd).await.unwrap();
    crawler.refresh(&plain, Purpose::FirstAdd).await.unwrap();

    let sources = script.sources.lock().unwrap().clone();
    assert_eq!(
        sources,
        [
            ("/robots.txt".to_owned(), ip("127.0.0.1")),
            ("/old.xml".to_owned(), ip("127.0.0.5")),
            ("/feed.xml".to_owned(), ip("127.0.0.5")),
            ("/other.xml".to_owned(), ip("127.0.0.1")),
        ]
    );
    let mut log = store.request_log(&LogQuery::default()).await.unwrap();
    log.reverse();
    let rows: Vec<(&str, Option<&str>)> = log
        .iter()
        .map(|r| (r.url.rsplit('/').next().unwrap_or(""), r.egress.as_deref()))
        .collect();
    assert_eq!(
        rows,
        [
            ("robots.txt", None),
            ("old.xml", Some("127.0.0.5")),
            ("feed.xml", Some("127.0.0.5")),
            ("other.xml", None),
        ]
    );
}
