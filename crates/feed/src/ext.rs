//! Namespace extensions shared by every XML format: Dublin Core and DC terms, `content`,
//! Media RSS, iTunes, Creative Commons (both vocabularies), syndication (`sy`), and Atom
//! elements inside RSS/RDF (handed to [`crate::atom`]).
//!
//! [`feed_child`] and [`entry_child`] take one child element of a channel or item, fill the
//! accumulator and say whether they knew the element. Values from extensions rank below the
//! format's own elements (see [`crate::acc`]).

use crate::acc::{Common, EntryAcc, FALLBACK, FeedAcc, PRIMARY, SECONDARY};
use crate::names::{Key, Ns};
use crate::text;
use crate::tree::NodeId;
use crate::xml::Cx;
use tidings_model::{Author, MediaContent, Thumbnail};

/// One namespaced child of a channel or feed.
pub(crate) fn feed_child(cx: &mut Cx<'_, '_, '_>, id: NodeId, acc: &mut FeedAcc) -> bool {
    let node = cx.doc.node(id);
    let key = Key::new(node.local());
    let k = key.as_str();
    match node.ns {
        Ns::Dc | Ns::Dcterms => {
            let FeedAcc { f, c, .. } = acc;
            dublin_core(
                cx,
                id,
                node.ns,
                k,
                c,
                &mut f.authors,
                &mut f.contributors,
                &mut f.categories,
            )
        }
        Ns::Atom10 | Ns::Atom03 => crate::atom::feed_child(cx, id, acc, SECONDARY),
        Ns::Itunes => {
            match k {
                "image" => {
                    // The channel's artwork as much as RSS `<image>` is: the later of the two
                    // wins, as in feedparser.
                    let url = cx.url_attr(id, "href").or_else(|| cx.url_text(id));
                    acc.image.offer_last(PRIMARY, url);
                }
                "author" => acc.c.fallback_authors.extend(cx.text(id).map(named)),
                "owner" => acc.owner = owner(cx, id).or(acc.owner.take()),
                "category" => itunes_categories(cx, id, &mut acc.f.categories),
                "summary" => acc.c.summary.offer(FALLBACK, cx.text(id)),
                "subtitle" => acc.c.summary.offer(FALLBACK + 1, cx.text(id)),
                "explicit" => acc.f.explicit = text::explicit(&cx.doc.text(id)).or(acc.f.explicit),
                "title" => acc.c.title.offer(FALLBACK, cx.text(id)),
                _ => return false,
            }
            true
        }
        Ns::CreativeCommons | Ns::Cc if k == "license" => {
            acc.c.license.offer(PRIMARY, license(cx, id));
            true
        }
        Ns::Sy => {
            match k {
                "updateperiod" => {
                    acc.f.update_period = cx.text(id).map(|p| p.to_ascii_lowercase());
                }
                "updatefrequency" => acc.f.update_frequency = cx.number(id),
                "updatebase" => acc.f.update_base = cx.date(id),
                _ => return false,
            }
            true
        }
        Ns::Media => {
            let scope = Scope::of(cx, cx.doc.parent(id));
            match k {
                "thumbnail" => acc.f.thumbnails.extend(thumbnail(cx, id, &scope)),
                "group" => {
                    let inner = Scope::of(cx, Some(id)).over(&scope);
                    for child in cx.doc.children(id) {
                        let n = cx.doc.node(child);
                        if n.ns == Ns::Media && Key::new(n.local()).as_str() == "thumbnail" {
                            acc.f.thumbnails.extend(thumbnail(cx, child, &inner));
                        }
                    }
                }
                "category" => acc.f.categories.extend(cx.text(id)),
                "license" => acc.c.license.offer(FALLBACK, media_license(cx, id)),
                "copyright" => acc.c.rights.offer(FALLBACK, cx.text(id)),
                "title" => acc.c.title.offer(FALLBACK + 1, cx.text(id)),
                "description" => acc.c.summary.offer(FALLBACK + 1, cx.text(id)),
                _ => return false,
            }
            true
        }
        _ => false,
    }
}

/// An `itunes:owner`: its `itunes:name` and `itunes:email`, when it has either.
fn owner(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<Author> {
    let mut author = Author::default();
    for child in cx.doc.children(id) {
        let node = cx.doc.node(child);
        if node.ns != Ns::Itunes {
            continue;
        }
        match Key::new(node.local()).as_str() {
            "name" => author.name = cx.text(child).or(author.name),
            "email" => author.email = cx.text(child).or(author.email),
            _ => {}
        }
    }
    (author.name.is_some() || author.email.is_some()).then_some(author)
}

/// One namespaced child of an item or entry.
pub(crate) fn entry_child(cx: &mut Cx<'_, '_, '_>, id: NodeId, acc: &mut EntryAcc) -> bool {
    let node = cx.doc.node(id);
    let key = Key::new(node.local());
    let k = key.as_str();
    match node.ns {
        Ns::Dc | Ns::Dcterms if k == "description" => {
            acc.add_summary(cx.text(id));
            true
        }
        Ns::Dc | Ns::Dcterms => {
            let EntryAcc { e, c, .. } = acc;
            dublin_core(
                cx,
                id,
                node.ns,
                k,
                c,
                &mut e.authors,
                &mut e.contributors,
                &mut e.categories,
            )
        }
        Ns::Content if k == "encoded" => {
            acc.note_content_base(cx.doc.declared_base(id));
            acc.add_content(cx.text(id));
            true
        }
        // `<xhtml:body>` (or `<body xmlns="http://www.w3.org/1999/xhtml">`): the full post as
        // XHTML, read as feedparser reads it, like content:encoded.
        Ns::Xhtml if k == "body" => {
            let prefix = node.prefix();
            let markup = cx.doc.inner_markup(id);
            let markup = if prefix.is_empty() {
                markup.to_owned()
            } else {
                markup
                    .replace(&format!("<{prefix}:"), "<")
                    .replace(&format!("</{prefix}:"), "</")
            };
            acc.add_content(text::non_empty(&markup));
            true
        }
        Ns::Atom10 | Ns::Atom03 => crate::atom::entry_child(cx, id, acc, SECONDARY),
        Ns::Itunes => {
            match k {
                "author" => acc.c.fallback_authors.extend(cx.text(id).map(named)),
                "summary" => acc.add_summary(cx.text(id)),
                "subtitle" => {}
                "title" => acc.c.title.offer(FALLBACK + 1, cx.text(id)),
                "duration" => {
                    let raw = cx.doc.text(id);
                    acc.e.duration = text::duration(&raw);
                    if acc.e.duration.is_none() && !raw.is_empty() {
                        let msg = format!("unreadable itunes:duration {raw:?}");
                        cx.sink.warn(tidings_model::WarningKind::InvalidValue, msg);
                    }
                }
                "explicit" => acc.e.explicit = text::explicit(&cx.doc.text(id)).or(acc.e.explicit),
                "keywords" => acc.e.keywords.extend(text::keywords(&cx.doc.text(id))),
                "category" => itunes_categories(cx, id, &mut acc.e.categories),
                _ => return false,
            }
            true
        }
        Ns::CreativeCommons | Ns::Cc if k == "license" => {
            acc.c.license.offer(PRIMARY, license(cx, id));
            true
        }
        Ns::Media => media_entry_child(cx, id, k, acc),
        _ => false,
    }
}

fn named(name: String) -> Author {
    Author {
        name: Some(name),
        ..Author::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn dublin_core(
    cx: &mut Cx<'_, '_, '_>,
    id: NodeId,
    ns: Ns,
    k: &str,
    c: &mut Common,
    authors: &mut Vec<Author>,
    contributors: &mut Vec<Author>,
    categories: &mut Vec<String>,
) -> bool {
    match (ns, k) {
        (_, "creator") => authors.extend(text::person(&cx.doc.text(id))),
        (_, "contributor") => contributors.extend(text::person(&cx.doc.text(id))),
        (_, "subject") => categories.extend(cx.text(id)),
        (_, "rights") => c.rights.offer(SECONDARY, cx.text(id)),
        (_, "title") => c.title.offer(SECONDARY, cx.text(id)),
        (_, "description") => c.summary.offer(SECONDARY, cx.text(id)),
        (_, "language") => c.language.offer(SECONDARY, cx.text(id)),
        (_, "publisher") => {}
        (Ns::Dc, "date") => {
            // dc:date is the date of the last change, as feedparser reads it, for feeds and
            // entries alike; it never fills `published` (the store sorts by `updated` when
            // `published` is absent).
            let d = cx.date(id);
            c.updated.offer(SECONDARY, d);
        }
        (Ns::Dcterms, "modified") => {
            let d = cx.date(id);
            c.updated.offer(SECONDARY, d);
        }
        (Ns::Dcterms, "issued") => {
            let d = cx.date(id);
            c.published.offer(SECONDARY, d);
        }
        (Ns::Dcterms, "created") => {
            let d = cx.date(id);
            c.published.offer(FALLBACK, d);
        }
        (Ns::Dcterms, "valid") => {
            let raw = cx.doc.text(id);
            if let Some(end) = valid_end(&raw) {
                let d = cx.date_str(end);
                c.expires.offer(PRIMARY, d);
            }
        }
        _ => return false,
    }
    true
}

/// The `end=` component of a DCMI period (`start=...; end=...; scheme=W3C-DTF`).
fn valid_end(raw: &str) -> Option<&str> {
    raw.split(';').find_map(|part| {
        let (name, value) = part.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("end")
            .then_some(value.trim())
            .filter(|v| !v.is_empty())
    })
}

/// A licence element: `rdf:resource`, then its text.
fn license(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    cx.url_attr(id, "rdf:resource")
        .or_else(|| cx.url_attr(id, "resource"))
        .or_else(|| cx.url_text(id))
}

/// A `media:license`: its `href`, then its text.
fn media_license(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    cx.url_attr(id, "href").or_else(|| cx.text(id))
}

/// `itunes:category text="..."`, nested ones included.
fn itunes_categories(cx: &Cx<'_, '_, '_>, id: NodeId, out: &mut Vec<String>) {
    if let Some(t) = cx.doc.attr_str(id, "text") {
        out.push(t);
    }
    // iTunes nests one level; reading two keeps hostile nesting from going deep.
    for child in cx.doc.children(id) {
        let n = cx.doc.node(child);
        if n.ns == Ns::Itunes && Key::new(n.local()).as_str() == "category" {
            out.extend(cx.doc.attr_str(child, "text"));
            for grandchild in cx.doc.children(child) {
                let g = cx.doc.node(grandchild);
                if g.ns == Ns::Itunes && Key::new(g.local()).as_str() == "category" {
                    out.extend(cx.doc.attr_str(grandchild, "text"));
                }
            }
        }
    }
}

/// Media RSS metadata that applies to the thumbnails and contents of one container (an item,
/// a `media:group`, a `media:content`).
#[derive(Debug, Default, Clone)]
struct Scope {
    credit: Option<String>,
    copyright: Option<String>,
    license: Option<String>,
    title: Option<String>,
    description: Option<String>,
}

impl Scope {
    fn of(cx: &Cx<'_, '_, '_>, container: Option<NodeId>) -> Scope {
        let mut s = Scope::default();
        let Some(container) = container else {
            return s;
        };
        for child in cx.doc.children(container) {
            let n = cx.doc.node(child);
            if n.ns != Ns::Media {
                continue;
            }
            let slot = match Key::new(n.local()).as_str() {
                "credit" => &mut s.credit,
                "copyright" => &mut s.copyright,
                "title" => &mut s.title,
                "description" => &mut s.description,
                "license" => {
                    if s.license.is_none() {
                        s.license = media_license(cx, child);
                    }
                    continue;
                }
                _ => continue,
            };
            if slot.is_none() {
                *slot = cx.text(child);
            }
        }
        s
    }

    /// This scope with gaps filled from an enclosing one.
    fn over(self, outer: &Scope) -> Scope {
        Scope {
            credit: self.credit.or_else(|| outer.credit.clone()),
            copyright: self.copyright.or_else(|| outer.copyright.clone()),
            license: self.license.or_else(|| outer.license.clone()),
            title: self.title.or_else(|| outer.title.clone()),
            description: self.description.or_else(|| outer.description.clone()),
        }
    }
}

fn thumbnail(cx: &Cx<'_, '_, '_>, id: NodeId, scope: &Scope) -> Option<Thumbnail> {
    Some(Thumbnail {
        url: cx.url_attr(id, "url")?,
        width: cx.doc.attr(id, "width").and_then(|v| text::number(&v)),
        height: cx.doc.attr(id, "height").and_then(|v| text::number(&v)),
        media_type: cx.doc.attr_str(id, "type"),
        credit: scope.credit.clone(),
        copyright: scope.copyright.clone(),
        license: scope.license.clone(),
    })
}

fn media_entry_child(cx: &mut Cx<'_, '_, '_>, id: NodeId, k: &str, acc: &mut EntryAcc) -> bool {
    match k {
        "content" | "group" | "thumbnail" => {
            let item = Scope::of(cx, cx.doc.parent(id));
            match k {
                "content" => media_content(cx, id, &item, acc),
                "thumbnail" => acc.e.thumbnails.extend(thumbnail(cx, id, &item)),
                _ => {
                    let group = Scope::of(cx, Some(id)).over(&item);
                    for child in cx.doc.children(id) {
                        let n = cx.doc.node(child);
                        if n.ns != Ns::Media {
                            continue;
                        }
                        match Key::new(n.local()).as_str() {
                            "content" => media_content(cx, child, &group, acc),
                            "thumbnail" => acc.e.thumbnails.extend(thumbnail(cx, child, &group)),
                            "keywords" => {
                                acc.e.keywords.extend(text::keywords(&cx.doc.text(child)))
                            }
                            "category" => acc.e.categories.extend(cx.text(child)),
                            // An item without a title of its own is titled by its media
                            // (YouTube-like items carry the title only in media:group).
                            "title" => acc.c.title.offer(FALLBACK, cx.text(child)),
                            _ => {}
                        }
                    }
                }
            }
        }
        "title" => acc.c.title.offer(FALLBACK, cx.text(id)),
        "keywords" => acc.e.keywords.extend(text::keywords(&cx.doc.text(id))),
        "category" => acc.e.categories.extend(cx.text(id)),
        "license" => acc.c.license.offer(FALLBACK, media_license(cx, id)),
        "description" => acc.c.summary.offer(FALLBACK + 1, cx.text(id)),
        "credit" | "copyright" => {}
        _ => return false,
    }
    true
}

fn media_content(cx: &mut Cx<'_, '_, '_>, id: NodeId, outer: &Scope, acc: &mut EntryAcc) {
    let own = Scope::of(cx, Some(id)).over(outer);
    let doc = cx.doc;
    let mut m = MediaContent {
        url: cx.url_attr(id, "url"),
        media_type: doc.attr_str(id, "type"),
        medium: doc.attr_str(id, "medium"),
        width: doc.attr(id, "width").and_then(|v| text::number(&v)),
        height: doc.attr(id, "height").and_then(|v| text::number(&v)),
        file_size: doc.attr(id, "fileSize").and_then(|v| text::number(&v)),
        duration: doc.attr(id, "duration").and_then(|v| text::duration(&v)),
        ..MediaContent::default()
    };
    for child in doc.children(id) {
        let n = doc.node(child);
        if n.ns != Ns::Media {
            continue;
        }
        match Key::new(n.local()).as_str() {
            "thumbnail" => acc.e.thumbnails.extend(thumbnail(cx, child, &own)),
            "category" => m.categories.extend(cx.text(child)),
            "keywords" => m.keywords.extend(text::keywords(&doc.text(child))),
            _ => {}
        }
    }
    m.title = own.title;
    m.description = own.description;
    m.credit = own.credit;
    m.copyright = own.copyright;
    m.license = own.license;
    acc.e.media.push(m);
}
