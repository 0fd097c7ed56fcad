//! C8, FF5: what one feed may add. A response over `entries.max_per_response` is not accepted
//! (nothing stored, the reason shown, the feed backs off); a read that would pass
//! `entries.max_new_per_day` stores nothing and the feed is held for an operator, who can
//! resume it.

mod support;

use chrono::Utc;
use support::{Answer, Script, crawler_with, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::FeedState;

/// An RSS document of `n` items whose guids start at `from`.
fn items(from: usize, n: usize) -> String {
    let items: String = (from..from + n)
        .map(|i| format!("<item><guid>g{i}</guid><title>Item {i}</title></item>"))
        .collect();
    format!("<rss version=\"2.0\"><channel><title>Busy</title>{items}</channel></rss>")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_ff5_a_response_over_the_entry_bound_is_not_accepted_and_says_why() {
    let script = Script::default();
    script.push(
        "/f.xml",
        Answer::ok(&items(0, 3)).header("etag", "\"three\""),
    );
    script.push(
        "/f.xml",
        Answer::ok(&items(0, 4)).header("etag", "\"four\""),
    );
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| {
        p.entries.max_per_response = 3;
        p.entries.max_new_per_day = 100;
    })
    .await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let first = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(first.new_entries, 3, "at the bound, every entry is stored");
    let feed = store.feed(feed.id).await.unwrap().unwrap();

    let second = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(second.new_entries, 0);
    let error = second.error.expect("the read is not accepted");
    assert!(error.contains("more than 3 entries"), "{error}");
    assert!(error.contains("entries.max_per_response"), "{error}");
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(store.count_entries(Some(feed.id)).await.unwrap(), 3);
    assert_eq!(
        after.last_error.as_deref(),
        Some(error.as_str()),
        "stored, shown"
    );
    assert_eq!(
        after.consecutive_failures, 1,
        "it backs off like a broken feed"
    );
    assert!(after.next_fetch_at > Utc::now(), "not asked again at once");
    assert_eq!(
        after.validators.etag.as_deref(),
        Some("\"three\""),
        "a response not accepted leaves the validators of the last accepted one"
    );
    assert_eq!(after.state, FeedState::Active);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_a_publisher_rotating_entry_ids_is_held_for_an_operator_within_a_day() {
    let script = Script::default();
    // Every read brings four entries never seen before.
    for read in 0..4 {
        script.push("/f.xml", Answer::ok(&items(read * 4, 4)));
    }
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| {
        p.entries.max_per_response = 4;
        p.entries.max_new_per_day = 10;
    })
    .await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let mut feed = feed;
    for (read, stored) in [(0, 4), (1, 8)] {
        let report = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
        assert_eq!(report.new_entries, 4, "read {read}");
        assert_eq!(store.count_entries(Some(feed.id)).await.unwrap(), stored);
        feed = store.feed(feed.id).await.unwrap().unwrap();
    }
    // 8 stored today + 4 new > 10: nothing of this read is kept, and the feed is held.
    let report = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(report.new_entries, 0);
    assert_eq!(store.count_entries(Some(feed.id)).await.unwrap(), 8);
    let held = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(held.state, FeedState::Paused, "held for an operator");
    let reason = held.state_reason.clone().unwrap();
    assert!(reason.contains("entries.max_new_per_day"), "{reason}");
    assert!(reason.contains("4 new entries to the 8"), "{reason}");
    assert_eq!(held.last_error.as_deref(), Some(reason.as_str()));
    assert_eq!(
        held.consecutive_failures, 0,
        "no failure of the publisher's"
    );
    let due = store.due_feeds(Utc::now() + chrono::Duration::days(30), 10);
    assert!(due.await.unwrap().is_empty(), "a held feed is never due");
    assert_eq!(script.count("/f.xml"), 3);

    // An operator resumes it: read again, and held again while the day's bound is still
    // spent (the bound counts a rolling 24 hours).
    assert!(
        store
            .resume_feed(feed.id, Utc::now(), "operator")
            .await
            .unwrap()
    );
    let resumed = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(resumed.state, FeedState::Active);
    let again = crawler.refresh(&resumed, Purpose::Scheduled).await.unwrap();
    assert_eq!(again.new_entries, 0);
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(after.state, FeedState::Paused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_known_entries_coming_back_do_not_count_against_the_daily_bound() {
    let script = Script::default();
    // The same four entries at every read, in a body that changes each time (so C5 does not
    // stop it and it is parsed): 4 new, then 0 new, 0 new; 4 <= 5 all day.
    for read in 0..3 {
        let body = items(0, 4).replace(
            "<title>Busy</title>",
            &format!("<title>Busy {read}</title>"),
        );
        script.push("/f.xml", Answer::ok(&body));
    }
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| {
        p.entries.max_per_response = 4;
        p.entries.max_new_per_day = 5;
    })
    .await;
    let mut feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    for _ in 0..3 {
        let report = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
        assert_eq!(report.error, None);
        feed = store.feed(feed.id).await.unwrap().unwrap();
    }
    assert_eq!(script.count("/f.xml"), 3);
    assert_eq!(
        feed.title.as_deref(),
        Some("Busy 2"),
        "every body was parsed"
    );
    assert_eq!(feed.state, FeedState::Active);
    assert_eq!(store.count_entries(Some(feed.id)).await.unwrap(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_a_text_over_the_profile_bound_is_stored_cut_to_it() {
    let huge = "word ".repeat(40_000);
    let doc = format!(
        "<rss version=\"2.0\"><channel><title>Long</title><item><guid>g</guid>\
         <title>Short</title><description>{huge}</description></item></channel></rss>"
    );
    let script = Script::default();
    script.push("/f.xml", Answer::ok(&doc));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| p.entries.max_text_bytes = 16_384).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let outcome = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(outcome.new_entries, 1, "the entry is kept, its text cut");
    let stored = store
        .entries(&tidings_store::EntryQuery {
            feed: Some(feed.id),
            ..Default::default()
        })
        .await
        .unwrap();
    let entry = &stored[0].entry;
    assert_eq!(entry.title.as_deref(), Some("Short"));
    let summary = entry.summary.as_deref().unwrap();
    assert_eq!(summary.len(), 16_384, "cut to the bound");
    assert!(huge.starts_with(summary));
}
