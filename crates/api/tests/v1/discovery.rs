//! FF3 through the API: the feeds discovery holds as perhaps stored ones, listed for an admin
//! key and decided as a duplicate, a feed of its own, or rejected; each decision a new check
//! beside the held one (FF2).

use crate::auth::{call, is_problem, key};
use crate::support::{Server, t};
use tidings_api::auth::Role;
use tidings_model::{CheckSource, Disposition, FeedId};
use tidings_store::{CheckApply, UrlCheck};

async fn hold(server: &Server, url: &str, feed: FeedId) -> i64 {
    server
        .store
        .apply_check(&CheckApply {
            check: UrlCheck {
                url: url.into(),
                at: t(0),
                disposition: Disposition::Held,
                reason: "FF3: 10 of 20 entry ids in common with feed 1".into(),
                feed_id: Some(feed),
                source: CheckSource::Alternate,
                found_on: Some("https://mirror.example/".into()),
            },
            log: Vec::new(),
            host_floor: None,
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn ff3_held_matches_are_listed_and_decided_by_an_admin() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let first = hold(&server, "https://mirror.example/feed.xml", feed).await;
    let second = hold(&server, "https://copy.example/rss", feed).await;

    is_problem(
        &call(&server, "GET", "/v1/discovery/held", Some(&reader), None).await,
        403,
        "forbidden",
    );
    let (status, _, listed) = call(&server, "GET", "/v1/discovery/held", Some(&admin), None).await;
    assert_eq!(status, 200, "{listed}");
    let held = listed["held"].as_array().unwrap();
    assert_eq!(held.len(), 2);
    assert_eq!(held[0]["id"], first);
    assert_eq!(held[0]["disposition"], "held");
    assert_eq!(held[0]["feed_id"], feed.0);
    assert_eq!(held[0]["source"], "alternate");

    let path = format!("/v1/discovery/held/{first}");
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&admin),
            Some(r#"{"decision": "maybe"}"#),
        )
        .await,
        400,
        "invalid-parameter",
    );
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/discovery/held/0",
            Some(&admin),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        400,
        "invalid-parameter",
    );
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/discovery/held/99999",
            Some(&admin),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        404,
        "not-found",
    );
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&reader),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        403,
        "forbidden",
    );
    let (status, _, decided) = call(
        &server,
        "POST",
        &path,
        Some(&admin),
        Some(r#"{"decision": "duplicate"}"#),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["disposition"], "duplicate");
    assert_eq!(decided["feed_id"], feed.0);
    assert!(
        decided["reason"]
            .as_str()
            .unwrap()
            .contains("accepted by key"),
        "{decided}"
    );
    // Decided once: not again.
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&admin),
            Some(r#"{"decision": "reject"}"#),
        )
        .await,
        422,
        "refused",
    );
    let (_, _, listed) = call(&server, "GET", "/v1/discovery/held", Some(&admin), None).await;
    let ids: Vec<i64> = listed["held"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [second]);
    let history = server
        .store
        .url_checks("https://mirror.example/feed.xml", 10)
        .await
        .unwrap();
    assert_eq!(history.len(), 2, "the held check stays beside the decision");
}

/// FF1, FF4: an admin puts a discovery job or a spider run in the page queue; the API only
/// stores it (202, with where to follow it) and the crawl works it. A reader key may not;
/// a URL the address guard refuses, a rule covers, or a budget past the ceilings is refused
/// with the reason and nothing queued.
#[tokio::test]
async fn ff4_jobs_are_queued_for_the_crawl_and_followed() {
    let server = Server::with_profile("ffbot").await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let find = r#"{"url": "https://example.org/", "kind": "discover"}"#;
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/discovery/jobs",
            Some(&reader),
            Some(find),
        )
        .await,
        403,
        "forbidden",
    );
    let (status, head, job) = call(
        &server,
        "POST",
        "/v1/discovery/jobs",
        Some(&admin),
        Some(find),
    )
    .await;
    assert_eq!(status, 202, "{job}");
    assert_eq!(job["kind"], "discover");
    assert_eq!(job["state"], "queued");
    assert_eq!(job["limits"], serde_json::Value::Null);
    let id = job["id"].as_i64().unwrap();
    assert_eq!(
        crate::support::header(&head, "location").as_deref(),
        Some(format!("/v1/discovery/jobs/{id}").as_str())
    );
    let spider = r#"{"url": "https://example.org/blog/", "kind": "spider", "depth": 1,
        "max_requests": 50, "linked_sites": true}"#;
    let (status, _, run) = call(
        &server,
        "POST",
        "/v1/discovery/jobs",
        Some(&admin),
        Some(spider),
    )
    .await;
    assert_eq!(status, 202, "{run}");
    let limits = &run["limits"];
    assert_eq!(limits["depth"], 1);
    assert_eq!(limits["max_requests"], 50);
    assert_eq!(limits["linked_sites"], true);
    assert_eq!(
        limits["max_urls"],
        tidings_policy::Profile::embedded("ffbot")
            .unwrap()
            .spider
            .max_urls,
        "unset limits are the profile's"
    );

    let (status, _, listed) = call(&server, "GET", "/v1/discovery/jobs", Some(&admin), None).await;
    assert_eq!(status, 200);
    let ids: Vec<i64> = listed["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [run["id"].as_i64().unwrap(), id], "newest first");
    is_problem(
        &call(&server, "GET", "/v1/discovery/jobs", Some(&reader), None).await,
        403,
        "forbidden",
    );

    // What the crawl found is shown with the job.
    server
        .store
        .page_job_step(
            id,
            &tidings_store::JobStep {
                done: Some("https://example.org/".into()),
                found: vec![tidings_store::JobFeed {
                    url: "https://example.org/feed.xml".into(),
                    title: Some("Example".into()),
                    feed_id: None,
                    held: false,
                    note: None,
                }],
                ..tidings_store::JobStep::default()
            },
            t(5),
        )
        .await
        .unwrap();
    let path = format!("/v1/discovery/jobs/{id}");
    let (status, _, one) = call(&server, "GET", &path, Some(&admin), None).await;
    assert_eq!(status, 200);
    assert_eq!(one["feeds"][0]["url"], "https://example.org/feed.xml");
    assert_eq!(one["feeds"][0]["title"], "Example");
    is_problem(
        &call(&server, "GET", "/v1/discovery/jobs/999", Some(&admin), None).await,
        404,
        "not-found",
    );
    is_problem(
        &call(&server, "GET", "/v1/discovery/jobs/x", Some(&admin), None).await,
        400,
        "invalid-parameter",
    );

    // Refused, nothing queued.
    server
        .store
        .add_block(&tidings_store::NewBlock {
            kind: "host".into(),
            value: "blocked.example".into(),
            reason: Some("asked us not to".into()),
            created_at: t(0),
        })
        .await
        .unwrap();
    for (body, status, kind) in [
        (
            r#"{"url": "ftp://example.org/", "kind": "discover"}"#,
            400,
            "invalid-parameter",
        ),
        (
            r#"{"url": "http://127.0.0.1/", "kind": "discover"}"#,
            400,
            "invalid-parameter",
        ),
        (
            r#"{"url": "https://blocked.example/", "kind": "spider"}"#,
            422,
            "refused",
        ),
        (
            r#"{"url": "https://example.org/", "kind": "spider", "depth": 99}"#,
            400,
            "invalid-parameter",
        ),
        (
            r#"{"url": "https://example.org/", "kind": "spider", "max_urls": 0}"#,
            400,
            "invalid-parameter",
        ),
        (
            r#"{"url": "https://example.org/", "kind": "crawl"}"#,
            400,
            "invalid-parameter",
        ),
        (
            r#"{"url": "https://example.org/", "kind": "discover", "x": 1}"#,
            400,
            "invalid-parameter",
        ),
    ] {
        let answer = call(
            &server,
            "POST",
            "/v1/discovery/jobs",
            Some(&admin),
            Some(body),
        )
        .await;
        is_problem(&answer, status, kind);
    }
    assert_eq!(server.store.page_jobs(10).await.unwrap().len(), 2);

    // A profile that does not discover takes no spider run.
    let plain = Server::start().await;
    let (_, admin) = key(&plain, Role::Admin).await;
    let answer = call(
        &plain,
        "POST",
        "/v1/discovery/jobs",
        Some(&admin),
        Some(spider),
    )
    .await;
    is_problem(&answer, 422, "refused");
    assert!(plain.store.page_jobs(10).await.unwrap().is_empty());
}

/// SR2: the catalogue is for readers with a key; an admin adds a feed by queueing its
/// verification read; a reader viewing a catalogue feed with nothing stored queues one read
/// (once: not again while it waits, nor within an hour of a read), and sees the entries once
/// stored.
#[tokio::test]
async fn sr2_the_catalogue_is_browsed_by_readers_and_curated_by_admins() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    is_problem(
        &call(&server, "GET", "/v1/catalogue", None, None).await,
        401,
        "unauthorized",
    );
    let add = r#"{"url": "https://example.org/feed.xml"}"#;
    is_problem(
        &call(&server, "POST", "/v1/catalogue", Some(&reader), Some(add)).await,
        403,
        "forbidden",
    );
    let (status, _, job) = call(&server, "POST", "/v1/catalogue", Some(&admin), Some(add)).await;
    assert_eq!(status, 202, "{job}");
    assert_eq!(job["kind"], "catalogue");
    assert_eq!(job["state"], "queued");
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/catalogue",
            Some(&admin),
            Some(r#"{"url": "http://10.0.0.1/f"}"#),
        )
        .await,
        400,
        "invalid-parameter",
    );

    // The crawl verified it: the feed row is kept and listed, nothing stored yet.
    let verified = job["id"].as_i64().unwrap();
    let done = tidings_model::PageJobState::Done;
    let now = chrono::Utc::now();
    let ended = server
        .store
        .finish_page_job(verified, done, None, None, now);
    assert!(ended.await.unwrap());
    let feed = server
        .subscribe("https://example.org/feed.xml", "verify")
        .await;
    server.store.unsubscribe(feed, "verify").await.unwrap();
    server
        .store
        .add_to_catalogue(feed, "key:1", t(0))
        .await
        .unwrap();
    let (status, _, listed) = call(&server, "GET", "/v1/catalogue", Some(&reader), None).await;
    assert_eq!(status, 200);
    assert_eq!(listed["feeds"][0]["id"], feed.0);
    let path = format!("/v1/catalogue/{feed}");
    let queued = |server: &Server| {
        let store = server.store.clone();
        async move {
            store
                .page_jobs(100)
                .await
                .unwrap()
                .into_iter()
                .filter(|j| j.kind == tidings_model::PageJobKind::Catalogue)
                .collect::<Vec<_>>()
        }
    };
    let before = queued(&server).await.len();
    let (status, _, viewed) = call(&server, "GET", &path, Some(&reader), None).await;
    assert_eq!(status, 200, "{viewed}");
    assert_eq!(viewed["reading"], true);
    assert_eq!(viewed["entries"].as_array().unwrap().len(), 0);
    let (_, _, again) = call(&server, "GET", &path, Some(&reader), None).await;
    assert_eq!(again["reading"], true);
    let jobs = queued(&server).await;
    assert_eq!(
        jobs.len(),
        before + 1,
        "one read queued for both views: {jobs:?}"
    );
    // Read (nothing came of it) within the hour: no other read is queued.
    for j in &jobs {
        server
            .store
            .finish_page_job(
                j.id,
                tidings_model::PageJobState::Done,
                None,
                None,
                chrono::Utc::now(),
            )
            .await
            .unwrap();
    }
    server
        .store
        .apply_fetch(crate::support::ok(feed, chrono::Utc::now(), Vec::new()))
        .await
        .unwrap();
    let (_, _, read) = call(&server, "GET", &path, Some(&reader), None).await;
    assert_eq!(read["reading"], false);
    assert_eq!(queued(&server).await.len(), before + 1);
    // Entries stored: shown, no read.
    server
        .store
        .apply_fetch(crate::support::ok(
            feed,
            chrono::Utc::now(),
            vec![crate::support::dated("e1", chrono::Utc::now())],
        ))
        .await
        .unwrap();
    let (_, _, shown) = call(&server, "GET", &path, Some(&reader), None).await;
    assert_eq!(shown["entries"].as_array().unwrap().len(), 1, "{shown}");
    assert_eq!(shown["reading"], false);

    is_problem(
        &call(&server, "DELETE", &path, Some(&reader), None).await,
        403,
        "forbidden",
    );
    let (status, _, _) = call(&server, "DELETE", &path, Some(&admin), None).await;
    assert_eq!(status, 204);
    is_problem(
        &call(&server, "GET", &path, Some(&reader), None).await,
        404,
        "not-found",
    );
}
