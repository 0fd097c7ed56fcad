//! Small simulations: zero violations and sane figures, in well under a second.

use super::*;
use tidings_policy::profile::OnRobotsFailure;

fn small(threads: u32) -> Config {
    Config {
        feeds: 2_000,
        hosts: 200,
        days: 2,
        seed: 7,
        threads,
    }
}

fn run(config: &Config, profile: &Profile) -> Report {
    simulate(config, profile, &|_| {}).unwrap()
}

fn default_profile() -> Profile {
    Profile::embedded("default").unwrap()
}

/// C3, C4, C6, WFM3, WFM9, DFB7, DFB8, FF11: the real policy, run against the whole mix,
/// gives the auditor nothing to count.
#[test]
fn c3_c4_c6_a_small_web_is_crawled_without_violation() {
    // With WFM5's second attempt on, so the mix has some to audit.
    let mut profile = default_profile();
    profile.retry.no_answer_patience = 2;
    let r = run(&small(2), &profile);
    assert_eq!(r.violations, Violations::default(), "{r:#?}");
    assert_eq!(r.violations_total, 0);
    // Sane figures: hourly reads of 2,000 feeds for two days, many answered 304.
    let feed_requests = r.requests - r.requests_by_outcome["robots_txt"];
    assert!(
        (60_000..=100_000).contains(&feed_requests),
        "{feed_requests}"
    );
    assert!(r.share_304 > 0.3 && r.share_304 < 0.95, "{}", r.share_304);
    for label in [
        "ok",
        "unchanged",
        "not_modified",
        "refused_403",
        "refused_429",
        "not_found",
        "gone",
        "server_error",
        "no_answer",
        "parse_error",
    ] {
        assert!(
            r.requests_by_outcome.contains_key(label),
            "no {label}: {r:#?}"
        );
    }
    assert!(r.second_attempts > 0);
    assert!(r.not_sent.denied_by_robots > 0);
    assert!(r.feeds_final.off > 0, "410 switches feeds off");
    assert_eq!(r.feeds_final.active + r.feeds_final.off, 2_000);
    // Every read ends in one decision: one per feed request that was not a second attempt,
    // and one per read that sent nothing.
    assert_eq!(
        r.reads,
        r.requests - r.requests_by_outcome["robots_txt"] - r.second_attempts
            + r.not_sent.denied_by_robots
            + r.not_sent.deferred_by_robots
            + r.not_sent.postponed_by_host_floor
            + r.not_sent.set_aside_by_crawl_delay
    );
}

/// C6: hosts answering 429/503 with Retry-After make their other feeds wait without a
/// request (postponed), and no request is sent before the floor (the auditor's counter,
/// proven to fire in `audit::tests`, stays at zero).
#[test]
fn c6_a_host_with_retry_after_is_never_asked_before_it() {
    let r = run(&small(1), &default_profile());
    assert!(r.requests_by_outcome["refused_429"] > 0);
    assert!(r.not_sent.postponed_by_host_floor > 0, "{r:#?}");
    assert_eq!(r.violations.before_retry_after, 0);
}

/// WFM6/SR5: a feed refused with 403 is asked less and less often.
#[test]
fn wfm6_a_refused_feeds_request_rate_falls() {
    let mut config = small(2);
    config.days = 3;
    let r = run(&config, &default_profile());
    let by_day = &r.refused_403_by_day;
    assert_eq!(by_day.len(), 3, "{by_day:?}");
    // The back-off doubles up to a day: fewer on day two, no more on day three.
    assert!(by_day[0] > 3 * by_day[1], "{by_day:?}");
    assert!(by_day[2] <= by_day[1], "{by_day:?}");
}

/// The result does not depend on how hosts are shared out among threads.
#[test]
fn threads_do_not_change_the_result() {
    let p = default_profile();
    let one = run(&small(1), &p);
    let two = run(&small(2), &p);
    assert_eq!(one.requests_by_outcome, two.requests_by_outcome);
    assert_eq!(
        one.not_sent.postponed_by_host_floor,
        two.not_sent.postponed_by_host_floor
    );
    assert_eq!(
        one.busiest_host.map(|b| b.host),
        two.busiest_host.map(|b| b.host)
    );
}

/// SR8, SR10: a profile that ignores the `*` group for feeds and allows on robots.txt 5xx
/// reads more feeds, still without violation (the auditor follows the profile).
#[test]
fn sr8_sr10_another_robots_profile_is_audited_by_its_own_settings() {
    let strict = run(&small(2), &default_profile());
    let mut p = default_profile();
    p.robots.star_group_for_feeds = false;
    p.robots.on_server_error = OnRobotsFailure::Allow;
    p.robots.crawl_delay = false;
    let lax = run(&small(2), &p);
    assert_eq!(lax.violations_total, 0, "{lax:#?}");
    assert!(lax.not_sent.denied_by_robots < strict.not_sent.denied_by_robots);
}

/// The busiest host is asked no faster than one request per gap plus answer time.
#[test]
fn c3_the_busiest_host_keeps_its_gap() {
    let r = run(&small(2), &default_profile());
    let b = r.busiest_host.unwrap();
    assert!(b.min_gap_secs.unwrap() >= 1.0, "{b:?}");
    assert!(b.requests_per_day <= 86_400.0, "{b:?}");
}

#[test]
fn an_empty_web_is_refused() {
    let mut c = small(1);
    c.hosts = 0;
    assert!(simulate(&c, &default_profile(), &|_| {}).is_err());
}

/// C3, C4, C6, DFB7, FF11, SR9, WFM3: every embedded profile (the default and the five bots)
/// reads the whole mix through the read machine with nothing for the auditor to count.
#[test]
fn c3_every_profile_simulates_without_violation() {
    for (name, _) in tidings_policy::profile::EMBEDDED {
        let profile = Profile::embedded(name).unwrap();
        let r = run(&small(2), &profile);
        assert_eq!(r.violations, Violations::default(), "{name}: {r:#?}");
        let feed_requests = r.requests - r.requests_by_outcome["robots_txt"];
        assert!(feed_requests > 2_000, "{name}: {feed_requests}");
        assert!(r.requests_by_outcome["robots_txt"] >= 200, "{name}");
    }
}
