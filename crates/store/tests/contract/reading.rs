//! Reading state per account: subscriptions with folders and titles, read and starred
//! entries, unread counts kept exact, and "mark all read" up to a time.

use crate::support::{dated, new_feed, ok, t, url};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::sync::Arc;
use tidings_model::{Entry, FeedId};
use tidings_store::{
    AccountRole, NEW_SUBSCRIPTION_UNREAD, NewAccount, Placement, ReadScope, ReadStatus,
    ReadingOrder, ReadingQuery, StateChange, Store, SubscriptionEdit, UnreadCounts,
};

async fn account(store: &Arc<dyn Store>, name: &str) -> i64 {
    store
        .add_account(&NewAccount {
            name: name.into(),
            role: AccountRole::Reader,
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
            created_at: t(0),
        })
        .await
        .unwrap()
        .expect("new account")
        .id
}

async fn subscribe(
    store: &Arc<dyn Store>,
    who: i64,
    u: &str,
    folder: Option<&str>,
    at: DateTime<Utc>,
) -> FeedId {
    let placement = Placement {
        title: None,
        folder: folder.map(str::to_owned),
    };
    store
        .subscribe_account(&url(u), who, &placement, at, &new_feed(at))
        .await
        .expect("subscribe account")
        .feed_id
}

/// `n` entries `prefix-0` (oldest) .. `prefix-(n-1)` (newest), published a minute apart.
fn entries(prefix: &str, n: usize) -> Vec<Entry> {
    (0..n)
        .map(|i| dated(&format!("{prefix}-{i}"), t(60 * i as i64)))
        .collect()
}

fn query(who: i64) -> ReadingQuery {
    ReadingQuery {
        account: who,
        limit: 10_000,
        ..Default::default()
    }
}

fn unread(who: i64) -> ReadingQuery {
    ReadingQuery {
        status: Some(ReadStatus::Unread),
        ..query(who)
    }
}

/// (publisher id, row id) of what `q` lists, in its order.
async fn listed(store: &Arc<dyn Store>, q: &ReadingQuery) -> Vec<(String, i64)> {
    store
        .reading(q)
        .await
        .expect("reading")
        .into_iter()
        .map(|r| (r.entry.entry.identity, r.entry.id))
        .collect()
}

async fn row_id(store: &Arc<dyn Store>, who: i64, key: &str) -> i64 {
    listed(store, &query(who))
        .await
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, id)| id)
        .unwrap_or_else(|| panic!("{key} is listed"))
}

/// The kept counts, by feed; each must equal its count one by one and the unread listing.
async fn counts(store: &Arc<dyn Store>, who: i64) -> BTreeMap<FeedId, u64> {
    let kept: BTreeMap<FeedId, u64> = store
        .subscriptions(who)
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.feed_id, s.unread))
        .collect();
    let recounted: BTreeMap<FeedId, u64> = store
        .recount_unread(who)
        .await
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(kept, recounted, "kept unread counts equal a recount");
    for (feed, n) in &kept {
        let q = ReadingQuery {
            feed: Some(*feed),
            ..unread(who)
        };
        assert_eq!(store.count_reading(&q).await.unwrap(), *n, "feed {feed}");
    }
    kept
}

fn read(yes: bool) -> StateChange {
    StateChange {
        read: Some(yes),
        starred: None,
    }
}

fn star(yes: bool) -> StateChange {
    StateChange {
        read: None,
        starred: Some(yes),
    }
}

pub async fn c2_one_read_serves_every_account_and_a_new_subscription_starts_with_its_newest_unread(
    store: Arc<dyn Store>,
) {
    let ana = account(&store, "ana").await;
    let bo = account(&store, "bo").await;
    // The feed exists with 60 entries before Ana subscribes.
    let feed = subscribe(&store, bo, "https://one.example/feed", None, t(0)).await;
    store
        .apply_fetch(ok(feed, t(3600), entries("a", 60)))
        .await
        .unwrap();
    assert_eq!(
        subscribe(
            &store,
            ana,
            "https://one.example/feed",
            Some("News"),
            t(7200)
        )
        .await,
        feed,
        "one feed for every subscriber (C2)"
    );
    let newest = NEW_SUBSCRIPTION_UNREAD as usize;
    assert_eq!(counts(&store, ana).await.get(&feed), Some(&(newest as u64)));
    let keys: Vec<String> = listed(&store, &unread(ana))
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let want: Vec<String> = (60 - newest..60).rev().map(|i| format!("a-{i}")).collect();
    assert_eq!(keys, want, "the newest {newest}, newest first");
    // Bo subscribed before the first read: his state started with the first entries stored,
    // the newest of them unread, as for a feed read before subscribing.
    assert_eq!(counts(&store, bo).await.get(&feed), Some(&(newest as u64)));
    let bo_unread: Vec<String> = listed(&store, &unread(bo))
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(bo_unread, want);

    // One fetch serves both: new entries are unread for each.
    let mut next = entries("a", 60);
    next.extend(entries("b", 3));
    store.apply_fetch(ok(feed, t(10_800), next)).await.unwrap();
    assert_eq!(
        counts(&store, ana).await.get(&feed),
        Some(&(newest as u64 + 3))
    );
    assert_eq!(
        counts(&store, bo).await.get(&feed),
        Some(&(newest as u64 + 3))
    );

    // Subscribing again changes only where it is filed.
    subscribe(
        &store,
        ana,
        "https://one.example/feed",
        Some("Daily"),
        t(20_000),
    )
    .await;
    let subs = store.subscriptions(ana).await.unwrap();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].folder.as_deref(), Some("Daily"));
    assert_eq!(subs[0].unread, newest as u64 + 3);
}

pub async fn reading_marks_and_stars_are_per_account_and_move_the_counts(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let bo = account(&store, "bo").await;
    let feed = subscribe(&store, ana, "https://one.example/feed", None, t(0)).await;
    subscribe(&store, bo, "https://one.example/feed", None, t(0)).await;
    let other = subscribe(&store, bo, "https://two.example/feed", None, t(0)).await;
    store
        .apply_fetch(ok(feed, t(60), entries("a", 5)))
        .await
        .unwrap();
    store
        .apply_fetch(ok(other, t(60), entries("z", 2)))
        .await
        .unwrap();
    let a1 = row_id(&store, ana, "a-1").await;
    let a2 = row_id(&store, ana, "a-2").await;
    let z0 = row_id(&store, bo, "z-0").await;

    // Ana reads two; an entry of a feed she does not subscribe to is left alone.
    let changed = store
        .set_entry_states(ana, &[a1, a2, z0], read(true), t(100))
        .await
        .unwrap();
    assert_eq!(changed, 2);
    assert_eq!(counts(&store, ana).await.get(&feed), Some(&3));
    assert_eq!(
        counts(&store, bo).await.get(&feed),
        Some(&5),
        "Bo's own state"
    );
    assert_eq!(
        store
            .set_entry_states(ana, &[a1], read(true), t(101))
            .await
            .unwrap(),
        0,
        "reading again changes nothing"
    );

    // Stars do not move counts; a read entry can be kept unread again.
    store
        .set_entry_states(ana, &[a1], star(true), t(102))
        .await
        .unwrap();
    store
        .set_entry_states(ana, &[a2], read(false), t(103))
        .await
        .unwrap();
    assert_eq!(counts(&store, ana).await.get(&feed), Some(&4));
    let states: BTreeMap<String, (bool, bool, DateTime<Utc>)> = store
        .reading(&query(ana))
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r.entry.entry.identity,
                (r.state.read, r.state.starred, r.state.changed_at),
            )
        })
        .collect();
    assert_eq!(states["a-1"], (true, true, t(102)));
    assert_eq!(states["a-2"], (false, false, t(103)));
    assert_eq!(
        states["a-0"],
        (false, false, t(60)),
        "arrived, never marked"
    );
    let starred = ReadingQuery {
        starred: Some(true),
        ..query(ana)
    };
    assert_eq!(listed(&store, &starred).await, vec![("a-1".to_owned(), a1)]);
    let changed_since = ReadingQuery {
        changed_after: Some(t(101)),
        ..query(ana)
    };
    assert_eq!(listed(&store, &changed_since).await.len(), 2);

    // A reader sees only the feeds it subscribes to.
    let ana_keys: Vec<String> = listed(&store, &query(ana))
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(ana_keys.iter().all(|k| k.starts_with("a-")), "{ana_keys:?}");

    // Unsubscribing forgets the account's state of the feed; the feed stays for Bo.
    assert!(store.unsubscribe_account(ana, feed).await.unwrap());
    assert!(listed(&store, &query(ana)).await.is_empty());
    assert_eq!(counts(&store, bo).await.get(&feed), Some(&5));
    subscribe(&store, ana, "https://one.example/feed", None, t(200)).await;
    let again: BTreeMap<String, bool> = store
        .reading(&query(ana))
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.entry.entry.identity, r.state.starred))
        .collect();
    assert_eq!(again.get("a-1"), Some(&false), "the old star is gone");
}

pub async fn reading_mark_all_read_stops_at_its_time_and_keeps_stars(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let one = subscribe(&store, ana, "https://one.example/feed", Some("News"), t(0)).await;
    let two = subscribe(&store, ana, "https://two.example/feed", Some("News"), t(0)).await;
    let three = subscribe(&store, ana, "https://three.example/feed", None, t(0)).await;
    store
        .apply_fetch(ok(one, t(100), entries("a", 4)))
        .await
        .unwrap();
    store
        .apply_fetch(ok(two, t(100), entries("b", 2)))
        .await
        .unwrap();
    store
        .apply_fetch(ok(three, t(100), entries("c", 3)))
        .await
        .unwrap();
    let mut later = entries("a", 4);
    later.extend(entries("new", 2));
    store.apply_fetch(ok(one, t(300), later)).await.unwrap();
    let a0 = row_id(&store, ana, "a-0").await;
    store
        .set_entry_states(ana, &[a0], star(true), t(150))
        .await
        .unwrap();

    // Up to t(200): what arrived at t(300) stays unread.
    let marked = store
        .mark_all_read(ana, &ReadScope::Feed(one), t(200), t(400))
        .await
        .unwrap();
    assert_eq!(marked, 4);
    let c = counts(&store, ana).await;
    assert_eq!((c[&one], c[&two], c[&three]), (2, 2, 3));
    let stars = ReadingQuery {
        starred: Some(true),
        ..query(ana)
    };
    assert_eq!(listed(&store, &stars).await.len(), 1, "the star stays");

    // A kept-unread entry under the floor is read by the next mark-all-read.
    let a1 = row_id(&store, ana, "a-1").await;
    store
        .set_entry_states(ana, &[a1], read(false), t(410))
        .await
        .unwrap();
    assert_eq!(counts(&store, ana).await[&one], 3);

    // A folder: both of its feeds, not the third. A time past now counts as now.
    let marked = store
        .mark_all_read(ana, &ReadScope::Folder("News".into()), t(1_000_000), t(500))
        .await
        .unwrap();
    assert_eq!(marked, 5);
    let c = counts(&store, ana).await;
    assert_eq!((c[&one], c[&two], c[&three]), (0, 0, 3));
    // Arrivals after the mark are unread.
    let mut more = entries("b", 2);
    more.extend(entries("late", 1));
    store.apply_fetch(ok(two, t(600), more)).await.unwrap();
    assert_eq!(counts(&store, ana).await[&two], 1);

    let marked = store
        .mark_all_read(ana, &ReadScope::All, t(700), t(700))
        .await
        .unwrap();
    assert_eq!(marked, 4);
    let c = counts(&store, ana).await;
    assert_eq!(c.values().sum::<u64>(), 0);
}

pub async fn reading_folders_and_titles_are_the_accounts_own(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let bo = account(&store, "bo").await;
    let one = subscribe(
        &store,
        ana,
        "https://one.example/feed",
        Some("  Tech\n"),
        t(0),
    )
    .await;
    let two = subscribe(&store, ana, "https://two.example/feed", Some("Tech"), t(0)).await;
    subscribe(&store, bo, "https://one.example/feed", Some("Work"), t(0)).await;
    store
        .apply_fetch(ok(one, t(60), entries("a", 3)))
        .await
        .unwrap();
    store
        .apply_fetch(ok(two, t(60), entries("b", 1)))
        .await
        .unwrap();
    let edited = SubscriptionEdit {
        title: Some(Some("My one".into())),
        folder: None,
    };
    assert!(store.edit_subscription(ana, one, &edited).await.unwrap());
    assert!(
        !store
            .edit_subscription(ana, FeedId(9999), &edited)
            .await
            .unwrap(),
        "no such subscription"
    );
    let subs = store.subscriptions(ana).await.unwrap();
    assert_eq!(subs[0].title.as_deref(), Some("My one"));
    assert_eq!(
        subs[0].folder.as_deref(),
        Some("Tech"),
        "labels are trimmed"
    );
    let counts = UnreadCounts::of(&subs);
    assert_eq!(counts.folders.get("Tech"), Some(&4));
    assert_eq!(counts.total, 4);

    assert_eq!(
        store
            .rename_folder(ana, "Tech", Some("Code"))
            .await
            .unwrap(),
        2
    );
    let in_code = ReadingQuery {
        folder: Some("Code".into()),
        ..query(ana)
    };
    assert_eq!(store.count_reading(&in_code).await.unwrap(), 4);
    assert_eq!(store.rename_folder(ana, "Code", None).await.unwrap(), 2);
    assert!(
        store
            .subscriptions(ana)
            .await
            .unwrap()
            .iter()
            .all(|s| s.folder.is_none())
    );
    let bo_subs = store.subscriptions(bo).await.unwrap();
    assert_eq!(
        bo_subs[0].folder.as_deref(),
        Some("Work"),
        "Bo's folder is his"
    );
    assert_eq!(bo_subs[0].title, None);

    // Orders and id windows (the sync APIs page by id).
    let ids: Vec<i64> = listed(
        &store,
        &ReadingQuery {
            order: ReadingOrder::IdAscending,
            ..query(ana)
        },
    )
    .await
    .into_iter()
    .map(|(_, id)| id)
    .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let above = ReadingQuery {
        id_above: Some(ids[1]),
        order: ReadingOrder::IdAscending,
        limit: 1,
        ..query(ana)
    };
    assert_eq!(listed(&store, &above).await[0].1, ids[2]);
    let page = ReadingQuery {
        offset: 1,
        limit: 2,
        order: ReadingOrder::OldestFirst,
        ..query(ana)
    };
    assert_eq!(listed(&store, &page).await.len(), 2);

    // Removing an account removes its subscriptions; the feed stays for Bo.
    assert!(store.remove_account("ana").await.unwrap());
    assert!(store.subscriptions(ana).await.unwrap().is_empty());
    assert_eq!(store.subscriptions(bo).await.unwrap().len(), 1);
}

/// A long random run of marks, stars, arrivals and mark-all-reads: after every step each kept
/// count equals a recount and the unread listing.
pub async fn reading_counts_stay_exact_under_any_sequence(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let urls = [
        "https://one.example/feed",
        "https://two.example/feed",
        "https://three.example/feed",
    ];
    let mut feeds = Vec::new();
    for (i, u) in urls.iter().enumerate() {
        let folder = (i < 2).then_some("F");
        feeds.push(subscribe(&store, ana, u, folder, t(0)).await);
    }
    let mut stored: Vec<Vec<Entry>> = vec![Vec::new(); feeds.len()];
    let mut seed: u64 = 0x5eed_1234_abcd_0042;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut clock = 1_000;
    for step in 0..120 {
        clock += 10;
        let now = t(clock);
        match next(5) {
            0 => {
                let f = next(3) as usize;
                let n = stored[f].len();
                stored[f].push(dated(&format!("f{f}-e{n}"), now));
                store
                    .apply_fetch(ok(feeds[f], now, stored[f].clone()))
                    .await
                    .unwrap();
            }
            1 | 2 => {
                let all = listed(&store, &query(ana)).await;
                if all.is_empty() {
                    continue;
                }
                let picks: Vec<i64> = (0..1 + next(4))
                    .map(|_| all[next(all.len() as u64) as usize].1)
                    .collect();
                let change = match next(4) {
                    0 => read(true),
                    1 => read(false),
                    2 => star(true),
                    _ => StateChange {
                        read: Some(next(2) == 0),
                        starred: Some(next(2) == 0),
                    },
                };
                store
                    .set_entry_states(ana, &picks, change, now)
                    .await
                    .unwrap();
            }
            3 => {
                let scope = match next(3) {
                    0 => ReadScope::Feed(feeds[next(3) as usize]),
                    1 => ReadScope::Folder("F".into()),
                    _ => ReadScope::All,
                };
                // Up to a time somewhere in the past: later arrivals stay unread.
                let up_to = t(clock - 10 * next(20) as i64);
                let before = counts(&store, ana).await.values().sum::<u64>();
                let marked = store.mark_all_read(ana, &scope, up_to, now).await.unwrap();
                let after = counts(&store, ana).await.values().sum::<u64>();
                assert_eq!(before - after, marked, "step {step}");
            }
            _ => {
                let f = feeds[next(3) as usize];
                let keep = StateChange {
                    read: Some(false),
                    starred: None,
                };
                let some: Vec<i64> = listed(
                    &store,
                    &ReadingQuery {
                        feed: Some(f),
                        ..query(ana)
                    },
                )
                .await
                .into_iter()
                .map(|(_, id)| id)
                .take(2)
                .collect();
                store.set_entry_states(ana, &some, keep, now).await.unwrap();
            }
        }
        counts(&store, ana).await;
    }
    let total: u64 = counts(&store, ana).await.values().sum();
    assert_eq!(store.count_reading(&unread(ana)).await.unwrap(), total);
}

pub async fn ff16_an_accounts_reading_leaves_out_expired_entries(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let feed = subscribe(&store, ana, "https://one.example/feed", None, t(0)).await;
    let mut gone = dated("gone", t(10));
    gone.expires = Some(t(500));
    store
        .apply_fetch(ok(feed, t(60), vec![dated("kept", t(20)), gone]))
        .await
        .unwrap();
    let current = ReadingQuery {
        current_at: Some(t(1000)),
        ..query(ana)
    };
    let keys: Vec<String> = listed(&store, &current)
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, vec!["kept"], "expired at t(500), asked at t(1000)");
    let before = ReadingQuery {
        current_at: Some(t(400)),
        ..query(ana)
    };
    assert_eq!(store.count_reading(&before).await.unwrap(), 2);
}

/// FF1: a page subscribed to by its URL hands its subscribers to the feed it names: each
/// keeps its title and folder, a subscriber of both keeps one subscription, an account's
/// reading state starts on the feed's entries, and the page's feed row is gone.
pub async fn ff1_a_pages_subscribers_move_to_its_feed(store: Arc<dyn Store>) {
    let ana = account(&store, "ana").await;
    let bo = account(&store, "bo").await;
    let page = subscribe(&store, ana, "https://site.example/", Some("News"), t(0)).await;
    subscribe(&store, bo, "https://site.example/", None, t(0)).await;
    store
        .subscribe(&url("https://site.example/"), "cli", t(0), &new_feed(t(0)))
        .await
        .unwrap();
    // Bo follows the feed already, and it has entries.
    let feed = subscribe(
        &store,
        bo,
        "https://site.example/feed.xml",
        Some("Mine"),
        t(0),
    )
    .await;
    store
        .apply_fetch(ok(feed, t(60), entries("f", 3)))
        .await
        .unwrap();
    let moved = store
        .move_subscriptions(
            page,
            &url("https://site.example/feed.xml"),
            t(120),
            &new_feed(t(120)),
        )
        .await
        .unwrap();
    assert_eq!(moved.feed_id, feed);
    assert!(!moved.new_feed);
    assert!(moved.new_subscription);
    assert!(
        store.feed(page).await.unwrap().is_none(),
        "the page's row is gone"
    );
    let ana_subs = store.subscriptions(ana).await.unwrap();
    assert_eq!(ana_subs.len(), 1);
    assert_eq!(ana_subs[0].feed_id, feed);
    assert_eq!(ana_subs[0].folder.as_deref(), Some("News"));
    let bo_subs = store.subscriptions(bo).await.unwrap();
    assert_eq!(bo_subs.len(), 1, "one subscription per subscriber");
    assert_eq!(bo_subs[0].folder.as_deref(), Some("Mine"));
    let cli: Vec<FeedId> = store
        .feeds_of("cli")
        .await
        .unwrap()
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(cli, [feed]);
    // Ana reads the feed's entries as a new subscriber does.
    let listed = store.reading(&query(ana)).await.unwrap();
    assert_eq!(listed.len(), 3);
    // A page that names a feed new to the store stores it.
    let other = subscribe(&store, ana, "https://other.example/", None, t(200)).await;
    let moved = store
        .move_subscriptions(
            other,
            &url("https://other.example/rss"),
            t(300),
            &new_feed(t(300)),
        )
        .await
        .unwrap();
    assert!(moved.new_feed);
    assert_eq!(store.subscriptions(ana).await.unwrap().len(), 2);
}
