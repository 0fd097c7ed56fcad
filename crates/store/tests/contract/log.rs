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
        ticket: None,
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

/// A reader holding a host's robots.txt copy is told when the stored copy is still that one,
/// without its text, and is given any other copy whole.
pub async fn a_held_robots_copy_is_not_read_again(store: Arc<dyn Store>) {
    use tidings_store::{HeldRobots, RobotsCache};
    let host = "https://held.example:443";
    let text = "User-agent: *\nDisallow: /private\n".to_owned();
    let holding = |at: i64, status: Option<i32>| {
        let store = Arc::clone(&store);
        async move {
            store
                .host_state_holding(host, t(at), status)
                .await
                .unwrap()
                .robots
        }
    };
    assert_eq!(holding(10, Some(200)).await, HeldRobots::Never);
    let first = RobotsCache {
        fetched_at: t(10),
        status: Some(200),
        body: Some(text.clone()),
    };
    store.save_robots(host, &first, &[]).await.unwrap();
    assert_eq!(holding(10, Some(200)).await, HeldRobots::Held);
    // Another time or another status is another copy, given whole.
    assert_eq!(
        holding(9, Some(200)).await,
        HeldRobots::Stored(first.clone())
    );
    assert_eq!(
        holding(10, Some(404)).await,
        HeldRobots::Stored(first.clone())
    );
    assert_eq!(holding(10, None).await, HeldRobots::Stored(first.clone()));
    // The floor comes with it, as host_state gives it.
    let floor = store.host_state(host).await.unwrap().floor;
    assert_eq!(
        store
            .host_state_holding(host, t(10), Some(200))
            .await
            .unwrap()
            .floor,
        floor
    );
    // A copy with no answer is held by its time and its missing status.
    let silent = RobotsCache {
        fetched_at: t(20),
        status: None,
        body: None,
    };
    store.save_robots(host, &silent, &[]).await.unwrap();
    assert_eq!(holding(20, None).await, HeldRobots::Held);
    assert_eq!(holding(10, Some(200)).await, HeldRobots::Stored(silent));
    // host_state still gives the text of the copy.
    let newest = RobotsCache {
        fetched_at: t(30),
        status: Some(200),
        body: Some(text),
    };
    store.save_robots(host, &newest, &[]).await.unwrap();
    assert_eq!(store.robots(host).await.unwrap(), Some(newest));
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

/// C7: a request's row is written before it is sent. Until its answer is stored the log shows
/// it as `in_flight` (no status, bytes or duration), by host and by feed like any row; the
/// request's own row closes it in the same write (a fetch's, a robots.txt copy's, a
/// discovery check's alike); a row never closed (its process stopped) stays in the log until
/// the retention removes it (FF17); the row of a request not sent after all is withdrawn.
pub async fn c7_a_request_is_logged_before_it_is_sent_and_closed_by_its_answer(
    store: Arc<dyn Store>,
) {
    let one = feed(&store, "https://one.example/feed").await;
    let mut ahead = outcome(one, t(100), "ok", Some(200)).log.remove(0);
    let host = ahead.host.clone();
    assert_eq!(host, "https://example.org:443");
    ahead.outcome = tidings_model::Label::InFlight;
    ahead.status = None;
    ahead.bytes = 0;
    ahead.duration_ms = 0;
    ahead.rule = "due: interval 1h; robots: 404, everything allowed".to_owned();
    ahead.egress = Some("192.0.2.9".to_owned());
    let ticket = store.open_request(&ahead).await.unwrap();
    let by_feed = LogQuery {
        feed: Some(one),
        ..Default::default()
    };
    let open = store.request_log(&by_feed).await.unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0], ahead, "shown as written, in flight");
    let by_host = LogQuery {
        host: Some("example.org".to_owned()),
        ..Default::default()
    };
    assert_eq!(store.request_log(&by_host).await.unwrap(), open);

    // Its answer, stored: one row for the request, the one written ahead gone.
    let mut answered = outcome(one, t(100), "ok", Some(200));
    answered.log[0].ticket = Some(ticket);
    answered.log[0].bytes = 512;
    store.apply_fetch(answered).await.unwrap();
    let rows = store.request_log(&by_feed).await.unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0].outcome, tidings_model::Label::Ok);
    assert_eq!(rows[0].bytes, 512);

    // robots.txt closes its own.
    let mut robots = ahead.clone();
    robots.feed_id = None;
    robots.purpose = "robots".to_owned();
    robots.url = format!("{host}/robots.txt");
    robots.at = t(200);
    let robots_ticket = store.open_request(&robots).await.unwrap();
    assert_ne!(robots_ticket, ticket);
    assert_eq!(
        store.request_log(&by_host).await.unwrap()[0].outcome,
        tidings_model::Label::InFlight
    );
    let copy = tidings_store::RobotsCache {
        fetched_at: t(201),
        status: Some(404),
        body: None,
    };
    let done = tidings_store::RequestLogRow {
        outcome: tidings_model::Label::NotFound,
        status: Some(404),
        ticket: Some(robots_ticket),
        ..robots.clone()
    };
    store.save_robots(&host, &copy, &[done]).await.unwrap();
    let labels: Vec<_> = store
        .request_log(&by_host)
        .await
        .unwrap()
        .iter()
        .map(|r| r.outcome)
        .collect();
    assert_eq!(
        labels,
        [tidings_model::Label::NotFound, tidings_model::Label::Ok]
    );

    // A request whose process stopped: its row stays, newest first among the others, and
    // limits count it.
    let mut orphan = ahead.clone();
    orphan.at = t(300);
    store.open_request(&orphan).await.unwrap();
    let newest = store
        .request_log(&LogQuery {
            limit: 1,
            ..by_host.clone()
        })
        .await
        .unwrap();
    assert_eq!(
        newest,
        [orphan.clone()],
        "the host's last request, for the gate"
    );
    let all = store.request_log(&LogQuery::default()).await.unwrap();
    assert_eq!(all.len(), 3);
    assert!(all.windows(2).all(|w| w[0].at >= w[1].at), "newest first");

    // A request not sent after all (its lease was lost while its row was written): its
    // row is withdrawn and the log is as before.
    let mut unsent = ahead.clone();
    unsent.at = t(350);
    let unsent_ticket = store.open_request(&unsent).await.unwrap();
    assert_eq!(
        store.request_log(&LogQuery::default()).await.unwrap().len(),
        4
    );
    store.withdraw_request(unsent_ticket).await.unwrap();
    assert_eq!(store.request_log(&LogQuery::default()).await.unwrap(), all);

    // FF17: the retention takes written-ahead rows with the others.
    assert_eq!(store.prune_request_log(t(250)).await.unwrap(), 2);
    assert_eq!(
        store.request_log(&LogQuery::default()).await.unwrap(),
        [orphan]
    );
    assert_eq!(store.prune_request_log(t(400)).await.unwrap(), 1);
    assert!(
        store
            .request_log(&LogQuery::default())
            .await
            .unwrap()
            .is_empty()
    );
}
