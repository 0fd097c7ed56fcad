//! The virtual-time scheduler: the crawler's per-feed and per-host steps (crates/crawler
//! `refresh`, `robots`, `gate`), with the real policy deciding every wait.
//!
//! Each host keeps its own feeds in a min-heap by `next_fetch_at` and one time it wants to be
//! woken at. When a host wakes, its earliest due feed goes through the same steps as
//! `Crawler::refresh`:
//! 1. the host's Retry-After floor (C6): if in the future, [`postpone`], no request;
//! 2. robots.txt: re-read through the host gate (the profile's own gap) when
//!    [`needs_refetch`] says so (DFB7), then [`gate_for_feed`]; denied or deferred feeds are
//!    concluded with `FetchOutcome::Blocked`, no request;
//! 3. the host gate: one request in flight, [`host_gap`] from the end of the previous one;
//! 4. the request; no answer at all gets the one [`second_attempt`] (WFM5) after the host gap;
//! 5. [`decide`] at the answer's end, then [`host_floor`].
//!
//! Nothing one host does changes what another sees (the crawler's `host_concurrency` limit is
//! not modelled), so hosts are not interleaved in one global time order: each virtual day, a
//! shard works each host through the whole day, then the next host. The result is the same as
//! in one global order, and a host's feeds, heap and audit records stay in the cache while it
//! is worked, where a global order would fetch them from memory for nearly every request.
//!
//! [`gate_for_feed`] is a pure function of (status, body, path, profile): its answer is kept
//! per feed until the host's robots.txt answer changes, where the crawler would call it again
//! on every read with the same inputs.

use crate::audit::{self, Auditor};
use crate::report::{Counts, Outcome};
use crate::web::{FeedKind, FeedModel, Web};
use chrono::{DateTime, Utc};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};
use tidings_model::{FetchOutcome, Validators};
use tidings_policy::profile::FailureKind;
use tidings_policy::retry::second_attempt;
use tidings_policy::robots::{
    RobotsGate, StoredRobots, deferred_copy_is_due, gate_for_feed, host_gap, needs_refetch,
};
use tidings_policy::{
    BodyVerdict, Decision, FeedHints, FeedSchedule, Lifecycle, Profile, decide, first_fetch,
    host_floor, postpone,
};

const NONE: i64 = i64::MIN / 4;
const NEVER_WAKE: i64 = i64::MAX;
/// One `decide` call in this many is timed, to estimate its share of the run.
const TIME_EVERY: u64 = 64;

/// No validators held.
const NO_VALIDATORS: u64 = u64::MAX;
/// Validators the web did not send with a body version: kept whole in `Shard::odd`.
const ODD_VALIDATORS: u64 = u64::MAX - 1;

/// A feed as the crawler stores it, beside its model: one cache line, since every read of a
/// feed starts with a cache miss on it.
///
/// The stored validators (C4) are the strings the web sent with one body version; they are
/// kept as that version and written out again, byte for byte, for each read (see
/// [`Shard::load`]). Validators the policy asks to store that are not some version's (none
/// with this web) are kept whole beside.
#[repr(align(64))]
struct Feed {
    model: FeedModel,
    interval_secs: u64,
    /// The body version whose validators are held, or [`NO_VALIDATORS`], [`ODD_VALIDATORS`].
    validators: u64,
    /// The body version last seen (the content hash, C5); `u64::MAX`: none.
    content: u64,
    consecutive_failures: u32,
    /// The robots.txt answer the cached gate was computed from; `u32::MAX`: none.
    gate_epoch: u32,
    last_failure: Option<FailureKind>,
    gate: Gate,
    first_add: bool,
    off: bool,
}

const _: () = assert!(std::mem::size_of::<Feed>() == 64);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Gate {
    Allowed,
    Denied,
    Deferred,
}

/// A host as the crawler knows it.
struct HostState {
    id: u32,
    /// When the host wants to be woken next ([`NEVER_WAKE`]: no feed left).
    wake_at: i64,
    feeds: BinaryHeap<Reverse<(i64, u32)>>,
    last_end: i64,
    floor: i64,
    /// When robots.txt was last read (the end of the answer).
    robots_at: Option<DateTime<Utc>>,
    robots_status: Option<u16>,
    robots_body: Option<String>,
    robots_epoch: u32,
    crawl_delay: Option<Duration>,
}

/// One shard: some hosts with all their feeds.
pub struct Shard<'w> {
    web: &'w Web,
    profile: &'w Profile,
    shards: u32,
    /// The shortest gap any request to a host waits for: the profile's own.
    own_gap_ms: i64,
    end_ms: i64,
    feeds: Vec<Feed>,
    /// Validators held whole (for feeds whose `validators` is [`ODD_VALIDATORS`]).
    odd: HashMap<u32, Validators>,
    /// The schedule of the feed being worked, as the crawler would load it from its store.
    sched: FeedSchedule,
    hosts: Vec<HostState>,
    pub auditor: Auditor,
    pub counts: Counts,
    timed_decide: Duration,
    /// Time spent in `decide`, estimated from every `TIME_EVERY`th call.
    pub decide_estimate: Duration,
}

impl<'w> Shard<'w> {
    /// The shard of hosts `h` with `h % shards == index`.
    pub fn new(web: &'w Web, profile: &'w Profile, days: u32, index: u32, shards: u32) -> Self {
        let host_ids: Vec<u32> = (0..web.shape.hosts)
            .filter(|h| h % shards == index)
            .collect();
        // A host's feeds side by side in memory: a host is worked feed after feed.
        let mut by_host: Vec<(u32, u32)> = (0..web.shape.feeds)
            .map(|i| (web.feed_host(i), i))
            .filter(|(h, _)| h % shards == index)
            .collect();
        by_host.sort_unstable();
        let feed_ids: Vec<u32> = by_host.into_iter().map(|(_, i)| i).collect();
        let auditor = Auditor::new(profile, web, &host_ids, &feed_ids);
        let mut hosts: Vec<HostState> = host_ids
            .iter()
            .map(|&id| HostState {
                id,
                wake_at: NEVER_WAKE,
                feeds: BinaryHeap::new(),
                last_end: NONE,
                floor: NONE,
                robots_at: None,
                robots_status: None,
                robots_body: None,
                robots_epoch: 0,
                crawl_delay: None,
            })
            .collect();
        let mut feeds = Vec::with_capacity(feed_ids.len());
        for (local, &i) in feed_ids.iter().enumerate() {
            let model = web.feed(i);
            let first = first_fetch(web.at(i64::from(model.added_ms)), profile);
            let next_ms = web.ms(first.next_fetch_at);
            hosts[(model.host / shards) as usize]
                .feeds
                .push(Reverse((next_ms, local as u32)));
            feeds.push(Feed {
                model,
                interval_secs: first.interval_secs,
                validators: NO_VALIDATORS,
                content: u64::MAX,
                consecutive_failures: 0,
                gate_epoch: u32::MAX,
                last_failure: None,
                gate: Gate::Deferred,
                first_add: true,
                off: false,
            });
        }
        for h in &mut hosts {
            h.wake_at = h.feeds.peek().map_or(NEVER_WAKE, |Reverse((t, _))| *t);
        }
        Shard {
            web,
            profile,
            shards,
            own_gap_ms: gap_ms(host_gap(profile, None, false)),
            end_ms: i64::from(days) * crate::web::DAY_MS,
            feeds,
            odd: HashMap::new(),
            sched: FeedSchedule::default(),
            hosts,
            auditor,
            counts: Counts::default(),
            timed_decide: Duration::ZERO,
            decide_estimate: Duration::ZERO,
        }
    }

    /// Run to the end; `day_done(d)` is called as virtual day `d` (1-based) completes.
    pub fn run(&mut self, day_done: &dyn Fn(u32)) {
        let days = (self.end_ms / crate::web::DAY_MS) as u32;
        for day in 1..=days {
            let until = (i64::from(day) * crate::web::DAY_MS).min(self.end_ms);
            for h in 0..self.hosts.len() {
                let mut t = self.hosts[h].wake_at;
                while t < until {
                    t = self.wake(h, t).unwrap_or(NEVER_WAKE);
                }
                self.hosts[h].wake_at = t;
            }
            day_done(day);
        }
        self.decide_estimate = self.timed_decide * TIME_EVERY as u32;
    }

    /// Work host `h` at `t`; returns when it wants to be woken next.
    fn wake(&mut self, h: usize, t: i64) -> Option<i64> {
        let now = self.web.at(t);
        loop {
            let &Reverse((due, fi)) = self.hosts[h].feeds.peek()?;
            if due > t {
                return Some(due);
            }
            let fi = fi as usize;
            // 1. C6: the host asked everyone to wait.
            let floor = self.hosts[h].floor;
            if floor > t {
                self.load(fi);
                let d = postpone(&self.sched, self.web.at(floor), now);
                self.counts.postponed += 1;
                self.apply(h, fi, d, None);
                continue;
            }
            // 2. robots.txt, read through the host gate when stale (DFB7, FF11).
            let robots_at = self.hosts[h].robots_at;
            let stale = needs_refetch(robots_at, now, self.profile)
                || robots_at.is_some_and(|at| {
                    deferred_copy_is_due(self.hosts[h].robots_status, at, now, self.profile)
                });
            if stale {
                let start = self.hosts[h].last_end + gap_ms(host_gap(self.profile, None, false));
                if start > t {
                    return Some(start);
                }
                // Nothing is sent to the host before its gap has passed again.
                return Some(self.read_robots(h, t) + self.own_gap_ms);
            }
            let gate = self.gate(h, fi);
            if gate != Gate::Allowed {
                let outcome = FetchOutcome::Blocked {
                    reason: match gate {
                        Gate::Denied => "robots: disallowed".into(),
                        _ => "robots: deferred".into(),
                    },
                };
                match gate {
                    Gate::Denied => self.counts.robots_denied += 1,
                    _ => self.counts.robots_deferred += 1,
                }
                self.load(fi);
                let d = self.decide(&outcome, &BodyVerdict::NotApplicable, now);
                self.feeds[fi].first_add = false;
                self.apply(h, fi, d, None);
                continue;
            }
            // 3. the host gate.
            let first_add = self.feeds[fi].first_add;
            let gap = host_gap(self.profile, self.hosts[h].crawl_delay, first_add);
            let start = self.hosts[h].last_end + gap_ms(gap);
            if start > t {
                return Some(start);
            }
            // 4. the request, and the one second attempt after no answer (WFM5).
            let end = self.read_feed(h, fi, t);
            let next_due = self.hosts[h].feeds.peek()?.0.0;
            return Some(next_due.max(end + self.own_gap_ms));
        }
    }

    fn read_robots(&mut self, h: usize, t: i64) -> i64 {
        let host = self.hosts[h].id;
        let answer = self.web.robots(host, t);
        let end = t + answer.duration_ms;
        let request = audit::Request {
            host,
            feed: None,
            start: t,
            end,
            conditional: false,
            first_add: false,
        };
        self.auditor.request(self.web, &request);
        self.auditor.answer(
            &request,
            &audit::Answer {
                status: answer.status,
                retry_after: None,
                validators: false,
                accepted: false,
            },
        );
        self.counts.request(Outcome::Robots);
        let s = &mut self.hosts[h];
        if s.robots_at.is_none() || s.robots_status != answer.status || s.robots_body != answer.body
        {
            s.robots_epoch = s.robots_epoch.wrapping_add(1) % (u32::MAX - 1);
        }
        s.robots_at = Some(self.web.at(end));
        s.robots_status = answer.status;
        s.robots_body = answer.body;
        s.last_end = end;
        end
    }

    /// `gate_for_feed`, recomputed only when the host's robots.txt answer changed.
    fn gate(&mut self, h: usize, fi: usize) -> Gate {
        let host = &self.hosts[h];
        let feed = &self.feeds[fi];
        if feed.gate_epoch == host.robots_epoch {
            return feed.gate;
        }
        let stored = StoredRobots {
            fetched_at: host.robots_at.unwrap_or_else(|| self.web.at(0)),
            status: host.robots_status,
            body: Some(host.robots_body.as_deref().unwrap_or_default().as_bytes()),
        };
        let answer = gate_for_feed(&stored, &feed.model.path(), self.profile);
        self.counts.robots_gate_calls += 1;
        let gate = match answer.gate {
            RobotsGate::Allowed(_) => Gate::Allowed,
            RobotsGate::Denied(_) => Gate::Denied,
            RobotsGate::Deferred(_) => Gate::Deferred,
        };
        let epoch = host.robots_epoch;
        self.hosts[h].crawl_delay = answer.crawl_delay;
        let feed = &mut self.feeds[fi];
        feed.gate_epoch = epoch;
        feed.gate = gate;
        gate
    }

    fn read_feed(&mut self, h: usize, fi: usize, t: i64) -> i64 {
        let host = self.hosts[h].id;
        self.load(fi);
        let model = self.feeds[fi].model;
        let first_add = self.feeds[fi].first_add;
        // conditional::request_validators is the stored validators unchanged (C4): they are
        // sent by reference here.
        let sent = &self.sched.validators;
        let mut request = audit::Request {
            host,
            feed: Some(model.id),
            start: t,
            end: t,
            conditional: !sent.is_empty(),
            first_add,
        };
        let timeout = crate::web::TIMEOUT_MS;
        let mut answer = self.web.answer(&model, sent, t, 1, timeout);
        request.end = t + answer.duration_ms;
        self.auditor.request(self.web, &request);
        if let Some(patience) = second_attempt(&answer.outcome, 1, self.profile) {
            self.auditor
                .answer(&request, &observed(&answer.outcome, false));
            self.counts.request(Outcome::NoAnswer);
            self.counts.second_attempts += 1;
            // A new turn at the host: the gap follows the unanswered request too (C3).
            let gap = host_gap(self.profile, self.hosts[h].crawl_delay, first_add);
            let start = request.end + gap_ms(gap);
            answer = self.web.answer(
                &model,
                &self.sched.validators,
                start,
                2,
                timeout * i64::from(patience),
            );
            request.start = start;
            request.end = start + answer.duration_ms;
            self.auditor.request(self.web, &request);
        }
        let end = request.end;
        let verdict = match &answer.outcome {
            FetchOutcome::Fetched(_) if model.kind == FeedKind::NotAFeed => {
                BodyVerdict::Unparseable {
                    detail: "not a feed".into(),
                    html: false,
                }
            }
            FetchOutcome::Fetched(_) => {
                let same = self.feeds[fi].content == answer.version;
                self.feeds[fi].content = answer.version;
                // C5: the same bytes as last time (the content-hash path; feeds without
                // validators, or whose validators were not sent).
                if same {
                    BodyVerdict::Unchanged
                } else {
                    BodyVerdict::Parsed(FeedHints::default())
                }
            }
            _ => BodyVerdict::NotApplicable,
        };
        let accepted = matches!(verdict, BodyVerdict::Parsed(_) | BodyVerdict::Unchanged);
        self.auditor
            .answer(&request, &observed(&answer.outcome, accepted));
        let outcome = Outcome::of(&answer.outcome, &verdict);
        self.counts.request(outcome);
        if outcome == Outcome::Refused403 {
            self.counts
                .refused_403_on((request.start / crate::web::DAY_MS) as usize);
        }
        let end_at = self.web.at(end);
        let d = self.decide(&answer.outcome, &verdict, end_at);
        if let Some(until) = host_floor(&answer.outcome, end_at, self.profile) {
            self.hosts[h].floor = self.web.ms(until);
        }
        self.feeds[fi].first_add = false;
        self.hosts[h].last_end = end;
        let sent_back = match &answer.outcome {
            FetchOutcome::Fetched(f) => Some((&f.validators, answer.version)),
            FetchOutcome::NotModified { validators, .. } => Some((validators, answer.version)),
            _ => None,
        };
        self.apply(h, fi, d, sent_back);
        end
    }

    /// Load feed `fi`'s schedule into `self.sched`, validators written out in full.
    fn load(&mut self, fi: usize) {
        let f = &self.feeds[fi];
        let s = &mut self.sched;
        s.interval_secs = f.interval_secs;
        s.consecutive_failures = f.consecutive_failures;
        s.last_failure = f.last_failure;
        // Spreads jitter per feed, as the crawler's feed id does.
        s.seed = u64::from(f.model.id);
        match f.validators {
            NO_VALIDATORS => s.validators = Validators::default(),
            ODD_VALIDATORS => {
                s.validators = self.odd.get(&(fi as u32)).cloned().unwrap_or_default();
            }
            version => self
                .web
                .validators_into(&f.model, version, &mut s.validators),
        }
    }

    /// `decide` on the loaded schedule.
    fn decide(
        &mut self,
        outcome: &FetchOutcome,
        verdict: &BodyVerdict,
        now: DateTime<Utc>,
    ) -> Decision {
        self.counts.decide_calls += 1;
        if self.counts.decide_calls.is_multiple_of(TIME_EVERY) {
            let started = Instant::now();
            let d = decide(&self.sched, outcome, verdict, now, self.profile);
            self.timed_decide += started.elapsed();
            d
        } else {
            decide(&self.sched, outcome, verdict, now, self.profile)
        }
    }

    /// Store a decision: the feed's new state and its place in its host's heap (whose top it
    /// is). `sent_back`: the validators the answer carried, with its body version.
    fn apply(&mut self, h: usize, fi: usize, d: Decision, sent_back: Option<(&Validators, u64)>) {
        if let Some(v) = d.validators {
            let code = match sent_back {
                _ if v.is_empty() => NO_VALIDATORS,
                Some((sent, version)) if *sent == v && version < ODD_VALIDATORS => version,
                _ => ODD_VALIDATORS,
            };
            if code == ODD_VALIDATORS {
                self.odd.insert(fi as u32, v);
            } else if self.feeds[fi].validators == ODD_VALIDATORS {
                self.odd.remove(&(fi as u32));
            }
            self.feeds[fi].validators = code;
        }
        let f = &mut self.feeds[fi];
        f.interval_secs = d.interval_secs;
        f.consecutive_failures = d.consecutive_failures;
        // Failures in a row count per ladder: the policy reads what the last one was.
        f.last_failure = d.failure;
        let host = &mut self.hosts[h].feeds;
        if matches!(d.lifecycle, Lifecycle::Off | Lifecycle::Paused) {
            f.off = true;
            host.pop();
        } else if let Some(mut top) = host.peek_mut() {
            // One sift instead of a pop and a push.
            *top = Reverse((self.web.ms(d.next_fetch_at), fi as u32));
        }
    }

    /// Final feed states: (active, off, failing, never read successfully is not tracked).
    pub fn finals(&self) -> (u64, u64, u64) {
        let off = self.feeds.iter().filter(|f| f.off).count() as u64;
        let failing = self
            .feeds
            .iter()
            .filter(|f| !f.off && f.consecutive_failures > 0)
            .count() as u64;
        (self.feeds.len() as u64 - off, off, failing)
    }

    /// The host with the most requests: (global id, feeds, requests, shortest gap in ms).
    pub fn busiest(&self) -> Option<(u32, u64, u64, Option<i64>)> {
        let mut feeds_per_host = vec![0u64; self.hosts.len()];
        for f in &self.feeds {
            feeds_per_host[(f.model.host / self.shards) as usize] += 1;
        }
        self.hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let (requests, gap) = self.auditor.host_stats(h.id);
                (h.id, feeds_per_host[i], requests, gap)
            })
            .max_by_key(|&(id, _, requests, _)| (requests, Reverse(id)))
    }
}

/// What the auditor sees of an answer.
fn observed(outcome: &FetchOutcome, accepted: bool) -> audit::Answer {
    let (validators, retry_after) = match outcome {
        FetchOutcome::Fetched(f) => (!f.validators.is_empty(), None),
        FetchOutcome::NotModified { .. } => (true, None),
        _ => (false, outcome.retry_after()),
    };
    audit::Answer {
        status: outcome.status(),
        retry_after,
        validators,
        accepted,
    }
}

/// A gap in whole milliseconds, rounded up.
fn gap_ms(gap: Duration) -> i64 {
    i64::try_from(gap.as_nanos().div_ceil(1_000_000)).unwrap_or(i64::MAX / 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::WebShape;

    /// C4: every validator set the policy stores is one the web sent with a body version, so
    /// the compact form holds them all (none kept whole) and most feeds hold some.
    #[test]
    fn c4_stored_validators_are_a_body_versions() {
        let profile = Profile::embedded("default").unwrap();
        let web = Web::new(
            WebShape {
                feeds: 1_000,
                hosts: 100,
                seed: 5,
            },
            &profile.robots.token,
        );
        let mut shard = Shard::new(&web, &profile, 1, 0, 1);
        shard.run(&|_| {});
        assert!(shard.odd.is_empty());
        let held = shard
            .feeds
            .iter()
            .filter(|f| f.validators != NO_VALIDATORS)
            .count();
        assert!(held > 500, "{held}");
    }
}
