//! JSON Feed 1.0 and 1.1: the mapping to the model, and tolerance of wrong value types.

use serde_json::json;
use tidings_feed::{ParseError, ParseOptions, WarningKind, json};
use tidings_model::{Author, Enclosure, FeedFormat, ParsedFeed, Warning};
use url::Url;

/// Parse through the JSON adapter alone (no identity pass), returning the feed and warnings.
fn adapt(doc: &serde_json::Value, base: Option<&str>) -> (ParsedFeed, Vec<Warning>) {
    let base = base.map(|b| Url::parse(b).unwrap());
    let mut warnings = Vec::new();
    let parsed = json::parse(&doc.to_string(), base.as_ref(), &mut warnings)
        .unwrap_or_else(|e| panic!("{doc} was rejected: {e}"));
    (parsed, warnings)
}

fn kinds(warnings: &[Warning]) -> Vec<WarningKind> {
    warnings.iter().map(|w| w.kind).collect()
}

fn count(warnings: &[Warning], kind: WarningKind) -> usize {
    warnings.iter().filter(|w| w.kind == kind).count()
}

/// Parse through the crate entry point.
fn parse_text(text: &str) -> Result<ParsedFeed, ParseError> {
    tidings_feed::parse(text.as_bytes(), &ParseOptions::default())
}

#[test]
fn full_1_1_feed_maps_every_field() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Tidings test",
        "home_page_url": "https://example.org/",
        "feed_url": "https://example.org/feed.json",
        "description": "A feed with everything",
        "user_comment": "ignored",
        "next_url": "https://example.org/feed.json?page=2",
        "icon": "https://example.org/icon-512.png",
        "favicon": "https://example.org/favicon-64.png",
        "authors": [{"name": "Ada", "url": "https://example.org/ada", "avatar": "https://example.org/ada.png"}],
        "language": "en-GB",
        "expired": true,
        "hubs": [{"type": "WebSub", "url": "https://hub.example.net/"}, {"type": "rssCloud", "url": "https://cloud.example.net/"}],
        "_example": {"about": "https://example.org/ext"},
        "items": [{
            "id": "tag:example.org,2026:1",
            "url": "https://example.org/posts/1",
            "external_url": "https://elsewhere.example.com/story",
            "title": "First post",
            "content_html": "<p>Hello <b>world</b></p>",
            "content_text": "Hello world",
            "summary": "Hello",
            "image": "https://example.org/1.png",
            "banner_image": "https://example.org/1-wide.png",
            "date_published": "2026-01-02T03:04:05Z",
            "date_modified": "2026-01-03T03:04:05+01:00",
            "authors": [{"name": "Grace"}],
            "tags": ["rust", "feeds"],
            "language": "fr",
            "attachments": [{"url": "https://example.org/1.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 12345, "duration_in_seconds": 60}],
            "_ext": {"x": 1}
        }]
    });
    let (p, warnings) = adapt(&doc, None);
    assert_eq!(p.format, FeedFormat::JsonFeed11);
    let f = &p.feed;
    assert_eq!(f.title.as_deref(), Some("Tidings test"));
    assert_eq!(f.link.as_deref(), Some("https://example.org/"));
    assert_eq!(f.self_url.as_deref(), Some("https://example.org/feed.json"));
    let links: Vec<(&str, &str)> = f
        .links
        .iter()
        .map(|l| (l.rel.as_str(), l.href.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("alternate", "https://example.org/"),
            ("self", "https://example.org/feed.json")
        ]
    );
    assert_eq!(f.description.as_deref(), Some("A feed with everything"));
    assert_eq!(f.image.as_deref(), Some("https://example.org/icon-512.png"));
    assert_eq!(
        f.icon.as_deref(),
        Some("https://example.org/favicon-64.png")
    );
    assert_eq!(
        f.authors,
        [Author {
            name: Some("Ada".into()),
            email: None,
            uri: Some("https://example.org/ada".into())
        }]
    );
    assert_eq!(f.language.as_deref(), Some("en-GB"));
    assert_eq!(f.hub.as_deref(), Some("https://hub.example.net/"));
    // FF16: `expired` never expires anything.
    assert_eq!(f.expires, None);

    assert_eq!(p.entries.len(), 1);
    let e = &p.entries[0];
    assert_eq!(e.id.as_deref(), Some("tag:example.org,2026:1"));
    assert_eq!(
        e.identity, "",
        "the adapter leaves the identity to the rule"
    );
    assert_eq!(e.link.as_deref(), Some("https://example.org/posts/1"));
    let links: Vec<(&str, &str)> = e
        .links
        .iter()
        .map(|l| (l.rel.as_str(), l.href.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("alternate", "https://example.org/posts/1"),
            ("related", "https://elsewhere.example.com/story")
        ]
    );
    assert_eq!(e.title.as_deref(), Some("First post"));
    assert_eq!(e.content.as_deref(), Some("<p>Hello <b>world</b></p>"));
    assert_eq!(e.summary.as_deref(), Some("Hello"));
    let thumbs: Vec<&str> = e.thumbnails.iter().map(|t| t.url.as_str()).collect();
    assert_eq!(
        thumbs,
        [
            "https://example.org/1.png",
            "https://example.org/1-wide.png"
        ]
    );
    assert_eq!(
        e.published,
        tidings_feed::date::parse("2026-01-02T03:04:05Z")
    );
    assert_eq!(
        e.updated,
        tidings_feed::date::parse("2026-01-03T03:04:05+01:00")
    );
    assert_eq!(e.authors[0].name.as_deref(), Some("Grace"));
    assert_eq!(e.categories, ["rust", "feeds"]);
    assert_eq!(e.language.as_deref(), Some("fr"));
    assert_eq!(
        e.enclosures,
        [Enclosure {
            url: "https://example.org/1.mp3".into(),
            media_type: Some("audio/mpeg".into()),
            length: Some(12345)
        }]
    );
    // Nothing was forgiven except possibly dates the date reader does not know yet.
    assert!(
        warnings.iter().all(|w| w.kind == WarningKind::InvalidDate),
        "{warnings:?}"
    );
}

#[test]
fn version_1_0_with_single_author() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1",
        "title": "Old",
        "author": {"name": "Linus", "url": "mailto:linus@example.org"},
        "items": [{"id": "1", "content_text": "plain", "author": {"name": "Item author"}}]
    });
    let (p, warnings) = adapt(&doc, None);
    assert_eq!(p.format, FeedFormat::JsonFeed10);
    assert_eq!(
        p.feed.authors,
        [Author {
            name: Some("Linus".into()),
            email: Some("linus@example.org".into()),
            uri: None
        }]
    );
    assert_eq!(p.entries[0].authors[0].name.as_deref(), Some("Item author"));
    assert_eq!(p.entries[0].content.as_deref(), Some("plain"));
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn authors_win_over_author_when_both_are_given() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "author": {"name": "Old style"},
        "authors": [{"name": "New style"}],
        "items": []
    });
    let (p, _) = adapt(&doc, None);
    assert_eq!(p.feed.authors.len(), 1);
    assert_eq!(p.feed.authors[0].name.as_deref(), Some("New style"));
}

#[test]
fn version_detection_table() {
    // (name, document, expected format or None for NotAFeed, expects a version warning)
    let rows: &[(&str, serde_json::Value, Option<FeedFormat>, bool)] = &[
        (
            "exact 1.0",
            json!({"version": "https://jsonfeed.org/version/1", "items": []}),
            Some(FeedFormat::JsonFeed10),
            false,
        ),
        (
            "exact 1.1",
            json!({"version": "https://jsonfeed.org/version/1.1", "items": []}),
            Some(FeedFormat::JsonFeed11),
            false,
        ),
        (
            "http and trailing slash is 1.0 with a warning",
            json!({"version": "http://jsonfeed.org/version/1/", "items": []}),
            Some(FeedFormat::JsonFeed10),
            true,
        ),
        (
            "missing version with items is 1.1",
            json!({"items": []}),
            Some(FeedFormat::JsonFeed11),
            true,
        ),
        (
            "unknown version with items is 1.1",
            json!({"version": "2", "items": [{"id": "a"}]}),
            Some(FeedFormat::JsonFeed11),
            true,
        ),
        (
            "numeric version with items is 1.1",
            json!({"version": 1.1, "items": []}),
            Some(FeedFormat::JsonFeed11),
            true,
        ),
        (
            "future JSON Feed version without items is still a feed",
            json!({"version": "https://jsonfeed.org/version/1.2"}),
            Some(FeedFormat::JsonFeed11),
            true,
        ),
        (
            "jsonfeed version without items",
            json!({"version": "https://jsonfeed.org/version/1.1", "title": "Empty"}),
            Some(FeedFormat::JsonFeed11),
            false,
        ),
        (
            "object without version or items",
            json!({"name": "package.json", "version": "1.2.3"}),
            None,
            false,
        ),
        ("empty object", json!({}), None, false),
        ("array", json!([1, 2, 3]), None, false),
        (
            "string",
            json!("https://jsonfeed.org/version/1.1"),
            None,
            false,
        ),
    ];
    for (name, doc, expected, version_warning) in rows {
        let mut warnings = Vec::new();
        let result = json::parse(&doc.to_string(), None, &mut warnings);
        match (expected, result) {
            (Some(format), Ok(p)) => {
                assert_eq!(p.format, *format, "{name}");
                let warned = warnings.iter().any(|w| w.message.starts_with("version"));
                assert_eq!(warned, *version_warning, "{name}: {warnings:?}");
            }
            (None, Err(ParseError::NotAFeed(_))) => {}
            (expected, got) => panic!("{name}: expected {expected:?}, got {got:?}"),
        }
    }
}

#[test]
fn invalid_json_is_a_json_error_with_serde_message() {
    for text in ["{", "{\"items\": [}", "{\"version\": 'single'}", "{ nope }"] {
        match parse_text(text) {
            Err(ParseError::Json(message)) => {
                assert!(message.contains("line"), "{text}: {message}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn a_truncated_document_keeps_what_was_read() {
    let text = r#"{"version":"https://jsonfeed.org/version/1.1","title":"Cut","items":[{"id":"1","title":"whole"},{"id":"2","title":"par"#;
    let p = parse_text(text).unwrap();
    assert_eq!(p.feed.title.as_deref(), Some("Cut"));
    assert_eq!(p.entries.len(), 2);
    assert_eq!(p.entries[0].title.as_deref(), Some("whole"));
    assert_eq!(p.entries[1].id.as_deref(), Some("2"));
    assert_eq!(p.entries[1].title, None);
    assert_eq!(count(&p.warnings, WarningKind::Truncated), 1);
}

#[test]
fn a_document_cut_before_any_item_keeps_the_feed() {
    let text = r#"{"version":"https://jsonfeed.org/version/1.1","title":"Early","items":[{"id":"#;
    let p = parse_text(text).unwrap();
    assert_eq!(p.feed.title.as_deref(), Some("Early"));
    assert!(p.entries.is_empty());
}

#[test]
fn trailing_commas_are_ignored() {
    let text =
        r#"{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"a","title":"t,",},],}"#;
    let p = parse_text(text).unwrap();
    assert_eq!(p.entries[0].title.as_deref(), Some("t,"));
    assert_eq!(kinds(&p.warnings), [WarningKind::InvalidValue]);
}

#[test]
fn junk_before_a_json_feed_is_skipped() {
    for text in [
        "<br />\n<b>Warning</b>: headers sent<br />\n{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"a\"}]}",
        "callback({\"version\":\"https://jsonfeed.org/version/1\",\"items\":[{\"id\":\"a\"}]});",
    ] {
        let p = parse_text(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.entries.len(), 1, "{text}");
        assert!(
            kinds(&p.warnings).contains(&WarningKind::JunkBeforeRoot),
            "{text}"
        );
    }
    // Without a sign of JSON Feed, an HTML page with braces is still not a feed; nor is a
    // page whose script holds something shaped like one.
    assert!(matches!(
        parse_text("<html><script>var a = {\"b\": 1};</script></html>"),
        Err(ParseError::NotAFeed(_))
    ));
    assert!(matches!(
        parse_text("<html><script>var s = {\"items\": [{\"id\": \"1\"}]};</script></html>"),
        Err(ParseError::NotAFeed(_))
    ));
}

#[test]
fn trailing_text_after_the_document_is_ignored_with_a_warning() {
    let text = r#"{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"a"}]}
<!-- served by a cache -->"#;
    let p = parse_text(text).unwrap();
    assert_eq!(p.entries.len(), 1);
    assert_eq!(kinds(&p.warnings), [WarningKind::InvalidValue]);
}

#[test]
fn wrong_types_never_reject_the_document() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": 42,
        "description": {"text": "nested"},
        "home_page_url": ["https://example.org/a", "https://example.org/b"],
        "feed_url": {"url": "https://example.org/feed.json"},
        "icon": true,
        "favicon": null,
        "authors": {"name": "Lone author"},
        "language": ["en"],
        "hubs": "https://hub.example.net/",
        "items": [
            {
                "id": 1234,
                "title": ["Array", "title"],
                "url": 7,
                "summary": null,
                "content_html": {"html": "<p>x</p>"},
                "content_text": "fallback text",
                "tags": "single-tag",
                "authors": ["Bare name", 5, null, {"name": 9}],
                "attachments": {"url": "/a.mp3", "size_in_bytes": "2048", "mime_type": 3},
                "date_published": 20260102,
                "image": {"url": "https://example.org/i.png"}
            },
            "not an item",
            17,
            null,
            {"id": true, "tags": [1, "two", ["three"], {"four": 4}, " ", null]},
            {"id": [1], "attachments": [{"mime_type": "audio/mpeg"}, {"url": "https://x.example/b", "size_in_bytes": -3}, {"url": "https://x.example/c", "size_in_bytes": 12.0}]}
        ]
    });
    let (p, warnings) = adapt(&doc, None);
    let f = &p.feed;
    assert_eq!(f.title.as_deref(), Some("42"));
    assert_eq!(f.description, None);
    assert_eq!(f.link.as_deref(), Some("https://example.org/a"));
    assert_eq!(f.self_url.as_deref(), Some("https://example.org/feed.json"));
    assert_eq!(f.image.as_deref(), Some("true"));
    assert_eq!(f.icon, None);
    assert_eq!(f.authors.len(), 1);
    assert_eq!(f.authors[0].name.as_deref(), Some("Lone author"));
    assert_eq!(f.language.as_deref(), Some("en"));
    assert_eq!(f.hub.as_deref(), Some("https://hub.example.net/"));

    // Only the three objects are items.
    assert_eq!(p.entries.len(), 3);
    let e = &p.entries[0];
    assert_eq!(e.id.as_deref(), Some("1234"));
    assert_eq!(e.title.as_deref(), Some("Array"));
    assert_eq!(e.link.as_deref(), Some("7"));
    assert_eq!(e.summary, None);
    assert_eq!(e.content.as_deref(), Some("fallback text"));
    assert_eq!(e.categories, ["single-tag"]);
    let names: Vec<Option<&str>> = e.authors.iter().map(|a| a.name.as_deref()).collect();
    assert_eq!(names, [Some("Bare name"), Some("9")]);
    assert_eq!(
        e.enclosures,
        [Enclosure {
            url: "/a.mp3".into(),
            media_type: Some("3".into()),
            length: Some(2048)
        }]
    );
    // A number where a date string belongs is read as its digits: 20260102 is an ISO 8601
    // basic-format date.
    assert_eq!(
        e.published,
        tidings_feed::date::parse("2026-01-02T00:00:00Z")
    );
    assert_eq!(e.thumbnails[0].url, "https://example.org/i.png");

    assert_eq!(p.entries[1].id.as_deref(), Some("true"));
    assert_eq!(p.entries[1].categories, ["1", "two"]);

    let e = &p.entries[2];
    assert_eq!(e.id, None);
    let urls: Vec<(&str, Option<u64>)> = e
        .enclosures
        .iter()
        .map(|x| (x.url.as_str(), x.length))
        .collect();
    assert_eq!(
        urls,
        [
            ("https://x.example/b", None),
            ("https://x.example/c", Some(12))
        ]
    );

    assert!(
        count(&warnings, WarningKind::WrongType) >= 20,
        "{warnings:#?}"
    );
    assert_eq!(
        count(&warnings, WarningKind::InvalidValue),
        2,
        "{warnings:#?}"
    );
    // Every warning names the field it is about, down to nested positions.
    let messages: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
    for expected in [
        "title: expected a string, found a number",
        "hubs: expected an array, found a string",
        "hubs[0]: expected an object, found a string",
        "items[0].authors[3].name: expected a string, found a number",
        "items[0].attachments[0].size_in_bytes: expected a number, found a string",
        "items[1]: expected an object, found a string",
        "items[4].tags[2]: expected a string, found an array",
        "items[5].attachments[0]: attachment without a url skipped",
    ] {
        assert!(
            messages.contains(&expected),
            "{expected} not in {messages:#?}"
        );
    }
    for w in &warnings {
        assert!(
            w.message.contains(':') && !w.message.ends_with('.'),
            "{w:?}"
        );
    }
}

#[test]
fn items_that_are_not_an_array() {
    let (p, warnings) = adapt(
        &json!({"version": "https://jsonfeed.org/version/1.1", "items": {"id": "only"}}),
        None,
    );
    assert_eq!(p.entries.len(), 1);
    assert_eq!(p.entries[0].id.as_deref(), Some("only"));
    assert_eq!(kinds(&warnings), [WarningKind::WrongType]);

    let (p, warnings) = adapt(
        &json!({"version": "https://jsonfeed.org/version/1.1", "items": "nothing"}),
        None,
    );
    assert!(p.entries.is_empty());
    assert_eq!(count(&warnings, WarningKind::WrongType), 2);

    let (p, warnings) = adapt(
        &json!({"version": "https://jsonfeed.org/version/1.1", "items": null}),
        None,
    );
    assert!(p.entries.is_empty());
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn content_html_is_preferred_and_text_is_the_fallback() {
    let rows = [
        (
            json!({"content_html": "<p>h</p>", "content_text": "t"}),
            Some("<p>h</p>"),
        ),
        (json!({"content_text": "t"}), Some("t")),
        (
            json!({"content_html": null, "content_text": "t"}),
            Some("t"),
        ),
        (json!({}), None),
    ];
    for (item, expected) in rows {
        let doc = json!({"version": "https://jsonfeed.org/version/1.1", "items": [item]});
        let (p, _) = adapt(&doc, None);
        assert_eq!(p.entries[0].content.as_deref(), expected, "{doc}");
    }
}

#[test]
fn dates_that_cannot_be_read_warn_and_stay_empty() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "items": [{"id": "a", "date_published": "sometime last week", "date_modified": "  "}]
    });
    let (p, warnings) = adapt(&doc, None);
    assert_eq!(p.entries[0].published, None);
    assert_eq!(p.entries[0].updated, None);
    assert_eq!(kinds(&warnings), [WarningKind::InvalidDate]);
    assert!(warnings[0].message.contains("items[0].date_published"));
}

#[test]
fn relative_urls_are_resolved_against_the_base() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "home_page_url": "/",
        "feed_url": "feed.json",
        "icon": "//cdn.example.net/icon.png",
        "favicon": "  ",
        "authors": [{"name": "A", "url": "../people/a"}],
        "hubs": [{"url": "https://hub.example.net/"}],
        "items": [{
            "id": "1",
            "url": "posts/1?x=1#top",
            "external_url": "https://other.example/",
            "image": "img/1.png",
            "attachments": [{"url": "media/1.mp3"}]
        }]
    });
    let (p, _) = adapt(&doc, Some("https://example.org/blog/feeds/main.json"));
    assert_eq!(p.feed.link.as_deref(), Some("https://example.org/"));
    assert_eq!(
        p.feed.self_url.as_deref(),
        Some("https://example.org/blog/feeds/feed.json")
    );
    assert_eq!(
        p.feed.image.as_deref(),
        Some("https://cdn.example.net/icon.png")
    );
    assert_eq!(p.feed.icon, None);
    assert_eq!(
        p.feed.authors[0].uri.as_deref(),
        Some("https://example.org/blog/people/a")
    );
    let e = &p.entries[0];
    assert_eq!(
        e.link.as_deref(),
        Some("https://example.org/blog/feeds/posts/1?x=1#top")
    );
    assert_eq!(e.links[1].href, "https://other.example/");
    assert_eq!(
        e.thumbnails[0].url,
        "https://example.org/blog/feeds/img/1.png"
    );
    assert_eq!(
        e.enclosures[0].url,
        "https://example.org/blog/feeds/media/1.mp3"
    );

    // Without a base, relative URLs are kept as written (trimmed).
    let (p, _) = adapt(&doc, None);
    assert_eq!(p.feed.link.as_deref(), Some("/"));
    assert_eq!(p.entries[0].link.as_deref(), Some("posts/1?x=1#top"));
}

#[test]
fn end_to_end_assigns_identities_and_keeps_warnings() {
    let text = r#"{"version":"https://jsonfeed.org/version/1.1","items":[
        {"id":" a ","title":"one"},
        {"url":"https://example.org/2","title":"two"},
        {"title":"three"},
        {"id":"dup","title":"x"},
        {"id":"dup","title":"y"}
    ]}"#;
    let p = tidings_feed::parse(
        text.as_bytes(),
        &ParseOptions {
            base_url: Some("https://example.org/feed.json"),
            ..ParseOptions::default()
        },
    )
    .unwrap();
    let ids: Vec<&str> = p.entries.iter().map(|e| e.identity.as_str()).collect();
    assert_eq!(ids[0], "a");
    assert_eq!(p.entries[0].id.as_deref(), Some(" a "));
    assert_eq!(ids[1], "https://example.org/2");
    assert!(ids[2].starts_with("hash:"), "{ids:?}");
    assert!(ids[3].starts_with("dup") && ids[4].starts_with("dup") && ids[3] != ids[4]);
    assert_eq!(count(&p.warnings, WarningKind::DuplicateId), 1);
}

#[test]
fn leading_whitespace_does_not_matter() {
    let text = "\n\t {\"version\":\"https://jsonfeed.org/version/1\",\"items\":[{\"id\":\"x\"}]}";
    let p = parse_text(text).unwrap();
    assert_eq!(p.format, FeedFormat::JsonFeed10);
    assert_eq!(p.entries.len(), 1);
}

#[test]
fn deeply_nested_json_is_cut_not_a_crash() {
    let depth = 100_000;
    let text = format!(
        "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":{}{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    // serde stops at its nesting limit; what came before is kept, the nesting is dropped.
    let p = parse_text(&text).unwrap();
    assert_eq!(p.feed.title.as_deref(), Some("t"));
    assert!(p.entries.is_empty());
    assert!(kinds(&p.warnings).contains(&WarningKind::Truncated));
    // Nesting alone, with nothing complete before it, stays an error.
    let bare = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(parse_text(&format!("{{\"items\":{bare}}}")).is_err());
}

#[test]
fn absolute_urls_are_kept_as_written_even_with_a_base() {
    let doc = json!({
        "version": "https://jsonfeed.org/version/1.1",
        "items": [{"id": "1", "url": " HTTP://Example.ORG/a%20b/../c ", "external_url": "mailto:x@example.org"}]
    });
    let (p, _) = adapt(&doc, Some("https://base.example/"));
    assert_eq!(
        p.entries[0].link.as_deref(),
        Some("HTTP://Example.ORG/a%20b/../c")
    );
    assert_eq!(p.entries[0].links[1].href, "mailto:x@example.org");
}

#[test]
fn lone_surrogate_escapes_are_replaced_not_fatal() {
    // A title cut inside an emoji (high surrogate alone), a stray low surrogate, a proper pair,
    // and an escaped backslash followed by "ud800", which is text and must stay as it is.
    let text = r#"{"version":"https://jsonfeed.org/version/1.1","items":[
        {"id":"a","title":"Party \ud83d"},
        {"id":"b","title":"\udc00x\ud83d\ude00"},
        {"id":"c","title":"\\ud800"}
    ]}"#;
    let p = parse_text(text).unwrap();
    let titles: Vec<&str> = p
        .entries
        .iter()
        .map(|e| e.title.as_deref().unwrap())
        .collect();
    assert_eq!(titles, ["Party \u{fffd}", "\u{fffd}x\u{1f600}", "\\ud800"]);
    assert_eq!(kinds(&p.warnings), [WarningKind::Encoding]);

    // A document with other faults as well (here: the missing brackets of a truncated
    // document) gets both repairs, each with its warning.
    let p = parse_text(r#"{"items":[{"title":"\ud83d"}"#).unwrap();
    assert_eq!(p.entries[0].title.as_deref(), Some("\u{fffd}"));
    assert!(kinds(&p.warnings).contains(&WarningKind::Encoding));
    assert!(kinds(&p.warnings).contains(&WarningKind::Truncated));

    // One that cannot be repaired is an error reported with serde's message about the
    // original text (the unpaired surrogate, found before the broken object).
    match parse_text(r#"{"title":"\ud83d" "x"}"#) {
        Err(ParseError::Json(message)) => assert!(message.contains("escape"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_byte_order_mark_left_by_the_decoder_is_skipped() {
    let mut warnings = Vec::new();
    let text =
        "\u{feff}{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{\"id\":\"x\"}]}";
    let p = json::parse(text, None, &mut warnings).unwrap();
    assert_eq!(p.entries.len(), 1);
    assert!(warnings.is_empty());
}
