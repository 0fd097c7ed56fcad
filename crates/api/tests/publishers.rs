//! `/publishers`: the page a publisher reads to see what tidings fetched from its host, against
//! a real server on port 0 with a fresh SQLite store per test.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

use chrono::{DateTime, Duration, Utc};
use support::{Server, ok};
use tidings_model::FeedId;
use tidings_store::{FeedState, RequestLogRow};

/// One answer: status, the head as text (header names lower-cased), the body.
struct Page {
    status: u16,
    head: String,
    body: String,
}

async fn get(server: &Server, path: &str) -> Page {
    let answer = tidings_sim::client::request(
        server.addr,
        "GET",
        path,
        &[],
        b"",
        std::time::Duration::from_secs(10),
    )
    .await
    .expect("an answer");
    Page {
        status: answer.status,
        head: answer
            .headers
            .iter()
            .map(|(name, value)| format!("{name}: {}\n", value.to_ascii_lowercase()))
            .collect(),
        body: answer.text(),
    }
}

/// A request log row to `host` for `url` at `at`.
fn row(feed: FeedId, at: DateTime<Utc>, host: &str, url: &str) -> RequestLogRow {
    RequestLogRow {
        at,
        feed_id: Some(feed),
        host: host.to_owned(),
        purpose: "feed".to_owned(),
        url: url.to_owned(),
        egress: Some("192.0.2.77".to_owned()),
        status: Some(200),
        outcome: tidings_model::Label::Ok,
        bytes: 4321,
        duration_ms: 12,
        rule: "due: interval 1h".to_owned(),
        ticket: None,
    }
}

/// Store one read of `feed` at `at` that made the requests in `log`.
async fn read_with_log(server: &Server, feed: FeedId, at: DateTime<Utc>, log: Vec<RequestLogRow>) {
    let mut fetch = ok(feed, at, Vec::new());
    fetch.log = log;
    server.store.apply_fetch(fetch).await.expect("apply fetch");
}

fn assert_safe_page(page: &Page) {
    assert!(
        page.head.contains("content-type: text/html; charset=utf-8"),
        "{}",
        page.head
    );
    assert!(
        page.head
            .contains("content-security-policy: default-src 'none'"),
        "{}",
        page.head
    );
    assert!(!page.body.contains("<script"), "{}", page.body);
    assert!(
        page.body
            .contains("<form method=\"get\" action=\"/publishers\">")
    );
}

#[tokio::test]
async fn requests_and_a_paused_feed_appear_and_subscribers_never_do() {
    let server = Server::start().await;
    let now = Utc::now();
    let feed = server
        .subscribe("https://example.org/feed.xml", "zelda-the-subscriber")
        .await;
    let paused = server
        .subscribe(
            "https://example.org/slow.xml?token=s3cret",
            "yorick-the-subscriber",
        )
        .await;
    let other = server
        .subscribe("https://other.example/feed", "zelda-the-subscriber")
        .await;
    read_with_log(
        &server,
        feed,
        now - Duration::hours(2),
        vec![
            row(
                feed,
                now - Duration::days(40),
                "https://example.org:443",
                "https://example.org/too-old",
            ),
            row(
                feed,
                now - Duration::hours(3),
                "http://example.org:8080",
                "http://example.org:8080/older",
            ),
            row(
                feed,
                now - Duration::hours(2),
                "https://example.org:443",
                "https://u:pw@example.org/newer?token=s3cret",
            ),
        ],
    )
    .await;
    read_with_log(
        &server,
        other,
        now - Duration::hours(1),
        vec![row(
            other,
            now - Duration::hours(1),
            "https://other.example:443",
            "https://other.example/feed",
        )],
    )
    .await;
    let mut pause = ok(paused, now - Duration::hours(1), Vec::new());
    pause.update.state = FeedState::Paused;
    pause.update.state_reason = Some("paused: 429 three times in a row".to_owned());
    pause.update.next_fetch_reason = "paused until an operator resumes it".to_owned();
    pause.log.clear();
    server.store.apply_fetch(pause).await.expect("pause");

    let page = get(&server, "/publishers?host=Example.org").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_safe_page(&page);
    let body = &page.body;
    let newer = body
        .find("https://example.org/newer?…")
        .expect("the newer request");
    let older = body
        .find("http://example.org:8080/older")
        .expect("the older request, on another port");
    assert!(newer < older, "newest first: {body}");
    assert!(!body.contains("too-old"), "only the last 30 days: {body}");
    assert!(!body.contains("other.example"), "only this host: {body}");
    assert!(body.contains("<td>4321</td>"), "{body}");
    assert!(body.contains("due: interval 1h"), "{body}");
    assert!(body.contains("200 ok"), "{body}");
    assert!(body.contains("https://example.org/slow.xml?…"), "{body}");
    assert!(body.contains("paused: 429 three times in a row"), "{body}");
    assert!(body.contains("1 feed is read normally"), "{body}");
    // Subscribers, their private feed tokens, and where tidings sends from.
    for secret in ["zelda", "yorick", "s3cret", "u:pw", "192.0.2.77"] {
        assert!(!body.contains(secret), "{secret} in {body}");
    }
}

#[tokio::test]
async fn hostile_urls_are_escaped() {
    let server = Server::start().await;
    let now = Utc::now();
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let mut hostile = row(
        feed,
        now - Duration::hours(1),
        "https://example.org:443",
        "https://example.org/<script>alert(1)</script>&q=\"><img src=x>?k=v",
    );
    hostile.rule = "<b>rule</b>".to_owned();
    read_with_log(&server, feed, now - Duration::hours(1), vec![hostile]).await;
    let page = get(&server, "/publishers?host=example.org").await;
    assert_eq!(page.status, 200);
    assert_safe_page(&page);
    assert!(!page.body.contains("<img"), "{}", page.body);
    assert!(!page.body.contains("<b>"), "{}", page.body);
    assert!(
        page.body
            .contains("/&lt;script&gt;alert(1)&lt;/script&gt;&amp;q=&quot;&gt;&lt;img src=x&gt;?…"),
        "{}",
        page.body
    );
}

#[tokio::test]
async fn bad_host_names_are_400_pages() {
    let server = Server::start().await;
    for bad in [
        "https%3A%2F%2Fexample.org",
        "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "exa+mple.org",
        "example.org%2Ffeed",
        "a..b",
        "%FF",
        "%00",
    ] {
        let page = get(&server, &format!("/publishers?host={bad}")).await;
        assert_eq!(page.status, 400, "{bad}: {}", page.body);
        assert_safe_page(&page);
        assert!(
            page.body.contains("not a host name"),
            "{bad}: {}",
            page.body
        );
    }
    let long = "a.".repeat(200);
    let page = get(&server, &format!("/publishers?host={long}")).await;
    assert_eq!(page.status, 400);
    assert!(page.body.contains("at most 253"), "{}", page.body);
}

#[tokio::test]
async fn without_a_host_the_page_is_the_form() {
    let server = Server::start().await;
    for path in ["/publishers", "/publishers?host=", "/publishers?host=+"] {
        let page = get(&server, path).await;
        assert_eq!(page.status, 200, "{path}");
        assert_safe_page(&page);
        assert!(!page.body.contains("<table"), "{path}");
    }
    let page = get(&server, "/publishers?host=quiet.example").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("No request to quiet.example"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("value=\"quiet.example\""),
        "{}",
        page.body
    );
}
