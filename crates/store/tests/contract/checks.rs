//! What discovery checked (FF2): one row per check, the latest read for the cooldown, a
//! recheck kept beside the earlier result, held matches listed for review (FF3), and only
//! identity, disposition and decision kept (FF17).

use crate::support::{entry, feed, ok, t};
use std::sync::Arc;
use tidings_model::{CheckSource, Disposition, Entry, Label};
use tidings_store::{CheckApply, EntryOverlap, RequestLogRow, Store, UrlCheck};

fn check(url: &str, at: i64, disposition: Disposition, reason: &str) -> UrlCheck {
    UrlCheck {
        url: url.into(),
        at: t(at),
        disposition,
        reason: reason.into(),
        feed_id: None,
        source: CheckSource::CommonPath,
        found_on: Some("https://site.example/".into()),
    }
}

fn apply(check: UrlCheck) -> CheckApply {
    CheckApply {
        check,
        log: Vec::new(),
        host_floor: None,
    }
}

/// FF2: the latest check of each URL asked for, the earlier ones kept; a URL never checked is
/// simply absent.
pub async fn ff2_a_recheck_adds_a_result_and_keeps_the_earlier_one(store: Arc<dyn Store>) {
    let page = "https://site.example/about";
    let feed_url = "https://site.example/feed";
    store
        .apply_check(&apply(check(
            page,
            0,
            Disposition::NotAFeed,
            "an HTML page",
        )))
        .await
        .unwrap();
    store
        .apply_check(&apply(check(feed_url, 5, Disposition::Failed, "503")))
        .await
        .unwrap();
    let recheck = store
        .apply_check(&apply(check(feed_url, 3_600, Disposition::Feed, "parsed")))
        .await
        .unwrap();
    let last = store
        .last_checks(&[
            feed_url.to_string(),
            page.to_string(),
            "https://never.example/".to_string(),
        ])
        .await
        .unwrap();
    let seen: Vec<(&str, Disposition, i64)> = last
        .iter()
        .map(|c| {
            (
                c.check.url.as_str(),
                c.check.disposition,
                (c.check.at - t(0)).num_seconds(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (page, Disposition::NotAFeed, 0),
            (feed_url, Disposition::Feed, 3_600),
        ]
    );
    assert_eq!(last[1].id, recheck);
    let history = store.url_checks(feed_url, 10).await.unwrap();
    let reasons: Vec<&str> = history.iter().map(|c| c.check.reason.as_str()).collect();
    assert_eq!(reasons, ["parsed", "503"], "newest first, nothing deleted");
    assert_eq!(history[1].check.source, CheckSource::CommonPath);
    assert_eq!(
        history[1].check.found_on.as_deref(),
        Some("https://site.example/")
    );
    assert!(store.last_checks(&[]).await.unwrap().is_empty());
}

/// FF3: a URL whose latest check is held is listed for review, oldest first, with the feed it
/// may be; once decided (a later check), it is not.
pub async fn ff3_held_matches_wait_for_review_until_decided(store: Arc<dyn Store>) {
    let known = feed(&store, "https://a.example/feed").await;
    for (url, at) in [
        ("https://b.example/rss", 10),
        ("https://c.example/atom", 20),
    ] {
        store
            .apply_check(&apply(UrlCheck {
                feed_id: Some(known),
                ..check(
                    url,
                    at,
                    Disposition::Held,
                    "FF3: 10 of 20 entry ids in common",
                )
            }))
            .await
            .unwrap();
    }
    let held = store.held_checks(10).await.unwrap();
    let urls: Vec<&str> = held.iter().map(|c| c.check.url.as_str()).collect();
    assert_eq!(urls, ["https://b.example/rss", "https://c.example/atom"]);
    assert_eq!(held[0].check.feed_id, Some(known));
    assert_eq!(
        store.url_check(held[1].id).await.unwrap().as_ref(),
        Some(&held[1])
    );
    assert_eq!(store.url_check(held[1].id + 1000).await.unwrap(), None);
    store
        .apply_check(&apply(UrlCheck {
            feed_id: Some(known),
            ..check(
                "https://b.example/rss",
                30,
                Disposition::Duplicate,
                "operator: accepted as a duplicate",
            )
        }))
        .await
        .unwrap();
    let held = store.held_checks(10).await.unwrap();
    let urls: Vec<&str> = held.iter().map(|c| c.check.url.as_str()).collect();
    assert_eq!(urls, ["https://c.example/atom"]);
    assert_eq!(store.held_checks(1).await.unwrap().len(), 1);
}

/// C7, C6: a check's requests are logged and its host's Retry-After kept, with the check.
pub async fn c7_a_checks_requests_are_logged_with_it(store: Arc<dyn Store>) {
    let host = "https://slow.example:443";
    let row = RequestLogRow {
        at: t(100),
        feed_id: None,
        host: host.into(),
        purpose: "discovery".into(),
        url: "https://slow.example/feed".into(),
        egress: None,
        status: Some(503),
        outcome: Label::ServerError,
        bytes: 0,
        duration_ms: 12,
        rule: "FF1: common path of https://slow.example/".into(),
        ticket: None,
    };
    store
        .apply_check(&CheckApply {
            check: check(
                "https://slow.example/feed",
                100,
                Disposition::Failed,
                "http 503",
            ),
            log: vec![row.clone()],
            host_floor: Some((host.into(), t(700))),
        })
        .await
        .unwrap();
    let log = store
        .request_log(&tidings_store::LogQuery {
            host: Some(host.into()),
            feed: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert_eq!(log, [row]);
    assert_eq!(store.host_floor(host).await.unwrap(), Some(t(700)));
}

/// FF3: the evidence a found feed is matched on: which stored feeds last served the same body,
/// and which have its entry ids, how many and of how many.
pub async fn ff3_stored_feeds_are_found_by_body_and_by_entry_ids(store: Arc<dyn Store>) {
    let a = feed(&store, "https://a.example/feed").await;
    let b = feed(&store, "https://b.example/feed").await;
    let _empty = feed(&store, "https://c.example/feed").await;
    let ids = |prefix: &str, n: usize| -> Vec<Entry> {
        (0..n)
            .map(|i| entry(&format!("{prefix}{i}"), "t", "s"))
            .collect()
    };
    let mut record = ok(a, t(10), ids("x", 5));
    record.update.content_hash = Some("same-body".into());
    store.apply_fetch(record).await.unwrap();
    let mut entries = ids("x", 2);
    entries.extend(ids("y", 3));
    store.apply_fetch(ok(b, t(20), entries)).await.unwrap();
    assert_eq!(
        store.feeds_with_content_hash("same-body").await.unwrap(),
        [a]
    );
    assert!(
        store
            .feeds_with_content_hash("other")
            .await
            .unwrap()
            .is_empty()
    );
    let wanted: Vec<String> = (0..4).map(|i| format!("x{i}")).collect();
    let overlap = store.entry_overlap(&wanted, 10).await.unwrap();
    assert_eq!(
        overlap,
        [
            EntryOverlap {
                feed: a,
                shared: 4,
                entries: 5
            },
            EntryOverlap {
                feed: b,
                shared: 2,
                entries: 5
            },
        ]
    );
    assert_eq!(store.entry_overlap(&wanted, 1).await.unwrap().len(), 1);
    assert!(store.entry_overlap(&[], 10).await.unwrap().is_empty());
}

/// FF1: a feed row made for a URL that was an HTML page is deleted once nobody holds it, and
/// only then; a feed with entries, a subscriber, or removed on request (WFM10) stays.
pub async fn ff1_a_page_subscribed_by_mistake_is_discarded_once_nobody_holds_it(
    store: Arc<dyn Store>,
) {
    let page = feed(&store, "https://site.example/").await;
    assert!(!store.discard_feed(page).await.unwrap(), "alice holds it");
    assert!(store.unsubscribe(page, "alice").await.unwrap());
    assert!(store.discard_feed(page).await.unwrap());
    assert!(store.feed(page).await.unwrap().is_none());
    assert!(!store.discard_feed(page).await.unwrap(), "gone already");

    let read = feed(&store, "https://site.example/feed").await;
    store
        .apply_fetch(ok(read, t(10), vec![entry("e1", "t", "s")]))
        .await
        .unwrap();
    store.unsubscribe(read, "alice").await.unwrap();
    assert!(!store.discard_feed(read).await.unwrap(), "it holds entries");

    let removed = feed(&store, "https://gone.example/feed").await;
    store.remove_feed(removed).await.unwrap();
    assert!(
        !store.discard_feed(removed).await.unwrap(),
        "WFM10 remembers it"
    );
    assert!(store.feed(removed).await.unwrap().is_some());
}

/// FF18: search query definitions are kept (each provider and query once), listed, marked with
/// what their last run did, and removed.
pub async fn ff18_search_queries_are_kept_as_a_discovery_source(store: Arc<dyn Store>) {
    let (first, new) = store
        .add_search_query("websearch", "football club news rss", t(0))
        .await
        .unwrap();
    assert!(new);
    assert_eq!(first.provider, "websearch");
    assert_eq!(first.last_run_at, None);
    let (again, new) = store
        .add_search_query("websearch", "football club news rss", t(5))
        .await
        .unwrap();
    assert!(!new);
    assert_eq!(again, first);
    let (other, _) = store
        .add_search_query("archive", "football club news rss", t(10))
        .await
        .unwrap();
    store
        .search_query_ran(first.id, t(60), "12 results, 3 feeds found")
        .await
        .unwrap();
    let all = store.search_queries().await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].last_run_at, Some(t(60)));
    assert_eq!(
        all[0].last_result.as_deref(),
        Some("12 results, 3 feeds found")
    );
    assert_eq!(all[1], other);
    assert!(store.remove_search_query(first.id).await.unwrap());
    assert!(!store.remove_search_query(first.id).await.unwrap());
    assert_eq!(store.search_queries().await.unwrap(), [other]);
}
