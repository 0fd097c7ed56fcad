//! The XML feed reader's driver: a tolerant tree, the format its root names, the model.
//!
//! [`parse`] has the tolerant reader in `tree` build the document's element tree (one pass of
//! its own tokenizer, with quick-xml for comments, PIs and DOCTYPEs; names, attributes and
//! most texts borrow from the input), then
//! picks the format from the root element (`rss`/`channel`, `rdf:RDF`, `feed`) and hands the
//! tree to `rss`, `rdf` or `atom`, which fill the model with help from `ext` for the namespace
//! extensions. Everything forgiven on the way (junk before the root, HTML entities, bare `&`,
//! undeclared prefixes, stray `<`, mismatched or unclosed tags, truncation, unreadable dates
//! and numbers) becomes a [`Warning`], at most a few of each kind. Anything without a feed
//! root element is [`ParseError::NotAFeed`].

use crate::ParseError;
use crate::names::Key;
use crate::text;
use crate::tree::{Doc, NodeId};
use chrono::{DateTime, Utc};
use tidings_model::{Feed, FeedFormat, ParsedFeed, Warning, WarningKind};
use url::Url;

/// Parse an XML feed document (RSS, RDF, Atom).
pub fn parse(
    text: &str,
    base: Option<&Url>,
    warnings: &mut Vec<Warning>,
) -> Result<ParsedFeed, ParseError> {
    parse_bounded(text, base, warnings, None)
}

/// [`parse`], refusing a document with more than `max_entries` entries
/// ([`ParseError::TooManyEntries`]) as soon as the first entry past the bound is met.
pub fn parse_bounded(
    text: &str,
    base: Option<&Url>,
    warnings: &mut Vec<Warning>,
    max_entries: Option<usize>,
) -> Result<ParsedFeed, ParseError> {
    let mut parsed = unread();
    read_into(text, base, warnings, max_entries, &mut parsed)?;
    Ok(parsed)
}

/// A document not read yet, for [`read_into`]: no feed, no entries (its format is a
/// placeholder until read).
pub(crate) fn unread() -> ParsedFeed {
    ParsedFeed {
        format: FeedFormat::Rss,
        feed: Feed::default(),
        entries: Vec::new(),
        warnings: Vec::new(),
    }
}

/// [`parse_bounded`] into `out`, whose feed and entries are empty: the feed, a large value,
/// is filled where it lies instead of being moved up from each reader. On an error `out` is
/// left as it was.
pub(crate) fn read_into(
    text: &str,
    base: Option<&Url>,
    warnings: &mut Vec<Warning>,
    max_entries: Option<usize>,
    out: &mut ParsedFeed,
) -> Result<(), ParseError> {
    let mut sink = Sink::new(warnings);
    let doc = crate::tree::build(text, base, &mut sink, max_entries)?;
    let root = doc.root();
    let key = Key::new(doc.node(root).local());
    let mut cx = Cx {
        doc: &doc,
        sink: &mut sink,
    };
    let (feed, entries) = (&mut out.feed, &mut out.entries);
    out.format = match key.as_str() {
        "rss" | "channel" => crate::rss::read(&mut cx, root, feed, entries),
        "rdf" => crate::rdf::read(&mut cx, root, feed, entries),
        "entry" => crate::atom::read_entry_document(&mut cx, root, entries),
        _ => crate::atom::read(&mut cx, root, feed, entries),
    };
    if doc.entity_budget_spent() {
        sink.warn(
            WarningKind::UnknownEntity,
            "declared entities would have grown the document past its expansion limit: the rest are kept as written",
        );
    }
    for name in doc.take_unknown_entities() {
        sink.warn(
            WarningKind::UnknownEntity,
            format!("unknown entity &{name}; kept as written"),
        );
    }
    Ok(())
}

/// The RSS version a `version` attribute names.
pub(crate) fn rss_version(version: Option<&str>) -> FeedFormat {
    match version.map(str::trim) {
        Some("0.91") => FeedFormat::Rss091,
        Some("0.92") => FeedFormat::Rss092,
        Some("0.93") => FeedFormat::Rss093,
        Some("0.94") => FeedFormat::Rss094,
        Some(v) if v.starts_with("2.") || v == "2" => FeedFormat::Rss20,
        _ => FeedFormat::Rss,
    }
}

/// At most this many warnings of one kind are kept; a broken page should not flood the log.
const MAX_WARNINGS_PER_KIND: u32 = 20;

/// Collects warnings, a bounded number of each kind.
pub(crate) struct Sink<'w> {
    out: &'w mut Vec<Warning>,
    counts: [u32; 16],
}

impl<'w> Sink<'w> {
    pub(crate) fn new(out: &'w mut Vec<Warning>) -> Self {
        Sink {
            out,
            counts: [0; 16],
        }
    }

    pub(crate) fn warn(&mut self, kind: WarningKind, message: impl Into<String>) {
        if let Some(count) = self.counts.get_mut(kind as usize) {
            *count += 1;
            if *count > MAX_WARNINGS_PER_KIND {
                return;
            }
        }
        self.out.push(Warning::new(kind, message));
    }
}

/// What the adapters work with: the tree and the warning sink.
pub(crate) struct Cx<'d, 'a, 'w> {
    pub(crate) doc: &'d Doc<'a>,
    pub(crate) sink: &'d mut Sink<'w>,
}

impl<'a> Cx<'_, 'a, '_> {
    /// The element's text when not empty.
    pub(crate) fn text(&self, id: NodeId) -> Option<String> {
        let t = self.doc.text(id);
        (!t.is_empty()).then(|| t.into_owned())
    }

    /// The element's text read as a date; an unreadable date is a warning.
    pub(crate) fn date(&mut self, id: NodeId) -> Option<DateTime<Utc>> {
        let raw = self.doc.text(id);
        self.date_str(&raw)
    }

    pub(crate) fn date_str(&mut self, raw: &str) -> Option<DateTime<Utc>> {
        let raw = text::trim(raw);
        if raw.is_empty() {
            return None;
        }
        let parsed = crate::date::parse(raw);
        if parsed.is_none() {
            self.sink
                .warn(WarningKind::InvalidDate, format!("unreadable date {raw:?}"));
        }
        parsed
    }

    /// The element's text as a number; an unreadable one is a warning.
    pub(crate) fn number<T: std::str::FromStr>(&mut self, id: NodeId) -> Option<T> {
        let raw = self.doc.text(id);
        if raw.is_empty() {
            return None;
        }
        let n = text::number(&raw);
        if n.is_none() {
            let name = self.doc.node(id).local();
            self.sink.warn(
                WarningKind::InvalidValue,
                format!("unreadable number {raw:?} in <{name}>"),
            );
        }
        n
    }

    /// The element's text as a URL resolved against its base.
    pub(crate) fn url_text(&self, id: NodeId) -> Option<String> {
        let t = self.doc.text(id);
        (!t.is_empty()).then(|| self.doc.url(id, &t))
    }

    /// An attribute as a URL resolved against the element's base.
    pub(crate) fn url_attr(&self, id: NodeId, name: &str) -> Option<String> {
        self.url_value(id, &self.doc.attr(id, name)?)
    }

    /// An attribute value already read, as a URL resolved against the element's base.
    pub(crate) fn url_value(&self, id: NodeId, value: &str) -> Option<String> {
        let v = text::trim(value);
        (!v.is_empty()).then(|| self.doc.url(id, v))
    }
}

/// Root element names that start a feed (`entry`: an Atom Entry Document).
pub(crate) fn is_feed_root(local: &str) -> bool {
    matches!(
        Key::new(local).as_str(),
        "rss" | "rdf" | "feed" | "channel" | "entry"
    )
}
