//! RSS 1.0 and RDF 0.90: `<rdf:RDF>` with `channel`, `image` and `item` as siblings.
//!
//! The elements are RSS's, in the RSS 1.0 or 0.90 namespace, so the reading itself is
//! [`crate::rss`]'s; this module only knows the RDF layout and tells the two versions apart.

use crate::acc::FeedAcc;
use crate::names::{Key, Ns};
use crate::tree::NodeId;
use crate::xml::Cx;
use tidings_model::{Entry, Feed, FeedFormat};

/// Read an `<rdf:RDF>` document into `feed` and `entries`, both empty, and tell its format.
pub(crate) fn read(
    cx: &mut Cx<'_, '_, '_>,
    root: NodeId,
    feed: &mut Feed,
    entries: &mut Vec<Entry>,
) -> FeedFormat {
    let doc = cx.doc;
    let mut acc = FeedAcc::new(feed);
    *entries = doc.entry_list();
    let mut format = FeedFormat::Rss10;
    for child in doc.children(root) {
        let n = doc.node(child);
        if n.ns == Ns::Rss090 {
            format = FeedFormat::Rss090;
        }
        if !n.ns.is_rss_core() {
            crate::ext::feed_child(cx, child, &mut acc);
            continue;
        }
        match Key::new(n.local()).as_str() {
            "channel" => crate::rss::channel(cx, child, &mut acc, entries),
            "item" => crate::rss::item(cx, child, entries),
            "image" => crate::rss::image(cx, child, &mut acc),
            _ => {}
        }
    }
    acc.finish();
    format
}
