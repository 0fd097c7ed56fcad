//! The auditor on hand-built recordings: for each rule, a run that breaks it and one that keeps
//! it. Times are whole or fractional seconds on all three clocks at once.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, SystemTime};

use tidings_sim::auditor::ROBOTS_PATH;
use tidings_sim::clock::SCENARIO_START_UNIX_SECS;
use tidings_sim::{
    Block, Exchange, Expectations, Header, PurposeCheck, Requested, RobotsRules, Rule, Stamp,
    TimeBase, audit,
};

const UA: &str = "tidings-test/1 (+http://tidings.example/bot)";

fn stamp(ms: u64) -> Stamp {
    let d = Duration::from_millis(ms);
    Stamp {
        mono: d,
        wall: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000) + d,
        sim: SystemTime::UNIX_EPOCH + Duration::from_secs(SCENARIO_START_UNIX_SECS) + d,
    }
}

/// A completed GET of `target` on `host` from `start` to `end` seconds, answered 200.
fn get(id: u64, host: &str, target: &str, start: f64, end: f64) -> Exchange {
    Exchange {
        id,
        host: host.into(),
        local: SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 8080),
        peer: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 40000 + id as u16),
        method: "GET".into(),
        target: target.into(),
        headers: vec![Header::new("user-agent", UA)],
        status: Some(200),
        response_headers: Vec::new(),
        body_bytes: 0,
        started: stamp((start * 1000.0) as u64),
        responded: Some(stamp((start * 1000.0) as u64)),
        ended: Some(stamp((end * 1000.0) as u64)),
        completed: true,
    }
}

trait Edit {
    fn header(self, name: &str, value: &str) -> Self;
    fn without(self, name: &str) -> Self;
    fn answer(self, status: u16, headers: &[(&str, &str)]) -> Self;
    fn open(self) -> Self;
    fn sim_at(self, secs: u64) -> Self;
}

impl Edit for Exchange {
    fn header(mut self, name: &str, value: &str) -> Exchange {
        self.headers.retain(|h| h.name != name);
        self.headers.push(Header::new(name, value));
        self
    }
    fn without(mut self, name: &str) -> Exchange {
        self.headers.retain(|h| h.name != name);
        self
    }
    fn answer(mut self, status: u16, headers: &[(&str, &str)]) -> Exchange {
        self.status = Some(status);
        self.response_headers = headers.iter().map(|(n, v)| Header::new(n, *v)).collect();
        self
    }
    /// Never ended (a silent server, the client still waiting).
    fn open(mut self) -> Exchange {
        self.ended = None;
        self.completed = false;
        self
    }
    /// Move only the scenario times (as under a manual clock that was advanced).
    fn sim_at(mut self, secs: u64) -> Exchange {
        let sim = stamp(secs * 1000).sim;
        self.started.sim = sim;
        if let Some(r) = self.responded.as_mut() {
            r.sim = sim;
        }
        if let Some(e) = self.ended.as_mut() {
            e.sim = sim;
        }
        self
    }
}

/// The rules broken, with the exchanges involved.
fn check(run: &[Exchange], expect: &Expectations) -> Vec<(Rule, Vec<u64>)> {
    audit(run, expect)
        .into_iter()
        .map(|v| (v.rule, v.exchanges))
        .collect()
}

fn gap(secs: u64) -> Expectations {
    Expectations {
        default_gap: Duration::from_secs(secs),
        ..Expectations::default()
    }
}

// C1

#[test]
fn c1_a_user_agent_changed_after_a_refusal_is_a_violation() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0).answer(403, &[]),
        get(1, "a.test", "/feed", 100.0, 101.0).header("user-agent", "Mozilla/5.0"),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::UserAgent, vec![1])]
    );
}

#[test]
fn c1_a_missing_user_agent_is_a_violation() {
    let run = [get(0, "a.test", "/feed", 0.0, 1.0).without("user-agent")];
    let expect = Expectations {
        user_agent: Some(UA.into()),
        ..Expectations::default()
    };
    assert_eq!(check(&run, &expect), [(Rule::UserAgent, vec![0])]);
}

#[test]
fn pf10_each_feed_keeps_its_own_user_agent_and_a_change_is_a_violation() {
    let count = |n: u32| {
        format!("PlainFeeder v1 (+http://plainfeeder.example/about ; Subscriber Count: {n})")
    };
    let expect = Expectations {
        user_agent: Some(b"PlainFeeder v1 ".to_vec()),
        user_agent_per_feed: true,
        ..Expectations::default()
    };
    let clean = [
        get(0, "a.test", ROBOTS_PATH, 0.0, 1.0).header("user-agent", &count(1)),
        get(1, "a.test", "/one", 10.0, 11.0).header("user-agent", &count(1)),
        get(2, "a.test", "/two", 20.0, 21.0).header("user-agent", &count(3)),
        get(3, "a.test", "/two", 30.0, 31.0)
            .header("user-agent", &count(3))
            .answer(403, &[]),
        get(4, "a.test", "/two", 40.0, 41.0).header("user-agent", &count(3)),
    ];
    assert_eq!(check(&clean, &expect), []);
    assert_eq!(
        check(&clean, &Expectations::default()),
        [
            (Rule::UserAgent, vec![2]),
            (Rule::UserAgent, vec![3]),
            (Rule::UserAgent, vec![4])
        ],
        "without PF10 one User-Agent holds for the run"
    );
    let changed = [
        get(0, "a.test", "/two", 0.0, 1.0)
            .header("user-agent", &count(3))
            .answer(403, &[]),
        get(1, "a.test", "/two", 10.0, 11.0).header("user-agent", &count(2)),
        get(2, "a.test", "/one", 20.0, 21.0).header("user-agent", "Mozilla/5.0"),
        get(3, "a.test", "/one", 30.0, 31.0).without("user-agent"),
    ];
    assert_eq!(
        check(&changed, &expect),
        [
            (Rule::UserAgent, vec![1]),
            (Rule::UserAgent, vec![2]),
            (Rule::UserAgent, vec![3])
        ]
    );
}

#[test]
fn c1_one_user_agent_on_every_host_is_clean() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0),
        get(1, "b.test", "/feed", 0.5, 1.5),
    ];
    let expect = Expectations {
        user_agent: Some(UA.into()),
        ..Expectations::default()
    };
    assert_eq!(check(&run, &expect), []);
}

// C3: in flight

#[test]
fn c3_two_in_flight_on_one_host_is_a_violation() {
    let run = [
        get(0, "a.test", "/one", 0.0, 2.0),
        get(1, "a.test", "/two", 1.0, 3.0),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::InFlight, vec![0, 1])]
    );
}

#[test]
fn c3_a_request_to_a_silent_host_stays_in_flight() {
    let run = [
        get(0, "a.test", "/silent", 0.0, 0.0).open(),
        get(1, "a.test", "/feed", 500.0, 501.0),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::InFlight, vec![0, 1])]
    );
}

#[test]
fn c3_a_long_request_overlapping_a_later_one_is_found_past_a_short_one() {
    let run = [
        get(0, "a.test", "/long", 0.0, 10.0),
        get(1, "a.test", "/short", 1.0, 2.0),
        get(2, "a.test", "/third", 5.0, 6.0),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::InFlight, vec![0, 1]), (Rule::InFlight, vec![0, 2])]
    );
}

#[test]
fn c3_one_after_the_other_and_in_parallel_on_two_hosts_is_clean() {
    let run = [
        get(0, "a.test", "/one", 0.0, 2.0),
        get(1, "b.test", "/one", 1.0, 3.0),
        get(2, "a.test", "/two", 2.0, 3.0),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

#[test]
fn c3_hosts_are_told_apart_by_name_not_address() {
    // Both hosts share 127.0.0.2 in `get`; they are still two hosts.
    let run = [
        get(0, "a.test", "/x", 0.0, 2.0),
        get(1, "b.test", "/x", 1.0, 3.0),
    ];
    assert_eq!(run[0].local, run[1].local);
    assert_eq!(check(&run, &Expectations::default()), []);
}

// C3: gap

#[test]
fn c3_requests_closer_than_the_gap_are_a_violation() {
    let run = [
        get(0, "a.test", "/one", 0.0, 1.0),
        get(1, "a.test", "/two", 2.5, 3.0),
    ];
    assert_eq!(check(&run, &gap(2)), [(Rule::Gap, vec![0, 1])]);
}

#[test]
fn c3_requests_spaced_by_the_gap_are_clean() {
    let run = [
        get(0, "a.test", "/one", 0.0, 1.0),
        get(1, "a.test", "/two", 3.0, 4.0),
        get(2, "b.test", "/one", 3.5, 4.0),
    ];
    assert_eq!(check(&run, &gap(2)), []);
}

#[test]
fn c3_a_host_gap_overrides_the_default() {
    let run = [
        get(0, "slow.test", "/one", 0.0, 1.0),
        get(1, "slow.test", "/two", 5.0, 6.0),
    ];
    let mut expect = gap(2);
    expect.gaps = HashMap::from([("slow.test".to_string(), Duration::from_secs(10))]);
    assert_eq!(check(&run, &expect), [(Rule::Gap, vec![0, 1])]);
}

#[test]
fn c3_the_gap_is_measured_on_the_chosen_clock() {
    // 1 s apart in real time, 600 s apart in scenario time.
    let run = [
        get(0, "a.test", "/one", 0.0, 0.5),
        get(1, "a.test", "/two", 1.5, 2.0).sim_at(600),
    ];
    assert_eq!(check(&run, &gap(60)), []);
    let mut real = gap(60);
    real.gap_clock = TimeBase::Monotonic;
    assert_eq!(check(&run, &real), [(Rule::Gap, vec![0, 1])]);
}

// C3: exchanges the client abandoned, whose end the web only notices

/// `e` as the client abandoned it after its answer's head: the web went on writing (into the
/// kernel's buffers, or noticing the hang-up) until `end` seconds.
fn cut_at(mut e: Exchange, end: f64) -> Exchange {
    e.ended = Some(stamp((end * 1000.0) as u64));
    e.completed = false;
    e
}

/// `e` got no answer; the web noticed the client hang up at `end` seconds.
fn hung_up_at(mut e: Exchange, end: f64) -> Exchange {
    e.status = None;
    e.responded = None;
    cut_at(e, end)
}

#[test]
fn c3_an_answer_the_client_stopped_reading_ends_for_it_at_the_head() {
    // The crawler read the head, found the body too large and left; the web wrote on until
    // 10 s. The next request at 5 s is 5 s after the head: clean under a 2 s gap...
    let run = [
        cut_at(get(0, "a.test", "/huge", 0.0, 0.0), 10.0),
        get(1, "a.test", "/next", 5.0, 5.5),
    ];
    assert_eq!(check(&run, &gap(2)), []);
    // ...but not under a 6 s one, and a request the client took in full still ends at its end.
    assert_eq!(check(&run, &gap(6)), [(Rule::Gap, vec![0, 1])]);
    let mut whole = run.clone();
    whole[0].completed = true;
    assert_eq!(check(&whole, &gap(2)), [(Rule::InFlight, vec![0, 1])]);
}

#[test]
fn c3_a_body_over_the_clients_cap_ends_for_it_at_the_head_though_taken_whole() {
    // The web wrote 2 MiB until 10 s and saw it taken; the client reads 1 MiB at most.
    let mut huge = get(0, "a.test", "/huge", 0.0, 10.0);
    huge.body_bytes = 2 << 20;
    let run = [huge, get(1, "a.test", "/next", 5.0, 5.5)];
    assert_eq!(check(&run, &gap(2)), [(Rule::InFlight, vec![0, 1])]);
    let capped = |cap| Expectations {
        body_cap: Some(cap),
        ..gap(2)
    };
    assert_eq!(check(&run, &capped(1 << 20)), []);
    assert_eq!(
        check(&run, &capped(2 << 20)),
        [(Rule::InFlight, vec![0, 1])],
        "a body within the cap was read to its end"
    );
}

#[test]
fn c3_a_hang_up_noticed_late_gets_only_the_allowance_for_noticing() {
    // No answer; the client hung up, the web noticed at 10 s; the next request came at 9.8 s.
    let run = [
        hung_up_at(get(0, "a.test", "/silent", 0.0, 0.0), 10.0),
        get(1, "a.test", "/silent", 9.8, 10.0),
    ];
    assert!(run[0].abandoned());
    assert_eq!(
        check(&run, &gap(0)),
        [(Rule::InFlight, vec![0, 1])],
        "strict by default"
    );
    let allow = |ms, secs| Expectations {
        hang_up_notice: Duration::from_millis(ms),
        ..gap(secs)
    };
    assert_eq!(check(&run, &allow(500, 0)), []);
    assert_eq!(check(&run, &allow(500, 1)), [(Rule::Gap, vec![0, 1])]);
    assert_eq!(check(&run, &allow(100, 0)), [(Rule::InFlight, vec![0, 1])]);
    // Never earlier than the request's arrival.
    let early = [
        hung_up_at(get(0, "a.test", "/silent", 9.0, 9.0), 10.0),
        get(1, "a.test", "/silent", 9.5, 10.0),
    ];
    assert_eq!(check(&early, &allow(5000, 1)), [(Rule::Gap, vec![0, 1])]);
}

#[test]
fn c3_the_allowance_is_real_time_read_on_the_scenario_clock_at_its_scale() {
    // Scenario time runs 600 times faster than real time: 10 ms real is 6 s of scenario.
    let at = |ms: f64| {
        let mut s = stamp(0);
        s.mono = Duration::from_secs_f64(ms / 1000.0);
        s.sim += Duration::from_secs_f64(ms * 0.6);
        s
    };
    let mut silent = hung_up_at(get(0, "a.test", "/silent", 0.0, 0.0), 0.0);
    (silent.started, silent.ended) = (at(0.0), Some(at(10.0)));
    let mut next = get(1, "a.test", "/next", 0.0, 0.0);
    (next.started, next.responded, next.ended) = (at(9.5), Some(at(9.6)), Some(at(9.7)));
    let run = [silent, next];
    let allow = |ms| Expectations {
        hang_up_notice: Duration::from_millis(ms),
        ..gap(1)
    };
    // 2 ms less: the end at 8 ms real, 4.8 s scenario; the next 0.9 s later.
    assert_eq!(check(&run, &allow(2)), [(Rule::Gap, vec![0, 1])]);
    // 3 ms less: 1.5 s.
    assert_eq!(check(&run, &allow(3)), []);
}

// C4: echo

const ETAG: &str = "W/\"v1-Ünïcode\"";
const LM: &str = "Sun, 01 Nov 2026 00:00:00 GMT";

fn offered() -> Exchange {
    get(0, "a.test", "/feed", 0.0, 1.0).answer(200, &[("etag", ETAG), ("last-modified", LM)])
}

#[test]
fn c4_an_etag_not_echoed_byte_for_byte_is_a_violation() {
    let run = [
        offered(),
        get(1, "a.test", "/feed", 10.0, 11.0)
            .header("if-none-match", "\"v1-Ünïcode\"")
            .header("if-modified-since", LM),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::ValidatorEcho, vec![0, 1])]
    );
}

#[test]
fn c4_a_reformatted_last_modified_is_a_violation() {
    let run = [
        offered(),
        get(1, "a.test", "/feed", 10.0, 11.0)
            .header("if-none-match", ETAG)
            .header("if-modified-since", "Sun, 1 Nov 2026 00:00:00 +0000"),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::ValidatorEcho, vec![0, 1])]
    );
}

#[test]
fn c4_a_validator_never_offered_is_a_violation() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0),
        get(1, "a.test", "/feed", 10.0, 11.0).header("if-none-match", "\"made-up\""),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::ValidatorEcho, vec![1])]
    );
}

#[test]
fn c4_validators_echoed_exactly_are_clean_and_a_304_may_renew_them() {
    let run = [
        offered(),
        get(1, "a.test", "/feed", 10.0, 11.0)
            .header("if-none-match", ETAG)
            .header("if-modified-since", LM)
            .answer(304, &[("etag", "\"v2\"")]),
        get(2, "a.test", "/feed", 20.0, 21.0)
            .header("if-none-match", "\"v2\"")
            .header("if-modified-since", LM),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

#[test]
fn c4_validators_of_a_response_cut_off_do_not_count() {
    let mut cut = offered();
    cut.completed = false;
    let run = [cut, get(1, "a.test", "/feed", 10.0, 11.0)];
    assert_eq!(check(&run, &Expectations::default()), []);
}

// C4: only the first fetch unconditional

#[test]
fn c4_an_unconditional_refetch_after_validators_is_a_violation() {
    let run = [offered(), get(1, "a.test", "/feed", 10.0, 11.0)];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::Unconditional, vec![0, 1])]
    );
}

#[test]
fn c4_refetches_without_validators_offered_and_robots_txt_may_be_unconditional() {
    let run = [
        get(0, "a.test", "/bare", 0.0, 1.0),
        get(1, "a.test", "/bare", 10.0, 11.0),
        get(2, "a.test", ROBOTS_PATH, 20.0, 21.0).answer(200, &[("etag", "\"r\"")]),
        get(3, "a.test", ROBOTS_PATH, 30.0, 31.0),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

#[test]
fn c4_validators_are_per_resource() {
    let run = [
        offered(),
        get(1, "a.test", "/other", 10.0, 11.0),
        get(2, "b.test", "/feed", 10.0, 11.0),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

#[test]
fn c4_per_peer_validators_when_asked() {
    let mut second = get(1, "a.test", "/feed", 10.0, 11.0);
    second.peer = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9)), 5000);
    let run = [offered(), second];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::Unconditional, vec![0, 1])]
    );
    let per_peer = Expectations {
        validators_per_peer: true,
        ..Expectations::default()
    };
    assert_eq!(check(&run, &per_peer), []);
}

// C6

#[test]
fn c6_a_request_before_retry_after_seconds_is_a_violation() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0).answer(429, &[("retry-after", "3600")]),
        get(1, "a.test", "/feed", 3599.0, 3600.0),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::RetryAfter, vec![0, 1])]
    );
}

#[test]
fn c6_a_request_before_a_retry_after_date_is_a_violation() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0)
            .answer(503, &[("retry-after", "Sun, 01 Nov 2026 02:00:00 GMT")]),
        get(1, "a.test", "/feed", 7000.0, 7001.0),
    ];
    assert_eq!(
        check(&run, &Expectations::default()),
        [(Rule::RetryAfter, vec![0, 1])]
    );
}

/// A web on a clock that follows real time writes its dates in real time, as a real server
/// does: the auditor then checks a Retry-After date on the wall clock (here 2027-01-15
/// 08:00:00 at the start), whatever the scenario clock says.
#[test]
fn c6_a_retry_after_date_in_real_time_is_checked_on_the_wall_clock() {
    let wall = Expectations {
        dates_on_wall: true,
        ..Expectations::default()
    };
    let early = [
        get(0, "a.test", "/feed", 0.0, 1.0)
            .answer(503, &[("retry-after", "Fri, 15 Jan 2027 10:00:00 GMT")]),
        get(1, "a.test", "/feed", 7000.0, 7001.0),
    ];
    assert_eq!(check(&early, &wall), [(Rule::RetryAfter, vec![0, 1])]);
    let waited = [
        get(0, "a.test", "/feed", 0.0, 1.0)
            .answer(503, &[("retry-after", "Fri, 15 Jan 2027 10:00:00 GMT")]),
        get(1, "a.test", "/feed", 7200.0, 7201.0),
    ];
    assert_eq!(check(&waited, &wall), []);
    // Read as a scenario instant (the scenario starts on 1 November 2026) the same date is
    // months ahead: the wait is then far too short.
    assert_eq!(
        check(&waited, &Expectations::default()),
        [(Rule::RetryAfter, vec![0, 1])]
    );
}

#[test]
fn c6_waiting_out_retry_after_in_either_form_is_clean() {
    let run = [
        get(0, "a.test", "/feed", 0.0, 1.0).answer(429, &[("retry-after", "3600")]),
        get(1, "a.test", "/feed", 3600.0, 3601.0)
            .answer(503, &[("retry-after", "Sun, 01 Nov 2026 03:00:00 GMT")]),
        get(2, "a.test", "/feed", 10800.0, 10801.0),
        // Another resource of the host is not held back by the auditor's C6.
        get(3, "a.test", "/other", 3700.0, 3701.0),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

#[test]
fn c6_retry_after_on_other_statuses_or_invalid_sets_no_floor() {
    let run = [
        get(0, "a.test", "/a", 0.0, 1.0).answer(200, &[("retry-after", "3600")]),
        get(1, "a.test", "/a", 10.0, 11.0),
        get(2, "a.test", "/b", 20.0, 21.0).answer(429, &[("retry-after", "soon")]),
        get(3, "a.test", "/b", 30.0, 31.0),
    ];
    assert_eq!(check(&run, &Expectations::default()), []);
}

// FF11: robots

fn robots_expect() -> Expectations {
    Expectations {
        robots: HashMap::from([(
            "a.test".to_string(),
            RobotsRules::disallow(&["/private"]).allow("/private/feed.xml"),
        )]),
        ..Expectations::default()
    }
}

#[test]
fn ff11_a_disallowed_url_is_a_violation() {
    let run = [get(0, "a.test", "/private/page?x=1", 0.0, 1.0)];
    assert_eq!(check(&run, &robots_expect()), [(Rule::Robots, vec![0])]);
}

#[test]
fn ff11_allowed_urls_robots_txt_and_other_hosts_are_clean() {
    let run = [
        get(0, "a.test", ROBOTS_PATH, 0.0, 1.0),
        get(1, "a.test", "/private/feed.xml", 2.0, 3.0),
        get(2, "b.test", "/private/page", 2.0, 3.0),
    ];
    assert_eq!(check(&run, &robots_expect()), []);
}

#[test]
fn ff11_a_request_before_robots_txt_is_a_violation_when_required() {
    let expect = Expectations {
        robots_first: vec!["a.test".into()],
        ..Expectations::default()
    };
    let early = [
        get(0, "a.test", "/feed", 0.0, 1.0),
        get(1, "a.test", ROBOTS_PATH, 2.0, 3.0),
    ];
    assert_eq!(check(&early, &expect), [(Rule::RobotsFirst, vec![0])]);
    let proper = [
        get(0, "a.test", ROBOTS_PATH, 0.0, 1.0),
        get(1, "a.test", "/feed", 2.0, 3.0),
    ];
    assert_eq!(check(&proper, &expect), []);
}

// FF13: do-not-crawl

fn blocks() -> Expectations {
    Expectations {
        blocked: vec![
            Block::Url {
                host: "a.test".into(),
                target: "/gone.xml".into(),
            },
            Block::Prefix {
                host: "a.test".into(),
                prefix: "/members/".into(),
            },
            Block::Host("blocked.test".into()),
        ],
        ..Expectations::default()
    }
}

#[test]
fn ff13_a_blocked_url_prefix_or_host_is_a_violation() {
    let run = [
        get(0, "a.test", "/gone.xml", 0.0, 1.0),
        get(1, "a.test", "/members/feed", 2.0, 3.0),
        get(2, "blocked.test", ROBOTS_PATH, 2.0, 3.0),
    ];
    assert_eq!(
        check(&run, &blocks()),
        [
            (Rule::Blocked, vec![0]),
            (Rule::Blocked, vec![1]),
            (Rule::Blocked, vec![2])
        ]
    );
}

#[test]
fn ff13_urls_next_to_blocked_ones_are_clean() {
    let run = [
        get(0, "a.test", "/gone.xml?page=2", 0.0, 1.0),
        get(1, "a.test", "/members", 2.0, 3.0),
        get(2, "b.test", "/gone.xml", 2.0, 3.0),
    ];
    assert_eq!(check(&run, &blocks()), []);
}

#[test]
fn every_rule_has_its_policy_id_and_violations_print_it() {
    let ids: Vec<&str> = [
        Rule::UserAgent,
        Rule::InFlight,
        Rule::Gap,
        Rule::ValidatorEcho,
        Rule::Unconditional,
        Rule::RetryAfter,
        Rule::Robots,
        Rule::RobotsFirst,
        Rule::Blocked,
    ]
    .iter()
    .map(|r| r.id())
    .collect();
    assert_eq!(
        ids,
        ["C1", "C3", "C3", "C4", "C4", "C6", "FF11", "FF11", "FF13"]
    );
    let run = [
        get(0, "a.test", "/one", 0.0, 2.0),
        get(1, "a.test", "/two", 1.0, 3.0),
    ];
    let v = audit(&run, &Expectations::default());
    assert!(
        v[0].to_string()
            .starts_with("C3 InFlight (exchanges [0, 1])"),
        "{}",
        v[0]
    );
}

/// The rules of a list of violations, in order.
fn rules_of(v: &[tidings_sim::Violation]) -> Vec<(Rule, Vec<u64>)> {
    v.iter().map(|v| (v.rule, v.exchanges.clone())).collect()
}

#[test]
fn wfm1_dfb1_pf13_only_robots_txt_and_the_subscribed_feeds_and_their_hops() {
    let run = vec![
        get(1, "a.test", ROBOTS_PATH, 0.0, 0.1),
        get(2, "a.test", "/feed.xml", 1.0, 1.1)
            .answer(301, &[("location", "http://b.test:8080/new.xml")]),
        get(3, "b.test", ROBOTS_PATH, 2.0, 2.1),
        get(4, "b.test", "/new.xml", 3.0, 3.1),
        get(5, "a.test", "/2026/12/story.html", 4.0, 4.1)
            .answer(200, &[("content-type", "text/html")]),
        get(6, "a.test", "/favicon.ico", 5.0, 5.1),
        get(7, "a.test", "/photo.jpg", 6.0, 6.1).answer(200, &[("content-type", "image/jpeg")]),
    ];
    let feeds_only = Expectations {
        purposes: Some(PurposeCheck {
            allowed: vec![Requested::Robots, Requested::Feed],
            feeds: vec![("a.test".into(), "/feed.xml".into())],
        }),
        ..Expectations::default()
    };
    assert_eq!(
        rules_of(&audit(&run, &feeds_only)),
        [
            (Rule::Purpose, vec![5]),
            (Rule::Purpose, vec![6]),
            (Rule::Purpose, vec![7])
        ]
    );
    // A profile that reads article pages and icons (SereneReader): only the image is too much.
    let reader = Expectations {
        purposes: Some(PurposeCheck {
            allowed: vec![
                Requested::Robots,
                Requested::Feed,
                Requested::Page,
                Requested::Icon,
            ],
            feeds: vec![("a.test".into(), "/feed.xml".into())],
        }),
        ..Expectations::default()
    };
    assert_eq!(rules_of(&audit(&run, &reader)), [(Rule::Purpose, vec![7])]);
    // Unchecked without expectations.
    assert!(audit(&run, &Expectations::default()).is_empty());
}

#[test]
fn ff15_files_for_ai_agents_are_never_requested() {
    let run = vec![
        get(1, "a.test", "/llms.txt", 0.0, 0.1),
        get(2, "a.test", "/AGENTS.md", 1.0, 1.1),
        get(3, "a.test", "/ai.txt?v=2", 2.0, 2.1),
        get(4, "a.test", "/docs/llms.txt", 3.0, 3.1),
    ];
    assert_eq!(
        rules_of(&audit(&run, &Expectations::default())),
        [
            (Rule::NeverRead, vec![1]),
            (Rule::NeverRead, vec![2]),
            (Rule::NeverRead, vec![3])
        ]
    );
}
