//! A read of a resource for a feed (an article page, an icon, an image): the feed's steps up
//! to the answer, then the driver's examination and what follows (SR1, SR4, SR6, SR7, FF9).
//! Each test names the rules it holds.

mod support;

use chrono::Duration as Span;
use support::*;
use tidings_model::{FetchOutcome, RetryAfter};
use tidings_policy::pages::PageNext;
use tidings_read::{NotSent, Purpose, Read, RequestKind, ResourceOutcome, ResourceState};
use url::Url;

fn page(target: &str, retries: u32) -> ResourceState<Url> {
    ResourceState {
        target: url(target),
        why: "preview of entry 7".into(),
        retries,
        user_agent: None,
    }
}

/// What follows, as (kind, seconds after the read's start).
fn next(out: &ResourceOutcome<Url>) -> (&'static str, i64) {
    match &out.next {
        PageNext::Done => ("done", 0),
        PageNext::Retry { at, .. } => ("retry", (*at - t0()).num_seconds()),
        PageNext::Hold { until, .. } => ("hold", (*until - t0()).num_seconds()),
    }
}

const DAY: i64 = 86_400;

#[test]
fn sr1_sr7_an_article_page_is_read_after_robots_txt_within_its_byte_bound() {
    let p = profile("serenereader");
    let mut world = World::default()
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/post/1", ok("<html></html>"));
    let state = page("https://a.example/post/1", 0);
    let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
    assert_eq!(
        world.trace,
        [
            "rules https://a.example/post/1",
            "host state https://a.example:443",
            "rules https://a.example/robots.txt",
            "send robots https://a.example/robots.txt gap 1s patience 1",
            "save robots https://a.example:443",
            "send article_page https://a.example/post/1 gap 1s patience 1",
            "examine article_page 13 bytes",
        ]
    );
    assert_eq!(next(&out), ("done", 0));
    assert_eq!(out.label, "ok");
    assert_eq!(out.retries, 0);
    assert_eq!(out.sent.len(), 1);
    assert_eq!(
        out.sent[0].kind,
        RequestKind::Resource(Purpose::ArticlePage)
    );
    assert_eq!(
        out.sent[0].allowed.to_string(),
        "preview of entry 7; robots: 404, everything allowed"
    );
}

#[test]
fn sr1_the_page_request_carries_the_profiles_byte_bound() {
    let p = profile("serenereader");
    let state = page("https://a.example/post/1", 0);
    let mut read = Read::resource(&state, Purpose::ArticlePage, &p);
    let mut need = read.start();
    let now = t0();
    loop {
        let event = match need {
            tidings_read::Need::Rules { .. } => tidings_read::Event::Rules(None),
            tidings_read::Need::HostState { .. } => tidings_read::Event::HostState {
                floor: None,
                robots: Some(std::sync::Arc::new(allowed_everything(now))),
            },
            tidings_read::Need::QuietFor { .. } => tidings_read::Event::Quiet(None),
            tidings_read::Need::Send { request, .. } => {
                assert_eq!(request.max_bytes, Some(p.pages.max_page_bytes));
                assert_eq!(request.max_bytes, Some(1_000_000), "SR1: 1 MB");
                assert!(
                    request.keep_prefix,
                    "SR1: the head of a longer page is read"
                );
                assert!(request.validators.is_empty());
                return;
            }
            other => panic!("unexpected {other:?}"),
        };
        need = read.step(event, now);
    }
}

#[test]
fn sr7_a_page_the_star_group_disallows_is_not_requested_and_is_remembered() {
    // SereneReader's feeds ignore the `*` group (SR8); its pages do not (SR7).
    let p = profile("serenereader");
    let origin = "https://a.example:443";
    let mut world =
        World::default().robots(origin, robots_file("User-agent: *\nDisallow: /private/\n"));
    let state = page("https://a.example/private/post", 0);
    let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
    assert!(
        !world.trace.iter().any(|l| l.starts_with("send")),
        "{:?}",
        world.trace
    );
    assert_eq!(out.not_sent, Some(NotSent::RobotsDenied));
    assert_eq!(next(&out), ("hold", 30 * DAY));
    assert!(out.sent.is_empty());
    // The feed under the same path is read: the star group binds pages only.
    let feed_state = feed("https://a.example/private/feed.xml");
    let mut world = World::default()
        .robots(origin, robots_file("User-agent: *\nDisallow: /private/\n"))
        .answer("https://a.example/private/feed.xml", ok("<rss/>"));
    let out = world.run(Read::new(&feed_state, Purpose::Scheduled, &p));
    assert_eq!(out.not_sent, None, "SR8");
}

#[test]
fn sr7_the_icon_request_of_a_first_add_skips_robots_txt_and_a_scheduled_one_reads_it() {
    let p = profile("serenereader");
    let state = page("https://a.example/favicon.ico", 0);
    let mut world = World::default().answer("https://a.example/favicon.ico", ok("\u{0}\u{0}"));
    let out = world.run_resource(Read::resource(
        &state,
        Purpose::Icon { first_add: true },
        &p,
    ));
    assert!(
        !world.trace.iter().any(|l| l.contains("robots")),
        "{:?}",
        world.trace
    );
    assert_eq!(
        out.sent[0].allowed.to_string(),
        "preview of entry 7; robots.txt not read: the icon request of a first add (SR7)"
    );
    assert_eq!(next(&out), ("done", 0));

    let mut world = World::default()
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/favicon.ico", ok("\u{0}\u{0}"));
    world.run_resource(Read::resource(
        &state,
        Purpose::Icon { first_add: false },
        &p,
    ));
    assert!(
        world
            .trace
            .iter()
            .any(|l| l == "send robots https://a.example/robots.txt gap 1s patience 1"),
        "{:?}",
        world.trace
    );

    // A profile without the exemption reads robots.txt for the first-add icon too.
    let mut strict = profile("serenereader");
    strict.pages.first_add_icon_skips_robots = false;
    let mut world = World::default()
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/favicon.ico", ok("\u{0}\u{0}"));
    world.run_resource(Read::resource(
        &state,
        Purpose::Icon { first_add: true },
        &strict,
    ));
    assert!(world.trace.iter().any(|l| l.starts_with("send robots")));
}

#[test]
fn sr4_a_temporary_failure_is_retried_three_times_then_held_an_hour() {
    let p = profile("serenereader");
    let five_hundred = || FetchOutcome::ServerError {
        status: 500,
        retry_after: None,
    };
    let mut waits = Vec::new();
    for retries in 0..4 {
        let mut world = World::default()
            .robots("https://a.example:443", allowed_everything(t0()))
            .answer("https://a.example/post/1", five_hundred());
        let state = page("https://a.example/post/1", retries);
        let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
        waits.push((next(&out), out.retries));
    }
    // The read's clock moved one second for its request.
    assert_eq!(
        waits,
        [
            (("retry", 31), 1),
            (("retry", 61), 2),
            (("retry", 121), 3),
            (("hold", 3601), 0)
        ]
    );
}

#[test]
fn sr4_a_404_is_remembered_30_days_and_a_body_that_is_no_page_too() {
    let p = profile("serenereader");
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer("https://a.example/post/1", FetchOutcome::NotFound);
    let state = page("https://a.example/post/1", 0);
    let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
    assert_eq!(next(&out), ("hold", 30 * DAY + 1));
    assert_eq!(out.label, "not_found");

    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer("https://a.example/favicon.ico", ok("<html>soft 404</html>"));
    world.examined = Some(Err("not an image".into()));
    let state = page("https://a.example/favicon.ico", 2);
    let out = world.run_resource(Read::resource(
        &state,
        Purpose::Icon { first_add: false },
        &p,
    ));
    assert_eq!(next(&out), ("hold", 30 * DAY + 1));
    assert_eq!(out.label, "parse_error");
    assert_eq!(out.error.as_deref(), Some("not an image"));
    assert_eq!(out.retries, 0);
    assert!(out.found.is_none());
}

#[test]
fn sr6_a_429_is_retried_within_minutes_then_waits_its_retry_after_capped_at_7_days() {
    let p = profile("serenereader");
    let throttled = |retry_after| FetchOutcome::Refused {
        status: 429,
        retry_after,
    };
    let run = |retries, outcome| {
        let mut world = World::default()
            .robots("https://a.example:443", allowed_everything(t0()))
            .answer("https://a.example/post/1", outcome);
        let state = page("https://a.example/post/1", retries);
        let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
        (next(&out), out.host_floor.is_some())
    };
    assert_eq!(run(0, throttled(None)), (("retry", 31), false));
    assert_eq!(
        run(3, throttled(Some(RetryAfter::Seconds(30 * DAY as u64)))),
        (("hold", 7 * DAY + 1), true),
        "capped at 7 days; the host's floor is set too (C6)"
    );
}

#[test]
fn c6_a_host_floor_sets_the_resource_aside_without_a_request_or_a_retry() {
    let p = profile("serenereader");
    let mut world = World::default();
    world
        .floors
        .insert("https://a.example:443".into(), t0() + Span::minutes(10));
    let state = page("https://a.example/post/1", 2);
    let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
    assert!(!world.trace.iter().any(|l| l.starts_with("send")));
    assert_eq!(out.not_sent, Some(NotSent::HostFloor));
    assert_eq!(next(&out), ("hold", 600));
    assert_eq!(out.retries, 2, "not a read: its retries stay");
    assert_eq!(out.label, "postponed");
}

#[test]
fn ff13_a_resource_under_a_rule_is_not_requested() {
    let p = profile("serenereader");
    let mut world = World::default();
    world.rules.insert(
        "https://a.example/post/1".into(),
        "host a.example (operator)".into(),
    );
    let state = page("https://a.example/post/1", 0);
    let out = world.run_resource(Read::resource(&state, Purpose::ArticlePage, &p));
    assert_eq!(world.trace, ["rules https://a.example/post/1"]);
    assert_eq!(out.not_sent, Some(NotSent::Held));
    assert_eq!(next(&out), ("hold", 30 * DAY));
}

#[test]
fn ff9_ff11_an_image_request_follows_its_redirect_through_the_new_origins_robots_txt() {
    let p = profile("ffbot");
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer(
            "https://a.example/i.png",
            redirect(301, "https://cdn.example/i.png"),
        )
        .answer("https://cdn.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://cdn.example/i.png", ok("png"));
    let state = page("https://a.example/i.png", 0);
    let out = world.run_resource(Read::resource(&state, Purpose::Image, &p));
    assert_eq!(
        world.trace,
        [
            "rules https://a.example/i.png",
            "host state https://a.example:443",
            "send image https://a.example/i.png gap 1s patience 1",
            "rules https://cdn.example/i.png",
            "host state https://cdn.example:443",
            "rules https://cdn.example/robots.txt",
            "send robots https://cdn.example/robots.txt gap 1s patience 1",
            "save robots https://cdn.example:443",
            "send image https://cdn.example/i.png gap 1s patience 1",
            "examine image 3 bytes",
        ]
    );
    assert_eq!(next(&out), ("done", 0));
    assert_eq!(out.final_target.as_str(), "https://cdn.example/i.png");
    assert_eq!(out.sent.len(), 2, "the hop and the image");
}

#[test]
fn pf13_wfm1_a_resource_the_profile_does_not_request_is_never_sent() {
    // PlainFeeder and WorldFeedMonitor request feeds and robots.txt only.
    for name in ["plainfeeder", "worldfeedmonitor", "dailyfootballbot"] {
        let p = profile(name);
        for purpose in [
            Purpose::ArticlePage,
            Purpose::Image,
            Purpose::Icon { first_add: false },
            Purpose::Discovery { named: false },
        ] {
            let mut world = World::default();
            let state = page("https://a.example/post/1", 0);
            let out = world.run_resource(Read::resource(&state, purpose, &p));
            // Only the first question (a rule?) is asked of the driver: nothing is sent, not
            // even robots.txt.
            assert_eq!(
                world.trace,
                ["rules https://a.example/post/1"],
                "{name} {purpose:?}"
            );
            assert_eq!(out.not_sent, Some(NotSent::Refused), "{name} {purpose:?}");
            assert!(out.sent.is_empty());
            let error = out.error.unwrap_or_default();
            assert!(error.contains("does not request"), "{error}");
        }
    }
}

#[test]
fn ff1_a_named_url_is_read_as_a_feed_and_a_guess_only_under_a_profile_that_discovers() {
    // A URL given as a feed (submitted, or declared by a page) is a feed request for every
    // profile; a guessed one is discovery.
    assert_eq!(
        Purpose::Discovery { named: true }.requests(),
        tidings_model::RequestPurpose::Feed
    );
    assert_eq!(
        Purpose::Discovery { named: false }.requests(),
        tidings_model::RequestPurpose::Discovery
    );
    let p = profile("plainfeeder");
    let mut world = World::default()
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/", ok("<html></html>"));
    let state = page("https://a.example/", 0);
    let out = world.run_resource(Read::resource(
        &state,
        Purpose::Discovery { named: true },
        &p,
    ));
    assert_eq!(
        world.trace,
        [
            "rules https://a.example/",
            "host state https://a.example:443",
            "rules https://a.example/robots.txt",
            "send robots https://a.example/robots.txt gap 1s patience 1",
            "save robots https://a.example:443",
            "send discovery https://a.example/ gap 1s patience 1",
            "examine discovery 13 bytes",
        ]
    );
    assert_eq!(out.label, "ok");
    assert_eq!(
        out.sent[0].kind,
        RequestKind::Resource(Purpose::Discovery { named: true })
    );
}
