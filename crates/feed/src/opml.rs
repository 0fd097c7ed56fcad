//! OPML subscription lists: read the feeds out of one, and write one.
//!
//! Reading is lenient: every `outline` with an `xmlUrl` attribute (any case) is a feed, at any
//! depth. A feed is filed under one folder, the innermost outline without an `xmlUrl` around
//! it (its title or text, at most [`FOLDER_CHARS`] characters: a deep folder path is never
//! copied into every feed, which would let a hostile file cost quadratic memory). Writing
//! produces OPML 2.0: the feeds without a folder first, then one outline per folder holding
//! its feeds, every value through [`crate::escape::text`], so the document is well-formed
//! whatever the titles and URLs hold.

use crate::escape::text as escape;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use std::rc::Rc;

/// The most characters of a folder's name kept for each feed in it.
pub const FOLDER_CHARS: usize = 200;

/// One feed listed in an OPML document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    pub xml_url: String,
    pub title: Option<String>,
    pub html_url: Option<String>,
    /// The folder it is filed under.
    pub folder: Option<String>,
}

/// The document is not OPML we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpmlError {
    #[error("malformed OPML at byte {position}: {message}")]
    Malformed { position: u64, message: String },
    #[error("not an OPML document (no <opml> root)")]
    NotOpml,
}

/// Every feed outline in an OPML document, in document order.
pub fn read(text: &str) -> Result<Vec<Outline>, OpmlError> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = false;
    let mut feeds = Vec::new();
    let mut seen_root = false;
    // For each open outline, the folder a feed inside it is filed under.
    let mut folders: Vec<Option<Rc<str>>> = Vec::new();
    loop {
        let event = reader.read_event().map_err(|e| OpmlError::Malformed {
            position: reader.error_position(),
            message: e.to_string(),
        })?;
        match event {
            Event::Start(e) | Event::Empty(e)
                if e.local_name().into_inner().eq_ignore_ascii_case("opml") =>
            {
                seen_root = true;
            }
            Event::Start(e) if is_outline(&e) => {
                let attrs = attributes(&e);
                let around = folders.last().cloned().flatten();
                match outline(&attrs, around.as_deref()) {
                    Some(feed) => {
                        feeds.push(feed);
                        folders.push(around);
                    }
                    None => folders.push(folder_name(&attrs).or(around)),
                }
            }
            Event::Empty(e) if is_outline(&e) => {
                let around = folders.last().cloned().flatten();
                if let Some(feed) = outline(&attributes(&e), around.as_deref()) {
                    feeds.push(feed);
                }
            }
            Event::End(e) if e.local_name().into_inner().eq_ignore_ascii_case("outline") => {
                folders.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        return Err(OpmlError::NotOpml);
    }
    Ok(feeds)
}

/// An OPML 2.0 document listing `feeds`.
pub fn write(title: &str, feeds: &[Outline]) -> String {
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n");
    out.push_str(&format!(
        "  <head>\n    <title>{}</title>\n  </head>\n  <body>\n",
        escape(title)
    ));
    let mut folders: Vec<&str> = Vec::new();
    for feed in feeds {
        match feed.folder.as_deref() {
            None => write_feed(&mut out, "    ", feed),
            Some(name) if !folders.contains(&name) => folders.push(name),
            Some(_) => {}
        }
    }
    for name in folders {
        out.push_str(&format!(
            "    <outline text=\"{}\" title=\"{}\">\n",
            escape(name),
            escape(name)
        ));
        for feed in feeds.iter().filter(|f| f.folder.as_deref() == Some(name)) {
            write_feed(&mut out, "      ", feed);
        }
        out.push_str("    </outline>\n");
    }
    out.push_str("  </body>\n</opml>\n");
    out
}

fn write_feed(out: &mut String, indent: &str, feed: &Outline) {
    let text = feed.title.as_deref().unwrap_or(&feed.xml_url);
    out.push_str(&format!(
        "{indent}<outline type=\"rss\" text=\"{}\" title=\"{}\" xmlUrl=\"{}\"",
        escape(text),
        escape(text),
        escape(&feed.xml_url)
    ));
    // Only a web link leaves (a `javascript:` site link from a feed never does).
    if let Some(html) = feed.html_url.as_deref().and_then(tidings_model::web_url) {
        out.push_str(&format!(" htmlUrl=\"{}\"", escape(&html)));
    }
    out.push_str("/>\n");
}

fn is_outline(e: &BytesStart<'_>) -> bool {
    e.local_name().into_inner().eq_ignore_ascii_case("outline")
}

/// Attribute names lower-cased, values unescaped (HTML entities are left as written).
fn attributes(e: &BytesStart<'_>) -> Vec<(String, String)> {
    e.html_attributes()
        .filter_map(Result::ok)
        .map(|a| {
            let name = a.key.local_name().into_inner().to_ascii_lowercase();
            let raw = a.value.into_owned();
            let value = quick_xml::escape::unescape(&raw)
                .map(|v| v.into_owned())
                .unwrap_or(raw);
            (name, value.trim().to_string())
        })
        .collect()
}

fn get<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(n, v)| n == name && !v.is_empty())
        .map(|(_, v)| v.as_str())
}

fn label(attrs: &[(String, String)]) -> Option<String> {
    get(attrs, "title")
        .or_else(|| get(attrs, "text"))
        .map(String::from)
}

fn outline(attrs: &[(String, String)], folder: Option<&str>) -> Option<Outline> {
    Some(Outline {
        xml_url: get(attrs, "xmlurl")?.to_string(),
        title: label(attrs),
        html_url: get(attrs, "htmlurl").map(String::from),
        folder: folder.map(String::from),
    })
}

/// The name of a folder outline, bounded.
fn folder_name(attrs: &[(String, String)]) -> Option<Rc<str>> {
    let name: String = label(attrs)?.chars().take(FOLDER_CHARS).collect();
    Some(Rc::from(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_outlines() {
        let doc = r#"<?xml version="1.0"?>
<opml version="1.0"><head><title>x</title></head><body>
  <outline text="News">
    <outline text="Harbour Gazette" type="rss" xmlUrl="https://gazette.test/feed?a=1&amp;b=2" htmlUrl="https://gazette.test/"/>
    <outline title="Tech"><outline text="Bits" xmlurl="http://bits.test/rss"/></outline>
  </outline>
  <outline text="No feed here"/>
  <outline text="Top" XMLURL="http://top.test/atom"></outline>
</body></opml>"#;
        let feeds = read(doc).unwrap();
        let urls: Vec<_> = feeds.iter().map(|f| f.xml_url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://gazette.test/feed?a=1&b=2",
                "http://bits.test/rss",
                "http://top.test/atom"
            ]
        );
        assert_eq!(feeds[0].html_url.as_deref(), Some("https://gazette.test/"));
        assert_eq!(feeds[1].title.as_deref(), Some("Bits"));
        let folders: Vec<_> = feeds.iter().map(|f| f.folder.as_deref()).collect();
        assert_eq!(
            folders,
            [Some("News"), Some("Tech"), None],
            "the innermost folder"
        );
    }

    #[test]
    fn refuses_what_is_not_opml() {
        assert_eq!(read("<rss><channel/></rss>"), Err(OpmlError::NotOpml));
        assert_eq!(read("just some text"), Err(OpmlError::NotOpml));
        assert!(matches!(
            read("<opml><body><outline xmlUrl=\"http://a.test/"),
            Err(OpmlError::Malformed { .. })
        ));
        // A stray attribute does not lose the feed.
        let lenient = read("<opml><body><outline xmlUrl=\"http://a.test/\" =bad/></body></opml>");
        assert_eq!(lenient.unwrap()[0].xml_url, "http://a.test/");
    }

    #[test]
    fn deep_nesting_costs_linear_memory() {
        let depth = 20_000;
        let title = "t".repeat(50);
        let mut doc = String::from("<opml><body>");
        for _ in 0..depth {
            doc.push_str(&format!(
                "<outline text=\"{title}\" xmlUrl=\"http://a.test/\">"
            ));
        }
        doc.push_str(&"</outline>".repeat(depth));
        doc.push_str("</body></opml>");
        let feeds = read(&doc).unwrap();
        assert_eq!(feeds.len(), depth);
        let held: usize = feeds
            .iter()
            .map(|f| f.xml_url.len() + f.title.as_ref().map_or(0, String::len))
            .sum();
        assert!(
            held < 2 * doc.len(),
            "{held} bytes held for a {} byte file",
            doc.len()
        );
    }

    #[test]
    fn written_opml_reads_back() {
        let feeds = vec![
            Outline {
                xml_url: "https://a.test/feed?x=1&y=\"2\"".into(),
                title: Some("A <&> B".into()),
                html_url: Some("https://a.test/".into()),
                folder: None,
            },
            Outline {
                xml_url: "https://b.test/rss".into(),
                folder: Some("Néws & <more>".into()),
                ..Outline::default()
            },
            Outline {
                xml_url: "https://c.test/rss".into(),
                folder: Some("Tech".into()),
                ..Outline::default()
            },
            Outline {
                xml_url: "https://d.test/rss".into(),
                folder: Some("Néws & <more>".into()),
                ..Outline::default()
            },
        ];
        let doc = write("subscriptions", &feeds);
        let back = read(&doc).unwrap();
        assert_eq!(back[0], feeds[0]);
        assert_eq!(back[1].xml_url, "https://b.test/rss");
        assert_eq!(back[1].title.as_deref(), Some("https://b.test/rss"));
        let filed: Vec<_> = back
            .iter()
            .map(|f| (f.xml_url.as_str(), f.folder.as_deref()))
            .collect();
        assert_eq!(
            filed,
            [
                ("https://a.test/feed?x=1&y=\"2\"", None),
                ("https://b.test/rss", Some("Néws & <more>")),
                ("https://d.test/rss", Some("Néws & <more>")),
                ("https://c.test/rss", Some("Tech")),
            ],
            "one outline per folder, in first-seen order"
        );
    }

    #[test]
    fn a_huge_folder_name_is_kept_bounded_for_each_feed() {
        let name = "n".repeat(100_000);
        let mut doc = format!("<opml><body><outline text=\"{name}\">");
        for i in 0..1000 {
            doc.push_str(&format!("<outline xmlUrl=\"http://a.test/{i}\"/>"));
        }
        doc.push_str("</outline></body></opml>");
        let feeds = read(&doc).unwrap();
        assert_eq!(feeds.len(), 1000);
        assert!(
            feeds
                .iter()
                .all(|f| f.folder.as_deref().map(str::len) == Some(FOLDER_CHARS))
        );
    }
}
