//! The virtual-time driver: each read of a feed is one run of the read machine
//! ([`tidings_read::Read`]), the same machine the crawler drives over HTTP, answered here
//! by the modelled web in virtual time.
//!
//! Each host keeps its own feeds in a min-heap by `next_fetch_at` and one time it wants to be
//! woken at. When a host wakes, its earliest due feed is read: the machine asks, in its own
//! order, for the rules (none in the model), the host's Retry-After floor (C6), the stored
//! robots.txt copy (read again through the host's turn when stale, DFB7, FF11), how long the
//! host has been quiet (the FF11 pause), each request in the host's turn with its gap (C3; a
//! wait for the turn moves the host's virtual clock), the judgement of a body (C5: the model
//! serves body versions, compared with the last seen), and ends in one outcome, applied here
//! as the crawler's store applies it.
//!
//! Nothing one host does changes what another sees (the crawler's `host_concurrency` limit is
//! not modelled), so hosts are not interleaved in one global time order: each virtual day, a
//! shard works each host through the whole day, then the next host. The result is the same as
//! in one global order, and a host's feeds, heap and audit records stay in the cache while it
//! is worked, where a global order would fetch them from memory for nearly every request.
//!
//! A robots.txt copy is kept per host in an [`Arc`], so the machine reads (parses) each copy
//! once for all the reads it serves.

use crate::audit::{self, Auditor};
use crate::report::{Counts, Outcome};
use crate::script::TraceRow;
use crate::target::Target;
use crate::web::{FeedKind, FeedModel, Web};
use chrono::{DateTime, Utc};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tidings_model::{FailureTotals, FetchOutcome, Fetched, TransportError, Validators};
use tidings_policy::egress::{DEFAULT_EGRESS, EgressRecord};
use tidings_policy::profile::FailureKind;
use tidings_policy::robots::host_gap;
use tidings_policy::{
    BodyVerdict, Decision, FeedHints, FeedSchedule, Lifecycle, Profile, first_fetch,
};
use tidings_read::{
    Answer, Ending, Event, FeedState, Need, NotSent, Purpose, Read, ReadOutcome, RequestKind,
    RobotsCopy, Verdict,
};

const NONE: i64 = i64::MIN / 4;
const NEVER_WAKE: i64 = i64::MAX;
/// One read in this many has its machine steps timed, to estimate their share of the run.
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
    last_failure: Option<FailureKind>,
    first_add: bool,
    off: bool,
    /// WFM8: whether the last answer from the (only, default) address was a refusal; `None`
    /// before any answer.
    egress_refused: Option<bool>,
    /// Whether `totals` holds failure totals for the feed (most feeds have none).
    has_totals: bool,
}

const _: () = assert!(std::mem::size_of::<Feed>() == 64);

/// A host as the crawler knows it.
struct HostState {
    id: u32,
    /// When the host wants to be woken next ([`NEVER_WAKE`]: no feed left).
    wake_at: i64,
    feeds: BinaryHeap<Reverse<(i64, u32)>>,
    /// When the host's last request ended ([`NONE`]: none yet).
    last_end: i64,
    /// Its Retry-After floor (C6; [`NONE`]: none).
    floor: i64,
    /// Its stored robots.txt, read once per copy by the machine.
    robots: Option<Arc<RobotsCopy>>,
}

/// A feed request sent and answered whose audit waits for the body's verdict.
struct Unjudged {
    request: audit::Request,
    answer: audit::Answer,
}

/// How a read ended, for the host's loop.
enum ReadEnd {
    /// Nothing was sent: the next due feed may go at once.
    Quiet,
    /// Requests were sent; the last ended then.
    Sent(i64),
    /// The read needed a request after the end of the run: it was left there.
    PastTheEnd,
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
    /// The failure totals of the feeds that have any (PF5), by feed index: most have none.
    totals: HashMap<u32, FailureTotals>,
    /// Validators of finished reads, whose strings the web's next answers are written into.
    spare: Vec<Validators>,
    /// The last read's outcome, whose box the next read's is built in.
    spare_outcome: Option<Box<ReadOutcome<Target>>>,
    /// The state of the feed being read, as the crawler would load it from its store (its
    /// strings reused from read to read).
    state: Option<Box<FeedState<Target>>>,
    hosts: Vec<HostState>,
    pub auditor: Auditor,
    pub counts: Counts,
    timed_steps: Duration,
    /// Time spent in the read machine's steps, estimated from every `TIME_EVERY`th read.
    pub machine_estimate: Duration,
    /// When set, every read's label and reason, in order (see [`crate::script`]).
    pub trace: Option<Vec<TraceRow>>,
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
        // Each host's heap is made at its size: it never grows after.
        let mut per_host = vec![0usize; host_ids.len()];
        for &(h, _) in &by_host {
            per_host[(h / shards) as usize] += 1;
        }
        let feed_ids: Vec<u32> = by_host.into_iter().map(|(_, i)| i).collect();
        let auditor = Auditor::new(profile, web, &host_ids, &feed_ids);
        let mut hosts: Vec<HostState> = host_ids
            .iter()
            .zip(per_host)
            .map(|(&id, feeds)| HostState {
                id,
                wake_at: NEVER_WAKE,
                feeds: BinaryHeap::with_capacity(feeds),
                last_end: NONE,
                floor: NONE,
                robots: None,
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
                last_failure: None,
                first_add: true,
                off: false,
                egress_refused: None,
                has_totals: false,
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
            totals: HashMap::new(),
            spare: Vec::new(),
            spare_outcome: None,
            state: Some(Box::new(FeedState {
                target: Target::feed(0, 0, false),
                schedule: FeedSchedule::default(),
                next_fetch_reason: String::new(),
                egress: None,
                egress_refusals: Default::default(),
                pending_move: None,
                content_hash: None,
                user_agent: None,
                directives: Default::default(),
            })),
            hosts,
            auditor,
            counts: Counts::default(),
            timed_steps: Duration::ZERO,
            machine_estimate: Duration::ZERO,
            trace: None,
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
        self.machine_estimate = self.timed_steps * TIME_EVERY as u32;
    }

    /// Work host `h` at `t`; returns when it wants to be woken next.
    fn wake(&mut self, h: usize, t: i64) -> Option<i64> {
        loop {
            let &Reverse((due, fi)) = self.hosts[h].feeds.peek()?;
            if due > t {
                return Some(due);
            }
            match self.read(h, fi as usize, t) {
                ReadEnd::Quiet => continue,
                // Nothing can be sent to the host before its own gap has passed again.
                ReadEnd::Sent(end) => {
                    let next_due = self.hosts[h].feeds.peek()?.0.0;
                    return Some(next_due.max(end + self.own_gap_ms));
                }
                ReadEnd::PastTheEnd => return None,
            }
        }
    }

    /// One read of feed `fi` of host `h`, due at `t`, driven through the read machine.
    fn read(&mut self, h: usize, fi: usize, t: i64) -> ReadEnd {
        let Some(mut state) = self.state.take() else {
            return ReadEnd::PastTheEnd;
        };
        self.load(fi, &mut state.schedule);
        load_egress(self.feeds[fi].egress_refused, &mut state.egress_refusals);
        let model = self.feeds[fi].model;
        let first_add = self.feeds[fi].first_add;
        state.target = Target::feed(model.host, model.id, model.private);
        let purpose = if first_add {
            Purpose::FirstAdd
        } else {
            Purpose::Scheduled
        };
        let profile = self.profile;
        let timed = self.counts.reads.is_multiple_of(TIME_EVERY);
        // The auditor records every request answered here: the machine builds no log rows.
        let mut read = Read::new(&state, purpose, profile)
            .without_log()
            .reusing(self.spare_outcome.take());
        let mut now = t;
        // `now` as the machine's time, converted again only when a request moves it.
        let mut now_at = self.web.at(now);
        let mut sent_any = false;
        let mut attempt = 0u64;
        let mut version = 0u64;
        let mut unjudged: Option<Unjudged> = None;
        let mut past_the_end = false;
        let mut need = read.start();
        loop {
            let event = match need {
                Need::Rules { .. } => Event::Rules(None),
                Need::HostState { .. } => {
                    let floor = self.hosts[h].floor;
                    Event::HostState {
                        floor: (floor != NONE).then(|| self.web.at(floor)),
                        robots: self.hosts[h].robots.clone(),
                    }
                }
                Need::QuietFor { .. } => {
                    let last = self.hosts[h].last_end;
                    Event::Quiet((last != NONE).then(|| ms_duration(now - last)))
                }
                Need::Send { request, gap, .. } => {
                    let last = self.hosts[h].last_end;
                    let start = if last == NONE {
                        now
                    } else {
                        now.max(last.saturating_add(gap_ms(gap)))
                    };
                    if start >= self.end_ms {
                        past_the_end = true;
                        break;
                    }
                    sent_any = true;
                    // Most requests start at once: their start is the time already converted.
                    let started_at = if start == now {
                        now_at
                    } else {
                        self.web.at(start)
                    };
                    // Each kind builds its event in place (the answer is large: not moved
                    // through a tuple first).
                    let end;
                    let event = match request.kind {
                        RequestKind::Robots => {
                            let outcome;
                            (outcome, end) = self.send_robots(h, start);
                            answered(outcome, started_at, end - start)
                        }
                        RequestKind::Resource(_) => {
                            attempt += 1;
                            if attempt == 2 {
                                self.counts.second_attempts += 1;
                            }
                            let timeout = crate::web::TIMEOUT_MS * i64::from(request.patience);
                            let held = self.feeds[fi].validators;
                            let answer = self.web.answer(
                                &model,
                                request.validators,
                                (held < ODD_VALIDATORS).then_some(held),
                                start,
                                attempt,
                                timeout,
                                self.spare.pop().unwrap_or_default(),
                            );
                            end = start + answer.duration_ms;
                            let r = audit::Request {
                                host: model.host,
                                feed: Some(model.id),
                                start,
                                end,
                                conditional: !request.validators.is_empty(),
                                first_add,
                            };
                            self.auditor.request(self.web, &r);
                            let seen = observed(&answer.outcome, false);
                            if matches!(answer.outcome, FetchOutcome::Transport(_)) {
                                // No answer: nothing to judge, audited at once.
                                self.auditor.answer(&r, &seen);
                                self.counts.request(Outcome::NoAnswer);
                            } else {
                                unjudged = Some(Unjudged {
                                    request: r,
                                    answer: seen,
                                });
                            }
                            version = answer.version;
                            answered(answer.outcome, started_at, answer.duration_ms)
                        }
                    };
                    self.hosts[h].last_end = end;
                    now = end;
                    now_at = self.web.at(now);
                    event
                }
                Need::SaveRobots { copy, .. } => {
                    self.hosts[h].robots = Some(Arc::clone(copy));
                    Event::Saved
                }
                Need::Judge { .. } => Event::Judged(Box::new(self.judge(fi, version))),
                // The model's bodies hold no entries; the machine does not ask.
                Need::EntryCounts { .. } => Event::EntryCounts {
                    unseen: 0,
                    first_seen_since: 0,
                },
                Need::FeedAt { .. } => Event::FeedAt { other_feed: true },
                // Only a resource read asks; the simulation reads feeds.
                Need::Examine { .. } => Event::Examined(Box::new(tidings_read::Examined {
                    usable: Err("no resource in the modelled web".into()),
                    found: None,
                })),
                Need::Done => break,
            };
            if timed {
                let started = Instant::now();
                need = read.step(event, now_at);
                self.timed_steps += started.elapsed();
            } else {
                need = read.step(event, now_at);
            }
        }
        let outcome = read.finish();
        self.state = Some(state);
        if past_the_end {
            return ReadEnd::PastTheEnd;
        }
        let Some(mut out) = outcome else {
            return ReadEnd::PastTheEnd;
        };
        self.counts.reads += 1;
        if let Some(trace) = &mut self.trace {
            trace.push(TraceRow::new(
                model.id,
                out.label,
                &out.decision.reason.to_string(),
            ));
        }
        if let Some(u) = unjudged {
            let accepted = matches!(
                out.verdict.body,
                BodyVerdict::Parsed(_) | BodyVerdict::Unchanged
            );
            self.auditor.answer(
                &u.request,
                &audit::Answer {
                    accepted,
                    ..u.answer
                },
            );
            let o = Outcome::of(&out.outcome, &out.verdict.body);
            self.counts.request(o);
            if o == Outcome::Refused403 {
                self.counts
                    .refused_403_on((u.request.start / crate::web::DAY_MS) as usize);
            }
        }
        match out.not_sent {
            Some(NotSent::HostFloor) => self.counts.postponed += 1,
            Some(NotSent::CrawlDelay) => self.counts.paused_by_crawl_delay += 1,
            Some(NotSent::RobotsDenied) => self.counts.robots_denied += 1,
            Some(NotSent::RobotsDeferred) => self.counts.robots_deferred += 1,
            Some(NotSent::Held | NotSent::Refused) | None => {}
        }
        if let Some((_, until)) = out.host_floor {
            self.hosts[h].floor = self.web.ms(until);
        }
        if out.ending() == Ending::Read {
            self.feeds[fi].first_add = false;
        }
        if let Some(record) = &out.egress_refusals {
            self.feeds[fi].egress_refused = record.get(DEFAULT_EGRESS).copied();
        }
        let sent_back = match &out.outcome {
            FetchOutcome::Fetched(f) => Some((&f.validators, version)),
            FetchOutcome::NotModified { validators, .. } => Some((validators, version)),
            _ => None,
        };
        self.apply(h, fi, &out.decision, sent_back);
        self.keep_spare(&mut out);
        self.spare_outcome = Some(out);
        if sent_any {
            ReadEnd::Sent(self.hosts[h].last_end)
        } else {
            ReadEnd::Quiet
        }
    }

    /// Keep the validators of a finished read for the next answers (a few are enough: a read
    /// holds at most two).
    fn keep_spare(&mut self, out: &mut ReadOutcome<Target>) {
        let answered = match &mut out.outcome {
            FetchOutcome::Fetched(f) => Some(std::mem::take(&mut f.validators)),
            FetchOutcome::NotModified { validators, .. } => Some(std::mem::take(validators)),
            _ => None,
        };
        for v in answered.into_iter().chain(out.decision.validators.take()) {
            if self.spare.len() < 4 {
                self.spare.push(v);
            }
        }
    }

    /// Send robots.txt of host `h` at `start`: the answer as the fetcher would classify it,
    /// and when it ended.
    fn send_robots(&mut self, h: usize, start: i64) -> (FetchOutcome, i64) {
        let host = self.hosts[h].id;
        let answer = self.web.robots(host, start);
        let end = start + answer.duration_ms;
        let request = audit::Request {
            host,
            feed: None,
            start,
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
        let outcome = match (answer.status, answer.body) {
            (None, _) => FetchOutcome::Transport(TransportError::Timeout),
            (Some(status @ 200..=299), body) => FetchOutcome::Fetched(Fetched {
                status,
                body: body.unwrap_or_default().into_bytes(),
                content_type: Some("text/plain".into()),
                validators: Validators::default(),
                cache: Default::default(),
                rights: None,
            }),
            (Some(404), _) => FetchOutcome::NotFound,
            (Some(status), _) => FetchOutcome::ServerError {
                status,
                retry_after: None,
            },
        };
        (outcome, end)
    }

    /// The body's verdict (C5): the model serves body versions; the same version as last time
    /// is the same bytes.
    fn judge(&mut self, fi: usize, version: u64) -> Verdict {
        let feed = &mut self.feeds[fi];
        if feed.model.kind == FeedKind::NotAFeed {
            return Verdict {
                body: BodyVerdict::Unparseable {
                    detail: "not a feed".into(),
                    html: false,
                },
                parsed: None,
                hash: None,
                error: Some("not a feed".into()),
            };
        }
        let same = feed.content == version;
        feed.content = version;
        Verdict {
            body: if same {
                BodyVerdict::Unchanged
            } else {
                BodyVerdict::Parsed(FeedHints::default())
            },
            parsed: None,
            hash: None,
            error: None,
        }
    }

    /// Load feed `fi`'s schedule into `s`, validators written out in full.
    fn load(&self, fi: usize, s: &mut FeedSchedule) {
        let f = &self.feeds[fi];
        s.interval_secs = f.interval_secs;
        s.consecutive_failures = f.consecutive_failures;
        s.last_failure = f.last_failure;
        s.failure_totals = if f.has_totals {
            self.totals.get(&(fi as u32)).copied().unwrap_or_default()
        } else {
            FailureTotals::default()
        };
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

    /// Store a decision: the feed's new state and its place in its host's heap (whose top it
    /// is). `sent_back`: the validators the answer carried, with its body version.
    fn apply(&mut self, h: usize, fi: usize, d: &Decision, sent_back: Option<(&Validators, u64)>) {
        if let Some(v) = &d.validators {
            let code = match sent_back {
                _ if v.is_empty() => NO_VALIDATORS,
                Some((sent, version)) if sent == v && version < ODD_VALIDATORS => version,
                _ => ODD_VALIDATORS,
            };
            if code == ODD_VALIDATORS {
                self.odd.insert(fi as u32, v.clone());
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
        if d.failure_totals.is_empty() {
            if std::mem::take(&mut f.has_totals) {
                self.totals.remove(&(fi as u32));
            }
        } else {
            f.has_totals = true;
            self.totals.insert(fi as u32, d.failure_totals);
        }
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

/// Load a feed's egress record (WFM8) into the reused state: the model reads every feed from
/// the default address only, so the record is that address's last answer, or empty.
fn load_egress(refused: Option<bool>, record: &mut EgressRecord) {
    match refused {
        None => record.clear(),
        Some(refused) => match record.get_mut(DEFAULT_EGRESS) {
            Some(kept) => *kept = refused,
            None => {
                record.clear();
                record.insert(DEFAULT_EGRESS.to_owned(), refused);
            }
        },
    }
}

/// The event of an answer that started at `started_at` and took `ms` virtual milliseconds.
fn answered(outcome: FetchOutcome, started_at: DateTime<Utc>, ms: i64) -> Event {
    Event::Answer(Answer {
        outcome,
        started_at,
        duration: ms_duration(ms),
        bytes: 0,
        // The modelled web keeps no request log to write ahead.
        ticket: None,
    })
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

/// A gap in whole milliseconds, rounded up (whole seconds are whole milliseconds: only the
/// fraction is rounded, without 128-bit division).
fn gap_ms(gap: Duration) -> i64 {
    let ms = gap
        .as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(gap.subsec_nanos().div_ceil(1_000_000)));
    i64::try_from(ms).unwrap_or(i64::MAX / 4).min(i64::MAX / 4)
}

/// Virtual ms (never negative) as a duration.
fn ms_duration(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::WebShape;

    /// A gap is counted in whole milliseconds, any fraction of one rounded up.
    #[test]
    fn c3_gaps_round_up_to_whole_milliseconds() {
        let cases = [
            (Duration::ZERO, 0),
            (Duration::from_nanos(1), 1),
            (Duration::from_millis(1), 1),
            (Duration::from_micros(1_001), 2),
            (Duration::from_secs(1), 1_000),
            (Duration::new(60, 999_999_999), 61_000),
            (Duration::new(60, 999_000_001), 61_000),
            (Duration::new(60, 999_000_000), 60_999),
            (Duration::MAX, i64::MAX / 4),
        ];
        for (gap, want) in cases {
            assert_eq!(gap_ms(gap), want, "{gap:?}");
        }
    }

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
