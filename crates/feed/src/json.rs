//! JSON Feed 1.0 and 1.1 (<https://jsonfeed.org/version/1.1>).
//!
//! Same shape as the XML format modules: first the "wire" reading, then an adapter to the shared
//! model. The wire reading is deliberately a [`serde_json::Value`] rather than typed structs,
//! because real feeds put a number where a string belongs, a bare string where an array belongs,
//! an object where a URL belongs. None of that rejects the document: each field is read by hand
//! and, with a [`WarningKind::WrongType`] warning, coerced when the intent is clear or skipped
//! otherwise:
//! - a number or boolean where text belongs becomes its JSON text (`"id": 42` gives `"42"`);
//! - an array where text belongs gives its first string;
//! - an object with a `url` where a URL belongs gives that `url`; other objects are skipped;
//! - a lone value where an array belongs (`"tags": "rust"`, `"authors": {...}`) is a list of one;
//! - a bare string where an author object belongs is the author's name;
//! - a numeric string where a size belongs is read as the number.
//!
//! `null` is read as "absent" without a warning: the specification allows omitting every
//! optional field and generators write `null` for that.
//!
//! What is and is not an error:
//! - text that is not JSON: [`ParseError::Json`] with serde's message, except for what is
//!   repaired with a warning: unpaired UTF-16 surrogate escapes (a string cut inside an
//!   emoji) become U+FFFD ([`WarningKind::Encoding`]); trailing commas are dropped
//!   ([`WarningKind::InvalidValue`]); a document that ends or breaks early is cut after the
//!   last complete value before the fault and its open brackets closed
//!   ([`WarningKind::Truncated`]), so a truncated feed keeps the items read;
//! - JSON that is not an object, or an object with neither a JSON Feed `version` nor `items`:
//!   [`ParseError::NotAFeed`];
//! - an object with `items` but a missing or unknown `version`: read as 1.1, with a warning
//!   (near misses such as `http://jsonfeed.org/version/1/` are read as the version they name).
//!
//! Mapping: `title`, `description`, `language`; `home_page_url` is `link` (and an `alternate`
//! link); `feed_url` is `self_url` (and a `self` link); `icon` is `image`, `favicon` is `icon`;
//! `authors`, or when it gives nobody the 1.0 `author`, are `authors` (an author `url` starting
//! with `mailto:` is an email); the first of `hubs` is `hub`. For items: `id` is both `guid`
//! and (until [`crate::identity`] decides) `id`; `url` is `link` (and an `alternate` link);
//! `external_url` is a `related` link; `content_html`, else `content_text`, is `content`;
//! `summary`; `image` and `banner_image` are thumbnails; `date_published` and `date_modified`
//! are `published` and `updated` (a date that cannot be read warns); `authors`; `tags` are
//! `categories`; `attachments` are enclosures (`url`, `mime_type`, `size_in_bytes`; one without
//! a URL is skipped); `language`.
//!
//! Ignored: fields starting with `_` (extensions), `next_url`, `user_comment`, `avatar`,
//! attachment `title` and `duration_in_seconds`, and `expired`, which in particular never sets
//! `expires`: per FF16 it does not expire entries. Text after the end of the top-level value
//! (a comment a cache appended) is ignored with a warning. Relative URLs are resolved against
//! the document's URL when it is known; absolute ones are kept as written.

mod stream;

use crate::ParseError;
use serde_json::{Map, Value};
use std::borrow::Cow;
use stream::Top;
use tidings_model::{
    Author, Enclosure, Entry, Feed, FeedFormat, Link, ParsedFeed, Thumbnail, Warning, WarningKind,
};
use url::Url;

/// The version URL of JSON Feed 1.0.
const VERSION_10: &str = "https://jsonfeed.org/version/1";
/// The version URL of JSON Feed 1.1.
const VERSION_11: &str = "https://jsonfeed.org/version/1.1";

/// Parse a JSON Feed document.
pub fn parse(
    text: &str,
    base: Option<&Url>,
    warnings: &mut Vec<Warning>,
) -> Result<ParsedFeed, ParseError> {
    parse_bounded(text, base, warnings, None)
}

/// [`parse`], refusing a document with more than `max_entries` items
/// ([`ParseError::TooManyEntries`]) as soon as the first item past the bound is met.
pub fn parse_bounded(
    text: &str,
    base: Option<&Url>,
    warnings: &mut Vec<Warning>,
    max_entries: Option<usize>,
) -> Result<ParsedFeed, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut items = stream::Items::new(base, max_entries);
    let root = match read_value(text, warnings, &mut items)? {
        Top::Object(root) => root,
        Top::Other(kind) => {
            return Err(ParseError::NotAFeed(format!(
                "the JSON document is {kind}, not an object"
            )));
        }
    };
    let mut root = root;
    let mut cx = Adapter { base, warnings };
    let format = cx.version(&root)?;
    let others = root.remove("items");
    let feed = cx.feed(root);
    let entries = if items.streamed {
        cx.warnings.append(&mut items.warnings);
        items.entries
    } else {
        cx.items(others)
    };
    Ok(ParsedFeed {
        format,
        feed,
        entries,
        warnings: Vec::new(),
    })
}

/// Read the first JSON value of `text`, tolerating anything after it, and lone UTF-16
/// surrogate escapes (`"\ud83d"`, what a title cut in the middle of an emoji becomes).
fn read_value(
    text: &str,
    warnings: &mut Vec<Warning>,
    items: &mut stream::Items<'_>,
) -> Result<Top, ParseError> {
    let limit = |items: &stream::Items<'_>| {
        items.over_limit.then(|| ParseError::TooManyEntries {
            limit: items_limit(items),
        })
    };
    let error = match read_first_value(text, warnings, items) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    if let Some(over) = limit(items) {
        return Err(over);
    }
    let first_error = error.to_string();
    let mut current = Cow::Borrowed(text);
    let mut last_error = error;
    if let Some(repaired) = replace_lone_surrogates(&current) {
        warnings.push(Warning::new(
            WarningKind::Encoding,
            "lone UTF-16 surrogate escapes replaced with U+FFFD",
        ));
        match read_first_value(&repaired, warnings, items) {
            Ok(value) => return Ok(value),
            Err(_) if items.over_limit => return Err(limit(items).unwrap_or(ParseError::Empty)),
            Err(e) => last_error = e,
        }
        current = Cow::Owned(repaired);
    }
    // Trailing commas first (dropping them loses nothing), then a cut after the last
    // complete value before the error, which keeps what was read of a truncated document.
    if let Some(fixed) = without_trailing_commas(&current) {
        warnings.push(Warning::new(
            WarningKind::InvalidValue,
            "trailing commas in the JSON ignored",
        ));
        match read_first_value(&fixed, warnings, items) {
            Ok(value) => return Ok(value),
            Err(_) if items.over_limit => return Err(limit(items).unwrap_or(ParseError::Empty)),
            Err(e) => last_error = e,
        }
        current = Cow::Owned(fixed);
    }
    let error = last_error;
    let text = current.as_ref();
    if let Some(cut) = cut_at_last_value(text, byte_offset(text, &error)) {
        let read = read_first_value(&cut, warnings, items);
        if let Some(over) = limit(items) {
            return Err(over);
        }
        if let Ok(value) = read {
            warnings.push(Warning::new(
                WarningKind::Truncated,
                format!("the JSON ends or breaks early ({error}): kept what was read before"),
            ));
            return Ok(value);
        }
    }
    Err(ParseError::Json(first_error))
}

/// The byte offset a serde error points at (its line and column), within `text`.
fn byte_offset(text: &str, error: &serde_json::Error) -> usize {
    let line_start = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    line_start.saturating_add(error.column()).min(text.len())
}

/// `text` without the commas (outside strings) that only whitespace separates from a `]` or
/// `}`; `None` when there is none.
fn without_trailing_commas(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut drop = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' => {
                let next = bytes
                    .get(i + 1..)
                    .and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace()));
                if matches!(next, Some(b']' | b'}')) {
                    drop.push(i);
                }
            }
            _ => {}
        }
    }
    if drop.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in drop {
        out.push_str(text.get(from..at).unwrap_or(""));
        from = at + 1;
    }
    out.push_str(text.get(from..).unwrap_or(""));
    Some(out)
}

/// `text` cut after the last complete value before `limit` (one a comma follows, or a closed
/// object or array), with the brackets still open there closed: `{"items":[{"id":"1"},{"id":"2","ti`
/// gives `{"items":[{"id":"1"},{"id":"2"}]}`. `None` when no value completes before `limit`.
fn cut_at_last_value(text: &str, limit: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut best: Option<(usize, Vec<u8>)> = None;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().take(limit) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => stack.push(b),
            // A comma follows a complete value: the document can end before it.
            b',' if !stack.is_empty() => best = Some((i, stack.clone())),
            b'}' | b']' => {
                stack.pop();
                if !stack.is_empty() {
                    best = Some((i + 1, stack.clone()));
                }
            }
            _ => {}
        }
    }
    let (at, open) = best?;
    let mut out = text.get(..at)?.to_owned();
    for &b in open.iter().rev() {
        out.push(if b == b'{' { '}' } else { ']' });
    }
    Some(out)
}

/// The bound a read stopped at.
fn items_limit(items: &stream::Items<'_>) -> usize {
    items.max_entries.unwrap_or(items.entries.len())
}

fn read_first_value(
    text: &str,
    warnings: &mut Vec<Warning>,
    items: &mut stream::Items<'_>,
) -> Result<Top, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = stream::read_top(&mut de, items)?;
    if de.end().is_err() {
        warnings.push(Warning::new(
            WarningKind::InvalidValue,
            "ignored text after the end of the JSON document",
        ));
    }
    Ok(value)
}

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by `\ufffd`, or
/// `None` when there is none.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    /// The code unit of a `\uXXXX` escape starting at `at` (at the backslash).
    fn unit(bytes: &[u8], at: usize) -> Option<u16> {
        if bytes.get(at) != Some(&b'\\') || bytes.get(at + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(bytes.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    }
    let is_high = |u: u16| (0xD800..=0xDBFF).contains(&u);
    let is_low = |u: u16| (0xDC00..=0xDFFF).contains(&u);

    let bytes = text.as_bytes();
    let mut lone = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'\\') {
            i += 1;
            continue;
        }
        match unit(bytes, i) {
            Some(high) if is_high(high) => match unit(bytes, i + 6) {
                Some(low) if is_low(low) => i += 12,
                _ => {
                    lone.push(i);
                    i += 6;
                }
            },
            Some(low) if is_low(low) => {
                lone.push(i);
                i += 6;
            }
            Some(_) => i += 6,
            // Any other escape: skip the backslash and the escaped character.
            None => i += 2,
        }
    }
    if lone.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in lone {
        out.push_str(text.get(from..at)?);
        out.push_str("\\ufffd");
        from = at + 6;
    }
    out.push_str(text.get(from..)?);
    Some(out)
}

/// A short name for the JSON type of a value, for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Turns the JSON tree into the model, collecting warnings.
struct Adapter<'a> {
    base: Option<&'a Url>,
    warnings: &'a mut Vec<Warning>,
}

impl Adapter<'_> {
    fn warn(&mut self, kind: WarningKind, message: String) {
        self.warnings.push(Warning::new(kind, message));
    }

    fn wrong_type(&mut self, path: Path<'_>, expected: &str, found: &Value) {
        self.wrong_kind(path, expected, type_name(found));
    }

    fn wrong_kind(&mut self, path: Path<'_>, expected: &str, found: &str) {
        let message = format!("{path}: expected {expected}, found {found}");
        self.warn(WarningKind::WrongType, message);
    }

    /// Decide the format from `version` and the presence of `items`.
    fn version(&mut self, root: &Map<String, Value>) -> Result<FeedFormat, ParseError> {
        let has_items = root.contains_key("items");
        let version = match root.get("version") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                if !has_items {
                    return Err(not_a_feed());
                }
                self.wrong_type(Path::Field(&Path::Root, "version"), "a string", other);
                None
            }
        };
        let Some(version) = version else {
            if !has_items {
                return Err(not_a_feed());
            }
            self.warn(
                WarningKind::InvalidValue,
                "version: missing; read as JSON Feed 1.1".to_owned(),
            );
            return Ok(FeedFormat::JsonFeed11);
        };
        if version == VERSION_10 {
            return Ok(FeedFormat::JsonFeed10);
        }
        if version == VERSION_11 {
            return Ok(FeedFormat::JsonFeed11);
        }
        let near = near_version(version);
        if !has_items && near.is_none() && !looks_like_json_feed(version) {
            return Err(not_a_feed());
        }
        let format = near.unwrap_or(FeedFormat::JsonFeed11);
        let read_as = match format {
            FeedFormat::JsonFeed10 => "1.0",
            _ => "1.1",
        };
        self.warn(
            WarningKind::InvalidValue,
            format!("version: unknown version {version:?}; read as JSON Feed {read_as}"),
        );
        Ok(format)
    }

    fn feed(&mut self, mut root: Map<String, Value>) -> Feed {
        let mut feed = Feed {
            title: self.text(&mut root, "title", Path::Root),
            description: self.text(&mut root, "description", Path::Root),
            language: self.text(&mut root, "language", Path::Root),
            image: self.url(&mut root, "icon", Path::Root),
            icon: self.url(&mut root, "favicon", Path::Root),
            ..Feed::default()
        };
        if let Some(home) = self.url(&mut root, "home_page_url", Path::Root) {
            feed.links.push(link(&home, "alternate"));
            feed.link = Some(home);
        }
        if let Some(own) = self.url(&mut root, "feed_url", Path::Root) {
            feed.links.push(link(&own, "self"));
            feed.self_url = Some(own);
        }
        feed.authors = self.authors(&mut root, Path::Root);
        feed.hub = self.hub(root.remove("hubs"));
        feed
    }

    /// The first hub URL of `hubs` (an array of `{type, url}`).
    fn hub(&mut self, hubs: Option<Value>) -> Option<String> {
        let hubs_path = Path::Field(&Path::Root, "hubs");
        let hubs = self.list(hubs, hubs_path)?;
        for (i, hub) in hubs.into_iter().enumerate() {
            let path = Path::Index(&hubs_path, i);
            match hub {
                Value::Object(mut hub) => {
                    if let Some(url) = self.url(&mut hub, "url", path) {
                        return Some(url);
                    }
                }
                Value::String(s) => {
                    self.wrong_kind(path, "an object", "a string");
                    if let Some(url) = self.resolve(&s) {
                        return Some(url);
                    }
                }
                Value::Null => {}
                other => self.wrong_type(path, "an object", &other),
            }
        }
        None
    }

    fn items(&mut self, items: Option<Value>) -> Vec<Entry> {
        let Some(items) = items else {
            self.warn(
                WarningKind::InvalidValue,
                "items: missing; the feed has no entries".to_owned(),
            );
            return Vec::new();
        };
        let items_path = Path::Field(&Path::Root, "items");
        let Some(items) = self.list(Some(items), items_path) else {
            return Vec::new();
        };
        let mut entries = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Value::Object(item) => entries.push(self.item(item, i)),
                other => self.wrong_type(Path::Index(&items_path, i), "an object", &other),
            }
        }
        entries
    }

    fn item(&mut self, mut item: Map<String, Value>, index: usize) -> Entry {
        let items_path = Path::Field(&Path::Root, "items");
        let at = Path::Index(&items_path, index);
        let mut entry = Entry {
            id: self.id(item.remove("id"), Path::Field(&at, "id")),
            title: self.text(&mut item, "title", at),
            summary: self.text(&mut item, "summary", at),
            language: self.text(&mut item, "language", at),
            ..Entry::default()
        };
        if let Some(url) = self.url(&mut item, "url", at) {
            entry.links.push(link(&url, "alternate"));
            entry.link = Some(url);
        }
        if let Some(external) = self.url(&mut item, "external_url", at) {
            entry.links.push(link(&external, "related"));
        }
        let html = self.text(&mut item, "content_html", at);
        let plain = self.text(&mut item, "content_text", at);
        entry.content = html.or(plain);
        entry.published = self.date(&mut item, "date_published", at);
        entry.updated = self.date(&mut item, "date_modified", at);
        for key in ["image", "banner_image"] {
            if let Some(url) = self.url(&mut item, key, at) {
                entry.thumbnails.push(Thumbnail {
                    url,
                    ..Thumbnail::default()
                });
            }
        }
        entry.authors = self.authors(&mut item, at);
        entry.categories = self.strings(item.remove("tags"), Path::Field(&at, "tags"));
        entry.enclosures =
            self.attachments(item.remove("attachments"), Path::Field(&at, "attachments"));
        entry
    }

    /// An item `id`: any scalar, as a string. The specification asks for a string; older
    /// feeds use numbers.
    fn id(&mut self, value: Option<Value>, path: Path<'_>) -> Option<String> {
        match value? {
            Value::String(s) => Some(s),
            Value::Null => None,
            scalar @ (Value::Number(_) | Value::Bool(_)) => {
                self.wrong_type(path, "a string", &scalar);
                Some(scalar.to_string())
            }
            other => {
                self.wrong_type(path, "a string", &other);
                None
            }
        }
    }

    /// `authors` (1.1) or, when it gives nobody, `author` (1.0) of the object at `at`.
    fn authors(&mut self, object: &mut Map<String, Value>, at: Path<'_>) -> Vec<Author> {
        let many = object.remove("authors");
        let one = object.remove("author");
        let mut authors = Vec::new();
        let path = Path::Field(&at, "authors");
        if let Some(list) = self.list(many, path) {
            for (i, value) in list.into_iter().enumerate() {
                if let Some(author) = self.author(value, Path::Index(&path, i)) {
                    authors.push(author);
                }
            }
        }
        if authors.is_empty()
            && let Some(value) = one
        {
            authors.extend(self.author(value, Path::Field(&at, "author")));
        }
        authors
    }

    /// One author object `{name, url, avatar}`; a bare string is taken as the name.
    fn author(&mut self, value: Value, path: Path<'_>) -> Option<Author> {
        let mut object = match value {
            Value::Object(object) => object,
            Value::Null => return None,
            Value::String(name) => {
                self.wrong_kind(path, "an object", "a string");
                return non_blank(name).map(|name| Author {
                    name: Some(name),
                    ..Author::default()
                });
            }
            other => {
                self.wrong_type(path, "an object", &other);
                return None;
            }
        };
        let name = self.text(&mut object, "name", path);
        let url = self.url(&mut object, "url", path);
        let mut author = Author {
            name: name.and_then(non_blank),
            ..Author::default()
        };
        match url {
            Some(url)
                if url
                    .get(..7)
                    .is_some_and(|s| s.eq_ignore_ascii_case("mailto:")) =>
            {
                author.email = url.get(7..).and_then(|s| non_blank(s.to_owned()));
            }
            url => author.uri = url,
        }
        if author == Author::default() {
            None
        } else {
            Some(author)
        }
    }

    /// `attachments`: objects `{url, mime_type, size_in_bytes, ...}`; those without a URL are
    /// skipped.
    fn attachments(&mut self, value: Option<Value>, path: Path<'_>) -> Vec<Enclosure> {
        let Some(list) = self.list(value, path) else {
            return Vec::new();
        };
        let mut enclosures = Vec::new();
        for (i, value) in list.into_iter().enumerate() {
            let at = Path::Index(&path, i);
            let mut object = match value {
                Value::Object(object) => object,
                Value::Null => continue,
                other => {
                    self.wrong_type(at, "an object", &other);
                    continue;
                }
            };
            let Some(url) = self.url(&mut object, "url", at) else {
                self.warn(
                    WarningKind::InvalidValue,
                    format!("{at}: attachment without a url skipped"),
                );
                continue;
            };
            enclosures.push(Enclosure {
                url,
                media_type: self.text(&mut object, "mime_type", at),
                length: self.size(
                    object.remove("size_in_bytes"),
                    Path::Field(&at, "size_in_bytes"),
                ),
            });
        }
        enclosures
    }

    /// A non-negative whole number; a numeric string is accepted with a warning.
    fn size(&mut self, value: Option<Value>, path: Path<'_>) -> Option<u64> {
        match value? {
            Value::Null => None,
            Value::Number(n) => {
                let size = n.as_u64().or_else(|| {
                    n.as_f64()
                        .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0)
                        .filter(|f| *f < 18_446_744_073_709_551_616.0)
                        // Exact: the value is a whole number within u64.
                        .map(|f| f as u64)
                });
                if size.is_none() {
                    self.warn(
                        WarningKind::InvalidValue,
                        format!("{path}: {n} is not a size in bytes"),
                    );
                }
                size
            }
            Value::String(s) => {
                let size = s.trim().parse::<u64>().ok();
                match size {
                    Some(_) => self.wrong_kind(path, "a number", "a string"),
                    None => self.warn(
                        WarningKind::InvalidValue,
                        format!("{path}: {s:?} is not a size in bytes"),
                    ),
                }
                size
            }
            other => {
                self.wrong_type(path, "a number", &other);
                None
            }
        }
    }

    /// A date field, read by [`crate::date::parse`].
    fn date(
        &mut self,
        object: &mut Map<String, Value>,
        key: &str,
        at: Path<'_>,
    ) -> Option<chrono::DateTime<chrono::Utc>> {
        let text = self.text(object, key, at)?;
        let path = Path::Field(&at, key);
        if text.trim().is_empty() {
            return None;
        }
        let date = crate::date::parse(&text);
        if date.is_none() {
            self.warn(
                WarningKind::InvalidDate,
                format!("{path}: cannot read date {text:?}"),
            );
        }
        date
    }

    /// A text field. Numbers and booleans are turned into their JSON text; an array gives its
    /// first string; anything else is skipped. All but a string warn.
    fn text(&mut self, object: &mut Map<String, Value>, key: &str, at: Path<'_>) -> Option<String> {
        let value = object.remove(key)?;
        self.coerce_text(value, Path::Field(&at, key))
    }

    fn coerce_text(&mut self, value: Value, path: Path<'_>) -> Option<String> {
        match value {
            Value::String(s) => Some(s),
            Value::Null => None,
            scalar @ (Value::Number(_) | Value::Bool(_)) => {
                self.wrong_type(path, "a string", &scalar);
                Some(scalar.to_string())
            }
            Value::Array(items) => {
                self.wrong_kind(path, "a string", "an array");
                items.into_iter().find_map(|item| match item {
                    Value::String(s) => Some(s),
                    _ => None,
                })
            }
            object @ Value::Object(_) => {
                self.wrong_type(path, "a string", &object);
                None
            }
        }
    }

    /// A URL field: text, trimmed, blank as absent, resolved against the base.
    fn url(&mut self, object: &mut Map<String, Value>, key: &str, at: Path<'_>) -> Option<String> {
        let value = object.remove(key)?;
        let path = Path::Field(&at, key);
        let text = match value {
            // An object with a `url` is a common slip (`"image": {"url": ...}`).
            Value::Object(mut inner) if inner.contains_key("url") => {
                self.wrong_kind(path, "a string", "an object");
                let inner_value = inner.remove("url")?;
                self.coerce_text(inner_value, Path::Field(&path, "url"))?
            }
            other => self.coerce_text(other, path)?,
        };
        self.resolve(&text)
    }

    /// Resolve a relative URL against the base; blank is absent; an absolute URL, or one that
    /// cannot be resolved, is kept as written (trimmed).
    fn resolve(&self, text: &str) -> Option<String> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        if has_scheme(text) {
            return Some(text.to_owned());
        }
        match self.base.map(|base| base.join(text)) {
            Some(Ok(url)) => Some(url.into()),
            _ => Some(text.to_owned()),
        }
    }

    /// A list of strings (`tags`): scalars are coerced, a lone string is a list of one,
    /// blanks are dropped.
    fn strings(&mut self, value: Option<Value>, path: Path<'_>) -> Vec<String> {
        let Some(list) = self.list(value, path) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(list.len());
        for (i, value) in list.into_iter().enumerate() {
            let text = match value {
                Value::Array(_) | Value::Object(_) => {
                    self.wrong_type(Path::Index(&path, i), "a string", &value);
                    None
                }
                value => self.coerce_text(value, Path::Index(&path, i)),
            };
            out.extend(text.and_then(non_blank));
        }
        out
    }

    /// A value that should be an array. A lone value that is not `null` is taken as a list of
    /// one, with a warning.
    fn list(&mut self, value: Option<Value>, path: Path<'_>) -> Option<Vec<Value>> {
        match value? {
            Value::Array(items) => Some(items),
            Value::Null => None,
            other => {
                self.wrong_type(path, "an array", &other);
                Some(vec![other])
            }
        }
    }
}

/// Where a value sits in the document (`items[3].authors[0].name`), written out only when a
/// warning needs it.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Field(Path::Root, key) => f.write_str(key),
            Path::Field(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn not_a_feed() -> ParseError {
    ParseError::NotAFeed("a JSON object without a JSON Feed version or items".to_owned())
}

/// Recognise near-misses of the two version URLs: `http:`, `www.`, a trailing slash, `1.0`.
fn near_version(version: &str) -> Option<FeedFormat> {
    let v = version.trim().to_ascii_lowercase();
    let v = v
        .strip_prefix("https://")
        .or_else(|| v.strip_prefix("http://"))
        .unwrap_or(&v);
    let v = v.strip_prefix("www.").unwrap_or(v);
    let v = v.trim_end_matches('/');
    match v {
        "jsonfeed.org/version/1" | "jsonfeed.org/version/1.0" => Some(FeedFormat::JsonFeed10),
        "jsonfeed.org/version/1.1" => Some(FeedFormat::JsonFeed11),
        _ => None,
    }
}

/// A version that names JSON Feed but one we do not know (say, a future 1.2).
fn looks_like_json_feed(version: &str) -> bool {
    version
        .to_ascii_lowercase()
        .contains("jsonfeed.org/version")
}

/// Whether a URL starts with a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`),
/// that is, whether it is absolute.
fn has_scheme(url: &str) -> bool {
    let mut bytes = url.bytes();
    if !bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    for b in bytes {
        match b {
            b':' => return true,
            b'+' | b'-' | b'.' => {}
            b if b.is_ascii_alphanumeric() => {}
            _ => return false,
        }
    }
    false
}

fn link(href: &str, rel: &str) -> Link {
    Link {
        href: href.to_owned(),
        rel: rel.to_owned(),
        ..Link::default()
    }
}

fn non_blank(s: String) -> Option<String> {
    if s.trim().is_empty() { None } else { Some(s) }
}
