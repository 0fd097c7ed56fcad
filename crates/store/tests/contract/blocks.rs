//! Do-not-crawl rules (FF13) and feeds removed on request (WFM10).

use crate::support::{feed, ok, subscribe, t, url};
use std::sync::Arc;
use tidings_model::FeedId;
use tidings_store::{FeedState, NewBlock, Store, StoreError};

fn rule(kind: &str, value: &str, reason: Option<&str>) -> NewBlock {
    NewBlock {
        kind: kind.into(),
        value: value.into(),
        reason: reason.map(Into::into),
        created_at: t(1),
    }
}

/// FF13: rules are added once per kind and value, listed by id, and removed by kind and value.
pub async fn ff13_blocks_are_added_once_listed_and_removed(store: Arc<dyn Store>) {
    assert!(store.blocks().await.unwrap().is_empty());
    let host = store
        .add_block(&rule("host", "example.com", Some("publisher asked")))
        .await
        .unwrap();
    assert!(host.new);
    assert_eq!(host.block.kind, "host");
    assert_eq!(host.block.value, "example.com");
    assert_eq!(host.block.reason.as_deref(), Some("publisher asked"));
    assert_eq!(host.block.created_at, t(1));

    let again = store
        .add_block(&rule("host", "example.com", Some("another reason")))
        .await
        .unwrap();
    assert!(!again.new, "the same kind and value is one rule");
    assert_eq!(again.block, host.block, "the first rule and reason stay");

    let domain = store
        .add_block(&rule("domain", "example.com", None))
        .await
        .unwrap();
    assert!(
        domain.new,
        "the same value under another kind is another rule"
    );
    let listed = store.blocks().await.unwrap();
    assert_eq!(listed, vec![host.block.clone(), domain.block.clone()]);

    assert!(store.remove_block("host", "example.com").await.unwrap());
    assert!(!store.remove_block("host", "example.com").await.unwrap());
    assert!(!store.remove_block("url", "example.com").await.unwrap());
    assert_eq!(store.blocks().await.unwrap(), vec![domain.block]);
    assert!(
        store
            .add_block(&rule("site", "example.com", None))
            .await
            .is_err(),
        "the schema knows the six kinds"
    );
}

/// WFM10: a removed feed loses its subscribers at once, is never due again, is not brought
/// back by a read that was in flight, and cannot be subscribed to again (by either URL).
pub async fn c10_wfm10_a_removed_feed_is_never_due_and_cannot_come_back(store: Arc<dyn Store>) {
    let id = feed(&store, "http://old.example/feed").await;
    subscribe(&store, "http://old.example/feed", "bob", t(0)).await;
    let kept = feed(&store, "https://kept.example/feed").await;
    let mut moved = ok(id, t(5), vec![crate::support::entry("a", "A", "")]);
    moved.update.url = Some(url("https://new.example/feed"));
    store.apply_fetch(moved).await.unwrap();

    assert!(store.remove_feed(id).await.unwrap());
    assert!(
        store.remove_feed(id).await.unwrap(),
        "removing twice is harmless"
    );
    assert!(!store.remove_feed(FeedId(id.0 + 1000)).await.unwrap());
    let f = store.feed(id).await.unwrap().unwrap();
    assert_eq!(f.state, FeedState::Removed);
    assert_eq!(f.subscribers, 0);
    assert!(f.state_reason.as_deref().unwrap_or("").contains("WFM10"));
    assert_eq!(
        store.count_entries(Some(id)).await.unwrap(),
        1,
        "entries stay"
    );
    let due: Vec<FeedId> = store
        .due_feeds(t(1_000_000), 10)
        .await
        .unwrap()
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(due, vec![kept]);

    // A read that was in flight when the feed was removed does not make it active again.
    store.apply_fetch(ok(id, t(20), Vec::new())).await.unwrap();
    assert_eq!(
        store.feed(id).await.unwrap().unwrap().state,
        FeedState::Removed
    );

    for u in ["http://old.example/feed", "https://new.example/feed"] {
        match store
            .subscribe(&url(u), "carol", t(30), &crate::support::new_feed(t(30)))
            .await
        {
            Err(StoreError::FeedRemoved(named)) => assert_eq!(named, u),
            other => panic!("re-subscribing {u} to a removed feed gave {other:?}"),
        }
    }
    assert_eq!(store.feed(id).await.unwrap().unwrap().subscribers, 0);
    assert_eq!(store.feeds().await.unwrap().len(), 2);
}

/// FF13: every change of the rules moves their version, seen at once through the same store;
/// a duplicate add changes nothing.
pub async fn ff13_the_rules_version_moves_with_every_change(store: Arc<dyn Store>) {
    let start = store.blocks_version().await.unwrap();
    store
        .add_block(&rule("host", "a.example", None))
        .await
        .unwrap();
    let added = store.blocks_version().await.unwrap();
    assert!(added > start, "{start} -> {added}");
    store
        .add_block(&rule("host", "a.example", None))
        .await
        .unwrap();
    assert_eq!(
        store.blocks_version().await.unwrap(),
        added,
        "a duplicate is no change"
    );
    assert!(store.remove_block("host", "a.example").await.unwrap());
    let removed = store.blocks_version().await.unwrap();
    assert!(removed > added, "{added} -> {removed}");
    assert!(!store.remove_block("host", "a.example").await.unwrap());
    assert_eq!(store.blocks_version().await.unwrap(), removed);
}
