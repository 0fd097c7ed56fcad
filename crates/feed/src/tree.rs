//! The tolerant reader: tokens in, a compact element tree out.
//!
//! [`build`] reads the document once and builds an arena tree whose names, attributes and
//! (usually) texts borrow from the input. Text, references, element tags and CDATA sections
//! are tokenized here, over the text already decoded and validated; comments, processing
//! instructions, DOCTYPEs and malformed tags are read by quick-xml, one event at a time, so
//! their rules and error messages are quick-xml's (a table test and a property test hold the
//! two to the same tokens). It skips junk
//! before the feed root, resolves entity references (XML's, numeric, HTML's, the DOCTYPE's),
//! keeps a bare `&` or a stray `<` as text, closes mismatched and unclosed tags at the nearest
//! matching end tag, ignores stray end tags, and keeps what it read of a truncated document.
//! Feed structure helps where XML alone cannot: an RSS `item` or Atom `entry` closes whatever
//! is still open inside its container, an unclosed RSS text element (`<title>`,
//! `<description>`...) ends where the next one starts, a CDATA section without `]]>` ends at
//! its element's end tag, a prolog the reader cannot get past is skipped to the first feed
//! start tag, and a document cut inside its root's start tag is that root, empty.
//! Prefixes resolve to [`Ns`] by the declarations in scope, else by their usual meaning; each
//! element records the `xml:base` and `xml:lang` in effect.
//!
//! An element's text is its character data while it has no child elements; once it has some,
//! its text is the markup between its tags exactly as written (HTML a publisher forgot to
//! escape, Atom `xhtml` content). A leaf's text is kept raw and unescaped in one pass when an
//! adapter reads it, straight into the model's string: no event per entity reference and no
//! second copy, which is what keeps escaped-HTML feeds fast and small. Unknown entities in
//! such texts are reported when the text is read (texts nobody reads warn about nothing).

use crate::ParseError;
use crate::names::{self, Ns};
use crate::text;
use crate::xml::{Sink, is_feed_root};
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use tidings_model::WarningKind;
use url::Url;

/// Elements nested deeper than this are skipped (their text is not kept). Feeds need a
/// dozen levels; the bound keeps unclosed-tag recovery linear on hostile input.
const MAX_DEPTH: usize = 256;

/// A document may hold this many elements, plus one per [`BYTES_PER_ELEMENT`] of its text;
/// one with more is refused ([`ParseError::TooManyElements`]). A node costs about 88 bytes
/// and the shortest element (`<x/>`) four, so without a bound a flood of empty elements
/// would cost over twenty times its body (C8); with it, at most about seven. Real feeds,
/// even of the tersest items, hold one element per 13 bytes or more.
const ELEMENT_FLOOR: usize = 65_536;
const BYTES_PER_ELEMENT: usize = 12;

/// At most this many entries are made room for before a document's entries are read (an
/// entry is about 800 bytes); a longer list grows as it is filled.
const ENTRY_ROOM: usize = 1024;

/// Index of a node in [`Doc`]. Only the builder makes them, each the index of a node it
/// pushed, so indexing `Doc::nodes` with one never fails.
pub(crate) type NodeId = usize;

/// Links and offsets inside a node are stored as `u32` to keep nodes small (a body is capped
/// far below 4 GiB); `NIL` is "none".
type Ix = u32;
const NIL: Ix = Ix::MAX;

/// A qualified name's prefix (empty when none) and local part. Names are short: a plain loop
/// finds the colon faster than a general substring search.
pub(crate) fn split_qname(qname: &str) -> (&str, &str) {
    match qname.bytes().position(|b| b == b':') {
        Some(colon) => (
            qname.get(..colon).unwrap_or(""),
            qname.get(colon + 1..).unwrap_or(""),
        ),
        None => ("", qname),
    }
}

fn ix(i: usize) -> Ix {
    Ix::try_from(i).unwrap_or(NIL)
}

fn us(i: Ix) -> usize {
    i as usize
}

/// One element.
pub(crate) struct Node<'a> {
    qname: &'a str,
    /// Where the local part of `qname` starts (after its colon; 0 without a prefix).
    local_at: u32,
    attrs: &'a str,
    text: Cow<'a, str>,
    inner_start: Ix,
    inner_end: Ix,
    parent: Ix,
    first_child: Ix,
    next: Ix,
    /// Index into `Doc::bases`, or `NIL`.
    base: Ix,
    /// Index into `Doc::langs`, or `NIL`.
    lang: Ix,
    pub(crate) ns: Ns,
    /// The end tag (or an enclosing one) was seen; false when the document stopped first.
    pub(crate) closed: bool,
    /// `text` is a leaf's raw text holding references, unescaped when it is read (so the
    /// unescaped copy is made once, straight into the model).
    escaped: bool,
}

impl<'a> Node<'a> {
    /// The name without its prefix.
    pub(crate) fn local(&self) -> &'a str {
        self.qname.get(self.local_at as usize..).unwrap_or("")
    }

    /// The namespace prefix as written (empty when none).
    pub(crate) fn prefix(&self) -> &'a str {
        match self.local_at {
            0 => "",
            at => self.qname.get(..at as usize - 1).unwrap_or(""),
        }
    }
}

/// Nodes in chunks of [`CHUNK`]: the tree grows without ever copying itself into a larger
/// allocation, so its peak is its size, not two and a half times it as a growing `Vec`'s
/// (the old buffer and the new one live at once while it is copied). The first chunk, which
/// holds every node of nearly every document, is a field of its own: a node in it is found
/// without going through the list of chunks.
struct Nodes<'a> {
    first: Vec<Node<'a>>,
    /// The chunks after the first, once it is full.
    more: Vec<Vec<Node<'a>>>,
    len: usize,
}

const CHUNK: usize = 4096;

impl<'a> Nodes<'a> {
    /// Room for `expected` nodes at first (at most one chunk), so a small document allocates
    /// little.
    fn new(expected: usize) -> Self {
        Nodes {
            first: Vec::with_capacity(expected.min(CHUNK)),
            more: Vec::new(),
            len: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push(&mut self, node: Node<'a>) {
        if self.len < CHUNK {
            self.first.push(node);
        } else {
            if self.more.last().is_none_or(|c| c.len() == CHUNK) {
                self.more.push(Vec::with_capacity(CHUNK));
            }
            let Some(chunk) = self.more.last_mut() else {
                return;
            };
            chunk.push(node);
        }
        self.len += 1;
    }

    fn get(&self, id: NodeId) -> Option<&Node<'a>> {
        if id < CHUNK {
            return self.first.get(id);
        }
        self.more.get(id / CHUNK - 1)?.get(id % CHUNK)
    }

    fn get_mut(&mut self, id: NodeId) -> Option<&mut Node<'a>> {
        if id < CHUNK {
            return self.first.get_mut(id);
        }
        self.more.get_mut(id / CHUNK - 1)?.get_mut(id % CHUNK)
    }
}

impl<'a> std::ops::Index<NodeId> for Nodes<'a> {
    type Output = Node<'a>;

    fn index(&self, id: NodeId) -> &Node<'a> {
        if id < CHUNK {
            return &self.first[id];
        }
        &self.more[id / CHUNK - 1][id % CHUNK]
    }
}

impl std::ops::IndexMut<NodeId> for Nodes<'_> {
    fn index_mut(&mut self, id: NodeId) -> &mut Self::Output {
        if id < CHUNK {
            return &mut self.first[id];
        }
        &mut self.more[id / CHUNK - 1][id % CHUNK]
    }
}

/// The element tree of one document; node 0 is the root.
pub(crate) struct Doc<'a> {
    src: &'a str,
    nodes: Nodes<'a>,
    bases: Vec<Url>,
    /// Whether `bases[0]` is the document's own URL (`ParseOptions::base_url`), not an
    /// `xml:base`.
    document_base: bool,
    langs: Vec<&'a str>,
    /// General entities declared in the DOCTYPE's internal subset.
    declared: Vec<(String, String)>,
    /// Bytes that declared entities may still add to the document's texts, so a small
    /// document cannot expand into gigabytes (C8); past it, references stay as written.
    entity_budget: Cell<usize>,
    /// A reference was left as written because the budget was spent.
    entity_budget_spent: Cell<bool>,
    /// Unknown entities met while unescaping leaf texts on demand, for warnings.
    unknown: RefCell<Vec<String>>,
    /// Entry elements read (see [`EntryName`]): at least as many as the entries the adapters
    /// make, so they size their list once.
    entry_elements: usize,
}

impl<'a> Doc<'a> {
    pub(crate) fn root(&self) -> NodeId {
        0
    }

    /// An empty list with room for the document's entries, up to [`ENTRY_ROOM`] of them (an
    /// entry element need not make an entry: a flood of empty `<item/>` reserves no more).
    pub(crate) fn entry_list<T>(&self) -> Vec<T> {
        Vec::with_capacity(self.entry_elements.min(ENTRY_ROOM))
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id]
    }

    pub(crate) fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.nodes[id].parent;
        (p != NIL).then_some(us(p))
    }

    pub(crate) fn children(&self, id: NodeId) -> Children<'_, 'a> {
        Children {
            doc: self,
            next: self.nodes[id].first_child,
        }
    }

    /// The element's text, trimmed (see the module docs).
    /// Line ends read as XML defines them: `\r\n` and a lone `\r` are `\n`.
    pub(crate) fn text(&self, id: NodeId) -> Cow<'_, str> {
        text::normalize_newlines(self.text_as_written(id))
    }

    fn text_as_written(&self, id: NodeId) -> Cow<'_, str> {
        let n = &self.nodes[id];
        if n.first_child != NIL {
            return Cow::Borrowed(self.inner_markup(id));
        }
        if !n.escaped {
            return Cow::Borrowed(text::trim(&n.text));
        }
        let unescaped = text::unescape_with(&n.text, &mut |out, name| match expand(
            &self.declared,
            &self.entity_budget,
            name,
        ) {
            Expansion::Value(value) => out.push_str(value),
            Expansion::OverBudget => {
                text::push_as_written(out, name);
                self.entity_budget_spent.set(true);
            }
            Expansion::Undeclared => {
                text::push_as_written(out, name);
                if let Ok(mut unknown) = self.unknown.try_borrow_mut() {
                    unknown.push(name.to_owned());
                }
            }
        });
        match unescaped {
            Cow::Owned(s) if text::trim(&s).len() == s.len() => Cow::Owned(s),
            other => Cow::Owned(other.trim().to_owned()),
        }
    }

    /// The markup between the element's tags, exactly as written, trimmed.
    pub(crate) fn inner_markup(&self, id: NodeId) -> &str {
        let n = &self.nodes[id];
        self.src
            .get(us(n.inner_start)..us(n.inner_end))
            .unwrap_or("")
            .trim()
    }

    /// Whether the element holds neither text nor child elements.
    pub(crate) fn is_blank(&self, id: NodeId) -> bool {
        let n = &self.nodes[id];
        n.first_child == NIL && text::trim(&n.text).is_empty()
    }

    pub(crate) fn has_children(&self, id: NodeId) -> bool {
        self.nodes[id].first_child != NIL
    }

    /// An attribute by qualified name (case-insensitive), references unescaped. An `rdf:`
    /// name also finds the attribute under another prefix (`r:about`), since RDF documents
    /// choose their own.
    pub(crate) fn attr(&self, id: NodeId, name: &str) -> Option<Cow<'a, str>> {
        let attrs = self.nodes[id].attrs;
        // Most elements have no attributes: answered before the tag is looked at.
        if attrs.is_empty() {
            return None;
        }
        attributes(attrs)
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .or_else(|| {
                let local = name.strip_prefix("rdf:")?;
                attributes(attrs).find(|(n, _)| {
                    n.split_once(':')
                        .is_some_and(|(p, l)| p != "xml" && l.eq_ignore_ascii_case(local))
                })
            })
            .map(|(_, v)| text::unescape(v))
    }

    /// Several attributes in one pass over the tag, each as [`Doc::attr`] finds it (the first
    /// of that name, in any case; an `rdf:` name also without its prefix).
    pub(crate) fn attrs<const N: usize>(
        &self,
        id: NodeId,
        names: [&str; N],
    ) -> [Option<Cow<'a, str>>; N] {
        let mut found: [Option<&'a str>; N] = [None; N];
        for (n, v) in attributes(self.nodes[id].attrs) {
            for (slot, name) in found.iter_mut().zip(names) {
                if slot.is_none() && n.eq_ignore_ascii_case(name) {
                    *slot = Some(v);
                }
            }
        }
        let mut out: [Option<Cow<'a, str>>; N] = std::array::from_fn(|_| None);
        for ((slot, value), name) in out.iter_mut().zip(found).zip(names) {
            *slot = match value {
                Some(v) => Some(text::unescape(v)),
                None if name.starts_with("rdf:") => self.attr(id, name),
                None => None,
            };
        }
        out
    }

    /// An attribute's trimmed value when it is not empty.
    pub(crate) fn attr_str(&self, id: NodeId, name: &str) -> Option<String> {
        self.attr(id, name).and_then(|v| text::non_empty(&v))
    }

    /// The base URL in effect for the element (`xml:base`, then the document URL).
    pub(crate) fn base(&self, id: NodeId) -> Option<&Url> {
        self.bases.get(us(self.nodes[id].base))
    }

    /// The base an `xml:base` in scope sets for the element, if one does (the document's own
    /// URL is not one).
    pub(crate) fn declared_base(&self, id: NodeId) -> Option<&Url> {
        let at = self.nodes[id].base;
        if at == NIL || (self.document_base && at == 0) {
            return None;
        }
        self.bases.get(us(at))
    }

    /// The language in effect for the element (`xml:lang`, inherited).
    pub(crate) fn lang(&self, id: NodeId) -> Option<&'a str> {
        self.langs.get(us(self.nodes[id].lang)).copied()
    }

    /// Whether a declared entity was left unexpanded because the expansion budget was spent.
    pub(crate) fn entity_budget_spent(&self) -> bool {
        self.entity_budget_spent.get()
    }

    /// The unknown entities met so far in texts read on demand, each once.
    pub(crate) fn take_unknown_entities(&self) -> Vec<String> {
        let mut names = self.unknown.take();
        let mut seen = Vec::with_capacity(names.len());
        names.retain(|n| {
            let first = !seen.contains(n);
            if first {
                seen.push(n.clone());
            }
            first
        });
        names
    }

    /// `href` resolved against the element's base.
    pub(crate) fn url(&self, id: NodeId, href: &str) -> String {
        text::resolve(self.base(id), href)
    }
}

pub(crate) struct Children<'d, 'a> {
    doc: &'d Doc<'a>,
    next: Ix,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next == NIL {
            return None;
        }
        let id = us(self.next);
        self.next = self.doc.nodes.get(id).map_or(NIL, |n| n.next);
        Some(id)
    }
}

/// Iterate `name=value` pairs of a start tag's attribute text, tolerating unquoted values,
/// missing values and unterminated quotes. Values are raw (not unescaped).
fn attributes(raw: &str) -> impl Iterator<Item = (&str, &str)> {
    // Separators are whitespace in Unicode's sense; in ASCII text (nearly every tag) that is
    // six bytes, looked at one byte at a time instead of decoding characters.
    let ascii = raw.is_ascii();
    let skip = move |s: &str, also: u8| -> usize {
        if ascii {
            s.bytes()
                .position(|b| !(ascii_space(b) || b == also))
                .unwrap_or(s.len())
        } else {
            s.len()
                - s.trim_start_matches(|c: char| c.is_whitespace() || c == char::from(also))
                    .len()
        }
    };
    let until = move |s: &str, also: u8| -> usize {
        if ascii {
            s.bytes()
                .position(|b| ascii_space(b) || b == also)
                .unwrap_or(s.len())
        } else {
            s.find(|c: char| c.is_whitespace() || c == char::from(also))
                .unwrap_or(s.len())
        }
    };
    let mut rest = raw;
    std::iter::from_fn(move || {
        loop {
            rest = rest.get(skip(rest, b'/')..).unwrap_or("");
            if rest.is_empty() {
                return None;
            }
            let name_end = until(rest, b'=');
            let name = rest.get(..name_end).unwrap_or("");
            rest = rest.get(name_end..).unwrap_or("");
            // Whitespace only (the second argument is one of them).
            rest = rest.get(skip(rest, b' ')..).unwrap_or("");
            let Some(after_eq) = rest.strip_prefix('=') else {
                if name.is_empty() {
                    // A lone `=`: skip one character and go on.
                    rest = rest.get(1..).unwrap_or("");
                    continue;
                }
                return Some((name, ""));
            };
            rest = after_eq.get(skip(after_eq, b' ')..).unwrap_or("");
            let value;
            match rest.as_bytes().first() {
                Some(&q @ (b'"' | b'\'')) => {
                    let body = rest.get(1..).unwrap_or("");
                    let end = memchr::memchr(q, body.as_bytes()).unwrap_or(body.len());
                    value = body.get(..end).unwrap_or("");
                    rest = body.get(end + 1..).unwrap_or("");
                }
                _ => {
                    let end = until(rest, b' ');
                    value = rest.get(..end).unwrap_or("");
                    rest = rest.get(end..).unwrap_or("");
                }
            }
            if name.is_empty() {
                continue;
            }
            return Some((name, value));
        }
    })
}

/// The ASCII characters `char::is_whitespace` holds to be whitespace.
fn ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// `piece` (a slice of `src` handed back by quick-xml) as a slice of `src` with its lifetime.
fn anchor<'a>(src: &'a str, piece: &str) -> Option<&'a str> {
    let off = (piece.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize);
    let end = off.checked_add(piece.len())?;
    src.get(off..end)
}

/// The text of a leaf element, as [`leaf_text_and_end`] finds it.
#[derive(Debug, PartialEq)]
struct Leaf {
    /// The text's length in bytes.
    len: usize,
    /// The text holds a `&` (references, unescaped when it is read).
    escaped: bool,
    /// Where the end tag ends (the byte after its `>`).
    end: usize,
}

/// When the element whose start tag ends at `at` holds only text followed by its own end
/// tag, that text and end tag.
fn leaf_text_and_end(src: &str, at: usize, qname: &str) -> Option<Leaf> {
    let rest = src.get(at..)?;
    let bytes = rest.as_bytes();
    // One search finds the text's end and, in the common text without references, tells so.
    let (lt, escaped) = match memchr::memchr2(b'<', b'&', bytes)? {
        amp if bytes.get(amp) == Some(&b'&') => {
            (amp + memchr::memchr(b'<', bytes.get(amp..)?)?, true)
        }
        lt => (lt, false),
    };
    let tag = rest.get(lt..)?.strip_prefix("</")?.strip_prefix(qname)?;
    // The end tag nearly always closes at once: white space before its `>` is looked for only
    // when it does not.
    let space = if tag.starts_with('>') {
        0
    } else {
        let after = tag.trim_start();
        if !after.starts_with('>') {
            return None;
        }
        tag.len() - after.len()
    };
    Some(Leaf {
        len: lt,
        escaped,
        end: at + lt + "</".len() + qname.len() + space + ">".len(),
    })
}

/// Elements that are empty in every feed format (an Atom-style `link` only with `href`).
fn is_void(qname: &str, raw: &str) -> bool {
    match names::Key::new(qname).as_str() {
        "enclosure" | "media:thumbnail" | "itunes:image" | "cloud" => true,
        "link" | "atom:link" | "atom10:link" => attributes(raw).any(|(n, _)| n == "href"),
        _ => false,
    }
}

/// Whether the next thing after `at`, whitespace aside, is the end tag `</qname>`.
fn ends_next(src: &str, at: usize, qname: &str) -> bool {
    src.get(at..)
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix("</"))
        .and_then(|rest| rest.strip_prefix(qname))
        .is_some_and(|rest| rest.trim_start().starts_with('>'))
}

fn valid_name_start(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == ':' || !c.is_ascii())
}

struct Builder<'a, 's, 'w> {
    doc: Doc<'a>,
    /// Open elements: the node, the length of the namespace stack when it opened, and its
    /// last child so far (children are only ever added to open elements).
    stack: Vec<(NodeId, usize, Ix)>,
    ns: Vec<(&'a str, Ns)>,
    warned_prefixes: Vec<&'a str>,
    sink: &'s mut Sink<'w>,
    /// Entry elements opened so far (see [`EntryName`]), against the caller's bound.
    entries: usize,
    max_entries: Option<usize>,
}

/// Entry elements sit this close to the root at most: `rss/channel/item` is at depth 2,
/// `feed/entry` and RDF's `item` at 1; one more level is slack for a stray wrapper.
const ENTRY_DEPTH: usize = 3;

/// Whether a local name is an entry's, in any case and whatever its namespace. Such an
/// element, opened within [`ENTRY_DEPTH`] of the root, counts as an entry against the bound:
/// this may count an element no adapter reads as an entry, never the other way round, so the
/// bound holds for what the adapters produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryName {
    /// `item` (RSS, RDF).
    Item,
    /// `entry` (Atom).
    Entry,
    No,
}

impl EntryName {
    fn of(local: &str) -> EntryName {
        match local.len() {
            4 if local.eq_ignore_ascii_case("item") => EntryName::Item,
            5 if local.eq_ignore_ascii_case("entry") => EntryName::Entry,
            _ => EntryName::No,
        }
    }
}

/// Read the document into a tree rooted at its feed element. With `max_entries`, a document
/// holding more entry elements stops being read at the first one past the bound and is
/// [`ParseError::TooManyEntries`]: the tree never grows past what the bound allows.
pub(crate) fn build<'a>(
    src: &'a str,
    base: Option<&Url>,
    sink: &mut Sink<'_>,
    max_entries: Option<usize>,
) -> Result<Doc<'a>, ParseError> {
    let build_from = |src, at, base, sink: &mut Sink<'_>, root| {
        build_from(src, at, base, sink, root, max_entries)
    };
    match build_from(src, 0, base, sink, None) {
        Err(ParseError::NotAFeed(reason)) => {
            // A prolog the reader could not get past (an XML declaration without its `?>`,
            // a DOCTYPE or comment never closed) hides a root that is plainly there: read
            // again from the first feed start tag.
            if let Some((at, name)) = rescue_root(src) {
                let mut own = Vec::new();
                let mut quiet = Sink::new(&mut own);
                if build_from(src, at, base, &mut quiet, None).is_ok() {
                    sink.warn(
                        WarningKind::JunkBeforeRoot,
                        format!("unreadable prolog: read from <{name}> at byte {at}"),
                    );
                    return build_from(src, at, base, sink, None);
                }
            }
            // A feed root whose start tag cannot be read (cut by the end of the document, an
            // attribute quote never closed): that root, with what follows its tag as content.
            let (at, name) = first_feed_tag(src, 0).ok_or(ParseError::NotAFeed(reason))?;
            let after = at + 1 + name.len();
            let tag_end = src
                .as_bytes()
                .get(after..)
                .and_then(|rest| memchr::memchr(b'<', rest))
                .map_or(src.len(), |off| after + off);
            let raw = src
                .get(at + 1..tag_end)
                .unwrap_or("")
                .trim_end_matches(|c: char| c.is_whitespace() || c == '>' || c == '/');
            if tag_end < src.len() {
                sink.warn(
                    WarningKind::MalformedXml,
                    format!("unreadable start tag of <{name}> at byte {at}"),
                );
            }
            build_from(src, tag_end, base, sink, Some((raw, name.len(), at)))
        }
        other => other,
    }
}

/// Where the first start tag of a feed root (`<rss`, `<feed`, `<rdf:RDF`, `<channel`) is,
/// past the start of the document, and its name.
fn rescue_root(src: &str) -> Option<(usize, &str)> {
    first_feed_tag(src, 1)
}

/// Where the first start tag of a feed root at or after byte `from` is, and its name.
fn first_feed_tag(src: &str, from: usize) -> Option<(usize, &str)> {
    let bytes = src.as_bytes();
    let mut from = from;
    while let Some(off) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'<', rest))
    {
        let at = from + off;
        let rest = src.get(at + 1..).unwrap_or("");
        let name_len = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest.get(..name_len).unwrap_or("");
        let local = split_qname(name).1;
        if name_len < rest.len() && !local.is_empty() && is_feed_root(local) {
            return Some((at, name));
        }
        from = at + 1;
    }
    None
}

/// Text outside the root that is only white space (or a stray byte order mark).
fn is_blank_outside(text: &str) -> bool {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .is_empty()
}

/// One piece of markup or text, as the tree reads the document.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    /// A start tag: what is between `<` and `>`, the length of the name it starts with, and
    /// where that name's local part starts (see [`local_at`]).
    Start {
        raw: &'a str,
        name_len: usize,
        local_at: usize,
    },
    /// An empty-element tag (`<x/>`): what is between `<` and `/>`, and its name as in
    /// [`Token::Start`].
    Empty {
        raw: &'a str,
        name_len: usize,
        local_at: usize,
    },
    /// An end tag's name (with anything after it but trailing white space).
    End(&'a str),
    /// Character data (a bare `&` starts a piece of its own).
    Text(&'a str),
    /// A reference's name, between `&` and `;`.
    Ref(&'a str),
    CData(&'a str),
    DocType(&'a str),
    /// A comment, processing instruction or XML declaration.
    Ignored,
    /// Markup that cannot be read, as the reader says.
    Error(String),
    Eof,
}

/// XML's white space, which ends a tag's name.
fn xml_space(b: u8) -> bool {
    matches!(b, b' ' | b'\r' | b'\n' | b'\t')
}

/// The token at byte `at` of `src`, and the byte after it.
///
/// Text, references, element tags and CDATA sections, which are nearly all of a feed, are
/// read here over the already validated `str`. Comments, processing instructions, DOCTYPEs
/// and every malformed tag are read by quick-xml, one event from a fresh reader at `at`, so
/// their rules and error messages stay quick-xml's.
fn token(src: &str, at: usize) -> (Token<'_>, usize) {
    let Some(rest) = src.get(at..).filter(|r| !r.is_empty()) else {
        return (Token::Eof, src.len());
    };
    let bytes = rest.as_bytes();
    match bytes[0] {
        b'<' => {}
        b'&' => {
            // A reference runs to `;`; a `&` followed by another `&` or `<` first is text.
            let after = bytes.get(1..).unwrap_or_default();
            return match memchr::memchr3(b';', b'&', b'<', after) {
                Some(i) if after[i] == b';' => {
                    (Token::Ref(rest.get(1..1 + i).unwrap_or("")), at + i + 2)
                }
                Some(i) => (Token::Text(rest.get(..i + 1).unwrap_or("")), at + i + 1),
                None => (Token::Text(rest), src.len()),
            };
        }
        _ => {
            let len = memchr::memchr2(b'<', b'&', bytes).unwrap_or(bytes.len());
            return (Token::Text(rest.get(..len).unwrap_or("")), at + len);
        }
    }
    match bytes.get(1) {
        Some(b'!') => {
            // CDATA sections are common in feeds (HTML in descriptions): read here when
            // closed; the rest of `<!` (comments, DOCTYPEs, an unclosed section) by quick-xml.
            if let Some(body) = rest.strip_prefix("<![CDATA[")
                && let Some(len) = cdata_len(body.as_bytes())
            {
                let at_body = at + "<![CDATA[".len();
                return (
                    Token::CData(body.get(..len).unwrap_or("")),
                    at_body + len + "]]>".len(),
                );
            }
            return quick_token(src, at);
        }
        Some(b'?') | None => return quick_token(src, at),
        _ => {}
    }
    // A tag ends at the first `>` outside quotes.
    let mut quote = None;
    let mut close = None;
    for i in memchr::memchr3_iter(b'>', b'\'', b'"', bytes) {
        match (quote, bytes[i]) {
            (None, b'>') => {
                close = Some(i);
                break;
            }
            (None, q) => quote = Some(q),
            (Some(q), b) if q == b => quote = None,
            _ => {}
        }
    }
    let Some(gt) = close else {
        return quick_token(src, at);
    };
    let end = at + gt + 1;
    if bytes[1] == b'/' {
        let name = rest.get(2..gt).unwrap_or("");
        let kept = name
            .bytes()
            .rposition(|b| !xml_space(b))
            .map_or(0, |i| i + 1);
        return (Token::End(name.get(..kept).unwrap_or("")), end);
    }
    match rest.get(1..gt) {
        Some(raw) if gt >= 2 && bytes[gt - 1] == b'/' => {
            let raw = raw.get(..raw.len() - 1).unwrap_or("");
            let (name_len, local_at) = tag_name(raw);
            (
                Token::Empty {
                    raw,
                    name_len,
                    local_at,
                },
                end,
            )
        }
        Some(raw) => {
            let (name_len, local_at) = tag_name(raw);
            (
                Token::Start {
                    raw,
                    name_len,
                    local_at,
                },
                end,
            )
        }
        None => quick_token(src, at),
    }
}

/// The name a tag's text starts with, in one pass over it: its length (up to XML white
/// space) and where its local part starts (see [`local_at`]).
fn tag_name(raw: &str) -> (usize, usize) {
    let mut local_at = 0;
    for (i, b) in raw.bytes().enumerate() {
        if xml_space(b) {
            return (i, local_at);
        }
        if b == b':' && local_at == 0 {
            local_at = i + 1;
        }
    }
    (raw.len(), local_at)
}

/// Where the local part of a qualified name starts: after its first colon, 0 without one
/// (as [`split_qname`] splits it).
fn local_at(qname: &str) -> usize {
    qname.len() - split_qname(qname).1.len()
}

/// Where a CDATA section's body ends: its first `]]>`. `]` is rare in the HTML sections hold,
/// so the search goes from one to the next.
fn cdata_len(body: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b']', body).find(|&i| body.get(i + 1..i + 3) == Some(b"]>".as_slice()))
}

/// The token at `at` as quick-xml reads it (see [`token`]).
fn quick_token(src: &str, at: usize) -> (Token<'_>, usize) {
    let mut reader = Reader::from_str(src);
    *reader.get_mut() = src.as_bytes().get(at..).unwrap_or_default();
    let config = reader.config_mut();
    config.allow_dangling_amp = true;
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.check_comments = false;
    let event = reader.read_event();
    let end = (reader.get_ref().as_ptr() as usize).wrapping_sub(src.as_ptr() as usize);
    let piece = |p: &str| anchor(src, p).unwrap_or("");
    let token = match event {
        Ok(Event::Start(e)) => {
            let raw = piece(&e);
            let name_len = e.name().into_inner().len();
            Token::Start {
                raw,
                name_len,
                local_at: local_at(raw.get(..name_len).unwrap_or("")),
            }
        }
        Ok(Event::Empty(e)) => {
            let raw = piece(&e);
            let name_len = e.name().into_inner().len();
            Token::Empty {
                raw,
                name_len,
                local_at: local_at(raw.get(..name_len).unwrap_or("")),
            }
        }
        Ok(Event::End(e)) => Token::End(piece(e.name().into_inner())),
        Ok(Event::Text(t)) => Token::Text(piece(&t)),
        Ok(Event::CData(t)) => Token::CData(piece(&t)),
        Ok(Event::GeneralRef(r)) => Token::Ref(piece(&r)),
        Ok(Event::DocType(d)) => Token::DocType(piece(&d)),
        Ok(Event::Comment(_) | Event::PI(_) | Event::Decl(_)) => Token::Ignored,
        Ok(Event::Eof) => Token::Eof,
        Err(e) => Token::Error(e.to_string()),
    };
    (token, end.min(src.len()))
}

/// Read from byte `at`; `root` is a feed root already found, whose start tag (`raw`, the
/// length of its name, where it starts) could not be read.
fn build_from<'a>(
    src: &'a str,
    at: usize,
    base: Option<&Url>,
    sink: &mut Sink<'_>,
    root: Option<(&'a str, usize, usize)>,
    max_entries: Option<usize>,
) -> Result<Doc<'a>, ParseError> {
    let mut b = Builder::new(src, base, sink);
    b.max_entries = max_entries;
    if let Some((raw, name_len, start)) = root {
        b.open(
            raw,
            name_len,
            local_at(raw.get(..name_len).unwrap_or("")),
            start,
            at,
        );
    }
    let mut junk = false;
    let mut first_element: Option<&'a str> = None;
    let mut last_error_at = usize::MAX;
    // A byte order mark opening the document is not text.
    let mut at = if at == 0 && src.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        at
    };
    let max_elements = ELEMENT_FLOOR + src.len() / BYTES_PER_ELEMENT;
    loop {
        if let Some(limit) = b.max_entries
            && b.entries > limit
        {
            return Err(ParseError::TooManyEntries { limit });
        }
        if b.doc.nodes.len() > max_elements {
            return Err(ParseError::TooManyElements {
                limit: max_elements,
            });
        }
        // Text, references and CDATA between the children of an element are never kept (see
        // `add_text`): read on at the next `<` instead of token by token.
        if src.as_bytes().get(at).is_some_and(|&b| b != b'<') && b.top_has_children() {
            at = memchr::memchr(b'<', src.as_bytes().get(at..).unwrap_or_default())
                .map_or(src.len(), |off| at + off);
        }
        let start = at;
        let (token, end) = token(src, at);
        at = end;
        let in_root = !b.doc.nodes.is_empty();
        match token {
            Token::Start {
                raw,
                name_len,
                local_at,
            }
            | Token::Empty {
                raw,
                name_len,
                local_at,
            } if !in_root && !is_feed_root(raw.get(local_at..name_len).unwrap_or("")) => {
                first_element.get_or_insert(raw.get(..name_len).unwrap_or(""));
                junk = true;
            }
            Token::Start { raw, name_len, .. } | Token::Empty { raw, name_len, .. }
                if !valid_name_start(raw.get(..name_len).unwrap_or("")) =>
            {
                // A stray `<` in text: keep it as text and read on right after it.
                b.sink.warn(
                    WarningKind::MalformedXml,
                    format!("stray '<' at byte {start}"),
                );
                if let Some(lt) = src.get(start..start + 1) {
                    b.add_text(lt);
                }
                at = start + 1;
            }
            Token::Start { .. } | Token::Empty { .. } if b.stack.len() >= MAX_DEPTH => {
                b.sink.warn(
                    WarningKind::MalformedXml,
                    format!("elements nested deeper than {MAX_DEPTH} ignored at byte {start}"),
                );
            }
            Token::Start {
                raw,
                name_len,
                local_at,
            } => {
                let qname = raw.get(..name_len).unwrap_or("");
                b.open(raw, name_len, local_at, start, end);
                // Fast path for a leaf: read its text here in one pass instead of as one
                // token per entity reference, and close it at the end tag just found (which
                // the loop would read and match again to the same effect). The root's end
                // tag is left to the loop, which stops after it.
                if let Some(leaf) = leaf_text_and_end(src, end, qname) {
                    if let Some(text) = src.get(end..end + leaf.len) {
                        b.set_leaf_text(text, leaf.escaped);
                    }
                    if b.stack.len() > 1 {
                        b.close_top(end + leaf.len);
                        at = leaf.end;
                    } else {
                        at = end + leaf.len;
                    }
                } else if is_void(qname, raw) && !ends_next(src, end, qname) {
                    // `<enclosure ...>` written without `/`: close it here, or the rest of
                    // the item would become its children.
                    b.sink.warn(
                        WarningKind::MalformedXml,
                        format!("<{qname}> at byte {start} is never closed"),
                    );
                    b.close_top(end);
                }
            }
            Token::Empty {
                raw,
                name_len,
                local_at,
            } => {
                b.open(raw, name_len, local_at, start, end);
                b.close_top(end);
            }
            Token::End(name) => {
                if in_root {
                    b.end(text::trim(name), start);
                    if b.stack.is_empty() {
                        break;
                    }
                }
            }
            Token::Text(piece) => {
                if in_root {
                    b.add_text(piece);
                } else if !is_blank_outside(piece) {
                    junk = true;
                }
            }
            Token::CData(piece) => b.add_text(piece),
            Token::Ref(name) => b.add_ref(name),
            Token::DocType(d) => b.declare_entities(d),
            Token::Ignored => {}
            Token::Eof => break,
            Token::Error(e) => {
                if in_root
                    && let Some(rest) = src.get(start..).and_then(|r| r.strip_prefix("<![CDATA["))
                {
                    // A CDATA section without its `]]>` ends at its element's end tag when
                    // one follows; else it runs to the end of the document (which was cut
                    // inside it) and its text is kept, as a truncated text is kept.
                    b.sink.warn(
                        WarningKind::MalformedXml,
                        format!("CDATA section at byte {start} is never closed"),
                    );
                    let close = b
                        .top()
                        .map(|id| format!("</{}>", b.doc.nodes[id].qname))
                        .and_then(|tag| rest.find(&tag));
                    match close {
                        Some(len) => {
                            b.add_text(rest.get(..len).unwrap_or(""));
                            at = start + "<![CDATA[".len() + len;
                            continue;
                        }
                        None => {
                            b.add_text(rest);
                            break;
                        }
                    }
                }
                if in_root {
                    b.sink
                        .warn(WarningKind::MalformedXml, format!("at byte {start}: {e}"));
                } else {
                    junk = true;
                }
                if end <= start || last_error_at == end {
                    break;
                }
                last_error_at = end;
            }
        }
    }

    if b.doc.nodes.is_empty() {
        return Err(ParseError::NotAFeed(match first_element {
            Some(name) => format!("the root element is <{name}>"),
            None => "no XML element found".to_owned(),
        }));
    }
    if junk {
        b.sink.warn(
            WarningKind::JunkBeforeRoot,
            "skipped content before the root element",
        );
    }
    if !b.stack.is_empty() {
        let open: Vec<&str> = b
            .stack
            .iter()
            .map(|&(id, _, _)| b.doc.nodes[id].qname)
            .collect();
        b.sink.warn(
            WarningKind::Truncated,
            format!("the document ended inside <{}>", open.join("><")),
        );
        for &(id, _, _) in &b.stack {
            b.doc.nodes[id].inner_end = ix(src.len());
        }
    }
    Ok(b.doc)
}

/// Whether `attrs` holds `xml` anywhere (`xmlns`, `xml:base`, `xml:lang`). Most tags have a
/// few short attributes or none (answered without a search), and `x` is rare in them:
/// cheaper than a substring search.
fn mentions_xml(attrs: &str) -> bool {
    let bytes = attrs.as_bytes();
    !bytes.is_empty()
        && memchr::memchr_iter(b'x', bytes)
            .any(|i| bytes.get(i + 1..i + 3) == Some(b"ml".as_slice()))
}

impl<'a, 's, 'w> Builder<'a, 's, 'w> {
    fn new(src: &'a str, base: Option<&Url>, sink: &'s mut Sink<'w>) -> Self {
        Builder {
            doc: Doc {
                src,
                // About one element per 100 bytes in small feeds (fewer in large ones).
                nodes: Nodes::new(src.len() / 100 + 16),
                bases: base.cloned().into_iter().collect(),
                document_base: base.is_some(),
                langs: Vec::new(),
                declared: Vec::new(),
                entity_budget: Cell::new(src.len().saturating_add(ENTITY_BUDGET_FLOOR)),
                entity_budget_spent: Cell::new(false),
                unknown: RefCell::new(Vec::new()),
                entry_elements: 0,
            },
            stack: Vec::with_capacity(16),
            ns: Vec::new(),
            warned_prefixes: Vec::new(),
            sink,
            entries: 0,
            max_entries: None,
        }
    }
}

impl<'a> Builder<'a, '_, '_> {
    fn top(&self) -> Option<NodeId> {
        self.stack.last().map(|&(id, _, _)| id)
    }

    /// Whether the innermost open element has a child element already.
    fn top_has_children(&self) -> bool {
        self.stack.last().is_some_and(|&(_, _, last)| last != NIL)
    }

    /// Open the element whose start tag's text is `raw` (from `start` to `end` in the
    /// document), its name `name_len` bytes long with its local part at `local_at`.
    fn open(&mut self, raw: &'a str, name_len: usize, local_at: usize, start: usize, end: usize) {
        let qname = raw.get(..name_len).unwrap_or("");
        let attrs = raw.get(name_len..).unwrap_or("");
        let (prefix, local) = match local_at {
            0 => ("", qname),
            at => (
                qname.get(..at - 1).unwrap_or(""),
                qname.get(at..).unwrap_or(""),
            ),
        };
        let entry = EntryName::of(local);
        self.close_for_entry(qname, prefix, entry, start);
        if entry != EntryName::No && self.stack.len() <= ENTRY_DEPTH {
            self.entries += 1;
            self.doc.entry_elements = self.entries;
        }
        let ns_mark = self.ns.len();
        let parent = self.top();
        let (mut base, mut lang) = match parent.and_then(|p| self.doc.nodes.get(p)) {
            Some(p) => (p.base, p.lang),
            None => (if self.doc.bases.is_empty() { NIL } else { 0 }, NIL),
        };
        if mentions_xml(attrs) {
            for (name, value) in attributes(attrs) {
                if name == "xmlns" {
                    self.ns.push(("", names::by_uri(&text::unescape(value))));
                } else if let Some(prefix) = name.strip_prefix("xmlns:") {
                    self.ns
                        .push((prefix, names::by_uri(&text::unescape(value))));
                } else if name == "xml:base" {
                    let href = text::unescape(value);
                    let joined = match self.doc.bases.get(us(base)) {
                        Some(b) => b.join(href.trim()).ok(),
                        None => Url::parse(href.trim()).ok(),
                    };
                    if let Some(url) = joined {
                        self.doc.bases.push(url);
                        base = ix(self.doc.bases.len() - 1);
                    }
                } else if name == "xml:lang" {
                    let v = value.trim();
                    lang = if v.is_empty() {
                        NIL
                    } else {
                        self.doc.langs.push(v);
                        ix(self.doc.langs.len() - 1)
                    };
                }
            }
        }
        let ns = self.resolve_prefix(prefix);
        let id = self.doc.nodes.len();
        self.doc.nodes.push(Node {
            qname,
            local_at: (qname.len() - local.len()) as u32,
            attrs,
            text: Cow::Borrowed(""),
            inner_start: ix(end),
            inner_end: ix(end),
            parent: parent.map_or(NIL, ix),
            first_child: NIL,
            next: NIL,
            base,
            lang,
            ns,
            closed: false,
            escaped: false,
        });
        if let Some(frame) = self.stack.last_mut() {
            let prev = frame.2;
            frame.2 = ix(id);
            if prev == NIL {
                if let Some(p) = self.doc.nodes.get_mut(frame.0) {
                    p.first_child = ix(id);
                }
            } else if let Some(prev) = self.doc.nodes.get_mut(us(prev)) {
                prev.next = ix(id);
            }
        }
        self.stack.push((id, ns_mark, NIL));
    }

    fn resolve_prefix(&mut self, prefix: &'a str) -> Ns {
        if let Some(&(_, ns)) = self.ns.iter().rev().find(|(p, _)| text::same(p, prefix)) {
            // An unknown default namespace (old drafts, `blogs.law.harvard.edu/tech/rss`, typos)
            // still holds the format's own elements.
            return if prefix.is_empty() && ns == Ns::Other {
                Ns::None
            } else {
                ns
            };
        }
        if prefix.is_empty() {
            return Ns::None;
        }
        match names::by_prefix(prefix) {
            Some(Ns::Xml) => Ns::Xml,
            Some(ns) => {
                if !self.warned_prefixes.contains(&prefix) {
                    self.warned_prefixes.push(prefix);
                    self.sink.warn(
                        WarningKind::UndeclaredPrefix,
                        format!("undeclared prefix {prefix:?} read by its usual meaning"),
                    );
                }
                ns
            }
            None => Ns::Other,
        }
    }

    /// An RSS `item` or Atom `entry` starts only in its feed's container: when elements are
    /// still open inside that container (a channel `title` or `description`, or a previous
    /// item, whose end tag is missing or misspelt), they are closed here, or the unclosed
    /// element would swallow every entry that follows.
    fn close_for_entry(&mut self, qname: &str, prefix: &str, entry: EntryName, at: usize) {
        let is_item = match entry {
            EntryName::Item => true,
            EntryName::Entry => false,
            EntryName::No => {
                self.close_unclosed_leaf(qname, prefix, at);
                return;
            }
        };
        let ns = self.peek_prefix(prefix);
        let containers: &[&str] = if is_item && ns.is_rss_core() {
            &["channel", "rss", "RDF"]
        } else if !is_item && matches!(ns, Ns::Atom10 | Ns::Atom03) {
            &["feed"]
        } else {
            return;
        };
        let nodes = &self.doc.nodes;
        let Some(depth) = self.stack.iter().rposition(|&(id, _, _)| {
            nodes
                .get(id)
                .is_some_and(|n| containers.iter().any(|c| n.local().eq_ignore_ascii_case(c)))
        }) else {
            return;
        };
        let unclosed = self.stack.len() - depth - 1;
        if unclosed == 0 {
            return;
        }
        self.sink.warn(
            WarningKind::MalformedXml,
            format!("<{qname}> at byte {at} closes {unclosed} unclosed element(s)"),
        );
        for _ in 0..unclosed {
            self.close_top(at);
        }
    }

    /// An RSS text element (`<title>`, `<description>`...) whose end tag is missing or
    /// misspelt ends where the next such element starts: `<title>A<link>` is a title and a
    /// link, not a title holding a link. Only names HTML does not use are taken as
    /// siblings, so markup a publisher forgot to escape inside a description stays inside.
    fn close_unclosed_leaf(&mut self, qname: &str, prefix: &str, at: usize) {
        // Cheapest test first: a parent that already has a child is a container, which is
        // what nearly every element opens in. A prefixed name is no RSS leaf (the split
        // names already tell; a name that only starts with `:` is none either).
        let Some(top) = self.top().and_then(|id| self.doc.nodes.get(id)) else {
            return;
        };
        if top.first_child != NIL || top.local_at != 0 || !prefix.is_empty() {
            return;
        }
        if !is_rss_leaf(top.qname) || !is_rss_leaf(qname) {
            return;
        }
        if !self.peek_prefix("").is_rss_core() {
            return;
        }
        let open = top.qname;
        self.sink.warn(
            WarningKind::MalformedXml,
            format!("<{qname}> at byte {at} ends the unclosed <{open}>"),
        );
        self.close_top(at);
    }

    /// The namespace `prefix` has in the current scope, without resolving it for good (no
    /// warnings).
    fn peek_prefix(&self, prefix: &str) -> Ns {
        match self.ns.iter().rev().find(|(p, _)| text::same(p, prefix)) {
            Some(&(_, Ns::Other)) if prefix.is_empty() => Ns::None,
            Some(&(_, ns)) => ns,
            None if prefix.is_empty() => Ns::None,
            None => names::by_prefix(prefix).unwrap_or(Ns::Other),
        }
    }

    /// Close the innermost element; its content ended at `inner_end`.
    fn close_top(&mut self, inner_end: usize) {
        if let Some((id, ns_mark, _)) = self.stack.pop() {
            self.ns.truncate(ns_mark);
            if let Some(n) = self.doc.nodes.get_mut(id) {
                n.inner_end = ix(inner_end).max(n.inner_start);
                n.closed = true;
            }
        }
    }

    fn end(&mut self, name: &str, start: usize) {
        let nodes = &self.doc.nodes;
        let found = self
            .stack
            .iter()
            .rposition(|&(id, _, _)| text::same(nodes[id].qname, name))
            .or_else(|| {
                self.stack
                    .iter()
                    .rposition(|&(id, _, _)| nodes[id].qname.eq_ignore_ascii_case(name))
            });
        match found {
            Some(depth) => {
                let unclosed = self.stack.len() - depth - 1;
                if unclosed > 0 {
                    self.sink.warn(
                        WarningKind::MalformedXml,
                        format!("</{name}> at byte {start} closes {unclosed} unclosed element(s)"),
                    );
                }
                for _ in 0..=unclosed {
                    self.close_top(start);
                }
            }
            None => self.sink.warn(
                WarningKind::MalformedXml,
                format!("stray </{name}> at byte {start}"),
            ),
        }
    }

    fn add_text(&mut self, piece: &'a str) {
        let Some(n) = self.top().and_then(|id| self.doc.nodes.get_mut(id)) else {
            return;
        };
        if n.first_child != NIL {
            return;
        }
        if n.text.is_empty() {
            n.text = Cow::Borrowed(piece);
        } else {
            n.text.to_mut().push_str(piece);
        }
    }

    /// The text of the innermost element, a leaf; `escaped` when it holds a `&`.
    fn set_leaf_text(&mut self, raw: &'a str, escaped: bool) {
        let Some(id) = self.top() else {
            return;
        };
        if let Some(n) = self.doc.nodes.get_mut(id) {
            n.text = Cow::Borrowed(raw);
            n.escaped = escaped;
        }
    }

    fn add_ref(&mut self, name: &str) {
        let Some(id) = self.top() else {
            return;
        };
        let Doc {
            nodes,
            declared,
            entity_budget,
            entity_budget_spent,
            ..
        } = &mut self.doc;
        let Some(n) = nodes.get_mut(id) else {
            return;
        };
        if n.first_child != NIL {
            return;
        }
        let out = n.text.to_mut();
        if text::push_entity(out, name) {
            return;
        }
        match expand(declared, entity_budget, name) {
            Expansion::Value(value) => out.push_str(value),
            Expansion::OverBudget => {
                text::push_as_written(out, name);
                entity_budget_spent.set(true);
            }
            Expansion::Undeclared => {
                text::push_as_written(out, name);
                self.sink.warn(
                    WarningKind::UnknownEntity,
                    format!("unknown entity &{name}; kept as written"),
                );
            }
        }
    }

    /// Remember the general entities a DOCTYPE's internal subset declares.
    fn declare_entities(&mut self, doctype: &str) {
        let mut rest = doctype;
        while let Some(at) = rest.find("<!ENTITY") {
            rest = rest.get(at + 8..).unwrap_or("");
            let decl = rest.trim_start();
            if decl.starts_with('%') {
                continue;
            }
            let name_end = decl.find(char::is_whitespace).unwrap_or(decl.len());
            let (name, after) = decl.split_at(name_end);
            let after = after.trim_start();
            let Some(quote) = after.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
                continue;
            };
            let body = after.get(1..).unwrap_or("");
            let Some(end) = body.find(quote) else {
                continue;
            };
            let raw = body.get(..end).unwrap_or("");
            if refers_to_entities(raw) {
                // An entity built from other entities is how expansion bombs are made; like
                // feedparser, such a declaration is not used (its references stay as written).
                continue;
            }
            let value = text::unescape(raw).into_owned();
            if !name.is_empty() && self.doc.declared.len() < MAX_DECLARED_ENTITIES {
                self.doc.declared.push((name.to_owned(), value));
            }
        }
    }
}

/// RSS elements that hold only text and whose names HTML does not use (by length first: a
/// name is compared with the few of its length).
fn is_rss_leaf(name: &str) -> bool {
    let leaves: &[&str] = match name.len() {
        3 => &["ttl"],
        4 => &["link", "guid"],
        5 => &["title"],
        6 => &["author"],
        7 => &["pubDate"],
        8 => &["language", "category", "comments"],
        9 => &["copyright", "webMaster", "generator"],
        11 => &["description"],
        13 => &["lastBuildDate"],
        14 => &["managingEditor"],
        _ => return false,
    };
    leaves.iter().any(|l| l.eq_ignore_ascii_case(name))
}

/// Whether an entity value refers to a general entity (`&name;`), not only to characters
/// (`&#38;`).
fn refers_to_entities(value: &str) -> bool {
    value.split('&').skip(1).any(|after| {
        after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == ':')
    })
}

/// At most this many entities from a DOCTYPE are remembered (no expansion bombs: values are
/// used as written, never expanded again, and values made of other entities are not used).
const MAX_DECLARED_ENTITIES: usize = 256;

/// Declared entities may add this many bytes beyond the document's own length.
const ENTITY_BUDGET_FLOOR: usize = 64 * 1024;

/// What a reference to an entity that is neither XML's nor HTML's becomes.
enum Expansion<'v> {
    /// The document declared it, and the budget allows its value.
    Value(&'v str),
    /// Declared, but the expansion budget is spent.
    OverBudget,
    /// Nobody declared it.
    Undeclared,
}

/// Look `name` up among the declared entities, charging its value to `budget`.
fn expand<'v>(declared: &'v [(String, String)], budget: &Cell<usize>, name: &str) -> Expansion<'v> {
    let Some((_, value)) = declared.iter().find(|(d, _)| d == name) else {
        return Expansion::Undeclared;
    };
    match budget.get().checked_sub(value.len()) {
        Some(left) => {
            budget.set(left);
            Expansion::Value(value)
        }
        None => Expansion::OverBudget,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_here_are_the_ones_quick_xml_reads() {
        // Each input's first token, read here and by quick-xml (with the builder's settings),
        // with the byte after it.
        let cases = [
            "<a>",
            "<a b='1' c=\"2\">x",
            "<a b=\">\" c='>'>",
            "<a/>",
            "<a b='1'/>",
            "<a/ >",
            "<a\n\tb='1'\n>",
            "</a>",
            "</a \t\n>",
            "</a b='>'>",
            "</>",
            "<é:x>",
            "< b>",
            "<>",
            "text<",
            "text & more",
            "&amp;x",
            "&#38;",
            "&;",
            "&x&y;",
            "&x<y",
            "&x",
            "é plain",
            "<a b='unclosed>",
            "<a",
            "<",
            "<!-- c -->",
            "<![CDATA[x]]>",
            "<![CDATA[]]>",
            "<![CDATA[a]]b]>c]]>d",
            "<![CDATA[<p>x</p>",
            "<![cdata[x]]>",
            "<?xml version='1.0'?>",
            "<?pi x?>",
            "<!DOCTYPE rss>",
            "",
        ];
        // Longer ones, with quotes and the `>` far from the start.
        let long: Vec<String> = [
            format!("{}<", "t".repeat(40)),
            format!("{}&amp;", "t".repeat(16)),
            format!("<a x='{}>{}'>", "v".repeat(55), "w".repeat(20)),
            format!("<a x=\"{}\" y='>'>", "v".repeat(70)),
            format!("<a {}/>", "b".repeat(80)),
            format!("</a{}>", " ".repeat(90)),
            format!("<a x='{}", "v".repeat(90)),
        ]
        .into();
        for src in cases.iter().copied().chain(long.iter().map(String::as_str)) {
            assert_eq!(token(src, 0), quick_token(src, 0), "{src:?}");
        }
    }

    proptest::proptest! {
        /// Markup-heavy strings, at every byte where a token may start: the same token, and
        /// the same byte after it, as quick-xml's (a byte order mark aside, which only the
        /// document's start may hold and the builder skips there).
        #[test]
        fn any_markup_tokenizes_as_quick_xml_does(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "<", ">", "/", "&", ";", "\"", "'", "a", "b:c", " ", "\n", "!", "?", "[",
                    "]", "=", "-", "<![CDATA[", "]]>", "<!--", "-->", "é", "amp", "#38",
                ]),
                0..24,
            )
        ) {
            let src: String = pieces.concat();
            let mut at = 0;
            while at < src.len() {
                let (ours, end) = token(&src, at);
                let (theirs, their_end) = quick_token(&src, at);
                proptest::prop_assert_eq!(&ours, &theirs, "{:?} at {}", src, at);
                proptest::prop_assert_eq!(end, their_end, "{:?} at {}", src, at);
                if end <= at {
                    break;
                }
                at = end;
            }
        }
    }

    #[test]
    fn attrs_in_one_pass_find_what_attr_finds_one_by_one() {
        let src = r#"<rss><link HREF="a&amp;b" rel="x" rel="y" rdf:resource="r" title=""/></rss>"#;
        let mut warnings = Vec::new();
        let mut sink = Sink::new(&mut warnings);
        let doc = build(src, None, &mut sink, None).expect("a tree");
        let link = doc.children(doc.root()).next().expect("the link");
        let names = [
            "href",
            "rel",
            "rdf:resource",
            "title",
            "hreflang",
            "rdf:about",
        ];
        let one_pass = doc.attrs(link, names);
        for (name, got) in names.iter().zip(one_pass) {
            assert_eq!(got, doc.attr(link, name), "{name}");
        }
        // Any case, unescaped, the first of a repeated name, the `rdf:` name without prefix.
        let [href, rel, about] = doc.attrs(link, ["href", "rel", "rdf:resource"]);
        assert_eq!(href.as_deref(), Some("a&b"));
        assert_eq!(rel.as_deref(), Some("x"));
        assert_eq!(about.as_deref(), Some("r"));
    }

    #[test]
    fn a_leaf_is_its_text_and_the_end_tag_that_follows() {
        // (document, start tag's end, name) -> (text length, has a `&`, byte after the end tag).
        let cases = [
            ("<a>x</a>", 3, "a", Some((1, false, 8))),
            ("<a>x</a \n>y", 3, "a", Some((1, false, 10))),
            ("<a>x</a\u{a0}>", 3, "a", Some((1, false, 10))),
            ("<abc></abc>", 5, "abc", Some((0, false, 11))),
            ("<a>&amp;x&</a>", 3, "a", Some((7, true, 14))),
            ("<a>x</ab>", 3, "a", None),
            ("<a>x<b/></a>", 3, "a", None),
            ("<a>x&amp;<b/></a>", 3, "a", None),
            ("<a>x</a", 3, "a", None),
            ("<a>x&amp;", 3, "a", None),
        ];
        for (src, at, name, want) in cases {
            let want = want.map(|(len, escaped, end)| Leaf { len, escaped, end });
            assert_eq!(leaf_text_and_end(src, at, name), want, "{src:?}");
        }
    }
}
