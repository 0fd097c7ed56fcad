//! What fetching robots.txt means for the origin (RFC 9309, section 2.3.1).
//!
//! The fetcher classifies its attempt into a [`RobotsFetch`]; [`interpret`] turns that into a
//! [`RobotsStatus`]. A missing file (404, 410, other 4xx) allows everything. What a server
//! error, an unreachable server or a file the server refuses to show (401, 403) means is the
//! profile's choice, given as a [`FailurePolicy`]: allow (SR10, and RFC 9309's reading of 401
//! and 403 as "unavailable"), stay away (DFB8, and RFC 9309's default for the others) or defer
//! the work (FF11: access failures defer). Whether a cached
//! copy is used meanwhile is also the caller's business.

use crate::robots::Robots;

/// The outcome of fetching `/robots.txt`, after redirects (at most five, RFC 9309 2.3.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsFetch<'a> {
    /// A 2xx answer with its body (already capped by the fetcher).
    Ok(&'a [u8]),
    /// 404, 410, any other 4xx but 401, 403 and 429, or a redirect chain that did not end: no
    /// rules, so everything is allowed (RFC 9309 2.3.1.3 and 2.3.1.2).
    NotFound,
    /// 401 or 403: the server refuses to show the file. RFC 9309 reads it as unavailable
    /// (allow); a profile may defer instead (FF11).
    AccessDenied,
    /// 5xx, 429, or a status that makes no sense for a final answer (1xx).
    ServerError,
    /// A 2xx whose body could not be read: larger than the fetcher's limit, or broken (bad
    /// compression, cut chunking). The server answered, so this is no "unreachable"; there
    /// are no rules to read either, so the profile's choice for a server error applies.
    Unreadable,
    /// No answer: DNS, connection or TLS failure, timeout.
    Unreachable,
}

impl<'a> RobotsFetch<'a> {
    /// Classifies the final status of a fetch that got an answer.
    ///
    /// 429 counts as a server error rather than as a missing file: a server asking us to slow
    /// down has not said that it has no rules.
    ///
    /// ```
    /// use tidings_robots::RobotsFetch;
    ///
    /// assert_eq!(RobotsFetch::from_status(200, b"x"), RobotsFetch::Ok(b"x"));
    /// assert_eq!(RobotsFetch::from_status(410, b""), RobotsFetch::NotFound);
    /// assert_eq!(RobotsFetch::from_status(403, b""), RobotsFetch::AccessDenied);
    /// assert_eq!(RobotsFetch::from_status(429, b""), RobotsFetch::ServerError);
    /// assert_eq!(RobotsFetch::from_status(503, b""), RobotsFetch::ServerError);
    /// ```
    #[must_use]
    pub fn from_status(status: u16, body: &'a [u8]) -> Self {
        match status {
            200..=299 => Self::Ok(body),
            429 => Self::ServerError,
            401 | 403 => Self::AccessDenied,
            300..=499 => Self::NotFound,
            _ => Self::ServerError,
        }
    }
}

/// What a profile does when robots.txt cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnFailure {
    /// Crawl as if there were no robots.txt (SR10 for server errors).
    Allow,
    /// Fetch nothing from the origin but robots.txt itself (DFB8; RFC 9309 2.3.1.4).
    Disallow,
    /// Fetch nothing from the origin now, and try again later (FF11).
    Defer,
}

/// A profile's choices for the failures of a robots.txt fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailurePolicy {
    /// For [`RobotsFetch::ServerError`] and [`RobotsFetch::Unreadable`].
    pub server_error: OnFailure,
    /// For [`RobotsFetch::Unreachable`].
    pub unreachable: OnFailure,
    /// For [`RobotsFetch::AccessDenied`].
    pub access_denied: OnFailure,
}

impl FailurePolicy {
    /// RFC 9309 2.3.1.4: an unreachable file means complete disallow; 2.3.1.3: a 401 or 403
    /// is an unavailable file, which allows everything.
    pub const RFC_9309: Self = Self {
        server_error: OnFailure::Disallow,
        unreachable: OnFailure::Disallow,
        access_denied: OnFailure::Allow,
    };
}

/// What the origin's robots.txt means for the crawler now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsStatus {
    /// The file was read: check each URL against it.
    Rules(Robots),
    /// No file, or the profile allows on failure: every URL is allowed.
    AllowAll,
    /// The profile stays away: no URL is allowed (but robots.txt itself).
    DisallowAll,
    /// The profile defers: do nothing on the origin now.
    Defer,
}

/// Interprets a robots.txt fetch under the profile's failure policy.
///
/// ```
/// use tidings_robots::{interpret, FailurePolicy, OnFailure, RobotsFetch, RobotsStatus};
///
/// let sr10 = FailurePolicy {
///     server_error: OnFailure::Allow,
///     unreachable: OnFailure::Defer,
///     access_denied: OnFailure::Allow,
/// };
/// assert_eq!(interpret(RobotsFetch::ServerError, sr10), RobotsStatus::AllowAll);
/// assert_eq!(interpret(RobotsFetch::NotFound, FailurePolicy::RFC_9309), RobotsStatus::AllowAll);
/// ```
#[must_use]
pub fn interpret(fetch: RobotsFetch<'_>, policy: FailurePolicy) -> RobotsStatus {
    let on_failure = |choice| match choice {
        OnFailure::Allow => RobotsStatus::AllowAll,
        OnFailure::Disallow => RobotsStatus::DisallowAll,
        OnFailure::Defer => RobotsStatus::Defer,
    };
    match fetch {
        RobotsFetch::Ok(body) => RobotsStatus::Rules(Robots::parse(body)),
        RobotsFetch::NotFound => RobotsStatus::AllowAll,
        RobotsFetch::ServerError | RobotsFetch::Unreadable => on_failure(policy.server_error),
        RobotsFetch::Unreachable => on_failure(policy.unreachable),
        RobotsFetch::AccessDenied => on_failure(policy.access_denied),
    }
}
