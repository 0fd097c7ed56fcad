//! Property tests: `parse` never panics on any input and is deterministic.
//!
//! Random bytes alone rarely get past the first check of a parser, so besides raw bytes the
//! inputs include bytes after a valid RSS or JSON Feed prefix, token soups made from the
//! vocabulary of each format, and structurally valid JSON trees with JSON Feed keys and values
//! of every type (where the JSON adapter must also never reject the document).

use proptest::prelude::*;
use serde_json::{Map, Value};
use tidings_feed::{ParseOptions, parse};

const RSS_PREFIX: &str = r#"<rss version="2.0"><channel>"#;
const JSON_PREFIX: &str = r#"{"version":"https://jsonfeed.org/version/1.1","items":["#;

const CHARSETS: &[Option<&str>] = &[
    None,
    Some("utf-8"),
    Some("iso-8859-1"),
    Some("utf-16le"),
    Some("shift_jis"),
    Some("no-such-charset"),
];

fn options(charset: usize, base: bool) -> ParseOptions<'static> {
    ParseOptions {
        base_url: base.then_some("https://example.org/feeds/a.xml"),
        charset: CHARSETS.get(charset % CHARSETS.len()).copied().flatten(),
        content_type: None,
        max_entries: None,
        max_text_bytes: None,
    }
}

/// Parse twice: it must not panic (the test would fail) and must give equal results.
fn check(bytes: &[u8], options: &ParseOptions<'_>) -> Result<(), TestCaseError> {
    let first = parse(bytes, options);
    let second = parse(bytes, options);
    prop_assert_eq!(&first, &second);
    if let Ok(parsed) = &first {
        // Identity invariants hold whatever the input.
        let mut ids: Vec<&str> = parsed.entries.iter().map(|e| e.identity.as_str()).collect();
        prop_assert!(ids.iter().all(|id| !id.is_empty()));
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), parsed.entries.len());
    }
    Ok(())
}

fn with_prefix(prefix: &str, tail: &[u8]) -> Vec<u8> {
    let mut bytes = prefix.as_bytes().to_vec();
    bytes.extend_from_slice(tail);
    bytes
}

/// Pieces of RSS, Atom, RDF and JSON Feed, glued at random.
fn token_soup() -> impl Strategy<Value = Vec<u8>> {
    let tokens = prop::sample::select(vec![
        "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>",
        "<rss version=\"2.0\">",
        "<rss>",
        "<channel>",
        "</channel>",
        "<item>",
        "</item>",
        "<title>",
        "</title>",
        "<link>",
        "</link>",
        "<guid>",
        "</guid>",
        "<pubDate>",
        "</pubDate>",
        "<feed xmlns=\"http://www.w3.org/2005/Atom\">",
        "<entry>",
        "</entry>",
        "<content type=\"html\">",
        "</content>",
        "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">",
        "<![CDATA[",
        "]]>",
        "&amp;",
        "&eacute;",
        "&#x;",
        "&",
        "<",
        ">",
        "\"",
        "x",
        "é",
        "\u{feff}",
        "\0",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"version\"",
        "\"https://jsonfeed.org/version/1\"",
        "\"items\"",
        "\"id\"",
        "\"url\"",
        "\"title\"",
        "\"authors\"",
        "\"attachments\"",
        "\"size_in_bytes\"",
        "\"date_published\"",
        "\"tags\"",
        "null",
        "true",
        "1e400",
        "-1",
        "18446744073709551616",
        "\"\\ud800\"",
        "\\u",
        "\\ud83d",
        "\\udc00",
        "\\\\",
        "\\u00e9",
        " ",
    ]);
    prop::collection::vec(tokens, 0..80).prop_map(|parts| parts.concat().into_bytes())
}

/// Keys of JSON Feed objects, including some that are not.
const KEYS: &[&str] = &[
    "version",
    "title",
    "home_page_url",
    "feed_url",
    "description",
    "icon",
    "favicon",
    "author",
    "authors",
    "name",
    "url",
    "avatar",
    "language",
    "expired",
    "hubs",
    "type",
    "items",
    "id",
    "external_url",
    "content_html",
    "content_text",
    "summary",
    "image",
    "banner_image",
    "date_published",
    "date_modified",
    "tags",
    "attachments",
    "mime_type",
    "size_in_bytes",
    "duration_in_seconds",
    "_ext",
];

/// Any JSON value, with object keys drawn from the JSON Feed vocabulary.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(vec![
            "",
            " ",
            "x",
            "/relative",
            "//host/p",
            "https://example.org/",
            "mailto:",
            "mailtoé",
            "mailto:a@b",
            "2026-01-02T03:04:05Z",
            "123",
            "é",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..8).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<String, Value>>(),
                )
            }),
        ]
    })
}

// The case count is proptest's default (256), which `PROPTEST_CASES` overrides for longer runs.
proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        charset in 0..CHARSETS.len(),
        base in any::<bool>(),
    ) {
        check(&bytes, &options(charset, base))?;
    }

    #[test]
    fn bytes_after_an_rss_prefix_never_panic(
        tail in prop::collection::vec(any::<u8>(), 0..2048),
        charset in 0..CHARSETS.len(),
    ) {
        check(&with_prefix(RSS_PREFIX, &tail), &options(charset, true))?;
    }

    #[test]
    fn bytes_after_a_json_feed_prefix_never_panic(
        tail in prop::collection::vec(any::<u8>(), 0..2048),
        charset in 0..CHARSETS.len(),
    ) {
        check(&with_prefix(JSON_PREFIX, &tail), &options(charset, true))?;
    }

    #[test]
    fn format_token_soup_never_panics(
        bytes in token_soup(),
        charset in 0..CHARSETS.len(),
        base in any::<bool>(),
    ) {
        check(&bytes, &options(charset, base))?;
        check(&with_prefix(RSS_PREFIX, &bytes), &options(charset, base))?;
        check(&with_prefix(JSON_PREFIX, &bytes), &options(charset, base))?;
    }

    /// A JSON Feed whose fields hold values of any type is always read, never rejected, and
    /// every object in `items` becomes an entry.
    #[test]
    fn json_feed_with_any_value_types_is_read(
        mut feed in prop::collection::vec((prop::sample::select(KEYS), json_value()), 0..10),
        items in prop::collection::vec(json_value(), 0..8),
        base in any::<bool>(),
    ) {
        feed.retain(|(k, _)| *k != "version" && *k != "items");
        let objects = items.iter().filter(|v| v.is_object()).count();
        let mut root: Map<String, Value> =
            feed.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        root.insert("version".into(), "https://jsonfeed.org/version/1.1".into());
        root.insert("items".into(), Value::Array(items));
        let text = Value::Object(root).to_string();
        let parsed = parse(text.as_bytes(), &options(0, base));
        prop_assert!(parsed.is_ok(), "{:?} for {}", parsed, text);
        if let Ok(parsed) = parsed {
            prop_assert_eq!(parsed.entries.len(), objects);
        }
        check(text.as_bytes(), &options(0, base))?;
    }
}
