//! How much one feed may add to the store (C8), by the profile's `[entries]` bounds.
//!
//! Two bounds, each with its own consequence:
//! - a response with more entries than `max_per_response` is not accepted: the parser stops
//!   at the first entry past the bound (so the read costs no more than one at it), nothing is
//!   stored, and the feed waits as after any body that is no readable feed
//!   ([`too_many_entries`] is the reason shown);
//! - a read that would bring the entries a feed first stored within [`WINDOW_SECS`] past
//!   `max_new_per_day` stores none of them, and the feed is held (paused) for an operator
//!   ([`over_daily_bound`], [`hold_for_volume`]). A publisher that rotates its entry
//!   identities adds a whole response at every read; this stops it within a day.
//!
//! A held feed keeps its validators and content hash as they were, so the read after an
//! operator resumes it parses the body again rather than taking a 304 for "nothing new".

use crate::Profile;
use crate::profile::EntryLimits;
use crate::schedule::{Decision, FeedSchedule, Lifecycle};
use chrono::{DateTime, Duration, Utc};

/// The window new entries are counted over: a rolling day.
pub const WINDOW_SECS: i64 = 86_400;

/// The start of the window a read at `now` counts new entries from.
pub fn window_start(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::seconds(WINDOW_SECS)
}

/// The reason shown for a response over `entries.max_per_response`.
pub fn too_many_entries(limits: &EntryLimits) -> String {
    format!(
        "more than {} entries in one response (the profile's entries.max_per_response): not \
         accepted, nothing stored",
        limits.max_per_response
    )
}

/// Why a read must not be stored, when the `unseen` entries it brings on top of the
/// `first_seen_in_window` the feed stored within the window would pass
/// `entries.max_new_per_day`; `None` when they fit.
pub fn over_daily_bound(
    first_seen_in_window: u64,
    unseen: u64,
    profile: &Profile,
) -> Option<String> {
    let max = u64::from(profile.entries.max_new_per_day);
    let total = first_seen_in_window.saturating_add(unseen);
    (total > max).then(|| {
        format!(
            "held for an operator: this read would add {unseen} new entries to the \
             {first_seen_in_window} stored in the last 24 hours, over the profile's {max} \
             (entries.max_new_per_day); nothing of it was stored"
        )
    })
}

/// The decision for a read held by [`over_daily_bound`]: paused with `reason`, the interval
/// and validators as they were (nothing of the read is kept). The publisher answered with a
/// readable feed, so the read is no failure of theirs: no failure kind, the streak ends.
pub fn hold_for_volume(state: &FeedSchedule, now: DateTime<Utc>, reason: String) -> Decision {
    Decision {
        next_fetch_at: now,
        reason: reason.clone().into(),
        interval_secs: state.interval_secs,
        consecutive_failures: 0,
        failure: None,
        failure_totals: state.failure_totals,
        lifecycle: Lifecycle::Paused,
        lifecycle_reason: Some(reason),
        held_by: None,
        validators: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(per_response: u32, per_day: u32) -> Profile {
        Profile::from_toml(&format!(
            "name = \"x\"\n[entries]\nmax_per_response = {per_response}\n\
             max_new_per_day = {per_day}\n"
        ))
        .unwrap()
    }

    #[test]
    fn c8_new_entries_past_the_daily_bound_hold_the_feed() {
        let p = profile(100, 1000);
        // (stored in the window, unseen in this read, held?)
        let cases = [
            (0, 100, false),
            (900, 100, false),
            (900, 101, true),
            (1000, 0, false),
            (1000, 1, true),
            (u64::MAX, u64::MAX, true),
        ];
        for (recent, unseen, held) in cases {
            let got = over_daily_bound(recent, unseen, &p);
            assert_eq!(got.is_some(), held, "{recent} + {unseen}");
            if let Some(reason) = got {
                assert!(reason.contains("entries.max_new_per_day"), "{reason}");
                assert!(reason.contains("1000"), "{reason}");
            }
        }
    }

    #[test]
    fn c8_a_held_feed_is_paused_with_its_schedule_kept() {
        let state = FeedSchedule {
            interval_secs: 3600,
            consecutive_failures: 2,
            validators: Default::default(),
            last_failure: None,
            seed: 1,
            fixed_interval_secs: None,
            ..FeedSchedule::default()
        };
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let reason = over_daily_bound(0, 30_000, &profile(10_000, 20_000)).unwrap();
        let d = hold_for_volume(&state, now, reason.clone());
        assert_eq!(d.lifecycle, Lifecycle::Paused);
        assert_eq!(d.lifecycle_reason.as_deref(), Some(reason.as_str()));
        assert_eq!((d.interval_secs, d.consecutive_failures), (3600, 0));
        assert_eq!(
            d.failure, None,
            "the publisher answered; no failure of theirs"
        );
        assert_eq!(d.validators, None, "the validators stay as they were");
        assert_eq!(d.held_by, None, "not mistaken for a do-not-crawl hold");
        assert_eq!(window_start(now), now - Duration::days(1));
    }

    #[test]
    fn c8_entry_bounds_are_profile_numbers_with_limits() {
        let default = Profile::embedded("default").unwrap();
        assert_eq!(default.entries, crate::profile::EntryLimits::default());
        for bad in [
            "[entries]\nmax_per_response = 0",
            "[entries]\nmax_per_response = 100001",
            "[entries]\nmax_per_response = 500\nmax_new_per_day = 499",
            "[entries]\nmax_new_per_day = 1000001",
            "[entries]\nmax_text_bytes = 16383",
            "[entries]\nmax_text_bytes = 10485761",
        ] {
            let text = format!("name = \"x\"\n{bad}");
            assert!(Profile::from_toml(&text).is_err(), "{bad}");
        }
        assert!(too_many_entries(&default.entries).contains("10000"));
        for good in ["max_text_bytes = 16384", "max_text_bytes = 10485760"] {
            let text = format!("name = \"x\"\n[entries]\n{good}");
            assert!(Profile::from_toml(&text).is_ok(), "{good}");
        }
    }
}
