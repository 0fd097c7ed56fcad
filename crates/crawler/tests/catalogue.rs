//! The catalogue (SR2, SR9) on the simulated web: a feed an operator adds is verified with
//! one read that does not wait for the host's crawl-delay, listed when it reads as a feed,
//! and not read again for being listed; a URL that is no feed is not listed and leaves no
//! feed behind.

mod sim_support;

use bytes::Bytes;
use sim_support::{assert_clean, start};
use std::time::Duration;
use tidings_crawler::operator::{self, JobAsk, JobRequest};
use tidings_model::{FeedUrl, PageJobState};
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource};

fn serene(p: &mut tidings_policy::Profile) {
    *p = tidings_policy::Profile::embedded("serenereader").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr2_sr9_a_catalogue_feed_is_verified_with_one_read_that_skips_crawl_delay() {
    let host = HostSpec::new("cat.test")
        .at(
            "/robots.txt",
            Resource::robots("User-agent: *\nCrawl-delay: 50\n"),
        )
        .at("/feed.xml", Resource::feed(FeedSpec::fixed("listed")))
        .at(
            "/about",
            Resource::new(Behaviour::Body {
                content_type: "text/html".into(),
                body: Bytes::from_static(b"<html><body>about us</body></html>"),
            }),
        );
    let sim = start(vec![host], serene).await;
    let verify = |path: &str| {
        let url = FeedUrl::parse(&sim.web.url("cat.test", path).unwrap()).unwrap();
        let store = sim.store.clone();
        let profile = sim.profile.clone();
        let at = sim.crawler.now();
        async move {
            let request = JobRequest {
                url: &url,
                ask: JobAsk::Catalogue,
                requested_by: "key:1",
                running: false,
            };
            operator::submit_page_job(&*store, &profile, request, true, at)
                .await
                .unwrap()
        }
    };
    let job = verify("/feed.xml").await;
    let taken = sim
        .crawler
        .claim_page_job(Some(job.id))
        .await
        .unwrap()
        .unwrap();
    sim.crawler.work_page_job(taken, &|| false).await.unwrap();
    let done = sim.store.page_job(job.id).await.unwrap().unwrap();
    assert_eq!(done.state, PageJobState::Done, "{done:?}");
    let listed = sim.store.catalogue().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].added_by, "key:1");
    let feed = sim.store.feed(listed[0].feed_id).await.unwrap().unwrap();
    assert_eq!(feed.subscribers, 0, "listed, not subscribed");
    assert!(
        tidings_crawler::jobs::has_entries(&*sim.store, feed.id)
            .await
            .unwrap()
    );
    let reads = sim.requests("cat.test", "/feed.xml").await;
    assert_eq!(reads.len(), 1);
    let robots = sim.requests("cat.test", "/robots.txt").await;
    let gap = sim_support::gap(&robots[0], &reads[0]);
    assert!(
        gap < Duration::from_secs(50),
        "SR9: no wait for crawl-delay, got {gap:?}"
    );

    // Not read again for being listed.
    sim.crawl_hours(6.0).await;
    assert_eq!(sim.requests("cat.test", "/feed.xml").await.len(), 1);

    // A page is no feed: not listed, no feed row left.
    let job = verify("/about").await;
    let taken = sim
        .crawler
        .claim_page_job(Some(job.id))
        .await
        .unwrap()
        .unwrap();
    sim.crawler.work_page_job(taken, &|| false).await.unwrap();
    let failed = sim.store.page_job(job.id).await.unwrap().unwrap();
    assert_eq!(failed.state, PageJobState::Failed);
    assert!(failed.error.is_some());
    assert_eq!(sim.store.catalogue().await.unwrap().len(), 1);
    assert_eq!(sim.store.feeds().await.unwrap().len(), 1);

    let mut expect = sim.expectations();
    expect.purposes.as_mut().unwrap().feeds.extend([
        ("cat.test".into(), "/feed.xml".into()),
        ("cat.test".into(), "/about".into()),
    ]);
    assert_clean(&sim.audit(&expect).await);
}
