//! Format detection and each format's own elements (RSS 0.9x/2.0, RDF, Atom 0.3/1.0).

#[macro_use]
mod xml_support;

use serde_json::json;
use xml_support::check;

#[test]
fn detects_the_format_from_the_root() {
    check(&[
        (
            "rss 2.0",
            r#"<rss version="2.0"><channel/></rss>"#,
            "/format",
            json!("rss20"),
        ),
        (
            "rss 2.01",
            r#"<rss version="2.01"><channel/></rss>"#,
            "/format",
            json!("rss20"),
        ),
        (
            "rss 0.91",
            r#"<rss version="0.91"><channel/></rss>"#,
            "/format",
            json!("rss091"),
        ),
        (
            "rss 0.92",
            r#"<rss version="0.92"><channel/></rss>"#,
            "/format",
            json!("rss092"),
        ),
        (
            "rss 0.93",
            r#"<rss version="0.93"><channel/></rss>"#,
            "/format",
            json!("rss093"),
        ),
        (
            "rss 0.94",
            r#"<rss version="0.94"><channel/></rss>"#,
            "/format",
            json!("rss094"),
        ),
        (
            "rss without version",
            r#"<rss><channel/></rss>"#,
            "/format",
            json!("rss"),
        ),
        (
            "rss unknown version",
            r#"<rss version="7"><channel/></rss>"#,
            "/format",
            json!("rss"),
        ),
        (
            "rss 1.0",
            r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel/></rdf:RDF>"#,
            "/format",
            json!("rss10"),
        ),
        (
            "rdf 0.90",
            r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/"><channel/></rdf:RDF>"#,
            "/format",
            json!("rss090"),
        ),
        (
            "atom 1.0",
            r#"<feed xmlns="http://www.w3.org/2005/Atom"/>"#,
            "/format",
            json!("atom10"),
        ),
        (
            "atom 0.3 by namespace",
            r#"<feed xmlns="http://purl.org/atom/ns#"/>"#,
            "/format",
            json!("atom03"),
        ),
        (
            "atom 0.3 by version",
            r#"<feed version="0.3"/>"#,
            "/format",
            json!("atom03"),
        ),
        (
            "html page",
            "<!DOCTYPE html><html><head><title>x</title></head><body>hi</body></html>",
            "/error",
            json!("not a feed: the root element is <html>"),
        ),
        (
            "other xml",
            "<?xml version=\"1.0\"?><note><to>x</to></note>",
            "/error",
            json!("not a feed: the root element is <note>"),
        ),
        (
            "no element",
            "just text",
            "/error",
            json!("not a feed: no XML element found"),
        ),
        (
            "atom entry document",
            r#"<entry xmlns="http://www.w3.org/2005/Atom"><id>urn:e</id><title>lone</title></entry>"#,
            "/format",
            json!("atom10"),
        ),
        (
            "atom entry document is one entry",
            r#"<entry xmlns="http://www.w3.org/2005/Atom"><id>urn:e</id><title>lone</title></entry>"#,
            "/entries/0/title",
            json!("lone"),
        ),
    ]);
}

const RSS_CHANNEL: &str = rss!(
    r#"
  <title> Example  news </title>
  <link>http://example.org/</link>
  <description>All the news</description>
  <language>en-us</language>
  <copyright>(c) Example</copyright>
  <managingEditor>editor@example.org (Ed Itor)</managingEditor>
  <generator>hand</generator>
  <category>news</category><category>local</category>
  <ttl>90</ttl>
  <image><url>http://example.org/logo.png</url><title>x</title><link>http://example.org/</link></image>
  <cloud domain="rpc.example.org" port="80" path="/RPC2" registerProcedure="notify" protocol="xml-rpc"/>
  <skipHours><hour>5</hour><hour>24</hour><hour>5</hour><hour>1</hour></skipHours>
  <skipDays><day>monday</day><day>Sunday</day></skipDays>
  <pubDate>not a date</pubDate>
"#
);

#[test]
fn rss_channel_elements() {
    check(&[
        (
            "title trimmed",
            RSS_CHANNEL,
            "/feed/title",
            json!("Example  news"),
        ),
        (
            "link",
            RSS_CHANNEL,
            "/feed/link",
            json!("http://example.org/"),
        ),
        (
            "link listed",
            RSS_CHANNEL,
            "/feed/links/0/rel",
            json!("alternate"),
        ),
        (
            "description",
            RSS_CHANNEL,
            "/feed/description",
            json!("All the news"),
        ),
        ("language", RSS_CHANNEL, "/feed/language", json!("en-us")),
        (
            "copyright is rights",
            RSS_CHANNEL,
            "/feed/rights",
            json!("(c) Example"),
        ),
        (
            "managingEditor is an author",
            RSS_CHANNEL,
            "/feed/authors",
            json!([{"name": "Ed Itor", "email": "editor@example.org", "uri": null}]),
        ),
        ("generator", RSS_CHANNEL, "/feed/generator", json!("hand")),
        (
            "categories",
            RSS_CHANNEL,
            "/feed/categories",
            json!(["news", "local"]),
        ),
        ("ttl", RSS_CHANNEL, "/feed/ttl", json!(90)),
        (
            "image url",
            RSS_CHANNEL,
            "/feed/image",
            json!("http://example.org/logo.png"),
        ),
        (
            "cloud",
            RSS_CHANNEL,
            "/feed/cloud",
            json!({"domain": "rpc.example.org", "port": 80, "path": "/RPC2", "register_procedure": "notify", "protocol": "xml-rpc"}),
        ),
        (
            "skipHours sorted, 24 is 0",
            RSS_CHANNEL,
            "/feed/skip_hours",
            json!([0, 1, 5]),
        ),
        (
            "skipDays capitalised",
            RSS_CHANNEL,
            "/feed/skip_days",
            json!(["Monday", "Sunday"]),
        ),
        (
            "bad pubDate warns",
            RSS_CHANNEL,
            "/warning_kinds",
            json!(["invalid_date"]),
        ),
        (
            "bad pubDate leaves none",
            RSS_CHANNEL,
            "/feed/published",
            json!(null),
        ),
    ]);
}

const RSS_ITEMS: &str = rss!(
    r#"
<item>
  <title>First</title>
  <link>http://example.org/1</link>
  <description>&lt;p&gt;Short &amp;amp; sweet&lt;/p&gt;</description>
  <author>jo@example.org (Jo Writer)</author>
  <category>a</category><category>b</category>
  <comments>http://example.org/1#comments</comments>
  <enclosure url="http://example.org/1.mp3" type="audio/mpeg" length="1000"/>
  <enclosure url="http://example.org/1.ogg" type="audio/ogg" length="oops"/>
  <guid isPermaLink="false">item-1</guid>
  <source url="http://other.example/feed">Other</source>
</item>
<item>
  <title>Second</title>
  <guid>http://example.org/2</guid>
  <author>Jo Writer &lt;jo@example.org&gt;</author>
  <description><![CDATA[<b>bold</b> move]]></description>
</item>
<item><description>no title</description></item>
"#
);

#[test]
fn rss_item_elements() {
    check(&[
        (
            "three items",
            RSS_ITEMS,
            "/entries/2/summary",
            json!("no title"),
        ),
        ("title", RSS_ITEMS, "/entries/0/title", json!("First")),
        (
            "link",
            RSS_ITEMS,
            "/entries/0/link",
            json!("http://example.org/1"),
        ),
        (
            "escaped html unescaped once",
            RSS_ITEMS,
            "/entries/0/summary",
            json!("<p>Short &amp; sweet</p>"),
        ),
        (
            "cdata as found",
            RSS_ITEMS,
            "/entries/1/summary",
            json!("<b>bold</b> move"),
        ),
        (
            "author email (name)",
            RSS_ITEMS,
            "/entries/0/authors",
            json!([{"name": "Jo Writer", "email": "jo@example.org", "uri": null}]),
        ),
        (
            "author name <email>",
            RSS_ITEMS,
            "/entries/1/authors",
            json!([{"name": "Jo Writer", "email": "jo@example.org", "uri": null}]),
        ),
        (
            "categories",
            RSS_ITEMS,
            "/entries/0/categories",
            json!(["a", "b"]),
        ),
        (
            "comments",
            RSS_ITEMS,
            "/entries/0/comments",
            json!("http://example.org/1#comments"),
        ),
        (
            "all enclosures kept",
            RSS_ITEMS,
            "/entries/0/enclosures",
            json!([
                {"url": "http://example.org/1.mp3", "type": "audio/mpeg", "length": 1000},
                {"url": "http://example.org/1.ogg", "type": "audio/ogg", "length": null}
            ]),
        ),
        (
            "guid is the id",
            RSS_ITEMS,
            "/entries/0/id",
            json!("item-1"),
        ),
        (
            "the identity is left to the rule",
            RSS_ITEMS,
            "/entries/0/identity",
            json!(""),
        ),
        (
            "non-permalink guid is not the link",
            RSS_ITEMS,
            "/entries/0/links/0/href",
            json!("http://example.org/1"),
        ),
        (
            "permalink guid becomes the link",
            RSS_ITEMS,
            "/entries/1/link",
            json!("http://example.org/2"),
        ),
        ("no guid, no id", RSS_ITEMS, "/entries/2/id", json!(null)),
        (
            "source",
            RSS_ITEMS,
            "/entries/0/source",
            json!({"title": "Other", "link": null, "url": "http://other.example/feed"}),
        ),
    ]);
}

const RDF: &str = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="http://example.org/">
    <title>RDF site</title>
    <link>http://example.org/</link>
    <description>about</description>
    <dc:language>fr</dc:language>
    <image rdf:resource="http://example.org/img.gif"/>
    <items><rdf:Seq><rdf:li rdf:resource="http://example.org/a"/></rdf:Seq></items>
  </channel>
  <image rdf:about="http://example.org/img.gif"><url>http://example.org/real.gif</url></image>
  <item rdf:about="http://example.org/a">
    <title>A</title><link>http://example.org/a</link><description>d</description>
    <dc:creator>Anne</dc:creator>
  </item>
  <textinput rdf:about="x"><title>search</title></textinput>
</rdf:RDF>"#;

#[test]
fn rdf_layout() {
    check(&[
        ("title", RDF, "/feed/title", json!("RDF site")),
        (
            "rdf:about under another prefix names the item",
            r#"<r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>t</title></channel><item r:about="http://example.org/i"><title>i</title></item></r:RDF>"#,
            "/entries/0/id",
            json!("http://example.org/i"),
        ),
        ("dc:language", RDF, "/feed/language", json!("fr")),
        (
            "image url beats rdf:resource",
            RDF,
            "/feed/image",
            json!("http://example.org/real.gif"),
        ),
        (
            "one item",
            RDF,
            "/entries/0/link",
            json!("http://example.org/a"),
        ),
        (
            "dc:creator",
            RDF,
            "/entries/0/authors/0/name",
            json!("Anne"),
        ),
        ("no second item", RDF, "/entries/1", json!(null)),
        ("no warnings", RDF, "/warning_kinds", json!([])),
    ]);
}

const ATOM: &str = atom!(
    r#"
  <title type="text">Atom &amp; Eve</title>
  <subtitle type="html">&lt;em&gt;sub&lt;/em&gt;</subtitle>
  <link href="http://example.org/"/>
  <link rel="self" href="http://example.org/feed.atom"/>
  <link rel="hub" href="http://hub.example/"/>
  <link rel="license" href="http://creativecommons.org/licenses/by/4.0/"/>
  <id>urn:feed</id>
  <rights>CC BY</rights>
  <icon>http://example.org/i.ico</icon>
  <logo>http://example.org/l.png</logo>
  <generator uri="http://gen.example/">Gen</generator>
  <author><name>Ann</name><email>ann@example.org</email><uri>http://example.org/ann</uri></author>
  <category term="tech" label="Technology"/>
  <entry>
    <id>urn:e1</id>
    <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">A <b>bold</b> &amp; title</div></title>
    <link rel="alternate" type="application/pdf" href="http://example.org/e1.pdf"/>
    <link rel="alternate" type="text/html" href="http://example.org/e1"/>
    <link rel="enclosure" type="audio/mpeg" length="42" href="http://example.org/e1.mp3"/>
    <summary>plain &lt; text</summary>
    <content type="html">&lt;p&gt;Hello&lt;/p&gt;</content>
    <contributor><name>Bob</name></contributor>
    <category term="x"/>
    <source><title>Origin</title><link href="http://origin.example/"/><link rel="self" href="http://origin.example/feed"/></source>
  </entry>
  <entry>
    <title>No id</title>
    <content type="xhtml"><xhtml:div xmlns:xhtml="http://www.w3.org/1999/xhtml"><xhtml:p>para</xhtml:p></xhtml:div></content>
  </entry>
"#
);

#[test]
fn atom_elements() {
    check(&[
        ("title text", ATOM, "/feed/title", json!("Atom & Eve")),
        (
            "subtitle html",
            ATOM,
            "/feed/description",
            json!("<em>sub</em>"),
        ),
        (
            "alternate link",
            ATOM,
            "/feed/link",
            json!("http://example.org/"),
        ),
        (
            "self",
            ATOM,
            "/feed/self_url",
            json!("http://example.org/feed.atom"),
        ),
        ("hub", ATOM, "/feed/hub", json!("http://hub.example/")),
        (
            "license link",
            ATOM,
            "/feed/license",
            json!("http://creativecommons.org/licenses/by/4.0/"),
        ),
        (
            "all links kept",
            ATOM,
            "/feed/links/3/rel",
            json!("license"),
        ),
        ("rights", ATOM, "/feed/rights", json!("CC BY")),
        (
            "icon",
            ATOM,
            "/feed/icon",
            json!("http://example.org/i.ico"),
        ),
        (
            "logo is the image",
            ATOM,
            "/feed/image",
            json!("http://example.org/l.png"),
        ),
        ("generator", ATOM, "/feed/generator", json!("Gen")),
        (
            "person",
            ATOM,
            "/feed/authors",
            json!([{"name": "Ann", "email": "ann@example.org", "uri": "http://example.org/ann"}]),
        ),
        ("category term", ATOM, "/feed/categories", json!(["tech"])),
        ("entry id", ATOM, "/entries/0/id", json!("urn:e1")),
        (
            "xhtml inner markup",
            ATOM,
            "/entries/0/title",
            json!("A <b>bold</b> &amp; title"),
        ),
        (
            "html alternate preferred",
            ATOM,
            "/entries/0/link",
            json!("http://example.org/e1"),
        ),
        (
            "enclosure link",
            ATOM,
            "/entries/0/enclosures",
            json!([{"url": "http://example.org/e1.mp3", "type": "audio/mpeg", "length": 42}]),
        ),
        (
            "text summary",
            ATOM,
            "/entries/0/summary",
            json!("plain < text"),
        ),
        (
            "html content",
            ATOM,
            "/entries/0/content",
            json!("<p>Hello</p>"),
        ),
        (
            "contributor",
            ATOM,
            "/entries/0/contributors/0/name",
            json!("Bob"),
        ),
        (
            "entry category",
            ATOM,
            "/entries/0/categories",
            json!(["x"]),
        ),
        (
            "source",
            ATOM,
            "/entries/0/source",
            json!({"title": "Origin", "link": "http://origin.example/", "url": "http://origin.example/feed"}),
        ),
        ("no id stays none", ATOM, "/entries/1/id", json!(null)),
        (
            "prefixed xhtml div",
            ATOM,
            "/entries/1/content",
            json!("<p>para</p>"),
        ),
    ]);
}

const ATOM03: &str = r#"<?xml version="1.0"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#">
  <title mode="escaped" type="text/html">Old &amp;lt;Atom&amp;gt;</title>
  <tagline>the tagline</tagline>
  <copyright>(c) 2004</copyright>
  <link rel="alternate" type="text/html" href="http://example.org/"/>
  <modified>garbage-modified</modified>
  <entry>
    <title>E</title>
    <link rel="alternate" type="text/html" href="http://example.org/e"/>
    <id>tag:example.org,2004:e</id>
    <issued>garbage-issued</issued>
    <content type="text/html" mode="base64">PHA+aGk8L3A+</content>
    <summary type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml"><i>x</i></div></summary>
    <author><name>Old</name><url>http://example.org/old</url></author>
  </entry>
</feed>"#;

#[test]
fn atom03_elements() {
    check(&[
        ("format", ATOM03, "/format", json!("atom03")),
        (
            "escaped title",
            ATOM03,
            "/feed/title",
            json!("Old &lt;Atom&gt;"),
        ),
        ("tagline", ATOM03, "/feed/description", json!("the tagline")),
        ("copyright", ATOM03, "/feed/rights", json!("(c) 2004")),
        ("link", ATOM03, "/feed/link", json!("http://example.org/")),
        (
            "base64 content",
            ATOM03,
            "/entries/0/content",
            json!("<p>hi</p>"),
        ),
        (
            "xml mode summary",
            ATOM03,
            "/entries/0/summary",
            json!("<i>x</i>"),
        ),
        (
            "author url",
            ATOM03,
            "/entries/0/authors/0/uri",
            json!("http://example.org/old"),
        ),
        (
            "modified and issued are read as dates",
            ATOM03,
            "/warning_messages",
            json!([
                "unreadable date \"garbage-modified\"",
                "unreadable date \"garbage-issued\""
            ]),
        ),
    ]);
}

const LINK_CHOICE: &str = atom!(
    r#"<entry><id>http://example.org/by-id</id><title>only an id</title><content type="html">&lt;p&gt;body&lt;/p&gt;</content></entry>
<entry><id>x</id><link href="http://example.org/en" hreflang="en"/><link href="http://example.org/fr" hreflang="fr"/>
<link rel="alternate" type="application/json" href="http://example.org/json"/>
<category term="a"/><category term="b"/><category term="a"/></entry>"#
);

const SUMMARY_ORDER: &str = rss!(
    r#"<item><description>first</description><itunes:summary>second</itunes:summary></item>
<item><content:encoded>only content</content:encoded></item>
<item><content:encoded>full</content:encoded><description>short</description></item>
<item><itunes:summary>pod</itunes:summary><description>desc</description><content:encoded>late</content:encoded></item>"#
);

/// Summary and content come from many elements; feedparser's order-dependent rule decides.
#[test]
fn summary_and_content_follow_document_order() {
    check(&[
        (
            "first summary-like element is the summary",
            SUMMARY_ORDER,
            "/entries/0/summary",
            json!("first"),
        ),
        (
            "a second one is the content",
            SUMMARY_ORDER,
            "/entries/0/content",
            json!("second"),
        ),
        (
            "content alone is the summary too",
            SUMMARY_ORDER,
            "/entries/1/summary",
            json!("only content"),
        ),
        (
            "content alone",
            SUMMARY_ORDER,
            "/entries/1/content",
            json!("only content"),
        ),
        (
            "a later description replaces the copy",
            SUMMARY_ORDER,
            "/entries/2/summary",
            json!("short"),
        ),
        (
            "content kept",
            SUMMARY_ORDER,
            "/entries/2/content",
            json!("full"),
        ),
        (
            "first content wins",
            SUMMARY_ORDER,
            "/entries/3/content",
            json!("desc"),
        ),
        (
            "itunes summary first",
            SUMMARY_ORDER,
            "/entries/3/summary",
            json!("pod"),
        ),
    ]);
}

/// Where the model leaves a choice open, the reader chooses as feedparser does.
#[test]
fn feedparser_compatible_choices() {
    check(&[
        (
            "rss 0.90 outside RDF",
            r#"<rss version="0.90"><channel/></rss>"#,
            "/format",
            json!("rss"),
        ),
        (
            "an id is not the link when there is none (feedparser makes it one)",
            LINK_CHOICE,
            "/entries/0/link",
            json!(null),
        ),
        (
            "content stands in for a missing summary",
            LINK_CHOICE,
            "/entries/0/summary",
            json!("<p>body</p>"),
        ),
        (
            "the last html alternate wins",
            LINK_CHOICE,
            "/entries/1/link",
            json!("http://example.org/fr"),
        ),
        (
            "default link type",
            LINK_CHOICE,
            "/entries/1/links/0/type",
            json!("text/html"),
        ),
        (
            "declared link type kept",
            LINK_CHOICE,
            "/entries/1/links/2/type",
            json!("application/json"),
        ),
        (
            "repeated categories once",
            LINK_CHOICE,
            "/entries/1/categories",
            json!(["a", "b"]),
        ),
        (
            "windows-1252 character references",
            rss!("<title>&#147;quoted&#148; &#150; &#128;</title>"),
            "/feed/title",
            json!("\u{201c}quoted\u{201d} \u{2013} \u{20ac}"),
        ),
    ]);
}

const LOOSE_RSS: &str = r#"<rss version="2.0"><channel><author>Chan Author</author>
<item><enclosure href="http://example.org/e.mp3" type="audio/mpeg"/></item></channel></rss>"#;

#[test]
fn loose_rss_and_rdf_identity() {
    check(&[
        (
            "rdf:about is the entry's id",
            RDF,
            "/entries/0/id",
            json!("http://example.org/a"),
        ),
        (
            "channel author",
            LOOSE_RSS,
            "/feed/authors/0/name",
            json!("Chan Author"),
        ),
        (
            "enclosure with href",
            LOOSE_RSS,
            "/entries/0/enclosures/0/url",
            json!("http://example.org/e.mp3"),
        ),
    ]);
}
