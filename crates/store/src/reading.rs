//! Reading state per account: what an account subscribes to (with its own title and folder),
//! which entries it has read and starred, and its unread counts.
//!
//! An account's subscription to a feed has a *read floor*: an entry first seen at or before
//! the floor is read, one first seen after it is unread, unless the account marked that entry
//! itself (an override row). "Mark all read" moves the floor and drops the overrides under it;
//! marking one entry writes one override. Each subscription keeps its unread count, changed by
//! every write that changes what is unread, so counts are read, never counted.
//!
//! The decisions (what a mark does to an entry's override and to the count) are made here,
//! once, for both backends: [`plan`]. The backends only read the current state and write the
//! plan.

pub(crate) mod sql;

use crate::FeedId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many of a feed's current entries start unread for a new subscription (the newest);
/// the older ones start read. Entries that arrive later are unread.
pub const NEW_SUBSCRIPTION_UNREAD: u32 = 50;

/// Longest folder name and title override, in characters.
pub const MAX_LABEL_CHARS: usize = 200;

/// An account's subscription to a feed, as the account sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    pub feed_id: FeedId,
    /// The account's own title for the feed (`None`: the feed's).
    pub title: Option<String>,
    /// The one folder it is filed under (`None`: none).
    pub folder: Option<String>,
    pub unread: u64,
    pub subscribed_at: DateTime<Utc>,
}

/// The `subscriber` name of account `id`'s subscriptions (unique per feed beside the others'
/// names; the `account_id` column says whose it is). What [`crate::EntryQuery::subscriber`]
/// and `Store::feeds_of` take to list an account's feeds.
pub fn account_subscriber(id: i64) -> String {
    format!("account:{id}")
}

/// Who subscribes to a feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscriber<'a> {
    /// An operator or an API key by name (`cli`, `key:7`): it keeps the feed read, with no
    /// reading state.
    Named(&'a str),
    /// An account, with its reading state, filed as `placement` says.
    Account { id: i64, placement: &'a Placement },
}

impl<'a> From<&'a str> for Subscriber<'a> {
    fn from(name: &'a str) -> Subscriber<'a> {
        Subscriber::Named(name)
    }
}

/// Where a new subscription is filed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    pub title: Option<String>,
    pub folder: Option<String>,
}

/// A change to a subscription: each field `Some` is set (to `None`: cleared).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriptionEdit {
    pub title: Option<Option<String>>,
    pub folder: Option<Option<String>>,
}

/// The entries a "mark all read" covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadScope {
    Feed(FeedId),
    Folder(String),
    All,
}

impl ReadScope {
    /// The feed id or folder name it is narrowed to (neither: everything).
    pub(crate) fn parts(&self) -> (Option<i64>, Option<&str>) {
        match self {
            ReadScope::Feed(feed) => (Some(feed.0), None),
            ReadScope::Folder(name) => (None, Some(name.as_str())),
            ReadScope::All => (None, None),
        }
    }
}

/// A change of an entry's state: each field `Some` is set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateChange {
    pub read: Option<bool>,
    pub starred: Option<bool>,
}

/// An entry's state for one account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryState {
    pub read: bool,
    pub starred: bool,
    /// When it last changed: when the account marked it, or when its floor moved over it, or
    /// when it arrived.
    pub changed_at: DateTime<Utc>,
}

/// An entry with an account's state of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadEntry {
    pub entry: crate::StoredEntry,
    pub state: EntryState,
}

/// Read or unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadStatus {
    Unread,
    Read,
}

/// The order of an account's entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReadingOrder {
    /// By sort time, newest first (then the highest id).
    #[default]
    NewestFirst,
    /// By sort time, oldest first.
    OldestFirst,
    /// By id, lowest first (the order entries were stored in).
    IdAscending,
    /// By id, highest first.
    IdDescending,
}

/// Which of an account's entries to list. Only entries of feeds it subscribes to are ever
/// listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadingQuery {
    pub account: i64,
    pub feed: Option<FeedId>,
    pub folder: Option<String>,
    /// Only entries of feeds filed under no folder.
    pub unfiled: bool,
    pub status: Option<ReadStatus>,
    /// `Some(true)`: only starred entries; `Some(false)`: only the others.
    pub starred: Option<bool>,
    /// Only these entries.
    pub ids: Option<Vec<i64>>,
    /// Only entries with an id above this.
    pub id_above: Option<i64>,
    /// Only entries with an id below this.
    pub id_below: Option<i64>,
    /// Only entries sorted at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only entries sorted before this time.
    pub until: Option<DateTime<Utc>>,
    /// Only entries whose state changed (or that arrived) after this time.
    pub changed_after: Option<DateTime<Utc>>,
    /// Only entries current at this time (FF16): neither the entry nor its feed expired.
    pub current_at: Option<DateTime<Utc>>,
    pub order: ReadingOrder,
    pub offset: u32,
    /// At most this many (0: [`DEFAULT_READING_LIMIT`]; never more than [`MAX_READING_LIMIT`]).
    pub limit: u32,
}

/// Entries listed when a query names no limit.
pub const DEFAULT_READING_LIMIT: u32 = 100;
/// The most entries one query lists (sync clients ask for up to 10,000 ids at once).
pub const MAX_READING_LIMIT: u32 = 10_000;

/// Unread counts per feed, per folder and in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnreadCounts {
    pub feeds: BTreeMap<FeedId, u64>,
    pub folders: BTreeMap<String, u64>,
    pub total: u64,
}

impl UnreadCounts {
    /// The counts of an account's subscriptions.
    pub fn of(subscriptions: &[Subscription]) -> UnreadCounts {
        let mut counts = UnreadCounts::default();
        for s in subscriptions {
            counts.feeds.insert(s.feed_id, s.unread);
            if let Some(folder) = &s.folder {
                *counts.folders.entry(folder.clone()).or_default() += s.unread;
            }
            counts.total += s.unread;
        }
        counts
    }
}

/// A folder name or title override as stored: trimmed, control characters removed, at most
/// [`MAX_LABEL_CHARS`]; `None` when nothing is left.
pub fn clean_label(text: &str) -> Option<String> {
    let cleaned: String = text
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .chars()
        .take(MAX_LABEL_CHARS)
        .collect();
    let cleaned = cleaned.trim_end().to_owned();
    (!cleaned.is_empty()).then_some(cleaned)
}

/// An entry's state as stored for one account: its override row (if any) and its
/// subscription's floor. Times are the backend's own (any ordered value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Current<T> {
    pub first_seen_at: T,
    pub floor: T,
    /// The override's `read` (`None`: as the floor says, or no row).
    pub read: Option<bool>,
    pub starred: bool,
}

impl<T: Ord> Current<T> {
    /// Whether the floor alone makes the entry read.
    fn read_by_floor(&self) -> bool {
        self.first_seen_at <= self.floor
    }

    pub fn is_read(&self) -> bool {
        self.read.unwrap_or_else(|| self.read_by_floor())
    }
}

/// What to write for one entry after a change. The row stays even when it says nothing the
/// floor does not (it holds the change time); "mark all read" clears such rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The override's `read` (`None`: as the floor says).
    pub read: Option<bool>,
    pub starred: bool,
    /// How the subscription's unread count moves: -1, 0 or +1.
    pub unread_delta: i64,
}

/// What `change` does to an entry in state `current`; `None` when it changes nothing.
pub(crate) fn plan<T: Ord>(current: &Current<T>, change: StateChange) -> Option<Planned> {
    let was_read = current.is_read();
    let read = change.read.unwrap_or(was_read);
    let starred = change.starred.unwrap_or(current.starred);
    if read == was_read && starred == current.starred {
        return None;
    }
    let by_floor = current.read_by_floor();
    let read_override = (read != by_floor).then_some(read);
    Some(Planned {
        read: read_override,
        starred,
        unread_delta: i64::from(!read) - i64::from(!was_read),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(first_seen_at: i64, floor: i64, read: Option<bool>, starred: bool) -> Current<i64> {
        Current {
            first_seen_at,
            floor,
            read,
            starred,
        }
    }

    fn change(read: Option<bool>, starred: Option<bool>) -> StateChange {
        StateChange { read, starred }
    }

    #[test]
    fn a_mark_writes_an_override_only_against_the_floor() {
        // (current, change) -> planned (None: nothing to do)
        let cases = [
            // Above the floor (unread by default): reading writes `read = true`, -1.
            (
                cur(10, 5, None, false),
                change(Some(true), None),
                Some((Some(true), false, -1)),
            ),
            // Reading it again changes nothing.
            (
                cur(10, 5, Some(true), false),
                change(Some(true), None),
                None,
            ),
            // Back to unread: the override says "as the floor", +1.
            (
                cur(10, 5, Some(true), false),
                change(Some(false), None),
                Some((None, false, 1)),
            ),
            // Under the floor (read by default): kept unread writes `read = false`, +1.
            (
                cur(3, 5, None, false),
                change(Some(false), None),
                Some((Some(false), false, 1)),
            ),
            // On the floor itself it is read.
            (cur(5, 5, None, false), change(Some(true), None), None),
            // A star does not move the count.
            (
                cur(3, 5, None, false),
                change(None, Some(true)),
                Some((None, true, 0)),
            ),
            (
                cur(3, 5, None, true),
                change(None, Some(false)),
                Some((None, false, 0)),
            ),
            // Both at once.
            (
                cur(10, 5, None, false),
                change(Some(true), Some(true)),
                Some((Some(true), true, -1)),
            ),
            // Unstarring a read entry above the floor keeps its read override.
            (
                cur(10, 5, Some(true), true),
                change(None, Some(false)),
                Some((Some(true), false, 0)),
            ),
        ];
        for (current, change, want) in cases {
            let got = plan(&current, change).map(|p| (p.read, p.starred, p.unread_delta));
            assert_eq!(got, want, "{current:?} {change:?}");
        }
    }

    #[test]
    fn counts_add_up_per_folder_and_in_all() {
        let sub = |feed, folder: Option<&str>, unread| Subscription {
            feed_id: FeedId(feed),
            title: None,
            folder: folder.map(str::to_owned),
            unread,
            subscribed_at: DateTime::<Utc>::UNIX_EPOCH,
        };
        let counts = UnreadCounts::of(&[
            sub(1, Some("news"), 3),
            sub(2, Some("news"), 4),
            sub(3, None, 5),
            sub(4, Some("tech"), 0),
        ]);
        assert_eq!(counts.total, 12);
        assert_eq!(counts.folders.get("news"), Some(&7));
        assert_eq!(counts.folders.get("tech"), Some(&0));
        assert_eq!(counts.feeds.get(&FeedId(3)), Some(&5));
    }

    #[test]
    fn labels_are_trimmed_bounded_and_never_empty() {
        assert_eq!(clean_label("  News \n"), Some("News".to_owned()));
        assert_eq!(clean_label("a\u{7}b"), Some("ab".to_owned()));
        assert_eq!(clean_label(" \t "), None);
        let long = "é".repeat(MAX_LABEL_CHARS + 10);
        assert_eq!(
            clean_label(&long).map(|l| l.chars().count()),
            Some(MAX_LABEL_CHARS)
        );
    }
}
