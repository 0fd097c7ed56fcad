//! The read machine driven by a scripted driver: the order of every step and what each exit
//! stores, without a socket or a clock. Each test names the rules it holds.

mod support;

use chrono::Duration as Span;
use std::time::Duration;
use support::*;
use tidings_model::{FetchOutcome, HostKey, RetryAfter};
use tidings_policy::Lifecycle;
use tidings_read::{Allowed, Ending, Purpose, Read, RequestKind};

#[test]
fn c3_c4_ff11_a_first_read_asks_robots_txt_then_the_feed_in_the_hosts_turn() {
    let p = profile("default");
    let mut world = World::default()
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/feed.xml", ok("<rss/>"));
    let out = world.run(Read::new(
        &feed("https://a.example/feed.xml"),
        Purpose::FirstAdd,
        &p,
    ));
    assert_eq!(
        world.trace,
        [
            "rules https://a.example/feed.xml",
            "host state https://a.example:443",
            "rules https://a.example/robots.txt",
            "send robots https://a.example/robots.txt gap 1s patience 1",
            "save robots https://a.example:443",
            "send first_add https://a.example/feed.xml gap 1s patience 1",
            "judge 6 bytes",
        ]
    );
    assert_eq!(out.ending(), Ending::Read);
    assert_eq!(out.label, "ok");
    assert_eq!(world.saved[0].1.status, Some(404));
    assert_eq!(
        world.saved[0].2,
        ["robots.txt before the first feed of this origin (FF11)"],
        "the robots row is saved with the copy"
    );
    assert_eq!(out.sent.len(), 1, "the feed's own row only");
    assert_eq!(out.sent[0].kind, RequestKind::Resource(Purpose::FirstAdd));
    assert_eq!(
        out.sent[0].allowed.to_string(),
        "first add; robots: 404, everything allowed"
    );
    assert_eq!(out.decision.failure, None);
    assert_eq!(out.egress_refusals.map(|r| r.len()), Some(1));
}

#[test]
fn dfb7_a_fresh_copy_is_used_and_a_stale_one_is_read_again() {
    let p = profile("default");
    let origin = "https://a.example:443";
    // Fresh: no robots request.
    let mut world = World::default()
        .robots(origin, allowed_everything(t0() - Span::hours(1)))
        .answer("https://a.example/f", ok("x"));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(!world.trace.iter().any(|l| l.starts_with("send robots")));
    assert_eq!(
        out.sent[0].allowed.to_string(),
        "due: interval 1h; robots: 404, everything allowed"
    );
    // Older than max_age (a day): read again, and the row says why.
    let mut world = World::default()
        .robots(origin, allowed_everything(t0() - Span::days(2)))
        .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/f", ok("x"));
    world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(world.trace.iter().any(|l| l.starts_with("send robots")));
    assert_eq!(
        world.saved[0].2,
        ["robots.txt older than the profile's max_age (DFB7)"]
    );
}

#[test]
fn ff13_wfm10_a_feed_under_a_rule_sends_nothing_and_is_held() {
    let p = profile("default");
    let mut world = World::default();
    world.rules.insert(
        "https://a.example/f".into(),
        "host a.example: on request".into(),
    );
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert_eq!(world.trace, ["rules https://a.example/f"]);
    assert_eq!(out.ending(), Ending::Held);
    assert_eq!(out.label, "blocked");
    assert_eq!(out.decision.lifecycle, Lifecycle::Paused);
    assert!(out.sent.is_empty());
}

#[test]
fn c6_a_host_floor_in_the_future_sets_the_read_aside_without_a_request() {
    let p = profile("default");
    let mut world = World::default();
    world
        .floors
        .insert("https://a.example:443".into(), t0() + Span::hours(2));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert_eq!(out.ending(), Ending::SetAside);
    assert_eq!(out.label, "postponed");
    assert_eq!(out.decision.next_fetch_at, t0() + Span::hours(2));
    assert!(world.trace.iter().all(|l| !l.starts_with("send")));
}

#[test]
fn wfm5_only_worldfeedmonitor_sends_a_second_attempt_after_no_answer() {
    for (name, sends) in [("worldfeedmonitor", 2), ("default", 1), ("serenereader", 1)] {
        let p = profile(name);
        let mut world = World::default()
            .robots("https://a.example:443", allowed_everything(t0()))
            .answer("https://a.example/f", no_answer())
            .answer("https://a.example/f", no_answer());
        let out = world.run(Read::new(
            &feed("https://a.example/f"),
            Purpose::Scheduled,
            &p,
        ));
        let feed_sends: Vec<&String> = world
            .trace
            .iter()
            .filter(|l| l.starts_with("send feed"))
            .collect();
        assert_eq!(feed_sends.len(), sends, "{name}: {:?}", world.trace);
        assert_eq!(out.sent.len(), sends, "{name}: every request logged");
        assert_eq!(out.label, "no_answer");
        if sends == 2 {
            assert!(feed_sends[1].ends_with("patience 2"));
            assert_eq!(out.sent[1].allowed, Allowed::SecondAttempt);
        }
    }
}

#[test]
fn ff11_c6_ff13_a_redirect_hop_is_checked_like_a_request_of_its_own() {
    let p = profile("default");
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer("https://a.example/f", redirect(301, "https://b.example/g"))
        .answer("https://b.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://b.example/g", ok("<rss/>"));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    // rules, host state; then the first request.
    let after_first: Vec<&str> = world.trace[2..].iter().map(String::as_str).collect();
    assert_eq!(
        after_first,
        [
            "send feed https://a.example/f gap 1s patience 1",
            "rules https://b.example/g",
            "host state https://b.example:443",
            "rules https://b.example/robots.txt",
            "send robots https://b.example/robots.txt gap 1s patience 1",
            "save robots https://b.example:443",
            "send feed https://b.example/g gap 1s patience 1",
            "judge 6 bytes",
        ],
        "no FF11 pause check mid-read"
    );
    assert_eq!(out.final_target.as_str(), "https://b.example/g");
    assert_eq!(out.hops.len(), 1);
    let labels: Vec<&str> = out.sent.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["redirect", "ok"]);
    assert_eq!(
        out.sent[1].allowed.to_string(),
        "redirect from https://a.example/f; robots: 404, everything allowed"
    );
}

#[test]
fn c7_every_request_is_handed_out_with_its_rule_and_its_row_closes_that_ticket() {
    // A driver writes a row ahead of each request (C7) from what `Need::Send` gives it; the
    // request's own row, once its answer is stored, carries the same ticket, URL and rule.
    let p = profile("default");
    let mut world = World::default()
        .answer(
            "https://a.example/robots.txt",
            redirect(301, "https://c.example/robots.txt"),
        )
        .answer("https://c.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://a.example/f", redirect(301, "https://b.example/g"))
        .answer("https://b.example/robots.txt", FetchOutcome::NotFound)
        .answer("https://b.example/g", ok("<rss/>"));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::FirstAdd,
        &p,
    ));
    assert_eq!(out.ending(), Ending::Read);
    let mut rows = world.closed.clone();
    rows.extend(
        out.sent
            .iter()
            .map(|s| (s.ticket, s.target.to_string(), s.allowed.to_string())),
    );
    rows.sort_by_key(|r| r.0.map(|t| t.0));
    let ahead: Vec<_> = world
        .ahead
        .iter()
        .map(|(t, url, rule)| (Some(*t), url.clone(), rule.clone()))
        .collect();
    assert_eq!(rows, ahead);
    assert_eq!(ahead.len(), 5, "{ahead:#?}");
    assert_eq!(
        ahead[1].2,
        "robots.txt before the first feed of this origin (FF11); redirected from https://a.example:443",
        "a hop of robots.txt to another origin says so before it is sent"
    );
}

#[test]
fn c8_a_redirect_loop_ends_at_the_url_seen_before() {
    let p = profile("default");
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer("https://a.example/f", redirect(302, "/g"))
        .answer("https://a.example/g", redirect(302, "/f"));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert_eq!(out.label, "redirect");
    assert_eq!(out.hops.len(), 1);
    assert!(
        out.verdict
            .error
            .as_deref()
            .unwrap_or("")
            .starts_with("too many redirects"),
        "{:?}",
        out.verdict.error
    );
}

#[test]
fn wfm9_a_disallowed_feed_is_not_requested() {
    let p = profile("worldfeedmonitor");
    let mut world = World::default().robots(
        "https://a.example:443",
        robots_file("User-agent: WorldFeedMonitor\nDisallow: /\n"),
    );
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(world.trace.iter().all(|l| !l.starts_with("send")));
    assert_eq!(out.ending(), Ending::Read);
    assert!(matches!(out.outcome, FetchOutcome::Blocked { .. }));
    assert_eq!(out.label, "blocked");
    assert!(out.sent.is_empty());
    assert!(out.egress_refusals.is_none(), "no answer, no egress record");
}

#[test]
fn ff11_a_robots_txt_that_does_not_answer_is_the_host_not_answering() {
    let p = profile("ffbot");
    let mut world = World::default().answer("https://a.example/robots.txt", no_answer());
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(matches!(out.outcome, FetchOutcome::Transport(_)));
    assert_eq!(out.label, "no_answer");
    let error = out.verdict.error.unwrap_or_default();
    assert!(error.starts_with("robots.txt did not answer"), "{error}");
    assert_eq!(world.saved[0].1.status, None);
}

#[test]
fn ff11_a_robots_txt_a_rule_covers_is_not_requested_and_nor_is_the_feed() {
    let p = profile("default");
    let mut world = World::default();
    world
        .rules
        .insert("https://a.example/robots.txt".into(), "path rule".into());
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(world.trace.iter().all(|l| !l.starts_with("send")));
    assert_eq!(
        out.verdict.error.as_deref(),
        Some("not fetched: robots.txt not fetched: path rule")
    );
}

#[test]
fn ff11_a_long_crawl_delay_sets_the_hosts_work_aside_for_the_whole_delay() {
    let p = profile("ffbot");
    let mut world = World::default().robots(
        "https://a.example:443",
        robots_file("User-agent: *\nCrawl-delay: 120\n"),
    );
    world.quiet = Some(Duration::from_secs(20));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert_eq!(out.ending(), Ending::SetAside);
    assert!(
        world
            .trace
            .iter()
            .any(|l| l == "quiet https://a.example:443")
    );
    assert_eq!(out.decision.next_fetch_at, t0() + Span::seconds(100));
    assert!(
        out.decision
            .reason
            .to_string()
            .starts_with("FF11 crawl-delay 120s")
    );
    // Quiet long enough: the request goes, spaced by the capped gap.
    world.quiet = Some(Duration::from_secs(200));
    world.trace.clear();
    world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(
        world
            .trace
            .iter()
            .any(|l| l == "send feed https://a.example/f gap 60s patience 1"),
        "{:?}",
        world.trace
    );
}

/// FF11: how long the host has been quiet is asked only when its crawl-delay could pause the
/// work: longer than the cap, under a profile that pauses rather than shortening it.
#[test]
fn ff11_the_host_is_asked_how_long_it_was_quiet_only_when_a_pause_could_follow() {
    let cases = [
        ("ffbot", "Crawl-delay: 120\n", true),
        ("ffbot", "Crawl-delay: 30\n", false),
        ("ffbot", "", false),
        // The default profile shortens a long crawl-delay to its cap: nothing to pause.
        ("default", "Crawl-delay: 120\n", false),
    ];
    for (name, delay, asked) in cases {
        let p = profile(name);
        let mut world = World::default()
            .robots(
                "https://a.example:443",
                robots_file(&format!("User-agent: *\n{delay}")),
            )
            .answer("https://a.example/f", ok("x"));
        world.quiet = Some(Duration::from_secs(3_600));
        let out = world.run(Read::new(
            &feed("https://a.example/f"),
            Purpose::Scheduled,
            &p,
        ));
        let quiet = world.trace.iter().any(|l| l.starts_with("quiet "));
        assert_eq!(quiet, asked, "{name} {delay:?}: {:?}", world.trace);
        assert_eq!(out.ending(), Ending::Read, "{name} {delay:?}");
    }
}

#[test]
fn ff11_a_crawl_delay_over_an_hour_is_waited_in_full_never_shortened() {
    let p = profile("ffbot");
    let mut world = World::default().robots(
        "https://a.example:443",
        robots_file("User-agent: *\nCrawl-delay: 7200\n"),
    );
    world.quiet = Some(Duration::from_secs(600));
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert_eq!(out.ending(), Ending::SetAside);
    assert_eq!(out.decision.next_fetch_at, t0() + Span::seconds(6600));
}

#[test]
fn c8_a_read_past_the_daily_bound_stores_nothing_and_holds_the_feed() {
    let mut p = profile("default");
    p.entries.max_new_per_day = 10_000;
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer("https://a.example/f", ok("<rss/>"));
    world.entries = 3;
    world.unseen = 3;
    world.first_seen_since = 9_999;
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(world.trace.iter().any(|l| l == "counts of 3"));
    assert!(out.verdict.parsed.is_none());
    assert_eq!(out.decision.lifecycle, Lifecycle::Paused);
}

#[test]
fn c6_a_429_with_retry_after_sets_the_hosts_floor() {
    let p = profile("default");
    let mut world = World::default()
        .robots("https://a.example:443", allowed_everything(t0()))
        .answer(
            "https://a.example/f",
            FetchOutcome::Refused {
                status: 429,
                retry_after: Some(RetryAfter::Seconds(7200)),
            },
        );
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    let (host, until) = out.host_floor.expect("a floor");
    assert_eq!(host, HostKey::of(&url("https://a.example/")));
    assert!(until >= t0() + Span::seconds(7200));
    assert_eq!(out.label, "refused");
}

#[test]
fn pf9_a_permanent_move_onto_another_feeds_url_is_not_made() {
    let p = profile("plainfeeder");
    for (other_feed, moved) in [(false, true), (true, false)] {
        let mut world = World::default()
            .robots("https://a.example:443", allowed_everything(t0()))
            .answer("https://a.example/f", redirect(301, "/new"))
            .answer("https://a.example/new", ok("<rss/>"));
        world.feed_at = other_feed;
        let out = world.run(Read::new(
            &feed("https://a.example/f"),
            Purpose::Scheduled,
            &p,
        ));
        assert!(
            world
                .trace
                .iter()
                .any(|l| l == "feed at https://a.example/new")
        );
        assert_eq!(
            out.move_to.is_some(),
            moved,
            "other feed there: {other_feed}"
        );
    }
}

#[test]
fn c6_a_retry_after_on_robots_txt_holds_the_host() {
    let p = profile("ffbot");
    let mut world = World::default().answer(
        "https://a.example/robots.txt",
        FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(RetryAfter::Seconds(3600)),
        },
    );
    let out = world.run(Read::new(
        &feed("https://a.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(
        world.trace.iter().all(|l| !l.starts_with("send feed")),
        "FF11 defers"
    );
    let (host, until) = out.host_floor.expect("the robots answer's floor");
    assert_eq!(host, HostKey::of(&url("https://a.example/")));
    assert!(until >= t0() + Span::seconds(3600), "{until}");
}

#[test]
fn ff11_a_robots_txt_refused_with_403_defers_under_ffbot_and_allows_elsewhere() {
    for (name, requested) in [("ffbot", false), ("default", true), ("serenereader", true)] {
        let p = profile(name);
        let mut world = World::default()
            .answer(
                "https://a.example/robots.txt",
                FetchOutcome::Refused {
                    status: 403,
                    retry_after: None,
                },
            )
            .answer("https://a.example/f", ok("<rss/>"));
        let out = world.run(Read::new(
            &feed("https://a.example/f"),
            Purpose::Scheduled,
            &p,
        ));
        let sent = world.trace.iter().any(|l| l.starts_with("send feed"));
        assert_eq!(sent, requested, "{name}: {:?}", world.trace);
        if !requested {
            let error = out.verdict.error.unwrap_or_default();
            assert!(error.contains("deferred"), "{name}: {error}");
        }
    }
}

#[test]
fn c7_a_read_without_a_log_takes_the_same_steps_and_decision_and_builds_no_rows() {
    let p = profile("worldfeedmonitor");
    let world = || {
        World::default()
            .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
            .answer("https://a.example/f", no_answer())
            .answer("https://a.example/f", redirect(301, "https://b.example/g"))
            .answer("https://b.example/robots.txt", FetchOutcome::NotFound)
            .answer("https://b.example/g", ok("<rss/>"))
    };
    let state = feed("https://a.example/f");
    let (mut logged, mut bare) = (world(), world());
    let with = logged.run(Read::new(&state, Purpose::Scheduled, &p));
    let without = bare.run(Read::new(&state, Purpose::Scheduled, &p).without_log());
    assert_eq!(
        logged.trace, bare.trace,
        "the same needs, in the same order"
    );
    assert_eq!(with.decision, without.decision);
    assert_eq!(with.label, without.label);
    assert_eq!(with.final_target, without.final_target);
    assert_eq!(with.hops.len(), 1);
    assert_eq!(without.hops.len(), 1);
    let labels: Vec<&str> = with.sent.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["no_answer", "redirect", "ok"], "{labels:?}");
    assert!(without.sent.is_empty());
    // robots.txt rows are saved with the copy either way.
    assert_eq!(logged.saved.len(), 2);
    assert_eq!(bare.saved.len(), 2);
    assert_eq!(
        logged.saved.iter().map(|s| &s.2).collect::<Vec<_>>(),
        bare.saved.iter().map(|s| &s.2).collect::<Vec<_>>()
    );
}

/// A read built in the box of an outcome its driver is done with (one of another feed, with
/// rows, hops and a held-up answer of its own) ends in the same outcome as one in a new box:
/// nothing of the old one is left in it.
#[test]
fn c7_a_read_in_a_reused_box_ends_as_one_in_a_new_box() {
    let p = profile("worldfeedmonitor");
    let mut old_world = World::default()
        .answer("https://old.example/robots.txt", FetchOutcome::NotFound)
        .answer(
            "https://old.example/f",
            redirect(301, "https://old.example/g"),
        )
        .answer("https://old.example/g", FetchOutcome::Gone);
    let old = old_world.run(Read::new(
        &feed("https://old.example/f"),
        Purpose::Scheduled,
        &p,
    ));
    assert!(!old.sent.is_empty() && !old.hops.is_empty());
    let world = || {
        World::default()
            .answer("https://a.example/robots.txt", FetchOutcome::NotFound)
            .answer("https://a.example/f", ok("<rss/>"))
    };
    let state = feed("https://a.example/f");
    let fresh = world().run(Read::new(&state, Purpose::Scheduled, &p));
    let reused =
        world().run(Read::new(&state, Purpose::Scheduled, &p).reusing(Some(Box::new(old))));
    assert_eq!(format!("{reused:?}"), format!("{fresh:?}"));
    assert_eq!(reused.label, "ok");
}
