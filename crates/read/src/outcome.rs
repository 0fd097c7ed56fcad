//! What a read ends in: the facts of each request it sent (C7) and one typed outcome.

use crate::{Found, Locator, Purpose, RequestKind, Verdict};
use chrono::{DateTime, Utc};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{AnswerFailure, FetchOutcome, Label, RequestTicket};
use tidings_policy::Decision;
use tidings_policy::egress::EgressRecord;
use tidings_policy::pages::PageNext;

/// Why a request was allowed: the request log's `rule` column, typed until it is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Allowed<L: Locator> {
    /// The first read after the feed was added; what robots.txt said.
    FirstAdd { robots: Arc<str> },
    /// A scheduled read: why it was due, and what robots.txt said.
    Due { reason: String, robots: Arc<str> },
    /// A resource read for a feed (an article page, an icon, an image): why it is read, and
    /// what robots.txt said (or why it was not read, SR7).
    Resource { why: String, robots: Arc<str> },
    /// A redirect hop; what robots.txt of the new origin said (`None` on the same host).
    Redirect { from: L, robots: Option<Arc<str>> },
    /// The one second attempt after no answer at all (WFM5).
    SecondAttempt,
    /// A robots.txt request, why it was read, and the origin it was read for when a redirect
    /// took it elsewhere.
    Robots {
        why: RobotsWhy,
        redirected_from: Option<L::Host>,
    },
}

/// Why robots.txt was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsWhy {
    /// No copy of this origin's file yet (FF11).
    First,
    /// The copy was older than the profile's `max_age` (DFB7).
    Stale,
    /// The copy was a failure that made the profile defer, asked again (FF11).
    AfterDeferring,
}

impl<L: Locator> fmt::Display for Allowed<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::FirstAdd { robots } => write!(f, "first add; {robots}"),
            Allowed::Due { reason, robots } => write!(f, "due: {reason}; {robots}"),
            Allowed::Resource { why, robots } => write!(f, "{why}; {robots}"),
            Allowed::Redirect { from, robots: None } => write!(f, "redirect from {from}"),
            Allowed::Redirect {
                from,
                robots: Some(robots),
            } => write!(f, "redirect from {from}; {robots}"),
            Allowed::SecondAttempt => f.write_str("second attempt after no answer (WFM5)"),
            Allowed::Robots {
                why,
                redirected_from,
            } => {
                f.write_str(match why {
                    RobotsWhy::First => "robots.txt before the first feed of this origin (FF11)",
                    RobotsWhy::Stale => "robots.txt older than the profile's max_age (DFB7)",
                    RobotsWhy::AfterDeferring => {
                        "robots.txt asked again after a deferring failure (FF11)"
                    }
                })?;
                match redirected_from {
                    Some(origin) => write!(f, "; redirected from {origin}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// One request sent, for the request log (C7).
#[derive(Debug, Clone, PartialEq)]
pub struct Sent<L: Locator> {
    /// When it started, in the driver's time.
    pub at: DateTime<Utc>,
    pub target: L,
    pub kind: RequestKind,
    pub status: Option<u16>,
    /// The outcome as the log names it: [`FetchOutcome::label`], or `redirect`,
    /// `challenge`, `parse_error`, `unchanged`.
    pub label: Label,
    pub bytes: u64,
    pub duration: Duration,
    pub allowed: Allowed<L>,
    /// The write-ahead row this request's row closes ([`crate::Answer::ticket`]).
    pub ticket: Option<RequestTicket>,
}

/// How a read ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The feed's request was answered (or could not be sent) and the answer decided.
    Read,
    /// No request for the feed: its host asked everyone to wait (C6), or its crawl-delay
    /// sets the host's work aside (FF11). The stored last outcome stays as it was.
    SetAside,
    /// The feed's own URL is under a do-not-crawl rule (FF13, WFM10): paused, nothing sent.
    Held,
}

/// Why the feed's request was not sent, when it was not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSent {
    /// A do-not-crawl rule covers the feed's URL (FF13, WFM10): held.
    Held,
    /// The host (of the feed or of a redirect hop) asked everyone to wait (C6).
    HostFloor,
    /// The host's crawl-delay is longer than the request window (FF11): its work set aside.
    CrawlDelay,
    /// robots.txt disallows the URL, or the profile stays away from the origin.
    RobotsDenied,
    /// robots.txt could not be read and the profile waits for it.
    RobotsDeferred,
    /// A request of the read was refused before it left: a rule on a redirect hop or on
    /// robots.txt, a rule added while it waited for its turn, the address guard.
    Refused,
}

/// Everything one read decided, for the store to apply as it is.
#[derive(Debug)]
pub struct ReadOutcome<L: Locator> {
    /// Why the feed's request (or its last hop's) was not sent; `None` when it was. How the
    /// read ended follows from it ([`ReadOutcome::ending`]).
    pub not_sent: Option<NotSent>,
    /// The final answer; `Blocked` with the reason when the feed's request was not sent.
    pub outcome: FetchOutcome,
    /// The URL of the final answer (the feed's, or the last redirect hop's).
    pub final_target: L,
    /// The redirect hops followed: (status, from, to).
    pub hops: Vec<(u16, L, L)>,
    pub verdict: Verdict,
    /// What becomes of the feed, the egress record applied (WFM8: switched off, with `off: …`
    /// as its reason, once every address refused through the whole ladder).
    pub decision: Decision,
    /// The stored outcome label: the final row's label, or `postponed` for a read set aside.
    pub label: Label,
    /// Every request sent, in order (without the resource's own under
    /// [`Read::without_log`](crate::Read::without_log)).
    pub sent: Vec<Sent<L>>,
    /// Each egress address's latest answer (WFM8), when the read changed it; `None` when it
    /// got no answer or the same answer as last time.
    pub egress_refusals: Option<EgressRecord>,
    /// PF9: the permanent redirect under observation, and the URL to move the feed to now.
    pub pending_move: Option<(String, DateTime<Utc>)>,
    pub move_to: Option<String>,
    /// C6: a Retry-After the answer set for every request to its host.
    pub host_floor: Option<(L::Host, DateTime<Utc>)>,
    /// DFB2, FF14: the excerpt decision of this read, when the profile cuts what it keeps of
    /// a summary (the entries in `verdict` are already as stored).
    pub excerpts: Option<tidings_rights::Ruling>,
    /// FF14: how the answer moved the feed's directives, when it did.
    pub directives: Option<tidings_rights::directive::Change>,
}

impl<L: Locator> ReadOutcome<L> {
    /// How the read ended: held when a rule covers the feed, set aside when its host asked
    /// everyone to wait or its crawl-delay pauses the work, read otherwise.
    pub fn ending(&self) -> Ending {
        match self.not_sent {
            Some(NotSent::Held) => Ending::Held,
            Some(NotSent::HostFloor | NotSent::CrawlDelay) => Ending::SetAside,
            _ => Ending::Read,
        }
    }
}

/// Everything one read of a resource (an article page, an icon, an image) decided, for the
/// store to apply as it is.
#[derive(Debug)]
pub struct ResourceOutcome<L: Locator> {
    pub purpose: Purpose,
    /// Why the request (or its last hop's) was not sent; `None` when it was.
    pub not_sent: Option<NotSent>,
    /// The final answer (its body handed to the driver's examination); `Blocked` with the
    /// reason when the request was not sent.
    pub outcome: FetchOutcome,
    /// The URL of the final answer (the resource's, or the last redirect hop's).
    pub final_target: L,
    /// What the body held, when it was what was asked for.
    pub found: Option<Found>,
    /// The error shown when the read brought nothing usable.
    pub error: Option<String>,
    /// What follows: done, asked again at a time, or left alone until one (SR4, SR6), with
    /// its reason.
    pub next: PageNext,
    /// Temporary failures in a row after this read (SR4, SR6 count them): 0 once it is done
    /// or held, unchanged when nothing was asked.
    pub retries: u32,
    /// The stored outcome label: the final row's, or `postponed` for a read set aside.
    pub label: Label,
    /// Every request sent, in order (without the resource's own under
    /// [`Read::without_log`](crate::Read::without_log)).
    pub sent: Vec<Sent<L>>,
    /// C6: a Retry-After the answer set for every request to its host.
    pub host_floor: Option<(L::Host, DateTime<Utc>)>,
}

/// The error shown for an answer that brought no usable body.
pub fn failure_text(outcome: &FetchOutcome) -> Option<String> {
    Some(match outcome {
        FetchOutcome::Fetched(_) | FetchOutcome::NotModified { .. } => return None,
        FetchOutcome::Redirect { status, location } => format!(
            "too many redirects (last {status} to {})",
            location.as_deref().unwrap_or("nowhere")
        ),
        FetchOutcome::Refused { status, .. } => format!("refused with {status}"),
        FetchOutcome::Challenge { status, .. } => {
            format!("refused with a bot challenge page ({status})")
        }
        FetchOutcome::NotFound => "404 not found".into(),
        FetchOutcome::Gone => "410 gone".into(),
        FetchOutcome::ClientError { status } | FetchOutcome::ServerError { status, .. } => {
            format!("http {status}")
        }
        FetchOutcome::TooLarge { limit } => format!("body larger than {limit} bytes"),
        FetchOutcome::BadBody { detail, .. } => format!("unreadable body: {detail}"),
        FetchOutcome::FailedAnswer {
            status,
            failure: AnswerFailure::Stalled,
        } => match status {
            Some(status) => format!("answered {status}, then the body stalled past the time-out"),
            None => "the answer stalled past the time-out".into(),
        },
        FetchOutcome::FailedAnswer {
            failure: AnswerFailure::HeadTooLarge,
            ..
        } => "the response headers were too large to read".into(),
        FetchOutcome::Transport(e) => e.to_string(),
        FetchOutcome::CrawlerPaused { .. } => return None,
        FetchOutcome::Blocked { reason } => format!("not fetched: {reason}"),
    })
}
