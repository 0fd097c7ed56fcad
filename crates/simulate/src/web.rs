//! The modelled web: hosts and feeds with a behaviour mix drawn from the seed, answering
//! requests in virtual time. No sockets: an answer is a [`FetchOutcome`] and a duration.
//!
//! The mix (per host unless said otherwise), chosen so every path of the policy is taken:
//! - robots.txt: most allow everything; some disallow `/private/` in the crawler's own group
//!   or in `*`; some answer 404, some 503; some ask a crawl-delay; a few start disallowing
//!   everything to the crawler's token on day two (DFB7);
//! - trouble: most hosts answer; some answer 429 with Retry-After in seconds for two hours a
//!   day, some 503 with Retry-After as an HTTP-date for an hour twice a day, some have 5xx
//!   bursts, some stop answering for an hour every six hours (each attempt then times out with
//!   probability 0.7), a few never answer;
//! - per feed: most are healthy and change every 5 minutes to 14 days; ETag, Last-Modified,
//!   both, or no validators (the content-hash path); some answer 403 for good, some 404, some
//!   410, some serve a page that is no feed.

use crate::rng::{hash, log_range, range, unit};
use crate::script::{Script, Step};
use chrono::{DateTime, Duration, Utc};
use std::fmt::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use tidings_model::{CacheHints, FetchOutcome, Fetched, RetryAfter, TransportError, Validators};
use tidings_policy::schedule::push_decimal;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;
/// How long a request that gets no answer takes: tidings-fetch's default total timeout (30 s).
pub const TIMEOUT_MS: i64 = 30_000;
/// Where virtual time starts.
pub const EPOCH: &str = "2030-01-01T00:00:00Z";

const TAG_HOST: u64 = 1;
const TAG_FEED_HOST: u64 = 2;
const TAG_FEED: u64 = 3;
const TAG_REQ: u64 = 4;

/// What a host's robots.txt is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsKind {
    /// 200, rules that do not touch feeds.
    AllowAll,
    /// 404: everything allowed.
    Missing,
    /// 200, `Disallow: /private/` in the crawler's own group.
    OwnDisallowsPrivate,
    /// 200, `Disallow: /private/` in the `*` group.
    StarDisallowsPrivate,
    /// 200, a crawl-delay in the crawler's own group (seconds).
    CrawlDelay(u16),
    /// 503.
    ServerError,
    /// 200, the crawler's own group disallows everything.
    DisallowAll,
}

/// How a host misbehaves (for feed requests; `Flaky` and `Dead` hosts do not answer robots.txt
/// either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    None,
    /// 429 with `Retry-After: <seconds>` two hours a day.
    RateLimited,
    /// 503 with `Retry-After: <HTTP-date>` for an hour twice a day.
    Busy,
    /// 500/502 for half an hour every eight hours.
    Bursts,
    /// No answer (time-out, probability 0.7 per attempt) for an hour every six hours.
    Flaky,
    /// Never answers.
    Dead,
}

/// One modelled host.
#[derive(Debug, Clone, Copy)]
pub struct HostModel {
    pub robots: RobotsKind,
    /// From this virtual time (ms) robots.txt is [`RobotsKind::DisallowAll`].
    pub robots_change_at: i64,
    pub trouble: Trouble,
    pub phase_ms: i64,
    /// Typical answer time.
    pub latency_ms: u32,
}

/// What a feed URL serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    Healthy,
    Forbidden,
    Missing,
    Gone,
    NotAFeed,
}

/// Which validators a feed's server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidatorKind {
    ETag,
    LastModified,
    Both,
    None,
}

/// One modelled feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedModel {
    pub id: u32,
    pub host: u32,
    /// Lives under `/private/` (which some robots.txt files disallow).
    pub private: bool,
    pub kind: FeedKind,
    pub validators: ValidatorKind,
    /// The feed changes every `period_s` seconds.
    pub period_s: u32,
    pub phase_s: u32,
    /// When it is added (virtual ms).
    pub added_ms: u32,
}

impl FeedModel {
    /// The body version served at virtual time `t` (ms): it changes every `period_s`.
    pub fn version_at(&self, t: i64) -> u64 {
        let secs = t.div_euclid(1000) + i64::from(self.phase_s);
        secs.div_euclid(i64::from(self.period_s)) as u64
    }

    /// When body version `version` appeared (virtual seconds).
    pub fn changed_at(&self, version: u64) -> i64 {
        version as i64 * i64::from(self.period_s) - i64::from(self.phase_s)
    }
}

/// The size of the web and its seed.
#[derive(Debug, Clone, Copy)]
pub struct WebShape {
    pub feeds: u32,
    pub hosts: u32,
    pub seed: u64,
}

/// The whole modelled web: every host, and a rule for every feed.
pub struct Web {
    pub shape: WebShape,
    pub hosts: Vec<HostModel>,
    /// The crawler's product token, named in robots.txt groups.
    token: String,
    epoch: DateTime<Utc>,
    /// `epoch` in seconds since 1970.
    epoch_secs: i64,
    /// Set for a web written out by hand ([`Web::scripted`]): its feeds answer from it.
    script: Option<Scripted>,
}

/// A scripted web's feeds: each one's host and answers, and the requests it has had.
struct Scripted {
    feeds: Vec<(u32, Vec<Step>)>,
    hits: Vec<AtomicU32>,
}

/// A robots.txt answer: status (`None`: no answer) and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsAnswer {
    pub status: Option<u16>,
    pub kind: RobotsKind,
    pub body: Option<String>,
    pub duration_ms: i64,
}

/// A feed answer.
#[derive(Debug)]
pub struct FeedAnswer {
    pub outcome: FetchOutcome,
    pub duration_ms: i64,
    /// The body's version (for a 200): equal versions are equal bytes.
    pub version: u64,
}

impl Web {
    pub fn new(shape: WebShape, token: &str) -> Web {
        let hosts = (0..shape.hosts)
            .map(|h| host_model(shape.seed, h))
            .collect();
        Web {
            shape,
            hosts,
            token: token.to_string(),
            epoch: epoch(),
            epoch_secs: epoch().timestamp(),
            script: None,
        }
    }

    /// The web `script` writes out (see [`crate::script`]): its hosts with their robots.txt,
    /// never in trouble, and feeds that answer their steps in order, whatever the time; every
    /// feed is added at the start, sends an ETag and lives outside `/private/`.
    pub fn scripted(script: &Script, token: &str) -> Web {
        let feeds: Vec<(u32, Vec<Step>)> = script
            .feeds()
            .map(|(host, steps)| (host, steps.to_vec()))
            .collect();
        let hosts = script
            .hosts
            .iter()
            .map(|h| HostModel {
                robots: h.robots,
                robots_change_at: i64::MAX,
                trouble: Trouble::None,
                phase_ms: 0,
                latency_ms: 20,
            })
            .collect();
        Web {
            shape: WebShape {
                feeds: feeds.len() as u32,
                hosts: script.hosts.len() as u32,
                seed: 0,
            },
            hosts,
            token: token.to_string(),
            epoch: epoch(),
            epoch_secs: epoch().timestamp(),
            script: Some(Scripted {
                hits: feeds.iter().map(|_| AtomicU32::new(0)).collect(),
                feeds,
            }),
        }
    }

    /// The host of feed `i`: the first `hosts` feeds one per host, the rest Zipf-like (s = 0.9),
    /// so a few hosts carry thousands of feeds and most a handful.
    pub fn feed_host(&self, i: u32) -> u32 {
        if let Some(script) = &self.script {
            return script.feeds[i as usize].0;
        }
        let n = self.shape.hosts.max(1);
        if i < n {
            return i;
        }
        let u = unit(hash(self.shape.seed, TAG_FEED_HOST, u64::from(i), 0));
        let s1 = 0.1f64;
        let r = (1.0 + u * (f64::from(n).powf(s1) - 1.0)).powf(1.0 / s1);
        (r as u32).saturating_sub(1).min(n - 1)
    }

    /// Feed `i`'s model.
    pub fn feed(&self, i: u32) -> FeedModel {
        if let Some(script) = &self.script {
            return FeedModel {
                id: i,
                host: script.feeds[i as usize].0,
                private: false,
                kind: FeedKind::Healthy,
                validators: ValidatorKind::ETag,
                period_s: 1,
                phase_s: 0,
                added_ms: 0,
            };
        }
        let seed = self.shape.seed;
        let h = |k: u64| hash(seed, TAG_FEED, u64::from(i), k);
        let host = self.feed_host(i);
        let kind = match unit(h(1)) {
            x if x < 0.010 => FeedKind::Forbidden,
            x if x < 0.020 => FeedKind::Missing,
            x if x < 0.025 => FeedKind::Gone,
            x if x < 0.030 => FeedKind::NotAFeed,
            _ => FeedKind::Healthy,
        };
        let validators = match unit(h(2)) {
            x if x < 0.70 => ValidatorKind::ETag,
            x if x < 0.80 => ValidatorKind::LastModified,
            x if x < 0.90 => ValidatorKind::Both,
            _ => ValidatorKind::None,
        };
        let private = match self.hosts[host as usize].robots {
            RobotsKind::OwnDisallowsPrivate | RobotsKind::StarDisallowsPrivate => unit(h(3)) < 0.5,
            _ => unit(h(3)) < 0.05,
        };
        let period_s = log_range(h(4), 300.0, 14.0 * 86_400.0) as u32;
        FeedModel {
            id: i,
            host,
            private,
            kind,
            validators,
            period_s: period_s.max(1),
            phase_s: range(h(5), 0, u64::from(period_s.max(1))) as u32,
            added_ms: range(h(6), 0, 3_600_000) as u32,
        }
    }

    /// What robots.txt `host` serves at `t` (kind only).
    pub fn robots_kind(&self, host: u32, t: i64) -> RobotsKind {
        let m = &self.hosts[host as usize];
        if t >= m.robots_change_at {
            RobotsKind::DisallowAll
        } else {
            m.robots
        }
    }

    /// The answer to a robots.txt request sent at `t`.
    pub fn robots(&self, host: u32, t: i64) -> RobotsAnswer {
        let kind = self.robots_kind(host, t);
        let latency = self.latency(host, u64::MAX, t);
        if self.no_answer(host, u64::MAX, t) {
            return RobotsAnswer {
                status: None,
                kind,
                body: None,
                duration_ms: TIMEOUT_MS,
            };
        }
        let token = &self.token;
        let (status, body) = match kind {
            RobotsKind::AllowAll => (200, Some("User-agent: *\nDisallow: /admin/\n".to_string())),
            RobotsKind::Missing => (404, None),
            RobotsKind::OwnDisallowsPrivate => (
                200,
                Some(format!(
                    "User-agent: *\nDisallow: /admin/\n\nUser-agent: {token}\nDisallow: /private/\n"
                )),
            ),
            RobotsKind::StarDisallowsPrivate => (
                200,
                Some("User-agent: *\nDisallow: /private/\n".to_string()),
            ),
            RobotsKind::CrawlDelay(s) => (
                200,
                Some(format!(
                    "User-agent: {token}\nCrawl-delay: {s}\nDisallow: /admin/\n\nUser-agent: *\nDisallow: /admin/\n"
                )),
            ),
            RobotsKind::ServerError => (503, None),
            RobotsKind::DisallowAll => (
                200,
                Some(format!(
                    "User-agent: *\nDisallow: /admin/\n\nUser-agent: {token}\nDisallow: /\n"
                )),
            ),
        };
        RobotsAnswer {
            status: Some(status),
            kind,
            body,
            duration_ms: latency,
        }
    }

    /// The answer to a feed request sent at `t` with validators `sent`; `attempt` is 1 or 2,
    /// `timeout_ms` how long the crawler waits for it. `held`: the body version `sent` was
    /// answered with, when the crawler holds exactly what this web sent for it (then the
    /// comparison needs no strings). The validators of a 200 or 304 are written into `spare`
    /// (its strings reused: a driver hands back those of its last answer).
    #[allow(clippy::too_many_arguments)]
    pub fn answer(
        &self,
        feed: &FeedModel,
        sent: &Validators,
        held: Option<u64>,
        t: i64,
        attempt: u64,
        timeout_ms: i64,
        spare: Validators,
    ) -> FeedAnswer {
        let host = feed.host;
        let key = (u64::from(feed.id) << 2) | attempt;
        if let Some(script) = &self.script {
            let i = feed.id as usize;
            let hit = script.hits[i].fetch_add(1, Ordering::Relaxed) as usize;
            let step = Script::step(&script.feeds[i].1, hit);
            return match (step, step.outcome()) {
                (Step::Version(version), _) => {
                    self.content(feed, sent, held, version, key, t, spare)
                }
                (step, Some(outcome)) => FeedAnswer {
                    duration_ms: if step == Step::NoAnswer {
                        timeout_ms
                    } else {
                        self.latency(host, key, t)
                    },
                    outcome,
                    version: 0,
                },
                (_, None) => unreachable!("only a version step has no outcome of its own"),
            };
        }
        let m = &self.hosts[host as usize];
        let answered = |outcome| FeedAnswer {
            outcome,
            duration_ms: self.latency(host, key, t),
            version: 0,
        };
        if self.no_answer(host, key, t) {
            return FeedAnswer {
                outcome: FetchOutcome::Transport(TransportError::Timeout),
                duration_ms: timeout_ms,
                version: 0,
            };
        }
        let (in_window, window_end) = match m.trouble {
            Trouble::RateLimited => window(t, m.phase_ms, DAY_MS, 2 * 3_600_000),
            Trouble::Busy => window(t, m.phase_ms, DAY_MS / 2, 3_600_000),
            Trouble::Bursts => window(t, m.phase_ms, DAY_MS / 3, 1_800_000),
            _ => (false, 0),
        };
        if in_window {
            let outcome = match m.trouble {
                Trouble::RateLimited => FetchOutcome::Refused {
                    status: 429,
                    retry_after: Some(
                        RetryAfter::Seconds(((window_end - t) / 1000).max(60) as u64),
                    ),
                },
                Trouble::Busy => FetchOutcome::ServerError {
                    status: 503,
                    retry_after: Some(RetryAfter::At(self.at((window_end + 999) / 1000 * 1000))),
                },
                _ => FetchOutcome::ServerError {
                    status: if t % 2 == 0 { 500 } else { 502 },
                    retry_after: None,
                },
            };
            return answered(outcome);
        }
        match feed.kind {
            FeedKind::Forbidden => {
                return answered(FetchOutcome::Refused {
                    status: 403,
                    retry_after: None,
                });
            }
            FeedKind::Missing => return answered(FetchOutcome::NotFound),
            FeedKind::Gone => return answered(FetchOutcome::Gone),
            FeedKind::Healthy | FeedKind::NotAFeed => {}
        }
        self.content(feed, sent, held, feed.version_at(t), key, t, spare)
    }

    /// The feed's body version `version` as answered at `t` to a request with validators
    /// `sent`: 304 when they match it, else 200; its validators written into `spare`.
    #[allow(clippy::too_many_arguments)]
    fn content(
        &self,
        feed: &FeedModel,
        sent: &Validators,
        held: Option<u64>,
        version: u64,
        key: u64,
        t: i64,
        mut spare: Validators,
    ) -> FeedAnswer {
        let host = feed.host;
        // RFC 9110 13.2.2: If-None-Match decides when present; else If-Modified-Since.
        let not_modified = match held.filter(|_| !sent.is_empty()) {
            // The ETag names the version; the Last-Modified date is the version's start.
            Some(held) => match feed.validators {
                ValidatorKind::ETag | ValidatorKind::Both => held == version,
                ValidatorKind::LastModified => feed.changed_at(held) == feed.changed_at(version),
                ValidatorKind::None => false,
            },
            None => {
                self.validators_into(feed, version, &mut spare);
                match (&sent.etag, &sent.last_modified) {
                    (Some(e), _) => spare.etag.as_ref().is_some_and(|v| v == e),
                    (None, Some(l)) => spare.last_modified.as_ref().is_some_and(|v| v == l),
                    _ => false,
                }
            }
        };
        // A 304 carries what was sent; a 200 the version's own.
        let mut validators = spare;
        if not_modified {
            // Field by field: `Option<String>` reuses the strings, a derived `clone_from` not.
            validators.etag.clone_from(&sent.etag);
            validators.last_modified.clone_from(&sent.last_modified);
        } else {
            self.validators_into(feed, version, &mut validators);
        }
        #[cfg(debug_assertions)]
        {
            let mut own = Validators::default();
            self.validators_into(feed, version, &mut own);
            debug_assert_eq!(validators, own, "the version's validators");
        }
        let outcome = if not_modified {
            FetchOutcome::NotModified {
                validators,
                cache: CacheHints::default(),
                rights: None,
            }
        } else {
            FetchOutcome::Fetched(Fetched {
                status: 200,
                body: Vec::new(),
                content_type: None,
                validators,
                cache: CacheHints::default(),
                rights: None,
            })
        };
        FeedAnswer {
            outcome,
            duration_ms: self.latency(host, key, t),
            version,
        }
    }

    /// The validators feed `feed` sends with body version `version`, written into `out` (its
    /// strings are reused): an ETag of the feed id and the version, a Last-Modified of the
    /// version's start, or both, or none, as the feed's [`ValidatorKind`] says.
    pub fn validators_into(&self, feed: &FeedModel, version: u64, out: &mut Validators) {
        let (send_etag, send_lm) = match feed.validators {
            ValidatorKind::ETag => (true, false),
            ValidatorKind::LastModified => (false, true),
            ValidatorKind::Both => (true, true),
            ValidatorKind::None => (false, false),
        };
        out.etag = send_etag.then(|| {
            let mut etag = out.etag.take().unwrap_or_else(|| String::with_capacity(32));
            etag.clear();
            etag.push('"');
            push_decimal(&mut etag, u64::from(feed.id));
            etag.push('-');
            push_decimal(&mut etag, version);
            etag.push('"');
            etag
        });
        out.last_modified = send_lm.then(|| {
            let mut lm = out
                .last_modified
                .take()
                .unwrap_or_else(|| String::with_capacity(32));
            lm.clear();
            let changed_at = feed.changed_at(version);
            http_date(self.epoch_secs + changed_at, &mut lm);
            lm
        });
    }

    /// Virtual ms as a time.
    pub fn at(&self, ms: i64) -> DateTime<Utc> {
        self.epoch + Duration::milliseconds(ms)
    }

    /// A time as virtual ms.
    pub fn ms(&self, at: DateTime<Utc>) -> i64 {
        if at >= self.epoch {
            // Whole milliseconds since the epoch, rounded down as the duration's are.
            at.timestamp_millis() - self.epoch_secs * 1000
        } else {
            (at - self.epoch).num_milliseconds()
        }
    }

    fn latency(&self, host: u32, key: u64, t: i64) -> i64 {
        let base = i64::from(self.hosts[host as usize].latency_ms);
        let jitter = hash(self.shape.seed, TAG_REQ, key ^ u64::from(host), t as u64);
        base / 2 + (jitter % base.max(1) as u64) as i64
    }

    fn no_answer(&self, host: u32, key: u64, t: i64) -> bool {
        let m = &self.hosts[host as usize];
        match m.trouble {
            Trouble::Dead => true,
            Trouble::Flaky => {
                window(t, m.phase_ms, DAY_MS / 4, 3_600_000).0
                    && unit(hash(
                        self.shape.seed,
                        TAG_REQ + 1,
                        key ^ u64::from(host),
                        t as u64,
                    )) < 0.7
            }
            _ => false,
        }
    }
}

/// The virtual epoch.
pub fn epoch() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(EPOCH)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

/// Whether `t` falls in the window `[phase + k*period, phase + k*period + len)`, and the
/// window's end.
fn window(t: i64, phase: i64, period: i64, len: i64) -> (bool, i64) {
    let into = (t - phase).rem_euclid(period);
    (into < len, t - into + len)
}

fn host_model(seed: u64, h: u32) -> HostModel {
    let r = |k: u64| hash(seed, TAG_HOST, u64::from(h), k);
    let robots = match unit(r(1)) {
        x if x < 0.05 => RobotsKind::Missing,
        x if x < 0.08 => RobotsKind::OwnDisallowsPrivate,
        x if x < 0.11 => RobotsKind::StarDisallowsPrivate,
        x if x < 0.14 => RobotsKind::ServerError,
        x if x < 0.19 => RobotsKind::CrawlDelay([2, 5, 10, 30, 120][(r(2) % 5) as usize]),
        _ => RobotsKind::AllowAll,
    };
    let robots_change_at = if unit(r(3)) < 0.01 {
        DAY_MS + range(r(4), 0, DAY_MS as u64) as i64
    } else {
        i64::MAX
    };
    let trouble = match unit(r(5)) {
        x if x < 0.02 => Trouble::RateLimited,
        x if x < 0.03 => Trouble::Busy,
        x if x < 0.04 => Trouble::Bursts,
        x if x < 0.05 => Trouble::Flaky,
        x if x < 0.053 => Trouble::Dead,
        _ => Trouble::None,
    };
    HostModel {
        robots,
        robots_change_at,
        trouble,
        phase_ms: range(r(6), 0, DAY_MS as u64) as i64,
        latency_ms: range(r(7), 50, 500) as u32,
    }
}

/// `secs` since 1970 as an HTTP-date (RFC 9110 5.6.7, IMF-fixdate), appended to `out`: the
/// same text as chrono's `%a, %d %b %Y %H:%M:%S GMT`, without parsing a format string.
pub fn http_date(secs: i64, out: &mut String) {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let (year, month, day) = civil(days);
    if !(1000..=9999).contains(&year) {
        // Outside four-digit years: let chrono say it.
        if let Some(at) = DateTime::from_timestamp(secs, 0) {
            let _ = write!(out, "{}", at.format("%a, %d %b %Y %H:%M:%S GMT"));
        }
        return;
    }
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let mut text = *b"Thu, 01 Jan 1970 00:00:00 GMT";
    text[..3].copy_from_slice(DAYS[days.rem_euclid(7) as usize].as_bytes());
    two(&mut text[5..7], day);
    text[8..11].copy_from_slice(MONTHS[(month - 1) as usize].as_bytes());
    two(&mut text[12..14], year / 100);
    two(&mut text[14..16], year % 100);
    two(&mut text[17..19], of_day / 3600);
    two(&mut text[20..22], of_day / 60 % 60);
    two(&mut text[23..25], of_day % 60);
    out.push_str(std::str::from_utf8(&text).unwrap_or_default());
}

/// `n` (0-99) as two digits.
fn two(out: &mut [u8], n: i64) {
    out[0] = b'0' + (n / 10 % 10) as u8;
    out[1] = b'0' + (n % 10) as u8;
}

/// Days since 1970-01-01 as (year, month 1-12, day 1-31) in the proleptic Gregorian calendar,
/// counting in 400-year eras from 0000-03-01.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Virtual ms and times convert both ways as adding a duration to the epoch does.
    #[test]
    fn virtual_times_round_trip() {
        let web = Web::new(
            WebShape {
                feeds: 1,
                hosts: 1,
                seed: 1,
            },
            "tidings",
        );
        for ms in [
            -86_400_001i64,
            -1,
            0,
            1,
            999,
            1_000,
            604_800_000,
            31_536_000_123,
        ] {
            let at = web.at(ms);
            assert_eq!(at, web.epoch + Duration::milliseconds(ms));
            assert_eq!(web.ms(at), ms);
            let later = at + Duration::microseconds(1_500);
            assert_eq!(web.ms(later), (later - web.epoch).num_milliseconds());
        }
    }

    /// The hand-written HTTP-date is chrono's, byte for byte, across leap years, month ends
    /// and centuries.
    #[test]
    fn http_date_is_chronos() {
        let mut out = String::new();
        let mut secs = -2_208_988_800i64; // 1900-01-01
        while secs < 4_102_444_800 * 2 {
            out.clear();
            http_date(secs, &mut out);
            let at = DateTime::from_timestamp(secs, 0).unwrap();
            assert_eq!(out, at.format("%a, %d %b %Y %H:%M:%S GMT").to_string());
            secs += 86_399 * 3 + 7_777;
        }
    }
}
