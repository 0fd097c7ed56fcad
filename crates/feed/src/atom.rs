//! Atom 1.0 and Atom 0.3: `<feed>` and its `<entry>`s to the model.
//!
//! Text constructs (`type="text|html|xhtml"`, Atom 0.3 `mode="escaped|base64|xml"`), person
//! constructs, typed links (`alternate`, `self`, `hub`, `license`, `enclosure`) and `source`.
//! Atom 0.3's names (`tagline`, `copyright`, `modified`, `issued`, `created`) are read as
//! their 1.0 counterparts. [`feed_child`] and [`entry_child`] also serve `atom:*` elements
//! found inside RSS, at a lower rank.

use crate::acc::{EntryAcc, FALLBACK, FeedAcc, PRIMARY, has_data, push_link};
use crate::names::{Key, Ns};
use crate::text;
use crate::tree::NodeId;
use crate::xml::Cx;
use std::borrow::Cow;
use tidings_model::{Author, Enclosure, Entry, Feed, FeedFormat, Link, Source};

/// Read an Atom document whose root is `root` into `feed` and `entries`, both empty, and tell
/// its format.
pub(crate) fn read(
    cx: &mut Cx<'_, '_, '_>,
    root: NodeId,
    feed: &mut Feed,
    entries: &mut Vec<Entry>,
) -> FeedFormat {
    let doc = cx.doc;
    let node = doc.node(root);
    let version = doc.attr(root, "version");
    let format = if node.ns == Ns::Atom03 || version.as_deref().map(str::trim) == Some("0.3") {
        FeedFormat::Atom03
    } else {
        FeedFormat::Atom10
    };
    let mut acc = FeedAcc::new(feed);
    acc.c
        .language
        .offer(FALLBACK + 1, doc.lang(root).map(|l| l.replace('_', "-")));
    *entries = doc.entry_list();
    for child in doc.children(root) {
        let n = doc.node(child);
        if is_core(n.ns) && Key::new(n.local()).as_str() == "entry" {
            if n.closed || !doc.is_blank(child) {
                entry(cx, child, entries.push_mut(Entry::default()));
                if !n.closed && entries.last().is_some_and(|e| !has_data(e)) {
                    entries.pop();
                }
            }
        } else if !(is_core(n.ns) && feed_child(cx, child, &mut acc, PRIMARY)) {
            crate::ext::feed_child(cx, child, &mut acc);
        }
    }
    acc.finish();
    format
}

/// An Atom Entry Document (RFC 4287, section 4.1.2: a lone `<entry>` as the root): a feed
/// with nothing but that entry, as feedparser reads it (`feed` stays empty).
pub(crate) fn read_entry_document(
    cx: &mut Cx<'_, '_, '_>,
    root: NodeId,
    entries: &mut Vec<Entry>,
) -> FeedFormat {
    let node = cx.doc.node(root);
    let format = if node.ns == Ns::Atom03 {
        FeedFormat::Atom03
    } else {
        FeedFormat::Atom10
    };
    let mut e = Entry::default();
    entry(cx, root, &mut e);
    *entries = vec![e];
    format
}

fn is_core(ns: Ns) -> bool {
    ns.is_atom() || ns == Ns::None
}

/// Read an entry into `e`, which is empty.
fn entry(cx: &mut Cx<'_, '_, '_>, id: NodeId, e: &mut Entry) {
    let doc = cx.doc;
    let mut acc = EntryAcc::new(e);
    acc.c
        .language
        .offer(FALLBACK + 1, doc.lang(id).map(|l| l.replace('_', "-")));
    for child in doc.children(id) {
        let n = doc.node(child);
        if !(is_core(n.ns) && entry_child(cx, child, &mut acc, PRIMARY)) {
            crate::ext::entry_child(cx, child, &mut acc);
        }
    }
    acc.finish();
}

/// One Atom child of a feed (or of an RSS channel, at `rank`).
pub(crate) fn feed_child(cx: &mut Cx<'_, '_, '_>, id: NodeId, acc: &mut FeedAcc, rank: u8) -> bool {
    let key = Key::new(cx.doc.node(id).local());
    match key.as_str() {
        "title" => acc.c.title.offer(rank, label_construct(cx, id)),
        "subtitle" | "tagline" => acc.c.summary.offer(rank, label_construct(cx, id)),
        "rights" | "copyright" => acc.c.rights.offer(rank, text_construct(cx, id)),
        "updated" | "modified" => {
            let d = cx.date(id);
            acc.c.updated.offer(rank, d);
        }
        "published" | "issued" => {
            let d = cx.date(id);
            acc.c.published.offer(rank, d);
        }
        "author" => acc.f.authors.extend(person(cx, id)),
        "contributor" => acc.f.contributors.extend(person(cx, id)),
        "icon" => acc.f.icon = acc.f.icon.take().or_else(|| cx.url_text(id)),
        "logo" => acc.image.offer(rank, cx.url_text(id)),
        "generator" => {
            let g = cx.text(id).or_else(|| cx.doc.attr_str(id, "uri"));
            acc.f.generator = acc.f.generator.take().or(g);
        }
        "category" => acc.f.categories.extend(category(cx, id)),
        "id" => {
            // As feedparser does, a feed id that is a web address stands in for a missing link.
            if let Some(feed_id) = cx
                .text(id)
                .filter(|t| t.starts_with("http://") || t.starts_with("https://"))
            {
                acc.c.link.offer(FALLBACK + 1, Some(feed_id));
            }
        }
        "link" => {
            let Some(link) = link(cx, id) else {
                return true;
            };
            match link.rel.as_str() {
                "alternate" => acc
                    .c
                    .link
                    .offer_last(alternate_rank(&link, rank), Some(link.href.clone())),
                "self" => {
                    acc.f.self_url.get_or_insert_with(|| link.href.clone());
                }
                "hub" => {
                    acc.f.hub.get_or_insert_with(|| link.href.clone());
                }
                "license" => acc.c.license.offer(PRIMARY, Some(link.href.clone())),
                _ => {}
            }
            push_link(&mut acc.f.links, link);
        }
        _ => return false,
    }
    true
}

/// One Atom child of an entry (or of an RSS item, at `rank`).
pub(crate) fn entry_child(
    cx: &mut Cx<'_, '_, '_>,
    id: NodeId,
    acc: &mut EntryAcc,
    rank: u8,
) -> bool {
    let key = Key::new(cx.doc.node(id).local());
    match key.as_str() {
        "id" => {
            // An id names the entry; it is not a link, even when it looks like one (feedparser
            // makes it the link of an entry without one; tidings does not).
            if acc.e.id.is_none() {
                acc.e.id = cx.text(id);
            }
        }
        "title" => acc.c.title.offer(rank, label_construct(cx, id)),
        "summary" => {
            acc.note_content_base(cx.doc.declared_base(id));
            acc.add_summary(text_construct(cx, id));
        }
        "content" => {
            acc.note_content_base(cx.doc.declared_base(id));
            acc.add_content(text_construct(cx, id));
        }
        "rights" | "copyright" => acc.c.rights.offer(rank, text_construct(cx, id)),
        "updated" | "modified" => {
            let d = cx.date(id);
            acc.c.updated.offer(rank, d);
        }
        "published" | "issued" => {
            let d = cx.date(id);
            acc.c.published.offer(rank, d);
        }
        "created" => {
            let d = cx.date(id);
            acc.c.published.offer(rank + 1, d);
        }
        "author" => acc.e.authors.extend(person(cx, id)),
        "contributor" => acc.e.contributors.extend(person(cx, id)),
        "category" => acc.e.categories.extend(category(cx, id)),
        "source" => acc.e.source = Some(source(cx, id)),
        "link" => {
            let Some(link) = link(cx, id) else {
                return true;
            };
            match link.rel.as_str() {
                "alternate" => acc
                    .c
                    .link
                    .offer_last(alternate_rank(&link, rank), Some(link.href.clone())),
                "enclosure" => acc.e.enclosures.push(Enclosure {
                    url: link.href.clone(),
                    media_type: link.media_type.clone(),
                    length: link.length,
                }),
                "license" => acc.c.license.offer(PRIMARY, Some(link.href.clone())),
                "replies" => {}
                _ => {}
            }
            push_link(&mut acc.e.links, link);
        }
        _ => return false,
    }
    true
}

/// An HTML alternate link beats one of another type.
fn alternate_rank(link: &Link, rank: u8) -> u8 {
    match link.media_type.as_deref() {
        Some(t) if !t.contains("html") => rank + 1,
        _ => rank,
    }
}

/// A typed link; `rel` defaults to `alternate`, and `type` to `text/html` (to
/// `application/atom+xml` for `self`), as feedparser reports them.
pub(crate) fn link(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<Link> {
    let [href, rel, media_type, title, length, hreflang] = cx
        .doc
        .attrs(id, ["href", "rel", "type", "title", "length", "hreflang"]);
    let href = href
        .and_then(|v| cx.url_value(id, &v))
        .or_else(|| cx.url_text(id))?;
    let non_empty = |v: Option<Cow<'_, str>>| v.and_then(|v| text::non_empty(&v));
    // Trimmed and lower-cased in one copy.
    let rel = rel
        .as_deref()
        .map(text::trim)
        .filter(|r| !r.is_empty())
        .map_or_else(|| "alternate".to_owned(), str::to_ascii_lowercase);
    let media_type = non_empty(media_type).or_else(|| {
        let default = if rel == "self" {
            "application/atom+xml"
        } else {
            "text/html"
        };
        Some(default.to_owned())
    });
    Some(Link {
        href,
        rel,
        media_type,
        title: non_empty(title),
        length: length.and_then(|v| text::number(&v)),
        hreflang: non_empty(hreflang),
    })
}

fn category(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    cx.doc
        .attr_str(id, "term")
        .or_else(|| cx.doc.attr_str(id, "label"))
        .or_else(|| cx.text(id))
}

/// A person construct (`name`, `email`, `uri`; Atom 0.3 `url`), or plain text as in RSS.
fn person(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<Author> {
    let doc = cx.doc;
    if !doc.has_children(id) {
        return text::person(&doc.text(id));
    }
    let mut a = Author::default();
    for child in doc.children(id) {
        match Key::new(doc.node(child).local()).as_str() {
            "name" => a.name = a.name.take().or_else(|| cx.text(child)),
            "email" => a.email = a.email.take().or_else(|| cx.text(child)),
            "uri" | "url" => a.uri = a.uri.take().or_else(|| cx.url_text(child)),
            _ => {}
        }
    }
    (a.name.is_some() || a.email.is_some() || a.uri.is_some()).then_some(a)
}

fn source(cx: &mut Cx<'_, '_, '_>, id: NodeId) -> Source {
    let doc = cx.doc;
    let mut s = Source::default();
    for child in doc.children(id) {
        let n = doc.node(child);
        if !is_core(n.ns) {
            continue;
        }
        match Key::new(n.local()).as_str() {
            "title" => s.title = s.title.take().or_else(|| label_construct(cx, child)),
            "link" => {
                if let Some(l) = link(cx, child) {
                    match l.rel.as_str() {
                        "alternate" => s.link = s.link.take().or(Some(l.href)),
                        "self" => s.url = s.url.take().or(Some(l.href)),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    s
}

/// An Atom text construct as a string: text and escaped HTML unescaped once, XHTML as the
/// markup inside its `div`, base64 decoded.
pub(crate) fn text_construct(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    let doc = cx.doc;
    let kind = doc
        .attr(id, "type")
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let mode = doc
        .attr(id, "mode")
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    // Atom 0.3 `mode="base64"`, or a media type that is neither text nor XML (RFC 4287
    // 4.1.3.3): the decoded text when it is some; a binary body (an image) is no text at all.
    if mode == "base64" || (mode.is_empty() && is_base64_type(&kind)) {
        let bytes = text::base64(&doc.text(id))?;
        return String::from_utf8(bytes)
            .ok()
            .and_then(|t| text::non_empty(&t));
    }
    let xhtml = kind == "xhtml" || kind == "application/xhtml+xml" || mode == "xml";
    if xhtml && doc.has_children(id) {
        let div = doc
            .children(id)
            .find(|&c| Key::new(doc.node(c).local()).as_str() == "div");
        let markup = match div {
            Some(div) => strip_prefix(doc.inner_markup(div), doc.node(div).prefix()),
            None => doc.inner_markup(id).to_owned(),
        };
        return text::non_empty(&markup);
    }
    cx.text(id)
}

/// A title or subtitle: [`text_construct`], and in HTML the content of `script` and `style`
/// elements dropped with them, since a label is read as text and their content is no words.
pub(crate) fn label_construct(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    let value = text_construct(cx, id)?;
    let is = |attr: &str, names: &[&str]| {
        cx.doc
            .attr(id, attr)
            .is_some_and(|v| names.iter().any(|n| v.trim().eq_ignore_ascii_case(n)))
    };
    if !is("type", &["html", "text/html"]) && !is("mode", &["escaped"]) {
        return Some(value);
    }
    match text::without_script_and_style(&value) {
        std::borrow::Cow::Borrowed(_) => Some(value),
        std::borrow::Cow::Owned(cut) => text::non_empty(&cut),
    }
}

/// Whether a text construct's `type` names base64 content: a media type that is not text,
/// HTML, XHTML or XML.
fn is_base64_type(kind: &str) -> bool {
    kind.contains('/')
        && !kind.starts_with("text/")
        && !kind.ends_with("xml")
        && !kind.contains("xml;")
}

/// `<x:p>` → `<p>` for the XHTML namespace prefix, so the markup reads as plain HTML.
fn strip_prefix(markup: &str, prefix: &str) -> String {
    if prefix.is_empty() {
        return markup.to_owned();
    }
    markup
        .replace(&format!("<{prefix}:"), "<")
        .replace(&format!("</{prefix}:"), "</")
}
