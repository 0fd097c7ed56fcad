//! C6: a 429 or 503 with Retry-After holds back every feed of that host until then, without a
//! request and without counting a failure against the other feeds.

mod support;

use chrono::Utc;
use support::{Answer, FEED, Script, crawler, serve, subscribe};
use tidings_crawler::Purpose;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c6_retry_after_is_a_floor_for_the_whole_host() {
    let script = Script::default();
    script.push("/a.xml", Answer::status(429).header("retry-after", "7200"));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://127.0.0.1:{port}/b.xml")).await;

    let refused = crawler.refresh(&a, Purpose::FirstAdd).await.unwrap();
    assert_eq!(refused.outcome, "refused");
    assert_eq!(refused.next_fetch_reason, "Retry-After 7200s");

    let before = Utc::now();
    let held = crawler.refresh(&b, Purpose::FirstAdd).await.unwrap();
    assert_eq!(held.outcome, "postponed");
    assert_eq!(
        script.count("/b.xml"),
        0,
        "no request before the host's Retry-After"
    );
    let wait = (held.next_fetch_at - before).num_seconds();
    assert!((7190..=7200).contains(&wait), "{wait}");
    assert!(
        held.next_fetch_reason
            .starts_with("host Retry-After until "),
        "{}",
        held.next_fetch_reason
    );
    let b = store.feed(b.id).await.unwrap().unwrap();
    assert_eq!(b.consecutive_failures, 0, "waiting is not a failure");
    assert_eq!(b.counters.fetches, 0, "and not a fetch");
    assert_eq!(b.next_fetch_at, held.next_fetch_at);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c6_a_redirect_into_a_host_under_retry_after_waits_for_it() {
    // Two origins: `there` asked everyone to wait; `here` redirects a feed into it.
    let there = Script::default();
    there.push(
        "/busy.xml",
        Answer::status(429).header("retry-after", "7200"),
    );
    there.push("/moved.xml", Answer::ok(FEED));
    let there_port = serve(there.clone()).await;
    let here = Script::default();
    here.push(
        "/feed.xml",
        Answer {
            status: 302,
            headers: vec![(
                "location".into(),
                format!("http://127.0.0.1:{there_port}/moved.xml"),
            )],
            body: String::new(),
        },
    );
    let here_port = serve(here.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let busy = subscribe(&store, &format!("http://127.0.0.1:{there_port}/busy.xml")).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{here_port}/feed.xml")).await;

    let refused = crawler.refresh(&busy, Purpose::FirstAdd).await.unwrap();
    assert_eq!(refused.next_fetch_reason, "Retry-After 7200s");

    let before = Utc::now();
    let held = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(held.outcome, "postponed");
    assert_eq!(here.count("/feed.xml"), 1, "the first hop is sent");
    assert_eq!(
        there.count("/moved.xml"),
        0,
        "no request into the waiting host before its Retry-After"
    );
    let wait = (held.next_fetch_at - before).num_seconds();
    assert!((7190..=7200).contains(&wait), "{wait}");
    assert!(
        held.next_fetch_reason.starts_with(&format!(
            "redirect target http://127.0.0.1:{there_port}: host Retry-After until "
        )),
        "{}",
        held.next_fetch_reason
    );
    // The hop that was sent is in the request log (C7); waiting is not a failure.
    let log = store
        .request_log(&tidings_store::LogQuery {
            feed: Some(feed.id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(
        log.iter().any(|row| row.url.ends_with("/feed.xml")),
        "{log:?}"
    );
    let stored = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(stored.consecutive_failures, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_the_first_request_after_a_restart_keeps_the_gap_from_the_last_one_logged() {
    let script = Script::default();
    script.push("/a.xml", Answer::ok(FEED));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let gap = |p: &mut tidings_policy::Profile| p.pacing.host_gap = 2.0;
    let (first_run, store) = support::crawler_with(dir.path(), gap).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://127.0.0.1:{port}/b.xml")).await;
    first_run.refresh(&a, Purpose::FirstAdd).await.unwrap();
    let first_ended = std::time::Instant::now();
    drop(first_run);

    // A new process on the same store: its gate starts empty, the request log does not.
    let (second_run, _store) = support::crawler_with(dir.path(), gap).await;
    second_run.refresh(&b, Purpose::FirstAdd).await.unwrap();
    let arrived = script
        .arrivals
        .lock()
        .unwrap()
        .iter()
        .find(|(path, _)| path == "/b.xml")
        .map(|(_, at)| *at)
        .unwrap();
    // A lower bound only: a loaded machine makes the wait longer, never shorter.
    assert!(
        arrived.duration_since(first_ended) >= std::time::Duration::from_millis(1900),
        "the second run's first request came {:?} after the first run's last",
        arrived.duration_since(first_ended)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c6_a_retry_after_too_large_to_count_pauses_the_feed_and_holds_the_host() {
    // Issue 12: `2^64` seconds was read as no Retry-After at all: an hour's back-off, no floor.
    let script = Script::default();
    script.push(
        "/a.xml",
        Answer::status(429).header("retry-after", "18446744073709551616"),
    );
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://127.0.0.1:{port}/b.xml")).await;

    let before = Utc::now();
    let refused = crawler.refresh(&a, Purpose::FirstAdd).await.unwrap();
    assert_eq!(refused.outcome, "refused");
    let why = "C6: Retry-After asks for more than 100 years, longer than the 90d this profile \
               waits; paused until an operator resumes the feed";
    assert_eq!(refused.next_fetch_reason, format!("paused: {why}"));
    let stored = store.feed(a.id).await.unwrap().unwrap();
    assert_eq!(stored.state, tidings_store::FeedState::Paused);
    assert_eq!(stored.state_reason.as_deref(), Some(why));

    let held = crawler.refresh(&b, Purpose::FirstAdd).await.unwrap();
    assert_eq!(held.outcome, "postponed");
    assert_eq!(
        script.count("/b.xml"),
        0,
        "the host's floor holds the other feed"
    );
    let wait = (held.next_fetch_at - before).num_seconds();
    assert!((90 * 86_400 - 10..=90 * 86_400).contains(&wait), "{wait}");
}
