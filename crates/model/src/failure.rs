//! What kind of failure a read was, and how many of each a feed has had.
//!
//! The policy's ladders name these kinds (WFM6, SR5, DFB6, PF4–PF7); the store keeps a feed's
//! last kind and its totals as they are, so no later read has to guess them back from a label.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The kinds of failed reads a profile's ladder can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// 403.
    Forbidden,
    /// 429.
    TooManyRequests,
    /// A bot challenge page: 403/429/503 marked `cf-mitigated: challenge`, or HTML where a
    /// feed was expected right after a refusal.
    Challenge,
    /// 404.
    NotFound,
    /// Any other 4xx (401 included) but 410, which switches the feed off.
    ClientError,
    /// 5xx.
    ServerError,
    /// No answer at all: connection failed, timed out.
    NoAnswer,
    /// An answer that is no readable feed: not a feed, too large, broken body, redirect loop.
    BadFeed,
    /// Not requested: robots.txt, the address guard or a do-not-crawl rule said no.
    NotAllowed,
}

impl FailureKind {
    /// Every kind, in declaration order (the index of [`FailureTotals`]).
    pub const ALL: [FailureKind; 9] = [
        FailureKind::Forbidden,
        FailureKind::TooManyRequests,
        FailureKind::Challenge,
        FailureKind::NotFound,
        FailureKind::ClientError,
        FailureKind::ServerError,
        FailureKind::NoAnswer,
        FailureKind::BadFeed,
        FailureKind::NotAllowed,
    ];

    /// The name used in profiles, reasons and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Forbidden => "forbidden",
            FailureKind::TooManyRequests => "too_many_requests",
            FailureKind::Challenge => "challenge",
            FailureKind::NotFound => "not_found",
            FailureKind::ClientError => "client_error",
            FailureKind::ServerError => "server_error",
            FailureKind::NoAnswer => "no_answer",
            FailureKind::BadFeed => "bad_feed",
            FailureKind::NotAllowed => "not_allowed",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`FailureKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is no kind of failure")]
pub struct UnknownFailureKind(pub String);

impl FromStr for FailureKind {
    type Err = UnknownFailureKind;

    fn from_str(name: &str) -> Result<FailureKind, UnknownFailureKind> {
        FailureKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .ok_or_else(|| UnknownFailureKind(name.to_string()))
    }
}

/// How many failures of each kind a feed has had since it was added or last resumed, whatever
/// came between them (PF5: "paused after 4 total 404 responses"). Small and `Copy`: a
/// simulation keeps one per feed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailureTotals {
    counts: [u16; FailureKind::ALL.len()],
}

impl FailureTotals {
    /// The failures of `kind` counted.
    pub fn of(&self, kind: FailureKind) -> u32 {
        u32::from(self.counts[kind.index()])
    }

    /// These totals with one more failure of `kind` (saturating).
    #[must_use]
    pub fn counted(mut self, kind: FailureKind) -> FailureTotals {
        let count = &mut self.counts[kind.index()];
        *count = count.saturating_add(1);
        self
    }

    /// No failure counted.
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|c| *c == 0)
    }

    /// The kinds with a failure counted, with their totals.
    pub fn iter(&self) -> impl Iterator<Item = (FailureKind, u32)> + '_ {
        FailureKind::ALL
            .into_iter()
            .map(|kind| (kind, self.of(kind)))
            .filter(|(_, count)| *count > 0)
    }
}

impl Serialize for FailureTotals {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for FailureTotals {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<FailureKind, u32>::deserialize(deserializer)?;
        let mut totals = FailureTotals::default();
        for (kind, count) in map {
            totals.counts[kind.index()] = u16::try_from(count).unwrap_or(u16::MAX);
        }
        Ok(totals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_back_from_their_names() {
        for kind in FailureKind::ALL {
            assert_eq!(kind.as_str().parse::<FailureKind>(), Ok(kind));
            assert_eq!(
                kind.index(),
                FailureKind::ALL.iter().position(|k| *k == kind).unwrap()
            );
        }
        assert!("refused".parse::<FailureKind>().is_err());
    }

    #[test]
    fn totals_count_each_kind_apart_and_read_back() {
        let totals = FailureTotals::default()
            .counted(FailureKind::NotFound)
            .counted(FailureKind::Forbidden)
            .counted(FailureKind::NotFound);
        assert_eq!(totals.of(FailureKind::NotFound), 2);
        assert_eq!(totals.of(FailureKind::Forbidden), 1);
        assert_eq!(totals.of(FailureKind::ServerError), 0);
        let text = serde_json::to_string(&totals).unwrap();
        assert_eq!(text, r#"{"forbidden":1,"not_found":2}"#);
        assert_eq!(
            serde_json::from_str::<FailureTotals>(&text).unwrap(),
            totals
        );
        assert!(FailureTotals::default().is_empty());
        assert!(serde_json::from_str::<FailureTotals>(r#"{"refused":1}"#).is_err());
        let mut full = FailureTotals::default();
        for _ in 0..70_000 {
            full = full.counted(FailureKind::NoAnswer);
        }
        assert_eq!(full.of(FailureKind::NoAnswer), u32::from(u16::MAX));
    }
}
