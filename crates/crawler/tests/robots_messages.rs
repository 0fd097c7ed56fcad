//! What a read reports when robots.txt stands in the way: a host that does not answer the
//! robots.txt request is a host that did not answer (C8, FF11), an unreadable file is an
//! answer under the profile's rule for server errors, and a refused redirect hop is named as
//! such. Each says what happened.

mod support;

use support::{Answer, Script, crawler_configured, serve, subscribe};
use tidings_crawler::Purpose;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_c8_a_refused_connection_to_robots_txt_is_no_answer_and_says_so() {
    // A port nothing listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_configured(dir.path(), |_| {}, |_| {}).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.outcome, "no_answer", "{report:?}");
    let error = report.error.unwrap();
    assert!(
        error.starts_with("robots.txt did not answer (connection failed"),
        "{error}"
    );
    assert!(error.contains("the feed was not requested"), "{error}");
    let after = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(
        after.last_outcome,
        Some(tidings_model::Label::NoAnswer),
        "not `blocked`"
    );
    assert_eq!(after.last_error.as_deref(), Some(error.as_str()));
    assert_eq!(after.consecutive_failures, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_dfb8_an_oversized_robots_txt_is_an_unreadable_answer_not_silence() {
    let script = Script::default();
    script.push(
        "/robots.txt",
        Answer::ok(&format!(
            "User-agent: *\nAllow: /\n# {}\n",
            "x".repeat(4000)
        ))
        .header("content-type", "text/plain"),
    );
    script.push("/f.xml", Answer::ok(support::FEED));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) =
        crawler_configured(dir.path(), |_| {}, |c| c.max_body_bytes = 1000).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let error = report.error.unwrap();
    assert!(
        error.contains("robots.txt answered 200 with a body that could not be read"),
        "{error}"
    );
    // The default profile stays away when robots.txt cannot be read (RFC 9309).
    assert!(error.contains("the profile stays away"), "{error}");
    assert!(!error.contains("did not answer"), "{error}");
    // The answer is kept as an answer: not asked again at every read, as silence would be.
    let feed = store.feed(feed.id).await.unwrap().unwrap();
    crawler.refresh(&feed, Purpose::Scheduled).await.unwrap();
    assert_eq!(script.count("/robots.txt"), 1);
    assert_eq!(script.count("/f.xml"), 0, "the feed is never requested");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff11_a_refused_redirect_hop_is_reported_as_the_hop() {
    let script = Script::default();
    let port = serve(script.clone()).await;
    script.push(
        "/f.xml",
        Answer {
            status: 301,
            headers: vec![(
                "location".into(),
                format!("http://127.0.0.1:{port}/moved.xml"),
            )],
            body: String::new(),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    // The publisher's name is resolved by the operator (trusted); a hop to a loopback
    // literal is refused by the address guard.
    let (crawler, store) = crawler_configured(
        dir.path(),
        |_| {},
        |c| {
            c.allow_private_networks = false;
            c.resolve
                .push(("pub.test".into(), port, ([127, 0, 0, 1], port).into()));
        },
    )
    .await;
    let feed = subscribe(&store, &format!("http://pub.test:{port}/f.xml")).await;

    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let error = report.error.unwrap();
    let hop = format!(
        "redirect from http://pub.test:{port}/f.xml to http://127.0.0.1:{port}/moved.xml not followed"
    );
    assert!(error.contains(&hop), "{error}");
    assert!(!error.contains("robots.txt not fetched"), "{error}");
    assert_eq!(script.count("/f.xml"), 1);
    assert_eq!(script.count("/moved.xml"), 0);
}
