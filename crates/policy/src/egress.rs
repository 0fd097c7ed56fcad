//! Refusals per egress address (WFM7, WFM8).
//!
//! A feed is read from the system's own address unless an operator assigned another (never
//! tidings itself, never because of a refusal). Each address's latest answer is kept: refused
//! or not. While some address has not refused, a refusal climbs the refusal ladder (WFM6): the
//! feed slows down. Once every address the feed was read from (one or more) has refused it and
//! the refusals have gone through the whole ladder, a profile that says so (WFM8) switches the
//! feed off: asking again, or from yet another address, would be evading the refusal.

use crate::profile::{FailureKind, Profile};
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

/// The record after an answer read from `egress` (`None`: the system's own address);
/// `None` when the answer leaves it as it was (the same answer from that address as last
/// time), so nothing is copied or stored for it.
pub fn after_answer(
    record: &EgressRecord,
    egress: Option<&str>,
    refused: bool,
) -> Option<EgressRecord> {
    let address = egress.unwrap_or(DEFAULT_EGRESS);
    if record.get(address) == Some(&refused) {
        return None;
    }
    let mut next = record.clone();
    next.insert(address.to_owned(), refused);
    Some(next)
}

/// Why the feed is switched off (WFM8): the profile says so, every address it was read from
/// refused it, and this refusal (`failure`, the `streak`-th in a row on its ladder) is at the
/// ladder's last step or past it. `None` while the feed only slows down.
pub fn refused_everywhere(
    record: &EgressRecord,
    failure: Option<FailureKind>,
    streak: u32,
    profile: &Profile,
) -> Option<String> {
    if !profile.egress.off_when_refused_everywhere
        || !is_refusal(failure)
        || record.is_empty()
        || !record.values().all(|&refused| refused)
    {
        return None;
    }
    let steps = failure
        .and_then(|kind| profile.ladder_for(kind))
        .map_or(1, |ladder| ladder.steps.len());
    if usize::try_from(streak).unwrap_or(usize::MAX) < steps {
        return None;
    }
    let addresses: Vec<&str> = record.keys().map(String::as_str).collect();
    Some(format!(
        "refused from every address it was read from ({}), through the whole refusal ladder \
         (WFM8)",
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

    fn wfm() -> Profile {
        Profile::embedded("worldfeedmonitor").unwrap()
    }

    const REFUSED: Option<FailureKind> = Some(FailureKind::Forbidden);

    /// WFM8: off once every address refused, one or more, through the whole ladder (seven
    /// steps for WorldFeedMonitor); before that, and while any address has not refused, the
    /// feed only slows down.
    #[test]
    fn wfm8_off_when_every_address_refused_through_the_whole_ladder() {
        let p = wfm();
        let steps = p.ladder_for(FailureKind::Forbidden).unwrap().steps.len() as u32;
        assert_eq!(steps, 7);
        let cases: [(Answers<'_>, u32, bool); 7] = [
            (&[], steps, false),
            (&[("default", true)], steps - 1, false),
            (&[("default", true)], steps, true),
            (&[("default", true)], steps + 3, true),
            (&[("default", true), ("192.0.2.7", false)], steps, false),
            (&[("default", true), ("192.0.2.7", true)], 2, false),
            (&[("default", true), ("192.0.2.7", true)], steps, true),
        ];
        for (entries, streak, off) in cases {
            let why = refused_everywhere(&record(entries), REFUSED, streak, &p);
            assert_eq!(why.is_some(), off, "{entries:?} after {streak}");
        }
        let why = refused_everywhere(
            &record(&[("default", true), ("192.0.2.7", true)]),
            REFUSED,
            7,
            &p,
        );
        assert_eq!(
            why.as_deref(),
            Some(
                "refused from every address it was read from (192.0.2.7, default), through \
                 the whole refusal ladder (WFM8)"
            )
        );
    }

    #[test]
    fn wfm8_is_worldfeedmonitors_rule_and_only_refusals_count() {
        let all = record(&[("default", true)]);
        for name in [
            "default",
            "serenereader",
            "dailyfootballbot",
            "ffbot",
            "plainfeeder",
        ] {
            let p = Profile::embedded(name).unwrap();
            assert!(
                refused_everywhere(&all, REFUSED, 100, &p).is_none(),
                "{name}"
            );
        }
        let p = wfm();
        let not_found = Some(FailureKind::NotFound);
        assert!(refused_everywhere(&all, not_found, 100, &p).is_none());
    }

    #[test]
    fn the_latest_answer_of_each_address_counts() {
        let r = after_answer(&EgressRecord::new(), None, true).unwrap();
        assert_eq!(r, record(&[("default", true)]));
        assert_eq!(
            after_answer(&r, None, true),
            None,
            "the same answer changes nothing"
        );
        let r = after_answer(&r, Some("192.0.2.7"), false).unwrap();
        let r = after_answer(&r, Some("192.0.2.7"), true).unwrap();
        assert!(refused_everywhere(&r, REFUSED, 7, &wfm()).is_some());
        let r = after_answer(&r, None, false).unwrap();
        assert_eq!(r, record(&[("192.0.2.7", true), ("default", false)]));
        assert!(
            refused_everywhere(&r, REFUSED, 7, &wfm()).is_none(),
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
