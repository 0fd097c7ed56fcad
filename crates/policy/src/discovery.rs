//! What discovery decides about a URL it checked (FF2), and whether a feed it found is one
//! already known (FF3).
//!
//! A checked URL is remembered by its identity (the normalised URL, query kept) with its
//! [`Disposition`] and the decision's reason, so a page that is no feed and a duplicate are not
//! read again before the profile's cooldown; a recheck after it adds a new result and keeps the
//! earlier one. A feed found is matched against the feeds already stored on the evidence the
//! driver gathered ([`Evidence`]): the same final URL, the same self link, the same body, or
//! enough entry ids in common ([`match_known`]). Nothing here reads the clock or the store.

use crate::profile::DiscoverySettings;
use chrono::{DateTime, Utc};
pub use tidings_model::Disposition;
use tidings_model::{FeedId, FetchOutcome};

/// When a URL checked at `checked_at` with `disposition` may be read again (FF2): after the
/// cooldown, or after `retry_failed` when its read failed for now. A held match waits for an
/// operator, not for time: it is never checked again on its own.
pub fn recheck_at(
    disposition: Disposition,
    checked_at: DateTime<Utc>,
    settings: &DiscoverySettings,
) -> Option<DateTime<Utc>> {
    let wait = match disposition {
        Disposition::Held => return None,
        Disposition::Failed => settings.retry_failed,
        _ => settings.cooldown,
    };
    Some(
        i64::try_from(wait)
            .ok()
            .and_then(chrono::Duration::try_seconds)
            .and_then(|d| checked_at.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC),
    )
}

/// Whether a URL last checked at `checked_at` with `disposition` may be read again at `now`.
pub fn may_recheck(
    disposition: Disposition,
    checked_at: DateTime<Utc>,
    now: DateTime<Utc>,
    settings: &DiscoverySettings,
) -> bool {
    recheck_at(disposition, checked_at, settings).is_some_and(|at| now >= at)
}

/// SR2: a catalogue feed viewed with nothing stored is read once, and not again on a view
/// within this long (seconds) of its last read: a feed that stays empty is not read at every
/// view.
pub const CATALOGUE_VIEW_READ_AGAIN_AFTER: i64 = 3_600;

/// SR2: whether a reader's view of a catalogue feed with nothing stored, last read at
/// `last_read` (never: `None`), may read it at `now`.
pub fn may_read_on_view(last_read: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    last_read.is_none_or(|at| (now - at).num_seconds() >= CATALOGUE_VIEW_READ_AGAIN_AFTER)
}

/// What a checked URL whose answer brought neither a feed nor a page is (FF2): a failure for
/// now (no answer, 5xx, 429, a read cut short) is checked again after `retry_failed`; a
/// refusal (401, 403, 404, 410, a rule, too many redirects) and anything else (a body that is
/// neither) wait for the cooldown.
pub fn disposition_of_answer(outcome: &FetchOutcome) -> Disposition {
    match outcome {
        FetchOutcome::Transport(_)
        | FetchOutcome::ServerError { .. }
        | FetchOutcome::FailedAnswer { .. }
        | FetchOutcome::CrawlerPaused { .. }
        | FetchOutcome::Refused { status: 429, .. }
        | FetchOutcome::Challenge { status: 429, .. } => Disposition::Failed,
        FetchOutcome::Refused { .. }
        | FetchOutcome::Challenge { .. }
        | FetchOutcome::NotFound
        | FetchOutcome::Gone
        | FetchOutcome::ClientError { .. }
        | FetchOutcome::Redirect { .. }
        | FetchOutcome::Blocked { .. } => Disposition::Refused,
        FetchOutcome::Fetched(_)
        | FetchOutcome::NotModified { .. }
        | FetchOutcome::TooLarge { .. }
        | FetchOutcome::BadBody { .. } => Disposition::NotAFeed,
    }
}

/// What ties a feed found by discovery to one feed already stored, as the driver found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evidence {
    pub feed: FeedId,
    /// The candidate's URL after redirects is the stored feed's URL.
    pub same_url: bool,
    /// The candidate names itself (Atom `rel=self`, JSON Feed `feed_url`) with the stored
    /// feed's URL, or the stored feed names itself with the candidate's.
    pub same_self_link: bool,
    /// The candidate's body hashes as the stored feed's last body.
    pub same_body: bool,
    /// Entry ids the candidate and the stored feed have in common.
    pub shared_ids: u32,
    /// Entry ids the stored feed has.
    pub their_ids: u32,
}

/// The most of a found feed's entry ids compared with the stored feeds' (FF3): the newest
/// are enough to tell one feed from another, and the lookup stays bounded.
pub const MOST_IDS_COMPARED: usize = 500;

/// Whether a feed found is one already stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// A feed of its own.
    New,
    /// The stored `feed`, for the reason given.
    Same { feed: FeedId, why: String },
    /// Perhaps the stored `feed`: held for review (FF3).
    Uncertain { feed: FeedId, why: String },
}

/// Whether a feed found with `candidate_ids` entry ids is one already stored, on the evidence
/// gathered for each stored feed it may be (FF3): the same final URL, the same self link or
/// the same body make it that feed; entry ids in common make it that feed when they are at
/// least `duplicate_share` of the smaller set, an uncertain match from `uncertain_share`, and
/// nothing below `min_shared_entries`. Of several, the strongest match wins, then the oldest
/// feed (the lowest id): the established one.
pub fn match_known(
    candidate_ids: u32,
    evidence: &[Evidence],
    settings: &DiscoverySettings,
) -> Match {
    // (strength, feed, why): 3 for a certain match by identity, 2 by entries, 1 uncertain.
    let mut best: Option<(u8, FeedId, String)> = None;
    for e in evidence {
        let found = if e.same_url {
            Some((3, format!("FF3: same URL as feed {}", e.feed)))
        } else if e.same_self_link {
            Some((3, format!("FF3: same self link as feed {}", e.feed)))
        } else if e.same_body {
            Some((3, format!("FF3: same body as feed {}", e.feed)))
        } else {
            by_entries(candidate_ids, e, settings)
        };
        let Some((strength, why)) = found else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((s, feed, _)) => strength > *s || (strength == *s && e.feed < *feed),
        };
        if better {
            best = Some((strength, e.feed, why));
        }
    }
    match best {
        None => Match::New,
        Some((1, feed, why)) => Match::Uncertain { feed, why },
        Some((_, feed, why)) => Match::Same { feed, why },
    }
}

/// The match entry ids in common make: 2 (the same feed) or 1 (uncertain), with the reason.
fn by_entries(
    candidate_ids: u32,
    e: &Evidence,
    settings: &DiscoverySettings,
) -> Option<(u8, String)> {
    let smaller = candidate_ids.min(e.their_ids);
    if smaller == 0 || e.shared_ids < settings.min_shared_entries {
        return None;
    }
    let share = f64::from(e.shared_ids.min(smaller)) / f64::from(smaller);
    let why = |kind: &str| {
        format!(
            "FF3: {} of {smaller} entry ids in common with feed {} ({kind})",
            e.shared_ids.min(smaller),
            e.feed
        )
    };
    if share >= settings.duplicate_share {
        Some((2, why("the same feed")))
    } else if share >= settings.uncertain_share {
        Some((1, why("uncertain: held for review")))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn sr2_a_view_reads_a_catalogue_feed_never_read_or_not_read_for_an_hour() {
        let t0 = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let later = |s| t0 + chrono::Duration::seconds(s);
        for (last, now, may) in [
            (None, t0, true),
            (Some(t0), t0, false),
            (Some(t0), later(CATALOGUE_VIEW_READ_AGAIN_AFTER - 1), false),
            (Some(t0), later(CATALOGUE_VIEW_READ_AGAIN_AFTER), true),
            (Some(later(10)), t0, false),
        ] {
            assert_eq!(may_read_on_view(last, now), may, "{last:?} at {now}");
        }
    }

    fn settings() -> DiscoverySettings {
        DiscoverySettings::default()
    }

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
    }

    fn evidence(feed: i64) -> Evidence {
        Evidence {
            feed: FeedId(feed),
            same_url: false,
            same_self_link: false,
            same_body: false,
            shared_ids: 0,
            their_ids: 20,
        }
    }

    #[test]
    fn ff2_a_checked_url_waits_for_its_cooldown() {
        let s = settings();
        let day = chrono::Duration::days(1);
        for d in [
            Disposition::Feed,
            Disposition::NotAFeed,
            Disposition::Duplicate,
            Disposition::Refused,
        ] {
            assert!(!may_recheck(d, t0(), t0() + day * 29, &s), "{d:?}");
            assert!(may_recheck(d, t0(), t0() + day * 30, &s), "{d:?}");
        }
        let hour = chrono::Duration::hours(1);
        assert!(!may_recheck(Disposition::Failed, t0(), t0() + hour / 2, &s));
        assert!(may_recheck(Disposition::Failed, t0(), t0() + hour, &s));
        // A held match waits for an operator, however long.
        assert_eq!(recheck_at(Disposition::Held, t0(), &s), None);
        assert!(!may_recheck(Disposition::Held, t0(), t0() + day * 3650, &s));
        let never = DiscoverySettings {
            cooldown: u64::MAX,
            ..s
        };
        assert_eq!(
            recheck_at(Disposition::Feed, t0(), &never),
            Some(DateTime::<Utc>::MAX_UTC)
        );
    }

    #[test]
    fn ff2_an_answer_without_a_feed_or_a_page_is_a_failure_for_now_or_a_refusal() {
        use tidings_model::{AnswerFailure, TransportError};
        let cases = [
            (
                FetchOutcome::Transport(TransportError::Timeout),
                Disposition::Failed,
            ),
            (
                FetchOutcome::ServerError {
                    status: 503,
                    retry_after: None,
                },
                Disposition::Failed,
            ),
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: None,
                },
                Disposition::Failed,
            ),
            (
                FetchOutcome::FailedAnswer {
                    status: Some(200),
                    failure: AnswerFailure::Stalled,
                },
                Disposition::Failed,
            ),
            (
                FetchOutcome::Refused {
                    status: 403,
                    retry_after: None,
                },
                Disposition::Refused,
            ),
            (FetchOutcome::NotFound, Disposition::Refused),
            (FetchOutcome::Gone, Disposition::Refused),
            (
                FetchOutcome::ClientError { status: 401 },
                Disposition::Refused,
            ),
            (
                FetchOutcome::Blocked {
                    reason: "rule".into(),
                },
                Disposition::Refused,
            ),
            (
                FetchOutcome::Redirect {
                    status: 301,
                    location: None,
                },
                Disposition::Refused,
            ),
            (FetchOutcome::TooLarge { limit: 10 }, Disposition::NotAFeed),
            (
                FetchOutcome::BadBody {
                    status: 200,
                    detail: "gzip".into(),
                },
                Disposition::NotAFeed,
            ),
        ];
        for (outcome, want) in cases {
            assert_eq!(disposition_of_answer(&outcome), want, "{outcome:?}");
        }
    }

    #[test]
    fn ff3_identity_makes_a_feed_the_established_one() {
        let s = settings();
        assert_eq!(match_known(10, &[], &s), Match::New);
        assert_eq!(match_known(10, &[evidence(4)], &s), Match::New);
        for (e, why) in [
            (
                Evidence {
                    same_url: true,
                    ..evidence(4)
                },
                "same URL",
            ),
            (
                Evidence {
                    same_self_link: true,
                    ..evidence(4)
                },
                "same self link",
            ),
            (
                Evidence {
                    same_body: true,
                    ..evidence(4)
                },
                "same body",
            ),
        ] {
            match match_known(0, &[e], &s) {
                Match::Same { feed, why: reason } => {
                    assert_eq!(feed, FeedId(4));
                    assert!(reason.contains(why), "{reason}");
                }
                other => panic!("{why}: {other:?}"),
            }
        }
    }

    #[test]
    fn ff3_entry_ids_in_common_decide_by_share_of_the_smaller_set() {
        let s = settings();
        let shared = |candidate: u32, shared: u32, theirs: u32| {
            match_known(
                candidate,
                &[Evidence {
                    shared_ids: shared,
                    their_ids: theirs,
                    ..evidence(7)
                }],
                &s,
            )
        };
        // 18 of 20: the same feed; 10 of 20: uncertain; 9 of 20: nothing.
        assert!(matches!(shared(20, 18, 20), Match::Same { .. }));
        assert!(matches!(shared(20, 10, 20), Match::Uncertain { .. }));
        assert_eq!(shared(20, 9, 20), Match::New);
        // Of the smaller set: a 10-entry feed whose 10 entries are all in a 500-entry archive.
        assert!(matches!(shared(10, 10, 500), Match::Same { .. }));
        // Fewer than min_shared_entries prove nothing, even all of them.
        assert_eq!(shared(2, 2, 2), Match::New);
        assert_eq!(shared(0, 0, 20), Match::New);
        match shared(20, 10, 20) {
            Match::Uncertain { feed, why } => {
                assert_eq!(feed, FeedId(7));
                assert!(why.contains("10 of 20"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ff3_the_strongest_match_wins_then_the_oldest_feed() {
        let s = settings();
        let uncertain = Evidence {
            shared_ids: 12,
            ..evidence(2)
        };
        let by_entries = Evidence {
            shared_ids: 20,
            ..evidence(9)
        };
        let by_url = Evidence {
            same_url: true,
            ..evidence(5)
        };
        let found = |list: &[Evidence]| match match_known(20, list, &s) {
            Match::Same { feed, .. } => Some(feed),
            _ => None,
        };
        assert_eq!(found(&[uncertain, by_entries, by_url]), Some(FeedId(5)));
        assert_eq!(found(&[uncertain, by_entries]), Some(FeedId(9)));
        let older = Evidence {
            same_body: true,
            ..evidence(3)
        };
        assert_eq!(found(&[by_url, older]), Some(FeedId(3)));
        assert!(matches!(
            match_known(20, &[uncertain], &s),
            Match::Uncertain { .. }
        ));
    }
}
