//! Relative URLs resolved against `xml:base` and then the document URL; `xml:lang` inherited
//! as the language; HTML content left exactly as written.

#[macro_use]
mod xml_support;

use serde_json::json;
use xml_support::{check, check_with_base};

const RELATIVE_RSS: &str = rss!(
    r#"
  <link>/</link>
  <atom:link rel="self" href="rss.xml"/>
  <image><url>img/logo.png</url></image>
  <itunes:image href="../cover.jpg"/>
  <media:thumbnail url="thumbs/chan.jpg"/>
  <item>
    <link>posts/1</link>
    <comments>posts/1#c</comments>
    <enclosure url="media/1.mp3" type="audio/mpeg"/>
    <media:content url="media/1.mp4"><media:thumbnail url="//cdn.example.net/t.jpg"/></media:content>
    <description><![CDATA[<a href="relative/in/html">x</a>]]></description>
  </item>
  <item xml:base="http://other.example/base/">
    <link>two</link>
    <guid>three</guid>
  </item>
  <item><link>HTTP://Example.COM/Kept%20As/Written</link><guid isPermaLink="true">/perma</guid></item>
"#
);

#[test]
fn relative_urls_against_the_document_url() {
    check(&[
        (
            "channel link",
            RELATIVE_RSS,
            "/feed/link",
            json!("http://example.org/"),
        ),
        (
            "self link",
            RELATIVE_RSS,
            "/feed/self_url",
            json!("http://example.org/feeds/rss.xml"),
        ),
        (
            "the later of image and itunes:image wins, resolved",
            RELATIVE_RSS,
            "/feed/image",
            json!("http://example.org/cover.jpg"),
        ),
        (
            "channel thumbnail",
            RELATIVE_RSS,
            "/feed/thumbnails/0/url",
            json!("http://example.org/feeds/thumbs/chan.jpg"),
        ),
        (
            "item link",
            RELATIVE_RSS,
            "/entries/0/link",
            json!("http://example.org/feeds/posts/1"),
        ),
        (
            "comments",
            RELATIVE_RSS,
            "/entries/0/comments",
            json!("http://example.org/feeds/posts/1#c"),
        ),
        (
            "enclosure",
            RELATIVE_RSS,
            "/entries/0/enclosures/0/url",
            json!("http://example.org/feeds/media/1.mp3"),
        ),
        (
            "media content",
            RELATIVE_RSS,
            "/entries/0/media/0/url",
            json!("http://example.org/feeds/media/1.mp4"),
        ),
        (
            "scheme-relative",
            RELATIVE_RSS,
            "/entries/0/thumbnails/0/url",
            json!("http://cdn.example.net/t.jpg"),
        ),
        (
            "html content untouched",
            RELATIVE_RSS,
            "/entries/0/summary",
            json!("<a href=\"relative/in/html\">x</a>"),
        ),
        (
            "xml:base on the item",
            RELATIVE_RSS,
            "/entries/1/link",
            json!("http://other.example/base/two"),
        ),
        (
            "guid never rewritten",
            RELATIVE_RSS,
            "/entries/1/id",
            json!("three"),
        ),
        (
            "absolute URL kept exactly",
            RELATIVE_RSS,
            "/entries/2/link",
            json!("HTTP://Example.COM/Kept%20As/Written"),
        ),
    ]);
}

const BASE_ATOM: &str = r#"<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://a.example/one/" xml:lang="en">
  <link href="home"/>
  <link rel="self" href="feed.atom"/>
  <icon>i.ico</icon>
  <logo>/l.png</logo>
  <entry xml:base="two/" xml:lang="fr-CA">
    <link href="three"/>
    <link rel="enclosure" href="four.mp3"/>
    <author><name>a</name><uri>me</uri></author>
    <content type="xhtml" xml:base="http://ignored.example/"><div xmlns="http://www.w3.org/1999/xhtml"><a href="rel">r</a></div></content>
  </entry>
  <entry>
    <link href="http://absolute.example/x"/>
    <link xml:base="http://b.example/dir/" href="own-base"/>
  </entry>
  <entry xml:lang=""><title>no language</title></entry>
</feed>"#;

#[test]
fn xml_base_and_lang_inherit() {
    check(&[
        (
            "feed link",
            BASE_ATOM,
            "/feed/link",
            json!("http://a.example/one/home"),
        ),
        (
            "self",
            BASE_ATOM,
            "/feed/self_url",
            json!("http://a.example/one/feed.atom"),
        ),
        (
            "icon",
            BASE_ATOM,
            "/feed/icon",
            json!("http://a.example/one/i.ico"),
        ),
        (
            "logo",
            BASE_ATOM,
            "/feed/image",
            json!("http://a.example/l.png"),
        ),
        (
            "nested relative base",
            BASE_ATOM,
            "/entries/0/link",
            json!("http://a.example/one/two/three"),
        ),
        (
            "enclosure",
            BASE_ATOM,
            "/entries/0/enclosures/0/url",
            json!("http://a.example/one/two/four.mp3"),
        ),
        (
            "author uri",
            BASE_ATOM,
            "/entries/0/authors/0/uri",
            json!("http://a.example/one/two/me"),
        ),
        (
            "xhtml untouched",
            BASE_ATOM,
            "/entries/0/content",
            json!("<a href=\"rel\">r</a>"),
        ),
        (
            "base on the link itself",
            BASE_ATOM,
            "/entries/1/links/1/href",
            json!("http://b.example/dir/own-base"),
        ),
        (
            "feed language from xml:lang",
            BASE_ATOM,
            "/feed/language",
            json!("en"),
        ),
        (
            "entry's own xml:lang",
            BASE_ATOM,
            "/entries/0/language",
            json!("fr-CA"),
        ),
        (
            "inherited xml:lang",
            BASE_ATOM,
            "/entries/1/language",
            json!("en"),
        ),
        (
            "empty xml:lang clears it",
            BASE_ATOM,
            "/entries/2/language",
            json!(null),
        ),
    ]);
}

const LANG_RSS: &str = r#"<rss version="2.0" xml:lang="nl"><channel><language>en-GB</language>
  <item><title>x</title></item></channel></rss>"#;

#[test]
fn explicit_language_beats_xml_lang() {
    check(&[
        (
            "channel language element wins",
            LANG_RSS,
            "/feed/language",
            json!("en-GB"),
        ),
        (
            "item inherits xml:lang",
            LANG_RSS,
            "/entries/0/language",
            json!("nl"),
        ),
    ]);
}

#[test]
fn without_a_base_relative_urls_stay_as_written() {
    check_with_base(
        None,
        &[
            (
                "relative link kept",
                rss!("<item><link> posts/1 </link></item>"),
                "/entries/0/link",
                json!("posts/1"),
            ),
            (
                "xml:base alone resolves",
                r#"<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://x.example/a/"><link href="b"/></feed>"#,
                "/feed/link",
                json!("http://x.example/a/b"),
            ),
        ],
    );
}

#[test]
fn xml_lang_underscore_is_normalised() {
    check(&[(
        "en_US reads as en-US",
        r#"<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en_US"><entry><title>t</title></entry></feed>"#,
        "/entries/0/language",
        json!("en-US"),
    )]);
}
