//! The robots.txt copies this process has read, by host. The store hands a host's stored copy
//! back on every read of its feeds; the copy kept here is handed out again while it is the same
//! copy (same time, status and text), so the file is parsed once per copy and its verdicts'
//! reasons are written once ([`RobotsCopy::rules`]), not once per read.
//!
//! Bounded by the text it keeps ([`KEPT_BYTES`]); past it, copies are let go until the new one
//! fits. A copy let go is only read again the next time its host is worked.

use std::collections::HashMap;
use std::sync::Arc;
use tidings_read::RobotsCopy;
use tidings_store::RobotsCache;

/// The most robots.txt text kept, in bytes, counting each copy at least [`MIN_WEIGHT`]: a few
/// thousand hosts' files of the usual size, or a hundred at the fetch cap.
const KEPT_BYTES: usize = 32 << 20;

/// What a copy counts for at least: its host name, its parsed rules and the map's own room.
const MIN_WEIGHT: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct Copies {
    by_host: HashMap<String, Arc<RobotsCopy>>,
    /// The weight of every copy kept.
    bytes: usize,
}

impl Copies {
    /// The copy of `host`'s stored robots.txt: the one kept when it is the same copy, else a
    /// new one, kept in its place.
    pub(crate) fn copy(&mut self, host: &str, stored: RobotsCache) -> Arc<RobotsCopy> {
        let status = stored.status.and_then(|s| u16::try_from(s).ok());
        if let Some(kept) = self.by_host.get(host)
            && kept.fetched_at == stored.fetched_at
            && kept.status == status
            && kept.body == stored.body
        {
            return Arc::clone(kept);
        }
        let copy = Arc::new(RobotsCopy::new(stored.fetched_at, status, stored.body));
        if let Some(old) = self.by_host.remove(host) {
            self.bytes -= weight(&old);
        }
        let size = weight(&copy);
        while self.bytes + size > KEPT_BYTES {
            // Any other host's copy: it is read again from its text when next needed.
            let Some(other) = self.by_host.keys().next().cloned() else {
                break;
            };
            if let Some(gone) = self.by_host.remove(&other) {
                self.bytes -= weight(&gone);
            }
        }
        self.bytes += size;
        self.by_host.insert(host.to_owned(), Arc::clone(&copy));
        copy
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_host.len()
    }
}

fn weight(copy: &RobotsCopy) -> usize {
    copy.body.as_ref().map_or(0, String::len).max(MIN_WEIGHT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn stored(secs: i64, status: Option<i32>, body: Option<&str>) -> RobotsCache {
        RobotsCache {
            fetched_at: Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap(),
            status,
            body: body.map(str::to_owned),
        }
    }

    #[test]
    fn the_same_stored_copy_is_parsed_once_and_a_new_one_replaces_it() {
        let mut copies = Copies::default();
        let text = Some("User-agent: *\nDisallow: /private/\n");
        let first = copies.copy("a.test", stored(0, Some(200), text));
        let again = copies.copy("a.test", stored(0, Some(200), text));
        assert!(
            Arc::ptr_eq(&first, &again),
            "the same copy is handed out again"
        );

        // A copy read again later, with another status or another text, is another copy.
        let cases = [
            stored(60, Some(200), text),
            stored(60, Some(404), None),
            stored(60, Some(200), Some("User-agent: *\nDisallow: /\n")),
        ];
        let mut last = again;
        for case in cases {
            let next = copies.copy("a.test", case.clone());
            assert!(!Arc::ptr_eq(&last, &next), "{case:?} is a new copy");
            assert_eq!(
                (next.fetched_at, next.status, next.body.clone()),
                (
                    case.fetched_at,
                    case.status.map(|s| s as u16),
                    case.body.clone()
                )
            );
            last = next;
        }
        assert_eq!(copies.len(), 1, "one copy per host");
        assert_eq!(copies.bytes, MIN_WEIGHT);

        // Hosts do not share copies.
        let other = copies.copy(
            "b.test",
            stored(60, Some(200), Some("User-agent: *\nDisallow: /\n")),
        );
        assert!(!Arc::ptr_eq(&last, &other));
        assert_eq!(copies.len(), 2);
    }

    #[test]
    fn copies_kept_stay_within_their_bytes() {
        let mut copies = Copies::default();
        let big = "Disallow: /x/\n".repeat(KEPT_BYTES / 14 / 3);
        for h in 0..10 {
            let body = format!("User-agent: *\n{big}");
            copies.copy(&format!("h{h}.test"), stored(0, Some(200), Some(&body)));
            assert!(copies.bytes <= KEPT_BYTES, "{} bytes kept", copies.bytes);
            let counted: usize = copies.by_host.values().map(|c| weight(c)).sum();
            assert_eq!(copies.bytes, counted);
        }
        assert!(
            copies.len() <= 3,
            "{} copies of a third of the bound",
            copies.len()
        );
        // The newest copy is always kept.
        assert!(copies.by_host.contains_key("h9.test"));
    }
}
