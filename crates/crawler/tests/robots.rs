//! robots.txt before feeds (FF11): read once per origin, obeyed per the profile (WFM9, SR8,
//! DFB8), re-read when older than the profile allows (DFB7), and every fetch logged (C7).

mod support;

use support::{Answer, FEED, Script, as_profile, crawler, crawler_with, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::LogQuery;

fn robots(body: &str) -> Answer {
    Answer {
        status: 200,
        headers: vec![("content-type".into(), "text/plain".into())],
        body: body.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wfm9_a_disallowed_feed_is_not_requested() {
    let script = Script::default();
    script.push(
        "/robots.txt",
        robots("User-agent: tidings\nDisallow: /private/\n"),
    );
    script.push("/private/f.xml", Answer::ok(FEED));
    script.push("/public/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let private = subscribe(&store, &format!("http://127.0.0.1:{port}/private/f.xml")).await;
    let public = subscribe(&store, &format!("http://127.0.0.1:{port}/public/f.xml")).await;

    let report = crawler.refresh(&private, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "blocked");
    assert_eq!(
        report.error.as_deref(),
        Some("not fetched: robots: disallowed by group tidings line 2: Disallow: /private/")
    );
    assert_eq!(script.count("/private/f.xml"), 0);
    let stored = store.feed(private.id).await.unwrap().unwrap();
    assert_eq!(stored.last_outcome.map(|l| l.as_str()), Some("blocked"));
    assert_eq!(stored.last_status, None, "no request was sent");
    assert!(
        stored
            .next_fetch_reason
            .starts_with("failure 1 (not_allowed)"),
        "{}",
        stored.next_fetch_reason
    );
    assert!(stored.next_fetch_at > report.next_fetch_at - chrono::Duration::seconds(1));

    let report = crawler.refresh(&public, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.new_entries, 2);
    assert_eq!(
        script.count("/robots.txt"),
        1,
        "one robots.txt read for the origin"
    );
    let rows = store.request_log(&LogQuery::default()).await.unwrap();
    assert_eq!(rows.iter().filter(|r| r.purpose == "robots").count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb8_robots_answering_5xx_keeps_the_default_profile_away() {
    let script = Script::default();
    script.push("/robots.txt", Answer::status(503));
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert!(
        report
            .error
            .as_deref()
            .unwrap()
            .contains("robots.txt answered 503"),
        "{report:?}"
    );
    assert_eq!(script.count("/f.xml"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb7_robots_is_read_again_once_older_than_max_age() {
    let script = Script::default();
    script.push("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = support::crawler_with(dir.path(), |p| p.robots.max_age = 1).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/robots.txt"), 1, "fresh copy reused");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/robots.txt"), 2, "stale copy read again");
    let rows = store.request_log(&LogQuery::default()).await.unwrap();
    let robots_rules: Vec<&str> = rows
        .iter()
        .filter(|r| r.purpose == "robots")
        .map(|r| r.rule.as_str())
        .collect();
    assert_eq!(
        robots_rules,
        [
            "robots.txt older than the profile's max_age (DFB7)",
            "robots.txt before the first feed of this origin (FF11)"
        ]
    );
}

/// The crawler keeps each host's parsed copy between reads (`copies`): once a copy is read
/// again, the new one decides, in the read that fetched it and in every read after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb7_the_copy_read_again_governs_every_read_after_it() {
    let script = Script::default();
    script.push("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    script.push(
        "/robots.txt",
        robots("User-agent: tidings\nDisallow: /f.xml\n"),
    );
    script.push("/f.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = support::crawler_with(dir.path(), |p| p.robots.max_age = 1).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/robots.txt"), 1, "the kept copy serves");
    assert_eq!(script.count("/f.xml"), 2);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let report = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/robots.txt"), 2, "stale copy read again");
    assert_eq!(
        report.outcome, "blocked",
        "the new copy decides its own read"
    );
    for _ in 0..2 {
        let report = crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
        assert_eq!(report.outcome, "blocked", "and every read after it");
    }
    assert_eq!(script.count("/robots.txt"), 2, "the new copy is fresh");
    assert_eq!(script.count("/f.xml"), 2, "nothing sent once it forbids");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr9_crawl_delay_spaces_requests_to_a_host_and_first_add_may_skip_it() {
    let script = Script::default();
    script.push("/robots.txt", robots("User-agent: *\nCrawl-delay: 1\n"));
    script.push("/a.xml", Answer::ok(FEED));
    script.push("/b.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let b = subscribe(&store, &format!("http://127.0.0.1:{port}/b.xml")).await;
    crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    crawler.refresh(&b, Purpose::Scheduled).await.unwrap();
    let arrivals = script.arrivals.lock().unwrap().clone();
    let paths: Vec<&str> = arrivals.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/robots.txt", "/a.xml", "/b.xml"]);
    let gap = arrivals[2].1 - arrivals[1].1;
    assert!(
        gap >= std::time::Duration::from_millis(1000),
        "crawl-delay 1s, got {gap:?}"
    );

    // A profile like SereneReader's lets the first read of a new feed skip the crawl-delay.
    let script = Script::default();
    script.push("/robots.txt", robots("User-agent: *\nCrawl-delay: 30\n"));
    script.push("/c.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) =
        support::crawler_with(dir.path(), |p| p.robots.first_add_skips_crawl_delay = true).await;
    let c = subscribe(&store, &format!("http://127.0.0.1:{port}/c.xml")).await;
    let started = std::time::Instant::now();
    crawler.refresh(&c, Purpose::FirstAdd).await.unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "the first add did not wait"
    );
    assert_eq!(script.count("/c.xml"), 1);
}

/// FF11: a crawl-delay longer than the request window (FFBot's 60 s) sets the host's work
/// aside, without a request or a failure, instead of shortening the delay; the robots.txt
/// request itself counts against the host's pacing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_a_long_crawl_delay_sets_the_hosts_work_aside() {
    let script = Script::default();
    script.push(
        "/robots.txt",
        Answer::ok("User-agent: *\nCrawl-delay: 300\n").header("content-type", "text/plain"),
    );
    script.push("/a.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("ffbot")).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let before = chrono::Utc::now();
    let held = crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(held.outcome, "postponed");
    assert_eq!(script.count("/robots.txt"), 1);
    assert_eq!(
        script.count("/a.xml"),
        0,
        "no request inside the crawl-delay"
    );
    assert!(
        held.next_fetch_reason.starts_with("FF11 crawl-delay 300s"),
        "{}",
        held.next_fetch_reason
    );
    let wait = (held.next_fetch_at - before).num_seconds();
    assert!((290..=300).contains(&wait), "{wait}");
    let a = store.feed(a.id).await.unwrap().unwrap();
    assert_eq!((a.consecutive_failures, a.counters.fetches), (0, 0));
    assert_eq!(a.last_fetch_at, None, "still never read");

    // SereneReader caps the same delay at 60 s instead (SR9): no pause.
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), |p| {
        *p = tidings_policy::Profile::embedded("serenereader").unwrap();
        p.robots.crawl_delay_cap = 0;
    })
    .await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let read = crawler.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(read.outcome, "ok");
}

/// FF11: a process that starts after another read the host measures a long crawl-delay from
/// the request log's last request to that host, not from nothing (which let a new process ask
/// at once, spaced only by the capped 60 s gap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_a_long_crawl_delay_holds_across_a_restart() {
    let script = Script::default();
    script.push(
        "/robots.txt",
        Answer::ok("User-agent: *\nCrawl-delay: 300\n").header("content-type", "text/plain"),
    );
    script.push("/a.xml", Answer::ok(FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let ffbot = as_profile("ffbot");
    let (first, store) = crawler_with(dir.path(), ffbot).await;
    let a = subscribe(&store, &format!("http://127.0.0.1:{port}/a.xml")).await;
    let held = first.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(held.outcome, "postponed");
    drop(first);

    // A new process on the same store, its gate empty.
    let (second, store) = crawler_with(dir.path(), ffbot).await;
    let a = store.feed(a.id).await.unwrap().unwrap();
    let before = chrono::Utc::now();
    let again = second.refresh(&a, Purpose::Scheduled).await.unwrap();
    assert_eq!(again.outcome, "postponed", "{again:?}");
    assert_eq!(
        script.count("/a.xml"),
        0,
        "no request inside the crawl-delay"
    );
    assert_eq!(script.count("/robots.txt"), 1, "the stored copy is fresh");
    let wait = (again.next_fetch_at - before).num_seconds();
    assert!((280..=300).contains(&wait), "{wait}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_c7_a_redirected_robots_txt_is_followed_hop_by_hop_and_logged() {
    // The publisher keeps its robots.txt on another origin and redirects to it.
    let there = Script::default();
    there.push("/rules.txt", robots("User-agent: *\nDisallow: /private/\n"));
    let there_port = serve(there.clone()).await;
    let here = Script::default();
    here.push(
        "/robots.txt",
        Answer {
            status: 301,
            headers: vec![(
                "location".into(),
                format!("http://127.0.0.1:{there_port}/rules.txt"),
            )],
            body: String::new(),
        },
    );
    here.push("/private/f.xml", Answer::ok(FEED));
    here.push("/public/f.xml", Answer::ok(FEED));
    let here_port = serve(here.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    let private = subscribe(
        &store,
        &format!("http://127.0.0.1:{here_port}/private/f.xml"),
    )
    .await;
    let public = subscribe(
        &store,
        &format!("http://127.0.0.1:{here_port}/public/f.xml"),
    )
    .await;

    // The file at the end of the redirect is this origin's robots.txt (RFC 9309).
    let report = crawler.refresh(&private, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "blocked");
    assert_eq!(here.count("/private/f.xml"), 0);
    let report = crawler.refresh(&public, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.new_entries, 2);
    assert_eq!(here.count("/robots.txt"), 1);
    assert_eq!(there.count("/rules.txt"), 1);

    // Both requests are logged, each under the host it went to (C7).
    let rows = store.request_log(&LogQuery::default()).await.unwrap();
    let robots: Vec<_> = rows.iter().filter(|r| r.purpose == "robots").collect();
    assert_eq!(robots.len(), 2, "{robots:?}");
    let hop = robots
        .iter()
        .find(|r| r.url.ends_with("/robots.txt"))
        .unwrap();
    assert_eq!(hop.outcome, "redirect");
    assert_eq!(hop.host, format!("http://127.0.0.1:{here_port}"));
    let file = robots
        .iter()
        .find(|r| r.url.ends_with("/rules.txt"))
        .unwrap();
    assert_eq!(file.status, Some(200));
    assert_eq!(file.host, format!("http://127.0.0.1:{there_port}"));
    assert!(
        file.rule
            .ends_with(&format!("redirected from http://127.0.0.1:{here_port}")),
        "{}",
        file.rule
    );
}
