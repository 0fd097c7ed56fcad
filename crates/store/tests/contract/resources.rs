//! The page queue: article pages read once for their entries' previews (SR1), a site's icon
//! candidates asked one at a time (SR7), each resource's memory of its failures (SR4, SR6),
//! and the icons kept per site.

use crate::support::{entry, feed, ok, t};
use std::sync::Arc;
use tidings_model::{Label, RequestPurpose, SelectedImage};
use tidings_store::{
    NewPage, QueueState, RequestLogRow, ResourceApply, ResourceFound, ResourceRead, Store,
};

fn page(key: &str, url: &str) -> NewPage {
    NewPage {
        entry_key: key.into(),
        url: url.into(),
    }
}

fn done(id: i64, at: i64, found: ResourceFound) -> ResourceApply {
    ResourceApply {
        id,
        at: t(at),
        state: QueueState::Done,
        due_at: None,
        reason: "read".into(),
        retries: 0,
        read: Some(ResourceRead {
            status: Some(200),
            outcome: Label::Ok,
            error: None,
        }),
        found,
        next_candidate_at: None,
        log: Vec::new(),
        host_floor: None,
        fence: None,
    }
}

fn preview(url: &str) -> SelectedImage {
    SelectedImage {
        url: url.into(),
        source: "og:image".into(),
        shown: true,
        why: "SR1: the article page's og:image".into(),
        ..SelectedImage::default()
    }
}

/// SR1: a page is queued once however many entries (of however many feeds) link it; its
/// preview, once read, serves each of them; an entry linked once stays linked.
pub async fn sr1_an_article_page_is_queued_once_and_its_preview_serves_every_entry(
    store: Arc<dyn Store>,
) {
    let a = feed(&store, "https://a.example/feed.xml").await;
    let b = feed(&store, "https://b.example/feed.xml").await;
    store
        .apply_fetch(ok(
            a,
            t(1),
            vec![entry("a1", "A1", ""), entry("a2", "A2", "")],
        ))
        .await
        .unwrap();
    store
        .apply_fetch(ok(b, t(1), vec![entry("b1", "B1", "")]))
        .await
        .unwrap();
    let new = store
        .queue_pages(
            a,
            &[
                page("a1", "https://site.example/post"),
                page("a2", "https://site.example/other"),
            ],
            t(2),
            "preview of a new entry (SR1)",
        )
        .await
        .unwrap();
    assert_eq!(new, 2);
    let again = store
        .queue_pages(b, &[page("b1", "https://site.example/post")], t(3), "x")
        .await
        .unwrap();
    assert_eq!(again, 0, "the page is queued already");
    assert!(store.due_resources(t(1), 10).await.unwrap().is_empty());
    let due = store.due_resources(t(5), 10).await.unwrap();
    assert_eq!(due.len(), 2);
    assert_eq!(due[0].purpose, RequestPurpose::ArticlePage);
    assert_eq!(due[0].state, QueueState::Due);
    assert_eq!(due[0].feed_id, Some(a));
    assert_eq!(due[0].reason, "preview of a new entry (SR1)");
    let post = due
        .iter()
        .find(|r| r.url == "https://site.example/post")
        .unwrap();
    // FF6: what is recorded of the page travels with it; never its text.
    let record = tidings_rights::PageRecord {
        title: Some("A post".into()),
        description: Some("What the post says, in short.".into()),
        language: Some("en".into()),
        licences: vec!["https://creativecommons.org/licenses/by/4.0/".into()],
        terms: vec!["https://site.example/terms".into()],
        directives: tidings_rights::Directives::parse_list("nosnippet"),
        tdm_reservation: Some("1".into()),
        truncated: true,
    };
    store
        .apply_resource(&done(
            post.id,
            6,
            ResourceFound::Page {
                preview: Some(preview("https://site.example/p.jpg")),
                record: Box::new(record.clone()),
            },
        ))
        .await
        .unwrap();
    let entries = crate::support::all_entries(&store).await;
    let preview_of = |key: &str| {
        entries
            .iter()
            .find(|e| e.entry.identity == key)
            .unwrap()
            .preview
            .as_ref()
            .map(|p| p.url.clone())
    };
    assert_eq!(
        preview_of("a1").as_deref(),
        Some("https://site.example/p.jpg")
    );
    assert_eq!(
        preview_of("b1").as_deref(),
        Some("https://site.example/p.jpg")
    );
    assert_eq!(preview_of("a2"), None, "its page is not read yet");
    let page_of = |key: &str| {
        entries
            .iter()
            .find(|e| e.entry.identity == key)
            .unwrap()
            .page
            .clone()
    };
    assert_eq!(page_of("a1").as_ref(), Some(&record));
    assert_eq!(
        page_of("b1").as_ref(),
        Some(&record),
        "one page, both entries"
    );
    assert_eq!(page_of("a2"), None);
    let due = store.due_resources(t(100), 10).await.unwrap();
    assert_eq!(due.len(), 1, "a page read is never due again");
    let listed = store
        .resources(Some(RequestPurpose::ArticlePage), 10)
        .await
        .unwrap();
    let read = listed.iter().find(|r| r.id == post.id).unwrap();
    assert_eq!(read.state, QueueState::Done);
    assert_eq!(read.read_at, Some(t(6)));
    assert_eq!(read.last_outcome, Some(Label::Ok));
    assert_eq!(
        read.preview.as_ref().map(|p| p.source.as_str()),
        Some("og:image")
    );
    assert_eq!(read.page.as_ref(), Some(&record));
}

/// SR4, SR6: a failure is remembered on its row (held until a time, its retries counted)
/// with its request-log row and the host's floor (C6); a set-aside changes no read facts.
pub async fn sr4_sr6_a_resources_failure_is_remembered_with_its_log_and_floor(
    store: Arc<dyn Store>,
) {
    let a = feed(&store, "https://a.example/feed.xml").await;
    store
        .apply_fetch(ok(a, t(1), vec![entry("a1", "A1", "")]))
        .await
        .unwrap();
    store
        .queue_pages(a, &[page("a1", "https://a.example/post")], t(2), "x")
        .await
        .unwrap();
    let id = store.due_resources(t(2), 1).await.unwrap()[0].id;
    let log = RequestLogRow {
        at: t(3),
        feed_id: Some(a),
        host: "https://a.example:443".into(),
        purpose: "article_page".into(),
        url: "https://a.example/post".into(),
        egress: None,
        status: Some(503),
        outcome: Label::ServerError,
        bytes: 0,
        duration_ms: 12,
        rule: "preview of entry; robots: 404, everything allowed".into(),
        ticket: None,
    };
    store
        .apply_resource(&ResourceApply {
            state: QueueState::Due,
            due_at: Some(t(33)),
            reason: "SR6 503: retry 1 of 3 in 30s".into(),
            retries: 1,
            read: Some(ResourceRead {
                status: Some(503),
                outcome: Label::ServerError,
                error: Some("http 503".into()),
            }),
            log: vec![log.clone()],
            host_floor: Some(("https://a.example:443".into(), t(600))),
            ..done(id, 3, ResourceFound::Nothing)
        })
        .await
        .unwrap();
    assert!(store.due_resources(t(32), 5).await.unwrap().is_empty());
    assert_eq!(store.next_resource_due(t(3)).await.unwrap(), Some(t(33)));
    let due = store.due_resources(t(33), 5).await.unwrap();
    assert_eq!(due[0].retries, 1);
    assert_eq!(due[0].last_status, Some(503));
    assert_eq!(due[0].last_error.as_deref(), Some("http 503"));
    assert_eq!(
        store.host_floor("https://a.example:443").await.unwrap(),
        Some(t(600))
    );
    let logged = store
        .request_log(&tidings_store::LogQuery {
            host: None,
            feed: Some(a),
            limit: 10,
        })
        .await
        .unwrap();
    assert!(logged.contains(&log), "{logged:?}");
    // Set aside (nothing sent): the row waits, its last read's facts stay.
    store
        .apply_resource(&ResourceApply {
            state: QueueState::Held,
            due_at: Some(t(700)),
            reason: "C6: host Retry-After".into(),
            retries: 1,
            read: None,
            ..done(id, 40, ResourceFound::Nothing)
        })
        .await
        .unwrap();
    let row = store.resources(None, 5).await.unwrap();
    assert_eq!(row[0].state, QueueState::Held);
    assert_eq!(row[0].due_at, Some(t(700)));
    assert_eq!(row[0].read_at, Some(t(3)));
    assert_eq!(row[0].last_status, Some(503));
}

/// SR1, SR7: a site's icon candidates are asked one at a time in order; a candidate that
/// fails for good makes the next one due; the icon found is kept for the site, and every
/// feed of the site shares it; a second feed of the site queues nothing more.
pub async fn sr7_a_sites_icon_candidates_are_asked_one_at_a_time_and_the_icon_is_kept(
    store: Arc<dyn Store>,
) {
    let a = feed(&store, "https://site.example/a.xml").await;
    let b = feed(&store, "https://site.example/b.xml").await;
    let candidates = vec![
        "https://site.example/favicon.ico".to_string(),
        "https://site.example/apple-touch-icon.png".to_string(),
    ];
    let site = "https://site.example:443";
    assert!(
        store
            .queue_icons(a, site, &candidates, true, t(1), "icon of a new site")
            .await
            .unwrap()
    );
    assert!(
        !store
            .queue_icons(b, site, &candidates, false, t(2), "icon")
            .await
            .unwrap(),
        "one site, one set of candidates"
    );
    let due = store.due_resources(t(10), 10).await.unwrap();
    assert_eq!(due.len(), 1, "one candidate at a time");
    assert_eq!(due[0].url, "https://site.example/favicon.ico");
    assert!(due[0].first_add);
    assert_eq!(due[0].site.as_deref(), Some(site));
    // The first fails for good: remembered, and the next is due a day later.
    store
        .apply_resource(&ResourceApply {
            state: QueueState::Held,
            due_at: Some(t(30 * 86_400)),
            reason: "SR4 not_found: remembered".into(),
            next_candidate_at: Some(t(86_400)),
            read: Some(ResourceRead {
                status: Some(404),
                outcome: Label::NotFound,
                error: Some("404 not found".into()),
            }),
            ..done(due[0].id, 10, ResourceFound::Nothing)
        })
        .await
        .unwrap();
    assert!(store.due_resources(t(86_399), 10).await.unwrap().is_empty());
    let due = store.due_resources(t(86_400), 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].url, "https://site.example/apple-touch-icon.png");
    assert!(!due[0].first_add);
    assert_eq!(store.icon(site).await.unwrap(), None);
    store
        .apply_resource(&ResourceApply {
            due_at: Some(t(31 * 86_400)),
            ..done(
                due[0].id,
                86_400,
                ResourceFound::Icon {
                    site: site.into(),
                    media_type: "image/png".into(),
                    body: vec![0x89, b'P', b'N', b'G', 0, 255],
                },
            )
        })
        .await
        .unwrap();
    let icon = store.icon(site).await.unwrap().unwrap();
    assert_eq!(icon.url, "https://site.example/apple-touch-icon.png");
    assert_eq!(icon.media_type, "image/png");
    assert_eq!(icon.body, vec![0x89, b'P', b'N', b'G', 0, 255]);
    assert_eq!(icon.fetched_at, t(86_400));
    for id in [a, b] {
        assert_eq!(
            store.feed(id).await.unwrap().unwrap().site.as_deref(),
            Some(site)
        );
    }
}

/// WFM10: a feed removed on request asks for nothing more: its queued resources are never
/// due.
pub async fn wfm10_a_removed_feeds_resources_are_never_due(store: Arc<dyn Store>) {
    let a = feed(&store, "https://a.example/feed.xml").await;
    store
        .apply_fetch(ok(a, t(1), vec![entry("a1", "A1", "")]))
        .await
        .unwrap();
    store
        .queue_pages(a, &[page("a1", "https://a.example/post")], t(2), "x")
        .await
        .unwrap();
    assert_eq!(store.due_resources(t(2), 5).await.unwrap().len(), 1);
    store.remove_feed(a).await.unwrap();
    assert!(store.due_resources(t(2), 5).await.unwrap().is_empty());
    assert_eq!(store.next_resource_due(t(0)).await.unwrap(), None);
}

/// FF9: a permitted thumbnail is queued once and kept as one copy per URL; a copy served is
/// marked used; unused copies expire, then the least recently used go until the total fits,
/// each drop counted and its queue row gone, so a later read may queue it again.
pub async fn ff9_the_image_cache_keeps_one_copy_per_url_within_its_bounds(store: Arc<dyn Store>) {
    let a = feed(&store, "https://a.example/feed.xml").await;
    let urls: Vec<String> = ["one", "two", "three"]
        .iter()
        .map(|n| format!("https://img.example/{n}.png"))
        .collect();
    assert_eq!(
        store
            .queue_images(a, &urls, t(1), "thumbnail (FF9)")
            .await
            .unwrap(),
        3
    );
    assert_eq!(
        store
            .queue_images(a, &urls[..1], t(1), "again")
            .await
            .unwrap(),
        0,
        "one row per URL"
    );
    let due = store.due_resources(t(1), 10).await.unwrap();
    assert_eq!(due.len(), 3);
    assert!(due.iter().all(|r| r.purpose == RequestPurpose::Image));
    for (i, job) in due.iter().enumerate() {
        let body = vec![b'x'; 100 * (i + 1)];
        store
            .apply_resource(&done(
                job.id,
                10 + i64::try_from(i).unwrap(),
                ResourceFound::Image {
                    media_type: "image/png".into(),
                    body,
                },
            ))
            .await
            .unwrap();
    }
    let stats = store.image_cache_stats().await.unwrap();
    assert_eq!((stats.copies, stats.bytes), (3, 600));
    let mut cached = store.cached_images(&urls).await.unwrap();
    cached.sort();
    let mut want = urls.clone();
    want.sort();
    assert_eq!(cached, want);
    assert!(
        store
            .cached_images(&["https://img.example/none.png".to_owned()])
            .await
            .unwrap()
            .is_empty()
    );
    // A cached URL is not queued again.
    assert_eq!(
        store.queue_images(a, &urls, t(20), "again").await.unwrap(),
        0
    );

    // Serving the first marks it used long after the others.
    let one = store.image(&urls[0], t(100_000)).await.unwrap().unwrap();
    assert_eq!(one.body.len(), 100);
    assert_eq!(one.media_type, "image/png");
    assert_eq!(one.used_at, t(100_000));
    assert!(
        store
            .image("https://img.example/none.png", t(1))
            .await
            .unwrap()
            .is_none()
    );

    // Nothing is unused before t(5) and 600 bytes fit: nothing goes.
    let bounds = |unused_before, max_total_bytes| tidings_store::ImageBounds {
        unused_before: t(unused_before),
        max_total_bytes,
    };
    assert_eq!(store.prune_images(bounds(5, 600)).await.unwrap(), (0, 0));
    // Over the total: the least recently used go first ("two" at t(11), then "three" at t(12)).
    assert_eq!(store.prune_images(bounds(5, 400)).await.unwrap(), (0, 1));
    assert_eq!(
        store.cached_images(&urls).await.unwrap().len(),
        2,
        "{:?}",
        store.cached_images(&urls).await.unwrap()
    );
    assert!(store.image(&urls[1], t(100_001)).await.unwrap().is_none());
    // Unused since before t(1_000): "three" expires, "one" (served) stays.
    assert_eq!(
        store.prune_images(bounds(1_000, 400)).await.unwrap(),
        (1, 0)
    );
    assert_eq!(
        store.cached_images(&urls).await.unwrap(),
        vec![urls[0].clone()]
    );
    let stats = store.image_cache_stats().await.unwrap();
    assert_eq!(
        (stats.copies, stats.bytes, stats.expired, stats.over_total),
        (1, 100, 1, 1)
    );
    // The dropped copies' rows are gone: a later read queues them again.
    assert_eq!(
        store
            .queue_images(a, &urls, t(200_000), "again")
            .await
            .unwrap(),
        2
    );
}

/// The reader asks which of its feeds' sites have an icon kept.
pub async fn sr1_the_sites_with_an_icon_kept_are_known(store: Arc<dyn Store>) {
    let a = feed(&store, "https://a.example/feed.xml").await;
    let site = "https://a.example".to_owned();
    store
        .queue_icons(
            a,
            &site,
            &[format!("{site}/favicon.ico")],
            true,
            t(1),
            "icon",
        )
        .await
        .unwrap();
    let sites = [site.clone(), "https://b.example".to_owned()];
    assert!(store.sites_with_icons(&sites).await.unwrap().is_empty());
    let id = store.due_resources(t(1), 1).await.unwrap()[0].id;
    store
        .apply_resource(&done(
            id,
            2,
            ResourceFound::Icon {
                site: site.clone(),
                media_type: "image/x-icon".into(),
                body: vec![0, 0, 1, 0],
            },
        ))
        .await
        .unwrap();
    assert_eq!(store.sites_with_icons(&sites).await.unwrap(), vec![site]);
}

/// C3: a resource read made under a host lease another holder has claimed since writes only
/// what it sent (its log rows, C7, and its host floor, C6), never over the resource as the new
/// holder left it; one under the lease still held is written whole.
pub async fn c3_a_resource_read_under_a_lost_lease_keeps_only_its_log(store: Arc<dyn Store>) {
    use tidings_store::{Fence, HostClaim, LogQuery};
    let a = feed(&store, "https://a.example/feed.xml").await;
    store
        .apply_fetch(ok(a, t(1), vec![entry("a1", "A1", "")]))
        .await
        .unwrap();
    store
        .queue_pages(a, &[page("a1", "https://a.example/post")], t(2), "x")
        .await
        .unwrap();
    let id = store.due_resources(t(2), 1).await.unwrap()[0].id;
    let token = |claim: HostClaim| match claim {
        HostClaim::Held(lease) => lease.token,
        HostClaim::Busy { until } => panic!("busy until {until}"),
    };
    let fence = |token| {
        Some(Fence {
            host: "a.example".to_owned(),
            token,
        })
    };
    let first = token(
        store
            .claim_host("a.example", "p1", t(2), t(62))
            .await
            .unwrap(),
    );
    // p1 is paused past its lease; p2 claims the host and reads the page.
    let second = token(
        store
            .claim_host("a.example", "p2", t(70), t(130))
            .await
            .unwrap(),
    );
    let current = store
        .apply_resource(&ResourceApply {
            fence: fence(second),
            ..done(id, 75, ResourceFound::Nothing)
        })
        .await
        .unwrap();
    assert!(!current.fenced_out);
    // p1, resumed, writes the 503 it got before: only its request and floor are kept.
    let log = RequestLogRow {
        at: t(60),
        feed_id: Some(a),
        host: "https://a.example:443".into(),
        purpose: "article_page".into(),
        url: "https://a.example/post".into(),
        egress: None,
        status: Some(503),
        outcome: Label::ServerError,
        bytes: 0,
        duration_ms: 12,
        rule: "preview of entry; robots: 404, everything allowed".into(),
        ticket: None,
    };
    let stale = store
        .apply_resource(&ResourceApply {
            state: QueueState::Due,
            due_at: Some(t(100)),
            reason: "stale".into(),
            retries: 1,
            read: Some(ResourceRead {
                status: Some(503),
                outcome: Label::ServerError,
                error: Some("http 503".into()),
            }),
            log: vec![log.clone()],
            host_floor: Some(("https://a.example:443".into(), t(600))),
            fence: fence(first),
            ..done(id, 80, ResourceFound::Nothing)
        })
        .await
        .unwrap();
    assert!(stale.fenced_out);
    let kept = &store.resources(None, 10).await.unwrap()[0];
    assert_eq!(
        (
            kept.state,
            kept.reason.as_str(),
            kept.retries,
            kept.last_status
        ),
        (QueueState::Done, "read", 0, Some(200)),
        "as p2 left it"
    );
    assert!(store.due_resources(t(1000), 5).await.unwrap().is_empty());
    assert_eq!(
        store.host_floor("https://a.example:443").await.unwrap(),
        Some(t(600))
    );
    let logged = store
        .request_log(&LogQuery {
            feed: Some(a),
            ..LogQuery::default()
        })
        .await
        .unwrap();
    assert!(logged.contains(&log), "{logged:?}");
}
