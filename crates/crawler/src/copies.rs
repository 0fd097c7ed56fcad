//! The robots.txt copies this process has read, by host. A read asks the store for its host's
//! state naming the copy kept here; while that is still the stored copy the store leaves its
//! text out and the kept copy is handed out again, so the file is read from the store and
//! parsed once per copy, and its verdicts' reasons are written once ([`RobotsCopy::rules`]),
//! not once per read.
//!
//! Bounded by the text it keeps ([`KEPT_BYTES`]); past it, the copies handed out longest ago
//! are let go until the new one fits (a host's lane asks for its copy at each of its feeds, so
//! the hosts being worked keep theirs). A copy let go is read again the next time its host is
//! worked.

use chrono::{DateTime, Utc};
use hashlink::LinkedHashMap;
use std::sync::Arc;
use tidings_read::RobotsCopy;
use tidings_store::RobotsCache;

/// The most robots.txt text kept, in bytes, counting each copy at least [`MIN_WEIGHT`]: tens
/// of thousands of hosts' files of the usual size, or the 500 KiB RFC 9309 has crawlers read
/// for each of a hundred hosts at once.
const KEPT_BYTES: usize = 64 << 20;

/// What a copy counts for at least: its host name, its parsed rules and the map's own room.
const MIN_WEIGHT: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct Copies {
    /// In the order they were last handed out, the latest last.
    by_host: LinkedHashMap<String, Arc<RobotsCopy>>,
    /// The weight of every copy kept.
    bytes: usize,
}

impl Copies {
    /// The copy of `host`'s stored robots.txt: the one kept when it is the same copy, else a
    /// new one, kept in its place.
    pub(crate) fn copy(&mut self, host: &str, stored: RobotsCache) -> Arc<RobotsCopy> {
        let status = stored.status.and_then(|s| u16::try_from(s).ok());
        if let Some(kept) = self.by_host.to_back(host)
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
            let Some((_, gone)) = self.by_host.pop_front() else {
                break;
            };
            self.bytes -= weight(&gone);
        }
        self.bytes += size;
        self.by_host.insert(host.to_owned(), Arc::clone(&copy));
        copy
    }

    /// What the copy kept for `host` is, as the store names a copy: when it was read and its
    /// status ([`tidings_store::Store::host_state_holding`]).
    pub(crate) fn held(&self, host: &str) -> Option<(DateTime<Utc>, Option<i32>)> {
        self.by_host
            .get(host)
            .map(|kept| (kept.fetched_at, kept.status.map(i32::from)))
    }

    /// The copy kept for `host` while it is still the one named `held` (another task may
    /// have replaced it since it was named).
    pub(crate) fn kept(
        &mut self,
        host: &str,
        held: (DateTime<Utc>, Option<i32>),
    ) -> Option<Arc<RobotsCopy>> {
        self.by_host
            .to_back(host)
            .filter(|kept| (kept.fetched_at, kept.status.map(i32::from)) == held)
            .cloned()
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

        // The copy kept is named as the store names it, and handed out while it is the one.
        let named = copies.held("a.test").expect("a copy is kept");
        assert_eq!(named, (last.fetched_at, Some(200)));
        assert!(Arc::ptr_eq(&copies.kept("a.test", named).unwrap(), &last));
        assert!(
            copies
                .kept("a.test", (last.fetched_at, Some(404)))
                .is_none()
        );
        assert!(
            copies
                .kept("a.test", (first.fetched_at, Some(200)))
                .is_none()
        );
        assert_eq!(copies.held("b.test"), None);

        // Hosts do not share copies.
        let other = copies.copy(
            "b.test",
            stored(60, Some(200), Some("User-agent: *\nDisallow: /\n")),
        );
        assert!(!Arc::ptr_eq(&last, &other));
        assert_eq!(copies.len(), 2);
    }

    #[test]
    fn the_copies_handed_out_longest_ago_are_let_go_first() {
        let mut copies = Copies::default();
        // Four copies of a quarter of the bound each (less their minimum weight).
        let quarter = "Disallow: /x/\n".repeat((KEPT_BYTES / 4 - MIN_WEIGHT) / 14);
        let body = |h: usize| format!("User-agent: h{h}\n{quarter}");
        let mut kept = Vec::new();
        for h in 0..4 {
            kept.push(copies.copy(&format!("h{h}.test"), stored(0, Some(200), Some(&body(h)))));
        }
        assert_eq!(copies.len(), 4);
        // h0 is asked for again (a lane's next feed): h1 is now the one handed out longest ago.
        let named = copies.held("h0.test").unwrap();
        assert!(Arc::ptr_eq(
            &copies.kept("h0.test", named).unwrap(),
            &kept[0]
        ));
        copies.copy("h4.test", stored(0, Some(200), Some(&body(4))));
        assert!(copies.held("h0.test").is_some(), "h0 was handed out lately");
        assert!(
            copies.held("h1.test").is_none(),
            "h1 was handed out longest ago"
        );
        // A copy handed out again through `copy` counts as lately used too.
        copies.copy("h2.test", stored(0, Some(200), Some(&body(2))));
        copies.copy("h5.test", stored(0, Some(200), Some(&body(5))));
        assert!(copies.held("h2.test").is_some());
        assert!(copies.held("h3.test").is_none());
        assert!(copies.bytes <= KEPT_BYTES);
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
