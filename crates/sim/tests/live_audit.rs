//! The recorder and the auditor together on live runs against the web: what a polite client
//! does passes, and each impolite act is caught under the right rule.

mod support;

use std::time::Duration;

use support::{connect, ended, get, until};
use tidings_sim::{
    Behaviour, Expectations, FeedSpec, HostSpec, Resource, RetryAfter, Rule, RunningWeb, Web, When,
    audit,
};
use tokio::io::AsyncWriteExt;

fn rules(web: &RunningWeb, expect: &Expectations) -> Vec<Rule> {
    audit(&web.recorder().exchanges(), expect)
        .into_iter()
        .map(|v| v.rule)
        .collect()
}

#[tokio::test]
async fn c3_a_request_while_another_is_in_flight_is_caught_and_one_at_a_time_is_clean() {
    let slow =
        Resource::feed(FeedSpec::fixed("s")).with(Behaviour::Delay(Duration::from_millis(50)));
    let host = HostSpec::new("a.test")
        .at("/feed.xml", slow)
        .at("/silent", Resource::new(Behaviour::Silent));
    let web = Web::start(vec![host]).await.unwrap();
    let echo = [
        ("If-None-Match", "\"v0\""),
        ("If-Modified-Since", "Sun, 01 Nov 2026 00:00:00 GMT"),
    ];
    get(&web, "a.test", "/feed.xml", &[]).await;
    get(&web, "a.test", "/feed.xml", &echo).await;
    ended(web.recorder(), 1).await;
    assert_eq!(rules(&web, &Expectations::default()), []);

    // A request left hanging on a silent resource is in flight until its client gives up.
    let mut hanging = connect(web.addr("a.test").unwrap(), None).await;
    hanging
        .write_all(&support::request(&web, "a.test", "/silent", &[]))
        .await
        .unwrap();
    until(web.recorder(), |all| all.len() == 3).await;
    get(&web, "a.test", "/feed.xml", &echo).await;
    drop(hanging);
    ended(web.recorder(), 2).await;
    ended(web.recorder(), 3).await;
    let found: Vec<_> = audit(&web.recorder().exchanges(), &Expectations::default())
        .into_iter()
        .map(|v| (v.rule, v.exchanges))
        .collect();
    assert_eq!(found, [(Rule::InFlight, vec![2, 3])]);
}

#[tokio::test]
async fn c6_asking_again_before_retry_after_is_caught_in_scenario_time() {
    let throttled = Resource::feed(FeedSpec::fixed("t")).with(Behaviour::Throttle {
        status: 429,
        retry_after: Some(RetryAfter::Seconds(600)),
        when: When::FirstRequests(1),
    });
    let web = Web::start(vec![HostSpec::new("a.test").at("/feed.xml", throttled)])
        .await
        .unwrap();
    assert_eq!(get(&web, "a.test", "/feed.xml", &[]).await.status, 429);
    web.clock().advance(Duration::from_secs(599));
    get(&web, "a.test", "/feed.xml", &[]).await;
    ended(web.recorder(), 1).await;
    assert_eq!(rules(&web, &Expectations::default()), [Rule::RetryAfter]);

    let web = Web::start(vec![HostSpec::new("a.test").at(
        "/feed.xml",
        Resource::feed(FeedSpec::fixed("t")).with(Behaviour::Throttle {
            status: 429,
            retry_after: Some(RetryAfter::Seconds(600)),
            when: When::FirstRequests(1),
        }),
    )])
    .await
    .unwrap();
    get(&web, "a.test", "/feed.xml", &[]).await;
    web.clock().advance(Duration::from_secs(600));
    assert_eq!(get(&web, "a.test", "/feed.xml", &[]).await.status, 200);
    ended(web.recorder(), 1).await;
    assert_eq!(rules(&web, &Expectations::default()), []);
}

#[tokio::test]
async fn c4_an_exact_echo_passes_and_an_unconditional_refetch_is_caught() {
    let web = Web::start(vec![
        HostSpec::new("a.test").at("/feed.xml", Resource::feed(FeedSpec::fixed("f"))),
    ])
    .await
    .unwrap();
    let first = get(&web, "a.test", "/feed.xml", &[]).await;
    let etag = first.header("etag").unwrap().to_string();
    let lm = first.header("last-modified").unwrap().to_string();
    let again = get(
        &web,
        "a.test",
        "/feed.xml",
        &[("If-None-Match", &etag), ("If-Modified-Since", &lm)],
    )
    .await;
    assert_eq!(again.status, 304);
    ended(web.recorder(), 1).await;
    assert_eq!(rules(&web, &Expectations::default()), []);

    get(&web, "a.test", "/feed.xml", &[]).await;
    ended(web.recorder(), 2).await;
    assert_eq!(rules(&web, &Expectations::default()), [Rule::Unconditional]);
}
