//! OPML subscription lists: read the feeds out of one, and write one.
//!
//! Reading is lenient: every `outline` with an `xmlUrl` attribute (any case) is a feed, at any
//! depth (folders are not kept: tidings has none, and copying a deep folder path into every
//! outline would make a hostile file cost quadratic memory). Writing produces OPML 2.0 with one
//! flat `outline type="rss"` per feed, every value through [`crate::escape::text`], so the
//! document is well-formed whatever the titles and URLs hold.

use crate::escape::text as escape;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// One feed listed in an OPML document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    pub xml_url: String,
    pub title: Option<String>,
    pub html_url: Option<String>,
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
            Event::Start(e) | Event::Empty(e) if is_outline(&e) => {
                if let Some(feed) = outline(&attributes(&e)) {
                    feeds.push(feed);
                }
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
    for feed in feeds {
        let text = feed.title.as_deref().unwrap_or(&feed.xml_url);
        out.push_str(&format!(
            "    <outline type=\"rss\" text=\"{}\" title=\"{}\" xmlUrl=\"{}\"",
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
    out.push_str("  </body>\n</opml>\n");
    out
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

fn outline(attrs: &[(String, String)]) -> Option<Outline> {
    Some(Outline {
        xml_url: get(attrs, "xmlurl")?.to_string(),
        title: label(attrs),
        html_url: get(attrs, "htmlurl").map(String::from),
    })
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
            },
            Outline {
                xml_url: "https://b.test/rss".into(),
                ..Outline::default()
            },
        ];
        let doc = write("subscriptions", &feeds);
        let back = read(&doc).unwrap();
        assert_eq!(back[0], feeds[0]);
        assert_eq!(back[1].xml_url, "https://b.test/rss");
        assert_eq!(back[1].title.as_deref(), Some("https://b.test/rss"));
    }
}
