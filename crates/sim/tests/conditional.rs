//! Feeds that change in scenario time, validators and 304s compared exactly, and the caching
//! headers (Cache-Control, Expires, Date) written in scenario time.

mod support;

use std::time::Duration;

use support::get;
use tidings_sim::{Behaviour, EtagStyle, FeedSpec, HostSpec, Resource, Web};

const HOUR: Duration = Duration::from_secs(3600);
const START: &str = "Sun, 01 Nov 2026 00:00:00 GMT";

async fn web_with(resource: Resource) -> tidings_sim::RunningWeb {
    Web::start(vec![HostSpec::new("a.test").at("/feed.xml", resource)])
        .await
        .unwrap()
}

#[tokio::test]
async fn a_feed_changes_at_its_rate_when_the_clock_is_advanced() {
    let web = web_with(Resource::feed(FeedSpec::changing("news", HOUR))).await;
    let first = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(first.header("etag"), Some("\"v0\""));
    assert_eq!(first.header("last-modified"), Some(START));
    assert!(first.text().contains("<guid>news-9</guid>"));
    assert!(!first.text().contains("<guid>news-10</guid>"));
    // The entries present at the start were published before it, one period apart.
    assert!(first.text().contains("<guid>news-0</guid><description>Story 0 of news.</description><pubDate>Sat, 31 Oct 2026 15:00:00 GMT</pubDate>"));
    assert!(first.text().contains("<guid>news-9</guid><description>Story 9 of news.</description><pubDate>Sun, 01 Nov 2026 00:00:00 GMT</pubDate>"));

    web.clock().advance(HOUR - Duration::from_secs(1));
    let same = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(same.body, first.body, "no change before the hour");

    web.clock().advance(Duration::from_secs(1));
    let next = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(next.header("etag"), Some("\"v1\""));
    assert_eq!(
        next.header("last-modified"),
        Some("Sun, 01 Nov 2026 01:00:00 GMT")
    );
    assert!(next.text().contains("<guid>news-10</guid>"));
    assert!(!next.text().contains("<guid>news-0</guid>"));
    assert!(
        next.text()
            .contains("<pubDate>Sun, 01 Nov 2026 01:00:00 GMT</pubDate>")
    );
}

#[tokio::test]
async fn a_feed_can_add_many_entries_per_change() {
    let spec = FeedSpec {
        title: "bulk".into(),
        every: Some(HOUR),
        entries: 20,
        new_per_change: 20,
    };
    let web = web_with(Resource::bare_feed(spec)).await;
    web.clock().advance(HOUR * 2);
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    let text = r.text();
    assert_eq!(text.matches("<item>").count(), 20);
    assert!(text.contains("<guid>bulk-40</guid>") && text.contains("<guid>bulk-59</guid>"));
    assert!(!text.contains("<guid>bulk-39</guid>"));
}

#[tokio::test]
async fn if_none_match_equal_to_the_etag_gets_304_and_anything_else_200() {
    let web = web_with(Resource::feed(FeedSpec::changing("n", HOUR))).await;
    let r = get(&web, "a.test", "/feed.xml", &[("If-None-Match", "\"v0\"")]).await;
    assert_eq!(r.status, 304);
    assert!(r.body.is_empty());
    assert_eq!(r.header("etag"), Some("\"v0\""));
    assert_eq!(r.header("last-modified"), Some(START));
    for not_exact in ["v0", "W/\"v0\"", "\"v0\", \"v1\"", "*", "\"V0\""] {
        let r = get(&web, "a.test", "/feed.xml", &[("If-None-Match", not_exact)]).await;
        assert_eq!(r.status, 200, "{not_exact}");
    }
    web.clock().advance(HOUR);
    let stale = get(&web, "a.test", "/feed.xml", &[("If-None-Match", "\"v0\"")]).await;
    assert_eq!((stale.status, stale.header("etag")), (200, Some("\"v1\"")));
}

#[tokio::test]
async fn if_modified_since_is_compared_exactly_and_if_none_match_takes_precedence() {
    let web = web_with(Resource::feed(FeedSpec::fixed("n"))).await;
    let r = get(&web, "a.test", "/feed.xml", &[("If-Modified-Since", START)]).await;
    assert_eq!(r.status, 304);
    let later = "Mon, 02 Nov 2026 00:00:00 GMT";
    let r = get(&web, "a.test", "/feed.xml", &[("If-Modified-Since", later)]).await;
    assert_eq!(r.status, 200, "a later date is not an exact echo");
    let both = [("If-None-Match", "\"other\""), ("If-Modified-Since", START)];
    assert_eq!(get(&web, "a.test", "/feed.xml", &both).await.status, 200);
}

#[tokio::test]
async fn weak_etags_only_last_modified_or_no_validators_at_all() {
    let weak = Resource::new(Behaviour::Feed(FeedSpec::fixed("w"))).with(Behaviour::Validators {
        etag: Some(EtagStyle::Weak),
        last_modified: false,
    });
    let web = web_with(weak).await;
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(
        (r.header("etag"), r.header("last-modified")),
        (Some("W/\"v0\""), None)
    );
    assert_eq!(
        get(
            &web,
            "a.test",
            "/feed.xml",
            &[("If-None-Match", "W/\"v0\"")]
        )
        .await
        .status,
        304
    );

    let lm_only =
        Resource::new(Behaviour::Feed(FeedSpec::fixed("l"))).with(Behaviour::Validators {
            etag: None,
            last_modified: true,
        });
    web.set("a.test", "/feed.xml", lm_only);
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(
        (r.header("etag"), r.header("last-modified")),
        (None, Some(START))
    );
    assert_eq!(
        get(&web, "a.test", "/feed.xml", &[("If-Modified-Since", START)])
            .await
            .status,
        304
    );

    web.set(
        "a.test",
        "/feed.xml",
        Resource::bare_feed(FeedSpec::fixed("b")),
    );
    let r = get(
        &web,
        "a.test",
        "/feed.xml",
        &[("If-None-Match", "\"v0\""), ("If-Modified-Since", START)],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!((r.header("etag"), r.header("last-modified")), (None, None));
}

#[tokio::test]
async fn cache_control_expires_and_date_are_written_in_scenario_time() {
    let resource = Resource::feed(FeedSpec::fixed("c"))
        .with(Behaviour::CacheControl { max_age: 86400 })
        .with(Behaviour::Expires(HOUR * 2))
        .with(Behaviour::Header {
            name: "X-Robots-Tag".into(),
            value: "noarchive".into(),
        });
    let web = web_with(resource).await;
    web.clock().advance(HOUR);
    for extra in [&[][..], &[("If-None-Match", "\"v0\"")][..]] {
        let r = get(&web, "a.test", "/feed.xml", extra).await;
        assert_eq!(r.header("cache-control"), Some("max-age=86400"));
        assert_eq!(r.header("expires"), Some("Sun, 01 Nov 2026 03:00:00 GMT"));
        assert_eq!(r.header("date"), Some("Sun, 01 Nov 2026 01:00:00 GMT"));
        assert_eq!(r.header("x-robots-tag"), Some("noarchive"));
    }
}

/// Validators fixed by the script (a test that names its ETag) are sent as written, and only
/// their exact echo is a 304; the body's own headers stay.
#[tokio::test]
async fn fixed_validators_are_sent_as_written_and_only_their_echo_is_a_304() {
    let body = Resource::new(Behaviour::Body {
        content_type: "application/rss+xml".into(),
        body: "<rss/>".into(),
    })
    .with(Behaviour::FixedValidators {
        etag: Some("\"a1\"".into()),
        last_modified: Some(START.into()),
    });
    let web = web_with(body).await;
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (r.header("etag"), r.header("last-modified")),
        (Some("\"a1\""), Some(START))
    );
    assert_eq!(r.text(), "<rss/>");
    let echo = get(&web, "a.test", "/feed.xml", &[("If-None-Match", "\"a1\"")]).await;
    assert_eq!((echo.status, echo.body.len()), (304, 0));
    let other = get(&web, "a.test", "/feed.xml", &[("If-None-Match", "\"a2\"")]).await;
    assert_eq!(other.status, 200, "another ETag is not this version");
}
