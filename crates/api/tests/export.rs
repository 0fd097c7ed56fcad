//! Atom and JSON Feed outputs against a real server on port 0 with a fresh SQLite store per
//! test; every output is read back with tidings' own parser.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

use support::{Server, dated, http, t};
use tidings_feed::{ParseOptions, ParsedFeed, parse};
use tidings_model::{Entry, FeedFormat, FeedId};

/// GET `path`, expect a 200 of `content_type`, parse the body with tidings' parser.
async fn fetch(server: &Server, path: &str, content_type: &str) -> (String, ParsedFeed) {
    let (status, got_type, body) = http(server.addr, "GET", path).await;
    let text = String::from_utf8(body).expect("utf-8 body");
    assert_eq!(status, 200, "GET {path}: {text}");
    assert_eq!(got_type, content_type, "GET {path}");
    let parsed = parse(text.as_bytes(), &ParseOptions::default())
        .unwrap_or_else(|e| panic!("GET {path}: does not parse ({e}): {text}"));
    (text, parsed)
}

const ATOM: &str = "application/atom+xml; charset=utf-8";
const JSON_FEED: &str = "application/feed+json";

/// An entry with a URI guid, content and an author.
fn full(key: &str, seconds: i64) -> Entry {
    let mut e = dated(key, t(seconds));
    e.id = Some(format!("https://example.org/id/{key}"));
    e.content = Some(format!("<p>Body of <b>{key}</b></p>"));
    e.authors = vec![tidings_model::Author {
        name: Some("Ana".to_owned()),
        email: None,
        uri: None,
    }];
    e.categories = vec!["news".to_owned()];
    e
}

async fn one_feed_with(entries: Vec<Entry>) -> (Server, FeedId) {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    server.read(feed, t(1000), entries).await;
    (server, feed)
}

/// (guid, title, link, published) of one entry.
type Seen = (Option<String>, Option<String>, Option<String>, String);

/// What each entry is.
fn summary(parsed: &ParsedFeed) -> Vec<Seen> {
    parsed
        .entries
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                e.title.clone(),
                e.link.clone(),
                e.published.map(|p| p.to_rfc3339()).unwrap_or_default(),
            )
        })
        .collect()
}

fn expected(keys: &[(&str, i64)]) -> Vec<Seen> {
    keys.iter()
        .map(|(key, seconds)| {
            (
                Some(format!("https://example.org/id/{key}")),
                Some(format!("Title {key}")),
                Some(format!("https://example.org/{key}")),
                t(*seconds).to_rfc3339(),
            )
        })
        .collect()
}

#[tokio::test]
async fn atom_parses_back_into_the_same_titles_links_and_ids() {
    let (server, feed) = one_feed_with(vec![full("a", 10), full("b", 20)]).await;
    let (text, parsed) = fetch(&server, &format!("/v1/feeds/{}/atom", feed.0), ATOM).await;
    assert_eq!(parsed.format, FeedFormat::Atom10, "{text}");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.feed.title.as_deref(), Some("A feed"));
    assert_eq!(parsed.feed.link.as_deref(), Some("https://example.org/"));
    assert_eq!(summary(&parsed), expected(&[("b", 20), ("a", 10)]));
    let b = &parsed.entries[0];
    assert_eq!(b.content.as_deref(), Some("<p>Body of <b>b</b></p>"));
    assert_eq!(b.summary.as_deref(), Some("Summary of b"));
    assert_eq!(b.authors[0].name.as_deref(), Some("Ana"));
    assert_eq!(b.categories, ["news"]);
    assert!(
        text.contains("<updated>2026-01-01T00:00:20Z</updated>"),
        "{text}"
    );
}

#[tokio::test]
async fn json_feed_parses_back_into_the_same_titles_links_and_ids() {
    let (server, feed) = one_feed_with(vec![full("a", 10), full("b", 20)]).await;
    let (text, parsed) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    assert_eq!(parsed.format, FeedFormat::JsonFeed11, "{text}");
    assert_eq!(parsed.feed.title.as_deref(), Some("A feed"));
    assert_eq!(summary(&parsed), expected(&[("b", 20), ("a", 10)]));
    assert_eq!(
        parsed.entries[0].content.as_deref(),
        Some("<p>Body of <b>b</b></p>")
    );
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(json["version"], "https://jsonfeed.org/version/1.1");
    assert_eq!(json["items"][0]["date_published"], "2026-01-01T00:00:20Z");
    assert_eq!(json["items"][0]["date_modified"], "2026-01-01T00:00:20Z");
}

#[tokio::test]
async fn hostile_text_stays_text() {
    let title = "<script>alert(1)</script> & ]]> \"q\" 'a'";
    let content = "<p>x</p><script>alert(2)</script>]]><![CDATA[y]]>&amp;";
    let mut e = dated("evil", t(5));
    e.title = Some(title.to_owned());
    e.content = Some(content.to_owned());
    e.link = Some("https://example.org/?a=1&b=\"2\"".to_owned());
    let (server, feed) = one_feed_with(vec![e]).await;

    let (text, parsed) = fetch(&server, &format!("/v1/feeds/{}/atom", feed.0), ATOM).await;
    assert!(!text.contains("<script"), "{text}");
    assert!(!text.contains("]]>"), "{text}");
    assert!(!text.contains("<![CDATA["), "{text}");
    let got = &parsed.entries[0];
    assert_eq!(got.title.as_deref(), Some(title));
    sanitised(got.content.as_deref());
    // The link is normalised on the way out: its quotes are percent-encoded.
    assert_eq!(
        got.link.as_deref(),
        Some("https://example.org/?a=1&b=%222%22")
    );

    let (_, parsed) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    let got = &parsed.entries[0];
    assert_eq!(got.title.as_deref(), Some(title));
    sanitised(got.content.as_deref());
}

/// Content as the exports send it: the publisher's markup sanitised (its script gone, with
/// what it held; a CDATA section, a bogus comment in HTML, gone), the rest kept as text.
fn sanitised(content: Option<&str>) {
    let content = content.expect("content");
    assert_eq!(content, "<p>x</p>]]&gt;&amp;");
}

#[tokio::test]
async fn exported_html_is_sanitised_and_json_summaries_are_text() {
    let mut e = dated("mixed", t(5));
    e.link = Some("https://example.org/post".to_owned());
    e.summary = Some("<p onclick=\"steal()\">Short <b>summary</b></p>".to_owned());
    e.content = Some(
        "<p><a href=\"javascript:alert(1)\">x</a> <a href=\"/rel\">rel</a>\
         <img src=\"pic.jpg\"><iframe src=\"https://evil.example/\"></iframe></p>"
            .to_owned(),
    );
    let (server, feed) = one_feed_with(vec![e]).await;
    for path in [
        format!("/v1/feeds/{}/atom", feed.0),
        format!("/v1/feeds/{}/feed.json", feed.0),
    ] {
        let accept = if path.ends_with("atom") {
            ATOM
        } else {
            JSON_FEED
        };
        let (text, parsed) = fetch(&server, &path, accept).await;
        let content = parsed.entries[0].content.as_deref().unwrap();
        assert!(
            !content.contains("javascript:") && !content.contains("iframe"),
            "{path}: {content}"
        );
        assert!(
            content.contains("href=\"https://example.org/rel\""),
            "{path}: {content}"
        );
        assert!(
            content.contains("src=\"https://example.org/pic.jpg\""),
            "images stay: {content}"
        );
        assert!(!text.contains("steal()"), "{path}: {text}");
    }
    let (text, _) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["items"][0]["summary"], "Short summary");
}

#[tokio::test]
async fn only_web_links_leave_in_the_api_and_the_exports() {
    let mut e = dated("links", t(5));
    e.link = Some("javascript:alert(1)".to_owned());
    e.enclosures = vec![
        tidings_model::Enclosure {
            url: "data:audio/mpeg;base64,AAAA".to_owned(),
            media_type: Some("audio/mpeg".to_owned()),
            length: Some(4),
        },
        tidings_model::Enclosure {
            url: "https://cdn.example.org/show.mp3".to_owned(),
            media_type: Some("audio/mpeg".to_owned()),
            length: Some(100),
        },
    ];
    e.authors = vec![tidings_model::Author {
        name: Some("Ana".to_owned()),
        email: None,
        uri: Some("javascript:steal()".to_owned()),
    }];
    e.source = Some(tidings_model::Source {
        title: Some("Elsewhere".to_owned()),
        link: Some("vbscript:x".to_owned()),
        url: Some("https://elsewhere.example/feed".to_owned()),
    });
    e.selected_image = Some(tidings_model::SelectedImage {
        url: "javascript:alert(2)".to_owned(),
        source: "img".to_owned(),
        shown: true,
        ..Default::default()
    });
    let (server, feed) = one_feed_with(vec![e]).await;

    let (status, _, body) = http(server.addr, "GET", "/v1/entries").await;
    assert_eq!(status, 200);
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let got = &json["entries"][0];
    assert_eq!(got["link"], serde_json::Value::Null);
    assert_eq!(got["enclosures"].as_array().unwrap().len(), 1, "{got}");
    assert_eq!(
        got["enclosures"][0]["url"],
        "https://cdn.example.org/show.mp3"
    );
    assert_eq!(got["authors"][0]["name"], "Ana");
    assert_eq!(got["authors"][0]["uri"], serde_json::Value::Null);
    assert_eq!(got["source"]["link"], serde_json::Value::Null);
    assert_eq!(got["source"]["url"], "https://elsewhere.example/feed");
    assert_eq!(got["image"], serde_json::Value::Null);
    let text = String::from_utf8(body).unwrap();
    for scheme in ["javascript:", "vbscript:", "data:"] {
        assert!(!text.contains(scheme), "{scheme} in {text}");
    }
    for (path, accept) in [
        (format!("/v1/feeds/{}/atom", feed.0), ATOM),
        (format!("/v1/feeds/{}/feed.json", feed.0), JSON_FEED),
    ] {
        let (text, parsed) = fetch(&server, &path, accept).await;
        for scheme in ["javascript:", "vbscript:", "data:"] {
            assert!(!text.contains(scheme), "{path}: {scheme} in {text}");
        }
        assert_eq!(parsed.entries[0].enclosures.len(), 1, "{path}");
    }
}

/// XML 1.0 as a conforming parser reads it (roxmltree checks the `Char` production, which
/// quick-xml and so tidings' own lenient parser do not).
fn well_formed(path: &str, text: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("GET {path}: not well-formed XML ({e}): {text:?}"));
    doc.descendants()
        .filter(|n| n.is_element())
        .flat_map(|n| {
            let text = n
                .text()
                .map(|t| (n.tag_name().name().to_owned(), t.to_owned()));
            let attrs = n
                .attributes()
                .map(|a| (a.name().to_owned(), a.value().to_owned()))
                .collect::<Vec<_>>();
            text.into_iter().chain(attrs)
        })
        .collect()
}

/// The outside abuse test's title (issue 12), and what XML keeps of it.
const PWNED: &str = "\u{1b}]0;PWNED\u{7}\u{1b}[2J";
const KEPT: &str = "]0;PWNED[2J";

#[tokio::test]
async fn control_characters_leave_every_xml_output_well_formed() {
    let server = Server::start().await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let mut e = dated("evil", t(5));
    e.title = Some(format!("Story {PWNED}\u{FFFE}"));
    e.categories = vec![format!("line\r\nbreak {PWNED}")];
    let mut record = support::ok(feed, t(1000), vec![e]);
    if let Some(meta) = record.update.meta.as_mut() {
        meta.title = Some(format!("Gazette {PWNED}"));
    }
    server.store.apply_fetch(record).await.expect("apply fetch");

    for path in [
        format!("/v1/feeds/{}/atom", feed.0),
        "/v1/entries/atom".to_owned(),
    ] {
        let (_, _, body) = http(server.addr, "GET", &path).await;
        let text = String::from_utf8(body).expect("utf-8 body");
        let values = well_formed(&path, &text);
        assert!(
            values.contains(&("title".to_owned(), format!("Story {KEPT}"))),
            "GET {path}: {values:?}"
        );
        // A line break in an attribute is kept by a reference, not normalised to a space.
        assert!(
            values.contains(&("term".to_owned(), format!("line\r\nbreak {KEPT}"))),
            "GET {path}: {values:?}"
        );
    }
    let (status, _, body) = http(server.addr, "GET", "/v1/opml").await;
    assert_eq!(status, 200);
    let text = String::from_utf8(body).expect("utf-8 body");
    let values = well_formed("/v1/opml", &text);
    assert!(
        values.contains(&("title".to_owned(), format!("Gazette {KEPT}"))),
        "{values:?}"
    );
}

#[tokio::test]
async fn ids_that_are_not_uris_become_tidings_names() {
    // `dated` gives the guid "plain", which is no URI.
    let (server, feed) = one_feed_with(vec![dated("plain", t(5))]).await;
    let (text, parsed) = fetch(&server, &format!("/v1/feeds/{}/atom", feed.0), ATOM).await;
    let id = parsed.entries[0].id.clone().expect("an id");
    assert!(id.starts_with("urn:tidings:entry:"), "{text}");
    let (_, parsed) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    assert_eq!(parsed.entries[0].id.as_deref(), Some(id.as_str()));
}

#[tokio::test]
async fn limit_bounds_the_entries() {
    let entries = (0..5).map(|i| full(&format!("e{i}"), 10 * i)).collect();
    let (server, feed) = one_feed_with(entries).await;
    for (path, content_type) in [
        (format!("/v1/feeds/{}/atom?limit=2", feed.0), ATOM),
        (format!("/v1/feeds/{}/feed.json?limit=2", feed.0), JSON_FEED),
        ("/v1/entries/atom?limit=2".to_owned(), ATOM),
        ("/v1/entries/feed.json?limit=2".to_owned(), JSON_FEED),
    ] {
        let (_, parsed) = fetch(&server, &path, content_type).await;
        assert_eq!(
            summary(&parsed),
            expected(&[("e4", 40), ("e3", 30)]),
            "{path}"
        );
    }
    for bad in ["0", "501", "x"] {
        let json = server
            .problem(
                &format!("/v1/entries/atom?limit={bad}"),
                400,
                "invalid-parameter",
            )
            .await;
        assert_eq!(json["parameter"], "limit");
    }
}

#[tokio::test]
async fn all_entries_span_every_feed() {
    let server = Server::start().await;
    let one = server.subscribe("https://one.example/feed", "alice").await;
    let two = server.subscribe("https://two.example/feed", "bob").await;
    server.read(one, t(1000), vec![full("a", 10)]).await;
    server.read(two, t(1000), vec![full("b", 20)]).await;
    let (text, atom) = fetch(&server, "/v1/entries/atom", ATOM).await;
    assert_eq!(summary(&atom), expected(&[("b", 20), ("a", 10)]));
    let sources: Vec<_> = atom
        .entries
        .iter()
        .map(|e| {
            let source = e
                .source
                .clone()
                .unwrap_or_else(|| panic!("no source: {text}"));
            (source.title, source.url, source.link)
        })
        .collect();
    let source = |feed: &str| {
        (
            Some("A feed".to_owned()),
            Some(format!("https://{feed}/feed")),
            Some("https://example.org/".to_owned()),
        )
    };
    assert_eq!(sources, [source("two.example"), source("one.example")]);
    let (_, json) = fetch(&server, "/v1/entries/feed.json", JSON_FEED).await;
    assert_eq!(summary(&json), expected(&[("b", 20), ("a", 10)]));
}

#[tokio::test]
async fn an_empty_listing_is_still_a_feed() {
    let server = Server::start().await;
    let (text, parsed) = fetch(&server, "/v1/entries/atom", ATOM).await;
    assert!(parsed.entries.is_empty(), "{text}");
    assert!(text.contains("<updated>"), "{text}");
    let feed = server.subscribe("https://one.example/feed", "alice").await;
    let (_, parsed) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    assert!(parsed.entries.is_empty());
}

#[tokio::test]
async fn a_missing_feed_is_a_404_problem() {
    let server = Server::start().await;
    for path in ["/v1/feeds/99/atom", "/v1/feeds/99/feed.json"] {
        let json = server.problem(path, 404, "not-found").await;
        assert_eq!(json["detail"], "no feed with id 99");
    }
    for path in ["/v1/feeds/x/atom", "/v1/feeds/0/feed.json"] {
        let json = server.problem(path, 400, "invalid-parameter").await;
        assert_eq!(json["parameter"], "id");
    }
}

#[tokio::test]
async fn an_entry_without_link_or_content_gets_empty_content() {
    let mut bare = dated("bare", t(5));
    bare.link = None;
    bare.summary = None;
    let (server, feed) = one_feed_with(vec![bare]).await;
    let (text, parsed) = fetch(&server, &format!("/v1/feeds/{}/atom", feed.0), ATOM).await;
    assert!(text.contains("<content type=\"html\"></content>"), "{text}");
    assert_eq!(parsed.entries[0].title.as_deref(), Some("Title bare"));
    let (text, _) = fetch(
        &server,
        &format!("/v1/feeds/{}/feed.json", feed.0),
        JSON_FEED,
    )
    .await;
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(json["items"][0]["content_text"], "");
}

#[tokio::test]
async fn other_methods_are_405_problems() {
    let (server, feed) = one_feed_with(vec![dated("a", t(5))]).await;
    for path in [
        format!("/v1/feeds/{}/atom", feed.0),
        format!("/v1/feeds/{}/feed.json", feed.0),
        "/v1/entries/atom".to_owned(),
        "/v1/entries/feed.json".to_owned(),
    ] {
        let answer = server.request("POST", &path).await;
        assert_eq!(answer.status, 405, "{path}: {:?}", answer.json);
        assert_eq!(answer.content_type, "application/problem+json", "{path}");
    }
}
