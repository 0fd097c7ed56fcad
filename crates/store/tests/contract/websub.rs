//! WebSub subscriptions: one per feed, found by its callback's token, and pushed entries that
//! join the feed's entries without touching its schedule or validators.

use crate::support::{all_entries, entry, feed, ok, t};
use std::sync::Arc;
use tidings_model::{FeedId, SubscriptionState};
use tidings_store::{PushRecord, Store, StoreError, WebSubRecord};

fn requested(feed: FeedId, token: &str, at: i64) -> WebSubRecord {
    WebSubRecord {
        feed_id: feed,
        token: token.to_owned(),
        hub: "https://hub.example/".to_owned(),
        topic: "https://example.org/feed".to_owned(),
        secret: "s3cret".to_owned(),
        state: SubscriptionState::Requested,
        requested_at: t(at),
        lease_until: None,
        reason: None,
        pushes: 0,
        last_push_at: None,
    }
}

/// A subscription is saved, found by feed and by token, and replaced whole by the next save;
/// pushes are counted by the store; it goes with its feed.
pub async fn websub_a_subscription_is_kept_per_feed_and_found_by_its_token(store: Arc<dyn Store>) {
    let a = feed(&store, "https://example.org/feed").await;
    assert_eq!(store.websub(a).await.unwrap(), None);
    store
        .save_websub(&requested(a, "tok-a", 10), &[])
        .await
        .unwrap();
    let saved = store.websub(a).await.unwrap().expect("saved");
    assert_eq!(saved, requested(a, "tok-a", 10));
    assert_eq!(store.websub_by_token("tok-a").await.unwrap(), Some(saved));
    assert_eq!(store.websub_by_token("tok-b").await.unwrap(), None);

    let mut live = requested(a, "tok-a", 10);
    live.state = SubscriptionState::Live;
    live.lease_until = Some(t(864_010));
    store.save_websub(&live, &[]).await.unwrap();
    store
        .apply_push(PushRecord {
            feed_id: a,
            received_at: t(20),
            entries: vec![entry("p1", "Pushed", "one")],
        })
        .await
        .unwrap();
    let after = store.websub_by_token("tok-a").await.unwrap().unwrap();
    assert_eq!(after.state, SubscriptionState::Live);
    assert_eq!(after.lease_until, Some(t(864_010)));
    assert_eq!((after.pushes, after.last_push_at), (1, Some(t(20))));
    // A later save (a renewal) keeps the count.
    store.save_websub(&live, &[]).await.unwrap();
    assert_eq!(store.websub(a).await.unwrap().unwrap().pushes, 1);
    // The secret is never in the record's Debug.
    assert!(!format!("{after:?}").contains("s3cret"));

    assert!(store.remove_feed(a).await.unwrap());
    assert_eq!(store.websub_by_token("tok-a").await.unwrap(), None);
}

/// Pushed entries are stored like a read's (new, then changed, then unchanged), and the
/// feed's schedule, validators and last outcome stay as the last read left them.
pub async fn websub_pushed_entries_join_the_feed_and_leave_its_schedule(store: Arc<dyn Store>) {
    let a = feed(&store, "https://example.org/feed").await;
    store
        .apply_fetch(ok(a, t(0), vec![entry("e1", "One", "first")]))
        .await
        .unwrap();
    let before = store.feed(a).await.unwrap().unwrap();
    let push = |at: i64, entries| PushRecord {
        feed_id: a,
        received_at: t(at),
        entries,
    };
    let first = store
        .apply_push(push(
            60,
            vec![entry("e1", "One", "first"), entry("e2", "Two", "second")],
        ))
        .await
        .unwrap();
    assert_eq!(
        (
            first.new_entries,
            first.updated_entries,
            first.unchanged_entries
        ),
        (1, 0, 1)
    );
    let second = store
        .apply_push(push(120, vec![entry("e2", "Two", "second, corrected")]))
        .await
        .unwrap();
    assert_eq!((second.new_entries, second.updated_entries), (0, 1));
    let titles: Vec<String> = all_entries(&store)
        .await
        .into_iter()
        .filter_map(|e| e.entry.title)
        .collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    let after = store.feed(a).await.unwrap().unwrap();
    assert_eq!(after.next_fetch_at, before.next_fetch_at);
    assert_eq!(after.validators, before.validators);
    assert_eq!(after.last_outcome, before.last_outcome);

    let gone = store
        .apply_push(PushRecord {
            feed_id: FeedId(a.0 + 1000),
            received_at: t(180),
            entries: vec![entry("x", "X", "x")],
        })
        .await;
    assert!(matches!(gone, Err(StoreError::NoSuchFeed(_))), "{gone:?}");
}
