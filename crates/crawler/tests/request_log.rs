//! C7: every request a read makes is in the request log, redirect hops included, with the rule
//! that allowed it.

mod support;

use support::{Answer, FEED, Script, crawler, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::LogQuery;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c7_every_hop_of_a_read_is_logged() {
    let script = Script::default();
    let redirect = |to: &str| Answer {
        status: 301,
        headers: vec![("location".into(), to.into())],
        body: String::new(),
    };
    script.push("/old.xml", redirect("/middle.xml"));
    script.push("/middle.xml", redirect("/new.xml"));
    script.push("/new.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let base = format!("http://127.0.0.1:{port}");
    let feed = subscribe(&store, &format!("{base}/old.xml")).await;
    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.new_entries, 2);

    let mut log = store
        .request_log(&LogQuery {
            feed: Some(feed.id),
            ..LogQuery::default()
        })
        .await
        .unwrap();
    log.reverse(); // oldest first
    let rows: Vec<(String, Option<i32>, &str, String)> = log
        .iter()
        .map(|r| (r.url.clone(), r.status, r.outcome.as_str(), r.rule.clone()))
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                format!("{base}/old.xml"),
                Some(301),
                "redirect",
                "first add; robots: 404, everything allowed".to_string()
            ),
            (
                format!("{base}/middle.xml"),
                Some(301),
                "redirect",
                format!("redirect from {base}/old.xml")
            ),
            (
                format!("{base}/new.xml"),
                Some(200),
                "ok",
                format!("redirect from {base}/middle.xml")
            ),
        ]
    );
    assert_eq!(
        script.requests.lock().unwrap().len(),
        4,
        "robots.txt and three hops"
    );
    let robots = store
        .request_log(&LogQuery {
            host: Some("127.0.0.1".into()),
            ..LogQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        robots.len(),
        4,
        "one row per request sent, robots.txt included"
    );
    assert_eq!(robots[3].purpose, "robots");
    assert!(log[2].bytes > 0);
}

/// C7: a request's row is in the log before the request leaves, with its rule, shown as in
/// flight while the publisher has not answered; the answer's row takes its place, so a process
/// killed mid-request leaves its request logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c7_a_request_is_in_the_log_while_it_is_in_flight() {
    let script = Script::default();
    script.push("/feed.xml", Answer::ok(FEED));
    let gate = script.hold("/feed.xml");
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let url = format!("http://127.0.0.1:{port}/feed.xml");
    let feed = subscribe(&store, &url).await;
    let read = {
        let feed = feed.clone();
        tokio::spawn(async move { crawler.refresh(&feed, Purpose::FirstAdd).await })
    };
    let by_feed = LogQuery {
        feed: Some(feed.id),
        ..LogQuery::default()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while script.count("/feed.xml") == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the feed was never asked"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // The publisher holds the request: the log already has it.
    let rows = store.request_log(&by_feed).await.unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0].outcome, tidings_model::Label::InFlight);
    assert_eq!(rows[0].url, url);
    assert_eq!(rows[0].purpose, "first_add");
    assert_eq!(rows[0].status, None);
    assert_eq!(rows[0].rule, "first add; robots: 404, everything allowed");

    gate.add_permits(1);
    let report = read.await.unwrap().unwrap();
    assert_eq!(report.new_entries, 2);
    let rows = store.request_log(&by_feed).await.unwrap();
    let seen: Vec<_> = rows
        .iter()
        .map(|r| (r.outcome.as_str(), r.status))
        .collect();
    assert_eq!(seen, [("ok", Some(200))], "the answer's row replaced it");
    assert_eq!(rows[0].rule, "first add; robots: 404, everything allowed");
}
