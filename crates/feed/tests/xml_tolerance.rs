//! What real feeds get wrong and the reader forgives: entities, bare `&`, junk before the
//! root, mismatched and unclosed tags, truncation, old uppercase RSS; and no input panics.

#[macro_use]
mod xml_support;

use serde_json::json;
use xml_support::{check, parse_json};

#[test]
fn entities_and_ampersands() {
    check(&[
        (
            "numeric references",
            rss!("<title>caf&#233; &#x263A; &#65;</title>"),
            "/feed/title",
            json!("café ☺ A"),
        ),
        (
            "bare ampersand kept",
            rss!("<title>Tom & Jerry</title>"),
            "/feed/title",
            json!("Tom & Jerry"),
        ),
        (
            "bare ampersand with a name and no semicolon",
            rss!("<title>a &b c; &amp d</title>"),
            "/feed/title",
            json!("a &b c; &amp d"),
        ),
        (
            "unknown entity kept as written",
            rss!("<title>x &notanentity; y</title>"),
            "/feed/title",
            json!("x &notanentity; y"),
        ),
        (
            "unknown entity warns",
            rss!("<title>x &notanentity; y</title>"),
            "/warning_kinds",
            json!(["unknown_entity"]),
        ),
        (
            "unknown entity in mixed text warns",
            rss!("<title>x <![CDATA[c]]> &notanentity;</title>"),
            "/warning_kinds",
            json!(["unknown_entity"]),
        ),
        (
            "cdata and text joined",
            rss!("<title>a <![CDATA[<b>]]> &amp; c</title>"),
            "/feed/title",
            json!("a <b> & c"),
        ),
        (
            "entities in attributes",
            rss!(
                r#"<item><enclosure url="http://example.org/a?x=1&amp;y=2&z=3" type="a"/></item>"#
            ),
            "/entries/0/enclosures/0/url",
            json!("http://example.org/a?x=1&y=2&z=3"),
        ),
        (
            "invalid character reference kept",
            rss!("<title>&#xD800;</title>"),
            "/feed/title",
            json!("&#xD800;"),
        ),
    ]);
}

#[test]
fn junk_before_the_root() {
    check(&[
        (
            "whitespace, BOM, comment and doctype are not junk",
            "\u{feff}\n  <!-- hi --><!DOCTYPE rss><rss version=\"2.0\"><channel><title>t</title></channel></rss>",
            "/warning_kinds",
            json!([]),
        ),
        (
            "text before the root",
            "garbage\n<rss version=\"2.0\"><channel><title>t</title></channel></rss>",
            "/warning_kinds",
            json!(["junk_before_root"]),
        ),
        (
            "php warning before the declaration",
            "<br />\n<b>Warning</b>: something<br />\n<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>kept</title></channel></rss>",
            "/feed/title",
            json!("kept"),
        ),
        (
            "php warning is junk",
            "<br />\n<b>Warning</b>: something<br />\n<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>kept</title></channel></rss>",
            "/warning_kinds/0",
            json!("junk_before_root"),
        ),
        (
            "xml declaration without its question mark",
            "<?xml version=\"1.0\" encoding=\"UTF-8\">\n<rss version=\"2.0\"><channel><title>kept</title></channel></rss>",
            "/feed/title",
            json!("kept"),
        ),
        (
            "xml declaration never closed",
            "<?xml version=\"1.0\"\n<rss version=\"2.0\"><channel><title>kept</title></channel></rss>",
            "/feed/title",
            json!("kept"),
        ),
        (
            "doctype internal subset never closed",
            "<!DOCTYPE rss [ <!ENTITY x \"y\">\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>kept</title></feed>",
            "/feed/title",
            json!("kept"),
        ),
        (
            "comment before the root never closed",
            "<!-- cache\n<rss version=\"2.0\"><channel><title>kept</title></channel></rss>",
            "/warning_kinds/0",
            json!("junk_before_root"),
        ),
        (
            "an html page is still not a feed",
            "<html><head><title>x</title></head><body><p>rss feed here</p></body></html>",
            "/error",
            json!("not a feed: the root element is <html>"),
        ),
    ]);
}

const MISMATCHED: &str = r#"<rss version="2.0"><channel><title>t</title>
<item><title>A</TITLE><link>http://example.org/a</link><description>x</span> y</description></item>
<item><title>B</title><description><p>Hello<br>world</description></item>
<item><title>C</title></item>
</channel></rss>"#;

#[test]
fn mismatched_and_unclosed_tags() {
    check(&[
        (
            "end tag in other case",
            MISMATCHED,
            "/entries/0/title",
            json!("A"),
        ),
        (
            "next sibling unharmed",
            MISMATCHED,
            "/entries/0/link",
            json!("http://example.org/a"),
        ),
        (
            "stray end tag ignored",
            MISMATCHED,
            "/entries/0/summary",
            json!("x y"),
        ),
        (
            "unclosed html inside description",
            MISMATCHED,
            "/entries/1/summary",
            json!("<p>Hello<br>world"),
        ),
        (
            "later items unharmed",
            MISMATCHED,
            "/entries/2/title",
            json!("C"),
        ),
        (
            "warned",
            MISMATCHED,
            "/warning_kinds/0",
            json!("malformed_xml"),
        ),
        (
            "stray < in text",
            rss!("<title>1 < 2 and 3 <= 4</title><link>http://example.org/</link>"),
            "/feed/title",
            json!("1 < 2 and 3 <= 4"),
        ),
        (
            "stray < does not swallow the next element",
            rss!("<title>1 < 2</title><link>http://example.org/</link>"),
            "/feed/link",
            json!("http://example.org/"),
        ),
        (
            "missing channel end",
            "<rss version=\"2.0\"><channel><title>t</title><item><title>i</title></item></rss>",
            "/entries/0/title",
            json!("i"),
        ),
        (
            "unclosed cdata ends at its element's end tag",
            rss!(
                "<item><description><![CDATA[never closed</description></item><item><title>next</title></item>"
            ),
            "/entries/0/summary",
            json!("never closed"),
        ),
        (
            "the item after an unclosed cdata is read",
            rss!(
                "<item><description><![CDATA[never closed</description></item><item><title>next</title></item>"
            ),
            "/entries/1/title",
            json!("next"),
        ),
        (
            "a document cut inside the root's start tag is an empty feed",
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/ele",
            "/format",
            json!("rss20"),
        ),
        (
            "a document cut inside the root's start tag says so",
            "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"e",
            "/warning_kinds",
            json!(["truncated"]),
        ),
        (
            "a root start tag with a quote never closed keeps what follows",
            "<rss version=\"2.0 xmlns:dc=\"x\n<channel><title>kept</title><item><title>i</title></item></channel></rss>",
            "/entries/0/title",
            json!("i"),
        ),
        (
            "a document cut inside another element's start tag is not a feed",
            "<?xml version=\"1.0\"?>\n<html lang=\"e",
            "/error",
            json!("not a feed: no XML element found"),
        ),
        (
            "a document cut inside cdata keeps the text",
            "<rss version=\"2.0\"><channel><item><title>t</title><description><![CDATA[<p>cut he",
            "/entries/0/summary",
            json!("<p>cut he"),
        ),
        (
            "misspelt channel description end does not swallow the items",
            rss!("<description>d</desc><item><title>i</title></item>"),
            "/entries/0/title",
            json!("i"),
        ),
        (
            "misspelt channel description end keeps the description",
            rss!("<description>d</desc><item><title>i</title></item>"),
            "/feed/description",
            json!("d"),
        ),
        (
            "unclosed item ends where the next item starts",
            rss!("<item><title>a</title><item><title>b</title></item>"),
            "/entries/1/title",
            json!("b"),
        ),
        (
            "unclosed atom entry ends where the next entry starts",
            atom!("<entry><id>1</id><entry><id>2</id></entry>"),
            "/entries/1/id",
            json!("2"),
        ),
        (
            "unclosed title ends where the next rss element starts",
            rss!("<title>t<link>http://example.org/</link><language>en</language>"),
            "/feed/title",
            json!("t"),
        ),
        (
            "the element after an unclosed title is read",
            rss!("<title>t<link>http://example.org/</link><language>en</language>"),
            "/feed/link",
            json!("http://example.org/"),
        ),
        (
            "an anchor inside a link gives its href",
            rss!(
                r#"<item><title>i</title><link><a href="http://example.org/a">http://example.org/a</a></link></item>"#
            ),
            "/entries/0/link",
            json!("http://example.org/a"),
        ),
        (
            "html tags inside an unclosed description stay inside",
            rss!("<item><description><p>a<b>b</description></item>"),
            "/entries/0/summary",
            json!("<p>a<b>b"),
        ),
    ]);
}

const TRUNCATED_IN_ITEM: &str = r#"<rss version="2.0"><channel><title>t</title>
<item><title>whole</title></item>
<item><title>partial</title><description>cut he"#;

const TRUNCATED_EMPTY_ITEM: &str = r#"<rss version="2.0"><channel><title>t</title>
<item><title>whole</title></item>
<item>
"#;

const TRUNCATED_EMPTY_CHILD: &str = r#"<rss version="2.0"><channel><title>t</title>
<item><title>whole</title></item>
<item><title>"#;

const TRUNCATED_ATOM: &str = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><id>1</id></entry><entry><id>2</id><title>par"#;

#[test]
fn truncated_documents_keep_what_was_read() {
    check(&[
        (
            "partial last item kept",
            TRUNCATED_IN_ITEM,
            "/entries/1/title",
            json!("partial"),
        ),
        (
            "partial text kept",
            TRUNCATED_IN_ITEM,
            "/entries/1/summary",
            json!("cut he"),
        ),
        (
            "truncation warned",
            TRUNCATED_IN_ITEM,
            "/warning_kinds",
            json!(["truncated"]),
        ),
        (
            "empty partial item dropped",
            TRUNCATED_EMPTY_ITEM,
            "/entries/1",
            json!(null),
        ),
        (
            "whole item kept",
            TRUNCATED_EMPTY_ITEM,
            "/entries/0/title",
            json!("whole"),
        ),
        (
            "partial item without data dropped",
            TRUNCATED_EMPTY_CHILD,
            "/entries/1",
            json!(null),
        ),
        (
            "atom partial entry",
            TRUNCATED_ATOM,
            "/entries/1/title",
            json!("par"),
        ),
        (
            "cut inside a tag",
            "<rss version=\"2.0\"><channel><title>t</title><item><title>x</title><link href=\"ab",
            "/entries/0/title",
            json!("x"),
        ),
        (
            "cut inside cdata",
            "<rss><channel><item><title>t</title><description><![CDATA[<p>some",
            "/entries/0/title",
            json!("t"),
        ),
    ]);
}

const OLD_RSS: &str = r#"<RSS VERSION="0.91"><CHANNEL><TITLE>Shouting</TITLE><LINK>http://example.org/</LINK>
<Item><Title>Loud</Title><Link>http://example.org/loud</Link><Description>d</Description></Item></CHANNEL></RSS>"#;

#[test]
fn uppercase_old_rss() {
    check(&[
        ("format", OLD_RSS, "/format", json!("rss091")),
        ("title", OLD_RSS, "/feed/title", json!("Shouting")),
        ("item", OLD_RSS, "/entries/0/title", json!("Loud")),
        (
            "item link",
            OLD_RSS,
            "/entries/0/link",
            json!("http://example.org/loud"),
        ),
        ("no warnings", OLD_RSS, "/warning_kinds", json!([])),
    ]);
}

const RICH: &str = rss!(
    r#"<title>T &amp; &eacute;</title><link>/x</link><atom:link rel="self" href="s"/>
<item><title>one</title><description><![CDATA[<p>a</p>]]></description><guid>g1</guid>
<media:group><media:content url="m"><media:thumbnail url="t"/></media:content></media:group>
<enclosure url="e" length="1"/><dc:creator>c</dc:creator><itunes:duration>1:2:3</itunes:duration></item>
<item><title>two<b>x</b></title><content:encoded>&lt;p&gt;b&lt;/p&gt;</content:encoded></item>"#
);

/// Every prefix of a rich document, and a few byte-level corruptions of it, parse without
/// panicking, and a prefix that reaches the root still yields a feed.
#[test]
fn no_prefix_or_corruption_panics() {
    let root_start = RICH.find("<rss").unwrap_or(0);
    let root_end = root_start + RICH[root_start..].find('>').unwrap_or(0);
    for end in (0..=RICH.len()).filter(|&i| RICH.is_char_boundary(i)) {
        let doc = &RICH[..end];
        let v = parse_json(doc, Some(xml_support::BASE));
        if end > root_end {
            assert_eq!(
                v.get("format"),
                Some(&json!("rss20")),
                "prefix of {end} bytes"
            );
        }
    }
    for (i, c) in RICH.char_indices().step_by(7) {
        for replacement in ["<", ">", "&", "\"", "</", "]]>", "<![CDATA["] {
            let mut doc = String::with_capacity(RICH.len() + 9);
            doc.push_str(&RICH[..i]);
            doc.push_str(replacement);
            doc.push_str(&RICH[i + c.len_utf8()..]);
            let _ = parse_json(&doc, None);
        }
    }
}

/// Hostile nesting: deep unclosed elements and many stray end tags stay linear and keep
/// the feed readable.
#[test]
fn deep_nesting_is_bounded() {
    let mut doc = String::from(
        "<rss version=\"2.0\"><channel><title>deep</title><item><title>i</title><description>",
    );
    for _ in 0..20_000 {
        doc.push_str("<b>");
    }
    for _ in 0..20_000 {
        doc.push_str("</i>");
    }
    doc.push_str("</description></item><item><title>after</title></item></channel></rss>");
    let v = parse_json(&doc, None);
    assert_eq!(v.pointer("/feed/title"), Some(&json!("deep")));
    assert_eq!(v.pointer("/entries/1/title"), Some(&json!("after")));
}

const DOCTYPE_ENTITIES: &str = r#"<!DOCTYPE rss [
  <!ENTITY % param "ignored">
  <!ENTITY site "Example &#38; Co">
  <!ENTITY motto 'say "hi"'>
]>
<rss version="2.0"><channel><title>&site; &motto; &other;</title><description>&site;</description></channel></rss>"#;

#[test]
fn doctype_entities() {
    check(&[
        (
            "declared entities expand",
            DOCTYPE_ENTITIES,
            "/feed/title",
            json!("Example & Co say \"hi\" &other;"),
        ),
        (
            "in leaf text too",
            DOCTYPE_ENTITIES,
            "/feed/description",
            json!("Example & Co"),
        ),
        (
            "only the undeclared one warns",
            DOCTYPE_ENTITIES,
            "/warning_kinds",
            json!(["unknown_entity"]),
        ),
        (
            "an entity made of entities is not used",
            "<!DOCTYPE rss [<!ENTITY a \"aa\"><!ENTITY b \"&a;&a;\">]><rss version=\"2.0\"><channel><title>&a; &b;</title></channel></rss>",
            "/feed/title",
            json!("aa &b;"),
        ),
    ]);
}

const UNCLOSED_EMPTY: &str = r#"<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<atom:link rel="self" href="http://example.org/rss">
<title>still the channel's</title>
<item><enclosure url="http://example.org/a.mp3" length="5" type="audio/mpeg"><title>still the item's</title>
<link>http://example.org/i</link></item>
<item><enclosure url="http://example.org/b.mp3">  </enclosure><title>b</title></item>
</channel></rss>"#;

#[test]
fn empty_elements_written_without_a_slash() {
    check(&[
        (
            "channel title after unclosed atom:link",
            UNCLOSED_EMPTY,
            "/feed/title",
            json!("still the channel's"),
        ),
        (
            "self link kept",
            UNCLOSED_EMPTY,
            "/feed/self_url",
            json!("http://example.org/rss"),
        ),
        (
            "item title after unclosed enclosure",
            UNCLOSED_EMPTY,
            "/entries/0/title",
            json!("still the item's"),
        ),
        (
            "item link",
            UNCLOSED_EMPTY,
            "/entries/0/link",
            json!("http://example.org/i"),
        ),
        (
            "enclosure kept",
            UNCLOSED_EMPTY,
            "/entries/0/enclosures/0/length",
            json!(5),
        ),
        (
            "properly closed enclosure",
            UNCLOSED_EMPTY,
            "/entries/1/title",
            json!("b"),
        ),
        (
            "warned per unclosed element",
            UNCLOSED_EMPTY,
            "/warning_kinds",
            json!(["malformed_xml", "malformed_xml"]),
        ),
    ]);
}

#[test]
fn line_ends_read_as_xml_defines_them() {
    check(&[
        (
            "crlf in text",
            rss!("<description>one\r\ntwo\rthree</description>"),
            "/feed/description",
            json!("one\ntwo\nthree"),
        ),
        (
            "crlf in cdata and markup",
            rss!(
                "<item><description><![CDATA[a\r\nb]]></description><content:encoded><p>x\r\n</p></content:encoded></item>"
            ),
            "/entries/0/summary",
            json!("a\nb"),
        ),
    ]);
}

/// C8: entities declared in a DOCTYPE cannot grow a small document into gigabytes; the
/// expansion has a budget (the document's length plus 64 KiB), past which references stay as
/// written and a warning says so.
#[test]
fn c8_declared_entities_expand_within_a_budget() {
    let value = "x".repeat(10_000);
    let refs = "&big;".repeat(5_000); // 25 KB of references, 50 MB if all expanded
    let doc = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY big \"{value}\">]>\n<rss version=\"2.0\"><channel>\
         <title>{refs}</title><item><title>{refs}</title><description>{refs}</description></item></channel></rss>"
    );
    let parsed =
        tidings_feed::parse(doc.as_bytes(), &tidings_feed::ParseOptions::default()).unwrap();
    let held = parsed.feed.title.as_ref().map_or(0, String::len)
        + parsed
            .entries
            .iter()
            .map(|e| {
                e.title.as_ref().map_or(0, String::len)
                    + e.summary.as_ref().map_or(0, String::len)
                    + e.content.as_ref().map_or(0, String::len)
            })
            .sum::<usize>();
    assert!(
        held <= 4 * (doc.len() + 64 * 1024),
        "{held} bytes of text from a {} byte document",
        doc.len()
    );
    assert!(
        parsed.feed.title.as_deref().unwrap().starts_with(&value),
        "the first references expand"
    );
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.message.contains("expansion limit")),
        "{:?}",
        parsed.warnings
    );
    // A modest declared entity still expands everywhere.
    let small = "<!DOCTYPE rss [<!ENTITY co \"Harbour and Co\">]><rss version=\"2.0\"><channel><title>&co;</title>\
                 <item><title>&co; news</title></item></channel></rss>";
    let parsed =
        tidings_feed::parse(small.as_bytes(), &tidings_feed::ParseOptions::default()).unwrap();
    assert_eq!(parsed.feed.title.as_deref(), Some("Harbour and Co"));
    assert_eq!(
        parsed.entries[0].title.as_deref(),
        Some("Harbour and Co news")
    );
}

#[test]
fn c8_thousands_of_unclosed_tags_leave_the_rest_of_the_feed_read_as_before() {
    // Past a few thousand start tags without their end tags the reader is renewed at the
    // same byte (its own memory of open tags is not needed); what follows reads the same.
    let brs = "a<br>".repeat(20_000);
    let doc = format!(
        "<rss version=\"2.0\"><channel><title>x</title>\
         <item><guid>1</guid><description>{brs}</description><title>one</title></item>\
         <item><guid>2</guid><title>two &amp; more</title><link>https://e.example/2</link></item>\
         </channel></rss>"
    );
    let parsed = tidings_feed::parse(doc.as_bytes(), &tidings_feed::ParseOptions::default())
        .expect("parses");
    let titles: Vec<_> = parsed.entries.iter().map(|e| e.title.as_deref()).collect();
    assert_eq!(titles, [Some("one"), Some("two & more")]);
    assert_eq!(parsed.entries[0].summary.as_deref(), Some(brs.as_str()));
    assert_eq!(
        parsed.entries[1].link.as_deref(),
        Some("https://e.example/2")
    );
}
