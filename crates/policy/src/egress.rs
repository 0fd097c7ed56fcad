//! Refusals per egress address (WFM7, WFM8).
//!
//! A feed is read from the system's own address unless an operator assigned another (never
//! tidings itself, never because of a refusal). Each address's latest answer is kept: refused
//! or not. Once a feed has been read from two addresses or more and every one of them refused
//! it, the feed is switched off: moving it to yet another address would be evading the refusal.
//! With one address only, a refusal climbs the refusal ladder (WFM6) instead.

use crate::profile::FailureKind;
use std::collections::BTreeMap;

/// Each address a feed was read from, and whether its latest answer was a refusal.
pub type EgressRecord = BTreeMap<String, bool>;

/// The key of the system's own address in an [`EgressRecord`].
pub const DEFAULT_EGRESS: &str = "default";

/// Whether a failure of this kind is the publisher refusing the bot (403, 429, a challenge).
pub fn is_refusal(kind: Option<FailureKind>) -> bool {
    matches!(
        kind,
        Some(FailureKind::Forbidden | FailureKind::TooManyRequests | FailureKind::Challenge)
    )
}

/// The record after an answer read from `egress` (`None`: the system's own address).
pub fn after_answer(record: &EgressRecord, egress: Option<&str>, refused: bool) -> EgressRecord {
    let mut next = record.clone();
    next.insert(egress.unwrap_or(DEFAULT_EGRESS).to_owned(), refused);
    next
}

/// Why the feed is switched off, when every address of at least two refused it (WFM8).
pub fn refused_everywhere(record: &EgressRecord) -> Option<String> {
    if record.len() < 2 || !record.values().all(|&refused| refused) {
        return None;
    }
    let addresses: Vec<&str> = record.keys().map(String::as_str).collect();
    Some(format!(
        "refused from every address it was read from: {} (WFM8)",
        addresses.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses and whether each refused.
    type Answers<'a> = &'a [(&'a str, bool)];

    fn record(entries: Answers<'_>) -> EgressRecord {
        entries.iter().map(|(a, r)| ((*a).to_owned(), *r)).collect()
    }

    #[test]
    fn wfm8_off_only_when_every_address_of_two_or_more_refused() {
        let cases: [(Answers<'_>, Option<&str>); 6] = [
            (&[], None),
            (&[("default", true)], None),
            (&[("default", true), ("192.0.2.7", false)], None),
            (&[("default", false), ("192.0.2.7", true)], None),
            (
                &[("default", true), ("192.0.2.7", true)],
                Some("refused from every address it was read from: 192.0.2.7, default (WFM8)"),
            ),
            (
                &[("192.0.2.7", true), ("192.0.2.8", true), ("default", true)],
                Some(
                    "refused from every address it was read from: 192.0.2.7, 192.0.2.8, \
                     default (WFM8)",
                ),
            ),
        ];
        for (entries, want) in cases {
            assert_eq!(
                refused_everywhere(&record(entries)).as_deref(),
                want,
                "{entries:?}"
            );
        }
    }

    #[test]
    fn the_latest_answer_of_each_address_counts() {
        let r = after_answer(&EgressRecord::new(), None, true);
        assert_eq!(r, record(&[("default", true)]));
        let r = after_answer(&r, Some("192.0.2.7"), false);
        let r = after_answer(&r, Some("192.0.2.7"), true);
        assert!(refused_everywhere(&r).is_some());
        let r = after_answer(&r, None, false);
        assert_eq!(r, record(&[("192.0.2.7", true), ("default", false)]));
        assert!(
            refused_everywhere(&r).is_none(),
            "an answer from default lifts it"
        );
    }

    #[test]
    fn refusals_are_403_429_and_challenges() {
        for kind in [
            FailureKind::Forbidden,
            FailureKind::TooManyRequests,
            FailureKind::Challenge,
        ] {
            assert!(is_refusal(Some(kind)), "{kind:?}");
        }
        for kind in [
            FailureKind::NotFound,
            FailureKind::ServerError,
            FailureKind::NoAnswer,
            FailureKind::BadFeed,
            FailureKind::ClientError,
        ] {
            assert!(!is_refusal(Some(kind)), "{kind:?}");
        }
        assert!(!is_refusal(None));
    }
}
