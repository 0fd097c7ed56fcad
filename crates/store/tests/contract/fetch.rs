//! `apply_fetch`: entries upserted by identity, validators (C4), counters, never deleting
//! entries (FF5), and all-or-nothing.

use crate::support::{all_entries, entry, feed, not_modified, ok, outcome, stored, t};
use std::collections::HashSet;
use std::sync::Arc;
use tidings_model::{Entry, FeedId, Validators};
use tidings_store::{ApplyReport, FeedMeta, LogQuery, Store, StoreError};

fn report(new: u64, updated: u64, unchanged: u64) -> ApplyReport {
    ApplyReport {
        new_entries: new,
        updated_entries: updated,
        unchanged_entries: unchanged,
        fenced_out: false,
    }
}

fn three() -> Vec<Entry> {
    vec![
        entry("a", "Alpha", "first"),
        entry("b", "Beta", "second"),
        entry("c", "Gamma", "third"),
    ]
}

pub async fn first_fetch_stores_entries_feed_state_and_log(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let record = ok(id, t(60), three());
    assert_eq!(
        store.apply_fetch(record.clone()).await.unwrap(),
        report(3, 0, 0)
    );

    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(Some(&f.validators), record.update.validators.as_ref());
    assert_eq!(f.content_hash, record.update.content_hash);
    assert_eq!(f.title.as_deref(), Some("A feed"));
    assert_eq!(f.site_link.as_deref(), Some("https://example.org/"));
    assert_eq!(f.next_fetch_at, record.update.next_fetch_at);
    assert_eq!(f.next_fetch_reason, "interval 1h");
    assert_eq!(f.last_fetch_at, Some(t(60)));
    assert_eq!(f.last_status, Some(200));
    assert_eq!(f.last_outcome.map(|l| l.as_str()), Some("ok"));
    assert_eq!((f.counters.fetches, f.counters.ok), (1, 1));

    assert_eq!(store.count_entries(Some(id)).await.unwrap(), 3);
    assert_eq!(store.count_entries(None).await.unwrap(), 3);
    assert_eq!(
        store.count_entries(Some(FeedId(id.0 + 1))).await.unwrap(),
        0
    );
    let a = stored(&store, "a").await;
    assert_eq!(a.entry, record.entries[0], "the whole entry comes back");
    assert_eq!(a.feed_id, id);
    assert_eq!(
        (a.first_seen_at, a.updated_at, a.sort_at),
        (t(60), t(60), t(60))
    );
    assert_eq!(a.content_hash.len(), 64, "a SHA-256 in hex");

    let log = store.request_log(&LogQuery::default()).await.unwrap();
    assert_eq!(log, record.log);
}

pub async fn same_body_again_changes_no_entry(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    store.apply_fetch(ok(id, t(60), three())).await.unwrap();
    let before = all_entries(&store).await;

    let again = store.apply_fetch(ok(id, t(3600), three())).await.unwrap();
    assert_eq!(again, report(0, 0, 3));
    assert_eq!(all_entries(&store).await, before, "no entry row changed");
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!((f.counters.fetches, f.counters.ok), (2, 2));
}

pub async fn changed_entry_is_updated_and_keeps_first_seen(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    store.apply_fetch(ok(id, t(60), three())).await.unwrap();
    let old_hash = stored(&store, "b").await.content_hash;

    let mut changed = three();
    changed[1].summary = Some("rewritten with zeppelin".to_owned());
    let got = store
        .apply_fetch(ok(id, t(7200), changed.clone()))
        .await
        .unwrap();
    assert_eq!(got, report(0, 1, 2));

    let b = stored(&store, "b").await;
    assert_eq!(b.entry, changed[1]);
    assert_eq!(b.first_seen_at, t(60), "first seen is kept");
    assert_eq!(b.updated_at, t(7200), "updated_at moves");
    assert_eq!(b.sort_at, t(60), "unpublished entries sort by first seen");
    assert_ne!(b.content_hash, old_hash);
    assert_eq!(
        stored(&store, "a").await.updated_at,
        t(60),
        "others untouched"
    );

    let search = |q: &str| {
        let store = store.clone();
        let q = q.to_owned();
        async move {
            let query = tidings_store::EntryQuery {
                search: Some(q),
                ..Default::default()
            };
            let found = store.entries(&query).await.unwrap();
            found
                .into_iter()
                .map(|e| e.entry.identity)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        search("zeppelin").await,
        vec!["b"],
        "the index follows the update"
    );
    assert!(
        search("second").await.is_empty(),
        "the old text is gone from the index"
    );

    let mut published = changed;
    published[1].published = Some(t(-86_400));
    store.apply_fetch(ok(id, t(9000), published)).await.unwrap();
    let b = stored(&store, "b").await;
    assert_eq!(
        b.sort_at,
        t(-86_400),
        "a publication date becomes the sort time"
    );
    assert_eq!(b.first_seen_at, t(60));
}

/// C4: a 304 keeps the validators and touches no entry.
pub async fn not_modified_keeps_validators_and_entries(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let first = ok(id, t(60), three());
    store.apply_fetch(first.clone()).await.unwrap();
    let before = all_entries(&store).await;

    let got = store.apply_fetch(not_modified(id, t(3600))).await.unwrap();
    assert_eq!(got, report(0, 0, 0));
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(Some(&f.validators), first.update.validators.as_ref());
    assert_eq!(f.content_hash, first.update.content_hash);
    assert_eq!(f.title.as_deref(), Some("A feed"), "metadata kept");
    assert_eq!(f.last_status, Some(304));
    assert_eq!(f.last_fetch_at, Some(t(3600)));
    assert_eq!(f.counters.not_modified, 1);
    assert_eq!(all_entries(&store).await, before);
}

/// FF5: an entry that leaves the live feed stays stored.
pub async fn ff5_entries_that_leave_the_feed_are_kept(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    store.apply_fetch(ok(id, t(60), three())).await.unwrap();
    let a_before = stored(&store, "a").await;

    let next = vec![entry("c", "Gamma", "third"), entry("d", "Delta", "fourth")];
    let got = store.apply_fetch(ok(id, t(3600), next)).await.unwrap();
    assert_eq!(got, report(1, 0, 1));
    assert_eq!(store.count_entries(Some(id)).await.unwrap(), 4);
    assert_eq!(stored(&store, "a").await, a_before);

    store
        .apply_fetch(ok(id, t(7200), Vec::new()))
        .await
        .unwrap();
    assert_eq!(
        store.count_entries(None).await.unwrap(),
        4,
        "an empty feed deletes nothing"
    );
}

pub async fn counters_follow_outcomes(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let steps = [
        ("ok", Some(200)),
        ("not_modified", Some(304)),
        ("server_error", Some(503)),
        ("no_answer", None),
        ("blocked", None),
        ("refused", Some(429)),
    ];
    for (i, (label, status)) in steps.into_iter().enumerate() {
        let mut r = outcome(id, t(60 * (i as i64 + 1)), label, status);
        if label != "ok" && label != "not_modified" {
            r.update.consecutive_failures = 1;
            r.update.last_error = Some(format!("{label} happened"));
        }
        store.apply_fetch(r).await.unwrap();
    }
    let f = store.feed(id).await.unwrap().unwrap();
    let c = f.counters;
    // "blocked" sent no request, so it is no fetch either.
    assert_eq!((c.fetches, c.ok, c.not_modified, c.errors), (5, 1, 1, 3));
    assert_eq!(f.last_outcome.map(|l| l.as_str()), Some("refused"));
    assert_eq!(f.last_status, Some(429));
    assert_eq!(f.last_error.as_deref(), Some("refused happened"));
    assert_eq!(f.consecutive_failures, 1);

    // C6: a read postponed for the host's Retry-After sent nothing; the last read stays.
    let mut held = outcome(id, t(3600), "postponed", None);
    held.update.consecutive_failures = 1;
    store.apply_fetch(held.clone()).await.unwrap();
    let g = store.feed(id).await.unwrap().unwrap();
    assert_eq!(g.counters, f.counters);
    assert_eq!(
        (g.last_outcome, g.last_status, g.last_error, g.last_fetch_at),
        (f.last_outcome, f.last_status, f.last_error, f.last_fetch_at)
    );
    assert_eq!(g.next_fetch_at, held.update.next_fetch_at);
}

pub async fn unknown_feed_is_refused_and_leaves_nothing(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let ghost = FeedId(id.0 + 1000);
    let mut record = ok(ghost, t(60), three());
    record.log[0].feed_id = None;
    let err = store.apply_fetch(record).await.unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchFeed(f) if f == ghost),
        "{err}"
    );
    assert_eq!(store.count_entries(None).await.unwrap(), 0);
    assert!(
        store
            .request_log(&LogQuery::default())
            .await
            .unwrap()
            .is_empty()
    );
}

/// A failure after the feed row and the entries were written (the log row refers to a feed
/// that does not exist) rolls all of it back.
pub async fn failure_mid_transaction_leaves_nothing(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let before = store.feed(id).await.unwrap().unwrap();
    let mut record = ok(id, t(60), three());
    record.log[0].feed_id = Some(FeedId(id.0 + 1000));
    assert!(store.apply_fetch(record.clone()).await.is_err());

    assert_eq!(
        store.feed(id).await.unwrap().unwrap(),
        before,
        "feed row untouched"
    );
    assert_eq!(store.count_entries(None).await.unwrap(), 0, "no entries");
    assert!(
        store
            .request_log(&LogQuery::default())
            .await
            .unwrap()
            .is_empty()
    );

    record.log[0].feed_id = Some(id);
    assert_eq!(store.apply_fetch(record).await.unwrap(), report(3, 0, 0));
}

/// C4: validators are stored and returned byte for byte.
pub async fn validators_round_trip_exactly(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let cases = [
        Validators {
            etag: Some(r#"W/"5e8f-1a2b""#.to_owned()),
            last_modified: Some("Tue, 15 Nov 1994 12:45:26 GMT".to_owned()),
        },
        Validators {
            etag: Some(r#""with \"escaped\" quotes and 'single' ones""#.to_owned()),
            last_modified: Some("  Sunday, 06-Nov-94 08:49:37 GMT ".to_owned()),
        },
        Validators {
            etag: Some("unquoted-etag;\tλ".to_owned()),
            last_modified: None,
        },
        Validators {
            etag: None,
            last_modified: Some("Sun Nov  6 08:49:37 1994".to_owned()),
        },
    ];
    for (i, validators) in cases.into_iter().enumerate() {
        let mut r = outcome(id, t(60 * i as i64), "ok", Some(200));
        r.update.validators = Some(validators.clone());
        store.apply_fetch(r).await.unwrap();
        let f = store.feed(id).await.unwrap().unwrap();
        assert_eq!(f.validators, validators, "case {i}");
    }
}

pub async fn unicode_round_trips(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let mut e = entry(
        "tag:example.org,2026:ünïcödé/日本語",
        "Ελληνικά, עברית, العربية 🎉 e\u{301}",
        "Käse \u{200B}zero-width, emoji 👩‍👩‍👧 and a \u{0} nul",
    );
    e.content = Some("<p>“quoted” — dash</p>".to_owned());
    e.categories = vec!["カテゴリー".to_owned()];
    let mut r = ok(id, t(60), vec![e.clone()]);
    r.update.meta = Some(FeedMeta {
        title: Some("Fil d’actualité ✓".to_owned()),
        site_link: None,
        expires: None,
        thumbnail: None,
    });
    store.apply_fetch(r).await.unwrap();

    assert_eq!(stored(&store, &e.identity).await.entry, e);
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(f.title.as_deref(), Some("Fil d’actualité ✓"));
    assert_eq!(f.site_link, None);
    let again = store.apply_fetch(ok(id, t(120), vec![e])).await.unwrap();
    assert_eq!(again, report(0, 0, 1), "the identity matches itself");
}

/// Many writers at once: every fetch commits, and concurrent subscriptions to one URL still
/// make one feed (C2).
pub async fn concurrent_writers_all_commit(store: Arc<dyn Store>) {
    let mut tasks = Vec::new();
    for i in 0..16_i64 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let same = crate::support::subscribe(
                &store,
                "https://shared.example/feed",
                &format!("user{i}"),
                t(0),
            )
            .await;
            let own = feed(&store, &format!("https://host{i}.example/feed")).await;
            let entries = (0..5)
                .map(|n| entry(&format!("{i}-{n}"), "t", "s"))
                .collect();
            let got = store
                .apply_fetch(ok(own, t(60 + i), entries))
                .await
                .unwrap();
            assert_eq!(got, report(5, 0, 0));
            same.feed_id
        }));
    }
    let mut shared = HashSet::new();
    for task in tasks {
        shared.insert(task.await.unwrap());
    }
    assert_eq!(shared.len(), 1, "one feed for the shared URL");
    let feeds = store.feeds().await.unwrap();
    assert_eq!(feeds.len(), 17);
    let shared_feed = feeds.iter().find(|f| shared.contains(&f.id)).unwrap();
    assert_eq!(shared_feed.subscribers, 16);
    assert_eq!(store.count_entries(None).await.unwrap(), 80);
    assert_eq!(
        store.request_log(&LogQuery::default()).await.unwrap().len(),
        16
    );
}

/// The same identity twice in one body: the later copy wins, counted as an update.
pub async fn repeated_identity_in_one_fetch(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let first = entry("a", "First copy", "one");
    let second = entry("a", "Second copy", "two");
    let got = store
        .apply_fetch(ok(
            id,
            t(60),
            vec![first.clone(), second.clone(), second.clone()],
        ))
        .await
        .unwrap();
    assert_eq!(got, report(1, 1, 1));
    assert_eq!(store.count_entries(None).await.unwrap(), 1);
    let a = stored(&store, "a").await;
    assert_eq!(a.entry, second);
    assert_eq!((a.first_seen_at, a.updated_at), (t(60), t(60)));
}

/// C8: a publisher's huge identities and texts are stored (and found again), never refused by
/// an index or full-text limit; identities differing only after a NUL stay distinct.
pub async fn huge_identities_and_texts_are_stored(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/huge").await;
    let long_id = format!("https://example.org/{}", "x".repeat(10_000));
    let huge_summary = "harbour ".repeat(300_000); // 2.4 MB
    let entries = vec![
        entry(&long_id, "Long id", "short"),
        entry("huge", "Huge summary", &huge_summary),
        entry("nul\0a", "Nul a", ""),
        entry("nul\0b", "Nul b", ""),
    ];
    assert_eq!(
        store
            .apply_fetch(ok(id, t(60), entries.clone()))
            .await
            .unwrap(),
        report(4, 0, 0)
    );
    assert_eq!(
        store.apply_fetch(ok(id, t(120), entries)).await.unwrap(),
        report(0, 0, 4)
    );
    assert_eq!(
        stored(&store, &long_id).await.entry.title.as_deref(),
        Some("Long id")
    );
    assert_eq!(
        stored(&store, "nul\0b").await.entry.title.as_deref(),
        Some("Nul b")
    );
    assert_eq!(
        stored(&store, "huge")
            .await
            .entry
            .summary
            .as_deref()
            .map(str::len),
        Some(huge_summary.len())
    );
}

/// C8: a body that parsed without a title or link does not erase the known ones.
pub async fn missing_metadata_keeps_what_was_known(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/meta").await;
    store.apply_fetch(ok(id, t(60), vec![])).await.unwrap();
    let mut bare = ok(id, t(120), vec![]);
    bare.update.meta = Some(FeedMeta {
        title: None,
        site_link: Some("https://example.org/new-home".to_owned()),
        expires: None,
        thumbnail: None,
    });
    store.apply_fetch(bare).await.unwrap();
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(f.title.as_deref(), Some("A feed"));
    assert_eq!(f.site_link.as_deref(), Some("https://example.org/new-home"));
}

/// C6: a Retry-After floor for a whole host is kept with the fetch, and a later, earlier floor
/// never moves it back.
pub async fn c6_host_floor_only_moves_later(store: Arc<dyn Store>) {
    let id = feed(&store, "https://busy.example/feed").await;
    let host = "https://busy.example:443";
    assert_eq!(store.host_floor(host).await.unwrap(), None);
    for (at, floor, want) in [(60, 1000, 1000), (120, 500, 1000), (180, 2000, 2000)] {
        let mut record = outcome(id, t(at), "refused", Some(429));
        record.host_floor = Some((host.to_owned(), t(floor)));
        store.apply_fetch(record).await.unwrap();
        assert_eq!(
            store.host_floor(host).await.unwrap(),
            Some(t(want)),
            "after floor {floor}"
        );
    }
    assert_eq!(
        store.host_floor("https://calm.example:443").await.unwrap(),
        None
    );
}

/// Fetches applied at once (the SQLite store commits them together): a fetch of a missing
/// feed and one whose log row breaks a constraint fail alone, each with its own error, and
/// leave nothing; every other fetch is stored whole.
pub async fn concurrent_failures_fail_no_other_fetch(store: Arc<dyn Store>) {
    let mut ids = Vec::new();
    for i in 0..12 {
        ids.push(feed(&store, &format!("https://host{i}.example/feed")).await);
    }
    let ghost = FeedId(ids.iter().map(|f| f.0).max().unwrap_or(0) + 1000);
    let mut tasks = Vec::new();
    for round in 0..3_i64 {
        for (i, id) in ids.iter().enumerate() {
            let store = store.clone();
            let mut record = ok(
                *id,
                t(60 + round),
                (0..4)
                    .map(|n| entry(&format!("{i}-{round}-{n}"), "t", "s"))
                    .collect(),
            );
            let kind = i % 4;
            if kind == 1 {
                record.feed_id = ghost;
                record.log[0].feed_id = None;
            } else if kind == 2 {
                record.log[0].feed_id = Some(ghost);
            }
            tasks.push((
                kind,
                *id,
                tokio::spawn(async move { store.apply_fetch(record).await }),
            ));
        }
    }
    let mut good = HashSet::new();
    for (kind, id, task) in tasks {
        let result = task.await.unwrap();
        match kind {
            1 => assert!(
                matches!(result, Err(StoreError::NoSuchFeed(f)) if f == ghost),
                "{result:?}"
            ),
            2 => assert!(result.is_err(), "a broken log row fails its fetch"),
            _ => {
                assert_eq!(result.unwrap(), report(4, 0, 0));
                good.insert(id);
            }
        }
    }
    assert_eq!(good.len(), 6);
    assert_eq!(store.count_entries(None).await.unwrap(), 6 * 3 * 4);
    let log = store
        .request_log(&LogQuery {
            limit: 1000,
            ..LogQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(log.len(), 6 * 3);
    for id in &ids {
        let f = store.feed(*id).await.unwrap().unwrap();
        let entries = store.count_entries(Some(*id)).await.unwrap();
        if good.contains(id) {
            assert_eq!((f.counters.fetches, entries), (3, 12));
        } else {
            assert_eq!((f.counters.fetches, entries, f.last_fetch_at), (0, 0, None));
        }
    }
}

/// Two reads of one feed at once carrying the same entries: whichever is stored first adds
/// them, the other finds them unchanged; nothing is stored twice.
pub async fn concurrent_reads_of_one_feed_store_each_entry_once(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let mut tasks = Vec::new();
    for n in 0..8_i64 {
        let store = store.clone();
        let record = ok(id, t(60 + n), three());
        tasks.push(tokio::spawn(async move { store.apply_fetch(record).await }));
    }
    let mut total = ApplyReport::default();
    for task in tasks {
        let got = task.await.unwrap().unwrap();
        total.new_entries += got.new_entries;
        total.updated_entries += got.updated_entries;
        total.unchanged_entries += got.unchanged_entries;
    }
    assert_eq!(total, report(3, 0, 7 * 3));
    assert_eq!(store.count_entries(None).await.unwrap(), 3);
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(f.counters.fetches, 8);
}

/// C8: what the bound on new entries per feed and day is decided on: the entries of a read
/// not stored yet (long identities by their stored key too), and the feed's entries first
/// seen since a time (other feeds' never count).
pub async fn new_entry_counts_are_per_feed_and_since_a_time(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let other = feed(&store, "https://example.org/other.xml").await;
    let long = "x".repeat(3000);
    let mut first = three();
    first.push(entry(&long, "Long", "an identity stored by its hash"));
    store.apply_fetch(ok(id, t(60), first)).await.unwrap();
    store
        .apply_fetch(ok(id, t(7200), vec![entry("d", "Delta", "later")]))
        .await
        .unwrap();
    store
        .apply_fetch(ok(other, t(7200), vec![entry("z", "Zeta", "elsewhere")]))
        .await
        .unwrap();

    let counts = |ids: Vec<&'static str>, since| {
        let store = store.clone();
        async move { store.new_entry_counts(id, &ids, since).await.unwrap() }
    };
    let got = counts(vec!["a", "d", "e", "z"], t(0)).await;
    assert_eq!(
        (got.unseen, got.first_seen_since),
        (2, 5),
        "e and z are new here"
    );
    let got = counts(vec![], t(3600)).await;
    assert_eq!(
        (got.unseen, got.first_seen_since),
        (0, 1),
        "only d is that recent"
    );
    let got = counts(vec!["e"], t(7201)).await;
    assert_eq!((got.unseen, got.first_seen_since), (1, 0));
    let known_long = store
        .new_entry_counts(id, &[long.as_str()], t(0))
        .await
        .unwrap();
    assert_eq!(known_long.unseen, 0, "a long identity finds its hashed key");
}
