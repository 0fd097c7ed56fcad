//! One courteous read of one resource, as a sans-IO state machine.
//!
//! A read is the order of every check and request that one fetch of a feed takes, written
//! once: the do-not-crawl rules (FF13), the host's Retry-After floor (C6), robots.txt of the
//! origin, read or re-read when stale (DFB7, FF11, SR8), the crawl-delay and the FF11 pause, the
//! host's turn and gap (C3), the request with its validators and User-Agent (C1, C4, PF10),
//! the one second attempt after no answer (WFM5), each redirect hop as a request of its own
//! with the same checks (FF11, FF13, C6), the body verdict (C5), the decision, the egress record
//! (WFM8), the permanent-redirect move (PF9), the host floor the answer sets, and a request-log
//! fact for every request sent (C7).
//!
//! The machine does no I/O, never waits and never reads the clock. A driver starts a
//! [`Read`] and answers each [`Need`] it returns with the matching [`Event`] and the
//! driver's time, until the need is [`Need::Done`]; then [`Read::finish`] gives the one
//! typed [`ReadOutcome`] to store as it is. The crawler drives it over real HTTP and its store;
//! `tidings simulate` drives the same machine in virtual time against a modelled web.
//!
//! ```text
//! start ─► Rules ─► HostState ─┬─► (stale) Rules ─► Send robots.txt ─► … ─► SaveRobots ─┐
//!                              └────────────────────────────────────────────────────────┴─►
//!   gate ─► (long crawl-delay) QuietFor (FF11 pause) ─► Send ─┬─► (no answer, WFM5) Send ─┐
//!                                                             ├─► (redirect) Rules ─► HostState ─► …
//!                                                             └─► Judge ─► NewEntryCounts ─► FeedAt (PF9) ─► Done
//! ```
//!
//! Resources are named by a [`Locator`]: the crawler's is a [`url::Url`]; the simulation can
//! use a compact one of its own.

mod locator;
mod machine;
mod outcome;
mod push;

pub use locator::Locator;
pub use machine::{FeedState, Read, ResourceState};
pub use outcome::failure_text;
pub use outcome::{Allowed, Ending, NotSent, ReadOutcome, ResourceOutcome, RobotsWhy, Sent};
pub use push::keep_pushed;

use chrono::{DateTime, Utc};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tidings_model::{FetchOutcome, RequestPurpose, RequestTicket, Validators};

/// The validators of a request that sends none (robots.txt).
static NO_VALIDATORS: Validators = Validators {
    etag: None,
    last_modified: None,
};
use tidings_policy::robots::{RobotsRules, StoredRobots};
use tidings_policy::{BodyVerdict, Profile};

/// Why a request is made; written to the request log (C7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The first read after a feed was added.
    FirstAdd,
    /// A scheduled refresh.
    Scheduled,
    /// An entry's article page, read once for its preview image (SR1).
    ArticlePage,
    /// A site icon (SR1); `first_add` for the one asked when a feed is first added, which a
    /// profile may let skip robots.txt (SR7).
    Icon { first_add: bool },
    /// An image file for the image cache (FF9).
    Image,
    /// A URL read to learn whether it is a feed and, when it is an HTML page, which feeds it
    /// names (FF1). `named`: a URL given as a feed (one a person submitted, an alternate a
    /// page declares), requested as a feed; otherwise a guess (a body link, a common path, a
    /// spider's page), requested only by a profile that lists `discovery`.
    Discovery { named: bool },
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::FirstAdd => "first_add",
            Purpose::Scheduled => "feed",
            Purpose::ArticlePage => "article_page",
            Purpose::Icon { .. } => "icon",
            Purpose::Image => "image",
            Purpose::Discovery { .. } => "discovery",
        }
    }

    /// Whether this is a read of a feed (the other purposes read one resource for a feed).
    pub fn is_feed(self) -> bool {
        matches!(self, Purpose::FirstAdd | Purpose::Scheduled)
    }

    /// The kind of resource requested, as a profile lists what it requests.
    pub fn requests(self) -> RequestPurpose {
        match self {
            Purpose::FirstAdd | Purpose::Scheduled => RequestPurpose::Feed,
            Purpose::ArticlePage => RequestPurpose::ArticlePage,
            Purpose::Icon { .. } => RequestPurpose::Icon,
            Purpose::Image => RequestPurpose::Image,
            Purpose::Discovery { named: true } => RequestPurpose::Feed,
            Purpose::Discovery { named: false } => RequestPurpose::Discovery,
        }
    }
}

/// What a request is for, as the request log names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// The resource itself (or a redirect hop of it), for this purpose.
    Resource(Purpose),
    /// robots.txt of an origin (or a redirect hop of it).
    Robots,
}

impl RequestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Resource(purpose) => purpose.as_str(),
            RequestKind::Robots => "robots",
        }
    }
}

/// One request for the driver to send, in its host's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Request<'v, L> {
    pub target: L,
    pub kind: RequestKind,
    /// Validators to send as If-None-Match / If-Modified-Since (C4), borrowed from the feed's
    /// state; empty for robots.txt.
    pub validators: &'v Validators,
    /// The User-Agent of this read when it differs from the driver's own (PF10); the same on
    /// every request of the read (C1).
    pub user_agent: Option<String>,
    /// How many times the usual time the answer may take (1, or the WFM5 patience).
    pub patience: u32,
    /// The most bytes of the body read, when less than the profile's `fetch.max_body_bytes`:
    /// an article page's (SR1), an icon's, an image's (FF9).
    pub max_bytes: Option<u64>,
    /// A longer body is read to `max_bytes` and kept so: an article page's head holds its
    /// preview (SR1 reads at most 1 MB of it).
    pub keep_prefix: bool,
}

/// What the machine needs from its driver before it can go on.
#[derive(Debug)]
pub enum Need<'a, L: Locator> {
    /// Whether a do-not-crawl rule covers `target` (FF13, WFM10): [`Event::Rules`].
    Rules { target: &'a L },
    /// What is stored for `host`: its Retry-After floor (C6) and its robots.txt copy, which
    /// the read needs one after the other (a store keeps them together):
    /// [`Event::HostState`].
    HostState { host: L::Host },
    /// How long `target`'s host has been quiet (since its last request ended, in the driver's
    /// time; after a restart or across processes, from the request log): [`Event::Quiet`].
    /// Asked only when the host's crawl-delay could set its work aside (FF11).
    QuietFor { target: &'a L },
    /// Send `request` in its host's turn: no other request to that host in flight, the last
    /// one ended at least `gap` ago (C3). [`Event::Answer`].
    Send {
        request: &'a Request<'a, L>,
        gap: Duration,
        /// The rule that allows it, for the row a driver writes ahead of it (C7).
        allowed: &'a Allowed<L>,
    },
    /// Store `copy` as `host`'s robots.txt, with the facts of the requests that read it (C7):
    /// [`Event::Saved`].
    SaveRobots {
        host: L::Host,
        copy: &'a Arc<RobotsCopy>,
        sent: Vec<Sent<L>>,
    },
    /// Judge the body read from `base` (the base of its relative links): hash it against the
    /// stored hash (C5) and parse it (CPU work, for the driver's blocking pool):
    /// [`Event::Judged`].
    Judge {
        body: Body,
        base: &'a L,
        stored_hash: Option<&'a str>,
    },
    /// How many of these entry ids the feed has never stored, and how many it first stored
    /// since `since` (C8): [`Event::EntryCounts`].
    EntryCounts {
        ids: Vec<&'a str>,
        since: DateTime<Utc>,
    },
    /// Which feed, if any, already lives at `target` (PF9: a move onto another feed's URL is
    /// not made): [`Event::FeedAt`].
    FeedAt { url: &'a str },
    /// Examine the body of a resource read from `base` for its `purpose` (an article page is
    /// inspected for its preview image; an icon or image is checked to be one): CPU work, for
    /// the driver's blocking pool: [`Event::Examined`].
    Examine {
        body: Body,
        base: &'a L,
        purpose: Purpose,
    },
    /// The read is over: take its outcome with [`Read::finish`].
    Done,
}

/// The driver's answer to a [`Need`].
#[derive(Debug)]
pub enum Event {
    /// The rule covering the target, as its reason; `None` when no rule does.
    Rules(Option<String>),
    /// The host's Retry-After floor and robots.txt copy, each `None` when none is stored.
    HostState {
        floor: Option<DateTime<Utc>>,
        robots: Option<Arc<RobotsCopy>>,
    },
    /// `None` when nothing is known of the host's last request.
    Quiet(Option<Duration>),
    Answer(Answer),
    Saved,
    Judged(Box<Verdict>),
    EntryCounts {
        unseen: u64,
        first_seen_since: u64,
    },
    /// Whether another feed (not this one) lives there.
    FeedAt {
        other_feed: bool,
    },
    Examined(Box<Examined>),
}

/// What the driver found in a resource's body.
#[derive(Debug)]
pub struct Examined {
    /// `Err(why)` when the body is not what was asked for: no HTML page, no image of a type
    /// tidings keeps.
    pub usable: Result<(), String>,
    pub found: Option<Found>,
}

/// The facts of a resource's body, carried to the outcome as the driver found them.
#[derive(Debug)]
pub enum Found {
    /// An article page's facts (SR1, FF6).
    Page(Box<tidings_page::Page>),
    /// An icon's or image's bytes, as served, with their media type (sniffed when the header
    /// said nothing usable).
    Image { bytes: Vec<u8>, media_type: String },
    /// A discovery read's feed (FF1), parsed, with its body's hash (FF3 compares bodies).
    Feed {
        parsed: Box<tidings_model::ParsedFeed>,
        hash: String,
    },
}

/// The answer to one request, as the driver's fetcher classified it.
#[derive(Debug)]
pub struct Answer {
    pub outcome: FetchOutcome,
    /// When the request started, in the driver's time.
    pub started_at: DateTime<Utc>,
    pub duration: Duration,
    pub bytes: u64,
    /// The write-ahead row the driver logged before sending, if it keeps one (C7); handed
    /// back in the request's [`Sent`] so that its row closes it.
    pub ticket: Option<RequestTicket>,
}

/// A stored robots.txt: when it was read, the status of the answer (`None`: no answer) and
/// the body of a 2xx that could be read.
///
/// What the file says is read once per copy ([`RobotsCopy::rules`]) and kept with it, so a
/// driver that keeps a copy (in an [`Arc`]) for many reads parses it once. A copy serves the
/// profile of its first question.
#[derive(Debug, Clone)]
pub struct RobotsCopy {
    pub fetched_at: DateTime<Utc>,
    pub status: Option<u16>,
    pub body: Option<String>,
    rules: OnceLock<RobotsRules>,
}

impl RobotsCopy {
    pub fn new(fetched_at: DateTime<Utc>, status: Option<u16>, body: Option<String>) -> Self {
        RobotsCopy {
            fetched_at,
            status,
            body,
            rules: OnceLock::new(),
        }
    }

    /// What the copy says under `profile`, read on the first call.
    pub fn rules(&self, profile: &Profile) -> &RobotsRules {
        self.rules.get_or_init(|| {
            let stored = StoredRobots {
                fetched_at: self.fetched_at,
                status: self.status,
                body: self.body.as_deref().map(str::as_bytes),
            };
            RobotsRules::read(&stored, profile)
        })
    }
}

impl PartialEq for RobotsCopy {
    fn eq(&self, other: &Self) -> bool {
        (self.fetched_at, self.status, &self.body) == (other.fetched_at, other.status, &other.body)
    }
}

impl Eq for RobotsCopy {}

/// A body to judge, with what the answer said of it.
#[derive(Debug)]
pub struct Body {
    pub bytes: Vec<u8>,
    pub content_type: Option<String>,
}

/// The body's fate, with what it yielded: the driver's judge (parse and hash) fills it.
#[derive(Debug)]
pub struct Verdict {
    pub body: BodyVerdict,
    /// Boxed: a read carries its verdict through every state, and most verdicts have none.
    pub parsed: Option<Box<tidings_model::ParsedFeed>>,
    /// The new content hash to store, for a body that parsed (or was unchanged).
    pub hash: Option<String>,
    pub error: Option<String>,
}

impl Verdict {
    /// No body was judged.
    pub fn none(error: Option<String>) -> Verdict {
        Verdict {
            body: BodyVerdict::NotApplicable,
            parsed: None,
            hash: None,
            error,
        }
    }
}
