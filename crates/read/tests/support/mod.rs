//! The scripted driver the read machine's tests share: a world of rules, floors, robots
//! copies and answers per URL that records every need it met, in order, as a short line.

#![allow(dead_code)]

use chrono::{DateTime, Duration as Span, TimeZone, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{
    CacheHints, Entry, Feed, FeedFormat, FetchOutcome, Fetched, ParsedFeed, RequestTicket,
    TransportError, Validators,
};
use tidings_policy::{BodyVerdict, FeedHints, FeedSchedule, Profile};
use tidings_read::{
    Answer, Event, Examined, FeedState, Locator, Need, Read, ReadOutcome, ResourceOutcome,
    RobotsCopy, Verdict,
};
use url::Url;

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
}

pub fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

pub fn profile(name: &str) -> Profile {
    Profile::embedded(name).unwrap()
}

pub fn feed(target: &str) -> FeedState<Url> {
    FeedState {
        target: url(target),
        schedule: FeedSchedule {
            interval_secs: 3600,
            ..FeedSchedule::default()
        },
        next_fetch_reason: "interval 1h".into(),
        egress: None,
        egress_refusals: Default::default(),
        pending_move: None,
        content_hash: None,
        user_agent: None,
        directives: Default::default(),
    }
}

pub fn ok(body: &str) -> FetchOutcome {
    FetchOutcome::Fetched(Fetched {
        status: 200,
        body: body.as_bytes().to_vec(),
        content_type: Some("application/rss+xml".into()),
        validators: Validators::default(),
        cache: CacheHints::default(),
        rights: None,
    })
}

pub fn redirect(status: u16, to: &str) -> FetchOutcome {
    FetchOutcome::Redirect {
        status,
        location: Some(to.into()),
    }
}

pub fn no_answer() -> FetchOutcome {
    FetchOutcome::Transport(TransportError::Timeout)
}

/// A scripted world: rules, floors, robots copies and answers per URL, and the time each
/// answer takes. It records every need it met, in order, as a short line.
#[derive(Default)]
pub struct World {
    pub rules: HashMap<String, String>,
    pub floors: HashMap<String, DateTime<Utc>>,
    pub robots: HashMap<String, Arc<RobotsCopy>>,
    pub answers: HashMap<String, Vec<FetchOutcome>>,
    pub quiet: Option<Duration>,
    pub entries: usize,
    pub unseen: u64,
    pub first_seen_since: u64,
    pub feed_at: bool,
    pub trace: Vec<String>,
    pub saved: Vec<(String, RobotsCopy, Vec<String>)>,
    /// Every request's write-ahead row, as a driver that keeps one writes it before sending:
    /// its ticket (the request's number), URL and rule (C7).
    pub ahead: Vec<(RequestTicket, String, String)>,
    /// The rows of the robots.txt requests saved, as (ticket, URL, rule).
    pub closed: Vec<(Option<RequestTicket>, String, String)>,
    /// What the driver's examination of a resource's body says (usable when unset).
    pub examined: Option<Result<(), String>>,
}

impl World {
    pub fn answer(mut self, at: &str, outcome: FetchOutcome) -> Self {
        self.answers.entry(at.into()).or_default().push(outcome);
        self
    }

    pub fn robots(mut self, origin: &str, copy: RobotsCopy) -> Self {
        self.robots.insert(origin.into(), Arc::new(copy));
        self
    }

    /// Drive `read` to its end, the clock moving one second per request.
    pub fn run(&mut self, read: Read<'_, Url>) -> ReadOutcome<Url> {
        *self.drive(read).finish().expect("the read ends")
    }

    /// Drive a resource's `read` to its end, as [`World::run`] does a feed's.
    pub fn run_resource(&mut self, read: Read<'_, Url>) -> ResourceOutcome<Url> {
        *self
            .drive(read)
            .finish_resource()
            .expect("the resource read ends")
    }

    /// Drive `read` until it needs nothing more, the clock moving one second per request.
    fn drive<'p>(&mut self, mut read: Read<'p, Url>) -> Read<'p, Url> {
        let mut now = t0();
        let mut need = read.start();
        for _ in 0..100 {
            let event = match need {
                Need::Rules { target } => {
                    self.trace.push(format!("rules {target}"));
                    Event::Rules(self.rules.get(target.as_str()).cloned())
                }
                Need::HostState { host } => {
                    self.trace.push(format!("host state {host}"));
                    Event::HostState {
                        floor: self.floors.get(host.as_str()).copied(),
                        robots: self.robots.get(host.as_str()).cloned(),
                    }
                }
                Need::QuietFor { target } => {
                    self.trace.push(format!("quiet {}", Locator::host(target)));
                    Event::Quiet(self.quiet)
                }
                Need::Send {
                    request,
                    gap,
                    allowed,
                } => {
                    let ticket = RequestTicket(i64::try_from(self.ahead.len()).unwrap() + 1);
                    self.ahead
                        .push((ticket, request.target.to_string(), allowed.to_string()));
                    self.trace.push(format!(
                        "send {} {} gap {}s patience {}",
                        request.kind.as_str(),
                        request.target,
                        gap.as_secs(),
                        request.patience
                    ));
                    let outcome = match self.answers.get_mut(request.target.as_str()) {
                        Some(list) if !list.is_empty() => list.remove(0),
                        _ => FetchOutcome::NotFound,
                    };
                    let started_at = now;
                    now += Span::seconds(1);
                    Event::Answer(Answer {
                        outcome,
                        started_at,
                        duration: Duration::from_millis(200),
                        bytes: 10,
                        ticket: Some(ticket),
                    })
                }
                Need::SaveRobots { host, copy, sent } => {
                    self.trace.push(format!("save robots {host}"));
                    self.saved.push((
                        host.to_string(),
                        RobotsCopy::clone(copy),
                        sent.iter().map(|s| s.allowed.to_string()).collect(),
                    ));
                    self.closed.extend(
                        sent.iter()
                            .map(|s| (s.ticket, s.target.to_string(), s.allowed.to_string())),
                    );
                    Event::Saved
                }
                Need::Judge { body, .. } => {
                    self.trace.push(format!("judge {} bytes", body.bytes.len()));
                    let entries = (0..self.entries)
                        .map(|i| Entry {
                            identity: format!("e{i}"),
                            ..Entry::default()
                        })
                        .collect();
                    Event::Judged(Box::new(Verdict {
                        body: BodyVerdict::Parsed(FeedHints::default()),
                        parsed: Some(Box::new(ParsedFeed {
                            format: FeedFormat::Rss20,
                            feed: Feed::default(),
                            entries,
                            warnings: Vec::new(),
                        })),
                        hash: Some("h".into()),
                        error: None,
                    }))
                }
                Need::EntryCounts { ids, .. } => {
                    self.trace.push(format!("counts of {}", ids.len()));
                    Event::EntryCounts {
                        unseen: self.unseen,
                        first_seen_since: self.first_seen_since,
                    }
                }
                Need::FeedAt { url } => {
                    self.trace.push(format!("feed at {url}"));
                    Event::FeedAt {
                        other_feed: self.feed_at,
                    }
                }
                Need::Examine { body, purpose, .. } => {
                    self.trace.push(format!(
                        "examine {} {} bytes",
                        purpose.as_str(),
                        body.bytes.len()
                    ));
                    Event::Examined(Box::new(Examined {
                        usable: self.examined.clone().unwrap_or(Ok(())),
                        found: None,
                    }))
                }
                Need::Done => break,
            };
            need = read.step(event, now);
        }
        read
    }
}

/// A copy of robots.txt read at t0 with `body` (a 200).
pub fn robots_file(body: &str) -> RobotsCopy {
    RobotsCopy::new(t0(), Some(200), Some(body.into()))
}

pub fn allowed_everything(at: DateTime<Utc>) -> RobotsCopy {
    RobotsCopy::new(at, Some(404), None)
}
