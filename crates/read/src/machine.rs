//! The read of a feed: every step in its order, as states.

use crate::outcome::failure_text;
use crate::{
    Allowed, Answer, Body, Event, Examined, Found, Locator, Need, NotSent, Purpose, ReadOutcome,
    Request, RequestKind, ResourceOutcome, RobotsCopy, RobotsWhy, Sent, Verdict,
};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{FetchOutcome, Label, TransportError};
use tidings_policy::egress::{self, EgressRecord};
use tidings_policy::pages::{self, PageNext};
use tidings_policy::redirect::url_move;
use tidings_policy::retry::second_attempt;
use tidings_policy::robots::{RobotsGate, Scope, crawl_delay_pause, host_gap, pauses_for};
use tidings_policy::{
    BodyVerdict, Decision, FailureKind, FeedSchedule, Lifecycle, Profile, conditional, decide,
    hold_blocked, host_floor, postpone, set_aside, volume,
};

/// What the read knows of its feed when it starts, as stored.
#[derive(Debug, Clone)]
pub struct FeedState<L> {
    pub target: L,
    pub schedule: FeedSchedule,
    /// Why the feed was due (for the request log's rule).
    pub next_fetch_reason: String,
    /// The operator's egress address for this feed (WFM7); `None`: the default.
    pub egress: Option<String>,
    pub egress_refusals: EgressRecord,
    /// PF9: a permanent redirect under observation, and since when.
    pub pending_move: Option<(String, DateTime<Utc>)>,
    pub content_hash: Option<String>,
    /// The User-Agent of this read when it is the feed's own (PF10).
    pub user_agent: Option<String>,
    /// The directives in force on the feed (FF14), for a profile that obeys them.
    pub directives: tidings_rights::Directives,
}

/// What the read knows of a resource read for a feed (an article page, an icon, an image)
/// when it starts.
#[derive(Debug, Clone)]
pub struct ResourceState<L> {
    pub target: L,
    /// Why it is read, for the request log's rule ("preview of entry 12").
    pub why: String,
    /// Temporary failures in a row so far (SR4, SR6).
    pub retries: u32,
    /// The User-Agent of this read when it differs from the driver's own (PF10).
    pub user_agent: Option<String>,
}

/// What is read: a feed, or a resource read for one.
#[derive(Debug)]
enum Subject<'p, L> {
    Feed(&'p FeedState<L>),
    Resource(&'p ResourceState<L>),
}

impl<L> Clone for Subject<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Subject<'_, L> {}

impl<'p, L> Subject<'p, L> {
    fn target(self) -> &'p L {
        match self {
            Subject::Feed(f) => &f.target,
            Subject::Resource(r) => &r.target,
        }
    }

    fn user_agent(self) -> Option<String> {
        match self {
            Subject::Feed(f) => f.user_agent.clone(),
            Subject::Resource(r) => r.user_agent.clone(),
        }
    }
}

/// One read of one resource: a feed, or an article page, icon or image read for one. See the
/// crate docs for the order of its steps.
pub struct Read<'p, L: Locator> {
    profile: &'p Profile,
    subject: Subject<'p, L>,
    purpose: Purpose,
    /// What the driver is asked for now.
    pending: Pending,
    /// The URL the next request is for: the feed's, then each redirect hop's.
    target: L,
    hops: Vec<(u16, L, L)>,
    sent: Vec<Sent<L>>,
    /// Whether the rows of the resource's own requests are kept for the driver's request log
    /// (robots.txt rows always are: they are saved with the copy).
    log: bool,
    /// Requests made for the current URL (WFM5 allows a second after no answer).
    attempts: u32,
    /// What robots.txt said of the current URL.
    gate: Option<HopGate>,
    /// robots.txt being read for the current URL's origin.
    /// Boxed: most reads use a stored copy and never carry one.
    robots: Option<Box<RobotsRead<'p, L>>>,
    /// The request waiting for its answer and the rule that allowed it.
    in_flight: Option<(Request<'p, L>, Duration, Allowed<L>)>,
    /// The final answer.
    last: Option<FetchOutcome>,
    /// The final answer's row (`None`: nothing was sent for it, or no log is kept). Apart
    /// from the answer, so that the answer alone is moved.
    last_row: Option<Sent<L>>,
    /// A feed's outcome from its verdict on: boxed once, with the answer, its verdict and
    /// decision moved in there, and finished in place (moved to `outcome` once concluded).
    building: Option<Box<ReadOutcome<L>>>,
    /// A finished outcome's box the driver handed back, to hold this read's.
    reuse: Option<Box<ReadOutcome<L>>>,
    /// The start of the window new entries are counted over (C8).
    window_start: DateTime<Utc>,
    /// A Retry-After a robots.txt answer set for its host (C6).
    robots_floor: Option<(L::Host, DateTime<Utc>)>,
    /// Why the last request the read needed was not sent.
    not_sent: Option<NotSent>,
    /// Boxed: built once at the end, it is not carried through every state.
    outcome: Option<Box<ReadOutcome<L>>>,
    /// A resource read's outcome, built at its end.
    resource_outcome: Option<Box<ResourceOutcome<L>>>,
    /// The body waiting to be judged or examined (handed to the driver with the need).
    body: Option<Body>,
    /// A robots.txt copy read just now, waiting to be saved with its request rows.
    /// Boxed: most reads use a stored copy.
    saving: Option<Box<RobotsSaving<L>>>,
    /// The robots.txt copy of the final URL's origin, kept when the profile reads objections
    /// from it (DFB2).
    robots_copy: Option<Arc<RobotsCopy>>,
}

/// What robots.txt said of the current URL.
struct HopGate {
    gate: RobotsGate,
    crawl_delay: Option<Duration>,
    /// robots.txt was asked for just now and got no answer at all.
    unanswered: Option<TransportError>,
}

/// robots.txt of an origin being read, hop by hop.
struct RobotsRead<'p, L: Locator> {
    origin: L::Host,
    first: L,
    /// The request for the current hop.
    request: Request<'p, L>,
    why: RobotsWhy,
    /// The rule of the current hop's request.
    allowed: Allowed<L>,
    hops: Vec<Sent<L>>,
}

impl<L: Locator> RobotsRead<'_, L> {
    /// The rule of a request for the current hop: why the file is read, and the origin it
    /// was asked for when a redirect left it.
    fn allowed(&self) -> Allowed<L> {
        Allowed::Robots {
            why: self.why,
            redirected_from: (self.request.target.host() != self.origin)
                .then(|| self.origin.clone()),
        }
    }
}

/// A robots.txt copy read just now, to be saved before the read goes on.
struct RobotsSaving<L: Locator> {
    copy: Arc<RobotsCopy>,
    sent: Vec<Sent<L>>,
    unanswered: Option<TransportError>,
}

/// The need the driver is asked to meet. It names the step only: what the need hands over
/// lives in the read's fields, so a step changes it without dropping anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    FeedRules,
    Floor,
    HopRules,
    HopFloor,
    RobotsRules,
    RobotsAnswer,
    RobotsSave,
    Quiet,
    Answer,
    Judge,
    Examine,
    Counts,
    FeedAt,
    Done,
}

impl<'p, L: Locator> Read<'p, L> {
    /// A read of a feed, for `purpose` ([`Purpose::FirstAdd`] or [`Purpose::Scheduled`]).
    pub fn new(feed: &'p FeedState<L>, purpose: Purpose, profile: &'p Profile) -> Self {
        Self::of(Subject::Feed(feed), purpose, profile)
    }

    /// A read of a resource for a feed, for `purpose` (an article page, an icon, an image):
    /// the same steps as a feed's up to the answer, which ends in a [`ResourceOutcome`].
    pub fn resource(
        resource: &'p ResourceState<L>,
        purpose: Purpose,
        profile: &'p Profile,
    ) -> Self {
        Self::of(Subject::Resource(resource), purpose, profile)
    }

    fn of(subject: Subject<'p, L>, purpose: Purpose, profile: &'p Profile) -> Self {
        Read {
            profile,
            target: subject.target().clone(),
            subject,
            purpose,
            pending: Pending::FeedRules,
            hops: Vec::new(),
            sent: Vec::new(),
            log: true,
            attempts: 0,
            gate: None,
            robots: None,
            in_flight: None,
            last: None,
            last_row: None,
            building: None,
            reuse: None,
            window_start: DateTime::<Utc>::MIN_UTC,
            robots_floor: None,
            not_sent: None,
            outcome: None,
            resource_outcome: None,
            body: None,
            saving: None,
            robots_copy: None,
        }
    }

    /// A read whose driver keeps no request log of the resource's own requests (the
    /// simulation, which audits every request it answers): no row is built for them, and the
    /// outcome's `sent` holds none. Every step and decision is the same.
    pub fn without_log(mut self) -> Self {
        self.log = false;
        self
    }

    /// A read that builds its outcome in `spare`, the box of an outcome its driver is done
    /// with (whatever it holds is dropped then), instead of a new one: a driver that reads
    /// millions of feeds (the simulation) allocates none.
    pub fn reusing(mut self, spare: Option<Box<ReadOutcome<L>>>) -> Self {
        self.reuse = spare;
        self
    }

    /// The first need: whether a rule covers the feed.
    pub fn start(&mut self) -> Need<'_, L> {
        self.pending = Pending::FeedRules;
        self.need()
    }

    /// Take the driver's answer to the last need, at the driver's time `now`, and say what is
    /// needed next. An event that does not answer the last need is ignored (the same need is
    /// asked again).
    pub fn step(&mut self, event: Event, now: DateTime<Utc>) -> Need<'_, L> {
        let pending = self.pending;
        // Matched on the event first, which is then moved once, into its handler.
        self.pending = match event {
            Event::Rules(rule) => match pending {
                Pending::FeedRules => self.on_feed_rules(rule, now),
                Pending::HopRules => self.on_hop_rules(rule, now),
                Pending::RobotsRules => self.on_robots_rules(rule, now),
                pending => pending,
            },
            Event::HostState { floor, robots } => match pending {
                Pending::Floor => self.on_floor(floor, robots, now),
                Pending::HopFloor => self.on_hop_floor(floor, robots, now),
                pending => pending,
            },
            Event::Answer(answer) => match pending {
                Pending::RobotsAnswer => self.on_robots_answer(answer, now),
                Pending::Answer => self.on_answer(answer, now),
                pending => pending,
            },
            Event::Saved => match (pending, self.saving.take()) {
                (Pending::RobotsSave, Some(saving)) => {
                    self.gate_with(&saving.copy, saving.unanswered, now)
                }
                (pending, saving) => {
                    self.saving = saving;
                    pending
                }
            },
            Event::Quiet(quiet) => match pending {
                Pending::Quiet => self.on_quiet(quiet, now),
                pending => pending,
            },
            Event::Judged(verdict) => match pending {
                Pending::Judge => self.on_judged(*verdict, now),
                pending => pending,
            },
            Event::EntryCounts {
                unseen,
                first_seen_since,
            } => match pending {
                Pending::Counts => self.on_counts(unseen, first_seen_since, now),
                pending => pending,
            },
            Event::FeedAt { other_feed } => match pending {
                Pending::FeedAt => self.on_feed_at(other_feed),
                pending => pending,
            },
            Event::Examined(examined) => match pending {
                Pending::Examine => self.on_examined(*examined, now),
                pending => pending,
            },
        };
        self.need()
    }

    /// The outcome of a read whose need is [`Need::Done`]; `None` before (and once taken).
    /// Boxed as it was built, and taken by reference: a driver that reads millions of feeds
    /// (the simulation) copies neither it nor the read.
    pub fn finish(&mut self) -> Option<Box<ReadOutcome<L>>> {
        self.outcome.take()
    }

    /// The outcome of a resource read whose need is [`Need::Done`]; `None` before (and for a
    /// feed's read).
    pub fn finish_resource(&mut self) -> Option<Box<ResourceOutcome<L>>> {
        self.resource_outcome.take()
    }

    /// The need for what is pending, borrowing what it names (and handing over what the
    /// driver takes: the robots rows to save, the body to judge).
    fn need(&mut self) -> Need<'_, L> {
        match self.pending {
            Pending::FeedRules | Pending::HopRules => Need::Rules {
                target: &self.target,
            },
            Pending::Floor | Pending::HopFloor => Need::HostState {
                host: self.target.host(),
            },
            Pending::RobotsRules => match &self.robots {
                Some(robots) => Need::Rules {
                    target: &robots.request.target,
                },
                None => Need::Done,
            },
            Pending::RobotsAnswer => match &self.robots {
                Some(robots) => Need::Send {
                    request: &robots.request,
                    gap: host_gap(self.profile, None, false),
                    allowed: &robots.allowed,
                },
                None => Need::Done,
            },
            Pending::RobotsSave => match &mut self.saving {
                Some(saving) => Need::SaveRobots {
                    host: self.target.host(),
                    copy: &saving.copy,
                    sent: std::mem::take(&mut saving.sent),
                },
                None => Need::Done,
            },
            Pending::Quiet => Need::QuietFor {
                target: &self.target,
            },
            Pending::Answer => match &self.in_flight {
                Some((request, gap, allowed)) => Need::Send {
                    request,
                    gap: *gap,
                    allowed,
                },
                None => Need::Done,
            },
            Pending::Judge => Need::Judge {
                body: self.body.take().unwrap_or_else(|| Body {
                    bytes: Vec::new(),
                    content_type: None,
                }),
                base: &self.target,
                stored_hash: match self.subject {
                    Subject::Feed(feed) => feed.content_hash.as_deref(),
                    Subject::Resource(_) => None,
                },
            },
            Pending::Examine => Need::Examine {
                body: self.body.take().unwrap_or_else(|| Body {
                    bytes: Vec::new(),
                    content_type: None,
                }),
                base: &self.target,
                purpose: self.purpose,
            },
            Pending::Counts => Need::EntryCounts {
                ids: self
                    .building
                    .as_ref()
                    .and_then(|out| out.verdict.parsed.as_ref())
                    .map(|p| p.entries.iter().map(|e| e.identity.as_str()).collect())
                    .unwrap_or_default(),
                since: self.window_start,
            },
            Pending::FeedAt => match self.outcome.as_ref().and_then(|o| o.move_to.as_deref()) {
                Some(url) => Need::FeedAt { url },
                None => Need::Done,
            },
            Pending::Done => Need::Done,
        }
    }

    // --- before the first request -------------------------------------------------------

    fn on_feed_rules(&mut self, rule: Option<String>, now: DateTime<Utc>) -> Pending {
        // WFM1, DFB1, PF13: a resource of a kind the profile does not request is not requested,
        // whoever asks (feeds and robots.txt are every profile's).
        let requests = self.purpose.requests();
        if !self.profile.requests.allows(requests) {
            self.not_sent = Some(NotSent::Refused);
            let reason = format!(
                "profile {} does not request {} ([requests] purposes)",
                self.profile.name,
                requests.as_str()
            );
            return self.end_resource(FetchOutcome::Blocked { reason }, None, None, now);
        }
        // FF13, WFM10: a blocked feed sends nothing, not even robots.txt; it is paused with
        // the rule as its reason, not failed.
        match (rule, self.subject) {
            (Some(reason), Subject::Feed(feed)) => {
                let decision = hold_blocked(&feed.schedule, now, &reason);
                self.not_sent = Some(NotSent::Held);
                self.end_unsent(FetchOutcome::Blocked { reason }, decision)
            }
            (Some(reason), Subject::Resource(_)) => {
                self.not_sent = Some(NotSent::Held);
                self.end_resource(FetchOutcome::Blocked { reason }, None, None, now)
            }
            (None, _) => Pending::Floor,
        }
    }

    fn on_floor(
        &mut self,
        floor: Option<DateTime<Utc>>,
        robots: Option<Arc<RobotsCopy>>,
        now: DateTime<Utc>,
    ) -> Pending {
        // C6: the host asked everyone to wait; this feed waits too, without a request.
        match floor.filter(|until| *until > now) {
            Some(until) => match self.subject {
                Subject::Feed(feed) => {
                    let decision = postpone(&feed.schedule, until, now);
                    self.not_sent = Some(NotSent::HostFloor);
                    self.end_set_aside(decision)
                }
                Subject::Resource(_) => {
                    let reason = format!(
                        "C6: host Retry-After until {}",
                        until.format("%Y-%m-%d %H:%M:%S UTC")
                    );
                    self.resource_set_aside(NotSent::HostFloor, until, reason)
                }
            },
            None => self.on_robots_copy(robots, now),
        }
    }

    fn on_hop_rules(&mut self, rule: Option<String>, now: DateTime<Utc>) -> Pending {
        match rule {
            Some(reason) => self.not_sent(NotSent::Refused, reason, now),
            None => Pending::HopFloor,
        }
    }

    fn on_hop_floor(
        &mut self,
        floor: Option<DateTime<Utc>>,
        robots: Option<Arc<RobotsCopy>>,
        now: DateTime<Utc>,
    ) -> Pending {
        // C6 on every hop: a redirect into a host that asked everyone to wait waits too.
        match floor.filter(|until| *until > now) {
            Some(until) => {
                let reason = format!(
                    "redirect target {}: host Retry-After until {} (C6)",
                    self.target.host(),
                    until.format("%Y-%m-%d %H:%M:%S UTC")
                );
                self.set_aside_until(NotSent::HostFloor, until, reason, now)
            }
            None => self.on_robots_copy(robots, now),
        }
    }

    // --- robots.txt of the current URL's origin (FF11, DFB7) ----------------------------

    fn on_robots_copy(&mut self, copy: Option<Arc<RobotsCopy>>, now: DateTime<Utc>) -> Pending {
        let profile = self.profile;
        // SR7: the icon request made when a feed is first added does not read robots.txt,
        // under a profile that says so (its redirect hops neither: they are that request).
        if self.purpose == (Purpose::Icon { first_add: true })
            && profile.pages.first_add_icon_skips_robots
        {
            self.gate = Some(HopGate {
                gate: RobotsGate::Allowed(Arc::from(
                    "robots.txt not read: the icon request of a first add (SR7)",
                )),
                crawl_delay: None,
                unanswered: None,
            });
            return self.through_gate(now);
        }
        // When a copy is due again is worked out once per copy, with what it says.
        let why = match &copy {
            None => RobotsWhy::First,
            Some(copy) => {
                let renewal = copy.rules(profile).renewal();
                if renewal.is_stale(now) {
                    RobotsWhy::Stale
                } else if renewal.retry_is_due(now) {
                    RobotsWhy::AfterDeferring
                } else {
                    return self.gate_with(copy, None, now);
                }
            }
        };
        let first = self.target.robots_txt();
        let origin = self.target.host();
        self.robots = Some(Box::new(RobotsRead {
            allowed: Allowed::Robots {
                why,
                redirected_from: None,
            },
            origin,
            request: Request {
                target: first.clone(),
                kind: RequestKind::Robots,
                validators: &crate::NO_VALIDATORS,
                user_agent: self.subject.user_agent(),
                patience: 1,
                max_bytes: None,
                keep_prefix: false,
            },
            first,
            why,
            hops: Vec::new(),
        }));
        Pending::RobotsRules
    }

    fn on_robots_rules(&mut self, rule: Option<String>, now: DateTime<Utc>) -> Pending {
        match rule {
            // The file (or a hop of it) may not be requested, and without it no URL of its
            // origin is fetched (FF11).
            Some(reason) => self.robots_not_sent(reason, now),
            None => Pending::RobotsAnswer,
        }
    }

    fn on_robots_answer(&mut self, answer: Answer, now: DateTime<Utc>) -> Pending {
        let Some(mut robots) = self.robots.take() else {
            return Pending::Done;
        };
        if let FetchOutcome::Blocked { reason } = &answer.outcome {
            return self.robots_not_sent(reason.clone(), now);
        }
        let allowed = robots.allowed.clone();
        // Redirects are followed hop by hop (RFC 9309 allows five): each hop is checked,
        // waits for its own host's turn and is logged.
        if let FetchOutcome::Redirect {
            status,
            location: Some(location),
        } = &answer.outcome
            && let Some(next) = robots.request.target.follow(*status, location)
        {
            let seen = next == robots.first || robots.hops.iter().any(|h| h.target == next);
            if !seen && robots.hops.len() < usize::from(self.profile.fetch.max_redirects) {
                let from = std::mem::replace(&mut robots.request.target, next);
                robots.allowed = robots.allowed();
                robots.hops.push(sent(
                    &answer,
                    from,
                    RequestKind::Robots,
                    Label::Redirect,
                    allowed,
                ));
                self.robots = Some(robots);
                return Pending::RobotsRules;
            }
        }
        // C6: a Retry-After on robots.txt holds every request to its host, as on a feed.
        if let Some(until) = host_floor(&answer.outcome, now, self.profile) {
            self.robots_floor = later(
                self.robots_floor.take(),
                (robots.request.target.host(), until),
            );
        }
        let unanswered = match &answer.outcome {
            FetchOutcome::Transport(error) => Some(error.clone()),
            _ => None,
        };
        let body = match &answer.outcome {
            FetchOutcome::Fetched(f) => Some(String::from_utf8_lossy(&f.body).into_owned()),
            _ => None,
        };
        // A 2xx whose body could not be read is an answer, kept as its status without a
        // body (the profile's rule for an unreadable file applies), not as silence.
        let status = match &answer.outcome {
            FetchOutcome::TooLarge { .. } => Some(200),
            other => other.status(),
        };
        let copy = Arc::new(RobotsCopy::new(now, status, body));
        let label = answer.outcome.label();
        // Saved with the copy, not with the feed's read: the file serves every feed of its
        // origin.
        let mut rows = std::mem::take(&mut robots.hops);
        rows.push(sent(
            &answer,
            robots.request.target,
            RequestKind::Robots,
            label,
            allowed,
        ));
        self.saving = Some(Box::new(RobotsSaving {
            copy,
            sent: rows,
            unanswered,
        }));
        Pending::RobotsSave
    }

    /// What the copy says of the current URL, then the FF11 pause or the gate's verdict.
    fn gate_with(
        &mut self,
        copy: &Arc<RobotsCopy>,
        unanswered: Option<TransportError>,
        now: DateTime<Utc>,
    ) -> Pending {
        let scope = if self.purpose.is_feed() {
            Scope::Feed
        } else {
            Scope::Other
        };
        let answer = copy
            .rules(self.profile)
            .gate_for(self.target.path_and_query(), scope);
        if self.profile.keep.summary == tidings_policy::profile::SummaryKeep::Excerpt {
            self.robots_copy = Some(Arc::clone(copy));
        }
        let may_pause = answer
            .crawl_delay
            .is_some_and(|delay| pauses_for(self.profile, delay));
        self.gate = Some(HopGate {
            gate: answer.gate,
            crawl_delay: answer.crawl_delay,
            unanswered,
        });
        if self.hops.is_empty() && may_pause {
            // FF11: a crawl-delay longer than the request window sets the host's work aside
            // until it has passed (before a read's first request; a hop under way is paced by
            // the capped gap). Only then does how long the host has been quiet matter.
            Pending::Quiet
        } else {
            self.through_gate(now)
        }
    }

    fn on_quiet(&mut self, quiet: Option<Duration>, now: DateTime<Utc>) -> Pending {
        let crawl_delay = self.gate.as_ref().and_then(|g| g.crawl_delay);
        match crawl_delay_pause(self.profile, crawl_delay, quiet) {
            Some(rest) => {
                let until = now
                    .checked_add_signed(
                        chrono::Duration::from_std(rest).unwrap_or(chrono::Duration::MAX),
                    )
                    .unwrap_or(DateTime::<Utc>::MAX_UTC);
                let reason = format!(
                    "FF11 crawl-delay {}s is longer than the request window {}s: host set aside",
                    crawl_delay.map_or(0, |d| d.as_secs()),
                    self.profile.robots.crawl_delay_cap
                );
                self.set_aside_until(NotSent::CrawlDelay, until, reason, now)
            }
            None => self.through_gate(now),
        }
    }

    /// The gate's verdict on the current URL: its request, or the end of the read.
    fn through_gate(&mut self, now: DateTime<Utc>) -> Pending {
        let Some(gate) = self.gate.take() else {
            return Pending::Done;
        };
        let allowed_by = match gate.gate {
            RobotsGate::Allowed(reason) => reason,
            RobotsGate::Denied(reason) => {
                return self.robots_refused(NotSent::RobotsDenied, reason, gate.unanswered, now);
            }
            RobotsGate::Deferred(reason) => {
                return self.robots_refused(NotSent::RobotsDeferred, reason, gate.unanswered, now);
            }
        };
        let allowed = match self.hops.last() {
            None => match (self.purpose, self.subject) {
                (Purpose::FirstAdd, _) => Allowed::FirstAdd { robots: allowed_by },
                (_, Subject::Feed(feed)) => Allowed::Due {
                    reason: feed.next_fetch_reason.clone(),
                    robots: allowed_by,
                },
                (_, Subject::Resource(resource)) => Allowed::Resource {
                    why: resource.why.clone(),
                    robots: allowed_by,
                },
            },
            Some((_, from, _)) => Allowed::Redirect {
                from: from.clone(),
                robots: (from.host() != self.target.host()).then_some(allowed_by),
            },
        };
        let gap = host_gap(
            self.profile,
            gate.crawl_delay,
            self.purpose == Purpose::FirstAdd,
        );
        self.attempts = 1;
        let pages = &self.profile.pages;
        let (validators, max_bytes) = match self.subject {
            Subject::Feed(feed) => (
                conditional::request_validators(&feed.schedule.validators),
                None,
            ),
            Subject::Resource(_) => (
                &crate::NO_VALIDATORS,
                match self.purpose {
                    Purpose::ArticlePage => Some(pages.max_page_bytes),
                    Purpose::Icon { .. } => Some(pages.max_icon_bytes),
                    Purpose::Image => Some(self.profile.images.max_image_bytes),
                    // A feed is read whole (`fetch.max_body_bytes`); a page's head is
                    // inspected by the driver.
                    Purpose::Discovery { .. } | Purpose::FirstAdd | Purpose::Scheduled => None,
                },
            ),
        };
        self.in_flight = Some((
            Request {
                target: self.target.clone(),
                kind: RequestKind::Resource(self.purpose),
                validators,
                user_agent: self.subject.user_agent(),
                patience: 1,
                max_bytes,
                keep_prefix: self.purpose == Purpose::ArticlePage,
            },
            gap,
            allowed,
        ));
        Pending::Answer
    }

    // --- the request and its answer -----------------------------------------------------

    fn on_answer(&mut self, answer: Answer, now: DateTime<Utc>) -> Pending {
        let Some((request, gap, allowed)) = self.in_flight.take() else {
            return Pending::Done;
        };
        let kind = request.kind;
        // Refused before it left (a rule added while it waited for its turn, the address
        // guard): no request was sent, so no row.
        if let FetchOutcome::Blocked { reason } = answer.outcome {
            return self.not_sent(NotSent::Refused, reason, now);
        }
        // WFM5: no answer at all gets one more attempt at once, same URL, address and
        // User-Agent, with more time; nothing else is tried again early (WFM4).
        if let Some(patience) = second_attempt(&answer.outcome, self.attempts, self.profile) {
            self.attempts += 1;
            if self.log {
                self.sent.push(sent(
                    &answer,
                    self.target.clone(),
                    kind,
                    answer.outcome.label(),
                    allowed,
                ));
            }
            self.in_flight = Some((
                Request {
                    patience,
                    ..request
                },
                gap,
                Allowed::SecondAttempt,
            ));
            return Pending::Answer;
        }
        if let FetchOutcome::Redirect {
            status,
            location: Some(location),
        } = &answer.outcome
            && let Some(next) = self.target.follow(*status, location)
        {
            let seen =
                next == *self.subject.target() || self.hops.iter().any(|(_, _, to)| *to == next);
            if !seen && self.hops.len() < usize::from(self.profile.fetch.max_redirects) {
                let status = *status;
                if self.log {
                    self.sent.push(sent(
                        &answer,
                        self.target.clone(),
                        kind,
                        Label::Redirect,
                        allowed,
                    ));
                }
                let from = std::mem::replace(&mut self.target, next.clone());
                self.hops.push((status, from, next));
                return Pending::HopRules;
            }
        }
        // Labelled as its answer for now; `conclude` names it once the body is judged.
        let label = answer.outcome.label();
        let row = self
            .log
            .then(|| sent(&answer, self.target.clone(), kind, label, allowed));
        let mut outcome = answer.outcome;
        // The body moves to the judge; the machine keeps no copy (one read's memory, C8).
        let body = match &mut outcome {
            FetchOutcome::Fetched(fetched) => Some(Body {
                bytes: std::mem::take(&mut fetched.body),
                content_type: fetched.content_type.clone(),
            }),
            _ => None,
        };
        if let Subject::Resource(_) = self.subject {
            return match body {
                Some(body) => {
                    self.last = Some(outcome);
                    self.last_row = row;
                    self.body = Some(body);
                    Pending::Examine
                }
                None => self.end_resource(outcome, row, None, now),
            };
        }
        self.last = Some(outcome);
        // Written only when there is one: a read without a log moves no empty row.
        if row.is_some() {
            self.last_row = row;
        }
        if body.is_some() {
            self.body = body;
            Pending::Judge
        } else {
            let error = self.last.as_ref().and_then(failure_text);
            self.on_judged(Verdict::none(error), now)
        }
    }

    fn on_judged(&mut self, verdict: Verdict, now: DateTime<Utc>) -> Pending {
        let Subject::Feed(feed) = self.subject else {
            return Pending::Done;
        };
        let Some(outcome) = self.last.take() else {
            return Pending::Done;
        };
        let decision = decide(&feed.schedule, &outcome, &verdict.body, now, self.profile);
        // Boxed once, here: a read's outcome is large, and a driver that reads millions of
        // feeds (the simulation) should not copy its parts from state to state.
        let mut out = match self.reuse.take() {
            // Set field by field: the old parts are dropped in place and nothing is built
            // beside the box (the pattern names every field: a new one is set here too).
            Some(mut out) => {
                let ReadOutcome {
                    not_sent,
                    outcome: kept_outcome,
                    final_target,
                    hops,
                    verdict: kept_verdict,
                    decision: kept_decision,
                    label,
                    sent,
                    egress_refusals,
                    pending_move,
                    move_to,
                    host_floor,
                    excerpts,
                    directives,
                } = &mut *out;
                *not_sent = self.not_sent;
                *kept_outcome = outcome;
                *final_target = self.target.clone();
                *hops = std::mem::take(&mut self.hops);
                *kept_verdict = verdict;
                *kept_decision = decision;
                *label = Label::Ok;
                *sent = std::mem::take(&mut self.sent);
                *egress_refusals = None;
                *pending_move = None;
                *move_to = None;
                *host_floor = None;
                *excerpts = None;
                *directives = None;
                out
            }
            None => Box::new(ReadOutcome {
                not_sent: self.not_sent,
                outcome,
                final_target: self.target.clone(),
                hops: std::mem::take(&mut self.hops),
                verdict,
                decision,
                label: Label::Ok,
                sent: std::mem::take(&mut self.sent),
                egress_refusals: None,
                pending_move: None,
                move_to: None,
                host_floor: None,
                excerpts: None,
                directives: None,
            }),
        };
        let ReadOutcome {
            outcome,
            verdict,
            excerpts,
            ..
        } = &mut *out;
        if let Some(parsed) = verdict.parsed.as_deref_mut() {
            *excerpts = self.keep(parsed, outcome);
        }
        let has_entries = verdict
            .parsed
            .as_ref()
            .is_some_and(|p| !p.entries.is_empty());
        self.building = Some(out);
        if has_entries {
            // C8: new entries are counted over the window that ends now.
            self.window_start = volume::window_start(now);
            Pending::Counts
        } else {
            self.conclude(now)
        }
    }

    /// DFB2, FF14: remove from the parsed feed what the profile does not keep, with the
    /// publisher's objections (robots.txt groups of AI crawlers for the feed's path, a
    /// `tdm-reservation` header) and, for a profile that obeys them, the response's
    /// `X-Robots-Tag` directives for its token.
    fn keep(
        &self,
        parsed: &mut tidings_model::ParsedFeed,
        outcome: &FetchOutcome,
    ) -> Option<tidings_rights::Ruling> {
        let profile = self.profile;
        let headers = match outcome {
            FetchOutcome::Fetched(f) => f.rights.as_deref(),
            _ => None,
        };
        let directives = self.directives_of(headers);
        let excerpts = self.keep_parts(parsed, headers, &directives);
        // FF7, FF8: one thumbnail per entry with its licence decision, recomputed on every
        // full read; never for a profile that keeps no images (DFB2).
        if profile.rights.thumbnails {
            let feed_url = url::Url::parse(&self.target.to_string()).ok();
            tidings_rights::thumbnail::select(
                parsed,
                feed_url.as_ref(),
                &profile.rights,
                &profile.keep,
            );
        }
        excerpts
    }

    /// [`Self::keep`]'s removals: what the profile does not keep, under the publisher's
    /// objections and directives.
    fn keep_parts(
        &self,
        parsed: &mut tidings_model::ParsedFeed,
        headers: Option<&tidings_model::RightsHeaders>,
        directives: &tidings_rights::Directives,
    ) -> Option<tidings_rights::Ruling> {
        use tidings_rights::objection;
        let profile = self.profile;
        if profile.keep.keeps_everything() && directives.is_empty() {
            return None;
        }
        let excerpts = profile.keep.summary == tidings_policy::profile::SummaryKeep::Excerpt;
        // The feed's origin's robots.txt, read for AI crawler groups (DFB2).
        let rules = self
            .robots_copy
            .as_ref()
            .filter(|_| excerpts)
            .and_then(|c| c.rules(profile).robots());
        let (tokens, _) = match rules {
            Some(_) => objection::ai_tokens(profile.rights.ai_crawlers.iter().map(String::as_str)),
            None => (Vec::new(), Vec::new()),
        };
        let mut objections = Vec::new();
        if let Some(robots) = rules {
            objections.extend(objection::in_robots(
                robots,
                &tokens,
                self.target.path_and_query(),
            ));
        }
        if let Some(h) = headers.filter(|_| excerpts) {
            objections.extend(objection::in_header(
                h.tdm_reservation.iter().map(String::as_str),
            ));
        }
        // An entry whose own page the same file keeps AI crawlers from (an entry on the
        // feed's origin) keeps no excerpt either.
        let feed_origin = url::Url::parse(&self.target.to_string())
            .ok()
            .map(|u| u.origin());
        let entry_objection = |entry: &tidings_model::Entry| {
            let robots = rules?;
            let link = url::Url::parse(entry.link.as_deref()?).ok()?;
            if Some(link.origin()) != feed_origin {
                return None;
            }
            objection::in_robots(robots, &tokens, tidings_robots::path_and_query(&link))
        };
        tidings_rights::keep::apply_with(
            parsed,
            &profile.keep,
            &objections,
            &entry_objection,
            directives,
        )
        .excerpt
    }

    /// FF14: how this answer moves the feed's directives, for a profile that obeys them: a
    /// full response says what holds now, a 304 may only add.
    fn directive_change(
        &self,
        outcome: &FetchOutcome,
    ) -> Option<tidings_rights::directive::Change> {
        let profile = self.profile;
        if !profile.rights.directives {
            return None;
        }
        let (headers, full) = match outcome {
            FetchOutcome::Fetched(f) => (f.rights.as_deref(), true),
            FetchOutcome::NotModified { rights, .. } => (rights.as_deref(), false),
            _ => return None,
        };
        let Subject::Feed(feed) = self.subject else {
            return None;
        };
        tidings_rights::directive::change(feed.directives, self.directives_of(headers), full)
    }

    /// What an answer's `X-Robots-Tag` asks of this bot (FF14); none for a profile that does
    /// not obey them.
    fn directives_of(
        &self,
        headers: Option<&tidings_model::RightsHeaders>,
    ) -> tidings_rights::Directives {
        match headers {
            Some(h) if self.profile.rights.directives => tidings_rights::directive::from_headers(
                h.x_robots_tag.iter().map(String::as_str),
                &self.profile.robots.token,
            ),
            _ => tidings_rights::Directives::NONE,
        }
    }

    fn on_counts(&mut self, unseen: u64, first_seen_since: u64, now: DateTime<Utc>) -> Pending {
        // C8: a read whose new entries would pass `entries.max_new_per_day` keeps none of
        // them, and the feed is held for an operator.
        if let Some(reason) = volume::over_daily_bound(first_seen_since, unseen, self.profile)
            && let Some(out) = self.building.as_mut()
            && let Subject::Feed(feed) = self.subject
        {
            let verdict = &mut out.verdict;
            verdict.parsed = None;
            verdict.hash = None;
            verdict.error = Some(reason.clone());
            out.decision = volume::hold_for_volume(&feed.schedule, now, reason);
        }
        self.conclude(now)
    }

    fn on_feed_at(&mut self, other_feed: bool) -> Pending {
        if let Some(outcome) = self.outcome.as_mut()
            && other_feed
        {
            // Another feed already lives there: the two stay apart (an operator may merge).
            outcome.move_to = None;
        }
        Pending::Done
    }

    // --- the end ------------------------------------------------------------------------

    /// The final answer decided: its row, the egress record (WFM8), the URL move (PF9) and the
    /// host floor (C6).
    fn conclude(&mut self, now: DateTime<Utc>) -> Pending {
        let Subject::Feed(feed) = self.subject else {
            return Pending::Done;
        };
        let Some(mut out) = self.building.take() else {
            return Pending::Done;
        };
        let row = self.last_row.take();
        let ReadOutcome {
            outcome,
            verdict,
            decision,
            ..
        } = &mut *out;
        let label = match (&verdict.body, decision.failure) {
            (BodyVerdict::Unparseable { .. }, Some(FailureKind::Challenge)) => Label::Challenge,
            (BodyVerdict::Unparseable { .. }, _) => Label::ParseError,
            (BodyVerdict::Unchanged, _) => Label::Unchanged,
            _ => outcome.label(),
        };
        out.label = label;
        if let Some(mut row) = row {
            row.label = label;
            out.sent.push(row);
        }
        // WFM8: each address's latest answer; a read that got none changes nothing. Once
        // every address refused through the whole ladder, the feed is switched off.
        let answered = !matches!(
            out.outcome,
            FetchOutcome::Transport(_)
                | FetchOutcome::Blocked { .. }
                | FetchOutcome::CrawlerPaused { .. }
        );
        if answered {
            let decision = &mut out.decision;
            let egress_refusals = egress::after_answer(
                &feed.egress_refusals,
                feed.egress.as_deref(),
                egress::is_refusal(decision.failure),
            );
            let record = egress_refusals.as_ref().unwrap_or(&feed.egress_refusals);
            if let Some(why) = egress::refused_everywhere(
                record,
                decision.failure,
                decision.consecutive_failures,
                self.profile,
            ) {
                decision.lifecycle = Lifecycle::Off;
                decision.reason = format!("off: {why}").into();
                decision.lifecycle_reason = Some(why);
            }
            out.egress_refusals = egress_refusals;
        }
        // PF9: move the stored URL after permanent redirects, as the profile says.
        let read_ok =
            out.decision.failure.is_none() && !matches!(out.outcome, FetchOutcome::Blocked { .. });
        let hops: Vec<(u16, String)> = out
            .hops
            .iter()
            .map(|(status, _, to)| (*status, to.to_string()))
            .collect();
        let moved = url_move(
            feed.pending_move.as_ref(),
            &hops,
            read_ok,
            now,
            self.profile,
        );
        out.host_floor = match host_floor(&out.outcome, now, self.profile) {
            Some(until) => later(self.robots_floor.take(), (self.target.host(), until)),
            None => self.robots_floor.take(),
        };
        out.directives = self.directive_change(&out.outcome);
        out.pending_move = moved.pending;
        out.move_to = moved.move_to;
        let next = if out.move_to.is_some() {
            Pending::FeedAt
        } else {
            Pending::Done
        };
        self.outcome = Some(out);
        next
    }

    /// The current URL's request may not be sent (a rule, robots.txt, the address guard):
    /// the read is decided on that, with the requests sent before it.
    fn not_sent(&mut self, why: NotSent, reason: String, now: DateTime<Utc>) -> Pending {
        self.not_sent = Some(why);
        if let Subject::Resource(_) = self.subject {
            return self.end_resource(FetchOutcome::Blocked { reason }, None, None, now);
        }
        self.last = Some(FetchOutcome::Blocked { reason });
        self.last_row = None;
        let error = self.last.as_ref().and_then(failure_text);
        self.on_judged(Verdict::none(error), now)
    }

    /// robots.txt (or a hop of it) was not requested: say which request of the read could
    /// not go.
    fn robots_not_sent(&mut self, reason: String, now: DateTime<Utc>) -> Pending {
        self.robots = None;
        let reason = match self.hops.last() {
            None => format!("robots.txt not fetched: {reason}"),
            Some((_, from, _)) => {
                format!(
                    "redirect from {from} to {} not followed: {reason}",
                    self.target
                )
            }
        };
        self.not_sent(NotSent::Refused, reason, now)
    }

    /// robots.txt refuses or defers the current URL: not sent, and when robots.txt was asked
    /// just now and got no answer, the read ends as that host not answering.
    fn robots_refused(
        &mut self,
        why: NotSent,
        reason: Arc<str>,
        unanswered: Option<TransportError>,
        now: DateTime<Utc>,
    ) -> Pending {
        match unanswered {
            Some(error) => {
                self.not_sent = Some(why);
                self.robots_unanswered(error, &reason, now)
            }
            None => self.not_sent(why, reason.to_string(), now),
        }
    }

    /// The host did not answer the robots.txt request just made and the profile does not
    /// read the origin without it: the read ends as that host not answering, with what
    /// happened, not as a refusal by the file.
    fn robots_unanswered(
        &mut self,
        error: TransportError,
        gate_reason: &str,
        now: DateTime<Utc>,
    ) -> Pending {
        let text = format!(
            "robots.txt did not answer ({error}); the {} was not requested ({gate_reason})",
            match self.subject {
                Subject::Feed(_) => "feed",
                Subject::Resource(_) => self.purpose.as_str(),
            }
        );
        if let Subject::Resource(_) = self.subject {
            return self.end_resource(FetchOutcome::Transport(error), None, Some(text), now);
        }
        self.last = Some(FetchOutcome::Transport(error));
        self.last_row = None;
        self.on_judged(Verdict::none(Some(text)), now)
    }

    /// End without a request for the feed (held under a rule, or set aside).
    fn end_unsent(&mut self, outcome: FetchOutcome, decision: Decision) -> Pending {
        self.outcome = Some(Box::new(ReadOutcome {
            not_sent: self.not_sent,
            label: outcome.label(),
            verdict: Verdict::none(failure_text(&outcome)),
            outcome,
            final_target: self.target.clone(),
            hops: Vec::new(),
            decision,
            sent: std::mem::take(&mut self.sent),
            egress_refusals: None,
            pending_move: match self.subject {
                Subject::Feed(feed) => feed.pending_move.clone(),
                Subject::Resource(_) => None,
            },
            move_to: None,
            host_floor: self.robots_floor.take(),
            excerpts: None,
            directives: None,
        }));
        Pending::Done
    }

    /// End without the feed's request: its host's work is set aside (C6, FF11). Not a read:
    /// the store keeps what the last read said.
    fn end_set_aside(&mut self, decision: Decision) -> Pending {
        let outcome = FetchOutcome::Blocked {
            reason: decision.reason.to_string(),
        };
        self.end_unsent(outcome, decision);
        if let Some(outcome) = self.outcome.as_mut() {
            outcome.label = Label::Postponed;
            outcome.verdict = Verdict::none(None);
            outcome.hops = std::mem::take(&mut self.hops);
        }
        Pending::Done
    }
}

impl<'p, L: Locator> Read<'p, L> {
    // --- the end of a read that sent nothing for its resource now ----------------------

    /// The current URL's request waits: its host asked everyone to wait (C6) or its
    /// crawl-delay sets the host's work aside (FF11), until `until`.
    fn set_aside_until(
        &mut self,
        why: NotSent,
        until: DateTime<Utc>,
        reason: String,
        now: DateTime<Utc>,
    ) -> Pending {
        match self.subject {
            Subject::Feed(feed) => {
                let decision = set_aside(&feed.schedule, until, now, reason);
                self.not_sent = Some(why);
                self.end_set_aside(decision)
            }
            Subject::Resource(_) => self.resource_set_aside(why, until, reason),
        }
    }

    /// A resource read set aside until `until`: not a read (its retries stay as they were).
    fn resource_set_aside(
        &mut self,
        why: NotSent,
        until: DateTime<Utc>,
        reason: String,
    ) -> Pending {
        let retries = match self.subject {
            Subject::Resource(r) => r.retries,
            Subject::Feed(_) => 0,
        };
        self.not_sent = Some(why);
        self.resource_outcome = Some(Box::new(ResourceOutcome {
            purpose: self.purpose,
            not_sent: self.not_sent,
            outcome: FetchOutcome::Blocked {
                reason: reason.clone(),
            },
            final_target: self.target.clone(),
            found: None,
            error: None,
            next: PageNext::Hold { until, reason },
            retries,
            label: Label::Postponed,
            sent: std::mem::take(&mut self.sent),
            host_floor: self.robots_floor.take(),
        }));
        Pending::Done
    }

    // --- the end of a resource read --------------------------------------------------------

    /// The driver examined the body: what it held, or why it is not what was asked for (a
    /// permanent failure of that URL, SR4).
    fn on_examined(&mut self, examined: Examined, now: DateTime<Utc>) -> Pending {
        let Some(outcome) = self.last.take() else {
            return Pending::Done;
        };
        let row = self.last_row.take();
        match examined.usable {
            Ok(()) => self.close_resource(outcome, row, examined.found, None, PageNext::Done, now),
            Err(why) => {
                let next = pages::unusable(&why, now, &self.profile.pages);
                self.close_resource(outcome, row, None, Some(why), next, now)
            }
        }
    }

    /// The final answer to a resource request (or why none was sent), with nothing examined:
    /// what follows it (SR4, SR6).
    fn end_resource(
        &mut self,
        outcome: FetchOutcome,
        row: Option<Sent<L>>,
        error: Option<String>,
        now: DateTime<Utc>,
    ) -> Pending {
        let retries = match self.subject {
            Subject::Resource(r) => r.retries,
            Subject::Feed(_) => 0,
        };
        let pages = &self.profile.pages;
        let next = match self.not_sent {
            // robots.txt could not be read and the profile waits for it: a temporary failure.
            Some(NotSent::RobotsDeferred) => {
                pages::temporary("robots.txt deferred", retries, now, pages)
            }
            _ => pages::after_answer(&outcome, retries, now, pages),
        };
        let error = error.or_else(|| failure_text(&outcome));
        self.close_resource(outcome, row, None, error, next, now)
    }

    fn close_resource(
        &mut self,
        outcome: FetchOutcome,
        row: Option<Sent<L>>,
        found: Option<Found>,
        error: Option<String>,
        next: PageNext,
        now: DateTime<Utc>,
    ) -> Pending {
        let label = match (&outcome, &error) {
            (FetchOutcome::Fetched(_), Some(_)) => Label::ParseError,
            _ => outcome.label(),
        };
        if let Some(mut row) = row {
            row.label = label;
            self.sent.push(row);
        }
        let retries = match &next {
            PageNext::Retry { retries, .. } => *retries,
            PageNext::Done | PageNext::Hold { .. } => 0,
        };
        let floor = match host_floor(&outcome, now, self.profile) {
            Some(until) => later(self.robots_floor.take(), (self.target.host(), until)),
            None => self.robots_floor.take(),
        };
        self.resource_outcome = Some(Box::new(ResourceOutcome {
            purpose: self.purpose,
            not_sent: self.not_sent,
            outcome,
            final_target: self.target.clone(),
            found,
            error,
            next,
            retries,
            label,
            sent: std::mem::take(&mut self.sent),
            host_floor: floor,
        }));
        Pending::Done
    }
}

/// Of a floor already set and a new one, the later (one floor per read is stored).
fn later<H>(
    held: Option<(H, DateTime<Utc>)>,
    new: (H, DateTime<Utc>),
) -> Option<(H, DateTime<Utc>)> {
    match held {
        Some(held) if held.1 >= new.1 => Some(held),
        _ => Some(new),
    }
}

/// The request-log facts of one answered request.
fn sent<L: Locator>(
    answer: &Answer,
    target: L,
    kind: RequestKind,
    label: Label,
    allowed: Allowed<L>,
) -> Sent<L> {
    Sent {
        at: answer.started_at,
        target,
        kind,
        status: answer.outcome.status(),
        label,
        bytes: answer.bytes,
        duration: answer.duration,
        allowed,
        ticket: answer.ticket,
    }
}
