//! The operator's view for an admin key: the request log (C7) and what is held about a host
//! (robots.txt, the Retry-After floor of C6, feeds that are not active and why).

use crate::auth::{call, is_problem, key};
use crate::support::{Server, dated, ok, t};
use std::sync::Arc;
use std::time::Duration;
use tidings_api::auth::Role;
use tidings_crawler::gate::HostGate;
use tidings_crawler::{Clock, Live};
use tidings_model::FeedUrl;
use tidings_store::{FeedState, RobotsCache};

#[tokio::test]
async fn log_and_hosts_need_an_admin_key() {
    let server = Server::start().await;
    let (_, reader) = key(&server, Role::Reader).await;
    for path in ["/v1/log", "/v1/hosts/example.org"] {
        is_problem(
            &call(&server, "GET", path, None, None).await,
            401,
            "unauthorized",
        );
        is_problem(
            &call(&server, "GET", path, Some(&reader), None).await,
            403,
            "forbidden",
        );
    }
}

#[tokio::test]
async fn c7_the_log_lists_requests_by_host_and_by_feed() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let a = server.subscribe("https://example.org/a.xml", "alice").await;
    let b = server.subscribe("https://example.org/b.xml", "bob").await;
    server.read(a, t(10), vec![dated("a1", t(5))]).await;
    server.read(b, t(20), vec![dated("b1", t(15))]).await;

    let (status, _, all) = call(
        &server,
        "GET",
        "/v1/log?host=Example.org",
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(status, 200, "{all}");
    let rows = all["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["feed_id"], b.0, "newest first");
    assert_eq!(rows[0]["rule"], "due: interval 1h");
    assert_eq!(rows[0]["status"], 200);

    let path = format!("/v1/log?feed={}", a.0);
    let (_, _, one) = call(&server, "GET", &path, Some(&admin), None).await;
    assert_eq!(one["requests"].as_array().unwrap().len(), 1);
    let (_, _, none) = call(&server, "GET", "/v1/log?host=other.org", Some(&admin), None).await;
    assert_eq!(none["requests"].as_array().unwrap().len(), 0);

    for bad in ["/v1/log?limit=0", "/v1/log?host=a%3Cb", "/v1/log?feed=x"] {
        is_problem(
            &call(&server, "GET", bad, Some(&admin), None).await,
            400,
            "invalid-parameter",
        );
    }
}

#[tokio::test]
async fn c6_a_host_shows_its_robots_txt_its_floor_and_why_feeds_are_paused() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let live = server
        .subscribe("https://example.org/live.xml", "alice")
        .await;
    let gone = server
        .subscribe("https://example.org/gone.xml", "bob")
        .await;
    server.read(live, t(10), Vec::new()).await;
    let mut paused = ok(gone, t(20), Vec::new());
    paused.update.state = FeedState::Paused;
    paused.update.state_reason = Some("PF5: paused after 4 404 answers in a row".into());
    paused.update.last_status = Some(404);
    paused.host_floor = Some(("https://example.org:443".into(), t(7200)));
    server.store.apply_fetch(paused).await.unwrap();
    let robots = RobotsCache {
        fetched_at: t(5),
        status: Some(200),
        body: Some("User-agent: *\nDisallow: /private/\n".into()),
    };
    server
        .store
        .save_robots("https://example.org:443", &robots, &[])
        .await
        .unwrap();

    let (status, _, host) = call(&server, "GET", "/v1/hosts/example.org", Some(&admin), None).await;
    assert_eq!(status, 200, "{host}");
    assert_eq!(host["name"], "example.org");
    let origin = &host["origins"][0];
    assert_eq!(origin["origin"], "https://example.org:443");
    assert_eq!(origin["robots_status"], 200);
    assert_eq!(origin["robots_txt"], "User-agent: *\nDisallow: /private/\n");
    assert_eq!(origin["retry_after_until"], "2026-01-01T02:00:00Z");
    assert_eq!(host["feeds_by_state"]["active"], 1);
    assert_eq!(host["feeds_by_state"]["paused"], 1);
    let not_active = host["not_active"].as_array().unwrap();
    assert_eq!(not_active.len(), 1);
    assert_eq!(not_active[0]["id"], gone.0);
    assert_eq!(
        not_active[0]["state_reason"],
        "PF5: paused after 4 404 answers in a row"
    );
    // Subscribers are nobody's business here.
    assert!(!host.to_string().contains("alice") && !host.to_string().contains("bob"));

    let (_, _, unknown) = call(&server, "GET", "/v1/hosts/nowhere.test", Some(&admin), None).await;
    assert_eq!(unknown["origins"].as_array().unwrap().len(), 0);
    is_problem(
        &call(&server, "GET", "/v1/hosts/a%20b", Some(&admin), None).await,
        400,
        "invalid-parameter",
    );
}

/// C3: with a crawler in this process a host shows its gate: a request in flight, then when
/// the next may start and the gap; without one, the gate is `null`.
#[tokio::test]
async fn c3_a_host_shows_its_gate_when_a_crawler_runs_here_and_null_otherwise() {
    let without = Server::start().await;
    let (_, admin) = key(&without, Role::Admin).await;
    let (status, _, host) =
        call(&without, "GET", "/v1/hosts/example.org", Some(&admin), None).await;
    assert_eq!(status, 200, "{host}");
    assert!(host["gate"].is_null(), "{host}");

    let gate = Arc::new(HostGate::new());
    let live = Live::new(gate.clone(), Clock::real());
    let server = Server::with_live(live).await;
    let (_, admin) = key(&server, Role::Admin).await;
    let url = FeedUrl::parse("https://Example.org/feed.xml").unwrap();
    let permit = gate
        .acquire(url.as_url(), Duration::from_millis(2500))
        .await;
    let (_, _, busy) = call(&server, "GET", "/v1/hosts/example.org", Some(&admin), None).await;
    assert_eq!(busy["gate"]["in_flight"], true, "{busy}");
    assert!(busy["gate"]["next_allowed_at"].is_null(), "{busy}");
    assert_eq!(busy["gate"]["gap_secs"], 2.5);
    drop(permit);
    let (_, _, free) = call(&server, "GET", "/v1/hosts/example.org", Some(&admin), None).await;
    assert_eq!(free["gate"]["in_flight"], false, "{free}");
    assert!(free["gate"]["next_allowed_at"].is_string(), "{free}");
    assert_eq!(free["gate"]["gap_secs"], 2.5);
    let (_, _, other) = call(&server, "GET", "/v1/hosts/other.test", Some(&admin), None).await;
    assert_eq!(
        other["gate"],
        serde_json::json!({"in_flight": false, "next_allowed_at": null, "gap_secs": null}),
        "a host this process sent nothing"
    );
}
