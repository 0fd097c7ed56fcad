//! WFM5: a read that got no answer at all is tried once more at once; WFM4: an answered read,
//! a refusal or a server error included, is never tried again early. The second attempt is
//! WorldFeedMonitor's alone: every other profile waits on its back-off (SR5, DFB6, FF12, PF4).

mod support;

use support::{Answer, FEED, Script, as_profile, crawler_with, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::LogQuery;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr5_dfb6_ff12_pf4_no_answer_is_one_request_under_every_other_profile() {
    for name in [
        "default",
        "serenereader",
        "dailyfootballbot",
        "ffbot",
        "plainfeeder",
    ] {
        let script = Script::default();
        script.push("/robots.txt", Answer::status(404));
        script.push("/f.xml", Answer::hang_up());
        let port = serve(script.clone()).await;
        let dir = tempfile::tempdir().unwrap();
        let (crawler, store) = crawler_with(dir.path(), as_profile(name)).await;
        let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
        let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
        assert_eq!(report.outcome, "no_answer", "{name}");
        assert_eq!(script.count("/f.xml"), 1, "{name}: no second attempt");
        assert!(
            report.next_fetch_at > chrono::Utc::now(),
            "{name}: it waits"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm5_no_answer_gets_exactly_one_second_attempt() {
    let script = Script::default();
    script.push("/f.xml", Answer::hang_up());
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("worldfeedmonitor")).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!((report.outcome.as_str(), report.new_entries), ("ok", 2));
    assert_eq!(script.count("/f.xml"), 2);
    let mut log = store
        .request_log(&LogQuery {
            feed: Some(feed.id),
            ..LogQuery::default()
        })
        .await
        .unwrap();
    log.reverse();
    let rows: Vec<(&str, &str)> = log
        .iter()
        .map(|r| (r.outcome.as_str(), r.rule.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("no_answer", "first add; robots: 404, everything allowed"),
            ("ok", "second attempt after no answer (WFM5)")
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm5_the_second_attempt_is_the_only_one() {
    let script = Script::default();
    script.push("/f.xml", Answer::hang_up());
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("worldfeedmonitor")).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "no_answer");
    assert_eq!(
        script.count("/f.xml"),
        2,
        "one attempt and one second attempt, no more"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm4_answered_requests_are_never_retried_early() {
    for status in [503u16, 500, 429, 403, 404] {
        let script = Script::default();
        script.push(
            "/f.xml",
            Answer {
                status,
                headers: vec![],
                body: String::new(),
            },
        );
        let port = serve(script.clone()).await;
        let dir = tempfile::tempdir().unwrap();
        let (crawler, store) = crawler_with(dir.path(), as_profile("worldfeedmonitor")).await;
        let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
        let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
        assert!(report.error.is_some(), "{status}");
        assert_eq!(script.count("/f.xml"), 1, "{status} was asked again");
    }
}
