//! The five seed profiles and the default, read as a bot page reads: a sequence of answers in,
//! the waits and states that follow out. Each test is named after the rule it keeps.

use chrono::{DateTime, Duration, Utc};
use tidings_model::{CacheHints, FetchOutcome, Fetched, RetryAfter, TransportError, Validators};
use tidings_policy::profile::EMBEDDED;
use tidings_policy::{
    BodyVerdict, FailureKind, FeedHints, FeedSchedule, Lifecycle, Profile, decide,
};

fn now() -> DateTime<Utc> {
    "2030-01-07T10:30:00Z".parse().unwrap()
}

/// An embedded profile without jitter, so waits are exact.
fn profile(name: &str) -> Profile {
    let mut p = Profile::embedded(name).unwrap();
    p.hints.jitter = 0.0;
    p
}

fn ok() -> FetchOutcome {
    FetchOutcome::Fetched(Fetched {
        status: 200,
        body: b"<rss/>".to_vec(),
        content_type: Some("application/rss+xml".into()),
        validators: Validators::default(),
        cache: CacheHints::default(),
        rights: None,
    })
}

fn html_page() -> (FetchOutcome, BodyVerdict) {
    (
        ok(),
        BodyVerdict::Unparseable {
            detail: "an HTML page, not a feed".into(),
            html: true,
        },
    )
}

fn refused(status: u16) -> FetchOutcome {
    FetchOutcome::Refused {
        status,
        retry_after: None,
    }
}

fn server_error(status: u16) -> FetchOutcome {
    FetchOutcome::ServerError {
        status,
        retry_after: None,
    }
}

fn not_modified(cache: CacheHints) -> FetchOutcome {
    FetchOutcome::NotModified {
        validators: Validators::default(),
        cache,
        rights: None,
    }
}

/// One step of a feed's life.
#[derive(Debug, PartialEq)]
struct Step {
    wait: i64,
    reason: String,
    lifecycle: Lifecycle,
}

/// Feed the answers to `decide` one after another, each decision becoming the next state, as
/// the crawler stores it. Returns the wait (seconds) and reason after each.
fn run(profile: &Profile, answers: &[(FetchOutcome, BodyVerdict)]) -> Vec<Step> {
    let mut state = FeedSchedule {
        interval_secs: profile.schedule.default_interval,
        seed: 1,
        ..FeedSchedule::default()
    };
    let mut steps = Vec::new();
    for (outcome, body) in answers {
        let d = decide(&state, outcome, body, now(), profile);
        steps.push(Step {
            wait: (d.next_fetch_at - now()).num_seconds(),
            reason: d.reason.to_string(),
            lifecycle: d.lifecycle,
        });
        state.interval_secs = d.interval_secs;
        state.consecutive_failures = d.consecutive_failures;
        state.last_failure = d.failure;
        state.failure_totals = d.failure_totals;
    }
    steps
}

fn answers(outcome: FetchOutcome, n: usize) -> Vec<(FetchOutcome, BodyVerdict)> {
    vec![(outcome, BodyVerdict::NotApplicable); n]
}

fn waits(steps: &[Step]) -> Vec<i64> {
    steps.iter().map(|s| s.wait).collect()
}

const H: i64 = 3600;

#[test]
fn every_embedded_profile_is_valid_and_short_names_work() {
    for (name, _) in EMBEDDED {
        let p = Profile::embedded(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&p.name, name);
    }
    for (alias, full) in [
        ("wfm", "worldfeedmonitor"),
        ("SR", "serenereader"),
        ("dfb", "dailyfootballbot"),
        ("ff", "ffbot"),
        ("pf", "plainfeeder"),
    ] {
        assert_eq!(Profile::embedded(alias).unwrap().name, full);
    }
}

#[test]
fn c1_each_profile_sends_its_own_bot_pages_user_agent() {
    for (name, ua) in [
        ("worldfeedmonitor", "WorldFeedMonitor/1.0"),
        ("serenereader", "SereneReader/1.0"),
        ("dailyfootballbot", "DailyFootballBot/1.0"),
        ("ffbot", "FFBot/1.0"),
        ("plainfeeder", "PlainFeeder v9.9.9"),
    ] {
        let got = profile(name).user_agent("9.9.9");
        assert!(got.contains(ua), "{name}: {got}");
    }
}

/// The robots.txt group a profile obeys is the one a publisher would write after reading its
/// User-Agent (WFM9, DFB7, SR8 name theirs; the others follow the product name).
#[test]
fn every_profile_obeys_the_robots_group_named_in_its_user_agent() {
    for (name, _) in EMBEDDED {
        let p = profile(name);
        assert!(
            p.user_agent("9.9.9").contains(&p.robots.token),
            "{name}: token {} is not in {}",
            p.robots.token,
            p.user_agent("9.9.9")
        );
    }
}

/// WFM3: at most once every 15 minutes, whatever the feed asks.
#[test]
fn wfm3_a_feed_is_read_at_most_every_fifteen_minutes() {
    let p = profile("wfm");
    let hourly_news = FeedHints {
        published: (0..10).map(|i| now() - Duration::minutes(i * 2)).collect(),
        ..FeedHints::default()
    };
    let steps = run(&p, &[(ok(), BodyVerdict::Parsed(hourly_news))]);
    assert_eq!(waits(&steps), [15 * 60]);
}

/// WFM6: 403 and 429 are refusals; after a few, hourly, then 6-hourly, then daily. Both
/// statuses and challenge pages climb the same ladder.
#[test]
fn wfm6_refusals_drop_to_hourly_then_six_hourly_then_daily() {
    let p = profile("worldfeedmonitor");
    let mut seq = answers(refused(403), 4);
    seq.extend(answers(refused(429), 2));
    seq.extend(answers(
        FetchOutcome::Challenge {
            status: 403,
            retry_after: None,
        },
        3,
    ));
    let steps = run(&p, &seq);
    assert_eq!(
        waits(&steps),
        [900, 900, H, H, 6 * H, 6 * H, 24 * H, 24 * H, 24 * H]
    );
    assert_eq!(steps[2].reason, "WFM6 403 #3: 1h");
    assert_eq!(steps[5].reason, "WFM6 429 #6: 6h");
    assert!(steps.iter().all(|s| s.lifecycle == Lifecycle::Active));
    // A success starts over.
    let mut seq = answers(refused(403), 5);
    seq.push((ok(), BodyVerdict::Parsed(FeedHints::default())));
    seq.push((refused(403), BodyVerdict::NotApplicable));
    assert_eq!(waits(&run(&p, &seq))[5..], [900, 900]);
}

/// SR5: each refresh failure postpones the next attempt from 15 minutes doubling up to a day
/// (never sooner than the feed's 30-minute interval); a 429's Retry-After is also waited.
#[test]
fn sr5_failures_double_from_fifteen_minutes_to_a_day() {
    let p = profile("serenereader");
    let mut seq = answers(server_error(500), 3);
    seq.extend(answers(FetchOutcome::Transport(TransportError::Timeout), 3));
    seq.extend(answers(refused(403), 4));
    let steps = run(&p, &seq);
    assert_eq!(
        waits(&steps),
        [
            1800,
            1800,
            H,
            2 * H,
            4 * H,
            8 * H,
            16 * H,
            24 * H,
            24 * H,
            24 * H
        ]
    );
    let limited = FetchOutcome::Refused {
        status: 429,
        retry_after: Some(RetryAfter::Seconds(3 * 86_400)),
    };
    let steps = run(&p, &answers(limited, 1));
    assert_eq!(steps[0].wait, 3 * 86_400, "{}", steps[0].reason);
}

/// DFB3 and DFB6: every 10 minutes at most; after errors the retries spread out to 6 hours and
/// no further (a Retry-After may still ask for longer).
#[test]
fn dfb3_dfb6_ten_minutes_at_most_and_errors_spread_retries_up_to_six_hours() {
    let p = profile("dfb");
    assert_eq!(p.schedule.min_interval, 600, "DFB3");
    assert_eq!(p.pacing.host_gap, 2.0, "DFB4");
    let steps = run(&p, &answers(server_error(502), 30));
    assert_eq!(
        waits(&steps)[..8],
        [600, 1200, 2400, 4800, 9600, 19200, 6 * H, 6 * H]
    );
    assert!(waits(&steps).iter().all(|&w| w <= 6 * H));
    let busy = FetchOutcome::ServerError {
        status: 503,
        retry_after: Some(RetryAfter::Seconds(12 * 3600)),
    };
    assert_eq!(
        run(&p, &answers(busy, 1))[0].wait,
        12 * H,
        "DFB6 Retry-After"
    );
}

/// PF1: every 6 hours by default.
#[test]
fn pf1_default_refresh_is_six_hours() {
    let p = profile("plainfeeder");
    let steps = run(&p, &[(ok(), BodyVerdict::Parsed(FeedHints::default()))]);
    assert_eq!(waits(&steps), [6 * H]);
    assert_eq!(steps[0].reason, "interval 6h");
}

/// PF3: Cache-Control max-age and Expires lengthen the wait when longer, never shorten it.
#[test]
fn pf3_cache_headers_lengthen_never_shorten() {
    let p = profile("plainfeeder");
    let cases = [
        (
            CacheHints {
                max_age: Some(12 * 3600),
                expires: None,
            },
            12 * H,
        ),
        (
            CacheHints {
                max_age: Some(60),
                expires: None,
            },
            6 * H,
        ),
        (
            CacheHints {
                max_age: None,
                expires: Some(now() + Duration::hours(20)),
            },
            20 * H,
        ),
        (
            CacheHints {
                max_age: None,
                expires: Some(now() - Duration::hours(1)),
            },
            6 * H,
        ),
        // Capped at the schedule's longest interval.
        (
            CacheHints {
                max_age: Some(365 * 86_400),
                expires: None,
            },
            48 * H,
        ),
    ];
    for (cache, want) in cases {
        let steps = run(&p, &answers(not_modified(cache), 1));
        assert_eq!(steps[0].wait, want, "{cache:?}");
    }
}

/// PF4: server errors slow the feed down progressively.
#[test]
fn pf4_server_errors_slow_down_progressively() {
    let steps = run(&profile("pf"), &answers(server_error(500), 6));
    assert_eq!(
        waits(&steps),
        [6 * H, 12 * H, 24 * H, 48 * H, 48 * H, 48 * H]
    );
    assert!(steps.iter().all(|s| s.lifecycle == Lifecycle::Active));
}

/// PF5: 404, and 403 the same: three more tries at the refresh interval, paused after four.
#[test]
fn pf5_four_404s_or_403s_pause_the_feed() {
    for outcome in [FetchOutcome::NotFound, refused(403)] {
        let steps = run(&profile("pf"), &answers(outcome.clone(), 4));
        assert_eq!(waits(&steps)[..3], [6 * H, 6 * H, 6 * H], "{outcome:?}");
        let lifecycles: Vec<_> = steps.iter().map(|s| s.lifecycle).collect();
        assert_eq!(
            lifecycles,
            [
                Lifecycle::Active,
                Lifecycle::Active,
                Lifecycle::Active,
                Lifecycle::Paused
            ]
        );
        assert!(
            steps[3].reason.starts_with("paused: PF5"),
            "{}",
            steps[3].reason
        );
    }
    // Four in total, not in a row: a success between them does not start the count again.
    let mut seq = answers(FetchOutcome::NotFound, 2);
    seq.push((ok(), BodyVerdict::Parsed(FeedHints::default())));
    seq.extend(answers(FetchOutcome::NotFound, 2));
    let steps = run(&profile("pf"), &seq);
    let lifecycles: Vec<_> = steps.iter().map(|s| s.lifecycle).collect();
    assert_eq!(
        lifecycles,
        [
            Lifecycle::Active,
            Lifecycle::Active,
            Lifecycle::Active,
            Lifecycle::Active,
            Lifecycle::Paused
        ]
    );
    assert_eq!(
        steps[4].reason,
        "paused: PF5: paused after 4 404 answers in total"
    );
    // After the success the tries start again at the interval: only the pause counts in
    // total, the waits follow the failures in a row.
    assert_eq!(
        (steps[3].wait, steps[3].reason.as_str()),
        (6 * H, "PF5 404 #1: 6h")
    );
    // 404s and 403s are counted apart: three of each pause nothing.
    let mut seq = answers(FetchOutcome::NotFound, 3);
    seq.extend(answers(refused(403), 3));
    assert!(never_paused(&profile("pf"), &seq));
}

/// A ladder that counts in a row (PF6) starts again after a success.
#[test]
fn pf6_a_success_between_429s_starts_the_count_again() {
    let mut seq = answers(refused(429), 3);
    seq.push((ok(), BodyVerdict::Parsed(FeedHints::default())));
    seq.extend(answers(refused(429), 3));
    assert!(never_paused(&profile("pf"), &seq));
}

/// Whether the feed stays active through `answers`.
fn never_paused(profile: &Profile, answers: &[(FetchOutcome, BodyVerdict)]) -> bool {
    run(profile, answers)
        .iter()
        .all(|s| s.lifecycle == Lifecycle::Active)
}

/// PF6: 429 doubles the interval up to three times (6, 12, 24, 48 hours); paused after four.
#[test]
fn pf6_429_doubles_three_times_then_pauses() {
    let steps = run(&profile("pf"), &answers(refused(429), 4));
    assert_eq!(waits(&steps)[..3], [12 * H, 24 * H, 48 * H]);
    assert_eq!(steps[1].reason, "PF6 429 #2: 1d");
    assert_eq!(steps[3].lifecycle, Lifecycle::Paused);
}

/// PF7: any other 4xx: paused after two.
#[test]
fn pf7_other_client_errors_pause_after_two() {
    let steps = run(
        &profile("pf"),
        &answers(FetchOutcome::ClientError { status: 451 }, 2),
    );
    assert_eq!(steps[0].lifecycle, Lifecycle::Active);
    assert_eq!(steps[0].wait, 6 * H);
    assert_eq!(steps[1].lifecycle, Lifecycle::Paused);
    assert!(steps[1].reason.contains("PF7"), "{}", steps[1].reason);
}

/// PF8: the interval follows how often the feed publishes, within the profile's bounds.
#[test]
fn pf8_interval_adapts_to_the_publishing_rhythm() {
    let p = profile("pf");
    let every = |gap: Duration, newest_ago: Duration| FeedHints {
        published: (0..10).map(|i| now() - newest_ago - gap * i).collect(),
        ..FeedHints::default()
    };
    let cases = [
        // Publishes every 10 minutes: the profile's minimum, an hour.
        (every(Duration::minutes(10), Duration::zero()), H),
        (every(Duration::hours(3), Duration::hours(1)), 3 * H),
        (every(Duration::hours(12), Duration::hours(2)), 12 * H),
        // Fell silent 30 days ago: the longest interval.
        (every(Duration::hours(1), Duration::days(30)), 48 * H),
    ];
    for (hints, want) in cases {
        let steps = run(&p, &[(ok(), BodyVerdict::Parsed(hints.clone()))]);
        assert_eq!(steps[0].wait, want, "{}", steps[0].reason);
    }
    // Too few dates: the default.
    let few = every(Duration::minutes(10), Duration::zero());
    let few = FeedHints {
        published: few.published[..2].to_vec(),
        ..few
    };
    assert_eq!(run(&p, &[(ok(), BodyVerdict::Parsed(few))])[0].wait, 6 * H);
    // The learned interval is kept through 304s.
    let steps = run(
        &p,
        &[
            (
                ok(),
                BodyVerdict::Parsed(every(Duration::hours(3), Duration::zero())),
            ),
            (
                not_modified(CacheHints::default()),
                BodyVerdict::NotApplicable,
            ),
        ],
    );
    assert_eq!(waits(&steps), [3 * H, 3 * H]);
}

/// RSS ttl and sy:updatePeriod are lower bounds of the interval, each a profile switch.
#[test]
fn feed_hints_ttl_and_syndication_lengthen_the_interval() {
    let mut p = profile("default");
    let ttl = FeedHints {
        ttl_minutes: Some(180),
        ..FeedHints::default()
    };
    let daily = FeedHints {
        update_every_secs: Some(86_400),
        ..FeedHints::default()
    };
    let short_ttl = FeedHints {
        ttl_minutes: Some(5),
        ..FeedHints::default()
    };
    let one = |p: &Profile, h: FeedHints| run(p, &[(ok(), BodyVerdict::Parsed(h))])[0].wait;
    assert_eq!(one(&p, ttl.clone()), 3 * H);
    assert_eq!(one(&p, daily.clone()), 24 * H);
    assert_eq!(one(&p, short_ttl), H, "a short ttl never shortens");
    p.hints.ttl = false;
    p.hints.syndication = false;
    assert_eq!(one(&p, ttl), H);
    assert_eq!(one(&p, daily), H);
}

/// RSS skipHours/skipDays: no read is scheduled in a skipped hour or day (GMT).
#[test]
fn feed_hints_skip_hours_and_days_move_the_read() {
    let p = profile("default");
    // now is Monday 10:30; the interval is 1h, so 11:30 would be next.
    let hints = FeedHints {
        skip_hours: vec![11, 12],
        ..FeedHints::default()
    };
    let steps = run(&p, &[(ok(), BodyVerdict::Parsed(hints))]);
    assert_eq!(steps[0].wait, (2 * 60 + 30) * 60, "{}", steps[0].reason);
    let hints = FeedHints {
        skip_days: vec![chrono::Weekday::Mon],
        ..FeedHints::default()
    };
    let steps = run(&p, &[(ok(), BodyVerdict::Parsed(hints))]);
    assert_eq!(steps[0].wait, (13 * 60 + 30) * 60, "to Tuesday 00:00");
    let all = FeedHints {
        skip_hours: (0..24).collect(),
        ..FeedHints::default()
    };
    assert_eq!(
        run(&p, &[(ok(), BodyVerdict::Parsed(all))])[0].wait,
        H,
        "every hour skipped: ignored"
    );
}

/// Jitter lengthens a wait by at most the profile's fraction, and spreads feeds apart.
#[test]
fn jitter_only_lengthens_and_spreads_feeds() {
    let p = Profile::embedded("default").unwrap();
    let mut seen = std::collections::HashSet::new();
    for seed in 0..50 {
        let state = FeedSchedule {
            interval_secs: 3600,
            seed,
            ..FeedSchedule::default()
        };
        let d = decide(
            &state,
            &not_modified(CacheHints::default()),
            &BodyVerdict::NotApplicable,
            now(),
            &p,
        );
        let wait = (d.next_fetch_at - now()).num_seconds();
        assert!((3600..=3960).contains(&wait), "{wait}");
        seen.insert(wait);
    }
    assert!(seen.len() > 10, "jitter spreads feeds: {seen:?}");
}

/// Challenge pages are refusals, not parse errors: marked ones always, and an HTML page where
/// a feed was expected right after a refusal.
#[test]
fn challenge_pages_are_refusals() {
    let p = profile("wfm");
    let (page, html) = html_page();
    let steps = run(
        &p,
        &[
            (refused(403), BodyVerdict::NotApplicable),
            (page.clone(), html.clone()),
            (page.clone(), html.clone()),
        ],
    );
    assert_eq!(waits(&steps), [900, 900, H]);
    assert_eq!(steps[2].reason, "WFM6 challenge #3: 1h");
    // The same page after a success is just not a feed.
    let d = decide(&FeedSchedule::default(), &page, &html, now(), &p);
    assert_eq!(d.failure, Some(FailureKind::BadFeed));
}

/// A refusal or error never brings a read forward, and every wait stays within the profile's
/// bounds (or a Retry-After floor), for every embedded profile and any run of answers.
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn outcome() -> impl Strategy<Value = FetchOutcome> {
        prop_oneof![
            Just(ok()),
            Just(not_modified(CacheHints::default())),
            (prop::sample::select(vec![403u16, 429])).prop_map(refused),
            Just(FetchOutcome::NotFound),
            (400u16..500).prop_map(|status| FetchOutcome::ClientError { status }),
            (500u16..600).prop_map(server_error),
            Just(FetchOutcome::Transport(TransportError::Timeout)),
            Just(FetchOutcome::Challenge {
                status: 503,
                retry_after: None
            }),
        ]
    }

    proptest! {
        #[test]
        fn refusal_never_shortens_the_wait_in_any_profile(
            profile_index in 0..EMBEDDED.len(),
            seq in prop::collection::vec(outcome(), 1..30),
        ) {
            let p = profile(EMBEDDED[profile_index].0);
            let answers: Vec<_> = seq
                .into_iter()
                .map(|o| (o, BodyVerdict::Parsed(FeedHints::default())))
                .map(|(o, b)| match o {
                    FetchOutcome::Fetched(_) => (o, b),
                    other => (other, BodyVerdict::NotApplicable),
                })
                .collect();
            let mut state = FeedSchedule {
                interval_secs: p.schedule.default_interval,
                ..FeedSchedule::default()
            };
            let longest = p.backoff.max.max(p.schedule.max_interval) as i64;
            for (outcome, body) in &answers {
                let d = decide(&state, outcome, body, now(), &p);
                let wait = (d.next_fetch_at - now()).num_seconds();
                prop_assert!(wait >= p.schedule.min_interval as i64, "{wait} {}", d.reason);
                prop_assert!(wait <= longest, "{wait} {}", d.reason);
                prop_assert!(d.interval_secs >= p.schedule.min_interval);
                prop_assert!(d.interval_secs <= p.schedule.max_interval);
                if d.failure.is_some() {
                    // Never sooner than a success would have been.
                    let good = decide(&state, &not_modified(CacheHints::default()), &BodyVerdict::NotApplicable, now(), &p);
                    prop_assert!(d.next_fetch_at >= good.next_fetch_at, "{}", d.reason);
                }
                state.interval_secs = d.interval_secs;
                state.consecutive_failures = d.consecutive_failures;
                state.last_failure = d.failure;
            }
        }
    }
}
