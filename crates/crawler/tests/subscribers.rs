//! PF10, C1: under a profile whose User-Agent counts subscribers, each feed's requests carry
//! the live number of that feed's subscriptions; its robots.txt read carries the same, and a
//! refusal never changes it.

mod support;

use support::{Answer, FEED, Script, crawler_configured, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_model::FeedUrl;
use tidings_policy::Profile;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pf10_each_feeds_user_agent_carries_its_live_subscriber_count() {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok("User-agent: *\nAllow: /\n"));
    script.push("/one.xml", Answer::ok(FEED));
    script.push("/two.xml", Answer::status(403));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let plainfeeder = Profile::embedded("plainfeeder").unwrap();
    let template = plainfeeder.user_agent("1");
    let (crawler, store) = crawler_configured(
        dir.path(),
        |p| {
            *p = plainfeeder;
            p.pacing.host_gap = 0.0;
        },
        |config| config.user_agent = template,
    )
    .await;
    let base = format!("http://127.0.0.1:{port}");
    let one = subscribe(&store, &format!("{base}/one.xml")).await;
    let two_url = format!("{base}/two.xml");
    subscribe(&store, &two_url).await;
    for who in ["alice", "bob"] {
        store
            .subscribe(
                &FeedUrl::parse(&two_url).unwrap(),
                who,
                chrono::Utc::now(),
                &support::new_feed(),
            )
            .await
            .unwrap();
    }
    let two = store
        .feed_by_url(&FeedUrl::parse(&two_url).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((one.subscribers, two.subscribers), (1, 3));

    crawler.refresh(&one, Purpose::FirstAdd).await.unwrap();
    crawler.refresh(&two, Purpose::FirstAdd).await.unwrap();
    // Refused: the next read still says who it is, unchanged (C1).
    let two = store.feed(two.id).await.unwrap().unwrap();
    crawler.refresh(&two, Purpose::Scheduled).await.unwrap();

    let ua =
        |n: u32| format!("PlainFeeder v1 (+http://plainfeeder.com/about ; Subscriber Count: {n})");
    let sent = script.user_agents.lock().unwrap().clone();
    assert_eq!(
        sent,
        [
            ("/robots.txt".to_owned(), ua(1)),
            ("/one.xml".to_owned(), ua(1)),
            ("/two.xml".to_owned(), ua(3)),
            ("/two.xml".to_owned(), ua(3)),
        ]
    );
}
