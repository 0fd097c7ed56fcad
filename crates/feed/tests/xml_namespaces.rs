//! Namespace extensions: content, Dublin Core, DC terms, Media RSS, iTunes, Creative Commons,
//! syndication, Atom inside RSS; matched by URI, and by usual prefix when undeclared.

#[macro_use]
mod xml_support;

use serde_json::json;
use xml_support::check;

const DC: &str = rss!(
    r#"
  <dc:title>DC title</dc:title>
  <dc:description>DC description</dc:description>
  <dc:language>de</dc:language>
  <dc:rights>DC rights</dc:rights>
  <dc:publisher>Pub</dc:publisher>
  <dc:date>dc-date-feed</dc:date>
  <dcterms:modified>dcterms-modified</dcterms:modified>
  <item>
    <title>Own title</title>
    <dc:title>DC title loses</dc:title>
    <dc:creator>Carla</dc:creator>
    <dc:creator>Dan</dc:creator>
    <dc:contributor>Eve</dc:contributor>
    <dc:subject>topic</dc:subject>
    <dc:rights>item rights</dc:rights>
    <content:encoded><![CDATA[<p>Full</p>]]></content:encoded>
    <dcterms:valid>start=2026-01-01T00:00:00Z; end=valid-end; scheme=W3C-DTF</dcterms:valid>
  </item>
"#
);

#[test]
fn dublin_core_and_content() {
    check(&[
        (
            "dc:title fills a missing title",
            DC,
            "/feed/title",
            json!("DC title"),
        ),
        (
            "dc:description",
            DC,
            "/feed/description",
            json!("DC description"),
        ),
        ("dc:language", DC, "/feed/language", json!("de")),
        ("dc:rights", DC, "/feed/rights", json!("DC rights")),
        (
            "core title wins",
            DC,
            "/entries/0/title",
            json!("Own title"),
        ),
        (
            "dc:creator each an author",
            DC,
            "/entries/0/authors",
            json!([{"name": "Carla", "email": null, "uri": null}, {"name": "Dan", "email": null, "uri": null}]),
        ),
        (
            "dc:contributor",
            DC,
            "/entries/0/contributors/0/name",
            json!("Eve"),
        ),
        ("dc:subject", DC, "/entries/0/categories", json!(["topic"])),
        (
            "item dc:rights",
            DC,
            "/entries/0/rights",
            json!("item rights"),
        ),
        (
            "content:encoded",
            DC,
            "/entries/0/content",
            json!("<p>Full</p>"),
        ),
        (
            "dates and the dcterms:valid end are read",
            DC,
            "/warning_messages",
            json!([
                "unreadable date \"dc-date-feed\"",
                "unreadable date \"dcterms-modified\"",
                "unreadable date \"valid-end\""
            ]),
        ),
    ]);
}

const MEDIA: &str = rss!(
    r#"
  <media:thumbnail url="http://example.org/chan.jpg" width="64" height="64"/>
  <media:credit>Channel Photographer</media:credit>
  <media:license href="http://creativecommons.org/licenses/by/4.0/">CC BY 4.0</media:license>
  <item>
    <title>With media</title>
    <media:thumbnail url="http://example.org/t1.jpg" width="120" height="90"/>
    <media:credit role="photographer">Pat</media:credit>
    <media:copyright>(c) Pat</media:copyright>
    <media:keywords>one, two ,, three</media:keywords>
    <media:category>animals</media:category>
    <media:content url="http://example.org/v.mp4" type="video/mp4" medium="video" width="640" height="360" fileSize="999" duration="61"/>
    <media:group>
      <media:title>Group title</media:title>
      <media:license>http://example.org/licence</media:license>
      <media:content url="http://example.org/a.jpg" medium="image">
        <media:credit>Lee</media:credit>
        <media:keywords>k1</media:keywords>
        <media:thumbnail url="http://example.org/a-small.jpg"/>
      </media:content>
      <media:thumbnail url="http://example.org/g.jpg"/>
    </media:group>
    <enclosure url="http://example.org/e.mp3" type="audio/mpeg" length="5"/>
  </item>
"#
);

#[test]
fn media_rss() {
    check(&[
        (
            "channel thumbnail with sibling credit and licence",
            MEDIA,
            "/feed/thumbnails",
            json!([{"url": "http://example.org/chan.jpg", "width": 64, "height": 64, "type": null,
                    "credit": "Channel Photographer", "copyright": null,
                    "license": "http://creativecommons.org/licenses/by/4.0/"}]),
        ),
        (
            "channel media:license",
            MEDIA,
            "/feed/license",
            json!("http://creativecommons.org/licenses/by/4.0/"),
        ),
        (
            "item thumbnail with sibling credit and copyright",
            MEDIA,
            "/entries/0/thumbnails/0",
            json!({"url": "http://example.org/t1.jpg", "width": 120, "height": 90, "type": null,
                   "credit": "Pat", "copyright": "(c) Pat", "license": null}),
        ),
        (
            "thumbnail inside media:content takes its credit and the group licence",
            MEDIA,
            "/entries/0/thumbnails/1",
            json!({"url": "http://example.org/a-small.jpg", "width": null, "height": null, "type": null,
                   "credit": "Lee", "copyright": "(c) Pat", "license": "http://example.org/licence"}),
        ),
        (
            "group thumbnail",
            MEDIA,
            "/entries/0/thumbnails/2/license",
            json!("http://example.org/licence"),
        ),
        (
            "keywords split",
            MEDIA,
            "/entries/0/keywords",
            json!(["one", "two", "three"]),
        ),
        (
            "media:category, then keywords of the item and its media, among categories",
            MEDIA,
            "/entries/0/categories",
            json!(["animals", "one", "two", "three", "k1"]),
        ),
        (
            "media:content attributes",
            MEDIA,
            "/entries/0/media/0",
            json!({"url": "http://example.org/v.mp4", "type": "video/mp4", "medium": "video",
                   "width": 640, "height": 360, "file_size": 999, "duration": 61,
                   "title": null, "description": null, "credit": "Pat", "copyright": "(c) Pat",
                   "license": null, "categories": [], "keywords": []}),
        ),
        (
            "group content inherits group title",
            MEDIA,
            "/entries/0/media/1/title",
            json!("Group title"),
        ),
        (
            "content keywords",
            MEDIA,
            "/entries/0/media/1/keywords",
            json!(["k1"]),
        ),
        (
            "media never in enclosures",
            MEDIA,
            "/entries/0/enclosures",
            json!([{"url": "http://example.org/e.mp3", "type": "audio/mpeg", "length": 5}]),
        ),
    ]);
}

const ITUNES: &str = rss!(
    r#"
  <itunes:image href="http://example.org/cover.jpg"/>
  <itunes:author>Podcaster</itunes:author>
  <itunes:summary>About the show</itunes:summary>
  <itunes:explicit>clean</itunes:explicit>
  <itunes:category text="Arts"><itunes:category text="Design"/></itunes:category>
  <item><title>H</title><itunes:duration>1:02:03</itunes:duration><itunes:explicit>yes</itunes:explicit>
    <itunes:summary>ep summary</itunes:summary><itunes:author>Guest</itunes:author><itunes:keywords>a,b</itunes:keywords></item>
  <item><title>M</title><itunes:duration>02:03</itunes:duration><itunes:explicit>maybe</itunes:explicit>
    <description>core wins</description><itunes:summary>loses</itunes:summary>
    <author>x@example.org (Real)</author><itunes:author>Fallback</itunes:author></item>
  <item><title>S</title><itunes:duration>3723</itunes:duration></item>
  <item><title>Bad</title><itunes:duration>about an hour</itunes:duration></item>
"#
);

#[test]
fn itunes() {
    check(&[
        (
            "image href",
            ITUNES,
            "/feed/image",
            json!("http://example.org/cover.jpg"),
        ),
        (
            "author as fallback",
            ITUNES,
            "/feed/authors/0/name",
            json!("Podcaster"),
        ),
        (
            "summary as fallback",
            ITUNES,
            "/feed/description",
            json!("About the show"),
        ),
        (
            "clean is not explicit",
            ITUNES,
            "/feed/explicit",
            json!(false),
        ),
        (
            "nested categories",
            ITUNES,
            "/feed/categories",
            json!(["Arts", "Design"]),
        ),
        ("hh:mm:ss", ITUNES, "/entries/0/duration", json!(3723)),
        ("mm:ss", ITUNES, "/entries/1/duration", json!(123)),
        ("seconds", ITUNES, "/entries/2/duration", json!(3723)),
        (
            "unreadable duration",
            ITUNES,
            "/entries/3/duration",
            json!(null),
        ),
        (
            "unreadable duration warns",
            ITUNES,
            "/warning_kinds",
            json!(["invalid_value"]),
        ),
        (
            "yes is explicit",
            ITUNES,
            "/entries/0/explicit",
            json!(true),
        ),
        (
            "unclear explicit is none",
            ITUNES,
            "/entries/1/explicit",
            json!(null),
        ),
        (
            "entry summary fallback",
            ITUNES,
            "/entries/0/summary",
            json!("ep summary"),
        ),
        (
            "description beats itunes:summary",
            ITUNES,
            "/entries/1/summary",
            json!("core wins"),
        ),
        (
            "itunes:author fallback",
            ITUNES,
            "/entries/0/authors/0/name",
            json!("Guest"),
        ),
        (
            "real author beats itunes:author",
            ITUNES,
            "/entries/1/authors/0/name",
            json!("Real"),
        ),
        (
            "only one author",
            ITUNES,
            "/entries/1/authors/1",
            json!(null),
        ),
        (
            "itunes keywords",
            ITUNES,
            "/entries/0/keywords",
            json!(["a", "b"]),
        ),
    ]);
}

/// A podcast channel with `itunes:summary` then `description`: feedparser reads its first item's
/// summary-like elements as replacing each other, and the later items by the usual rule.
const PODCAST_ORDER: &str = rss!(
    r#"<title>p</title><itunes:summary>show</itunes:summary><description>show d</description>
<item><description>D1</description><itunes:summary>I1</itunes:summary><content:encoded>C1</content:encoded></item>
<item><description>D2</description><itunes:summary>I2</itunes:summary><content:encoded>C2</content:encoded></item>"#
);

#[test]
fn podcast_summary_order_follows_feedparser() {
    check(&[
        (
            "first item: the last summary-like element is the summary",
            PODCAST_ORDER,
            "/entries/0/summary",
            json!("I1"),
        ),
        (
            "first item: content:encoded is the content",
            PODCAST_ORDER,
            "/entries/0/content",
            json!("C1"),
        ),
        (
            "second item: the first summary-like element is the summary",
            PODCAST_ORDER,
            "/entries/1/summary",
            json!("D2"),
        ),
        (
            "second item: the second summary-like element is the content",
            PODCAST_ORDER,
            "/entries/1/content",
            json!("I2"),
        ),
        (
            "without a second channel summary the first item reads as the others",
            rss!(
                "<itunes:summary>s</itunes:summary><item><description>D</description><itunes:summary>I</itunes:summary></item>"
            ),
            "/entries/0/content",
            json!("I"),
        ),
    ]);
}

#[test]
fn xhtml_body_is_content() {
    check(&[
        (
            "default-namespace body",
            rss!(
                r#"<item><title>i</title><body xmlns="http://www.w3.org/1999/xhtml"><p>Full <b>post</b></p></body></item>"#
            ),
            "/entries/0/content",
            json!("<p>Full <b>post</b></p>"),
        ),
        (
            "prefixed body loses its prefix",
            rss!(
                r#"<item><title>i</title><x:body xmlns:x="http://www.w3.org/1999/xhtml"><x:p>Full</x:p></x:body></item>"#
            ),
            "/entries/0/content",
            json!("<p>Full</p>"),
        ),
        (
            "body without a description is the summary too",
            rss!(
                r#"<item><title>i</title><body xmlns="http://www.w3.org/1999/xhtml"><p>Full</p></body></item>"#
            ),
            "/entries/0/summary",
            json!("<p>Full</p>"),
        ),
    ]);
}

#[test]
fn competing_sources_read_as_feedparser_reads_them() {
    check(&[
        (
            "itunes:image after image wins",
            rss!(
                r#"<image><url>http://example.org/rss.png</url></image><itunes:image href="http://example.org/it.png"/>"#
            ),
            "/feed/image",
            json!("http://example.org/it.png"),
        ),
        (
            "image after itunes:image wins",
            rss!(
                r#"<itunes:image href="http://example.org/it.png"/><image><url>http://example.org/rss.png</url></image>"#
            ),
            "/feed/image",
            json!("http://example.org/rss.png"),
        ),
        (
            "media:group title titles an item without one",
            rss!(
                "<item><media:group><media:title>From the group</media:title></media:group></item>"
            ),
            "/entries/0/title",
            json!("From the group"),
        ),
        (
            "media:title before itunes:title",
            rss!("<item><itunes:title>it</itunes:title><media:title>media</media:title></item>"),
            "/entries/0/title",
            json!("media"),
        ),
        (
            "the item's own title first",
            rss!("<item><media:title>media</media:title><title>own</title></item>"),
            "/entries/0/title",
            json!("own"),
        ),
        (
            "an email-only author takes the name dc:creator gives",
            rss!("<item><author>a@example.org</author><dc:creator>Ann</dc:creator></item>"),
            "/entries/0/authors",
            json!([{"name": "Ann", "email": "a@example.org", "uri": null}]),
        ),
        (
            "an email-only author takes the name itunes:author gives",
            rss!("<item><itunes:author>Ian</itunes:author><author>i@example.org</author></item>"),
            "/entries/0/authors",
            json!([{"name": "Ian", "email": "i@example.org", "uri": null}]),
        ),
        (
            "a named author is not merged",
            rss!("<item><author>a@example.org (Ann)</author><dc:creator>Bo</dc:creator></item>"),
            "/entries/0/authors/0/name",
            json!("Ann"),
        ),
    ]);
}

const LICENCES_AND_SY: &str = rss!(
    r#"
  <creativeCommons:license>http://creativecommons.org/licenses/by-nc/1.0</creativeCommons:license>
  <sy:updatePeriod> Hourly </sy:updatePeriod>
  <sy:updateFrequency>2</sy:updateFrequency>
  <atom:link rel="self" type="application/rss+xml" href="http://example.org/rss"/>
  <atom:link rel="hub" href="http://pubsubhubbub.example/"/>
  <item><title>cc</title><cc:license rdf:resource="http://creativecommons.org/licenses/by-sa/2.0/"/>
    <atom:link rel="alternate" href="http://example.org/from-atom"/></item>
  <item><title>both</title><link>http://example.org/core</link><atom:link href="http://example.org/atom"/></item>
"#
);

#[test]
fn licences_syndication_and_atom_in_rss() {
    check(&[
        (
            "creativeCommons:license",
            LICENCES_AND_SY,
            "/feed/license",
            json!("http://creativecommons.org/licenses/by-nc/1.0"),
        ),
        (
            "updatePeriod",
            LICENCES_AND_SY,
            "/feed/update_period",
            json!("hourly"),
        ),
        (
            "updateFrequency",
            LICENCES_AND_SY,
            "/feed/update_frequency",
            json!(2),
        ),
        (
            "atom self",
            LICENCES_AND_SY,
            "/feed/self_url",
            json!("http://example.org/rss"),
        ),
        (
            "atom hub",
            LICENCES_AND_SY,
            "/feed/hub",
            json!("http://pubsubhubbub.example/"),
        ),
        (
            "cc:license rdf:resource",
            LICENCES_AND_SY,
            "/entries/0/license",
            json!("http://creativecommons.org/licenses/by-sa/2.0/"),
        ),
        (
            "atom alternate as link",
            LICENCES_AND_SY,
            "/entries/0/link",
            json!("http://example.org/from-atom"),
        ),
        (
            "core link beats atom link",
            LICENCES_AND_SY,
            "/entries/1/link",
            json!("http://example.org/core"),
        ),
        ("no warnings", LICENCES_AND_SY, "/warning_kinds", json!([])),
    ]);
}

const UNDECLARED: &str = r#"<rss version="2.0"><channel><title>t</title>
  <item><title>x</title><dc:creator>Undeclared Dee</dc:creator><content:encoded>body</content:encoded>
  <media:thumbnail url="http://example.org/u.jpg"/></item></channel></rss>"#;

const ODD_PREFIXES: &str = r#"<rss version="2.0" xmlns:d="http://purl.org/dc/elements/1.1/" xmlns:dc="http://example.org/not-dublin-core"><channel>
  <item><d:creator>By URI</d:creator><dc:creator>Not DC</dc:creator></item></channel></rss>"#;

#[test]
fn namespaces_by_uri_then_by_usual_prefix() {
    check(&[
        (
            "undeclared dc",
            UNDECLARED,
            "/entries/0/authors/0/name",
            json!("Undeclared Dee"),
        ),
        (
            "undeclared content",
            UNDECLARED,
            "/entries/0/content",
            json!("body"),
        ),
        (
            "undeclared media",
            UNDECLARED,
            "/entries/0/thumbnails/0/url",
            json!("http://example.org/u.jpg"),
        ),
        (
            "one warning per prefix",
            UNDECLARED,
            "/warning_kinds",
            json!([
                "undeclared_prefix",
                "undeclared_prefix",
                "undeclared_prefix"
            ]),
        ),
        (
            "matched by URI, not prefix",
            ODD_PREFIXES,
            "/entries/0/authors",
            json!([{"name": "By URI", "email": null, "uri": null}]),
        ),
    ]);
}

#[test]
fn unknown_default_namespace_is_the_format_itself() {
    check(&[
        (
            "rss in the harvard namespace",
            r#"<rss version="2.0" xmlns="http://blogs.law.harvard.edu/tech/rss"><channel><title>h</title><item><title>i</title></item></channel></rss>"#,
            "/entries/0/title",
            json!("i"),
        ),
        (
            "atom in a draft namespace",
            r#"<feed xmlns="http://purl.org/echo/"><title>echo</title></feed>"#,
            "/feed/title",
            json!("echo"),
        ),
        (
            "a known extension as default namespace stays itself",
            r#"<rss version="2.0"><channel><item><title>t</title><encoded xmlns="http://purl.org/rss/1.0/modules/content/">c</encoded></item></channel></rss>"#,
            "/entries/0/content",
            json!("c"),
        ),
    ]);
}
