//! After an answer: when to read the feed next, and why.
//!
//! [`decide`] is the one function that turns (state, outcome, body verdict, now, profile) into a
//! [`Decision`]. Its rules, in order:
//! - A read spoiled by the crawler's own absence ([`FetchOutcome::CrawlerPaused`]) is set
//!   aside: no failure counted, read again after the profile's shortest interval.
//! - 410 switches the feed off.
//! - A success (200 with a feed, 304, unchanged body) resets the failure count and schedules the
//!   feed's interval: after a parsed body the interval is learned again from the feed (PF8's
//!   publishing rhythm, RSS `ttl`, `sy:updatePeriod`), `Cache-Control`/`Expires` may lengthen
//!   the wait (PF3), jitter spreads it, and `skipHours`/`skipDays` move it out of skipped hours.
//! - Anything else is a failure of some [`FailureKind`]. The profile's first ladder naming the
//!   kind gives the wait for the n-th failure in a row on that ladder (WFM6, SR5, DFB6, PF4–PF7)
//!   and may pause the feed (PF5–PF7); a kind no ladder names doubles from `backoff.first` up to
//!   `backoff.max`. A failure never waits less than the feed's interval, so a refusal never
//!   brings a read forward.
//! - Retry-After (C6) is a floor under whatever was decided, honoured in full up to the
//!   profile's `backoff.retry_after_max`; a longer one (a number too large to count included)
//!   pauses the feed with the reason, so the publisher is never asked earlier than it said.

use crate::conditional;
use crate::profile::{FailureKind, Ladder, PauseCount, Profile, StepUnit};
use chrono::{DateTime, Datelike, Duration, Timelike, Utc, Weekday};
use tidings_model::{CacheHints, Entry, FailureTotals, Feed, FetchOutcome, Validators};

/// The part of a feed's stored state that scheduling reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedSchedule {
    /// The current refresh interval (0: not known yet, the profile's default is used).
    pub interval_secs: u64,
    /// Failures in a row on the current ladder.
    pub consecutive_failures: u32,
    pub validators: Validators,
    /// What the last read's failure was, when it failed.
    pub last_failure: Option<FailureKind>,
    /// The failures of each kind since the feed was added or last resumed (PF5).
    pub failure_totals: FailureTotals,
    /// Spreads jitter per feed; the feed id does.
    pub seed: u64,
    /// An operator's fixed refresh interval in place of the learned one (still within the
    /// profile's bounds; cache headers, failures and Retry-After still lengthen the wait).
    pub fixed_interval_secs: Option<u64>,
}

/// What a feed says about its own rhythm (RSS `ttl`, `skipHours`, `skipDays`, `sy:*`) and
/// when its entries were published (PF8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedHints {
    pub ttl_minutes: Option<u32>,
    pub skip_hours: Vec<u8>,
    pub skip_days: Vec<Weekday>,
    /// `sy:updatePeriod` divided by `sy:updateFrequency`, in seconds.
    pub update_every_secs: Option<u64>,
    /// Publication (or update) times of the entries.
    pub published: Vec<DateTime<Utc>>,
}

impl FeedHints {
    /// The hints of a parsed feed.
    pub fn of(feed: &Feed, entries: &[Entry]) -> FeedHints {
        let period = feed.update_period.as_deref().and_then(|p| {
            match p.trim().to_ascii_lowercase().as_str() {
                "hourly" => Some(3600u64),
                "daily" => Some(86_400),
                "weekly" => Some(7 * 86_400),
                "monthly" => Some(30 * 86_400),
                "yearly" => Some(365 * 86_400),
                _ => None,
            }
        });
        let frequency = u64::from(feed.update_frequency.unwrap_or(1).max(1));
        FeedHints {
            ttl_minutes: feed.ttl,
            skip_hours: feed
                .skip_hours
                .iter()
                .copied()
                .filter(|h| *h < 24)
                .collect(),
            skip_days: feed
                .skip_days
                .iter()
                .filter_map(|d| d.parse::<Weekday>().ok())
                .collect(),
            update_every_secs: period.map(|p| p / frequency),
            published: entries
                .iter()
                .filter_map(|e| e.published.or(e.updated))
                .collect(),
        }
    }
}

/// What became of a 200's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyVerdict {
    /// No body to judge (not a 200).
    NotApplicable,
    /// Parsed as a feed, with what it says about its rhythm.
    Parsed(FeedHints),
    /// Same bytes as last time: nothing parsed (C5).
    Unchanged,
    /// Not a feed we can read; `html` when it is an HTML page (after a refusal, a challenge).
    Unparseable { detail: String, html: bool },
}

/// Whether the feed keeps being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    Active,
    /// Not read until an operator resumes it (PF5–PF7).
    Paused,
    /// Switched off until an operator acts.
    Off,
}

/// What the crawler stores after one read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub next_fetch_at: DateTime<Utc>,
    /// Human-readable when written out: "interval 1h", "PF6 429 #2: 1d", "Retry-After 120s".
    pub reason: Reason,
    pub interval_secs: u64,
    pub consecutive_failures: u32,
    /// What kind of failure the read was, if it failed.
    pub failure: Option<FailureKind>,
    /// The feed's failure totals after this read (a failure counts in its kind's).
    pub failure_totals: FailureTotals,
    pub lifecycle: Lifecycle,
    pub lifecycle_reason: Option<String>,
    /// The do-not-crawl rule the feed is held under ([`hold_blocked`]), if one holds it.
    pub held_by: Option<String>,
    /// Validators to store; `None` keeps the stored ones.
    pub validators: Option<Validators>,
}

/// Why a feed is read when it is. Written out only where it is shown or stored: the usual
/// reason, a plain interval, is kept as its number until then.
#[derive(Clone)]
pub enum Reason {
    /// "interval 1h": the feed's interval, with nothing else to say.
    Interval(u64),
    Text(String),
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Interval(secs) => write!(f, "interval {}", Human(*secs)),
            Reason::Text(text) => f.write_str(text),
        }
    }
}

impl std::fmt::Debug for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_string(), f)
    }
}

impl Reason {
    /// The reason written out (borrowed when it is kept as text).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Reason::Text(text) => std::borrow::Cow::Borrowed(text),
            Reason::Interval(_) => std::borrow::Cow::Owned(self.to_string()),
        }
    }
}

/// Two reasons are equal when they read the same, however each is kept.
impl PartialEq for Reason {
    fn eq(&self, other: &Reason) -> bool {
        match (self, other) {
            (Reason::Interval(a), Reason::Interval(b)) => a == b,
            (Reason::Text(a), Reason::Text(b)) => a == b,
            _ => self.text() == other.text(),
        }
    }
}

impl Eq for Reason {}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason::Text(text)
    }
}

impl From<&str> for Reason {
    fn from(text: &str) -> Reason {
        Reason::Text(text.to_owned())
    }
}

impl PartialEq<str> for Reason {
    fn eq(&self, other: &str) -> bool {
        match self {
            Reason::Text(text) => text == other,
            Reason::Interval(_) => self.text() == other,
        }
    }
}

impl PartialEq<&str> for Reason {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl PartialEq<String> for Reason {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

/// The schedule of a feed that was just added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstFetch {
    pub next_fetch_at: DateTime<Utc>,
    pub reason: String,
    pub interval_secs: u64,
}

/// When a newly added feed is read: at once, with the profile's interval to start from.
pub fn first_fetch(now: DateTime<Utc>, profile: &Profile) -> FirstFetch {
    FirstFetch {
        next_fetch_at: now,
        reason: "first add".into(),
        interval_secs: profile.schedule.default_interval,
    }
}

/// The kind of failure a read was, or `None` for a success. `last` is the previous read's
/// failure: an HTML page where a feed was expected right after a refusal is a challenge.
pub fn failure_kind(
    outcome: &FetchOutcome,
    body: &BodyVerdict,
    last: Option<FailureKind>,
) -> Option<FailureKind> {
    Some(match outcome {
        FetchOutcome::Fetched(_) => match body {
            BodyVerdict::Unparseable { html: true, .. }
                if matches!(
                    last,
                    Some(
                        FailureKind::Forbidden
                            | FailureKind::TooManyRequests
                            | FailureKind::Challenge
                    )
                ) =>
            {
                FailureKind::Challenge
            }
            BodyVerdict::Unparseable { .. } => FailureKind::BadFeed,
            _ => return None,
        },
        FetchOutcome::NotModified { .. } => return None,
        FetchOutcome::Refused { status: 429, .. } => FailureKind::TooManyRequests,
        FetchOutcome::Refused { .. } => FailureKind::Forbidden,
        FetchOutcome::Challenge { .. } => FailureKind::Challenge,
        FetchOutcome::NotFound => FailureKind::NotFound,
        // 410 switches the feed off before kinds matter; as a kind it is a client error.
        FetchOutcome::Gone | FetchOutcome::ClientError { .. } => FailureKind::ClientError,
        FetchOutcome::ServerError { .. } => FailureKind::ServerError,
        FetchOutcome::Transport(_) => FailureKind::NoAnswer,
        // The crawler's own absence: nobody's failure ([`decide`] sets the feed aside).
        FetchOutcome::CrawlerPaused { .. } => return None,
        // An answer that could not be used, like a broken body: not silence (WFM4).
        FetchOutcome::FailedAnswer { .. }
        | FetchOutcome::Redirect { .. }
        | FetchOutcome::TooLarge { .. }
        | FetchOutcome::BadBody { .. } => FailureKind::BadFeed,
        FetchOutcome::Blocked { .. } => FailureKind::NotAllowed,
    })
}

/// Decide what follows one read. See the module docs for the rules.
pub fn decide(
    state: &FeedSchedule,
    outcome: &FetchOutcome,
    body: &BodyVerdict,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Decision {
    let bounds = &profile.schedule;
    let current = match (state.fixed_interval_secs, state.interval_secs) {
        (Some(fixed), _) => fixed,
        (None, 0) => bounds.default_interval,
        (None, learned) => learned,
    }
    .clamp(bounds.min_interval, bounds.max_interval);
    if let FetchOutcome::CrawlerPaused { overran_secs } = outcome {
        return crawler_paused(state, *overran_secs, now, profile);
    }
    let failure = failure_kind(outcome, body, state.last_failure);
    let validators = match outcome {
        // A body that is no feed must not be validated: its 304s would pass for success.
        FetchOutcome::Fetched(_) if failure.is_some() => None,
        FetchOutcome::Fetched(f) => Some(f.validators.clone()),
        FetchOutcome::NotModified { validators, .. } => {
            conditional::after_not_modified(&state.validators, validators)
        }
        _ => None,
    };

    if matches!(outcome, FetchOutcome::Gone) {
        return Decision {
            next_fetch_at: now + secs(bounds.max_interval),
            reason: "off: 410 gone".into(),
            interval_secs: current,
            consecutive_failures: state.consecutive_failures.saturating_add(1),
            failure,
            failure_totals: failure.map_or(state.failure_totals, |kind| {
                state.failure_totals.counted(kind)
            }),
            lifecycle: Lifecycle::Off,
            lifecycle_reason: Some("the server answered 410 Gone".into()),
            held_by: None,
            validators,
        };
    }

    let mut decision = match failure {
        None => success(state, outcome, body, current, now, profile),
        Some(kind) => failed(state, outcome, kind, current, now, profile),
    };
    decision.validators = validators;
    if let Some(retry_after) = outcome.retry_after() {
        let most = profile.backoff.retry_after_max;
        let asked = retry_after.wait_secs(now);
        if asked > most {
            // C6: never ask before the publisher said, nor schedule a feed years ahead.
            let why = retry_after_pause_reason(asked, most);
            decision.next_fetch_at = now + secs(most);
            decision.reason = format!("paused: {why}").into();
            decision.lifecycle = Lifecycle::Paused;
            decision.lifecycle_reason = Some(why);
        } else {
            let floor = retry_after.not_before(now, secs(most));
            if floor > decision.next_fetch_at {
                decision.next_fetch_at = floor;
                decision.reason = format!("Retry-After {}s", (floor - now).num_seconds()).into();
            }
        }
    }
    decision
}

/// A read the crawler itself spoiled by not running (SIGSTOP, a suspended machine): not the
/// publisher's failure. Nothing about the feed changes but its next read, after the profile's
/// shortest interval (the soonest any feed is read again, WFM3, DFB3).
fn crawler_paused(
    state: &FeedSchedule,
    overran_secs: u64,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Decision {
    let again = profile.schedule.min_interval;
    set_aside(
        state,
        now + secs(again),
        now,
        format!(
            "the crawler was paused (the read ended {} past its time-out); not counted \
             against the publisher, read again in {}",
            Human(overran_secs),
            Human(again)
        ),
    )
}

/// Why a feed was paused by a Retry-After longer than the profile honours (C6).
fn retry_after_pause_reason(asked: u64, most: u64) -> String {
    let asked = if asked >= 100 * 365 * 86_400 {
        "more than 100 years".to_string()
    } else {
        human(asked)
    };
    format!(
        "C6: Retry-After asks for {asked}, longer than the {} this profile waits; \
         paused until an operator resumes the feed",
        Human(most)
    )
}

/// A success: the interval (learned again from a parsed body), lengthened by cache headers and
/// jitter, moved out of skipped hours.
fn success(
    state: &FeedSchedule,
    outcome: &FetchOutcome,
    body: &BodyVerdict,
    current: u64,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Decision {
    let hints = &profile.hints;
    let (interval, mut reason) = match body {
        _ if state.fixed_interval_secs.is_some() => (
            current,
            format!("interval {} (set by an operator)", Human(current)).into(),
        ),
        BodyVerdict::Parsed(feed) => learned_interval(feed, now, profile),
        _ => (current, interval_reason(current, "")),
    };
    let mut wait = interval;
    if hints.cache_control
        && let Some(fresh) = freshness(outcome, now)
        && fresh > wait
    {
        wait = fresh.min(profile.schedule.max_interval);
        reason = format!("Cache-Control/Expires {} (PF3)", Human(wait)).into();
    }
    let jittered = wait.saturating_add(jitter(wait, hints.jitter, state.seed, now));
    let mut next = now + secs(jittered);
    if hints.skip_hours
        && let BodyVerdict::Parsed(feed) = body
        && let Some(moved) = outside_skipped(next, &feed.skip_hours, &feed.skip_days)
        && moved != next
    {
        next = moved;
        reason = format!("{reason}; skipHours/skipDays until {}", hour(next)).into();
    }
    Decision {
        next_fetch_at: next,
        reason,
        interval_secs: interval,
        consecutive_failures: 0,
        failure: None,
        failure_totals: state.failure_totals,
        lifecycle: Lifecycle::Active,
        lifecycle_reason: None,
        held_by: None,
        validators: None,
    }
}

/// The interval a parsed feed asks for: its publishing rhythm (PF8) or the profile's default,
/// raised by `ttl` and `sy:updatePeriod`, within the schedule's bounds.
fn learned_interval(feed: &FeedHints, now: DateTime<Utc>, profile: &Profile) -> (u64, Reason) {
    let bounds = &profile.schedule;
    let hints = &profile.hints;
    let clamp = |s: u64| s.clamp(bounds.min_interval, bounds.max_interval);
    let mut interval = bounds.default_interval;
    let mut why = String::new();
    if hints.adaptive
        && let Some(rhythm) = rhythm(&feed.published, now)
    {
        interval = clamp(rhythm);
        why = format!(" (PF8: publishes about every {})", Human(rhythm));
    }
    if hints.ttl
        && let Some(ttl) = feed.ttl_minutes
        && u64::from(ttl) * 60 > interval
    {
        interval = clamp(u64::from(ttl) * 60);
        why = format!(" (ttl {ttl} min)");
    }
    if hints.syndication
        && let Some(every) = feed.update_every_secs
        && every > interval
    {
        interval = clamp(every);
        why = format!(" (sy:updatePeriod {})", Human(every));
    }
    let interval = clamp(interval);
    (interval, interval_reason(interval, &why))
}

/// How often a feed publishes: the median gap between its latest entries, or half the time
/// since its newest entry when that is longer (a feed that fell silent is read less).
/// Needs three dates; dates in the future are ignored.
fn rhythm(published: &[DateTime<Utc>], now: DateTime<Utc>) -> Option<u64> {
    let mut dates: Vec<DateTime<Utc>> = published.iter().copied().filter(|d| *d <= now).collect();
    if dates.len() < 3 {
        return None;
    }
    dates.sort_unstable_by(|a, b| b.cmp(a));
    dates.truncate(20);
    let mut gaps: Vec<u64> = dates
        .windows(2)
        .map(|w| u64::try_from((w[0] - w[1]).num_seconds()).unwrap_or(0))
        .collect();
    gaps.sort_unstable();
    let median = gaps[gaps.len() / 2];
    let silent = u64::try_from((now - dates[0]).num_seconds()).unwrap_or(0) / 2;
    Some(median.max(silent).max(1))
}

/// How long the answer says it stays fresh (PF3).
fn freshness(outcome: &FetchOutcome, now: DateTime<Utc>) -> Option<u64> {
    let cache: &CacheHints = match outcome {
        FetchOutcome::Fetched(f) => &f.cache,
        FetchOutcome::NotModified { cache, .. } => cache,
        _ => return None,
    };
    let expires = cache
        .expires
        .and_then(|at| u64::try_from((at - now).num_seconds()).ok());
    cache.max_age.or(expires)
}

/// Up to `fraction` of `wait`, spread by `seed` and `now` (never shortening anything).
fn jitter(wait: u64, fraction: f64, seed: u64, now: DateTime<Utc>) -> u64 {
    if fraction <= 0.0 {
        return 0;
    }
    // splitmix64 of the feed and the minute: different feeds spread, one feed varies.
    let mut z = seed ^ (now.timestamp() as u64 / 60).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
    (wait as f64 * fraction * unit) as u64
}

/// The first time at or after `at` that is in neither a skipped hour (GMT) nor a skipped day;
/// `None` when every hour is skipped (then the hints are ignored).
fn outside_skipped(at: DateTime<Utc>, hours: &[u8], days: &[Weekday]) -> Option<DateTime<Utc>> {
    let skipped = |t: DateTime<Utc>| {
        hours.contains(&u8::try_from(t.hour()).unwrap_or(0)) || days.contains(&t.weekday())
    };
    let mut t = at;
    for _ in 0..=(24 * 8) {
        if !skipped(t) {
            return Some(t);
        }
        // The start of the next hour.
        let into = Duration::seconds(i64::from(t.minute() * 60 + t.second()));
        t = t - into - Duration::nanoseconds(i64::from(t.nanosecond())) + Duration::hours(1);
    }
    None
}

/// A failure: the ladder's step (or the doubling back-off), never under the interval; a ladder
/// may pause the feed.
fn failed(
    state: &FeedSchedule,
    outcome: &FetchOutcome,
    kind: FailureKind,
    current: u64,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Decision {
    let ladder = profile.ladder_for(kind);
    let same_ladder = state
        .last_failure
        .is_some_and(|last| same(profile.ladder_for(last), ladder));
    let streak = if same_ladder {
        state.consecutive_failures.saturating_add(1)
    } else {
        1
    };
    let totals = state.failure_totals.counted(kind);
    let what = match outcome.status() {
        Some(status) if status >= 300 && kind != FailureKind::BadFeed => status.to_string(),
        _ => kind.as_str().to_string(),
    };
    let (wait, reason, paused) = match ladder {
        Some(ladder) => {
            let index = usize::try_from(streak)
                .unwrap_or(usize::MAX)
                .min(ladder.steps.len())
                - 1;
            let step = ladder.steps[index];
            let wait = match ladder.unit {
                StepUnit::Seconds => step,
                StepUnit::Interval => step.saturating_mul(current),
            }
            .min(profile.backoff.max)
            .max(current);
            let (counted, how) = match ladder.pause_counts {
                PauseCount::InARow => (streak, "in a row"),
                PauseCount::Total => (totals.of(kind), "in total"),
            };
            let paused = (ladder.pause_after > 0 && counted >= ladder.pause_after).then(|| {
                format!(
                    "{}: paused after {counted} {what} answers {how}",
                    ladder.rule
                )
            });
            (
                wait,
                format!("{} {what} #{streak}: {}", ladder.rule, Human(wait)),
                paused,
            )
        }
        None => {
            let wait = backoff(profile, streak).max(current);
            (
                wait,
                format!("failure {streak} ({what}): backoff {}", Human(wait)),
                None,
            )
        }
    };
    let (lifecycle, reason) = match &paused {
        Some(why) => (Lifecycle::Paused, format!("paused: {why}")),
        None => (Lifecycle::Active, reason),
    };
    Decision {
        next_fetch_at: now + secs(wait),
        reason: reason.into(),
        interval_secs: current,
        consecutive_failures: streak,
        failure: Some(kind),
        failure_totals: totals,
        lifecycle,
        lifecycle_reason: paused,
        held_by: None,
        validators: None,
    }
}

fn same(a: Option<&Ladder>, b: Option<&Ladder>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        _ => false,
    }
}

fn hour(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The floor a 429 or 503 with Retry-After sets for every request to its host (C6): the
/// server said it is busy, not only this feed.
pub fn host_floor(
    outcome: &FetchOutcome,
    now: DateTime<Utc>,
    profile: &Profile,
) -> Option<DateTime<Utc>> {
    match outcome {
        FetchOutcome::Refused {
            status: 429,
            retry_after: Some(ra),
        }
        | FetchOutcome::Challenge {
            status: 429 | 503,
            retry_after: Some(ra),
        }
        | FetchOutcome::ServerError {
            status: 503,
            retry_after: Some(ra),
        } => Some(ra.not_before(now, secs(profile.backoff.retry_after_max))),
        _ => None,
    }
}

/// The reason stored with a next read a reader asked for ([`read_now`]).
pub const READ_NOW_REASON: &str = "a reader asked to read it now";

/// A reader's "read now" (issue 15): when the feed's next read may move to, or `None` when it
/// may not move. Never sooner than the profile's minimum interval after the last read (a feed
/// is never read more often than the profile allows, whoever asks), never while a failure is
/// pending (its backoff and any Retry-After stand), and only to make the read earlier than
/// `scheduled`. The host's own floors (its Retry-After, its crawl-delay, its turn) are kept by
/// the read itself, which postpones it when one is in force.
pub fn read_now(
    profile: &Profile,
    last_read: Option<DateTime<Utc>>,
    failures: u32,
    scheduled: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    if failures > 0 {
        return None;
    }
    let floor = last_read.map_or(now, |at| at + secs(profile.schedule.min_interval));
    let at = floor.max(now);
    (at < scheduled).then_some(at)
}

/// A feed not read because its host asked everyone to wait (C6): it is read at the floor,
/// and nothing else about it changes (this is not a failure of the feed).
pub fn postpone(state: &FeedSchedule, until: DateTime<Utc>, now: DateTime<Utc>) -> Decision {
    set_aside(
        state,
        until,
        now,
        format!(
            "host Retry-After until {}",
            until.format("%Y-%m-%d %H:%M:%S UTC")
        ),
    )
}

/// A feed not read now for a reason of its host's, not its own (C6's floor, FF11's long
/// crawl-delay): read at `until`, no failure counted, nothing else changed.
pub fn set_aside(
    state: &FeedSchedule,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
    reason: String,
) -> Decision {
    Decision {
        next_fetch_at: until.max(now),
        reason: reason.into(),
        interval_secs: state.interval_secs,
        consecutive_failures: state.consecutive_failures,
        failure: state.last_failure,
        failure_totals: state.failure_totals,
        lifecycle: Lifecycle::Active,
        lifecycle_reason: None,
        held_by: None,
        validators: None,
    }
}

/// A feed whose own URL an operator's do-not-crawl rule covers (FF13, WFM10): paused, not
/// failed. Nothing was sent, so nothing about the publisher changed: the failure streak, the
/// interval and the validators stay as the last read left them, and the feed waits for the
/// rule to go (`tidings unblock` resumes it) instead of climbing a back-off ladder forever.
pub fn hold_blocked(state: &FeedSchedule, now: DateTime<Utc>, rule: &str) -> Decision {
    Decision {
        next_fetch_at: now,
        reason: block_hold_reason(rule).into(),
        interval_secs: state.interval_secs,
        consecutive_failures: state.consecutive_failures,
        failure: state.last_failure,
        failure_totals: state.failure_totals,
        lifecycle: Lifecycle::Paused,
        lifecycle_reason: Some(block_hold_reason(rule)),
        held_by: Some(rule.to_string()),
        validators: None,
    }
}

/// The pause reason of a feed a do-not-crawl rule covers: `blocked: <rule>`.
pub fn block_hold_reason(rule: &str) -> String {
    format!("blocked: {rule}")
}

/// The wait after `failures` consecutive failures: `first * 2^(failures-1)`, capped at `max`.
fn backoff(profile: &Profile, failures: u32) -> u64 {
    let doublings = failures.saturating_sub(1).min(40);
    profile
        .backoff
        .first
        .saturating_mul(1u64 << doublings)
        .min(profile.backoff.max)
}

fn secs(s: u64) -> Duration {
    Duration::seconds(
        i64::try_from(s)
            .unwrap_or(i64::MAX / 1000)
            .min(100 * 365 * 86_400),
    )
}

/// `90` → `1m30s`, `3600` → `1h`, `86400` → `1d`.
pub fn human(secs: u64) -> String {
    let mut text = String::with_capacity(12);
    Human(secs).push_to(&mut text);
    text
}

/// A number of seconds as [`human`] writes it, written straight into a reason (reasons are
/// written on every read; the most common, [`interval_reason`], without the formatting
/// machinery: 7 % of `tidings simulate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Human(pub u64);

impl Human {
    /// Written into `out` without the formatting machinery (the common reason of every read).
    fn push_to(self, out: &mut String) {
        let secs = self.0;
        if secs == 0 {
            out.push_str("0s");
            return;
        }
        let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
        for (n, unit) in [(d, 'd'), (h, 'h'), (m, 'm'), (s, 's')] {
            if n > 0 {
                push_decimal(out, n);
                out.push(unit);
            }
        }
    }
}

/// `n` in decimal digits, as `{}` writes it, without the formatting machinery (the one such
/// writer: the simulation's web writes its validators with it too).
pub fn push_decimal(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// "interval 1h" and what set it (kept as the number when nothing did).
fn interval_reason(secs: u64, why: &str) -> Reason {
    if why.is_empty() {
        return Reason::Interval(secs);
    }
    let mut out = String::with_capacity(16 + why.len());
    out.push_str("interval ");
    Human(secs).push_to(&mut out);
    out.push_str(why);
    Reason::Text(out)
}

impl std::fmt::Display for Human {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::with_capacity(12);
        self.push_to(&mut text);
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidings_model::{CacheHints, Fetched, RetryAfter, TransportError};

    /// The default profile without jitter, so waits are exact.
    fn profile() -> Profile {
        named("default")
    }

    fn named(name: &str) -> Profile {
        let mut p = Profile::embedded(name).unwrap();
        p.hints.jitter = 0.0;
        p
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z")
            .unwrap()
            .into()
    }

    #[test]
    fn read_now_keeps_the_minimum_interval_and_pending_failures() {
        let p = profile();
        let min = secs(p.schedule.min_interval);
        let hour = Duration::hours(1);
        let later = now() + Duration::hours(6);
        for (last_read, failures, scheduled, expected) in [
            // Never read: at once.
            (None, 0, later, Some(now())),
            // Read long ago: at once.
            (Some(now() - Duration::days(1)), 0, later, Some(now())),
            // Read just now: not before the minimum interval has passed.
            (Some(now()), 0, later, Some(now() + min)),
            (Some(now() - min / 2), 0, later, Some(now() + min / 2)),
            // Already due sooner than that: nothing moves.
            (Some(now()), 0, now() + min, None),
            (None, 0, now(), None),
            (None, 0, now() - hour, None),
            // A failure pending: its backoff stands.
            (Some(now() - Duration::days(1)), 1, later, None),
        ] {
            assert_eq!(
                read_now(&p, last_read, failures, scheduled, now()),
                expected,
                "{last_read:?} {failures} {scheduled}"
            );
        }
    }

    /// WFM3, DFB3: a reader's "read now" never reads a feed sooner than its profile allows
    /// after the last read (15 minutes for WorldFeedMonitor, 10 for DailyFootballBot).
    #[test]
    fn wfm3_dfb3_read_now_never_comes_sooner_than_the_profiles_minimum_interval() {
        let last = now() - Duration::minutes(1);
        let later = now() + Duration::hours(6);
        for (name, minutes) in [("worldfeedmonitor", 15), ("dailyfootballbot", 10)] {
            let p = named(name);
            let at = read_now(&p, Some(last), 0, later, now()).expect("moved earlier");
            assert_eq!(at, last + Duration::minutes(minutes), "{name}");
        }
    }

    fn ok(etag: &str) -> FetchOutcome {
        FetchOutcome::Fetched(Fetched {
            status: 200,
            body: b"<rss/>".to_vec(),
            content_type: None,
            validators: Validators {
                etag: Some(etag.into()),
                last_modified: None,
            },
            cache: CacheHints::default(),
            rights: None,
        })
    }

    fn state(failures: u32) -> FeedSchedule {
        FeedSchedule {
            interval_secs: 3600,
            consecutive_failures: failures,
            validators: Validators {
                etag: Some("\"old\"".into()),
                last_modified: Some("Mon, 31 Dec 2029 00:00:00 GMT".into()),
            },
            last_failure: None,
            seed: 7,
            fixed_interval_secs: None,
            failure_totals: FailureTotals::default(),
        }
    }

    /// A state after `failures` failures in a row of the same kind as `outcome`.
    fn after(failures: u32, outcome: &FetchOutcome, body: &BodyVerdict) -> FeedSchedule {
        FeedSchedule {
            last_failure: (failures > 0)
                .then(|| failure_kind(outcome, body, None))
                .flatten(),
            ..state(failures)
        }
    }

    /// One row: state's failure count, outcome, body verdict → (seconds until next, reason, failures).
    fn check(failures: u32, outcome: FetchOutcome, body: BodyVerdict, want: (i64, &str, u32)) {
        let d = decide(
            &after(failures, &outcome, &body),
            &outcome,
            &body,
            now(),
            &profile(),
        );
        assert_eq!(
            (
                (d.next_fetch_at - now()).num_seconds(),
                d.reason.to_string().as_str(),
                d.consecutive_failures
            ),
            want,
            "{outcome:?}"
        );
    }

    #[test]
    fn success_schedules_the_interval_and_resets_failures() {
        check(
            3,
            ok("\"e\""),
            BodyVerdict::Parsed(FeedHints::default()),
            (3600, "interval 1h", 0),
        );
        check(
            3,
            ok("\"e\""),
            BodyVerdict::Unchanged,
            (3600, "interval 1h", 0),
        );
        let not_modified = FetchOutcome::NotModified {
            validators: Validators::default(),
            cache: CacheHints::default(),
            rights: None,
        };
        check(
            2,
            not_modified,
            BodyVerdict::NotApplicable,
            (3600, "interval 1h", 0),
        );
    }

    #[test]
    fn failures_back_off_doubling_and_never_below_the_interval() {
        let refused = || FetchOutcome::Refused {
            status: 403,
            retry_after: None,
        };
        check(
            0,
            refused(),
            BodyVerdict::NotApplicable,
            (3600, "failure 1 (403): backoff 1h", 1),
        );
        check(
            2,
            refused(),
            BodyVerdict::NotApplicable,
            (3600, "failure 3 (403): backoff 1h", 3),
        );
        check(
            3,
            refused(),
            BodyVerdict::NotApplicable,
            (7200, "failure 4 (403): backoff 2h", 4),
        );
        check(
            30,
            refused(),
            BodyVerdict::NotApplicable,
            (86_400, "failure 31 (403): backoff 1d", 31),
        );
        let unparseable = BodyVerdict::Unparseable {
            detail: "not a feed".into(),
            html: false,
        };
        check(
            0,
            ok("\"e\""),
            unparseable,
            (3600, "failure 1 (bad_feed): backoff 1h", 1),
        );
        let timeout = FetchOutcome::Transport(TransportError::Timeout);
        check(
            4,
            timeout,
            BodyVerdict::NotApplicable,
            (14_400, "failure 5 (no_answer): backoff 4h", 5),
        );
    }

    #[test]
    fn c6_retry_after_is_a_floor() {
        let limited = |ra| FetchOutcome::Refused {
            status: 429,
            retry_after: Some(ra),
        };
        check(
            0,
            limited(RetryAfter::Seconds(7200)),
            BodyVerdict::NotApplicable,
            (7200, "Retry-After 7200s", 1),
        );
        // A Retry-After shorter than the backoff does not bring the read forward.
        check(
            0,
            limited(RetryAfter::Seconds(60)),
            BodyVerdict::NotApplicable,
            (3600, "failure 1 (429): backoff 1h", 1),
        );
        let at = now() + Duration::hours(5);
        check(
            0,
            limited(RetryAfter::At(at)),
            BodyVerdict::NotApplicable,
            (18_000, "Retry-After 18000s", 1),
        );
    }

    #[test]
    fn c6_sr5_dfb6_retry_after_is_honoured_in_full_up_to_the_profile_max_then_pauses() {
        const DAY: u64 = 86_400;
        let paused = |asked: &str, most: &str| {
            format!(
                "C6: Retry-After asks for {asked}, longer than the {most} this profile waits; \
                 paused until an operator resumes the feed"
            )
        };
        let far = DateTime::parse_from_rfc3339("9999-12-31T23:59:59Z")
            .unwrap()
            .with_timezone(&Utc);
        /// (row, profile, its retry_after_max, status, Retry-After, wait, lifecycle reason)
        type Row<'a> = (&'a str, &'a str, u64, u16, RetryAfter, u64, Option<String>);
        let cases: Vec<Row<'_>> = vec![
            (
                "60 days under the default max (issue 12: was asked after 30)",
                "default",
                90 * DAY,
                429,
                RetryAfter::Seconds(60 * DAY),
                60 * DAY,
                None,
            ),
            (
                "60 days as an HTTP-date",
                "default",
                90 * DAY,
                503,
                RetryAfter::At(now() + Duration::days(60)),
                60 * DAY,
                None,
            ),
            (
                "SR5: 60 days under SereneReader",
                "serenereader",
                90 * DAY,
                429,
                RetryAfter::Seconds(60 * DAY),
                60 * DAY,
                None,
            ),
            (
                "DFB6: 60 days under DailyFootballBot",
                "dailyfootballbot",
                90 * DAY,
                429,
                RetryAfter::Seconds(60 * DAY),
                60 * DAY,
                None,
            ),
            (
                "exactly the max",
                "default",
                90 * DAY,
                429,
                RetryAfter::Seconds(90 * DAY),
                90 * DAY,
                None,
            ),
            (
                "one second past the max",
                "default",
                90 * DAY,
                429,
                RetryAfter::Seconds(90 * DAY + 1),
                90 * DAY,
                Some(paused("90d1s", "90d")),
            ),
            (
                "60 days past a 30-day max",
                "default",
                30 * DAY,
                429,
                RetryAfter::Seconds(60 * DAY),
                30 * DAY,
                Some(paused("60d", "30d")),
            ),
            (
                "a number too large to count (issue 12)",
                "default",
                90 * DAY,
                429,
                RetryAfter::Seconds(u64::MAX),
                90 * DAY,
                Some(paused("more than 100 years", "90d")),
            ),
            (
                "an HTTP-date in year 9999",
                "default",
                90 * DAY,
                503,
                RetryAfter::At(far),
                90 * DAY,
                Some(paused("more than 100 years", "90d")),
            ),
            (
                "a date in the past is no floor",
                "default",
                90 * DAY,
                429,
                RetryAfter::At(now() - Duration::days(1)),
                3600,
                None,
            ),
        ];
        for (row, name, most, status, retry_after, wait, reason) in cases {
            let mut p = named(name);
            p.backoff.retry_after_max = most;
            let outcome = match status {
                429 => FetchOutcome::Refused {
                    status,
                    retry_after: Some(retry_after),
                },
                _ => FetchOutcome::ServerError {
                    status,
                    retry_after: Some(retry_after),
                },
            };
            let d = decide(&state(0), &outcome, &BodyVerdict::NotApplicable, now(), &p);
            let got_wait = (d.next_fetch_at - now()).num_seconds();
            match &reason {
                None => {
                    assert_eq!(d.lifecycle, Lifecycle::Active, "{row}");
                    assert!(got_wait >= wait as i64, "{row}: waits {got_wait}");
                    if wait > 3600 {
                        assert_eq!(got_wait, wait as i64, "{row}");
                        assert_eq!(d.reason, format!("Retry-After {wait}s"), "{row}");
                    }
                }
                Some(why) => {
                    assert_eq!(d.lifecycle, Lifecycle::Paused, "{row}");
                    assert_eq!(d.lifecycle_reason.as_deref(), Some(why.as_str()), "{row}");
                    assert_eq!(d.reason, format!("paused: {why}"), "{row}");
                    assert_eq!(got_wait, wait as i64, "{row}");
                }
            }
            assert_eq!(d.consecutive_failures, 1, "{row}: still a failure");
        }
    }

    #[test]
    fn c6_the_host_floor_is_set_for_a_retry_after_too_large_to_count() {
        let p = profile();
        let most = p.backoff.retry_after_max as i64;
        let cases = [
            (
                "429 overflowing",
                429,
                RetryAfter::Seconds(u64::MAX),
                Some(most),
            ),
            (
                "503 overflowing",
                503,
                RetryAfter::Seconds(u64::MAX),
                Some(most),
            ),
            (
                "429 60 days in full",
                429,
                RetryAfter::Seconds(60 * 86_400),
                Some(60 * 86_400),
            ),
            (
                "403 overflowing is no host floor",
                403,
                RetryAfter::Seconds(u64::MAX),
                None,
            ),
        ];
        for (row, status, retry_after, want) in cases {
            let outcome = match status {
                503 => FetchOutcome::ServerError {
                    status,
                    retry_after: Some(retry_after),
                },
                _ => FetchOutcome::Refused {
                    status,
                    retry_after: Some(retry_after),
                },
            };
            let got = host_floor(&outcome, now(), &p).map(|t| (t - now()).num_seconds());
            assert_eq!(got, want, "{row}");
        }
    }

    #[test]
    fn a_reason_reads_the_same_however_it_is_kept() {
        let cases = [
            (Reason::Interval(3600), "interval 1h"),
            (Reason::Interval(5400), "interval 1h30m"),
            (interval_reason(900, ""), "interval 15m"),
            (
                interval_reason(900, " (ttl 15 min)"),
                "interval 15m (ttl 15 min)",
            ),
            (Reason::from("off: 410 gone"), "off: 410 gone"),
        ];
        for (reason, text) in cases {
            assert_eq!(reason.to_string(), text);
            assert_eq!(reason, text);
            assert_eq!(reason, Reason::Text(text.to_owned()));
            assert_eq!(format!("{reason:?}"), format!("{text:?}"));
        }
        assert_ne!(Reason::Interval(3600), Reason::Interval(7200));
        assert_ne!(Reason::Interval(3600), "interval 2h");
    }

    #[test]
    fn a_new_feed_is_read_at_once_from_the_profiles_interval() {
        let mut p = profile();
        p.schedule.default_interval = 7200;
        let first = first_fetch(now(), &p);
        assert_eq!(
            (
                first.next_fetch_at,
                first.reason.as_str(),
                first.interval_secs
            ),
            (now(), "first add", 7200)
        );
    }

    #[test]
    fn c6_a_busy_host_sets_a_floor_for_all_its_feeds() {
        let p = profile();
        let ra = Some(RetryAfter::Seconds(600));
        let cases = [
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: ra,
                },
                Some(600),
            ),
            (
                FetchOutcome::ServerError {
                    status: 503,
                    retry_after: ra,
                },
                Some(600),
            ),
            (
                FetchOutcome::Refused {
                    status: 403,
                    retry_after: ra,
                },
                None,
            ),
            (
                FetchOutcome::ServerError {
                    status: 500,
                    retry_after: ra,
                },
                None,
            ),
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: None,
                },
                None,
            ),
        ];
        for (outcome, want) in cases {
            let got = host_floor(&outcome, now(), &p).map(|t| (t - now()).num_seconds());
            assert_eq!(got, want, "{outcome:?}");
        }
        let d = postpone(&state(2), now() + Duration::seconds(600), now());
        assert_eq!(d.next_fetch_at, now() + Duration::seconds(600));
        assert_eq!(
            d.consecutive_failures, 2,
            "waiting for the host is no failure of the feed"
        );
        assert_eq!(d.reason, "host Retry-After until 2030-01-01 00:10:00 UTC");
    }

    #[test]
    fn wfm4_failed_answers_climb_the_ladder_and_a_paused_crawler_blames_nobody() {
        use tidings_model::AnswerFailure;
        let stalled = FetchOutcome::FailedAnswer {
            status: Some(200),
            failure: AnswerFailure::Stalled,
        };
        let huge_head = FetchOutcome::FailedAnswer {
            status: None,
            failure: AnswerFailure::HeadTooLarge,
        };
        for (row, outcome) in [("stalled body", &stalled), ("head too large", &huge_head)] {
            assert_eq!(
                failure_kind(outcome, &BodyVerdict::NotApplicable, None),
                Some(FailureKind::BadFeed),
                "{row}"
            );
            let before = after(2, outcome, &BodyVerdict::NotApplicable);
            let d = decide(
                &before,
                outcome,
                &BodyVerdict::NotApplicable,
                now(),
                &profile(),
            );
            assert_eq!(d.consecutive_failures, 3, "{row}");
            assert_eq!(d.reason, "failure 3 (bad_feed): backoff 1h", "{row}");
        }
        let before = FeedSchedule {
            last_failure: Some(FailureKind::ServerError),
            ..state(2)
        };
        let paused = FetchOutcome::CrawlerPaused { overran_secs: 600 };
        let d = decide(
            &before,
            &paused,
            &BodyVerdict::NotApplicable,
            now(),
            &profile(),
        );
        assert_eq!(d.consecutive_failures, 2, "no failure counted");
        assert_eq!(
            d.failure,
            Some(FailureKind::ServerError),
            "the streak's kind stays"
        );
        assert_eq!(d.lifecycle, Lifecycle::Active);
        assert_eq!(d.validators, None);
        assert_eq!((d.next_fetch_at - now()).num_seconds(), 900);
        assert_eq!(
            d.reason,
            "the crawler was paused (the read ended 10m past its time-out); not counted \
             against the publisher, read again in 15m"
        );
    }

    #[test]
    fn gone_switches_the_feed_off() {
        let d = decide(
            &state(0),
            &FetchOutcome::Gone,
            &BodyVerdict::NotApplicable,
            now(),
            &profile(),
        );
        assert_eq!(d.lifecycle, Lifecycle::Off);
        assert_eq!(d.reason, "off: 410 gone");
    }

    #[test]
    fn c4_validators_follow_the_answer() {
        let d = decide(
            &state(0),
            &ok("\"new\""),
            &BodyVerdict::Parsed(FeedHints::default()),
            now(),
            &profile(),
        );
        assert_eq!(d.validators.unwrap().etag.as_deref(), Some("\"new\""));
        let d = decide(
            &state(0),
            &FetchOutcome::NotFound,
            &BodyVerdict::NotApplicable,
            now(),
            &profile(),
        );
        assert_eq!(d.validators, None, "errors keep the stored validators");
        let html = BodyVerdict::Unparseable {
            detail: "not a feed".into(),
            html: false,
        };
        let d = decide(&state(0), &ok("\"page\""), &html, now(), &profile());
        assert_eq!(
            d.validators, None,
            "a body that is no feed is not validated"
        );
    }

    #[test]
    fn wfm3_an_operators_interval_replaces_the_learned_one_within_the_profiles_bounds() {
        let p = profile();
        // Hints that would teach a 4-hour interval (RSS ttl), and a failure to compare with.
        let hinted = BodyVerdict::Parsed(FeedHints {
            ttl_minutes: Some(240),
            ..FeedHints::default()
        });
        let fixed = |secs: u64| FeedSchedule {
            fixed_interval_secs: Some(secs),
            ..state(0)
        };
        let cases = [
            // (operator's interval, expected interval)
            (2 * 3600, 2 * 3600),
            (p.schedule.min_interval / 2, p.schedule.min_interval),
            (p.schedule.max_interval * 2, p.schedule.max_interval),
        ];
        for (set, want) in cases {
            let d = decide(&fixed(set), &ok("\"x\""), &hinted, now(), &p);
            assert_eq!(d.interval_secs, want, "set {set}");
            assert!(
                d.reason.to_string().ends_with("(set by an operator)"),
                "{}",
                d.reason
            );
            assert!(d.next_fetch_at >= now() + Duration::seconds(want as i64));
        }
        let learned = decide(&state(0), &ok("\"x\""), &hinted, now(), &p);
        assert_eq!(
            learned.interval_secs,
            4 * 3600,
            "without one the ttl is learned"
        );
        // A failure still waits at least the interval and climbs its ladder from there.
        let failed = decide(
            &fixed(2 * 3600),
            &FetchOutcome::ServerError {
                status: 500,
                retry_after: None,
            },
            &BodyVerdict::NotApplicable,
            now(),
            &p,
        );
        assert!(failed.next_fetch_at >= now() + Duration::seconds(2 * 3600));
    }

    /// Numbers are written as `{}` writes them.
    #[test]
    fn decimals_are_written_as_format_writes_them() {
        for n in [0u64, 1, 9, 10, 99, 100, 4096, 123_456_789, u64::MAX] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn human_durations() {
        for (s, want) in [
            (0, "0s"),
            (90, "1m30s"),
            (3600, "1h"),
            (86_400, "1d"),
            (90_061, "1d1h1m1s"),
        ] {
            assert_eq!(human(s), want);
            assert_eq!(Human(s).to_string(), want);
            assert_eq!(
                interval_reason(s, " (ttl 5 min)"),
                format!("interval {want} (ttl 5 min)")
            );
        }
        assert_eq!(human(u64::MAX), "213503982334601d7h15s");
    }

    proptest::proptest! {
        /// C6: any Retry-After, however absurd, gives a floor within the profile's cap and
        /// never a panic.
        #[test]
        fn c6_any_retry_after_is_bounded(seconds in proptest::prelude::any::<u64>(), at in proptest::prelude::any::<i64>()) {
            let p = profile();
            let cap = p.backoff.retry_after_max as i64;
            let at = DateTime::from_timestamp(at % 253_402_300_799, 0).unwrap_or(now());
            for ra in [RetryAfter::Seconds(seconds), RetryAfter::At(at)] {
                let refused = FetchOutcome::Refused { status: 429, retry_after: Some(ra) };
                let d = decide(&state(0), &refused, &BodyVerdict::NotApplicable, now(), &p);
                let wait = (d.next_fetch_at - now()).num_seconds();
                proptest::prop_assert!(wait >= p.schedule.default_interval as i64);
                proptest::prop_assert!(wait <= cap.max(p.backoff.max as i64));
            }
        }

        /// A refusal never shortens the wait compared with a success, and the wait stays within
        /// the profile's bounds (or a Retry-After floor).
        #[test]
        fn refusal_never_shortens_the_wait(failures in 0u32..200, status in 400u16..600) {
            let p = profile();
            let good = decide(&state(failures), &ok("\"x\""), &BodyVerdict::Parsed(FeedHints::default()), now(), &p);
            let bad = FetchOutcome::ServerError { status, retry_after: None };
            let d = decide(&state(failures), &bad, &BodyVerdict::NotApplicable, now(), &p);
            proptest::prop_assert!(d.next_fetch_at >= good.next_fetch_at);
            let wait = (d.next_fetch_at - now()).num_seconds();
            proptest::prop_assert!(wait >= p.schedule.min_interval as i64);
            proptest::prop_assert!(wait <= p.backoff.max.max(p.schedule.max_interval) as i64);
        }
    }

    #[test]
    fn ff13_a_feed_under_a_do_not_crawl_rule_is_paused_not_failed() {
        let before = FeedSchedule {
            last_failure: Some(FailureKind::ServerError),
            ..state(2)
        };
        let d = hold_blocked(&before, now(), "do-not-crawl: host example.com (FF13)");
        assert_eq!(d.lifecycle, Lifecycle::Paused);
        assert_eq!(
            d.lifecycle_reason.as_deref(),
            Some("blocked: do-not-crawl: host example.com (FF13)")
        );
        assert_eq!(
            d.held_by.as_deref(),
            Some("do-not-crawl: host example.com (FF13)")
        );
        // Nothing was sent: the streak, its kind, the interval and the validators stay.
        assert_eq!(d.consecutive_failures, 2);
        assert_eq!(d.failure, Some(FailureKind::ServerError));
        assert_eq!(d.interval_secs, 3600);
        assert_eq!(d.validators, None);
    }
}
