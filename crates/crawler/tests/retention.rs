//! FF17: a crawl keeps the request log to its retention period; what was pruned is only the
//! log's: the publisher saw every request, and the feed reads on.

mod sim_support;

use sim_support::start;
use tidings_sim::{FeedSpec, HostSpec, Resource};
use tidings_store::LogQuery;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff17_a_crawl_prunes_the_request_log_to_its_retention_period() {
    let sim = start(
        vec![
            HostSpec::new("kept.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::feed(FeedSpec::fixed("kept"))),
        ],
        |p| p.discovery.request_log_retention = 3600,
    )
    .await;
    sim.subscribe("kept.test", "/feed.xml").await;
    sim.crawl_hours(5.5).await;
    let seen = sim.exchanges().await;
    let log = sim
        .store
        .request_log(&LogQuery {
            limit: 1000,
            ..LogQuery::default()
        })
        .await
        .unwrap();
    // Read about hourly for five and a half hours: six reads and robots.txt.
    assert!(seen.len() >= 6, "{}", seen.len());
    assert!(!log.is_empty(), "the latest reads stay");
    assert!(
        log.len() < seen.len(),
        "{} rows of {} requests",
        log.len(),
        seen.len()
    );
    // Pruned hourly to the last hour: nothing older than two hours before the newest row.
    let newest = log[0].at;
    let oldest = log.last().unwrap().at;
    assert!(
        newest - oldest <= chrono::TimeDelta::hours(2),
        "{oldest} .. {newest}"
    );
    assert!(oldest > sim.start + chrono::TimeDelta::hours(2), "{oldest}");
}

/// FF17: a crawl drops the page-queue jobs that finished longer ago than their retention
/// period; one that finished more recently stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff17_a_crawl_drops_finished_jobs_after_their_retention_period() {
    let sim = start(
        vec![
            HostSpec::new("kept.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::feed(FeedSpec::fixed("kept"))),
        ],
        |p| p.discovery.job_retention = 3 * 3600,
    )
    .await;
    sim.subscribe("kept.test", "/feed.xml").await;
    let job = |url: &str, at| tidings_store::NewPageJob {
        kind: tidings_model::PageJobKind::Discover,
        url: url.into(),
        limits: None,
        requested_by: "test".into(),
        at,
        running: true,
    };
    let now = sim.crawler.now();
    let old = sim
        .store
        .submit_page_job(&job("https://old.example/", now))
        .await
        .unwrap();
    let done = tidings_model::PageJobState::Done;
    sim.store
        .finish_page_job(old.id, done, None, None, now)
        .await
        .unwrap();
    let recent = sim
        .store
        .submit_page_job(&job("https://recent.example/", now))
        .await
        .unwrap();
    sim.store
        .finish_page_job(
            recent.id,
            done,
            None,
            None,
            now + chrono::TimeDelta::hours(2),
        )
        .await
        .unwrap();
    sim.crawl_hours(2.0).await;
    assert!(
        sim.store.page_job(old.id).await.unwrap().is_some(),
        "within its period"
    );
    sim.crawl_hours(2.5).await;
    assert_eq!(
        sim.store.page_job(old.id).await.unwrap(),
        None,
        "dropped after 3 h"
    );
    assert!(
        sim.store.page_job(recent.id).await.unwrap().is_some(),
        "ended 2 h in: kept at 4.5 h"
    );
}
