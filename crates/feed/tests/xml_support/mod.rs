//! The `check` helper shared by the `xml_*` test files: one row per case, each row a small
//! document, a JSON pointer into the parsed result and the exact value expected there.
//!
//! The parsed result is the serialised `ParsedFeed`, plus `warning_kinds` (the kinds of the
//! warnings, in order) and, when parsing failed, `error` (the error message).

#![allow(dead_code)]

use serde_json::{Value, json};

/// The URL every row's document is read as coming from.
pub const BASE: &str = "http://example.org/feeds/main.xml";

/// One case: name, document, JSON pointer, expected value.
pub type Row = (&'static str, &'static str, &'static str, Value);

/// Parse `doc` with `base` and return the inspectable JSON form.
pub fn parse_json(doc: &str, base: Option<&str>) -> Value {
    let base = base.and_then(|b| url::Url::parse(b).ok());
    let mut warnings = Vec::new();
    match tidings_feed::xml::parse(doc, base.as_ref(), &mut warnings) {
        Ok(parsed) => {
            let mut v = serde_json::to_value(&parsed).unwrap_or(Value::Null);
            let kinds: Vec<Value> = warnings
                .iter()
                .map(|w| serde_json::to_value(w.kind).unwrap_or(Value::Null))
                .collect();
            let messages: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
            if let Value::Object(map) = &mut v {
                map.insert("warning_kinds".into(), Value::Array(kinds));
                map.insert("warning_messages".into(), json!(messages));
            }
            v
        }
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// Check every row against the document parsed with [`BASE`]; report all failures at once.
pub fn check(rows: &[Row]) {
    check_with_base(Some(BASE), rows);
}

/// Check every row against the document parsed with `base`.
pub fn check_with_base(base: Option<&str>, rows: &[Row]) {
    let mut failures = Vec::new();
    for (name, doc, pointer, want) in rows {
        let got = parse_json(doc, base);
        let found = got.pointer(pointer).cloned().unwrap_or(Value::Null);
        if &found != want {
            failures.push(format!(
                "{name}: at {pointer}\n   want {want}\n    got {found}\n  (warnings {})",
                got.get("warning_kinds").cloned().unwrap_or(Value::Null)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// A minimal RSS 2.0 document declaring the usual namespaces around a channel body.
#[allow(unused_macros)]
macro_rules! rss {
    ($body:expr) => {
        concat!(
            r#"<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:media="http://search.yahoo.com/mrss/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/" xmlns:cc="http://web.resource.org/cc/" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:creativeCommons="http://backend.userland.com/creativeCommonsRssModule"><channel>"#,
            $body,
            "</channel></rss>"
        )
    };
}

/// A minimal Atom 1.0 document around a feed body.
#[allow(unused_macros)]
macro_rules! atom {
    ($body:expr) => {
        concat!(
            r#"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">"#,
            $body,
            "</feed>"
        )
    };
}
