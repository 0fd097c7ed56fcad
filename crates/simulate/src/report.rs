//! What a simulation found: counters while it runs, the [`Report`] at the end.

use crate::audit::Violations;
use serde::Serialize;
use std::collections::BTreeMap;
use tidings_model::FetchOutcome;
use tidings_policy::BodyVerdict;

/// What a request came back with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Robots,
    Ok,
    Unchanged,
    NotModified,
    ParseError,
    Refused403,
    Refused429,
    NotFound,
    Gone,
    ServerError,
    NoAnswer,
    Other,
}

impl Outcome {
    const ALL: [Outcome; 12] = [
        Outcome::Robots,
        Outcome::Ok,
        Outcome::Unchanged,
        Outcome::NotModified,
        Outcome::ParseError,
        Outcome::Refused403,
        Outcome::Refused429,
        Outcome::NotFound,
        Outcome::Gone,
        Outcome::ServerError,
        Outcome::NoAnswer,
        Outcome::Other,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Outcome::Robots => "robots_txt",
            Outcome::Ok => "ok",
            Outcome::Unchanged => "unchanged",
            Outcome::NotModified => "not_modified",
            Outcome::ParseError => "parse_error",
            Outcome::Refused403 => "refused_403",
            Outcome::Refused429 => "refused_429",
            Outcome::NotFound => "not_found",
            Outcome::Gone => "gone",
            Outcome::ServerError => "server_error",
            Outcome::NoAnswer => "no_answer",
            Outcome::Other => "other",
        }
    }

    /// The outcome of a feed request.
    pub fn of(outcome: &FetchOutcome, verdict: &BodyVerdict) -> Outcome {
        match (outcome, verdict) {
            (FetchOutcome::Fetched(_), BodyVerdict::Unchanged) => Outcome::Unchanged,
            (FetchOutcome::Fetched(_), BodyVerdict::Parsed(_)) => Outcome::Ok,
            (FetchOutcome::Fetched(_), _) => Outcome::ParseError,
            (FetchOutcome::NotModified { .. }, _) => Outcome::NotModified,
            (FetchOutcome::Refused { status: 429, .. }, _) => Outcome::Refused429,
            (FetchOutcome::Refused { .. }, _) => Outcome::Refused403,
            (FetchOutcome::NotFound, _) => Outcome::NotFound,
            (FetchOutcome::Gone, _) => Outcome::Gone,
            (FetchOutcome::ServerError { .. }, _) => Outcome::ServerError,
            (FetchOutcome::Transport(_), _) => Outcome::NoAnswer,
            _ => Outcome::Other,
        }
    }
}

/// Counters of one shard.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub by_outcome: [u64; 12],
    pub postponed: u64,
    pub robots_denied: u64,
    pub robots_deferred: u64,
    pub second_attempts: u64,
    pub paused_by_crawl_delay: u64,
    /// Reads driven through the read machine (each ends in one decision).
    pub reads: u64,
    /// 403 answers per virtual day.
    pub refused_403_by_day: Vec<u64>,
}

impl Counts {
    /// Count a 403 sent on virtual day `day`.
    pub fn refused_403_on(&mut self, day: usize) {
        if self.refused_403_by_day.len() <= day {
            self.refused_403_by_day.resize(day + 1, 0);
        }
        self.refused_403_by_day[day] += 1;
    }

    pub fn request(&mut self, o: Outcome) {
        self.by_outcome[o as usize] += 1;
    }

    pub fn of(&self, o: Outcome) -> u64 {
        self.by_outcome[o as usize]
    }

    pub fn add(&mut self, o: &Counts) {
        for (a, b) in self.by_outcome.iter_mut().zip(o.by_outcome) {
            *a += b;
        }
        self.postponed += o.postponed;
        self.robots_denied += o.robots_denied;
        self.robots_deferred += o.robots_deferred;
        self.second_attempts += o.second_attempts;
        self.paused_by_crawl_delay += o.paused_by_crawl_delay;
        self.reads += o.reads;
        for (day, &n) in o.refused_403_by_day.iter().enumerate() {
            if self.refused_403_by_day.len() <= day {
                self.refused_403_by_day.resize(day + 1, 0);
            }
            self.refused_403_by_day[day] += n;
        }
    }

    /// Requests by outcome label.
    pub fn labelled(&self) -> BTreeMap<&'static str, u64> {
        Outcome::ALL
            .iter()
            .map(|&o| (o.label(), self.of(o)))
            .filter(|&(_, n)| n > 0)
            .collect()
    }
}

/// The busiest host.
#[derive(Debug, Clone, Serialize)]
pub struct BusiestHost {
    pub host: String,
    pub feeds: u64,
    pub requests: u64,
    pub requests_per_day: f64,
    /// The shortest gap seen between two of its turns (end of one to start of the next).
    pub min_gap_secs: Option<f64>,
}

/// Feeds at the end of the run.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct FeedStates {
    pub active: u64,
    /// Switched off (410).
    pub off: u64,
    /// Active with at least one failure since the last success.
    pub failing: u64,
}

/// Things that happened without a request.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct NotSent {
    /// Reads skipped because the host's Retry-After floor was ahead (C6).
    pub postponed_by_host_floor: u64,
    pub denied_by_robots: u64,
    pub deferred_by_robots: u64,
    /// Reads set aside because the host's crawl-delay is longer than the request window
    /// (FF11).
    pub set_aside_by_crawl_delay: u64,
}

/// Everything a simulation found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub profile: String,
    pub feeds: u32,
    pub hosts: u32,
    pub days: u32,
    pub seed: u64,
    pub threads: u32,
    /// Every request sent, robots.txt included.
    pub requests: u64,
    pub requests_per_day: f64,
    pub requests_by_outcome: BTreeMap<&'static str, u64>,
    pub requests_per_day_by_outcome: BTreeMap<&'static str, f64>,
    /// 304s among feed requests.
    pub share_304: f64,
    /// 304s and unchanged bodies among feed requests.
    pub share_unchanged: f64,
    /// 403 answers per virtual day: a refused feed backs off, so this falls (WFM6, SR5).
    pub refused_403_by_day: Vec<u64>,
    /// WFM5 second attempts (each is one of the requests).
    pub second_attempts: u64,
    pub not_sent: NotSent,
    pub busiest_host: Option<BusiestHost>,
    pub violations: Violations,
    pub violations_total: u64,
    pub feeds_final: FeedStates,
    /// Reads driven through the read machine, each ending in one decision.
    pub reads: u64,
    /// Time inside the read machine's steps (`tidings_read`, the policy calls included),
    /// estimated by timing one read in 64, summed over threads, as a share of wall time ×
    /// threads.
    pub machine_share: f64,
    pub wall_secs: f64,
    /// VmHWM from /proc/self/status (Linux), bytes.
    pub peak_rss_bytes: Option<u64>,
}

/// The process's peak resident set (VmHWM), in bytes, where the system tells it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}
