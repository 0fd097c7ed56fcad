//! Do-not-crawl rules before every request (FF13, WFM10), and robots.txt of every redirect
//! destination (FF11): the crawler follows redirects itself, one checked request per hop.

mod support;

use chrono::Utc;
use std::sync::Arc;
use support::{Answer, FEED, Script, crawler, crawler_with, serve, subscribe};
use tidings_crawler::{CrawlError, Purpose};
use tidings_model::FeedUrl;
use tidings_policy::{BlockKind, parse_rule};
use tidings_store::{FeedState, LogQuery, NewBlock, Store};

async fn block(store: &Arc<dyn Store>, kind: BlockKind, value: &str) {
    let value = parse_rule(kind, value).unwrap();
    store
        .add_block(&NewBlock {
            kind: kind.as_str().into(),
            value,
            reason: Some("publisher asked".into()),
            created_at: Utc::now(),
        })
        .await
        .unwrap();
}

fn redirect(to: &str) -> Answer {
    Answer {
        status: 301,
        headers: vec![("location".into(), to.into())],
        body: String::new(),
    }
}

async fn log_of(store: &Arc<dyn Store>) -> Vec<(String, String, String)> {
    let mut rows = store.request_log(&LogQuery::default()).await.unwrap();
    rows.reverse();
    rows.into_iter()
        .map(|r| (r.url, r.outcome.to_string(), r.rule))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_blocked_host_gets_no_request_at_all() {
    let script = Script::default();
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    block(&store, BlockKind::Host, "127.0.0.1").await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "blocked");
    assert_eq!(
        report.error.as_deref(),
        Some("not fetched: do-not-crawl: host 127.0.0.1 (FF13)")
    );
    assert!(
        script.requests.lock().unwrap().is_empty(),
        "neither robots.txt nor the feed was requested"
    );
    assert!(
        log_of(&store).await.is_empty(),
        "nothing sent, nothing logged"
    );
    let stored = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(stored.last_outcome.map(|l| l.as_str()), Some("blocked"));
    // Paused with the rule as its reason, not sent up a back-off ladder: nothing failed.
    assert_eq!(stored.state, FeedState::Paused);
    assert_eq!(
        stored.state_reason.as_deref(),
        Some("blocked: do-not-crawl: host 127.0.0.1 (FF13)")
    );
    assert_eq!(stored.consecutive_failures, 0);
    let far = Utc::now() + chrono::Duration::days(3650);
    assert!(
        store.due_feeds(far, 10).await.unwrap().is_empty(),
        "a blocked feed is never due"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_wfm10_a_feed_rule_blocks_that_feed_only() {
    let script = Script::default();
    script.push("/a.xml", Answer::ok(FEED));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://127.0.0.1:{port}/b.xml")).await;
    block(&store, BlockKind::Feed, &a.id.0.to_string()).await;

    let report = crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(
        report.error,
        Some(format!("not fetched: do-not-crawl: feed {} (FF13)", a.id))
    );
    let report = crawler.refresh(&b, Purpose::Scheduled).await.unwrap();
    assert_eq!(report.new_entries, 2);
    assert_eq!(script.count("/a.xml"), 0);
    assert_eq!(script.count("/b.xml"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_redirect_to_a_blocked_path_is_not_followed() {
    let script = Script::default();
    script.push("/old.xml", redirect("/private/new.xml"));
    script.push("/private/new.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let base = format!("http://127.0.0.1:{port}");
    let feed = subscribe(&store, &format!("{base}/old.xml")).await;
    block(&store, BlockKind::Path, &format!("{base}/private/")).await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "blocked");
    assert_eq!(
        report.error,
        Some(format!(
            "not fetched: do-not-crawl: path http://127.0.0.1:{port}/private/ (FF13)"
        ))
    );
    assert_eq!(
        script.count("/private/new.xml"),
        0,
        "the blocked hop was never sent"
    );
    assert_eq!(script.count("/old.xml"), 1);
    let log = log_of(&store).await;
    assert_eq!(log.len(), 2, "robots.txt and the first hop: {log:?}");
    assert_eq!(log[1].0, format!("{base}/old.xml"));
    assert_eq!(log[1].1, "redirect");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_c7_a_redirect_to_another_origin_reads_its_robots_first_and_obeys_it() {
    let there = Script::default();
    there.push(
        "/robots.txt",
        Answer {
            status: 200,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: "User-agent: *\nDisallow: /private/\n".into(),
        },
    );
    there.push("/public/f.xml", Answer::ok(FEED));
    there.push("/private/f.xml", Answer::ok(FEED));
    let there_port = serve(there.clone()).await;
    let here = Script::default();
    let there_base = format!("http://127.0.0.1:{there_port}");
    here.push(
        "/moved.xml",
        redirect(&format!("{there_base}/public/f.xml")),
    );
    here.push(
        "/hidden.xml",
        redirect(&format!("{there_base}/private/f.xml")),
    );
    let here_port = serve(here.clone()).await;
    let here_base = format!("http://127.0.0.1:{here_port}");
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;

    let moved = subscribe(&store, &format!("{here_base}/moved.xml")).await;
    let report = crawler.refresh(&moved, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.new_entries, 2);
    let log = log_of(&store).await;
    let urls: Vec<&str> = log.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        urls,
        [
            format!("{here_base}/robots.txt"),
            format!("{here_base}/moved.xml"),
            format!("{there_base}/robots.txt"),
            format!("{there_base}/public/f.xml"),
        ],
        "the destination's robots.txt is read before the destination"
    );
    assert_eq!(
        log[3].2,
        format!("redirect from {here_base}/moved.xml; robots: allowed by group *: no rule matched"),
    );

    let hidden = subscribe(&store, &format!("{here_base}/hidden.xml")).await;
    let report = crawler.refresh(&hidden, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "blocked");
    assert_eq!(
        there.count("/private/f.xml"),
        0,
        "robots.txt of the destination is obeyed"
    );
    assert_eq!(there.count("/robots.txt"), 1, "read once per origin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_blocked_robots_txt_means_no_feed_request() {
    let script = Script::default();
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let base = format!("http://127.0.0.1:{port}");
    let feed = subscribe(&store, &format!("{base}/f.xml")).await;
    block(&store, BlockKind::Url, &format!("{base}/robots.txt")).await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(
        report.error,
        Some(format!(
            "not fetched: robots.txt not fetched: do-not-crawl: url {base}/robots.txt (FF13)"
        ))
    );
    assert!(script.requests.lock().unwrap().is_empty());
}

/// FF13: a rule written to the store by anyone (the API, the UI, another process) governs
/// this crawler's next decision at once, with no reload; a removed rule stops governing it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_subscribing_to_a_blocked_url_is_refused_as_soon_as_the_rule_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let first = FeedUrl::parse("https://first.example.net/feed.xml").unwrap();
    assert!(
        crawler.subscribe(&first, "alice").await.is_ok(),
        "rules read now"
    );

    block(&store, BlockKind::Domain, "example.co.uk").await;
    let other = FeedUrl::parse("https://www.example.co.uk/other.xml").unwrap();
    match crawler.subscribe(&other, "alice").await {
        Err(CrawlError::Blocked { url, reason }) => {
            assert_eq!(url, "https://www.example.co.uk/other.xml");
            assert_eq!(reason, "do-not-crawl: domain example.co.uk (FF13)");
        }
        other => panic!("a blocked URL was subscribed: {other:?}"),
    }
    assert!(
        store.feed_by_url(&other).await.unwrap().is_none(),
        "no feed row for a refused URL"
    );
    assert!(store.remove_block("domain", "example.co.uk").await.unwrap());
    assert!(
        crawler.subscribe(&other, "alice").await.is_ok(),
        "a removed rule no longer governs"
    );
}

/// FF13: a rule added while a request waits for its host's gap stops that request: the rules
/// are asked again once the turn is taken, just before sending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff13_a_rule_added_while_a_request_waits_for_its_turn_stops_it() {
    let script = Script::default();
    script.push("/robots.txt", Answer::status(404));
    script.push("/a.xml", Answer::ok(FEED));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| p.pacing.host_gap = 3.0).await;
    let crawler = Arc::new(crawler);
    let base = format!("http://127.0.0.1:{port}");
    let a = subscribe(&store, &format!("{base}/a.xml")).await;
    let b = subscribe(&store, &format!("{base}/b.xml")).await;
    crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    // b's request must wait 3 s for the host's gap; the rule comes in the meantime.
    let waiting = {
        let crawler = crawler.clone();
        tokio::spawn(async move { crawler.refresh(&b, Purpose::Scheduled).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    block(&store, BlockKind::Host, "127.0.0.1").await;
    let report = waiting.await.unwrap().unwrap();
    assert_eq!(
        script.count("/b.xml"),
        0,
        "nothing sent after the rule was stored"
    );
    assert_eq!(report.outcome, "blocked", "{report:?}");
    let log = store
        .request_log(&LogQuery {
            feed: Some(report.feed_id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(log.is_empty(), "no row for a request never sent: {log:?}");
}
