//! robots.txt for feed URLs: when to re-read it, and whether it lets a feed be fetched.
//!
//! The file itself is parsed and matched by `tidings-robots`; this module applies the
//! profile: which token, whether the `*` group counts for feeds (SR8), what an unreadable file
//! means (SR10, DFB8, FF11), and how old a stored copy may get (DFB7).

use crate::profile::{LongCrawlDelay, OnRobotsFailure, Profile};
use chrono::{DateTime, Duration, Utc};
use std::sync::{Arc, Mutex, OnceLock};
use tidings_robots::{
    Access, Basis, FailurePolicy, OnFailure, ProductToken, Robots, RobotsFetch, RobotsStatus,
    Selection, StarGroup, Verdict, interpret,
};

/// A stored robots.txt fetch: its HTTP status (`None`: no answer) and body.
#[derive(Debug, Clone, Copy)]
pub struct StoredRobots<'a> {
    pub fetched_at: DateTime<Utc>,
    /// The status of the answer; `None` when there was none.
    pub status: Option<u16>,
    /// The body of a 2xx answer; `None` for a 2xx whose body could not be read (larger than
    /// the limit, or broken).
    pub body: Option<&'a [u8]>,
}

/// Whether a feed may be fetched now, and why. A reason is shared: the same rule of one copy
/// gives every read it decides the same text, written once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsGate {
    Allowed(Arc<str>),
    Denied(Arc<str>),
    /// robots.txt could not be read and the profile waits.
    Deferred(Arc<str>),
}

/// What a stored robots.txt says about one feed, read from one parse of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsAnswer {
    pub gate: RobotsGate,
    /// The crawl-delay the file asks of this profile's token, if it has rules and asks one.
    pub crawl_delay: Option<std::time::Duration>,
}

/// The gap before the next request to a host (C3): the profile's own gap, or the host's
/// crawl-delay when the profile honours it and it is longer, capped (SR9); the first read of a
/// new feed skips the crawl-delay when the profile says so (SR9).
pub fn host_gap(
    profile: &Profile,
    crawl_delay: Option<std::time::Duration>,
    first_add: bool,
) -> std::time::Duration {
    let own = seconds(profile.pacing.host_gap);
    let settings = &profile.robots;
    let honoured = match crawl_delay {
        Some(delay)
            if settings.crawl_delay && !(first_add && settings.first_add_skips_crawl_delay) =>
        {
            delay.min(std::time::Duration::from_secs(settings.crawl_delay_cap))
        }
        _ => std::time::Duration::ZERO,
    };
    own.max(honoured)
}

/// `secs` seconds as a duration: a whole number (the usual gap) converted exactly without
/// the float algorithm, which every read would run.
fn seconds(secs: f64) -> std::time::Duration {
    let whole = secs as u64;
    if whole as f64 == secs {
        std::time::Duration::from_secs(whole)
    } else {
        std::time::Duration::from_secs_f64(secs)
    }
}

/// FF11: when the host's crawl-delay is longer than the profile's cap and the profile pauses
/// rather than shortening it, how much longer the host's work must be set aside, given how long
/// the host has been quiet (`None`: go now; the gate's gap covers the rest). The whole delay
/// is waited, however long: a pause never shortens it.
pub fn crawl_delay_pause(
    profile: &Profile,
    crawl_delay: Option<std::time::Duration>,
    quiet_for: Option<std::time::Duration>,
) -> Option<std::time::Duration> {
    let delay = crawl_delay.filter(|&delay| pauses_for(profile, delay))?;
    match quiet_for {
        // Nothing sent to this host yet (in this run): nothing to space from.
        None => None,
        Some(quiet) if quiet >= delay => None,
        Some(quiet) => Some(delay - quiet),
    }
}

/// FF11: whether a crawl-delay of `delay` can set a host's work aside under `profile`: the
/// profile honours crawl-delays, pauses for long ones rather than shortening them, and `delay`
/// is longer than its cap. When it cannot, how long the host has been quiet does not matter.
pub fn pauses_for(profile: &Profile, delay: std::time::Duration) -> bool {
    let settings = &profile.robots;
    settings.crawl_delay
        && settings.long_crawl_delay == LongCrawlDelay::Pause
        && delay > std::time::Duration::from_secs(settings.crawl_delay_cap)
}

/// When a stored robots.txt copy must be read again, fixed once it is stored: after the
/// profile's `max_age` (DFB7), or sooner after a failure the profile deferred on (FF11). A
/// driver that keeps a copy for many reads asks [`RobotsRules::renewal`], worked out once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Renewal {
    fetched_at: DateTime<Utc>,
    /// When `max_age` has passed (`None`: past the last date there is).
    stale_at: Option<DateTime<Utc>>,
    /// When a copy the profile deferred on may be asked again (`None`: not deferred).
    retry_at: Option<DateTime<Utc>>,
}

impl Renewal {
    /// The renewal of a copy fetched at `fetched_at` that answered `status` (`None`: no
    /// answer).
    pub fn new(fetched_at: DateTime<Utc>, status: Option<u16>, profile: &Profile) -> Renewal {
        let settings = &profile.robots;
        let after = |secs: u64| {
            fetched_at.checked_add_signed(Duration::seconds(
                i64::try_from(secs).unwrap_or(i64::MAX / 1000),
            ))
        };
        // FF11: a file that could not be read (429 or 5xx, 401 or 403, or no answer) and made
        // the profile defer is read again once older than `backoff.first`, not `max_age`:
        // deferring is waiting for the file, not staying away for a day.
        let deferred = match status {
            None => settings.on_unreachable == OnRobotsFailure::Defer,
            Some(s) if s == 429 || s >= 500 => settings.on_server_error == OnRobotsFailure::Defer,
            Some(401 | 403) => settings.on_access_denied == OnRobotsFailure::Defer,
            Some(_) => false,
        };
        Renewal {
            fetched_at,
            stale_at: after(settings.max_age),
            retry_at: if deferred {
                after(profile.backoff.first).or(Some(DateTime::<Utc>::MAX_UTC))
            } else {
                None
            },
        }
    }

    /// DFB7: whether the copy is too old to use at `now` (or from the future: not trusted).
    pub fn is_stale(&self, now: DateTime<Utc>) -> bool {
        self.fetched_at > now || self.stale_at.is_some_and(|at| now >= at)
    }

    /// FF11: whether a copy the profile deferred on may be asked again at `now`.
    pub fn retry_is_due(&self, now: DateTime<Utc>) -> bool {
        self.retry_at.is_some_and(|at| now >= at)
    }
}

/// Whether a stored copy answered `status` and made the profile defer, and is due again at
/// `now` (FF11; see [`Renewal`]).
pub fn deferred_copy_is_due(
    status: Option<u16>,
    fetched_at: DateTime<Utc>,
    now: DateTime<Utc>,
    profile: &Profile,
) -> bool {
    Renewal::new(fetched_at, status, profile).retry_is_due(now)
}

/// Whether the stored copy (if any) must be read again before it is used (DFB7; see
/// [`Renewal`]).
pub fn needs_refetch(stored: Option<DateTime<Utc>>, now: DateTime<Utc>, profile: &Profile) -> bool {
    stored.is_none_or(|at| Renewal::new(at, None, profile).is_stale(now))
}

/// Whether `path_and_query` of a feed may be fetched under the stored robots.txt, and the
/// crawl-delay it asks for. Reads the file on each call; a caller that asks for many paths of
/// one copy reads it once with [`RobotsRules::read`].
pub fn gate_for_feed(
    stored: &StoredRobots<'_>,
    path_and_query: &str,
    profile: &Profile,
) -> RobotsAnswer {
    RobotsRules::read(stored, profile).gate(path_and_query)
}

/// What one stored robots.txt says for this profile, read once: the answer for the whole
/// origin (a failure the profile allows, refuses or defers on), or the parsed rules that are
/// matched per path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsRules {
    read: Read,
    renewal: Renewal,
}

// One per stored copy, and most copies are rules: boxing them would cost every read a
// pointer more to follow for the few bytes an answer for the whole origin saves.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
enum Read {
    /// The same answer for every path (no crawl-delay).
    Origin(RobotsGate),
    Rules {
        robots: Robots,
        /// The groups that apply to a feed (the `*` group only under a profile that says
        /// so, SR8) and to any other resource, chosen once for every path asked.
        feed: Selection,
        other: Selection,
        /// Whether the feed's selection obeys the `*` group.
        star: bool,
        /// The same for every path: read once.
        crawl_delay: Option<std::time::Duration>,
        /// The gate of each verdict given so far, so its reason is written once per copy.
        gates: Gates,
    },
}

/// The gates a copy's verdicts gave, by what settled each (a copy has a handful: one per
/// rule that decided a path, and the few bases without a rule). Not part of what the copy
/// says: two reads of one file are equal whatever each has been asked.
#[derive(Debug, Default)]
struct Gates {
    /// The first verdict's gate, read without a lock: most copies decide every path the same
    /// way (one rule, or none), so nearly every read finds its gate here.
    first: OnceLock<(Settled, RobotsGate)>,
    /// The others.
    more: Mutex<Vec<(Settled, RobotsGate)>>,
}

/// The most verdicts one copy keeps with their reasons.
const MEMO_GATES: usize = 64;

/// What settled a verdict, as a key: the group is the same for every path of one read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Settled {
    /// Whether the `*` group applied (feeds and other resources may differ, SR7/SR8).
    star: bool,
    allowed: bool,
    /// The deciding rule's line, or 0 with `basis` naming what settled it without one (a
    /// file is read up to 500 KiB, so its line numbers fit).
    line: u32,
    basis: u8,
}

impl Settled {
    fn of(verdict: &Verdict<'_>, star: bool) -> Settled {
        let (line, basis) = match verdict.basis {
            Basis::Rule(rule) => (u32::try_from(rule.line).unwrap_or(u32::MAX), 0),
            Basis::NoRuleMatched => (0, 1),
            Basis::NoGroup => (0, 2),
            Basis::StarGroupIgnored => (0, 3),
            Basis::RobotsTxt => (0, 4),
        };
        Settled {
            star,
            allowed: verdict.access == Access::Allowed,
            line,
            basis,
        }
    }
}

impl Gates {
    /// The gate of `verdict`, its reason written on the first call for what settled it.
    fn of(&self, verdict: &Verdict<'_>, star: bool) -> RobotsGate {
        let key = Settled::of(verdict, star);
        if let Some((first, gate)) = self.first.get()
            && *first == key
        {
            return gate.clone();
        }
        // A poisoned memo only lost entries: the reason is written again.
        let mut gates = self.more.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, gate)) = gates.iter().find(|(k, _)| *k == key) {
            return gate.clone();
        }
        let reason: Arc<str> = format!("robots: {verdict}").into();
        let gate = if key.allowed {
            RobotsGate::Allowed(reason)
        } else {
            RobotsGate::Denied(reason)
        };
        // Set under the lock, so two first verdicts cannot race for it.
        if self.first.set((key, gate.clone())).is_ok() {
            return gate;
        }
        // Grown one at a time: a copy is kept for every host, and most give one or two. A
        // file whose many rules decide many paths keeps only the first few.
        if gates.len() + 1 < MEMO_GATES {
            gates.reserve_exact(1);
            gates.push((key, gate.clone()));
        }
        gate
    }
}

impl Clone for Gates {
    fn clone(&self) -> Self {
        Gates::default()
    }
}

impl PartialEq for Gates {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Gates {}

impl RobotsRules {
    /// Read `stored` under `profile`'s token and failure rules (SR8, SR10, DFB8, FF11).
    pub fn read(stored: &StoredRobots<'_>, profile: &Profile) -> RobotsRules {
        let settings = &profile.robots;
        let failure = FailurePolicy {
            server_error: on_failure(settings.on_server_error),
            unreachable: on_failure(settings.on_unreachable),
            access_denied: on_failure(settings.on_access_denied),
        };
        let fetch = match (stored.status, stored.body) {
            (Some(200..=299), None) => RobotsFetch::Unreadable,
            (Some(status), body) => RobotsFetch::from_status(status, body.unwrap_or_default()),
            (None, _) => RobotsFetch::Unreachable,
        };
        let describe = || describe(stored.status, stored.body.is_some());
        let renewal = Renewal::new(stored.fetched_at, stored.status, profile);
        let origin = |gate| RobotsRules {
            read: Read::Origin(gate),
            renewal,
        };
        let Ok(token) = ProductToken::new(&settings.token) else {
            return origin(RobotsGate::Denied(
                format!("robots: invalid token {:?}", settings.token).into(),
            ));
        };
        match interpret(fetch, failure) {
            RobotsStatus::AllowAll => origin(RobotsGate::Allowed(
                match (fetch, stored.status) {
                    (RobotsFetch::Unreadable, _) => {
                        format!("robots: {}, allowed by the profile", describe())
                    }
                    (_, Some(status)) => format!("robots: {status}, everything allowed"),
                    (_, None) => "robots: unreadable, allowed by the profile".into(),
                }
                .into(),
            )),
            RobotsStatus::DisallowAll => origin(RobotsGate::Denied(
                format!("robots: {}, the profile stays away", describe()).into(),
            )),
            RobotsStatus::Defer => origin(RobotsGate::Deferred(
                format!("robots: {}, deferred", describe()).into(),
            )),
            RobotsStatus::Rules(robots) => {
                let star = settings.star_group_for_feeds;
                let for_feeds = if star {
                    StarGroup::Apply
                } else {
                    StarGroup::Ignore
                };
                RobotsRules {
                    read: Read::Rules {
                        crawl_delay: robots.crawl_delay(&token),
                        feed: robots.select(&token, for_feeds),
                        other: robots.select(&token, StarGroup::Apply),
                        robots,
                        star,
                        gates: Gates::default(),
                    },
                    renewal,
                }
            }
        }
    }

    /// When the copy must be read again.
    pub fn renewal(&self) -> &Renewal {
        &self.renewal
    }

    /// The parsed file, when it was read as rules (not answered for the whole origin): for
    /// what else its groups say (the AI crawler groups of DFB2).
    pub fn robots(&self) -> Option<&Robots> {
        match &self.read {
            Read::Rules { robots, .. } => Some(robots),
            Read::Origin(_) => None,
        }
    }

    /// What the file says of the feed URL `path_and_query`, and the crawl-delay it asks for.
    pub fn gate(&self, path_and_query: &str) -> RobotsAnswer {
        self.gate_for(path_and_query, Scope::Feed)
    }

    /// What the file says of `path_and_query` for a request of `scope`: a feed obeys the `*`
    /// group only under a profile that says so (SR8); every other resource obeys it when no
    /// group names the bot (SR7, FF11).
    pub fn gate_for(&self, path_and_query: &str, scope: Scope) -> RobotsAnswer {
        match &self.read {
            Read::Origin(gate) => RobotsAnswer {
                gate: gate.clone(),
                crawl_delay: None,
            },
            Read::Rules {
                robots,
                feed,
                other,
                star,
                crawl_delay,
                gates,
            } => {
                let (selection, star) = match scope {
                    Scope::Feed => (feed, *star),
                    Scope::Other => (other, true),
                };
                RobotsAnswer {
                    gate: gates.of(&robots.check_selected(selection, path_and_query), star),
                    crawl_delay: *crawl_delay,
                }
            }
        }
    }
}

/// What a request is for, as far as robots.txt is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A feed URL, read for its subscribers.
    Feed,
    /// Any other resource: an article page, an icon, an image.
    Other,
}

/// What became of the robots.txt request, for reasons: `body_read` is whether a body was
/// kept.
fn describe(status: Option<u16>, body_read: bool) -> String {
    match status {
        Some(s @ 200..=299) if !body_read => format!(
            "robots.txt answered {s} with a body that could not be read (larger than the \
             profile's fetch.max_body_bytes, or broken)"
        ),
        Some(s) => format!("robots.txt answered {s}"),
        None => "robots.txt did not answer".into(),
    }
}

fn on_failure(choice: OnRobotsFailure) -> OnFailure {
    match choice {
        OnRobotsFailure::Allow => OnFailure::Allow,
        OnRobotsFailure::Disallow => OnFailure::Disallow,
        OnRobotsFailure::Defer => OnFailure::Defer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &[u8] =
        b"User-agent: *\nDisallow: /private\n\nUser-agent: SereneReader\nDisallow: /feeds/secret\n";

    fn profile(token: &str, star: bool, server_error: OnRobotsFailure) -> Profile {
        let mut p = Profile::embedded("default").unwrap();
        p.robots.token = token.into();
        p.robots.star_group_for_feeds = star;
        p.robots.on_server_error = server_error;
        p
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z")
            .unwrap()
            .into()
    }

    fn stored(status: Option<u16>, body: &[u8]) -> StoredRobots<'_> {
        StoredRobots {
            fetched_at: now(),
            status,
            body: Some(body),
        }
    }

    /// One row: (profile, stored file, path) → the gate, as its kind and reason.
    fn check_row(p: &Profile, s: &StoredRobots<'_>, path: &str, want: RobotsGate) {
        assert_eq!(
            gate_for_feed(s, path, p).gate,
            want,
            "{path} with {:?}",
            s.status
        );
    }

    /// One copy asked about many paths: each rule's reason is written once and every path
    /// it decides gets that reason; another rule, or no rule, gets its own.
    #[test]
    fn a_copys_reasons_follow_the_rule_that_decided() {
        let p = profile("SereneReader", true, OnRobotsFailure::Disallow);
        let file = b"User-agent: SereneReader\nDisallow: /a\nAllow: /a/open\nDisallow: /b\n";
        let rules = RobotsRules::read(&stored(Some(200), file), &p);
        let reason = |path: &str| match rules.gate(path).gate {
            RobotsGate::Allowed(r) | RobotsGate::Denied(r) | RobotsGate::Deferred(r) => r,
        };
        let a = reason("/a/1");
        assert_eq!(
            &*a,
            "robots: disallowed by group SereneReader line 2: Disallow: /a"
        );
        assert!(Arc::ptr_eq(&a, &reason("/a/2")), "written once");
        assert_eq!(
            &*reason("/a/open/x"),
            "robots: allowed by group SereneReader line 3: Allow: /a/open"
        );
        assert_eq!(
            &*reason("/b"),
            "robots: disallowed by group SereneReader line 4: Disallow: /b"
        );
        assert_eq!(
            &*reason("/c"),
            "robots: allowed by group SereneReader: no rule matched"
        );
        assert_eq!(
            &*reason("/robots.txt"),
            "robots: allowed: /robots.txt is always allowed"
        );
        assert_eq!(&*reason("/a/3"), &*a);
        assert!(
            Arc::ptr_eq(&reason("/b"), &reason("/b/2")),
            "a later rule's reason is written once too"
        );
        assert_eq!(
            rules.clone(),
            rules,
            "the memo is no part of what the copy says"
        );
    }

    /// SR7, SR8: under a profile whose feeds ignore the `*` group, an article page or icon
    /// still obeys it when no group names the bot; a group that does name it binds both.
    #[test]
    fn sr7_sr8_pages_obey_the_star_group_that_feeds_ignore() {
        let p = Profile::embedded("serenereader").unwrap();
        let star_only = RobotsRules::read(
            &stored(Some(200), b"User-agent: *\nDisallow: /private\n"),
            &p,
        );
        let allowed = |a: RobotsAnswer| matches!(a.gate, RobotsGate::Allowed(_));
        assert!(allowed(
            star_only.gate_for("/private/feed.xml", Scope::Feed)
        ));
        assert!(!allowed(
            star_only.gate_for("/private/a.html", Scope::Other)
        ));
        assert!(allowed(star_only.gate_for("/public/a.html", Scope::Other)));
        // The same path asked for both: each scope keeps its own reason.
        assert!(allowed(star_only.gate_for("/private/x", Scope::Feed)));
        assert!(!allowed(star_only.gate_for("/private/x", Scope::Other)));
        let own = RobotsRules::read(
            &stored(
                Some(200),
                b"User-agent: *\nDisallow: /\n\nUser-agent: SereneReader\nDisallow: /secret\n",
            ),
            &p,
        );
        assert!(allowed(own.gate_for("/a.html", Scope::Other)));
        assert!(!allowed(own.gate_for("/secret/a.html", Scope::Other)));
        assert!(!allowed(own.gate_for("/secret/feed.xml", Scope::Feed)));
    }

    /// A file whose rules decide many paths: every reason is still its own rule's, and the
    /// copy keeps only the first few.
    #[test]
    fn a_copy_keeps_a_bounded_number_of_reasons() {
        let p = profile("SereneReader", true, OnRobotsFailure::Disallow);
        let mut file = String::from("User-agent: SereneReader\n");
        for i in 0..200 {
            file.push_str(&format!("Disallow: /r{i}/\n"));
        }
        let rules = RobotsRules::read(&stored(Some(200), file.as_bytes()), &p);
        for i in 0..200 {
            let RobotsGate::Denied(reason) = rules.gate(&format!("/r{i}/x")).gate else {
                panic!("/r{i}/x allowed");
            };
            assert!(
                reason.ends_with(&format!("line {}: Disallow: /r{i}/", i + 2)),
                "{reason}"
            );
        }
        let Read::Rules { gates, .. } = &rules.read else {
            panic!("no rules read");
        };
        assert!(gates.first.get().is_some());
        assert_eq!(gates.more.lock().unwrap().len() + 1, MEMO_GATES);
    }

    #[test]
    fn wfm9_own_group_disallow_stops_the_fetch() {
        let p = profile("SereneReader", true, OnRobotsFailure::Disallow);
        check_row(
            &p,
            &stored(Some(200), FILE),
            "/feeds/secret/a.xml",
            RobotsGate::Denied(
                "robots: disallowed by group SereneReader line 5: Disallow: /feeds/secret".into(),
            ),
        );
    }

    #[test]
    fn sr8_star_group_does_not_apply_to_feeds_when_the_profile_says_so() {
        let ignoring = profile("OtherBot", false, OnRobotsFailure::Allow);
        check_row(
            &ignoring,
            &stored(Some(200), FILE),
            "/private/feed.xml",
            RobotsGate::Allowed("robots: allowed: no own group, the * group is ignored".into()),
        );
        let obeying = profile("OtherBot", true, OnRobotsFailure::Allow);
        check_row(
            &obeying,
            &stored(Some(200), FILE),
            "/private/feed.xml",
            RobotsGate::Denied("robots: disallowed by group * line 2: Disallow: /private".into()),
        );
    }

    #[test]
    fn missing_robots_allows_everything() {
        let p = profile("tidings", true, OnRobotsFailure::Disallow);
        for status in [404, 410, 403] {
            check_row(
                &p,
                &stored(Some(status), b""),
                "/feed.xml",
                RobotsGate::Allowed(format!("robots: {status}, everything allowed").into()),
            );
        }
    }

    #[test]
    fn sr10_dfb8_ff11_server_errors_follow_the_profile() {
        let s = stored(Some(503), b"");
        check_row(
            &profile("t", true, OnRobotsFailure::Allow),
            &s,
            "/f",
            RobotsGate::Allowed("robots: 503, everything allowed".into()),
        );
        check_row(
            &profile("t", true, OnRobotsFailure::Disallow),
            &s,
            "/f",
            RobotsGate::Denied("robots: robots.txt answered 503, the profile stays away".into()),
        );
        check_row(
            &profile("t", true, OnRobotsFailure::Defer),
            &s,
            "/f",
            RobotsGate::Deferred("robots: robots.txt answered 503, deferred".into()),
        );
        check_row(
            &profile("t", true, OnRobotsFailure::Allow),
            &stored(None, b""),
            "/f",
            RobotsGate::Deferred("robots: robots.txt did not answer, deferred".into()),
        );
    }

    #[test]
    fn c8_an_unreadable_robots_txt_is_an_answer_under_the_profiles_rule_for_server_errors() {
        // A 2xx whose body could not be read (too large, broken): no rules, no silence.
        let unreadable = StoredRobots {
            fetched_at: now(),
            status: Some(200),
            body: None,
        };
        let says = "robots.txt answered 200 with a body that could not be read (larger than \
                    the profile's fetch.max_body_bytes, or broken)";
        check_row(
            &profile("t", true, OnRobotsFailure::Disallow),
            &unreadable,
            "/f",
            RobotsGate::Denied(format!("robots: {says}, the profile stays away").into()),
        );
        check_row(
            &profile("t", true, OnRobotsFailure::Allow),
            &unreadable,
            "/f",
            RobotsGate::Allowed(format!("robots: {says}, allowed by the profile").into()),
        );
        let mut ff = profile("t", true, OnRobotsFailure::Defer);
        ff.robots.on_unreachable = OnRobotsFailure::Allow;
        check_row(
            &ff,
            &unreadable,
            "/f",
            RobotsGate::Deferred(format!("robots: {says}, deferred").into()),
        );
        // It is read again after the profile's max_age, like any answered file.
        assert!(!deferred_copy_is_due(
            Some(200),
            now(),
            now() + Duration::days(3),
            &ff
        ));
        assert!(needs_refetch(Some(now()), now() + Duration::days(2), &ff));
    }

    /// A gap in seconds converts as `Duration::from_secs_f64` does, whole or not.
    #[test]
    fn c3_a_gap_in_seconds_converts_exactly() {
        for secs in [
            0.0,
            0.05,
            0.5,
            1.0,
            2.0,
            2.5,
            3_600.0,
            86_400.0,
            1e15,
            0.1 + 0.2,
        ] {
            assert_eq!(
                seconds(secs),
                std::time::Duration::from_secs_f64(secs),
                "{secs}"
            );
        }
    }

    #[test]
    fn sr9_crawl_delay_is_honoured_capped_and_skipped_on_first_add_when_the_profile_says() {
        use std::time::Duration as D;
        let mut p = Profile::embedded("default").unwrap();
        p.pacing.host_gap = 1.0;
        p.robots.crawl_delay_cap = 60;
        let cases = [
            (None, false, D::from_secs(1)),
            (Some(D::from_millis(500)), false, D::from_secs(1)),
            (Some(D::from_secs(5)), false, D::from_secs(5)),
            (Some(D::from_secs(600)), false, D::from_secs(60)),
            (Some(D::from_secs(5)), true, D::from_secs(5)),
        ];
        for (delay, first_add, want) in cases {
            assert_eq!(
                host_gap(&p, delay, first_add),
                want,
                "{delay:?} first_add={first_add}"
            );
        }
        p.robots.first_add_skips_crawl_delay = true;
        assert_eq!(host_gap(&p, Some(D::from_secs(5)), true), D::from_secs(1));
        assert_eq!(host_gap(&p, Some(D::from_secs(5)), false), D::from_secs(5));
        p.robots.crawl_delay = false;
        assert_eq!(host_gap(&p, Some(D::from_secs(5)), false), D::from_secs(1));
        let s = stored(Some(200), b"User-agent: *\nCrawl-delay: 2.5\n");
        assert_eq!(
            gate_for_feed(&s, "/f", &p).crawl_delay,
            Some(D::from_millis(2500))
        );
        let missing = stored(Some(404), b"Crawl-delay: 2");
        assert_eq!(gate_for_feed(&missing, "/f", &p).crawl_delay, None);
    }

    #[test]
    fn dfb7_robots_is_read_again_when_older_than_the_profile_allows() {
        let p = Profile::embedded("default").unwrap();
        let day = Duration::seconds(86_400);
        assert!(needs_refetch(None, now(), &p));
        assert!(!needs_refetch(
            Some(now() - day + Duration::seconds(1)),
            now(),
            &p
        ));
        assert!(needs_refetch(Some(now() - day), now(), &p));
        assert!(
            needs_refetch(Some(now() + Duration::hours(1)), now(), &p),
            "a copy from the future is not trusted"
        );
    }

    /// FF11: a crawl-delay longer than the request window pauses the host's work until the
    /// full delay has passed, instead of shortening it; SR9 caps it instead.
    #[test]
    fn ff11_a_long_crawl_delay_pauses_rather_than_shortens() {
        use std::time::Duration as D;
        let ff = Profile::embedded("ffbot").unwrap();
        let delay = Some(D::from_secs(300));
        assert_eq!(
            crawl_delay_pause(&ff, delay, Some(D::from_secs(10))),
            Some(D::from_secs(290))
        );
        assert_eq!(crawl_delay_pause(&ff, delay, Some(D::from_secs(300))), None);
        assert_eq!(
            crawl_delay_pause(&ff, delay, None),
            None,
            "nothing sent yet"
        );
        assert_eq!(
            crawl_delay_pause(&ff, Some(D::from_secs(30)), Some(D::ZERO)),
            None,
            "within the window the gate paces it"
        );
        assert_eq!(
            host_gap(&ff, Some(D::from_secs(30)), false),
            D::from_secs(30)
        );
        let sr = Profile::embedded("serenereader").unwrap();
        assert_eq!(crawl_delay_pause(&sr, delay, Some(D::ZERO)), None);
        assert_eq!(host_gap(&sr, delay, false), D::from_secs(60), "SR9 cap");
        assert_eq!(
            host_gap(&sr, delay, true),
            D::from_secs(1),
            "SR9 first add: the own gap only"
        );
    }

    /// The seed profiles' robots settings are the pages' (WFM9, SR8, SR10, DFB7, DFB8, FF11).
    #[test]
    fn seed_profiles_read_robots_as_their_pages_say() {
        let get = |n: &str| Profile::embedded(n).unwrap().robots;
        assert_eq!(get("wfm").token, "WorldFeedMonitor");
        let sr = get("sr");
        assert_eq!(
            (
                sr.token.as_str(),
                sr.star_group_for_feeds,
                sr.on_server_error
            ),
            ("SereneReader", false, OnRobotsFailure::Allow)
        );
        let dfb = get("dfb");
        assert_eq!(
            (dfb.star_group_for_feeds, dfb.on_server_error, dfb.max_age),
            (true, OnRobotsFailure::Disallow, 86_400)
        );
        let ff = get("ff");
        assert_eq!(
            (ff.on_server_error, ff.on_unreachable),
            (OnRobotsFailure::Defer, OnRobotsFailure::Defer)
        );
    }

    /// FF11: a robots.txt the profile deferred on is asked again after `backoff.first`; one
    /// that allowed, or a failure the profile reads otherwise, waits `max_age` (DFB7).
    #[test]
    fn ff11_a_deferred_robots_txt_is_asked_again_soon() {
        let ff = Profile::embedded("ffbot").unwrap();
        let at = now() - Duration::minutes(20);
        assert!(deferred_copy_is_due(Some(503), at, now(), &ff));
        assert!(deferred_copy_is_due(None, at, now(), &ff));
        assert!(!deferred_copy_is_due(
            Some(503),
            now() - Duration::minutes(5),
            now(),
            &ff
        ));
        assert!(!deferred_copy_is_due(Some(200), at, now(), &ff));
        assert!(!deferred_copy_is_due(Some(404), at, now(), &ff));
        let dfb = Profile::embedded("dailyfootballbot").unwrap();
        assert!(
            !deferred_copy_is_due(Some(503), at, now(), &dfb),
            "DFB8 stays away"
        );
    }

    /// A copy's renewal is worked out once, with what it says, and answers as the two rules
    /// do at every age: just before and at `backoff.first` and `max_age`.
    #[test]
    fn dfb7_ff11_a_copys_renewal_is_the_rules_worked_out_once() {
        for name in ["ffbot", "dailyfootballbot", "default"] {
            let p = Profile::embedded(name).unwrap();
            let first = i64::try_from(p.backoff.first).unwrap();
            let max_age = i64::try_from(p.robots.max_age).unwrap();
            for status in [None, Some(200), Some(404), Some(403), Some(503)] {
                let copy = StoredRobots {
                    fetched_at: now(),
                    status,
                    body: Some(b"User-agent: *\nDisallow: /x\n"),
                };
                let renewal = *RobotsRules::read(&copy, &p).renewal();
                for secs in [-1, 0, first - 1, first, max_age - 1, max_age] {
                    let at = now() + Duration::seconds(secs);
                    let case = format!("{name} {status:?} after {secs}s");
                    assert_eq!(renewal.is_stale(at), secs < 0 || secs >= max_age, "{case}");
                    assert_eq!(
                        renewal.is_stale(at),
                        needs_refetch(Some(now()), at, &p),
                        "{case}"
                    );
                    assert_eq!(
                        renewal.retry_is_due(at),
                        deferred_copy_is_due(status, now(), at, &p),
                        "{case}"
                    );
                }
            }
        }
    }
}
