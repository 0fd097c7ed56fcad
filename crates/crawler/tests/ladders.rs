//! The profiles' ladders, pauses and URL moves as the crawler stores them: PF5 (paused after
//! four 404s, never due again), WFM6 and challenge pages (an HTML page after a refusal is a
//! refusal), PF9 (a 301 moves the stored URL; 302 does not; the default waits its window).

mod support;

use support::{Answer, FEED, Script, as_profile, crawler_with, serve};
use tidings_crawler::Crawler;
use tidings_crawler::Purpose;
use tidings_model::{FailureKind, FeedUrl};
use tidings_store::FeedRecord;
use tidings_store::FeedState;

/// Read `feed` `n` times in a row (the first as its first add), each from its stored state;
/// (outcome, reason for the next read) of each.
async fn read_times(crawler: &Crawler, feed: &FeedRecord, n: usize) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    for i in 0..n {
        let current = crawler.store().feed(feed.id).await.unwrap().unwrap();
        let purpose = if i == 0 {
            Purpose::FirstAdd
        } else {
            Purpose::Scheduled
        };
        let report = crawler.refresh(&current, purpose).await.unwrap();
        seen.push((report.outcome.to_string(), report.next_fetch_reason));
    }
    seen
}

/// Serve `script` with an empty robots.txt.
async fn publisher(script: &Script) -> u16 {
    script.push(
        "/robots.txt",
        Answer::ok("").header("content-type", "text/plain"),
    );
    serve(script.clone()).await
}

fn redirect(status: u16, location: String) -> Answer {
    Answer {
        status,
        headers: vec![("location".into(), location)],
        body: String::new(),
    }
}

/// Subscribe as the product does: the profile's interval from the start.
async fn subscribe(crawler: &Crawler, url: &str) -> FeedRecord {
    let sub = crawler
        .subscribe(&FeedUrl::parse(url).unwrap(), "tester")
        .await
        .unwrap();
    crawler.store().feed(sub.feed_id).await.unwrap().unwrap()
}

/// PF5: four 404s in a row pause the feed; a paused feed is never due.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf5_four_404s_pause_the_feed_and_it_is_not_read_again() {
    let script = Script::default();
    let port = publisher(&script).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("plainfeeder")).await;
    let feed = subscribe(&crawler, &format!("http://127.0.0.1:{port}/gone.xml")).await;
    let reads = read_times(&crawler, &feed, 4).await;
    assert!(reads.iter().all(|(outcome, _)| outcome == "not_found"));
    let reasons: Vec<&str> = reads.iter().map(|(_, reason)| reason.as_str()).collect();
    assert_eq!(
        &reasons[..3],
        ["PF5 404 #1: 6h", "PF5 404 #2: 6h", "PF5 404 #3: 6h"]
    );
    let paused = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(paused.state, FeedState::Paused);
    assert_eq!(
        paused.state_reason.as_deref(),
        Some("PF5: paused after 4 404 answers in total")
    );
    let far = chrono::Utc::now() + chrono::Duration::days(365);
    assert!(
        store.due_feeds(far, 10).await.unwrap().is_empty(),
        "a paused feed is never due"
    );
    assert_eq!(script.count("/gone.xml"), 4);
}

/// PF5: "paused after 4 total 404 responses": a success between the 404s does not start the
/// count again; the store keeps the totals, and an operator's resume clears them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf5_404s_count_in_total_across_a_success_until_a_resume() {
    let script = Script::default();
    for answer in [
        Answer::status(404),
        Answer::status(404),
        Answer::ok(FEED),
        Answer::status(404),
        Answer::status(404),
        Answer::status(404),
    ] {
        script.push("/flaky.xml", answer);
    }
    let port = publisher(&script).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("plainfeeder")).await;
    let feed = subscribe(&crawler, &format!("http://127.0.0.1:{port}/flaky.xml")).await;
    let reads = read_times(&crawler, &feed, 5).await;
    let outcomes: Vec<&str> = reads.iter().map(|(outcome, _)| outcome.as_str()).collect();
    assert_eq!(
        outcomes,
        ["not_found", "not_found", "ok", "not_found", "not_found"]
    );
    // The fourth 404 is the first after the success: its wait is the ladder's first step.
    assert_eq!(reads[3].1, "PF5 404 #1: 6h");
    let paused = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(paused.state, FeedState::Paused);
    assert_eq!(
        paused.state_reason.as_deref(),
        Some("PF5: paused after 4 404 answers in total")
    );
    assert_eq!(paused.failure_totals.of(FailureKind::NotFound), 4);
    assert_eq!(paused.last_failure, Some(FailureKind::NotFound));

    assert!(
        store
            .resume_feed(feed.id, chrono::Utc::now(), "resumed by a test")
            .await
            .unwrap()
    );
    let resumed = store.feed(feed.id).await.unwrap().unwrap();
    assert!(
        resumed.failure_totals.is_empty(),
        "{:?}",
        resumed.failure_totals
    );
    assert_eq!(resumed.last_failure, None);
    // A 404 after the resume is the first of a new count: the feed stays active.
    let report = crawler.refresh(&resumed, Purpose::Scheduled).await.unwrap();
    assert_eq!(report.outcome, "not_found");
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(after.state, FeedState::Active, "{:?}", after.state_reason);
    assert_eq!(after.failure_totals.of(FailureKind::NotFound), 1);
    assert_eq!(script.count("/flaky.xml"), 6);
}

/// PF7: a 401 asks for credentials; it is "any other 4xx", paused after two, not a refusal on
/// PF5's ladder of four.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf7_two_401s_pause_the_feed_as_any_other_client_error() {
    let script = Script::default();
    script.push("/private.xml", Answer::status(401));
    let port = publisher(&script).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("plainfeeder")).await;
    let feed = subscribe(&crawler, &format!("http://127.0.0.1:{port}/private.xml")).await;
    let reads = read_times(&crawler, &feed, 2).await;
    assert_eq!(reads[0].0, "client_error");
    assert_eq!(reads[0].1, "PF7 401 #1: 6h");
    let paused = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(paused.state, FeedState::Paused);
    assert!(
        paused
            .state_reason
            .as_deref()
            .unwrap_or("")
            .starts_with("PF7"),
        "{:?}",
        paused.state_reason
    );
    assert_eq!(script.count("/private.xml"), 2);
}

/// WFM6: an HTML page where the feed was after a 403 is a challenge: a refusal on the ladder,
/// not a parse error; a page marked `cf-mitigated: challenge` is one at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm6_challenge_pages_climb_the_refusal_ladder() {
    let script = Script::default();
    script.push(
        "/robots.txt",
        Answer::ok("").header("content-type", "text/plain"),
    );
    script.push("/f.xml", Answer::status(403));
    script.push(
        "/f.xml",
        Answer::ok("<!DOCTYPE html><html><body>Just a moment...</body></html>")
            .header("content-type", "text/html"),
    );
    script.push(
        "/f.xml",
        Answer {
            status: 503,
            headers: vec![("cf-mitigated".into(), "challenge".into())],
            body: "<html></html>".into(),
        },
    );
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, _store) = crawler_with(dir.path(), as_profile("worldfeedmonitor")).await;
    let feed = subscribe(&crawler, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let seen = read_times(&crawler, &feed, 3).await;
    assert_eq!(
        seen,
        [
            ("refused".to_string(), "WFM6 403 #1: 15m".to_string()),
            (
                "challenge".to_string(),
                "WFM6 challenge #2: 15m".to_string()
            ),
            ("challenge".to_string(), "WFM6 503 #3: 1h".to_string()),
        ]
    );
}

/// PF9: with PlainFeeder's profile a 301 moves the stored URL at once; a 302 never does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf9_a_301_updates_the_stored_feed_url() {
    let script = Script::default();
    let port = publisher(&script).await;
    let base = format!("http://127.0.0.1:{port}");
    script.push("/old.xml", redirect(301, format!("{base}/new.xml")));
    script.push("/temp.xml", redirect(302, format!("{base}/new2.xml")));
    script.push("/new.xml", Answer::ok(FEED));
    script.push("/new2.xml", Answer::ok(FEED));
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("plainfeeder")).await;
    let moved = subscribe(&crawler, &format!("{base}/old.xml")).await;
    let temporary = subscribe(&crawler, &format!("{base}/temp.xml")).await;
    crawler.refresh(&moved, Purpose::FirstAdd).await.unwrap();
    crawler
        .refresh(&temporary, Purpose::FirstAdd)
        .await
        .unwrap();
    let moved = store.feed(moved.id).await.unwrap().unwrap();
    assert_eq!(moved.url.as_str(), format!("{base}/new.xml"));
    assert_eq!(moved.pending_move, None);
    let temporary = store.feed(temporary.id).await.unwrap().unwrap();
    assert_eq!(temporary.url.as_str(), format!("{base}/temp.xml"));
    // The next read goes straight to the new URL.
    crawler.refresh(&moved, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/old.xml"), 1);
    assert_eq!(script.count("/new.xml"), 2);
}

/// The default profile watches a permanent redirect for a week before moving the feed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_redirect_is_observed_before_the_default_moves_the_feed() {
    let script = Script::default();
    let port = publisher(&script).await;
    let base = format!("http://127.0.0.1:{port}");
    script.push("/old.xml", redirect(308, format!("{base}/new.xml")));
    script.push("/new.xml", Answer::ok(FEED));
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("default")).await;
    let feed = subscribe(&crawler, &format!("{base}/old.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let feed = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(
        feed.url.as_str(),
        format!("{base}/old.xml"),
        "not moved yet"
    );
    let (to, _since) = feed.pending_move.clone().expect("under observation");
    assert_eq!(to, format!("{base}/new.xml"));
}
