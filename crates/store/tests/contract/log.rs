//! The request log (C7): every request, newest first, filtered by host or feed.

use crate::support::{feed, outcome, t};
use std::sync::Arc;
use tidings_store::{LogQuery, Store};

pub async fn request_log_filters_and_orders_newest_first(store: Arc<dyn Store>) {
    let one = feed(&store, "https://one.example/feed").await;
    let two = feed(&store, "http://two.example:8080/feed").await;
    for (i, (id, host)) in [
        (one, "https://one.example:443"),
        (two, "http://two.example:8080"),
        (one, "https://one.example:443"),
        (two, "http://two.example:8080"),
        (one, "https://one.example:443"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut r = outcome(id, t(60 * i as i64), "ok", Some(200));
        r.log[0].host = host.to_owned();
        r.log[0].egress = (i == 4).then(|| "192.0.2.7".to_owned());
        r.log[0].bytes = i as i64;
        store.apply_fetch(r).await.unwrap();
    }

    let all = store.request_log(&LogQuery::default()).await.unwrap();
    let bytes: Vec<i64> = all.iter().map(|r| r.bytes).collect();
    assert_eq!(bytes, vec![4, 3, 2, 1, 0], "newest first");
    assert_eq!(all[0].egress.as_deref(), Some("192.0.2.7"));
    assert_eq!(all[0].at, t(240));

    let by_host = LogQuery {
        host: Some("http://two.example:8080".to_owned()),
        ..Default::default()
    };
    let got: Vec<i64> = store
        .request_log(&by_host)
        .await
        .unwrap()
        .iter()
        .map(|r| r.bytes)
        .collect();
    assert_eq!(got, vec![3, 1]);

    let by_feed = LogQuery {
        feed: Some(one),
        limit: 2,
        ..Default::default()
    };
    let got = store.request_log(&by_feed).await.unwrap();
    assert_eq!(got.iter().map(|r| r.bytes).collect::<Vec<_>>(), vec![4, 2]);
    assert!(got.iter().all(|r| r.feed_id == Some(one)));

    let nowhere = LogQuery {
        host: Some("https://nowhere.example:443".to_owned()),
        ..Default::default()
    };
    assert!(store.request_log(&nowhere).await.unwrap().is_empty());

    // A bare host name matches its keys on every scheme and port; LIKE's own characters in it
    // are plain characters.
    let bytes_for = |host: &str| {
        let q = LogQuery {
            host: Some(host.to_owned()),
            ..Default::default()
        };
        let store = store.clone();
        async move {
            let rows = store.request_log(&q).await.unwrap();
            rows.iter().map(|r| r.bytes).collect::<Vec<_>>()
        }
    };
    assert_eq!(bytes_for("TWO.example.").await, vec![3, 1]);
    assert_eq!(bytes_for("one.example").await, vec![4, 2, 0]);
    assert!(bytes_for("%").await.is_empty());
    assert!(bytes_for("_ne.example").await.is_empty());
    assert!(bytes_for("example").await.is_empty());
}

/// A host's robots.txt is cached with its status and body, replaced by the next fetch, and the
/// fetch itself is in the request log (C7).
pub async fn robots_cache_round_trips_and_logs_its_fetch(store: Arc<dyn Store>) {
    let host = "https://robots.example:443";
    assert_eq!(store.robots(host).await.unwrap(), None);
    let row = |at: i64, status: Option<i32>| tidings_store::RequestLogRow {
        at: t(at),
        feed_id: None,
        host: host.to_owned(),
        purpose: "robots".to_owned(),
        url: format!("{host}/robots.txt"),
        egress: None,
        status,
        outcome: tidings_model::Label::Ok,
        bytes: 20,
        duration_ms: 3,
        rule: "robots.txt before the first request".to_owned(),
    };
    let first = tidings_store::RobotsCache {
        fetched_at: t(10),
        status: Some(200),
        body: Some("User-agent: *\nDisallow: /private\n".to_owned()),
    };
    store
        .save_robots(host, &first, &[row(10, Some(200))])
        .await
        .unwrap();
    assert_eq!(store.robots(host).await.unwrap(), Some(first));
    let again = tidings_store::RobotsCache {
        fetched_at: t(20),
        status: None,
        body: None,
    };
    store
        .save_robots(host, &again, &[row(20, None)])
        .await
        .unwrap();
    assert_eq!(store.robots(host).await.unwrap(), Some(again));
    let logged = store
        .request_log(&LogQuery {
            host: Some(host.to_owned()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(logged.len(), 2);
    assert!(
        logged
            .iter()
            .all(|r| r.purpose == "robots" && r.feed_id.is_none())
    );
}

/// FF17: the request log keeps its own retention period: rows older than the cut are deleted,
/// the newer ones and everything else stay, and the host's last request is still found.
pub async fn ff17_the_request_log_is_pruned_by_its_retention_period(store: Arc<dyn Store>) {
    let one = feed(&store, "https://one.example/feed").await;
    for i in 0..5 {
        let mut r = outcome(one, t(100 * i), "ok", Some(200));
        r.log[0].bytes = i;
        store.apply_fetch(r).await.unwrap();
    }
    assert_eq!(store.prune_request_log(t(250)).await.unwrap(), 3);
    let left: Vec<i64> = store
        .request_log(&LogQuery::default())
        .await
        .unwrap()
        .iter()
        .map(|r| r.bytes)
        .collect();
    assert_eq!(left, [4, 3]);
    assert_eq!(store.prune_request_log(t(250)).await.unwrap(), 0);
    assert!(store.feed(one).await.unwrap().is_some(), "the feed stays");
    assert_eq!(store.prune_request_log(t(10_000)).await.unwrap(), 2);
    assert!(
        store
            .request_log(&LogQuery::default())
            .await
            .unwrap()
            .is_empty()
    );
}
