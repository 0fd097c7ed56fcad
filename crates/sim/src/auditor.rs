//! The auditor: a pure check of a recorded run against the politeness rules of POLICY.md.
//!
//! [`audit`] takes the exchanges (from a [`Recorder`](crate::Recorder) or built by hand) and the
//! run's [`Expectations`], and returns every [`Violation`] found, each naming its rule and the
//! offending exchanges. It reads no clock: all times come from the exchanges.
//!
//! Rules checked:
//! - **C1** one constant User-Agent on every request ([`Rule::UserAgent`]);
//! - **C3** never two requests in flight to one virtual host, by name ([`Rule::InFlight`]), and
//!   never closer than the host's gap, end of one to start of the next ([`Rule::Gap`]);
//! - **C4** validators echoed byte for byte ([`Rule::ValidatorEcho`]) and no unconditional
//!   request once validators were offered ([`Rule::Unconditional`]);
//! - **C6** no request to a resource before the Retry-After it was given ([`Rule::RetryAfter`]);
//! - **FF11** (WFM9, SR7/SR8, DFB7) no URL the host's robots rules disallow ([`Rule::Robots`]),
//!   and optionally robots.txt read before anything else ([`Rule::RobotsFirst`]);
//! - **FF13** (WFM10) no blocked URL ([`Rule::Blocked`]);
//! - **WFM1, DFB1, PF13** (and each profile's `requests.purposes`) when the run names what
//!   it may request ([`Expectations::purposes`]): nothing but robots.txt and the feeds it
//!   subscribed (and their redirect hops), unless the profile requests pages, icons or images
//!   ([`Rule::Purpose`]); **FF15** never a file written for AI agents (`llms.txt`, `ai.txt`,
//!   `AGENTS.md`), whatever the profile ([`Rule::NeverRead`]);
//! - **SR11** when the run signs ([`Expectations::signatures`]), a good Web Bot Auth signature
//!   on every request, robots.txt and redirect hops included ([`Rule::Signature`]), checked by
//!   [`verify_request`] against the key directory on the chosen clock.
//!
//! Server-side times are inside the client's: a request is in flight on the server for a subset
//! of the time it is in flight for the crawler, so overlaps found here are real; gaps measured
//! here can only be longer than the crawler's, so a gap violation found here is real too.
//!
//! Except at the end of an exchange the client abandoned ([`Exchange::abandoned`]): there the
//! web stamps the end when it stops writing or notices the hang-up, which can be later than the
//! client's own end. So C3 measures such an exchange from a moment the client had surely not
//! yet left it:
//! - an answered one (the client stopped reading the body: a body cap, a time-out): its
//!   response head, the last moment the web knows the client was still reading. The web cannot
//!   know how much more the client read, and it may go on writing the rest for a while after
//!   the client stopped: into the kernel's socket buffers, and into the client's own receive
//!   buffer until the client's HTTP stack gets round to closing the abandoned connection (an
//!   async client does that in a task of its own, a moment after the caller moved on);
//!
//!   The same holds for an answer whose body is longer than the client's cap
//!   ([`Expectations::body_cap`]), even when the web saw it taken whole;
//! - an unanswered one (the client timed out waiting): the web's notice of the hang-up, less
//!   [`Expectations::hang_up_notice`], the time the web may take to notice (no earlier than the
//!   request's arrival). Zero by default; it matters where real time is sped up (one real
//!   millisecond of noticing is 0.6 s of scenario time at a time scale of 600).

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::time::{Duration, SystemTime};

use crate::recorder::{Exchange, Stamp, bytes_to_string};
use crate::signatures::{DEFAULT_SKEW, KeyDirectory, verify_request};

/// The path exempt from robots rules and from conditional-request rules by default.
pub const ROBOTS_PATH: &str = "/robots.txt";

/// A politeness rule the auditor checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// C1: the same User-Agent on every request.
    UserAgent,
    /// C3: at most one request in flight per host.
    InFlight,
    /// C3: requests to a host spaced by its minimum gap.
    Gap,
    /// C4: If-None-Match / If-Modified-Since equal the last ETag / Last-Modified, byte for byte.
    ValidatorEcho,
    /// C4: only the first fetch of a resource is unconditional once validators were offered.
    Unconditional,
    /// C6: Retry-After on 429/503 is a floor for the next request to that resource.
    RetryAfter,
    /// FF11: no request to a URL the host's robots rules disallow.
    Robots,
    /// FF11: robots.txt is requested before any other URL of the host.
    RobotsFirst,
    /// FF13: no request to a blocked URL.
    Blocked,
    /// SR11: every request carries a Web Bot Auth signature that verifies.
    Signature,
    /// WFM1, DFB1, PF13: only the kinds of resource the profile requests.
    Purpose,
    /// FF15: no request for llms.txt, ai.txt or AGENTS.md.
    NeverRead,
    /// SR1: an article page read once: never asked again after it was read.
    PageOnce,
    /// SR4, SR6: a page or icon that failed is asked again only after its wait: the retry
    /// steps, then the hold, and a permanent failure only after it is remembered.
    PageRetry,
    /// SR1: at most one icon request per site in the profile's window (retries of one URL
    /// apart).
    IconWindow,
}

impl Rule {
    /// The POLICY.md identifier.
    pub fn id(self) -> &'static str {
        match self {
            Rule::UserAgent => "C1",
            Rule::InFlight | Rule::Gap => "C3",
            Rule::ValidatorEcho | Rule::Unconditional => "C4",
            Rule::RetryAfter => "C6",
            Rule::Robots | Rule::RobotsFirst => "FF11",
            Rule::Blocked => "FF13",
            Rule::Signature => "SR11",
            Rule::Purpose => "WFM1/DFB1/PF13",
            Rule::NeverRead => "FF15",
            Rule::PageOnce | Rule::IconWindow => "SR1",
            Rule::PageRetry => "SR4/SR6",
        }
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    /// Ids of the offending exchanges: the earlier one first when two are involved.
    pub exchanges: Vec<u64>,
    /// What was wrong, in words.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:?} (exchanges {:?}): {}",
            self.rule.id(),
            self.rule,
            self.exchanges,
            self.detail
        )
    }
}

/// Which clock gaps (and signature windows) are measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeBase {
    /// Scenario time (the crawler runs with `--time-scale` matching a scaled clock).
    #[default]
    Scenario,
    /// Real time: monotonic for gaps, wall time for signature windows (a signature's times
    /// are Unix seconds).
    Monotonic,
}

/// The robots rules that apply to the crawler on one host: the group it obeys, already chosen.
/// Matching follows RFC 9309: `*` matches any run, a final `$` anchors, the longest pattern
/// wins and Allow wins a tie. Patterns are compared as given (no percent-decoding).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsRules {
    /// `(allow, pattern)` pairs.
    pub rules: Vec<(bool, String)>,
    /// The group's crawl-delay, when it has a valid one.
    pub crawl_delay: Option<Duration>,
}

impl RobotsRules {
    /// The rules a robots.txt `text` sets for product token `agent`: every group naming it
    /// (case-insensitive; `Token/1.0` counts as `Token`) merged, else every `*` group merged,
    /// else none. A small independent reading for checking the crawler, not the crawler's parser.
    pub fn from_robots_txt(text: &str, agent: &str) -> RobotsRules {
        let mut own = RobotsRules::default();
        let mut star = RobotsRules::default();
        let (mut found_own, mut found_star) = (false, false);
        // The current group's agents: (names us, names `*`); a rule after agents closes the list.
        let mut current = (false, false);
        let mut in_rules = true;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or_default().trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
            if key == "user-agent" {
                if in_rules {
                    current = (false, false);
                    in_rules = false;
                }
                let token = value.split('/').next().unwrap_or_default().trim();
                current.0 |= token.eq_ignore_ascii_case(agent);
                current.1 |= token == "*";
                found_own |= current.0;
                found_star |= current.1;
                continue;
            }
            in_rules = true;
            let rule = match key.as_str() {
                "allow" => Some((true, value.to_string())),
                "disallow" => Some((false, value.to_string())),
                _ => None,
            };
            let delay = (key == "crawl-delay")
                .then(|| value.parse::<f64>().ok())
                .flatten()
                .filter(|d| d.is_finite() && *d >= 0.0)
                .map(Duration::from_secs_f64);
            for (applies, rules) in [(current.0, &mut own), (current.1, &mut star)] {
                if !applies {
                    continue;
                }
                if let Some(r) = rule.clone() {
                    rules.rules.push(r);
                }
                if delay.is_some() {
                    rules.crawl_delay = delay;
                }
            }
        }
        match (found_own, found_star) {
            (true, _) => own,
            (false, true) => star,
            (false, false) => RobotsRules::default(),
        }
    }

    /// Rules from `Disallow` patterns only.
    pub fn disallow(patterns: &[&str]) -> RobotsRules {
        RobotsRules {
            rules: patterns.iter().map(|p| (false, (*p).to_string())).collect(),
            crawl_delay: None,
        }
    }

    /// Add an `Allow` pattern.
    pub fn allow(mut self, pattern: &str) -> RobotsRules {
        self.rules.push((true, pattern.into()));
        self
    }

    /// The Disallow pattern that forbids `target` (path and query), if one decides.
    pub fn disallowing(&self, target: &str) -> Option<&str> {
        let mut best: Option<(usize, bool, &str)> = None;
        for (allow, pattern) in &self.rules {
            if pattern.is_empty() || !robots_match(pattern, target) {
                continue;
            }
            let len = pattern.len();
            let better = match best {
                None => true,
                Some((l, a, _)) => len > l || (len == l && *allow && !a),
            };
            if better {
                best = Some((len, *allow, pattern));
            }
        }
        match best {
            Some((_, false, p)) => Some(p),
            _ => None,
        }
    }
}

/// Whether robots `pattern` matches the start of `target` (or all of it, with a final `$`).
fn robots_match(pattern: &str, target: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let Some((first, rest)) = parts.split_first() else {
        return true;
    };
    let Some(mut tail) = target.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return !anchored || tail.is_empty();
    };
    for part in middle {
        match tail.find(part) {
            Some(i) => tail = tail.get(i + part.len()..).unwrap_or_default(),
            None => return false,
        }
    }
    if anchored {
        tail.ends_with(last)
    } else {
        tail.contains(last)
    }
}

/// A do-not-crawl decision the run was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// One URL: host and path-and-query.
    Url { host: String, target: String },
    /// Every path on `host` starting with `prefix`.
    Prefix { host: String, prefix: String },
    /// A whole host.
    Host(String),
}

impl Block {
    fn covers(&self, e: &Exchange) -> bool {
        match self {
            Block::Url { host, target } => *host == e.host && *target == e.target,
            Block::Prefix { host, prefix } => *host == e.host && e.target.starts_with(prefix),
            Block::Host(host) => *host == e.host,
        }
    }
}

/// How the run's Web Bot Auth signatures are checked (SR11).
#[derive(Debug, Clone)]
pub struct SignatureCheck {
    /// The keys the signer publishes.
    pub directory: KeyDirectory,
    /// The clock a request's arrival is read on to judge `created` and `expires`: scenario
    /// time ([`Stamp::sim`]) or real wall time ([`Stamp::wall`]).
    pub clock: TimeBase,
    /// The clock difference allowed between signer and web (see [`crate::signatures`]).
    pub skew: Duration,
}

impl SignatureCheck {
    /// Check against `directory` on scenario time, with [`DEFAULT_SKEW`].
    pub fn new(directory: KeyDirectory) -> SignatureCheck {
        SignatureCheck {
            directory,
            clock: TimeBase::Scenario,
            skew: DEFAULT_SKEW,
        }
    }
}

/// The kinds of resource a request may be for, as the auditor tells them apart: by the path
/// (robots.txt, the subscribed feeds and the redirect hops the web answered for them), else by
/// what the web served (an image, an icon, a page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Requested {
    Robots,
    Feed,
    /// An HTML page (an article page, a page inspected for feeds) or anything unknown.
    Page,
    Icon,
    Image,
    /// A WebSub subscription asked of a hub (the only request tidings sends as a `POST`).
    Hub,
}

/// What a run may request: the kinds its profile lists, and the feeds it subscribed.
#[derive(Debug, Clone, Default)]
pub struct PurposeCheck {
    pub allowed: Vec<Requested>,
    /// The subscribed feeds, as (virtual host, path and query).
    pub feeds: Vec<(String, String)>,
}

/// Files written for AI agents, never read as permissions or instructions (FF15): listed here
/// apart from the crawler's own list, so the check does not lean on what it checks.
const NEVER_READ: &[&str] = &[
    "/llms.txt",
    "/llms-full.txt",
    "/ai.txt",
    "/.well-known/ai.txt",
    "/agents.md",
];

/// What a run promised.
#[derive(Debug, Clone)]
pub struct Expectations {
    /// The User-Agent every request must carry; `None` takes the first request's.
    pub user_agent: Option<Vec<u8>>,
    /// The User-Agent names each feed's subscriber count (PF10): instead of one User-Agent
    /// for the run, each feed (host and target) keeps the one its first request carried, and
    /// every request must carry one (robots.txt too, with the count of the feed it was read
    /// for). `user_agent` then gives only what every User-Agent starts with.
    pub user_agent_per_feed: bool,
    /// Minimum gap between requests to a host, unless `gaps` names the host.
    pub default_gap: Duration,
    /// Per-host minimum gaps (profile gap or crawl-delay).
    pub gaps: HashMap<String, Duration>,
    /// The clock gaps are measured on.
    pub gap_clock: TimeBase,
    /// The robots rules in force per host.
    pub robots: HashMap<String, RobotsRules>,
    /// Hosts whose robots.txt must be requested before anything else there.
    pub robots_first: Vec<String>,
    /// Do-not-crawl decisions.
    pub blocked: Vec<Block>,
    /// Paths exempt from the conditional-request rules (robots.txt by default).
    pub unconditional_ok: Vec<String>,
    /// Keep validators per client address rather than per run (a crawler's egress addresses
    /// normally share one store, so off by default).
    pub validators_per_peer: bool,
    /// The most body bytes the client reads, when it has a cap: an answer with a longer body
    /// was not read to the end by the client, though the web may have seen it taken whole (the
    /// client's HTTP stack may read on in the background after the client moved on), so C3
    /// measures it like an abandoned one, from its head. `None` by default.
    pub body_cap: Option<u64>,
    /// How long after a client hung up on a request that got no answer the web may stamp the
    /// end, in real (monotonic) time: the web learns of the hang-up only when its connection
    /// task next runs. C3 measures from that stamp less this (on the scenario clock: the
    /// scenario time that passed meanwhile, read off the exchange's own stamps). Zero by
    /// default.
    pub hang_up_notice: Duration,
    /// Every request must carry a Web Bot Auth signature that verifies (SR11). `None` (the
    /// default) checks no signature.
    pub signatures: Option<SignatureCheck>,
    /// What the run may request (WFM1, DFB1, PF13). `None` (the default) checks nothing of
    /// it; FF15's files are flagged either way.
    pub purposes: Option<PurposeCheck>,
    /// What the run may ask of each article page and icon (SR1, SR4, SR6); needs
    /// `purposes` to tell feeds from pages. `None` (the default) checks nothing of it.
    pub pages: Option<crate::budget::PageBudget>,
    /// The web wrote its HTTP-dates in real time, as a real server does: a Retry-After date is
    /// then a real instant, checked on the wall clock. True when the web's clock follows real
    /// time ([`SimClock::wall_of`](crate::SimClock::wall_of)); false (the default, a manual
    /// clock) reads a date as a scenario instant.
    pub dates_on_wall: bool,
}

impl Default for Expectations {
    fn default() -> Expectations {
        Expectations {
            user_agent: None,
            user_agent_per_feed: false,
            default_gap: Duration::ZERO,
            gaps: HashMap::new(),
            gap_clock: TimeBase::default(),
            robots: HashMap::new(),
            robots_first: Vec::new(),
            blocked: Vec::new(),
            unconditional_ok: vec![ROBOTS_PATH.into()],
            validators_per_peer: false,
            body_cap: None,
            hang_up_notice: Duration::ZERO,
            signatures: None,
            dates_on_wall: false,
            purposes: None,
            pages: None,
        }
    }
}

impl Expectations {
    fn gap(&self, host: &str) -> Duration {
        self.gaps.get(host).copied().unwrap_or(self.default_gap)
    }
}

/// Every violation in `exchanges` (any order) of the rules in the module docs.
pub fn audit(exchanges: &[Exchange], expect: &Expectations) -> Vec<Violation> {
    let mut ordered: Vec<&Exchange> = exchanges.iter().collect();
    ordered.sort_by_key(|e| (e.started.mono, e.id));
    let mut out = Vec::new();
    user_agent(&ordered, expect, &mut out);
    pacing(&ordered, expect, &mut out);
    validators(&ordered, expect, &mut out);
    retry_after(&ordered, expect.dates_on_wall, &mut out);
    robots_and_blocks(&ordered, expect, &mut out);
    signatures(&ordered, expect, &mut out);
    let kinds = purposes(&ordered, expect, &mut out);
    if let Some(budget) = &expect.pages {
        crate::budget::pages(&ordered, &kinds, budget, &mut out);
    }
    out
}

/// What each request was for (by exchange id), and the requests the profile does not make.
fn purposes(
    ordered: &[&Exchange],
    expect: &Expectations,
    out: &mut Vec<Violation>,
) -> HashMap<u64, Requested> {
    let mut kinds = HashMap::new();
    let mut feeds: Vec<(String, String)> = expect
        .purposes
        .as_ref()
        .map(|p| p.feeds.clone())
        .unwrap_or_default();
    for e in ordered {
        if NEVER_READ.iter().any(|p| e.path().eq_ignore_ascii_case(p)) {
            out.push(violation(
                Rule::NeverRead,
                vec![e.id],
                format!(
                    "{} {} on {}: a file never read (FF15)",
                    e.method, e.target, e.host
                ),
            ));
        }
        let Some(check) = &expect.purposes else {
            continue;
        };
        let key = (e.host.clone(), e.target.clone());
        let kind = if e.method.eq_ignore_ascii_case("POST") {
            Requested::Hub
        } else if e.path() == ROBOTS_PATH {
            Requested::Robots
        } else if feeds.contains(&key) {
            Requested::Feed
        } else {
            served_kind(e)
        };
        // A feed's redirect hop is that feed, at its next address.
        if kind == Requested::Feed
            && matches!(e.status, Some(300..=399))
            && let Some(next) = e
                .response_header("location")
                .and_then(|l| hop_target(&e.host, &bytes_to_string(l)))
        {
            feeds.push(next);
        }
        kinds.insert(e.id, kind);
        if !check.allowed.contains(&kind) {
            out.push(violation(
                Rule::Purpose,
                vec![e.id],
                format!(
                    "{} {} on {}: a request for {kind:?}, which the profile does not make",
                    e.method, e.target, e.host
                ),
            ));
        }
    }
    kinds
}

/// What the web served, for a request that is neither robots.txt nor a feed.
fn served_kind(e: &Exchange) -> Requested {
    let content_type = e
        .response_header("content-type")
        .map(|t| bytes_to_string(t).to_ascii_lowercase())
        .unwrap_or_default();
    let path = e.path().to_ascii_lowercase();
    if content_type.contains("icon")
        || path.ends_with("/favicon.ico")
        || path.contains("apple-touch-icon")
    {
        Requested::Icon
    } else if content_type.starts_with("image/") {
        Requested::Image
    } else {
        Requested::Page
    }
}

/// The (virtual host, path and query) a `Location` leads to from `host`: a path on the same
/// host, or an absolute http(s) URL.
fn hop_target(host: &str, location: &str) -> Option<(String, String)> {
    if location.starts_with('/') && !location.starts_with("//") {
        return Some((host.to_owned(), location.to_owned()));
    }
    let rest = location
        .strip_prefix("http://")
        .or_else(|| location.strip_prefix("https://"))?;
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let name = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    Some((name.to_ascii_lowercase(), path.to_owned()))
}

pub(crate) fn violation(rule: Rule, exchanges: Vec<u64>, detail: String) -> Violation {
    Violation {
        rule,
        exchanges,
        detail,
    }
}

fn user_agent(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    if expect.user_agent_per_feed {
        return user_agent_per_feed(ordered, expect, out);
    }
    let expected: Option<&[u8]> = match &expect.user_agent {
        Some(ua) => Some(ua.as_slice()),
        None => ordered.first().and_then(|e| e.header("user-agent")),
    };
    for e in ordered {
        let sent = e.header("user-agent");
        if sent != expected {
            let show = |v: Option<&[u8]>| v.map_or_else(|| "none".to_string(), bytes_to_string);
            out.push(violation(
                Rule::UserAgent,
                vec![e.id],
                format!("user-agent {:?}, expected {:?}", show(sent), show(expected)),
            ));
        }
    }
}

/// PF10: one User-Agent per feed for the whole run (its count moves only when its
/// subscriptions do, which a scenario does not do mid-run), never a missing one, each starting
/// with the expected prefix.
fn user_agent_per_feed(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    let show = |v: Option<&[u8]>| v.map_or_else(|| "none".to_string(), bytes_to_string);
    let mut first: HashMap<(&str, &str), Option<&[u8]>> = HashMap::new();
    for e in ordered {
        let sent = e.header("user-agent");
        let prefix_ok = match (&expect.user_agent, sent) {
            (_, None) => false,
            (Some(prefix), Some(ua)) => ua.starts_with(prefix),
            (None, Some(_)) => true,
        };
        if !prefix_ok {
            out.push(violation(
                Rule::UserAgent,
                vec![e.id],
                format!("user-agent {:?} is not the bot's", show(sent)),
            ));
            continue;
        }
        if e.path() == ROBOTS_PATH {
            continue;
        }
        let want = *first
            .entry((e.host.as_str(), e.target.as_str()))
            .or_insert(sent);
        if sent != want {
            out.push(violation(
                Rule::UserAgent,
                vec![e.id],
                format!(
                    "user-agent {:?} for {}{}, which was read as {:?}",
                    show(sent),
                    e.host,
                    e.target,
                    show(want)
                ),
            ));
        }
    }
}

fn pacing(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    // Per host: the earlier exchange that ends last for the client, with that end (None:
    // never ended).
    let mut latest: HashMap<&str, (&Exchange, Option<Stamp>)> = HashMap::new();
    for e in ordered {
        if let Some((prev, prev_end)) = latest.get(e.host.as_str()) {
            let overlaps = prev_end.is_none_or(|end| e.started.mono < end.mono);
            let noted = if stopped_early(prev, expect) {
                format!(
                    " (left early by the client: measured from {})",
                    end_kind(prev)
                )
            } else {
                String::new()
            };
            if overlaps {
                out.push(violation(
                    Rule::InFlight,
                    vec![prev.id, e.id],
                    format!(
                        "{} {} started while {} was in flight on {}{noted}",
                        e.method, e.target, prev.target, e.host
                    ),
                ));
            } else if let Some(end) = prev_end {
                let gap = elapsed(*end, e.started, expect.gap_clock);
                let min = expect.gap(&e.host);
                if gap < min {
                    out.push(violation(
                        Rule::Gap,
                        vec![prev.id, e.id],
                        format!(
                            "{} {} came {gap:?} after the previous request to {}, minimum \
                             {min:?}{noted}",
                            e.method, e.target, e.host
                        ),
                    ));
                }
            }
        }
        let end = client_end(e, expect);
        let keep_prev =
            latest
                .get(e.host.as_str())
                .is_some_and(|(_, prev_end)| match (prev_end, end) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(p), Some(n)) => p.mono >= n.mono,
                });
        if !keep_prev {
            latest.insert(e.host.as_str(), (e, end));
        }
    }
}

/// The latest moment the client can be shown to have still been in exchange `e` (see the module
/// docs): its recorded end, unless the client left it early.
fn client_end(e: &Exchange, expect: &Expectations) -> Option<Stamp> {
    let end = e.ended?;
    if !stopped_early(e, expect) {
        return Some(end);
    }
    Some(match e.responded {
        Some(head) => head,
        None => earlier(e.started, end, expect.hang_up_notice),
    })
}

/// Whether the client left `e` before its end: it abandoned it, or the body was over its cap.
fn stopped_early(e: &Exchange, expect: &Expectations) -> bool {
    e.abandoned()
        || (e.responded.is_some() && expect.body_cap.is_some_and(|cap| e.body_bytes > cap))
}

/// What [`client_end`] measures from, in words.
fn end_kind(e: &Exchange) -> &'static str {
    if e.responded.is_some() {
        "its response head"
    } else {
        "its hang-up noticed, less the allowance for noticing"
    }
}

/// The moment `by` (real time) before `end`, no earlier than `start`; its scenario time is read
/// off the line from `start` to `end` (exact for a clock following real time at a scale).
fn earlier(start: Stamp, end: Stamp, by: Duration) -> Stamp {
    let span = end.mono.saturating_sub(start.mono);
    if by.is_zero() || span.is_zero() {
        return end;
    }
    let at = end.mono.saturating_sub(by).max(start.mono);
    let back = end.mono - at;
    let share = back.as_secs_f64() / span.as_secs_f64();
    let scale = |from: SystemTime, to: SystemTime| {
        let whole = to.duration_since(from).unwrap_or_default();
        to.checked_sub(whole.mul_f64(share))
            .unwrap_or(from)
            .max(from)
    };
    Stamp {
        mono: at,
        wall: scale(start.wall, end.wall),
        sim: scale(start.sim, end.sim),
    }
}

/// Time from `from` to `to` on `clock`, zero if negative.
fn elapsed(from: Stamp, to: Stamp, clock: TimeBase) -> Duration {
    match clock {
        TimeBase::Monotonic => to.mono.saturating_sub(from.mono),
        TimeBase::Scenario => to.sim.duration_since(from.sim).unwrap_or_default(),
    }
}

#[derive(Default)]
struct Offered {
    etag: Option<Vec<u8>>,
    last_modified: Option<Vec<u8>>,
    from: Option<u64>,
}

fn validators(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    let mut state: HashMap<(&str, &str, Option<IpAddr>), Offered> = HashMap::new();
    for e in ordered {
        if expect.unconditional_ok.iter().any(|p| p == e.path()) {
            continue;
        }
        let peer = expect.validators_per_peer.then(|| e.peer.ip());
        let offered = state
            .entry((e.host.as_str(), e.target.as_str(), peer))
            .or_default();
        let inm = e.header("if-none-match");
        let ims = e.header("if-modified-since");
        let mut ids = offered.from.into_iter().collect::<Vec<_>>();
        ids.push(e.id);
        if (offered.etag.is_some() || offered.last_modified.is_some())
            && inm.is_none()
            && ims.is_none()
        {
            out.push(violation(
                Rule::Unconditional,
                ids,
                format!(
                    "unconditional {} {} on {} after validators were offered",
                    e.method, e.target, e.host
                ),
            ));
        } else {
            for (name, sent, known, source) in [
                ("if-none-match", inm, offered.etag.as_deref(), "etag"),
                (
                    "if-modified-since",
                    ims,
                    offered.last_modified.as_deref(),
                    "last-modified",
                ),
            ] {
                if sent != known {
                    let show =
                        |v: Option<&[u8]>| v.map_or_else(|| "none".to_string(), bytes_to_string);
                    out.push(violation(
                        Rule::ValidatorEcho,
                        ids.clone(),
                        format!(
                            "{name} {:?} on {} {}, last {source} sent was {:?}",
                            show(sent),
                            e.host,
                            e.target,
                            show(known)
                        ),
                    ));
                }
            }
        }
        if !e.completed {
            continue;
        }
        match e.status {
            Some(200) => {
                offered.etag = e.response_header("etag").map(<[u8]>::to_vec);
                offered.last_modified = e.response_header("last-modified").map(<[u8]>::to_vec);
                let any = offered.etag.is_some() || offered.last_modified.is_some();
                offered.from = any.then_some(e.id);
            }
            Some(304) => {
                if let Some(etag) = e.response_header("etag") {
                    offered.etag = Some(etag.to_vec());
                    offered.from = Some(e.id);
                }
                if let Some(lm) = e.response_header("last-modified") {
                    offered.last_modified = Some(lm.to_vec());
                    offered.from = Some(e.id);
                }
            }
            _ => {}
        }
    }
}

/// A Retry-After's floor: delta-seconds count on the scenario clock (the crawler's, under
/// `--time-scale`); an HTTP-date is an instant on the clock the web wrote it on (see
/// [`Expectations::dates_on_wall`]).
#[derive(Clone, Copy)]
enum Floor {
    Scenario(SystemTime),
    Wall(SystemTime),
}

fn retry_after(ordered: &[&Exchange], dates_on_wall: bool, out: &mut Vec<Violation>) {
    let mut floors: HashMap<(&str, &str), (Floor, u64)> = HashMap::new();
    for e in ordered {
        let key = (e.host.as_str(), e.target.as_str());
        if let Some((floor, given_by)) = floors.get(&key) {
            let early = match *floor {
                Floor::Scenario(at) => at.duration_since(e.started.sim).ok(),
                Floor::Wall(at) => at.duration_since(e.started.wall).ok(),
            }
            .filter(|early| !early.is_zero());
            if let Some(early) = early {
                out.push(violation(
                    Rule::RetryAfter,
                    vec![*given_by, e.id],
                    format!(
                        "{} {} on {} came {early:?} before its retry-after",
                        e.method, e.target, e.host
                    ),
                ));
            }
        }
        if !matches!(e.status, Some(429 | 503)) {
            continue;
        }
        let Some(value) = e.response_header("retry-after") else {
            continue;
        };
        let given_at = e.responded.unwrap_or(e.started).sim;
        let text = bytes_to_string(value);
        let text = text.trim();
        let floor = match text.parse::<u64>() {
            Ok(secs) => given_at
                .checked_add(Duration::from_secs(secs))
                .map(Floor::Scenario),
            Err(_) => httpdate::parse_http_date(text).ok().map(if dates_on_wall {
                Floor::Wall
            } else {
                Floor::Scenario
            }),
        };
        if let Some(floor) = floor {
            floors.insert(key, (floor, e.id));
        }
    }
}

fn robots_and_blocks(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    let mut robots_read: HashMap<&str, bool> = HashMap::new();
    for e in ordered {
        if let Some(block) = expect.blocked.iter().find(|b| b.covers(e)) {
            out.push(violation(
                Rule::Blocked,
                vec![e.id],
                format!(
                    "{} {} on {} is blocked by {block:?}",
                    e.method, e.target, e.host
                ),
            ));
        }
        if e.path() == ROBOTS_PATH {
            robots_read.insert(e.host.as_str(), true);
            continue;
        }
        if expect.robots_first.contains(&e.host)
            && !robots_read.get(e.host.as_str()).copied().unwrap_or(false)
        {
            out.push(violation(
                Rule::RobotsFirst,
                vec![e.id],
                format!(
                    "{} {} on {} before its robots.txt was read",
                    e.method, e.target, e.host
                ),
            ));
        }
        if let Some(pattern) = expect
            .robots
            .get(&e.host)
            .and_then(|r| r.disallowing(&e.target))
        {
            out.push(violation(
                Rule::Robots,
                vec![e.id],
                format!(
                    "{} {} on {} is disallowed by {pattern:?}",
                    e.method, e.target, e.host
                ),
            ));
        }
    }
}

fn signatures(ordered: &[&Exchange], expect: &Expectations, out: &mut Vec<Violation>) {
    let Some(check) = &expect.signatures else {
        return;
    };
    for e in ordered {
        let now = match check.clock {
            TimeBase::Scenario => e.started.sim,
            TimeBase::Monotonic => e.started.wall,
        };
        if let Err(problem) = verify_request(e, &check.directory, now, check.skew) {
            out.push(violation(
                Rule::Signature,
                vec![e.id],
                format!("{} {} on {}: {problem}", e.method, e.target, e.host),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_txt_own_group_wins_over_star_and_groups_merge() {
        let text = "# hello\nUser-agent: *\nDisallow: /\n\nUser-agent: Other\nUser-Agent: Tidings/1.0\n\
                    Disallow: /private # no\nCrawl-delay: 2.5\nSitemap: http://x/s.xml\n\
                    User-agent: tidings\nAllow: /private/feed\n";
        let own = RobotsRules::from_robots_txt(text, "tidings");
        assert_eq!(
            own.rules,
            [
                (false, "/private".to_string()),
                (true, "/private/feed".to_string())
            ]
        );
        assert_eq!(own.crawl_delay, Some(Duration::from_millis(2500)));
        let star = RobotsRules::from_robots_txt(text, "someone");
        assert_eq!(star.disallowing("/feed"), Some("/"));
        assert_eq!(star.crawl_delay, None);
        assert_eq!(
            RobotsRules::from_robots_txt("Disallow: /\n", "x"),
            RobotsRules::default()
        );
    }

    #[test]
    fn robots_patterns_follow_rfc_9309_longest_match_and_allow_on_ties() {
        let r = RobotsRules::disallow(&["/private", "/*.xml$", "/a"])
            .allow("/private/ok")
            .allow("/a");
        assert_eq!(r.disallowing("/private/x"), Some("/private"));
        assert_eq!(r.disallowing("/private/ok/feed"), None);
        assert_eq!(r.disallowing("/feeds/all.xml"), Some("/*.xml$"));
        assert_eq!(r.disallowing("/feeds/all.xml?x=1"), None);
        assert_eq!(r.disallowing("/a/b"), None, "allow wins a tie");
        assert_eq!(r.disallowing("/public"), None);
        assert_eq!(RobotsRules::disallow(&[""]).disallowing("/x"), None);
        assert_eq!(RobotsRules::disallow(&["/"]).disallowing("/x"), Some("/"));
        assert_eq!(
            RobotsRules::disallow(&["/*/feed*rss"]).disallowing("/b/feed/x.rss"),
            Some("/*/feed*rss")
        );
    }
}
