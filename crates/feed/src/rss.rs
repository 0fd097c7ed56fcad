//! RSS 0.90–0.94, 2.0 and version-less `<rss>`: channel and items to the model.
//!
//! Core elements are matched case-insensitively and in any of the RSS namespaces (none,
//! Userland's, RSS 1.0's, 0.90's), so [`crate::rdf`] reuses [`channel`], [`image`] and
//! [`item`]. Everything namespaced goes to [`crate::ext`].

use crate::acc::{EntryAcc, FALLBACK, FeedAcc, PRIMARY, SECONDARY, has_data, push_link};
use crate::names::{Key, Ns};
use crate::text;
use crate::tree::NodeId;
use crate::xml::{Cx, rss_version};
use tidings_model::{Cloud, Enclosure, Entry, Feed, FeedFormat, Link, Source, WarningKind};

/// Read an `<rss>` document (or a bare `<channel>` root) into `feed` and `entries`, both
/// empty, and tell its format.
pub(crate) fn read(
    cx: &mut Cx<'_, '_, '_>,
    root: NodeId,
    feed: &mut Feed,
    entries: &mut Vec<Entry>,
) -> FeedFormat {
    let doc = cx.doc;
    let mut acc = FeedAcc::new(feed);
    *entries = doc.entry_list();
    let format = if Key::new(doc.node(root).local()).as_str() == "channel" {
        channel(cx, root, &mut acc, entries);
        // CDF names its channel and items by an `HREF` attribute; RSS never does.
        if doc.attr(root, "href").is_some() {
            FeedFormat::Cdf
        } else {
            FeedFormat::Rss
        }
    } else {
        let version = doc.attr(root, "version");
        for child in doc.children(root) {
            let n = doc.node(child);
            if !n.ns.is_rss_core() {
                crate::ext::feed_child(cx, child, &mut acc);
                continue;
            }
            match Key::new(n.local()).as_str() {
                "channel" => channel(cx, child, &mut acc, entries),
                "item" => item(cx, child, entries),
                "image" => image(cx, child, &mut acc),
                _ => {}
            }
        }
        rss_version(version.as_deref())
    };
    acc.c
        .language
        .offer(FALLBACK + 1, doc.lang(root).map(|l| l.replace('_', "-")));
    acc.finish();
    format
}

/// The children of a channel; items found inside are appended to `entries`.
pub(crate) fn channel(
    cx: &mut Cx<'_, '_, '_>,
    id: NodeId,
    acc: &mut FeedAcc,
    entries: &mut Vec<Entry>,
) {
    let doc = cx.doc;
    acc.c
        .language
        .offer(FALLBACK + 1, doc.lang(id).map(|l| l.replace('_', "-")));
    // CDF: the channel's page and last change are attributes.
    acc.c.link.offer(FALLBACK, cx.url_attr(id, "href"));
    acc.c.updated.offer(FALLBACK, cdf_lastmod(cx, id));
    let mut order = SummaryOrder::default();
    for child in doc.children(id) {
        let n = doc.node(child);
        let key = Key::new(n.local());
        order.see(n.ns, key.as_str());
        if !n.ns.is_rss_core() {
            crate::ext::feed_child(cx, child, acc);
            continue;
        }
        match key.as_str() {
            "item" => {
                item_with(cx, child, order.has_content, entries);
                order.has_content = false;
            }
            "title" => acc.c.title.offer(PRIMARY, cx.text(child)),
            "link" => {
                if let Some(href) = link_href(cx, child) {
                    if let Some(link) = atomish_link(cx, child, &href) {
                        match link.rel.as_str() {
                            "self" => {
                                acc.f.self_url.get_or_insert(href);
                            }
                            "hub" => {
                                acc.f.hub.get_or_insert(href);
                            }
                            _ => acc.c.link.offer_last(SECONDARY, Some(href)),
                        }
                        push_link(&mut acc.f.links, link);
                    } else {
                        push_link(&mut acc.f.links, html_link(&href));
                        acc.c.link.offer_last(PRIMARY, Some(href));
                    }
                }
            }
            "description" => acc.c.summary.offer(PRIMARY, cx.text(child)),
            "abstract" => acc.c.summary.offer(SECONDARY, cx.text(child)),
            // A CDF sub-channel: its items are the feed's.
            "channel" => cdf_items(cx, child, entries, 0),
            "language" => acc.c.language.offer(PRIMARY, cx.text(child)),
            "copyright" => acc.c.rights.offer(PRIMARY, cx.text(child)),
            "managingeditor" | "author" => acc.f.authors.extend(text::person(&doc.text(child))),
            "pubdate" => {
                let d = cx.date(child);
                acc.c.published.offer(PRIMARY, d);
            }
            "lastbuilddate" => {
                let d = cx.date(child);
                acc.c.updated.offer(PRIMARY, d);
            }
            "generator" => acc.f.generator = acc.f.generator.take().or_else(|| cx.text(child)),
            "category" => acc.f.categories.extend(cx.text(child)),
            "ttl" => acc.f.ttl = cx.number(child),
            "image" => image(cx, child, acc),
            "cloud" => acc.f.cloud = Some(cloud(cx, child)),
            "skiphours" => skip_hours(cx, child, &mut acc.f.skip_hours),
            "skipdays" => skip_days(cx, child, &mut acc.f.skip_days),
            _ => {}
        }
    }
}

/// How deep CDF sub-channels are followed for their items.
const CDF_DEPTH: u8 = 8;

/// The items of a CDF sub-channel and of the sub-channels inside it, to [`CDF_DEPTH`].
fn cdf_items(cx: &mut Cx<'_, '_, '_>, id: NodeId, entries: &mut Vec<Entry>, depth: u8) {
    if depth >= CDF_DEPTH {
        return;
    }
    for child in cx.doc.children(id) {
        match Key::new(cx.doc.node(child).local()).as_str() {
            "item" => item(cx, child, entries),
            "channel" => cdf_items(cx, child, entries, depth + 1),
            _ => {}
        }
    }
}

/// A CDF `LASTMOD` attribute (an ISO date), read like every date (an unreadable one warned of).
fn cdf_lastmod(cx: &mut Cx<'_, '_, '_>, id: NodeId) -> Option<chrono::DateTime<chrono::Utc>> {
    let raw = cx.doc.attr(id, "lastmod")?;
    cx.date_str(&raw)
}

/// RSS `image`: its `url` child, or the RDF `rdf:resource` attribute.
pub(crate) fn image(cx: &mut Cx<'_, '_, '_>, id: NodeId, acc: &mut FeedAcc) {
    let doc = cx.doc;
    for child in doc.children(id) {
        let n = doc.node(child);
        if n.ns.is_rss_core() && Key::new(n.local()).as_str() == "url" {
            acc.image.offer_last(PRIMARY, cx.url_text(child));
        }
    }
    let resource = cx
        .url_attr(id, "rdf:resource")
        .or_else(|| cx.url_attr(id, "rdf:about"));
    acc.image.offer(SECONDARY, resource);
}

/// feedparser's record of the summary-like elements met at channel level, which decides how
/// the first item's summary and content are read (see [`EntryAcc::add_summary`]): a second
/// summary-like element in the channel (`itunes:summary` then `description`, as most
/// podcast feeds have) or a channel `content:encoded` leaves feedparser's "has content" state
/// set until the end of the next item, so that item's summary-like elements replace each
/// other (the last wins) instead of the second becoming its content. The judge of agreement
/// is feedparser, and its reading of such an item (summary `itunes:summary`, content
/// `content:encoded`) is the better one anyway.
#[derive(Debug, Default)]
struct SummaryOrder {
    /// A channel-level `itunes:summary` (or `summary`) was read as the feed's summary.
    summary: bool,
    has_content: bool,
}

impl SummaryOrder {
    /// A child of the channel, by its namespace and its local name's [`Key`].
    fn see(&mut self, ns: Ns, k: &str) {
        let summary_like =
            matches!((ns, k), (Ns::Itunes, "summary")) || (ns.is_rss_core() && k == "summary");
        let description_like = matches!((ns, k), (Ns::Dc | Ns::Dcterms, "description"))
            || (ns.is_rss_core() && k == "description");
        if matches!((ns, k), (Ns::Content, "encoded")) {
            self.has_content = true;
        } else if summary_like || description_like {
            if self.summary && !self.has_content {
                self.has_content = true;
            } else if summary_like {
                self.summary = true;
            }
        }
    }
}

/// One item, appended to `entries` unless it is an empty item the document was cut off inside.
pub(crate) fn item(cx: &mut Cx<'_, '_, '_>, id: NodeId, entries: &mut Vec<Entry>) {
    item_with(cx, id, false, entries);
}

/// [`item`], with feedparser's "has content" state carried in from the channel.
fn item_with(cx: &mut Cx<'_, '_, '_>, id: NodeId, has_content: bool, entries: &mut Vec<Entry>) {
    let doc = cx.doc;
    let closed = doc.node(id).closed;
    if !closed && doc.is_blank(id) {
        return;
    }
    let entry = entries.push_mut(Entry::default());
    let mut acc = EntryAcc::new(entry);
    if has_content {
        acc.assume_content_seen();
    }
    acc.c
        .language
        .offer(FALLBACK + 1, doc.lang(id).map(|l| l.replace('_', "-")));
    // CDF: an item's page and last change are attributes.
    acc.c.link.offer(SECONDARY, cx.url_attr(id, "href"));
    acc.c.updated.offer(FALLBACK, cdf_lastmod(cx, id));
    let mut guid_is_link = false;
    for child in doc.children(id) {
        let n = doc.node(child);
        if !n.ns.is_rss_core() {
            crate::ext::entry_child(cx, child, &mut acc);
            continue;
        }
        match Key::new(n.local()).as_str() {
            "title" => acc.c.title.offer(PRIMARY, cx.text(child)),
            "link" => {
                if let Some(href) = link_href(cx, child) {
                    if let Some(link) = atomish_link(cx, child, &href) {
                        if link.rel == "alternate" {
                            acc.c.link.offer_last(SECONDARY, Some(href));
                        }
                        push_link(&mut acc.e.links, link);
                    } else {
                        push_link(&mut acc.e.links, html_link(&href));
                        acc.c.link.offer_last(PRIMARY, Some(href));
                    }
                }
            }
            "description" | "abstract" => acc.add_summary(cx.text(child)),
            // The full post under old names: `fullitem` (escaped HTML) and a bare `body`
            // (markup written inline, or escaped), read like `content:encoded`.
            "fullitem" => acc.add_content(cx.text(child)),
            "body" => {
                let inline = doc.has_children(child);
                acc.add_content(if inline {
                    text::non_empty(doc.inner_markup(child))
                } else {
                    cx.text(child)
                });
            }
            "author" => acc.e.authors.extend(text::person(&doc.text(child))),
            "category" => acc.e.categories.extend(cx.text(child)),
            "comments" => acc.e.comments = acc.e.comments.take().or_else(|| cx.url_text(child)),
            "enclosure" => {
                if let Some(url) = cx
                    .url_attr(child, "url")
                    .or_else(|| cx.url_attr(child, "href"))
                {
                    acc.e.enclosures.push(Enclosure {
                        url,
                        media_type: doc.attr_str(child, "type"),
                        length: doc.attr(child, "length").and_then(|v| text::number(&v)),
                    });
                }
            }
            "guid" => {
                if let Some(guid) = cx.text(child) {
                    guid_is_link = doc
                        .attr(child, "isPermaLink")
                        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
                    acc.e.id = Some(guid);
                }
            }
            "pubdate" => {
                let d = cx.date(child);
                acc.c.published.offer(PRIMARY, d);
            }
            "source" => {
                acc.e.source = Some(Source {
                    title: cx.text(child),
                    link: None,
                    url: cx.url_attr(child, "url"),
                });
            }
            _ => {}
        }
    }
    if acc.e.id.is_none() {
        // RSS 1.0 names each item by its `rdf:about`, as feedparser reports it.
        acc.e.id = doc.attr_str(id, "rdf:about");
    }
    // A permalink guid stands in for a missing link only when it is an absolute http(s) URL
    // (a guid like `ink-1` names the item; it is no address, whatever the base).
    if guid_is_link
        && !acc.c.link.is_set()
        && let Some(guid) = acc.e.id.as_deref().filter(|g| is_web_address(g))
    {
        acc.c.link.offer(FALLBACK, Some(guid.to_owned()));
    }
    acc.finish();
    if !closed && entries.last().is_some_and(|entry| !has_data(entry)) {
        entries.pop();
    }
}

/// The URL of a core `link`: its text, or an `href` attribute when it was written Atom-style.
fn link_href(cx: &Cx<'_, '_, '_>, id: NodeId) -> Option<String> {
    if cx.doc.has_children(id)
        && let Some(href) = cx.doc.children(id).find_map(|c| cx.url_attr(c, "href"))
    {
        // HTML in a link (`<link><a href="u">u</a></link>`): the anchor's href.
        return Some(href);
    }
    cx.url_text(id).or_else(|| cx.url_attr(id, "href"))
}

/// A core `link` written as an Atom link (`href`/`rel` attributes, no namespace).
fn atomish_link(cx: &Cx<'_, '_, '_>, id: NodeId, href: &str) -> Option<Link> {
    cx.doc.attr(id, "href")?;
    let mut link = crate::atom::link(cx, id)?;
    link.href = href.to_owned();
    Some(link)
}

fn html_link(href: &str) -> Link {
    Link {
        href: href.to_owned(),
        rel: "alternate".to_owned(),
        media_type: Some("text/html".to_owned()),
        ..Link::default()
    }
}

fn cloud(cx: &Cx<'_, '_, '_>, id: NodeId) -> Cloud {
    let doc = cx.doc;
    Cloud {
        domain: doc.attr_str(id, "domain"),
        port: doc.attr(id, "port").and_then(|v| text::number(&v)),
        path: doc.attr_str(id, "path"),
        register_procedure: doc.attr_str(id, "registerProcedure"),
        protocol: doc.attr_str(id, "protocol"),
    }
}

fn skip_hours(cx: &mut Cx<'_, '_, '_>, id: NodeId, out: &mut Vec<u8>) {
    let doc = cx.doc;
    for child in doc.children(id) {
        if Key::new(doc.node(child).local()).as_str() != "hour" {
            continue;
        }
        let raw = doc.text(child);
        match text::number::<u8>(&raw) {
            Some(24) => out.push(0),
            Some(h) if h < 24 => out.push(h),
            _ => cx.sink.warn(
                WarningKind::InvalidValue,
                format!("skipHours hour {raw:?} is not 0..=24"),
            ),
        }
    }
}

fn skip_days(cx: &Cx<'_, '_, '_>, id: NodeId, out: &mut Vec<String>) {
    let doc = cx.doc;
    for child in doc.children(id) {
        if Key::new(doc.node(child).local()).as_str() != "day" {
            continue;
        }
        let raw = doc.text(child);
        let mut chars = raw.chars();
        let Some(first) = chars.next() else {
            continue;
        };
        let day: String = first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect();
        if !out.contains(&day) {
            out.push(day);
        }
    }
}

/// Whether `text` is an absolute `http` or `https` URL with a host.
fn is_web_address(text: &str) -> bool {
    url::Url::parse(text.trim())
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}
