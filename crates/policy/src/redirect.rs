//! Permanent redirects (PF9): when a feed's stored URL follows a 301/308.
//!
//! A read that went through permanent redirects only (301, 308) from the feed's URL points at
//! a new home. The profile's `redirects.persist_permanent_after` says how long the same target
//! must be seen on successful reads before the stored URL moves there (0: at once, PF9). A 302
//! or 307 anywhere before the target means the move is not permanent, and a read without the
//! redirect ends the observation. A failed read says nothing either way.

use crate::profile::Profile;
use chrono::{DateTime, Duration, Utc};

/// What to store about a feed's URL after one read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlMove {
    /// Move the stored URL here now.
    pub move_to: Option<String>,
    /// The permanent redirect still under observation, and since when.
    pub pending: Option<(String, DateTime<Utc>)>,
}

/// The target of a chain of redirects (`(status, to)` per hop, in order) when every hop is
/// permanent.
pub fn permanent_target(hops: &[(u16, String)]) -> Option<&str> {
    if hops.is_empty() || hops.iter().any(|(status, _)| !matches!(status, 301 | 308)) {
        return None;
    }
    hops.last().map(|(_, to)| to.as_str())
}

/// Decide about the feed's URL after a read through `hops`; `read_ok` when the read succeeded.
pub fn url_move(
    pending: Option<&(String, DateTime<Utc>)>,
    hops: &[(u16, String)],
    read_ok: bool,
    now: DateTime<Utc>,
    profile: &Profile,
) -> UrlMove {
    if !read_ok {
        return UrlMove {
            move_to: None,
            pending: pending.cloned(),
        };
    }
    let Some(target) = permanent_target(hops) else {
        return UrlMove {
            move_to: None,
            pending: None,
        };
    };
    let since = match pending {
        Some((to, since)) if to == target => *since,
        _ => now,
    };
    let window = Duration::seconds(
        i64::try_from(profile.redirects.persist_permanent_after).unwrap_or(i64::MAX / 1000),
    );
    if now - since >= window {
        UrlMove {
            move_to: Some(target.to_string()),
            pending: None,
        }
    } else {
        UrlMove {
            move_to: None,
            pending: Some((target.to_string(), since)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000 + secs, 0).unwrap()
    }

    fn hops(list: &[(u16, &str)]) -> Vec<(u16, String)> {
        list.iter().map(|(s, to)| (*s, to.to_string())).collect()
    }

    /// PF9: with PlainFeeder's profile a 301 moves the stored URL at once.
    #[test]
    fn pf9_a_301_moves_the_feed_at_once() {
        let p = Profile::embedded("plainfeeder").unwrap();
        let m = url_move(None, &hops(&[(301, "https://new/f")]), true, t(0), &p);
        assert_eq!(m.move_to.as_deref(), Some("https://new/f"));
        assert_eq!(m.pending, None);
    }

    /// The default waits a week of successful reads through the same permanent redirect;
    /// 302/307, a failed read, a read without the redirect or a new target change that.
    #[test]
    fn permanent_redirects_persist_after_a_stable_window() {
        let p = Profile::embedded("default").unwrap();
        let week = 7 * 86_400;
        let moved = hops(&[(301, "https://b/f"), (308, "https://c/f")]);
        let first = url_move(None, &moved, true, t(0), &p);
        assert_eq!(first.move_to, None);
        assert_eq!(first.pending, Some(("https://c/f".into(), t(0))));
        let later = url_move(first.pending.as_ref(), &moved, true, t(week - 1), &p);
        assert_eq!((later.move_to, &later.pending), (None, &first.pending));
        let done = url_move(first.pending.as_ref(), &moved, true, t(week), &p);
        assert_eq!(done.move_to.as_deref(), Some("https://c/f"));
        assert_eq!(done.pending, None);

        let failed = url_move(first.pending.as_ref(), &[], false, t(10), &p);
        assert_eq!(failed.pending, first.pending, "a failed read says nothing");
        let gone = url_move(first.pending.as_ref(), &[], true, t(10), &p);
        assert_eq!(gone.pending, None, "a read without the redirect ends it");
        let elsewhere = url_move(
            first.pending.as_ref(),
            &hops(&[(301, "https://d/f")]),
            true,
            t(10),
            &p,
        );
        assert_eq!(elsewhere.pending, Some(("https://d/f".into(), t(10))));
        for temporary in [302, 307] {
            let chain = hops(&[(301, "https://b/f"), (temporary, "https://c/f")]);
            let m = url_move(None, &chain, true, t(week * 2), &p);
            assert_eq!((m.move_to, m.pending), (None, None), "{temporary}");
        }
        let pf = Profile::embedded("plainfeeder").unwrap();
        let m = url_move(None, &hops(&[(302, "https://b/f")]), true, t(0), &pf);
        assert_eq!(m.move_to, None, "PF9: a 302 never moves the feed");
    }
}
