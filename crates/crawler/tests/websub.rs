//! What the WebSub callback decides, against a real store: which verifications are ours,
//! what a denial leaves, and which pushes are stored (`tidings_crawler::websub`). The whole
//! exchange with a hub over HTTP is `tests/cli_websub.rs`.

use chrono::{Duration, TimeZone, Utc};
use std::sync::Arc;
use tidings_crawler::websub::{Pushed, Verification, Verified, accept_push, verify_intent};
use tidings_model::{FeedId, FeedUrl, SubscriptionState};
use tidings_policy::Profile;
use tidings_store::{NewFeed, SqliteStore, Store, WebSubRecord};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const TOPIC: &str = "https://example.org/feed";

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap()
}

async fn store_with_subscription(dir: &tempfile::TempDir) -> (Arc<dyn Store>, FeedId) {
    let path = dir.path().join("t.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(path.to_str().unwrap()).await.unwrap());
    let feed = store
        .subscribe(
            &FeedUrl::parse(TOPIC).unwrap(),
            "alice",
            now(),
            &NewFeed {
                next_fetch_at: now(),
                next_fetch_reason: "first add".into(),
                interval_secs: 3600,
            },
        )
        .await
        .unwrap()
        .feed_id;
    store
        .save_websub(
            &WebSubRecord {
                feed_id: feed,
                token: TOKEN.into(),
                hub: "https://hub.example/".into(),
                topic: TOPIC.into(),
                secret: "secret".into(),
                state: SubscriptionState::Requested,
                requested_at: now(),
                lease_until: None,
                reason: None,
                pushes: 0,
                last_push_at: None,
            },
            &[],
        )
        .await
        .unwrap();
    (store, feed)
}

fn asked(mode: &str, topic: Option<&str>, challenge: Option<&str>) -> Verification {
    Verification {
        mode: mode.into(),
        topic: topic.map(str::to_owned),
        challenge: challenge.map(str::to_owned),
        lease_seconds: Some(7_200),
        reason: None,
    }
}

fn rss(items: &[&str]) -> Vec<u8> {
    let items: String = items
        .iter()
        .map(|id| format!("<item><guid>{id}</guid><title>{id}</title></item>"))
        .collect();
    format!("<rss version=\"2.0\"><channel><title>T</title>{items}</channel></rss>").into_bytes()
}

fn signed(body: &[u8]) -> String {
    format!("sha256={}", tidings_sim::hub::sign("secret", body))
}

#[tokio::test]
async fn websub_only_our_own_subscription_is_confirmed_and_a_denial_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (store, feed) = store_with_subscription(&dir).await;
    let profile = Profile::embedded("default").unwrap();
    let verify = |token: &'static str, v: Verification| {
        let store = store.clone();
        let profile = profile.clone();
        async move {
            verify_intent(store.as_ref(), &profile, token, &v, now())
                .await
                .unwrap()
        }
    };
    let other = "ffffffffffffffffffffffffffffffff";
    let cases = [
        (
            TOKEN,
            asked("subscribe", Some("https://other.example/"), Some("c")),
            Verified::NotOurs,
        ),
        (
            TOKEN,
            asked("subscribe", Some(TOPIC), None),
            Verified::NotOurs,
        ),
        (
            TOKEN,
            asked("subscribe", Some(TOPIC), Some("")),
            Verified::NotOurs,
        ),
        (
            TOKEN,
            asked("unsubscribe", Some(TOPIC), Some("c")),
            Verified::NotOurs,
        ),
        (
            other,
            asked("subscribe", Some(TOPIC), Some("c")),
            Verified::NotOurs,
        ),
    ];
    for (token, v, want) in cases {
        assert_eq!(verify(token, v.clone()).await, want, "{v:?}");
    }
    assert_eq!(
        store.websub(feed).await.unwrap().unwrap().state,
        SubscriptionState::Requested,
        "nothing above changed the subscription"
    );

    let ok = verify(TOKEN, asked("subscribe", Some(TOPIC), Some("c-1"))).await;
    assert_eq!(ok, Verified::Echo("c-1".into()));
    let live = store.websub(feed).await.unwrap().unwrap();
    assert_eq!(live.state, SubscriptionState::Live);
    assert_eq!(live.lease_until, Some(now() + Duration::seconds(7_200)));

    let mut denial = asked("denied", Some(TOPIC), None);
    denial.reason = Some("not on this hub".into());
    assert_eq!(verify(TOKEN, denial).await, Verified::Noted);
    let denied = store.websub(feed).await.unwrap().unwrap();
    assert_eq!(denied.state, SubscriptionState::Denied);
    assert_eq!(denied.lease_until, None);
    assert_eq!(denied.reason.as_deref(), Some("not on this hub"));
}

#[tokio::test]
async fn websub_a_push_is_stored_only_when_live_signed_a_feed_and_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let (store, feed) = store_with_subscription(&dir).await;
    let mut profile = Profile::embedded("default").unwrap();
    profile.entries.max_new_per_day = 3;
    profile.websub.max_push_bytes = 2_000;
    let push = |body: Vec<u8>, signature: Option<String>| {
        let store = store.clone();
        let profile = profile.clone();
        async move {
            accept_push(
                store.as_ref(),
                &profile,
                TOKEN,
                signature.as_deref(),
                Some("application/rss+xml"),
                body,
                now(),
            )
            .await
            .unwrap()
        }
    };
    let body = rss(&["a"]);
    // Not verified yet: the hub is told to stop.
    assert_eq!(push(body.clone(), Some(signed(&body))).await, Pushed::Gone);
    verify_intent(
        store.as_ref(),
        &profile,
        TOKEN,
        &asked("subscribe", Some(TOPIC), Some("c")),
        now(),
    )
    .await
    .unwrap();

    assert_eq!(
        push(body.clone(), Some(signed(&body))).await,
        Pushed::Stored { new: 1, updated: 0 }
    );
    assert!(matches!(push(body.clone(), None).await, Pushed::Ignored(_)));
    let html = b"<html><body>not a feed</body></html>".to_vec();
    assert!(matches!(
        push(html.clone(), Some(signed(&html))).await,
        Pushed::Ignored(_)
    ));
    // C8: three new entries a day at most; one is stored, three more would pass it.
    let many = rss(&["b", "c", "d"]);
    match push(many.clone(), Some(signed(&many))).await {
        Pushed::Ignored(why) => assert!(why.contains("max_new_per_day"), "{why}"),
        other => panic!("{other:?}"),
    }
    let huge = vec![b' '; 2_001];
    assert_eq!(
        push(huge.clone(), Some(signed(&huge))).await,
        Pushed::TooLarge
    );
    let stored = store.websub(feed).await.unwrap().unwrap();
    assert_eq!(stored.pushes, 1);

    // A feed nobody subscribes to any more is not pushed to: the hub is told it is gone.
    store.unsubscribe(feed, "alice").await.unwrap();
    assert_eq!(push(body.clone(), Some(signed(&body))).await, Pushed::Gone);

    // A feed removed on request takes its subscription with it.
    store.remove_feed(feed).await.unwrap();
    assert_eq!(push(body.clone(), Some(signed(&body))).await, Pushed::Gone);
}
