//! What one request or one read came to, by name: the request log's outcome, a feed's last
//! read, a crawl report. One closed set, so that the store, the CLI and the API branch on a
//! variant, never on a string read back.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The name of an outcome. Its text ([`Label::as_str`]) is what the request log, the API and
/// the store hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// 200 with a readable feed.
    Ok,
    /// 304.
    NotModified,
    /// 200 with the same bytes as last time (C5).
    Unchanged,
    /// A redirect hop, or a chain that did not end.
    Redirect,
    /// 403 or 429.
    Refused,
    /// A bot challenge page.
    Challenge,
    /// 404.
    NotFound,
    /// 410.
    Gone,
    /// Any other 4xx.
    ClientError,
    /// 5xx.
    ServerError,
    /// A body over the size limit.
    TooLarge,
    /// A body that could not be read (broken encoding, cut short).
    BadBody,
    /// A body that stalled after the status line.
    StalledAnswer,
    /// A response head over its limit.
    HeadTooLarge,
    /// 200 whose body is not what was asked for: no feed (or no page, no image).
    ParseError,
    /// No answer at all.
    NoAnswer,
    /// The crawler itself was not running while the request was out.
    CrawlerPaused,
    /// Not sent: robots.txt, the address guard or a do-not-crawl rule.
    Blocked,
    /// Not sent: the host asked everyone to wait (C6) or its crawl-delay set it aside (FF11).
    Postponed,
    /// The read failed inside tidings (the store, a task); nothing of it was stored.
    InternalError,
    /// Sent, and no answer stored yet: the request is in flight, or the process that sent it
    /// stopped before storing what came back (the request log's write-ahead row, C7).
    InFlight,
}

impl Label {
    /// Every label, in declaration order.
    pub const ALL: [Label; 21] = [
        Label::Ok,
        Label::NotModified,
        Label::Unchanged,
        Label::Redirect,
        Label::Refused,
        Label::Challenge,
        Label::NotFound,
        Label::Gone,
        Label::ClientError,
        Label::ServerError,
        Label::TooLarge,
        Label::BadBody,
        Label::StalledAnswer,
        Label::HeadTooLarge,
        Label::ParseError,
        Label::NoAnswer,
        Label::CrawlerPaused,
        Label::Blocked,
        Label::Postponed,
        Label::InternalError,
        Label::InFlight,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Label::Ok => "ok",
            Label::NotModified => "not_modified",
            Label::Unchanged => "unchanged",
            Label::Redirect => "redirect",
            Label::Refused => "refused",
            Label::Challenge => "challenge",
            Label::NotFound => "not_found",
            Label::Gone => "gone",
            Label::ClientError => "client_error",
            Label::ServerError => "server_error",
            Label::TooLarge => "too_large",
            Label::BadBody => "bad_body",
            Label::StalledAnswer => "stalled_answer",
            Label::HeadTooLarge => "head_too_large",
            Label::ParseError => "parse_error",
            Label::NoAnswer => "no_answer",
            Label::CrawlerPaused => "crawler_paused",
            Label::Blocked => "blocked",
            Label::Postponed => "postponed",
            Label::InternalError => "internal_error",
            Label::InFlight => "in_flight",
        }
    }

    /// Whether a request went out (every label but `blocked`, `postponed` and
    /// `internal_error`).
    pub fn was_sent(self) -> bool {
        !matches!(
            self,
            Label::Blocked | Label::Postponed | Label::InternalError
        )
    }

    /// A success: a feed read, a 304 or the same body again.
    pub fn is_success(self) -> bool {
        matches!(self, Label::Ok | Label::NotModified | Label::Unchanged)
    }

    /// The server answered "nothing new" (304, or the same bytes: C5).
    pub fn is_not_modified(self) -> bool {
        matches!(self, Label::NotModified | Label::Unchanged)
    }

    /// Whether a read with this label leaves the feed's last read (status, outcome, error,
    /// time) as it was: a postponed read sent nothing, and a paused crawler learnt nothing of
    /// the publisher.
    pub fn keeps_last_read(self) -> bool {
        matches!(self, Label::Postponed | Label::CrawlerPaused)
    }

    /// Whether it counts as an error of the feed: a request was sent and failed because of
    /// the publisher's answer (not the crawler's own pause, nor an answer not yet stored).
    pub fn is_error(self) -> bool {
        self.was_sent()
            && !self.is_success()
            && !matches!(self, Label::CrawlerPaused | Label::InFlight)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Label {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for Label {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// A name that is no [`Label`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is no outcome label")]
pub struct UnknownLabel(pub String);

impl FromStr for Label {
    type Err = UnknownLabel;

    fn from_str(name: &str) -> Result<Label, UnknownLabel> {
        Label::ALL
            .into_iter()
            .find(|label| label.as_str() == name)
            .ok_or_else(|| UnknownLabel(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_from_their_names_and_serialise_as_them() {
        for label in Label::ALL {
            assert_eq!(label.as_str().parse::<Label>(), Ok(label));
            assert_eq!(
                serde_json::to_string(&label).unwrap(),
                format!("\"{}\"", label.as_str())
            );
        }
        assert!("fine".parse::<Label>().is_err());
    }

    #[test]
    fn c5_c7_what_each_label_counts() {
        // (label, sent, success, error, keeps the last read)
        let rows = [
            (Label::Ok, true, true, false, false),
            (Label::NotModified, true, true, false, false),
            (Label::Unchanged, true, true, false, false),
            (Label::NotFound, true, false, true, false),
            (Label::NoAnswer, true, false, true, false),
            (Label::CrawlerPaused, true, false, false, true),
            (Label::Blocked, false, false, false, false),
            (Label::Postponed, false, false, false, true),
            (Label::InternalError, false, false, false, false),
            (Label::InFlight, true, false, false, false),
        ];
        for (label, sent, success, error, keeps) in rows {
            assert_eq!(
                (
                    label.was_sent(),
                    label.is_success(),
                    label.is_error(),
                    label.keeps_last_read()
                ),
                (sent, success, error, keeps),
                "{label}"
            );
        }
    }
}
