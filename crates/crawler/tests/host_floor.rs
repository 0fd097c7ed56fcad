//! C6: a 429 or 503 with Retry-After holds back every feed of that host until then, without a
//! request and without counting a failure against the other feeds.

mod support;

use chrono::Utc;
use support::{Answer, FEED, Script, crawler, serve, subscribe};
use tidings_crawler::Purpose;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c6_retry_after_is_a_floor_for_the_whole_host() {
    let script = Script::default();
    script.push(
        "/a.xml",
        Answer {
            status: 429,
            headers: vec![("retry-after".into(), "7200".into())],
            body: String::new(),
        },
    );
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
