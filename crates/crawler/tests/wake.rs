//! A sleeping crawl wakes when work may be due (`Live::wake`, which the API calls after a
//! subscription, a resume or a new interval): a feed subscribed to elsewhere in the process is
//! read at once, not at the crawl's next look (up to 30 s of real time later).

mod sim_support;

use sim_support::start;
use std::time::{Duration, Instant};
use tidings_crawler::{CrawlUntil, NoProgress};
use tidings_model::FeedUrl;
use tidings_sim::{FeedSpec, HostSpec, Resource};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wake_reads_a_feed_subscribed_elsewhere_at_once() {
    let sim = start(
        vec![
            HostSpec::new("late.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::feed(FeedSpec::fixed("late"))),
        ],
        |_| {},
    )
    .await;
    // A crawl with nothing to do sleeps until its next look: 30 s of real time.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let crawler = sim.crawler.clone();
    let deadline = crawler.now() + chrono::Duration::days(365);
    let crawl = tokio::spawn(async move {
        crawler
            .crawl(
                CrawlUntil {
                    stop: stopped,
                    deadline: Some(deadline),
                },
                std::sync::Arc::new(NoProgress),
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Subscribed through the store, as the API does, then the wake it sends.
    let url = FeedUrl::parse(&sim.web.url("late.test", "/feed.xml").unwrap()).unwrap();
    let first = tidings_policy::first_fetch(sim.crawler.now(), &sim.profile);
    let new = tidings_store::NewFeed {
        next_fetch_at: first.next_fetch_at,
        next_fetch_reason: first.reason,
        interval_secs: i64::try_from(first.interval_secs).unwrap(),
    };
    sim.store
        .subscribe(&url, "api-key-1", sim.crawler.now(), &new)
        .await
        .unwrap();
    let woken = Instant::now();
    sim.crawler.live().wake();

    // Read well before the 30 s the crawl would otherwise sleep.
    let read = loop {
        if sim
            .web
            .recorder()
            .exchanges()
            .iter()
            .any(|e| e.target == "/feed.xml")
        {
            break true;
        }
        if woken.elapsed() > Duration::from_secs(15) {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    stop.send(true).unwrap();
    crawl.await.unwrap().unwrap();
    assert!(read, "the woken crawl read the new feed");
}
