//! Scripted behaviours: what a resource answers, decided per request.
//!
//! A [`Resource`] is a list of [`Behaviour`]s read in three roles:
//! - **gates** ([`Behaviour::Refuse`], [`Behaviour::Throttle`]) answer instead of the content when
//!   they apply; the first that applies wins;
//! - **content** (the first of `Feed`, `Body`, `Status`, `Redirect`, `Challenge`, `Huge`,
//!   `Endless`, `GzipBomb`, `Malformed`, `Silent`) is the normal answer; none means 404;
//! - **modifiers** (`Validators`, `CacheControl`, `Expires`, `Delay`, `Trickle`, `Header`) shape whichever
//!   answer is sent. Validators (and so 304s) apply to 200 content only.
//!
//! [`plan`] turns a resource and a request into a [`Plan`]; it reads time only through the
//! [`Context`], so it is deterministic under a manual [`SimClock`](crate::SimClock).

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::clock::SimClock;
use crate::content::{self, Malformed};

/// One scripted trait of a resource (see the module docs for how they combine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Content: an RSS feed that changes over scenario time.
    Feed(FeedSpec),
    /// Content: fixed bytes with 200 (robots.txt files are this, with `text/plain`).
    Body { content_type: String, body: Bytes },
    /// Content: this status (404, 410, 500, 502, ...) with a short text body.
    Status(u16),
    /// Content: a redirect with this status (301, 302, 307, 308) to `to`.
    Redirect { status: u16, to: Target },
    /// Content: a bot-challenge page with this status (403 or 503), `cf-mitigated: challenge`.
    Challenge(u16),
    /// Content: a 200 feed-like body of exactly this many bytes, with its length declared.
    Huge(u64),
    /// Content: a 200 chunked body that never ends.
    Endless,
    /// Content: a 200 `content-encoding: gzip` body inflating to this many bytes (whole MiB).
    GzipBomb(u64),
    /// Content: a broken feed body with 200.
    Malformed(Malformed),
    /// Content: read the request, never answer, keep the connection open.
    Silent,
    /// Gate: answer `status` (usually 403) to requests from these client addresses.
    Refuse { peers: Vec<IpAddr>, status: u16 },
    /// Gate: answer `status` (429 or 503) with an optional Retry-After while `when` holds.
    Throttle {
        status: u16,
        retry_after: Option<RetryAfter>,
        when: When,
    },
    /// Modifier: send validators and answer 304 when the request's echo matches exactly.
    Validators {
        etag: Option<EtagStyle>,
        last_modified: bool,
    },
    /// Modifier: send these validators as written and answer 304 when the request's
    /// `If-None-Match` (or, without one, `If-Modified-Since`) echoes them exactly.
    FixedValidators {
        etag: Option<String>,
        last_modified: Option<String>,
    },
    /// Modifier: `cache-control: max-age=N`.
    CacheControl { max_age: u64 },
    /// Modifier: `expires:` this long after the scenario's now.
    Expires(Duration),
    /// Modifier: wait this long in real time before answering.
    Delay(Duration),
    /// Modifier: send the body `bytes` at a time, waiting `every` (real time) before each piece.
    Trickle { bytes: usize, every: Duration },
    /// Modifier: one extra response header.
    Header { name: String, value: String },
}

/// A feed that changes at a set rate in scenario time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedSpec {
    /// Used in the title, links and guids.
    pub title: String,
    /// A new version every this long; `None` never changes.
    pub every: Option<Duration>,
    /// Entries in each version.
    pub entries: u64,
    /// Entries added by each new version.
    pub new_per_change: u64,
}

impl FeedSpec {
    /// A feed of 10 entries gaining one every `every`.
    pub fn changing(title: &str, every: Duration) -> FeedSpec {
        FeedSpec {
            title: title.into(),
            every: Some(every),
            entries: 10,
            new_per_change: 1,
        }
    }

    /// A feed of 10 entries that never changes.
    pub fn fixed(title: &str) -> FeedSpec {
        FeedSpec {
            title: title.into(),
            every: None,
            entries: 10,
            new_per_change: 1,
        }
    }

    /// When entry `i` was published, for a scenario starting at `start`: entries added by
    /// version `v` at the moment it appeared (`start + v * every`), the entries present from the
    /// start one `every` (an hour for a fixed feed) apart before it. Never in the future of the
    /// version that carries the entry.
    pub fn published(&self, i: u64, start: SystemTime) -> SystemTime {
        let per = self.new_per_change.max(1);
        let every = self.every.unwrap_or(Duration::from_secs(3600));
        let steps = |n: u64| every.saturating_mul(u32::try_from(n).unwrap_or(u32::MAX));
        match (i + 1).checked_sub(self.entries) {
            Some(after) if self.every.is_some() => start + steps(after.div_ceil(per)),
            Some(_) => start,
            None => start
                .checked_sub(steps(self.entries - 1 - i))
                .unwrap_or(start),
        }
    }

    /// The version current after `elapsed` scenario time.
    pub fn version(&self, elapsed: Duration) -> u64 {
        match self.every {
            Some(every) if !every.is_zero() => {
                u64::try_from(elapsed.as_nanos() / every.as_nanos()).unwrap_or(u64::MAX)
            }
            _ => 0,
        }
    }
}

/// How an ETag looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtagStyle {
    /// `"v3"`.
    Strong,
    /// `W/"v3"`.
    Weak,
}

/// The Retry-After value sent with a throttle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryAfter {
    /// `Retry-After: N` (delta-seconds).
    Seconds(u64),
    /// `Retry-After: <HTTP-date>` this long after the scenario's now.
    Date(Duration),
    /// This exact text (for invalid values).
    Raw(String),
}

/// When a throttle applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// To the first N requests of the resource.
    FirstRequests(u64),
    /// Until this much scenario time has passed.
    Until(Duration),
    /// From `from` until `until` of scenario time.
    Between(Duration, Duration),
}

impl When {
    fn holds(self, hit: u64, elapsed: Duration) -> bool {
        match self {
            When::Always => true,
            When::FirstRequests(n) => hit <= n,
            When::Until(t) => elapsed < t,
            When::Between(a, b) => a <= elapsed && elapsed < b,
        }
    }
}

/// Where a redirect points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A path on the same virtual host.
    Path(String),
    /// A path on another virtual host of the same web.
    Host { host: String, path: String },
    /// This exact URL.
    Url(String),
}

/// A served resource: its behaviours, in the roles described in the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resource {
    pub behaviours: Vec<Behaviour>,
}

impl Resource {
    /// A resource with one behaviour.
    pub fn new(behaviour: Behaviour) -> Resource {
        Resource {
            behaviours: vec![behaviour],
        }
    }

    /// Add a behaviour.
    pub fn with(mut self, behaviour: Behaviour) -> Resource {
        self.behaviours.push(behaviour);
        self
    }

    /// A feed with strong ETag and Last-Modified.
    pub fn feed(spec: FeedSpec) -> Resource {
        Resource::new(Behaviour::Feed(spec)).with(Behaviour::Validators {
            etag: Some(EtagStyle::Strong),
            last_modified: true,
        })
    }

    /// A feed with no validators at all.
    pub fn bare_feed(spec: FeedSpec) -> Resource {
        Resource::new(Behaviour::Feed(spec))
    }

    /// A robots.txt with this text.
    pub fn robots(text: &str) -> Resource {
        Resource::new(Behaviour::Body {
            content_type: "text/plain; charset=utf-8".into(),
            body: Bytes::copy_from_slice(text.as_bytes()),
        })
    }

    /// A bare status answer.
    pub fn status(status: u16) -> Resource {
        Resource::new(Behaviour::Status(status))
    }

    /// A redirect to a path on the same host.
    pub fn redirect(status: u16, path: &str) -> Resource {
        Resource::new(Behaviour::Redirect {
            status,
            to: Target::Path(path.into()),
        })
    }
}

/// What the web knows about one request when planning its answer.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The client's address.
    pub peer: SocketAddr,
    /// Request headers, names lower-case.
    pub headers: &'a [(String, Vec<u8>)],
    /// This request is the resource's n-th, from 1.
    pub hit: u64,
    /// Scenario time since the start.
    pub elapsed: Duration,
    /// Scenario start (wall time).
    pub start: SystemTime,
    /// The virtual host's own name.
    pub host: &'a str,
    /// Looks up another virtual host's port by name.
    pub port_of: &'a dyn Fn(&str) -> Option<u16>,
    /// The scenario clock, to write instants as a real server does ([`SimClock::wall_of`]).
    pub clock: &'a SimClock,
}

impl Context<'_> {
    fn now(&self) -> SystemTime {
        self.start + self.elapsed
    }

    /// `after` past the scenario's now, as the HTTP-date a real server would write.
    fn http_date_after(&self, after: Duration) -> String {
        httpdate::fmt_http_date(self.clock.wall_of(self.now() + after))
    }

    fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// The decided answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Real time to wait first.
    pub delay: Duration,
    /// What to do then.
    pub answer: Answer,
    /// Send the body in pieces of this many bytes, each after this wait.
    pub trickle: Option<(usize, Duration)>,
}

/// The answer part of a [`Plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Never answer.
    Silent,
    /// Send this response.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: BodyPlan,
    },
}

/// A response body to stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyPlan {
    Empty,
    Full(Bytes),
    /// [`content::filler_head`] then filler up to `len` bytes in total, length declared.
    Huge(u64),
    /// Filler for ever, chunked.
    Endless,
}

/// Decide the answer of `resource` (or 404 when `None`) to the request in `cx`.
pub fn plan(resource: Option<&Resource>, cx: &Context<'_>) -> Plan {
    let behaviours = resource.map(|r| r.behaviours.as_slice()).unwrap_or(&[]);
    let delay = behaviours
        .iter()
        .map(|b| match b {
            Behaviour::Delay(d) => *d,
            _ => Duration::ZERO,
        })
        .sum();
    let answer = gate(behaviours, cx).unwrap_or_else(|| content(behaviours, cx));
    let answer = match answer {
        Answer::Silent => Answer::Silent,
        Answer::Respond {
            status,
            mut headers,
            body,
        } => {
            modify(behaviours, cx, &mut headers);
            headers.push(("date".into(), cx.http_date_after(Duration::ZERO)));
            Answer::Respond {
                status,
                headers,
                body,
            }
        }
    };
    let trickle = behaviours.iter().find_map(|b| match b {
        Behaviour::Trickle { bytes, every } => Some(((*bytes).max(1), *every)),
        _ => None,
    });
    Plan {
        delay,
        answer,
        trickle,
    }
}

fn gate(behaviours: &[Behaviour], cx: &Context<'_>) -> Option<Answer> {
    behaviours.iter().find_map(|b| match b {
        Behaviour::Refuse { peers, status } if peers.contains(&cx.peer.ip()) => {
            Some(text(*status, "refused\n"))
        }
        Behaviour::Throttle {
            status,
            retry_after,
            when,
        } if when.holds(cx.hit, cx.elapsed) => {
            let mut answer = text(*status, "slow down\n");
            if let (Some(ra), Answer::Respond { headers, .. }) = (retry_after, &mut answer) {
                let value = match ra {
                    RetryAfter::Seconds(s) => s.to_string(),
                    RetryAfter::Date(after) => cx.http_date_after(*after),
                    RetryAfter::Raw(raw) => raw.clone(),
                };
                headers.push(("retry-after".into(), value));
            }
            Some(answer)
        }
        _ => None,
    })
}

fn text(status: u16, body: &'static str) -> Answer {
    Answer::Respond {
        status,
        headers: vec![("content-type".into(), "text/plain; charset=utf-8".into())],
        body: BodyPlan::Full(Bytes::from_static(body.as_bytes())),
    }
}

fn content(behaviours: &[Behaviour], cx: &Context<'_>) -> Answer {
    let Some(first) = behaviours.iter().find(|b| is_content(b)) else {
        return text(404, "not found\n");
    };
    const FEED_TYPE: &str = "application/rss+xml; charset=utf-8";
    let ok = |content_type: &str, body: BodyPlan| Answer::Respond {
        status: 200,
        headers: vec![("content-type".into(), content_type.into())],
        body,
    };
    match first {
        Behaviour::Feed(spec) => {
            let v = spec.version(cx.elapsed);
            let per = spec.new_per_change.max(1);
            let published = |i: u64| spec.published(i, cx.start);
            let body = content::rss(&spec.title, v.saturating_mul(per), spec.entries, published);
            validated(
                behaviours,
                cx,
                ok(FEED_TYPE, BodyPlan::Full(body.into())),
                v,
                spec,
            )
        }
        Behaviour::Body { content_type, body } => {
            let answer = ok(content_type, BodyPlan::Full(body.clone()));
            validated(behaviours, cx, answer, 0, &FeedSpec::fixed(""))
        }
        Behaviour::Status(status) => text(*status, "status\n"),
        Behaviour::Redirect { status, to } => {
            let location = match to {
                Target::Path(p) => p.clone(),
                Target::Url(u) => u.clone(),
                Target::Host { host, path } => match (cx.port_of)(host) {
                    Some(port) => format!("http://{host}:{port}{path}"),
                    None => format!("http://{host}{path}"),
                },
            };
            Answer::Respond {
                status: *status,
                headers: vec![("location".into(), location)],
                body: BodyPlan::Empty,
            }
        }
        Behaviour::Challenge(status) => Answer::Respond {
            status: *status,
            headers: vec![
                ("content-type".into(), "text/html; charset=utf-8".into()),
                ("cf-mitigated".into(), "challenge".into()),
            ],
            body: BodyPlan::Full(content::challenge_page()),
        },
        Behaviour::Huge(len) => ok(FEED_TYPE, BodyPlan::Huge(*len)),
        Behaviour::Endless => ok(FEED_TYPE, BodyPlan::Endless),
        Behaviour::GzipBomb(size) => Answer::Respond {
            status: 200,
            headers: vec![
                ("content-type".into(), FEED_TYPE.into()),
                ("content-encoding".into(), "gzip".into()),
            ],
            body: BodyPlan::Full(content::gzip_bomb(*size)),
        },
        Behaviour::Malformed(kind) => ok(FEED_TYPE, BodyPlan::Full(kind.body())),
        _ => Answer::Silent,
    }
}

fn is_content(b: &Behaviour) -> bool {
    matches!(
        b,
        Behaviour::Feed(_)
            | Behaviour::Body { .. }
            | Behaviour::Status(_)
            | Behaviour::Redirect { .. }
            | Behaviour::Challenge(_)
            | Behaviour::Huge(_)
            | Behaviour::Endless
            | Behaviour::GzipBomb(_)
            | Behaviour::Malformed(_)
            | Behaviour::Silent
    )
}

/// Add validators to a 200 answer and turn it into a 304 when the request echoes them exactly.
fn validated(
    behaviours: &[Behaviour],
    cx: &Context<'_>,
    answer: Answer,
    version: u64,
    spec: &FeedSpec,
) -> Answer {
    let fixed = behaviours.iter().find_map(|b| match b {
        Behaviour::FixedValidators {
            etag,
            last_modified,
        } => Some((etag.clone(), last_modified.clone())),
        _ => None,
    });
    let by_version = behaviours.iter().find_map(|b| match b {
        Behaviour::Validators {
            etag,
            last_modified,
        } => Some((*etag, *last_modified)),
        _ => None,
    });
    let (etag, last_modified) = match (fixed, by_version) {
        (Some(fixed), _) => fixed,
        (None, Some((etag_style, with_lm))) => {
            let etag = etag_style.map(|style| match style {
                EtagStyle::Strong => format!("\"v{version}\""),
                EtagStyle::Weak => format!("W/\"v{version}\""),
            });
            let steps = u32::try_from(version).unwrap_or(u32::MAX);
            let modified = cx.start + spec.every.unwrap_or_default().saturating_mul(steps);
            (etag, with_lm.then(|| httpdate::fmt_http_date(modified)))
        }
        (None, None) => return answer,
    };

    // If-None-Match decides when present (RFC 9110 13.2.2); both compare the whole value.
    let not_modified = match (cx.header("if-none-match"), cx.header("if-modified-since")) {
        (Some(inm), _) => etag.as_deref().is_some_and(|e| e.as_bytes() == inm),
        (None, Some(ims)) => last_modified
            .as_deref()
            .is_some_and(|l| l.as_bytes() == ims),
        (None, None) => false,
    };
    let mut validators = Vec::new();
    if let Some(e) = etag {
        validators.push(("etag".to_string(), e));
    }
    if let Some(l) = last_modified {
        validators.push(("last-modified".to_string(), l));
    }
    match answer {
        Answer::Respond { .. } if not_modified => Answer::Respond {
            status: 304,
            headers: validators,
            body: BodyPlan::Empty,
        },
        Answer::Respond {
            status,
            mut headers,
            body,
        } => {
            headers.extend(validators);
            Answer::Respond {
                status,
                headers,
                body,
            }
        }
        Answer::Silent => Answer::Silent,
    }
}

fn modify(behaviours: &[Behaviour], cx: &Context<'_>, headers: &mut Vec<(String, String)>) {
    for b in behaviours {
        match b {
            Behaviour::CacheControl { max_age } => {
                headers.push(("cache-control".into(), format!("max-age={max_age}")));
            }
            Behaviour::Expires(after) => {
                headers.push(("expires".into(), cx.http_date_after(*after)));
            }
            Behaviour::Header { name, value } => {
                headers.push((name.to_ascii_lowercase(), value.clone()));
            }
            _ => {}
        }
    }
}
