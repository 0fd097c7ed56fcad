//! Bytes in, a normalized feed out: tidings' own tolerant feed parser.
//!
//! [`parse`] takes the raw bytes of a response (and, when known, the URL it came from and the
//! charset the server declared) and returns a [`ParsedFeed`]: the format it recognised, the
//! feed metadata, the entries in document order, and the warnings for everything it had to
//! forgive. It reads RSS 0.90–0.94, 2.0 and version-less `<rss>`, RSS 1.0 / RDF, Atom 0.3 and
//! 1.0, and JSON Feed 1.0 and 1.1, detected from the content, never from a Content-Type alone.
//!
//! It is lenient: a broken document yields what could be read plus warnings; only input that
//! holds no feed at all is an error. It never panics on any input (a property test and a fuzz
//! target check this). It does no I/O and never reads the clock.
//!
//! # Entry identity
//!
//! Every entry leaves the parser with a non-empty `id`, unique within its document and stable
//! across refetches and reordering: the publisher's `guid`/`id` (trimmed) when there is one,
//! else the entry's link, else `hash:` and a SHA-256 of its title, published date and first
//! enclosure URL. Entries of one document that share an id are told apart by a short hash of
//! their content (`X#1a2b3c4d`), and only entries identical in every field by their order
//! (`X#2`). The exact rule is in [`identity`].
//!
//! Reading order: [`decode`] (bytes to text), [`xml`] (a tolerant tree), the format adapters
//! `rss`, `rdf`, `atom` and [`json`] with the namespace extensions in `ext`, then
//! [`date`] for every date and [`identity`] for stable entry ids. Writing: [`opml`] and
//! [`escape`], the one function every XML document tidings writes puts its text through.

pub mod date;
pub mod decode;
pub mod entities;
pub mod escape;
pub mod identity;
pub mod json;
pub mod opml;
pub mod xml;

mod acc;
mod atom;
mod ext;
mod names;
mod rdf;
mod rss;
mod text;
mod tree;

pub use tidings_model::{Entry, Feed, FeedFormat, ParsedFeed, Warning, WarningKind};

/// What the parser knows about a document besides its bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions<'a> {
    /// The URL the document was fetched from: the base for relative links.
    pub base_url: Option<&'a str>,
    /// The `charset` parameter of the HTTP Content-Type, a hint only.
    pub charset: Option<&'a str>,
    /// The HTTP Content-Type, a hint only (the content decides the format).
    pub content_type: Option<&'a str>,
    /// A document with more entries than this is refused with
    /// [`ParseError::TooManyEntries`] as soon as the entry past the bound is met, before
    /// anything more is read: what one read may cost stays bounded whatever the number of
    /// items (C8). `None` reads every entry.
    pub max_entries: Option<usize>,
    /// A text of the feed or of an entry (title, summary, content, rights) longer than this
    /// many bytes is cut to it at a character boundary, with a [`WarningKind::TextCut`]
    /// warning per field. Entry identities are derived before the cut, so they do not depend
    /// on the bound. `None` keeps every text whole.
    pub max_text_bytes: Option<usize>,
}

/// The input holds no feed we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the document is empty")]
    Empty,
    #[error("not a feed: {0}")]
    NotAFeed(String),
    #[error("invalid JSON: {0}")]
    Json(String),
    /// More entries than [`ParseOptions::max_entries`]; nothing of the document is kept.
    #[error("more than {limit} entries in one document")]
    TooManyEntries { limit: usize },
    /// More XML elements than a document of its size may hold (a flood of tiny elements,
    /// which would cost many times the body to read); nothing of the document is kept.
    #[error("more than {limit} XML elements in a document of this size: not read")]
    TooManyElements { limit: usize },
}

/// A JSON Feed behind junk (a PHP warning, a JSONP `callback(`): read from its first `{`
/// when the text names JSON Feed's version or has an `"items"` key.
fn json_after_junk(
    text: &str,
    base: Option<&url::Url>,
    warnings: &mut Vec<tidings_model::Warning>,
    max_entries: Option<usize>,
) -> Option<Result<ParsedFeed, ParseError>> {
    if !text.contains("jsonfeed.org/version") && !text.contains("\"items\"") {
        return None;
    }
    let at = text.find('{')?;
    // An HTML page's scripts hold JSON too; only a short non-page prefix is junk.
    let junk = text.get(..at)?.to_ascii_lowercase();
    if ["<html", "<head", "<body", "<script", "<!doctype"]
        .iter()
        .any(|tag| junk.contains(tag))
    {
        return None;
    }
    let mut own = Vec::new();
    let parsed = match json::parse_bounded(text.get(at..)?, base, &mut own, max_entries) {
        Ok(parsed) => parsed,
        // Over the bound is an answer of its own, not "no feed here".
        Err(e @ ParseError::TooManyEntries { .. }) => return Some(Err(e)),
        Err(_) => return None,
    };
    warnings.push(tidings_model::Warning::new(
        tidings_model::WarningKind::JunkBeforeRoot,
        format!("skipped {at} byte(s) before the JSON document"),
    ));
    warnings.extend(own);
    Some(Ok(parsed))
}

/// Parse one document. See the crate docs.
pub fn parse(bytes: &[u8], options: &ParseOptions<'_>) -> Result<ParsedFeed, ParseError> {
    let mut warnings = Vec::new();
    let text = decode::decode(bytes, options.charset, &mut warnings);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(ParseError::Empty);
    }
    let base = options.base_url.and_then(|u| url::Url::parse(u).ok());
    let mut parsed;
    if trimmed.starts_with('{') {
        parsed = json::parse_bounded(trimmed, base.as_ref(), &mut warnings, options.max_entries)?;
    } else {
        // Read where it will be returned from: a feed is too large a value to move about.
        parsed = xml::unread();
        let read = xml::read_into(
            &text,
            base.as_ref(),
            &mut warnings,
            options.max_entries,
            &mut parsed,
        );
        match read {
            Err(ParseError::NotAFeed(reason)) => {
                parsed = json_after_junk(&text, base.as_ref(), &mut warnings, options.max_entries)
                    .ok_or(ParseError::NotAFeed(reason))??;
            }
            other => other?,
        }
    }
    identity::assign(&mut parsed.entries, &mut warnings);
    if let Some(max) = options.max_text_bytes {
        cut_texts(&mut parsed, max, &mut warnings);
    }
    parsed.warnings = warnings;
    Ok(parsed)
}

/// Cut every text of `parsed` longer than `max` bytes (see [`ParseOptions::max_text_bytes`]).
fn cut_texts(parsed: &mut ParsedFeed, max: usize, warnings: &mut Vec<Warning>) {
    let feed = &mut parsed.feed;
    for (field, text) in [
        ("title", &mut feed.title),
        ("description", &mut feed.description),
        ("rights", &mut feed.rights),
    ] {
        cut_text(text, max, || format!("the feed's {field}"), warnings);
    }
    for (i, entry) in parsed.entries.iter_mut().enumerate() {
        for (field, text) in [
            ("title", &mut entry.title),
            ("summary", &mut entry.summary),
            ("content", &mut entry.content),
            ("rights", &mut entry.rights),
        ] {
            cut_text(
                text,
                max,
                || format!("the {field} of entry {}", i + 1),
                warnings,
            );
        }
    }
}

/// Cut `text` to at most `max` bytes at a character boundary, giving back the memory cut.
fn cut_text(
    text: &mut Option<String>,
    max: usize,
    what: impl FnOnce() -> String,
    warnings: &mut Vec<Warning>,
) {
    let Some(text) = text.as_mut().filter(|t| t.len() > max) else {
        return;
    };
    let was = text.len();
    text.truncate(text.floor_char_boundary(max));
    text.shrink_to_fit();
    warnings.push(Warning::new(
        WarningKind::TextCut,
        format!("{} was cut from {was} to {} bytes", what(), text.len()),
    ));
}
