//! Subscriptions, one feed per URL (C2), and which feeds are due.

use crate::support::{entry, feed, not_modified, ok, outcome, subscribe, t, url};
use chrono::Duration;
use std::sync::Arc;
use tidings_model::{FailureKind, FailureTotals, FeedId};
use tidings_store::{EntryQuery, FeedOverrides, FeedPatch, FeedState, Store};

/// C2: two subscribers, one feed row; subscribing twice changes nothing.
pub async fn subscribe_is_idempotent_and_one_feed_per_url(store: Arc<dyn Store>) {
    let first = subscribe(&store, "https://example.org/feed.xml", "alice", t(0)).await;
    assert!(first.new_feed && first.new_subscription);

    let again = subscribe(&store, "https://example.org/feed.xml", "alice", t(5)).await;
    assert_eq!(again.feed_id, first.feed_id);
    assert!(!again.new_feed && !again.new_subscription);

    let bob = subscribe(&store, "https://example.org/feed.xml", "bob", t(9)).await;
    assert_eq!(bob.feed_id, first.feed_id);
    assert!(!bob.new_feed && bob.new_subscription);

    let feeds = store.feeds().await.unwrap();
    assert_eq!(feeds.len(), 1);
    let f = &feeds[0];
    assert_eq!(f.id, first.feed_id);
    assert_eq!(f.url.as_str(), "https://example.org/feed.xml");
    assert_eq!(f.original_url, "https://example.org/feed.xml");
    assert_eq!(f.subscribers, 2);
    assert_eq!(f.state, FeedState::Active);
    assert_eq!(f.next_fetch_at, t(0), "a new feed is due at once");
    assert_eq!(f.next_fetch_reason, "first add");
    assert_eq!(f.interval_secs, 3600);
    assert_eq!(f.created_at, t(0));
    assert_eq!(f.counters, Default::default());
    assert!(f.validators.is_empty() && f.last_fetch_at.is_none());

    let by_url = store
        .feed_by_url(&url("https://example.org/feed.xml"))
        .await
        .unwrap();
    assert_eq!(by_url.as_ref(), Some(f));
    assert_eq!(store.feed(first.feed_id).await.unwrap().as_ref(), Some(f));
    assert_eq!(
        store.feed(FeedId(first.feed_id.0 + 1000)).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .feed_by_url(&url("https://example.org/other"))
            .await
            .unwrap(),
        None
    );

    let other = subscribe(&store, "https://example.org/feed.xml?page=2", "alice", t(0)).await;
    assert!(other.new_feed, "the query is part of the identity (FF3)");
    let ids: Vec<FeedId> = store.feeds().await.unwrap().iter().map(|f| f.id).collect();
    assert_eq!(
        ids,
        vec![first.feed_id, other.feed_id],
        "feeds are listed by id"
    );
}

pub async fn unsubscribe_keeps_the_feed_and_its_entries(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    subscribe(&store, "https://example.org/feed.xml", "bob", t(0)).await;
    store
        .apply_fetch(ok(id, t(10), vec![crate::support::entry("a", "A", "")]))
        .await
        .unwrap();

    assert!(store.unsubscribe(id, "alice").await.unwrap());
    assert!(
        !store.unsubscribe(id, "alice").await.unwrap(),
        "already gone"
    );
    assert_eq!(store.feed(id).await.unwrap().unwrap().subscribers, 1);
    assert!(store.unsubscribe(id, "bob").await.unwrap());

    let f = store.feed(id).await.unwrap().expect("the feed stays");
    assert_eq!(f.subscribers, 0);
    assert_eq!(store.count_entries(Some(id)).await.unwrap(), 1);
    let again = subscribe(&store, "https://example.org/feed.xml", "alice", t(20)).await;
    assert_eq!(again.feed_id, id);
    assert!(!again.new_feed && again.new_subscription);
}

pub async fn due_feeds_are_active_subscribed_and_most_overdue_first(store: Arc<dyn Store>) {
    let now = t(1000);
    let mut ids = Vec::new();
    for name in ["late", "later", "future", "paused", "orphan", "tie"] {
        ids.push(feed(&store, &format!("https://{name}.example/feed")).await);
    }
    let [late, later, future, paused, orphan, tie] = ids[..] else {
        unreachable!()
    };
    let schedule = |id, next, state| {
        let mut r = outcome(id, t(0), "ok", Some(200));
        r.update.next_fetch_at = next;
        r.update.state = state;
        r
    };
    let active = FeedState::Active;
    for r in [
        schedule(late, t(100), active),
        schedule(later, t(500), active),
        schedule(future, now + Duration::seconds(1), active),
        schedule(paused, t(50), FeedState::Paused),
        schedule(orphan, t(10), active),
        schedule(tie, t(500), active),
    ] {
        store.apply_fetch(r).await.unwrap();
    }
    store.unsubscribe(orphan, "alice").await.unwrap();

    let due: Vec<FeedId> = store
        .due_feeds(now, 10)
        .await
        .unwrap()
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(due, vec![late, later, tie], "by next_fetch_at, then id");
    let first: Vec<FeedId> = store
        .due_feeds(now, 1)
        .await
        .unwrap()
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(first, vec![late]);
    let at_the_edge = store.due_feeds(t(100), 10).await.unwrap();
    assert_eq!(at_the_edge.len(), 1, "next_fetch_at == now is due");
    assert!(store.due_feeds(t(99), 10).await.unwrap().is_empty());
}

pub async fn next_due_is_the_earliest_active_subscribed_feed(store: Arc<dyn Store>) {
    assert_eq!(store.next_due().await.unwrap(), None, "no feeds");
    let mut ids = Vec::new();
    for name in ["soon", "later", "paused", "orphan"] {
        ids.push(feed(&store, &format!("https://{name}.example/feed")).await);
    }
    let [soon, later, paused, orphan] = ids[..] else {
        unreachable!()
    };
    let schedule = |id, next, state| {
        let mut r = outcome(id, t(0), "ok", Some(200));
        r.update.next_fetch_at = next;
        r.update.state = state;
        r
    };
    let active = FeedState::Active;
    for r in [
        schedule(soon, t(300), active),
        schedule(later, t(900), active),
        schedule(paused, t(50), FeedState::Paused),
        schedule(orphan, t(10), active),
    ] {
        store.apply_fetch(r).await.unwrap();
    }
    store.unsubscribe(orphan, "alice").await.unwrap();
    assert_eq!(store.next_due().await.unwrap(), Some(t(300)));
    assert_eq!(store.next_due_after(t(0)).await.unwrap(), Some(t(300)));
    assert_eq!(
        store.next_due_after(t(300)).await.unwrap(),
        Some(t(900)),
        "strictly after"
    );
    assert_eq!(store.next_due_after(t(900)).await.unwrap(), None);
    store.unsubscribe(soon, "alice").await.unwrap();
    assert_eq!(store.next_due().await.unwrap(), Some(t(900)));
    store.unsubscribe(later, "alice").await.unwrap();
    assert_eq!(
        store.next_due().await.unwrap(),
        None,
        "only a paused feed is left"
    );
}

pub async fn redirect_moves_the_url_and_the_old_url_still_finds_the_feed(store: Arc<dyn Store>) {
    let id = feed(&store, "http://old.example/feed").await;
    let mut r = ok(id, t(10), Vec::new());
    r.update.url = Some(url("https://new.example/feed"));
    store.apply_fetch(r).await.unwrap();

    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(f.url.as_str(), "https://new.example/feed");
    assert_eq!(f.original_url, "http://old.example/feed");
    let by_new = store
        .feed_by_url(&url("https://new.example/feed"))
        .await
        .unwrap();
    let by_old = store
        .feed_by_url(&url("http://old.example/feed"))
        .await
        .unwrap();
    assert_eq!(by_new.map(|f| f.id), Some(id));
    assert_eq!(by_old.map(|f| f.id), Some(id));

    let bob = subscribe(&store, "http://old.example/feed", "bob", t(20)).await;
    assert_eq!(bob.feed_id, id, "C2 holds across a permanent redirect");
    assert!(!bob.new_feed);
    let carol = subscribe(&store, "https://new.example/feed", "carol", t(20)).await;
    assert_eq!(carol.feed_id, id);
    assert_eq!(store.feeds().await.unwrap().len(), 1);
}

/// PF9: a permanent redirect under observation is kept until a read clears or persists it.
pub async fn pending_move_round_trips(store: Arc<dyn Store>) {
    let id = feed(&store, "http://old.example/feed").await;
    let mut r = ok(id, t(10), Vec::new());
    r.update.pending_move = Some(("https://new.example/feed".into(), t(10)));
    store.apply_fetch(r).await.unwrap();
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(
        f.pending_move,
        Some(("https://new.example/feed".to_string(), t(10)))
    );
    let r = ok(id, t(20), Vec::new());
    store.apply_fetch(r).await.unwrap();
    assert_eq!(store.feed(id).await.unwrap().unwrap().pending_move, None);
}

/// A move onto a URL another feed already has is refused whole: the unique URL is kept and
/// nothing of the fetch is stored.
pub async fn moving_onto_another_feeds_url_fails_whole(store: Arc<dyn Store>) {
    let a = feed(&store, "https://a.example/feed").await;
    feed(&store, "https://b.example/feed").await;
    let before = store.feed(a).await.unwrap();
    let mut r = ok(a, t(10), vec![crate::support::entry("x", "X", "")]);
    r.update.url = Some(url("https://b.example/feed"));
    assert!(store.apply_fetch(r).await.is_err());
    assert_eq!(store.feed(a).await.unwrap(), before);
    assert_eq!(store.count_entries(None).await.unwrap(), 0);
    let log = store.request_log(&Default::default()).await.unwrap();
    assert!(log.is_empty());
}

/// PF5–PF7, WFM8: a paused or switched-off feed is never due until an operator resumes it;
/// resuming makes it due at the given time with its failures forgotten.
pub async fn paused_feeds_wait_for_an_operator(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let mut r = outcome(id, t(10), "not_found", Some(404));
    r.update.state = FeedState::Paused;
    r.update.state_reason = Some("PF5: paused after 4 404 answers in a row".into());
    r.update.consecutive_failures = 4;
    r.update.next_fetch_at = t(20);
    store.apply_fetch(r).await.unwrap();
    assert!(store.due_feeds(t(1_000_000), 10).await.unwrap().is_empty());

    assert!(
        store
            .resume_feed(id, t(30), "resumed by an operator")
            .await
            .unwrap()
    );
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(
        (f.state, f.state_reason, f.consecutive_failures),
        (FeedState::Active, None, 0)
    );
    assert_eq!(
        (f.next_fetch_at, f.next_fetch_reason.as_str()),
        (t(30), "resumed by an operator")
    );
    let due = store.due_feeds(t(30), 10).await.unwrap();
    assert_eq!(due.iter().map(|f| f.id).collect::<Vec<_>>(), [id]);

    assert!(
        !store.resume_feed(id, t(40), "again").await.unwrap(),
        "an active feed"
    );
    assert!(
        !store
            .resume_feed(FeedId(id.0 + 99), t(40), "ghost")
            .await
            .unwrap()
    );
}

pub async fn an_operators_patch_pauses_resumes_and_sets_overrides(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let patch = |paused: Option<bool>| FeedPatch {
        paused,
        reason: "by hand".to_owned(),
        held_by: None,
        egress: None,
        overrides: None,
        reschedule: None,
        at: t(100),
    };
    let f = store
        .patch_feed(id, &patch(Some(true)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (f.state, f.state_reason.as_deref()),
        (FeedState::Paused, Some("by hand"))
    );
    assert!(store.due_feeds(t(1_000_000), 10).await.unwrap().is_empty());

    let f = store
        .patch_feed(
            id,
            &FeedPatch {
                egress: Some(Some("192.0.2.7".to_owned())),
                overrides: Some(FeedOverrides {
                    interval_secs: Some(7200),
                }),
                ..patch(Some(false))
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (f.state, f.state_reason.as_deref()),
        (FeedState::Active, None)
    );
    assert_eq!(
        (f.next_fetch_at, f.next_fetch_reason.as_str()),
        (t(100), "by hand")
    );
    assert_eq!(f.egress.as_deref(), Some("192.0.2.7"));
    assert_eq!(f.overrides.interval_secs, Some(7200));
    let again = store.feed(id).await.unwrap().unwrap();
    assert_eq!(again, f, "what patch_feed returns is what is stored");

    // Rescheduling touches an active feed; clearing goes back to the defaults.
    let f = store
        .patch_feed(
            id,
            &FeedPatch {
                egress: Some(None),
                overrides: Some(FeedOverrides::default()),
                reschedule: Some((t(9000), "interval 2h".to_owned())),
                ..patch(None)
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (f.next_fetch_at, f.egress, f.overrides),
        (t(9000), None, FeedOverrides::default())
    );

    // A removed feed stays removed.
    store.remove_feed(id).await.unwrap();
    let f = store
        .patch_feed(id, &patch(Some(false)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(f.state, FeedState::Removed);
    let f = store
        .patch_feed(id, &patch(Some(true)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(f.state, FeedState::Removed);
    assert!(
        store
            .patch_feed(FeedId(id.0 + 99), &patch(Some(true)))
            .await
            .unwrap()
            .is_none()
    );
}

/// The due queue's depth is what `due_feeds` would return without a limit, and every state
/// is counted (for `/metrics`).
pub async fn due_and_state_counts_match_the_feeds(store: Arc<dyn Store>) {
    let zero = [
        (FeedState::Active, 0),
        (FeedState::Paused, 0),
        (FeedState::Off, 0),
        (FeedState::Removed, 0),
    ];
    assert_eq!(store.count_feeds_by_state().await.unwrap(), zero);
    assert_eq!(store.count_due(t(1_000_000)).await.unwrap(), 0);
    let mut ids = Vec::new();
    for name in ["soon", "later", "paused", "off", "orphan", "removed"] {
        ids.push(feed(&store, &format!("https://{name}.example/feed")).await);
    }
    let [soon, later, paused, off, orphan, removed] = ids[..] else {
        unreachable!()
    };
    for (id, next, state) in [
        (soon, t(300), FeedState::Active),
        (later, t(900), FeedState::Active),
        (paused, t(50), FeedState::Paused),
        (off, t(60), FeedState::Off),
        (orphan, t(10), FeedState::Active),
    ] {
        let mut r = outcome(id, t(0), "ok", Some(200));
        r.update.next_fetch_at = next;
        r.update.state = state;
        store.apply_fetch(r).await.unwrap();
    }
    store.unsubscribe(orphan, "alice").await.unwrap();
    assert!(store.remove_feed(removed).await.unwrap());

    for (now, want) in [
        (t(0), 0),
        (t(299), 0),
        (t(300), 1),
        (t(900), 2),
        (t(99_999), 2),
    ] {
        assert_eq!(store.count_due(now).await.unwrap(), want, "at {now}");
        let listed = store.due_feeds(now, 100).await.unwrap().len();
        assert_eq!(u64::try_from(listed).unwrap(), want, "due_feeds at {now}");
    }
    assert_eq!(
        store.count_feeds_by_state().await.unwrap(),
        [
            (FeedState::Active, 3),
            (FeedState::Paused, 1),
            (FeedState::Off, 1),
            (FeedState::Removed, 1),
        ]
    );
}

pub async fn wfm8_the_egress_refusal_record_is_stored_and_kept_when_not_given(
    store: Arc<dyn Store>,
) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let record: std::collections::BTreeMap<String, bool> = [
        ("default".to_owned(), true),
        ("192.0.2.7".to_owned(), false),
    ]
    .into_iter()
    .collect();
    let mut refused = outcome(id, t(10), "refused", Some(403));
    refused.update.egress_refusals = Some(record.clone());
    store.apply_fetch(refused).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().egress_refusals,
        record
    );
    // A read that records nothing (no answer) keeps it.
    store
        .apply_fetch(outcome(id, t(20), "no_answer", None))
        .await
        .unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().egress_refusals,
        record
    );
}

/// PF5: the failure record (the last kind and the totals per kind) is stored as decided and
/// read back as it was; an operator's resume clears it.
pub async fn pf5_the_failure_record_is_stored_as_decided_and_a_resume_clears_it(
    store: Arc<dyn Store>,
) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let fresh = store.feed(id).await.unwrap().unwrap();
    assert_eq!(fresh.last_failure, None);
    assert!(fresh.failure_totals.is_empty());
    let totals = FailureTotals::default()
        .counted(FailureKind::NotFound)
        .counted(FailureKind::NotFound)
        .counted(FailureKind::Forbidden);
    let mut missing = outcome(id, t(10), "not_found", Some(404));
    missing.update.last_failure = Some(FailureKind::NotFound);
    missing.update.failure_totals = totals;
    missing.update.state = FeedState::Paused;
    store.apply_fetch(missing).await.unwrap();
    let stored = store.feed(id).await.unwrap().unwrap();
    assert_eq!(stored.last_failure, Some(FailureKind::NotFound));
    assert_eq!(stored.failure_totals, totals);
    // A success keeps the totals the policy handed on.
    let mut good = outcome(id, t(20), "ok", Some(200));
    good.update.failure_totals = totals;
    good.update.state = FeedState::Paused;
    store.apply_fetch(good).await.unwrap();
    let stored = store.feed(id).await.unwrap().unwrap();
    assert_eq!((stored.last_failure, stored.failure_totals), (None, totals));
    assert!(store.resume_feed(id, t(30), "resumed").await.unwrap());
    let resumed = store.feed(id).await.unwrap().unwrap();
    assert!(resumed.failure_totals.is_empty());
    assert_eq!(resumed.last_failure, None);
}

/// FF13: a feed held by a do-not-crawl rule names the rule in its own column, apart from any
/// other pause; a read that ends held stores it; a resume clears it.
pub async fn ff13_a_hold_names_its_rule_until_a_resume(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let rule = "do-not-crawl: host example.org (FF13)";
    let held = store
        .patch_feed(id, &FeedPatch::held(rule, format!("blocked: {rule}"), t(5)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (held.state, held.held_by.as_deref()),
        (FeedState::Paused, Some(rule))
    );
    assert!(store.resume_feed(id, t(10), "resumed").await.unwrap());
    assert_eq!(store.feed(id).await.unwrap().unwrap().held_by, None);
    // An ordinary pause names no rule.
    let paused = store
        .patch_feed(id, &FeedPatch::paused(true, "by hand", t(15)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(paused.held_by, None);
    // A read that ends held stores the rule; the next read that is not held clears it.
    let mut read = outcome(id, t(20), "blocked", None);
    read.update.state = FeedState::Paused;
    read.update.held_by = Some(rule.to_owned());
    store.apply_fetch(read).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().held_by.as_deref(),
        Some(rule)
    );
    store
        .apply_fetch(outcome(id, t(30), "ok", Some(200)))
        .await
        .unwrap();
    assert_eq!(store.feed(id).await.unwrap().unwrap().held_by, None);
}

/// A pass over everything due, page after page: each due feed once, in order, whatever the
/// page size, and a feed read meanwhile (now due later) is not met again.
pub async fn due_feeds_after_pages_through_everything_due_once(store: Arc<dyn Store>) {
    let now = t(1000);
    let mut ids = Vec::new();
    for (i, next) in [30, 10, 20, 20, 40].into_iter().enumerate() {
        let id = feed(&store, &format!("https://h{i}.example/feed")).await;
        let mut r = outcome(id, t(0), "ok", Some(200));
        r.update.next_fetch_at = t(next);
        store.apply_fetch(r).await.unwrap();
        ids.push(id);
    }
    let order = vec![ids[1], ids[2], ids[3], ids[0], ids[4]];
    let all = store.due_feeds(now, 10).await.unwrap();
    assert_eq!(all.iter().map(|f| f.id).collect::<Vec<_>>(), order);
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store.due_feeds_after(now, after, 2).await.unwrap();
        if let Some(last) = page.last() {
            after = Some((last.next_fetch_at, last.id));
        }
        seen.extend(page.iter().map(|f| f.id));
        if page.len() < 2 {
            break;
        }
        if seen.len() == 2 {
            // The first feed of the pass is read: due later now.
            let mut r = outcome(ids[1], t(1), "ok", Some(200));
            r.update.next_fetch_at = now + Duration::seconds(60);
            store.apply_fetch(r).await.unwrap();
        }
    }
    assert_eq!(seen, order);
}

/// FF14: a feed's directives are stored as a read moved them, each change kept in its
/// history with what brought it, and a read that moved nothing keeps them; a feed under
/// `noindex` keeps its entries out of search (and only out of search).
pub async fn ff14_directives_are_kept_with_their_history_and_noindex_leaves_search(
    store: Arc<dyn Store>,
) {
    use tidings_rights::Directives;
    use tidings_rights::directive::Change;
    let id = feed(&store, "https://example.org/feed.xml").await;
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().directives,
        Directives::NONE
    );
    let noindex = Directives::parse_list("noindex");
    let both = Directives::parse_list("noindex, nosnippet");
    let mut first = ok(id, t(10), vec![entry("a", "Harbour", "boats and gulls")]);
    first.update.directives = Some(Change {
        seen: noindex,
        current: noindex,
        full: true,
    });
    store.apply_fetch(first).await.unwrap();
    assert_eq!(store.feed(id).await.unwrap().unwrap().directives, noindex);
    let search = |words: &str| EntryQuery {
        search: Some(words.to_owned()),
        ..EntryQuery::default()
    };
    assert!(
        store.entries(&search("gulls")).await.unwrap().is_empty(),
        "noindex: not searched"
    );
    assert_eq!(
        store.entries(&EntryQuery::default()).await.unwrap().len(),
        1,
        "still listed"
    );
    // A 304 that adds a restriction.
    let mut added = not_modified(id, t(20));
    added.update.directives = Some(Change {
        seen: Directives::parse_list("nosnippet"),
        current: both,
        full: false,
    });
    store.apply_fetch(added).await.unwrap();
    // A read that moves nothing keeps them.
    store.apply_fetch(not_modified(id, t(30))).await.unwrap();
    assert_eq!(store.feed(id).await.unwrap().unwrap().directives, both);
    // A full response without any clears them, and search finds the entry again.
    let mut cleared = ok(id, t(40), vec![entry("a", "Harbour", "boats and gulls")]);
    cleared.update.directives = Some(Change {
        seen: Directives::NONE,
        current: Directives::NONE,
        full: true,
    });
    store.apply_fetch(cleared).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().directives,
        Directives::NONE
    );
    assert_eq!(store.entries(&search("gulls")).await.unwrap().len(), 1);
    let history: Vec<(i64, String, String, bool)> = store
        .directive_history(id, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r.at.timestamp(),
                r.seen.to_words(),
                r.current.to_words(),
                r.full,
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            (t(40).timestamp(), String::new(), String::new(), true),
            (
                t(20).timestamp(),
                "nosnippet".into(),
                "noindex, nosnippet".into(),
                false
            ),
            (t(10).timestamp(), "noindex".into(), "noindex".into(), true),
        ]
    );
    assert_eq!(store.directive_history(id, 1).await.unwrap().len(), 1);
}

/// FF7: a feed's selected thumbnail is stored with its decision by a full read, kept by a
/// read without a body, and cleared by a full read that selects none.
pub async fn ff7_a_feeds_thumbnail_is_stored_and_decided_again_on_each_full_read(
    store: Arc<dyn Store>,
) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    let image = tidings_model::SelectedImage {
        url: "https://example.org/logo.png".into(),
        source: "image".into(),
        licence: Some("https://creativecommons.org/licenses/by/4.0/".into()),
        shown: true,
        why: "CC BY 4.0 declared by the feed".into(),
        ..Default::default()
    };
    let mut read = ok(id, t(10), Vec::new());
    if let Some(meta) = read.update.meta.as_mut() {
        meta.thumbnail = Some(image.clone());
    }
    store.apply_fetch(read).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().thumbnail,
        Some(image.clone())
    );
    store.apply_fetch(not_modified(id, t(20))).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().thumbnail,
        Some(image)
    );
    store.apply_fetch(ok(id, t(30), Vec::new())).await.unwrap();
    assert_eq!(store.feed(id).await.unwrap().unwrap().thumbnail, None);
}

/// A reader's "read now" moves an active feed's next read earlier, and nothing else: not
/// later, not while a failure is pending, not once another read has happened.
pub async fn read_sooner_only_moves_a_quiet_feeds_next_read_earlier(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed.xml").await;
    store.apply_fetch(ok(id, t(10), Vec::new())).await.unwrap();
    let next = |store: Arc<dyn Store>| async move {
        let f = store.feed(id).await.unwrap().unwrap();
        (f.next_fetch_at, f.next_fetch_reason)
    };
    let (scheduled, _) = next(store.clone()).await;
    assert_eq!(scheduled, t(10) + Duration::hours(1));
    let sooner = |at, after_read| tidings_store::Sooner {
        at,
        reason: "asked".to_owned(),
        after_read,
    };
    // Another read happened since the request was decided: nothing moves.
    assert!(
        !store
            .read_sooner(id, &sooner(t(20), Some(t(5))))
            .await
            .unwrap()
    );
    assert!(!store.read_sooner(id, &sooner(t(20), None)).await.unwrap());
    // Not later than scheduled.
    let later = scheduled + Duration::minutes(1);
    assert!(
        !store
            .read_sooner(id, &sooner(later, Some(t(10))))
            .await
            .unwrap()
    );
    assert_eq!(next(store.clone()).await.0, scheduled);
    // Earlier, after the same read: moved, with its reason.
    assert!(
        store
            .read_sooner(id, &sooner(t(20), Some(t(10))))
            .await
            .unwrap()
    );
    assert_eq!(next(store.clone()).await, (t(20), "asked".to_owned()));
    // A failure pending: its backoff stands.
    let mut failed = outcome(id, t(30), "server_error", Some(500));
    failed.update.consecutive_failures = 1;
    failed.update.next_fetch_at = t(30) + Duration::hours(2);
    store.apply_fetch(failed).await.unwrap();
    assert!(
        !store
            .read_sooner(id, &sooner(t(40), Some(t(30))))
            .await
            .unwrap()
    );
    assert_eq!(next(store.clone()).await.0, t(30) + Duration::hours(2));
    // A paused feed stays paused.
    let other = feed(&store, "https://example.org/other.xml").await;
    let mut pause = FeedPatch::at(t(1));
    pause.paused = Some(true);
    store.patch_feed(other, &pause).await.unwrap();
    assert!(
        !store
            .read_sooner(other, &sooner(t(-10), None))
            .await
            .unwrap()
    );
}
