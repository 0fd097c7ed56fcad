//! `GET /v1/entries`: pages, filters, and a cursor that holds while entries arrive.

use crate::support::{Server, dated, t};
use std::collections::HashSet;

/// The entries' keys of one answer.
fn keys(json: &serde_json::Value) -> Vec<String> {
    json["entries"]
        .as_array()
        .expect("entries array")
        .iter()
        .map(|e| e["key"].as_str().expect("key").to_owned())
        .collect()
}

fn next_cursor(json: &serde_json::Value) -> Option<String> {
    json["next_cursor"].as_str().map(str::to_owned)
}

#[tokio::test]
async fn entries_come_newest_first_with_their_fields() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    server
        .read(
            feed,
            t(1000),
            vec![dated("old", t(10)), dated("new", t(20))],
        )
        .await;
    let answer = server.get("/v1/entries").await;
    assert_eq!(answer.status, 200);
    assert_eq!(keys(&answer.json), ["new", "old"]);
    assert_eq!(answer.json["next_cursor"], serde_json::Value::Null);
    let first = &answer.json["entries"][0];
    assert_eq!(first["feed_id"], feed.0);
    assert_eq!(first["title"], "Title new");
    assert_eq!(first["link"], "https://example.org/new");
    assert_eq!(first["published"], "2026-01-01T00:00:20Z");
    assert_eq!(first["sort_at"], "2026-01-01T00:00:20Z");
    assert_eq!(first["first_seen_at"], "2026-01-01T00:16:40Z");
}

#[tokio::test]
async fn pages_hold_while_new_entries_arrive() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    // 25 entries a minute apart, two of them at the same time (the id breaks the tie).
    let mut older: Vec<_> = (0..25)
        .map(|i| dated(&format!("e{i:02}"), t(60 * i)))
        .collect();
    older.push(dated("e12-twin", t(60 * 12)));
    server.read(feed, t(100_000), older).await;

    let mut seen = Vec::new();
    let mut path = "/v1/entries?limit=10".to_owned();
    let mut pages = 0;
    loop {
        let answer = server.get(&path).await;
        assert_eq!(answer.status, 200, "{:?}", answer.json);
        seen.extend(keys(&answer.json));
        pages += 1;
        // Between every two pages, a newer entry and one dated among the oldest arrive.
        server
            .read(
                feed,
                t(100_000 + pages * 60),
                vec![
                    dated(&format!("newer{pages}"), t(90_000 + pages)),
                    dated(&format!("backdated{pages}"), t(-1000 * pages)),
                ],
            )
            .await;
        match next_cursor(&answer.json) {
            Some(cursor) => path = format!("/v1/entries?limit=10&cursor={cursor}"),
            None => break,
        }
        assert!(pages < 20, "pagination ends");
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no entry twice: {seen:?}");
    let original: Vec<_> = seen
        .iter()
        .filter(|k| k.starts_with('e'))
        .cloned()
        .collect();
    let mut expected: Vec<String> = (0..25).rev().map(|i| format!("e{i:02}")).collect();
    let twelve = expected
        .iter()
        .position(|k| k == "e12")
        .expect("e12 listed");
    // The twin was stored after e12, so it has the higher id and comes first.
    expected.insert(twelve, "e12-twin".to_owned());
    assert_eq!(original, expected, "every older entry once, in order");
    assert!(
        !seen.iter().any(|k| k.starts_with("newer")),
        "entries newer than the first page belong to a fresh listing: {seen:?}"
    );
    // The backdated entries sort after the cursor: the pages reach them.
    assert!(seen.iter().any(|k| k.starts_with("backdated")), "{seen:?}");
}

#[tokio::test]
async fn the_last_full_page_has_no_next_cursor() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let entries = (0..4).map(|i| dated(&format!("e{i}"), t(i))).collect();
    server.read(feed, t(100), entries).await;
    let first = server.get("/v1/entries?limit=2").await;
    assert_eq!(keys(&first.json), ["e3", "e2"]);
    let cursor = next_cursor(&first.json).expect("a second page");
    let second = server
        .get(&format!("/v1/entries?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(keys(&second.json), ["e1", "e0"]);
    assert_eq!(second.json["next_cursor"], serde_json::Value::Null);
}

#[tokio::test]
async fn entries_filter_by_feed_time_and_words() {
    let server = Server::start().await;
    let one = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let two = server
        .subscribe("https://two.example/feed.xml", "alice")
        .await;
    server
        .read(
            one,
            t(1000),
            vec![dated("one-a", t(10)), dated("one-b", t(500))],
        )
        .await;
    let mut rust = dated("two-rust", t(300));
    rust.title = Some("Rust news".to_owned());
    server
        .read(two, t(1000), vec![dated("two-a", t(20)), rust])
        .await;

    let by_feed = server.get(&format!("/v1/entries?feed={}", one.0)).await;
    assert_eq!(keys(&by_feed.json), ["one-b", "one-a"]);
    let by_other = server.get(&format!("/v1/entries?feed={}", two.0)).await;
    assert_eq!(keys(&by_other.json), ["two-rust", "two-a"]);
    let unknown = server.get("/v1/entries?feed=999").await;
    assert_eq!(unknown.status, 200);
    assert!(keys(&unknown.json).is_empty());

    let window = server
        .get("/v1/entries?since=2026-01-01T00:00:20Z&until=2026-01-01T00:08:20Z")
        .await;
    assert_eq!(
        keys(&window.json),
        ["two-rust", "two-a"],
        "since inclusive, until not"
    );
    let words = server.get("/v1/entries?q=rust").await;
    assert_eq!(keys(&words.json), ["two-rust"]);
    let hostile = server
        .get("/v1/entries?q=%22%29%20OR%201%3D1%20--%20*")
        .await;
    assert_eq!(hostile.status, 200, "search input is only words");

    let paged_feed = server
        .get(&format!("/v1/entries?feed={}&limit=1", one.0))
        .await;
    let cursor = next_cursor(&paged_feed.json).expect("a second page");
    let rest = server
        .get(&format!(
            "/v1/entries?feed={}&limit=1&cursor={cursor}",
            one.0
        ))
        .await;
    assert_eq!(keys(&rest.json), ["one-a"], "the cursor keeps to the feed");
}

#[tokio::test]
async fn entry_html_is_sanitised_and_the_selected_image_is_served_with_its_decision() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let mut e = dated("rich", t(10));
    e.summary = Some("<p onmouseover=\"x()\">Hi<script>steal()</script></p>".into());
    e.content = Some("<a href=\"javascript:go()\">go</a><img src=\"/p.jpg\">".into());
    e.selected_image = Some(tidings_model::SelectedImage {
        url: "https://example.org/t.jpg".into(),
        source: "media:thumbnail".into(),
        width: Some(120),
        licence: Some("https://creativecommons.org/licenses/by/4.0/".into()),
        shown: true,
        why: "CC BY 4.0 declared by the feed".into(),
        ..Default::default()
    });
    server
        .read(feed, t(1000), vec![e, dated("plain", t(5))])
        .await;
    let answer = server.get("/v1/entries").await;
    let rich = &answer.json["entries"][0];
    assert_eq!(rich["summary"], "<p>Hi</p>");
    let content = rich["content"].as_str().unwrap();
    assert!(!content.contains("javascript:"), "{content}");
    assert!(
        content.contains("src=\"https://example.org/p.jpg\""),
        "{content}"
    );
    let image = &rich["image"];
    assert_eq!(image["url"], "https://example.org/t.jpg");
    assert_eq!(image["source"], "media:thumbnail");
    assert_eq!(image["width"], 120);
    assert_eq!(image["shown"], true);
    assert_eq!(image["why"], "CC BY 4.0 declared by the feed");
    assert_eq!(answer.json["entries"][1]["image"], serde_json::Value::Null);
}

/// Relative URLs in an entry's HTML resolve against the base its document declared for it (an
/// Atom `xml:base`), not its link; without one, against its link.
#[tokio::test]
async fn relative_urls_in_html_resolve_against_the_declared_base_else_the_link() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let mut based = dated("based", t(10));
    based.link = Some("https://blog.example/posts/based".into());
    based.content_base = Some("https://cdn.example/media/".into());
    based.content = Some("<a href=\"notes.html\">notes</a>".into());
    let mut plain = dated("plain", t(5));
    plain.link = Some("https://blog.example/posts/plain".into());
    plain.content = Some("<a href=\"notes.html\">notes</a>".into());
    server.read(feed, t(1000), vec![based, plain]).await;
    let answer = server.get("/v1/entries").await;
    let content = |i: usize| {
        answer.json["entries"][i]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        content(0).contains("href=\"https://cdn.example/media/notes.html\""),
        "{}",
        content(0)
    );
    assert!(
        content(1).contains("href=\"https://blog.example/posts/notes.html\""),
        "{}",
        content(1)
    );
}

#[tokio::test]
async fn ff10_publisher_metadata_is_served_with_each_entry() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let mut e = dated("meta", t(10));
    e.categories = vec!["harbour".into()];
    e.keywords = vec!["boats".into(), "gulls".into()];
    e.contributors = vec![tidings_model::Author {
        name: Some("Bea".into()),
        ..Default::default()
    }];
    e.source = Some(tidings_model::Source {
        title: Some("The Coast Times".into()),
        link: Some("https://coast.example/".into()),
        url: Some("https://coast.example/feed.xml".into()),
    });
    e.rights = Some("© 2026 The Coast Times".into());
    e.license = Some("https://creativecommons.org/licenses/by/4.0/".into());
    server.read(feed, t(1000), vec![e]).await;
    let answer = server.get("/v1/entries").await;
    let got = &answer.json["entries"][0];
    assert_eq!(got["categories"], serde_json::json!(["harbour"]));
    assert_eq!(got["keywords"], serde_json::json!(["boats", "gulls"]));
    assert_eq!(got["contributors"][0]["name"], "Bea");
    assert_eq!(got["source"]["title"], "The Coast Times");
    assert_eq!(got["source"]["url"], "https://coast.example/feed.xml");
    assert_eq!(got["rights"], "© 2026 The Coast Times");
    assert_eq!(
        got["licence"],
        "https://creativecommons.org/licenses/by/4.0/"
    );
    assert_eq!(got["excerpt"], serde_json::Value::Null, "kept as supplied");
}

#[tokio::test]
async fn dfb2_an_entrys_excerpt_decision_is_served_with_its_reason() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://one.example/feed.xml", "alice")
        .await;
    let mut e = dated("cut", t(10));
    e.summary = None;
    e.excerpt_decision = Some(tidings_model::Ruling::no(
        "the publisher objects: robots.txt group for GPTBot",
    ));
    server.read(feed, t(1000), vec![e]).await;
    let got = &server.get("/v1/entries").await.json["entries"][0];
    assert_eq!(
        got["excerpt"],
        serde_json::json!({
            "allowed": false,
            "why": "the publisher objects: robots.txt group for GPTBot",
        })
    );
    assert_eq!(got["summary"], serde_json::Value::Null);
}
