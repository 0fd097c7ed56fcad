//! The auditor: an independent check of every request the simulated crawler sends.
//!
//! It shares no code with the scheduler. It sees each request (host, feed, start, end, whether
//! it was conditional) and each answer (status, Retry-After, validators), knows from the
//! modelled web which robots.txt file was served, and applies the rules with its own logic:
//! - **C3** two requests in flight to one host ([`Kind::TwoInFlight`]); a gap from the end of
//!   one request to the start of the next shorter than the profile's gap, or the host's
//!   crawl-delay where the profile honours it (SR9, DFB4; capped, or in full where the profile
//!   pauses for a long one, FF11; [`Kind::GapTooShort`]);
//! - **C6** a request to a host before the floor a 429/503 Retry-After set
//!   ([`Kind::BeforeRetryAfter`]);
//! - **WFM9, SR8, DFB7, DFB8, FF11** a feed request the robots.txt last read disallows
//!   ([`Kind::RobotsDisallowed`]), a feed request before any robots.txt read
//!   ([`Kind::NoRobots`]) or with a copy older than the profile's `max_age` ([`Kind::StaleRobots`]);
//! - **C4** an unconditional request for a feed whose validators were received
//!   ([`Kind::Unconditional`]);
//! - **WFM3, DFB3** two reads of one feed closer than the profile's `min_interval`
//!   ([`Kind::TooFrequent`]).
//!
//! The one early second attempt after no answer (WFM5) is exempt from the interval check, once;
//! like every request it waits the host's gap after the unanswered first (C3).

use crate::web::{RobotsKind, Web};
use serde::Serialize;
use tidings_model::RetryAfter;
use tidings_policy::Profile;
use tidings_policy::profile::{LongCrawlDelay, OnRobotsFailure};

/// A kind of violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    TwoInFlight,
    GapTooShort,
    BeforeRetryAfter,
    RobotsDisallowed,
    NoRobots,
    StaleRobots,
    Unconditional,
    TooFrequent,
}

/// Violations found, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Violations {
    pub two_in_flight: u64,
    pub gap_too_short: u64,
    pub before_retry_after: u64,
    pub robots_disallowed: u64,
    pub no_robots: u64,
    pub stale_robots: u64,
    pub unconditional: u64,
    pub too_frequent: u64,
}

impl Violations {
    pub fn total(&self) -> u64 {
        self.two_in_flight
            + self.gap_too_short
            + self.before_retry_after
            + self.robots_disallowed
            + self.no_robots
            + self.stale_robots
            + self.unconditional
            + self.too_frequent
    }

    fn count(&mut self, kind: Kind) {
        let slot = match kind {
            Kind::TwoInFlight => &mut self.two_in_flight,
            Kind::GapTooShort => &mut self.gap_too_short,
            Kind::BeforeRetryAfter => &mut self.before_retry_after,
            Kind::RobotsDisallowed => &mut self.robots_disallowed,
            Kind::NoRobots => &mut self.no_robots,
            Kind::StaleRobots => &mut self.stale_robots,
            Kind::Unconditional => &mut self.unconditional,
            Kind::TooFrequent => &mut self.too_frequent,
        };
        *slot += 1;
    }

    pub fn add(&mut self, o: &Violations) {
        self.two_in_flight += o.two_in_flight;
        self.gap_too_short += o.gap_too_short;
        self.before_retry_after += o.before_retry_after;
        self.robots_disallowed += o.robots_disallowed;
        self.no_robots += o.no_robots;
        self.stale_robots += o.stale_robots;
        self.unconditional += o.unconditional;
        self.too_frequent += o.too_frequent;
    }
}

/// One request as sent. `host` and `feed` are the web's global ids.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub host: u32,
    /// `None` for robots.txt.
    pub feed: Option<u32>,
    pub start: i64,
    pub end: i64,
    /// Carried If-None-Match or If-Modified-Since.
    pub conditional: bool,
    /// The first read of a newly added feed.
    pub first_add: bool,
}

/// One answer as received.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    /// `None`: no answer at all.
    pub status: Option<u16>,
    pub retry_after: Option<RetryAfter>,
    /// The answer carried an ETag or Last-Modified.
    pub validators: bool,
    /// A 200 whose body was a feed (new or unchanged).
    pub accepted: bool,
}

#[derive(Debug, Clone, Copy)]
struct HostSeen {
    in_flight_until: i64,
    last_end: i64,
    floor: i64,
    /// The last robots.txt read: when, and what it was (status `None`: no answer).
    robots: Option<(i64, Option<u16>, RobotsKind)>,
    min_gap: i64,
    requests: u64,
}

/// What the auditor knows of a feed. Kept packed in one word ([`FeedSeen::pack`]), a word of
/// zeros being a feed never requested: the slots of a shard are kept by global feed id, and
/// those of the other shards' feeds are then never written (pages the system hands out
/// zeroed and never maps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FeedSeen {
    last_start: i64,
    validators_held: bool,
    /// The last request got no answer: one second attempt may follow at once.
    awaiting_second: bool,
    /// The last request was that second attempt.
    was_second: bool,
}

/// The earliest start a packed [`FeedSeen`] holds, and the one a word of zeros reads as: long
/// enough before any request to count as never.
const SEEN_BASE: i64 = -(1 << 58);

impl FeedSeen {
    /// The start (from [`SEEN_BASE`], which any virtual time is after) above three flags.
    fn pack(self) -> u64 {
        let since = u64::try_from(self.last_start.saturating_sub(SEEN_BASE)).unwrap_or(0);
        since << 3
            | u64::from(self.validators_held)
            | u64::from(self.awaiting_second) << 1
            | u64::from(self.was_second) << 2
    }

    fn unpack(word: u64) -> FeedSeen {
        FeedSeen {
            last_start: SEEN_BASE + (word >> 3) as i64,
            validators_held: word & 1 != 0,
            awaiting_second: word & 2 != 0,
            was_second: word & 4 != 0,
        }
    }
}

const NEVER: i64 = i64::MIN / 4;

/// The rules' numbers, from the profile.
struct Limits {
    own_gap_ms: i64,
    crawl_delay: bool,
    crawl_delay_cap_ms: i64,
    /// FF11: a crawl-delay over the cap is waited in full (the work pauses), not capped.
    long_delay_pauses: bool,
    first_add_skips: bool,
    star_for_feeds: bool,
    on_server_error: OnRobotsFailure,
    on_unreachable: OnRobotsFailure,
    robots_max_age_ms: i64,
    min_interval_ms: i64,
    retry_after_max_ms: i64,
    /// The virtual epoch in ms since 1970.
    epoch_ms: i64,
}

/// The auditor of one shard of hosts.
pub struct Auditor {
    limits: Limits,
    hosts: Vec<HostSeen>,
    /// Packed [`FeedSeen`]s by global feed id.
    feeds: Vec<u64>,
    /// Global id → local index (`u32::MAX`: not audited here).
    host_index: Vec<u32>,
    pub violations: Violations,
}

impl Auditor {
    /// An auditor of the hosts and feeds named (global ids) of `web`.
    pub fn new(profile: &Profile, web: &Web, hosts: &[u32], feeds: &[u32]) -> Auditor {
        let r = &profile.robots;
        let mut host_index = vec![u32::MAX; web.hosts.len()];
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        // Feeds are kept by global id, those of other shards never touched: one lookup less
        // per request than an index.
        let slots = feeds.iter().max().map_or(0, |&f| f as usize + 1);
        let hosts = hosts.len();
        Auditor {
            limits: Limits {
                // The gap is a float of seconds; a millisecond of rounding is not a violation.
                own_gap_ms: (profile.pacing.host_gap * 1000.0).floor() as i64,
                crawl_delay: r.crawl_delay,
                crawl_delay_cap_ms: r.crawl_delay_cap as i64 * 1000,
                long_delay_pauses: r.long_crawl_delay == LongCrawlDelay::Pause,
                first_add_skips: r.first_add_skips_crawl_delay,
                star_for_feeds: r.star_group_for_feeds,
                on_server_error: r.on_server_error,
                on_unreachable: r.on_unreachable,
                robots_max_age_ms: r.max_age as i64 * 1000,
                min_interval_ms: profile.schedule.min_interval as i64 * 1000,
                retry_after_max_ms: profile.backoff.retry_after_max as i64 * 1000,
                epoch_ms: crate::web::epoch().timestamp_millis(),
            },
            hosts: vec![
                HostSeen {
                    in_flight_until: NEVER,
                    last_end: NEVER,
                    floor: NEVER,
                    robots: None,
                    min_gap: i64::MAX,
                    requests: 0,
                };
                hosts
            ],
            feeds: vec![0; slots],
            host_index,
            violations: Violations::default(),
        }
    }

    /// Check one request as it is sent.
    pub fn request(&mut self, web: &Web, r: &Request) {
        let hi = self.host_index[r.host as usize] as usize;
        let l = &self.limits;
        let host = self.hosts[hi];
        if r.start < host.in_flight_until {
            self.violations.count(Kind::TwoInFlight);
        }
        if r.start < host.floor {
            self.violations.count(Kind::BeforeRetryAfter);
        }
        if let Some(f) = r.feed {
            let fi = f as usize;
            let seen = FeedSeen::unpack(self.feeds[fi]);
            // The second attempt follows the unanswered first after the host's gap (C3).
            let turn = l.own_gap_ms.max(l.crawl_delay_cap_ms) + 1000;
            let second = seen.awaiting_second && r.start <= host.last_end + turn;
            // robots.txt: read, fresh enough, and allowing this path.
            match host.robots {
                None => self.violations.count(Kind::NoRobots),
                Some((at, status, kind)) => {
                    let slack = l.own_gap_ms.max(l.crawl_delay_cap_ms) + 1000;
                    if r.start - at > l.robots_max_age_ms + slack {
                        self.violations.count(Kind::StaleRobots);
                    }
                    if !self.robots_allow(status, kind, || web.feed(f).private) {
                        self.violations.count(Kind::RobotsDisallowed);
                    }
                }
            }
            if seen.validators_held && !r.conditional {
                self.violations.count(Kind::Unconditional);
            }
            if !second && r.start - seen.last_start < l.min_interval_ms {
                self.violations.count(Kind::TooFrequent);
            }
            self.feeds[fi] = FeedSeen {
                last_start: if second { seen.last_start } else { r.start },
                awaiting_second: false,
                was_second: second,
                ..seen
            }
            .pack();
        }
        if host.last_end != NEVER {
            let gap = r.start - host.last_end;
            {
                let needed = match (r.feed, host.robots) {
                    (Some(_), Some((_, Some(200), RobotsKind::CrawlDelay(s))))
                        if l.crawl_delay && !(r.first_add && l.first_add_skips) =>
                    {
                        let delay = i64::from(s) * 1000;
                        let asked = if l.long_delay_pauses {
                            delay
                        } else {
                            delay.min(l.crawl_delay_cap_ms)
                        };
                        l.own_gap_ms.max(asked)
                    }
                    _ => l.own_gap_ms,
                };
                if gap < needed {
                    self.violations.count(Kind::GapTooShort);
                }
                let h = &mut self.hosts[hi];
                h.min_gap = h.min_gap.min(gap);
            }
        }
        let h = &mut self.hosts[hi];
        h.in_flight_until = h.in_flight_until.max(r.end);
        h.last_end = h.last_end.max(r.end);
        h.requests += 1;
        if r.feed.is_none() {
            h.robots = Some((r.end, None, web.robots_kind(r.host, r.start)));
        }
    }

    /// Record the answer to the request last checked for this host (and feed).
    pub fn answer(&mut self, r: &Request, a: &Answer) {
        let hi = self.host_index[r.host as usize] as usize;
        let l = &self.limits;
        let h = &mut self.hosts[hi];
        if let (Some(429 | 503), Some(ra)) = (a.status, a.retry_after) {
            let latest = r.end + l.retry_after_max_ms;
            let floor = match ra {
                RetryAfter::Seconds(s) => r.end.saturating_add((s as i64).saturating_mul(1000)),
                RetryAfter::At(at) => at.timestamp_millis() - l.epoch_ms,
            };
            h.floor = h.floor.max(floor.min(latest));
        }
        match r.feed {
            None => {
                if let Some((_, status, _)) = &mut h.robots {
                    *status = a.status;
                }
            }
            Some(f) => {
                let mut s = FeedSeen::unpack(self.feeds[f as usize]);
                s.awaiting_second = a.status.is_none() && !s.was_second;
                match a.status {
                    Some(304) => s.validators_held = true,
                    Some(200) if a.accepted => s.validators_held = a.validators,
                    _ => {}
                }
                self.feeds[f as usize] = s.pack();
            }
        }
    }

    fn robots_allow(
        &self,
        status: Option<u16>,
        kind: RobotsKind,
        private: impl Fn() -> bool,
    ) -> bool {
        let l = &self.limits;
        match status {
            None => l.on_unreachable == OnRobotsFailure::Allow,
            Some(429) | Some(500..) => l.on_server_error == OnRobotsFailure::Allow,
            Some(200..=299) => match kind {
                RobotsKind::OwnDisallowsPrivate => !private(),
                RobotsKind::StarDisallowsPrivate => !(l.star_for_feeds && private()),
                RobotsKind::DisallowAll => false,
                _ => true,
            },
            Some(_) => true,
        }
    }

    /// Requests to a host and the shortest gap between two of its turns (`None`: fewer than
    /// two requests).
    pub fn host_stats(&self, host: u32) -> (u64, Option<i64>) {
        let h = &self.hosts[self.host_index[host as usize] as usize];
        (h.requests, (h.min_gap != i64::MAX).then_some(h.min_gap))
    }
}

#[cfg(test)]
mod tests {
    //! Each counter fires when a deliberately broken scheduler misbehaves: hand-made request
    //! sequences against a one-host web, so the zero of a large run means something.
    use super::*;
    use crate::web::{Trouble, WebShape};

    const MIN: i64 = 60_000;

    /// A feed's record comes back from its word as it went in, a word of zeros being a feed
    /// never requested (whose next request is never too soon).
    #[test]
    fn c3_a_feeds_record_round_trips_through_its_word() {
        let never = FeedSeen::unpack(0);
        assert_eq!(
            never,
            FeedSeen {
                last_start: SEEN_BASE,
                validators_held: false,
                awaiting_second: false,
                was_second: false,
            }
        );
        assert!(
            0 - never.last_start > 100 * 365 * 86_400_000,
            "long before any start"
        );
        for last_start in [SEEN_BASE, 0, 1, 999, 7 * 86_400_000, 1 << 57] {
            for flags in 0..8u8 {
                let seen = FeedSeen {
                    last_start,
                    validators_held: flags & 1 != 0,
                    awaiting_second: flags & 2 != 0,
                    was_second: flags & 4 != 0,
                };
                assert_eq!(FeedSeen::unpack(seen.pack()), seen, "{seen:?}");
            }
        }
    }

    fn web(robots: RobotsKind) -> Web {
        let mut web = Web::new(
            WebShape {
                feeds: 200,
                hosts: 1,
                seed: 3,
            },
            "tidings",
        );
        web.hosts[0].robots = robots;
        web.hosts[0].robots_change_at = i64::MAX;
        web.hosts[0].trouble = Trouble::None;
        web
    }

    fn auditor(web: &Web) -> Auditor {
        let p = Profile::embedded("default").unwrap();
        let feeds: Vec<u32> = (0..web.shape.feeds).collect();
        Auditor::new(&p, web, &[0], &feeds)
    }

    fn robots(a: &mut Auditor, web: &Web, start: i64, status: u16) {
        let r = Request {
            host: 0,
            feed: None,
            start,
            end: start + 100,
            conditional: false,
            first_add: false,
        };
        a.request(web, &r);
        a.answer(&r, &answer(Some(status)));
    }

    fn feed(a: &mut Auditor, web: &Web, f: u32, start: i64, conditional: bool, got: Answer) {
        let r = Request {
            host: 0,
            feed: Some(f),
            start,
            end: start + 100,
            conditional,
            first_add: false,
        };
        a.request(web, &r);
        a.answer(&r, &got);
    }

    fn answer(status: Option<u16>) -> Answer {
        Answer {
            status,
            retry_after: None,
            validators: false,
            accepted: false,
        }
    }

    fn ok_with_validators() -> Answer {
        Answer {
            status: Some(200),
            retry_after: None,
            validators: true,
            accepted: true,
        }
    }

    fn public_feed(web: &Web) -> u32 {
        (0..web.shape.feeds)
            .find(|&f| !web.feed(f).private)
            .unwrap()
    }

    fn private_feed(web: &Web) -> u32 {
        (0..web.shape.feeds).find(|&f| web.feed(f).private).unwrap()
    }

    #[test]
    fn a_polite_sequence_has_no_violation() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        let f = public_feed(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, f, 1100, false, ok_with_validators());
        feed(&mut a, &w, f, 1100 + 15 * MIN, true, answer(Some(304)));
        assert_eq!(a.violations, Violations::default());
    }

    /// C3: a request sent while another is in flight to the same host.
    #[test]
    fn c3_two_in_flight_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, public_feed(&w), 50, false, answer(Some(200)));
        assert_eq!(a.violations.two_in_flight, 1);
    }

    /// C3: the next request less than the host gap after the end of the previous one.
    #[test]
    fn c3_gap_too_short_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, public_feed(&w), 600, false, answer(Some(200)));
        assert_eq!(a.violations.gap_too_short, 1);
        assert_eq!(a.violations.two_in_flight, 0);
    }

    /// SR9/DFB4: a crawl-delay the profile honours is the gap.
    #[test]
    fn sr9_crawl_delay_shorter_than_asked_is_counted() {
        let w = web(RobotsKind::CrawlDelay(10));
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, public_feed(&w), 5_100, false, answer(Some(200)));
        assert_eq!(a.violations.gap_too_short, 1);
        feed(
            &mut a,
            &w,
            private_feed(&w),
            15_300,
            false,
            answer(Some(200)),
        );
        assert_eq!(a.violations.gap_too_short, 1, "10 s after the end is fine");
    }

    /// FF11: where the profile pauses for a crawl-delay over its cap, the whole delay is the
    /// gap; where it caps, the cap is.
    #[test]
    fn ff11_a_long_crawl_delay_is_waited_in_full_where_the_profile_pauses() {
        let w = web(RobotsKind::CrawlDelay(120));
        for (profile, violations) in [("ffbot", 1), ("default", 0)] {
            let p = Profile::embedded(profile).unwrap();
            let feeds: Vec<u32> = (0..w.shape.feeds).collect();
            let mut a = Auditor::new(&p, &w, &[0], &feeds);
            robots(&mut a, &w, 0, 200);
            feed(
                &mut a,
                &w,
                public_feed(&w),
                200_000,
                false,
                answer(Some(200)),
            );
            // 61 s after the end of the last request: past the 60 s cap, short of 120 s.
            let next = 200_000 + 100 + 61_000;
            feed(&mut a, &w, private_feed(&w), next, false, answer(Some(200)));
            assert_eq!(a.violations.gap_too_short, violations, "{profile}");
        }
    }

    /// C6: a request to the host before the floor a 429's Retry-After set.
    #[test]
    fn c6_request_before_retry_after_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        let limited = Answer {
            status: Some(429),
            retry_after: Some(RetryAfter::Seconds(600)),
            ..answer(None)
        };
        feed(&mut a, &w, public_feed(&w), 1100, false, limited);
        // Another feed of the same host, 5 minutes later: still inside the floor.
        feed(
            &mut a,
            &w,
            private_feed(&w),
            1200 + 5 * MIN,
            false,
            answer(Some(200)),
        );
        assert_eq!(a.violations.before_retry_after, 1);
        feed(
            &mut a,
            &w,
            private_feed(&w),
            1200 + 11 * MIN,
            false,
            answer(Some(200)),
        );
        assert_eq!(
            a.violations.before_retry_after, 1,
            "after the floor is fine"
        );
    }

    /// C6: a Retry-After given as an HTTP-date on a 503 is a floor too.
    #[test]
    fn c6_retry_after_date_is_a_floor() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        let busy = Answer {
            status: Some(503),
            retry_after: Some(RetryAfter::At(w.at(3_600_000))),
            ..answer(None)
        };
        feed(&mut a, &w, public_feed(&w), 1100, false, busy);
        feed(
            &mut a,
            &w,
            private_feed(&w),
            3_000_000,
            false,
            answer(Some(200)),
        );
        assert_eq!(a.violations.before_retry_after, 1);
    }

    /// WFM9: a feed path the crawler's own group disallows.
    #[test]
    fn wfm9_robots_disallowed_request_is_counted() {
        let w = web(RobotsKind::OwnDisallowsPrivate);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, public_feed(&w), 1100, false, answer(Some(200)));
        assert_eq!(a.violations.robots_disallowed, 0);
        feed(&mut a, &w, private_feed(&w), 2200, false, answer(Some(200)));
        assert_eq!(a.violations.robots_disallowed, 1);
    }

    /// DFB8 (the default profile stays away when robots.txt answers 5xx).
    #[test]
    fn dfb8_request_after_robots_5xx_is_counted() {
        let w = web(RobotsKind::ServerError);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 503);
        feed(&mut a, &w, public_feed(&w), 1100, false, answer(Some(200)));
        assert_eq!(a.violations.robots_disallowed, 1);
    }

    /// FF11: a feed request before robots.txt was read.
    #[test]
    fn ff11_request_before_robots_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        feed(&mut a, &w, public_feed(&w), 0, false, answer(Some(200)));
        assert_eq!(a.violations.no_robots, 1);
    }

    /// DFB7: robots.txt not re-read within the profile's max_age.
    #[test]
    fn dfb7_stale_robots_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(
            &mut a,
            &w,
            public_feed(&w),
            26 * 60 * MIN,
            false,
            answer(Some(200)),
        );
        assert_eq!(a.violations.stale_robots, 1);
    }

    /// C4: an unconditional request once validators were received.
    #[test]
    fn c4_unconditional_request_with_validators_held_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        let f = public_feed(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, f, 1100, false, ok_with_validators());
        feed(&mut a, &w, f, 1100 + 60 * MIN, false, answer(Some(200)));
        assert_eq!(a.violations.unconditional, 1);
    }

    /// WFM3: a feed read again sooner than the profile's min_interval.
    #[test]
    fn wfm3_too_frequent_read_is_counted() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        let f = public_feed(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, f, 1100, false, answer(Some(500)));
        feed(&mut a, &w, f, 1100 + 5 * MIN, false, answer(Some(500)));
        assert_eq!(a.violations.too_frequent, 1);
    }

    /// WFM5: one second attempt after no answer is exempt from the interval, once; a third
    /// is not. C3: the second attempt waits the host's gap like any request.
    #[test]
    fn wfm5_one_second_attempt_is_exempt_and_only_one() {
        let w = web(RobotsKind::AllowAll);
        let mut a = auditor(&w);
        let f = public_feed(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, f, 1100, false, answer(None));
        feed(&mut a, &w, f, 1200 + 1000, false, answer(None));
        assert_eq!(a.violations, Violations::default());
        feed(&mut a, &w, f, 2300 + 1000, false, answer(None));
        assert_eq!(a.violations.too_frequent, 1);

        let mut a = auditor(&w);
        robots(&mut a, &w, 0, 200);
        feed(&mut a, &w, f, 1100, false, answer(None));
        feed(&mut a, &w, f, 1200, false, answer(None));
        assert_eq!(
            a.violations.gap_too_short, 1,
            "C3: no gap before the second attempt"
        );
    }
}
