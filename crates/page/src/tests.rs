//! Table tests on pages written for them, and properties over arbitrary bytes.

use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

const PAGE_URL: &str = "https://news.example/2026/12/story.html";

fn read_with(html: &[u8], content_type: Option<&str>, limits: Limits) -> Page {
    let page_url = url(PAGE_URL);
    inspect(
        html,
        &Context {
            url: &page_url,
            content_type,
            bots: &["FFBot", "SereneReader"],
            limits,
        },
    )
}

fn read(html: &str) -> Page {
    read_with(html.as_bytes(), None, Limits::default())
}

fn image_urls(page: &Page) -> Vec<(ImageSource, String)> {
    page.images
        .iter()
        .map(|i| (i.source, i.url.to_string()))
        .collect()
}

#[test]
fn open_graph_images_carry_their_structured_properties() {
    let page = read(
        r#"<!doctype html><html lang="pt-BR"><head>
        <meta property="og:image" content="/img/lead.jpg">
        <meta property="og:image:secure_url" content="https://cdn.news.example/lead.jpg">
        <meta property="og:image:width" content="1200">
        <meta property="og:image:height" content="630px">
        <meta property="og:image:type" content="image/jpeg">
        <meta property="og:image:alt" content="  The   harbour at dawn ">
        <meta property="og:image" content="second.png">
        <meta name="twitter:image" content="//cdn.news.example/card.png">
        <link rel="image_src" href="/legacy.gif">
        </head><body><p><img src="inline.webp" alt="inline" width="64"></body></html>"#,
    );
    assert_eq!(
        image_urls(&page),
        [
            (
                ImageSource::OpenGraph,
                "https://cdn.news.example/lead.jpg".into()
            ),
            (
                ImageSource::OpenGraph,
                "https://news.example/2026/12/second.png".into()
            ),
            (
                ImageSource::Twitter,
                "https://cdn.news.example/card.png".into()
            ),
            (
                ImageSource::LinkImageSrc,
                "https://news.example/legacy.gif".into()
            ),
            (
                ImageSource::FirstImg,
                "https://news.example/2026/12/inline.webp".into()
            ),
        ]
    );
    let lead = &page.images[0];
    assert_eq!((lead.width, lead.height), (Some(1200), Some(630)));
    assert_eq!(lead.mime.as_deref(), Some("image/jpeg"));
    assert_eq!(lead.alt.as_deref(), Some("The harbour at dawn"));
    // Properties follow the image they come after, not an earlier one.
    assert_eq!(page.images[1].width, None);
    assert_eq!(page.images[4].width, Some(64));
    assert_eq!(page.language.as_deref(), Some("pt-BR"));
}

#[test]
fn markup_that_is_not_markup_is_not_read() {
    let page = read(
        r#"<html><head>
        <script>document.write('<meta property="og:image" content="/from-script.jpg">');</script>
        <!-- <meta name="robots" content="noindex"> -->
        <style>/* <link rel="icon" href="/style.ico"> */</style>
        <title>Real <b>title</b> &amp; more</title>
        <textarea><img src="/in-textarea.png"></textarea>
        <template><meta name="robots" content="none"><img src="/template.png"></template>
        </head><body>
        <svg><title>Chart</title><image href="/chart.png"/></svg>
        <noscript><img src="/lazy.jpg"></noscript>
        </body></html>"#,
    );
    assert!(page.directives.is_empty(), "{:?}", page.directives);
    assert!(page.icons.is_empty(), "{:?}", page.icons);
    // A title is text: its markup is kept as written, entities decoded.
    assert_eq!(page.title.as_deref(), Some("Real <b>title</b> & more"));
    // The first image the page really has (inside noscript: a bot runs no script).
    assert_eq!(
        image_urls(&page),
        [(
            ImageSource::FirstImg,
            "https://news.example/lazy.jpg".into()
        )]
    );
}

#[test]
fn icons_of_every_kind_in_document_order() {
    let page = read(
        r##"<head>
        <link rel="shortcut icon" href="/favicon.ico">
        <link rel="icon" type="image/png" sizes="32x32" href="/icon-32.png">
        <link rel="apple-touch-icon" sizes="180x180" href="/apple.png">
        <link rel="apple-touch-icon-precomposed" href="/apple-pre.png">
        <link rel="mask-icon" href="/mask.svg" color="#000">
        <link rel="ICON" href="javascript:alert(1)">
        <link rel="icon" href="data:image/png;base64,AAAA">
        <link rel="stylesheet" href="/site.css">
        </head>"##,
    );
    let icons: Vec<(IconKind, &str, Option<&str>)> = page
        .icons
        .iter()
        .map(|i| (i.kind, i.url.path(), i.sizes.as_deref()))
        .collect();
    assert_eq!(
        icons,
        [
            (IconKind::Icon, "/favicon.ico", None),
            (IconKind::Icon, "/icon-32.png", Some("32x32")),
            (IconKind::AppleTouch, "/apple.png", Some("180x180")),
            (IconKind::AppleTouchPrecomposed, "/apple-pre.png", None),
            (IconKind::Mask, "/mask.svg", None),
        ]
    );
    assert_eq!(page.icons[1].mime.as_deref(), Some("image/png"));
}

#[test]
fn feed_alternates_by_type() {
    let page = read(
        r#"<head>
        <link rel="alternate" type="application/rss+xml" title="All stories" href="/feed.rss">
        <link rel="alternate" type="application/atom+xml; charset=utf-8" href="/atom.xml">
        <link rel="Alternate" type="APPLICATION/FEED+JSON" href="feed.json">
        <link rel="alternate" type="application/rdf+xml" href="/index.rdf">
        <link rel="alternate" type="text/xml" href="/old.xml">
        <link rel="alternate" type="application/rss+xml" href="/feed.rss">
        <link rel="alternate stylesheet" type="application/rss+xml" href="/style.rss">
        <link rel="alternate" hreflang="fr" href="/fr/">
        <link rel="alternate" type="text/html" href="/print.html">
        </head>"#,
    );
    let feeds: Vec<(FeedFormat, &str, Option<&str>)> = page
        .feeds
        .iter()
        .map(|f| (f.format, f.url.path(), f.title.as_deref()))
        .collect();
    assert_eq!(
        feeds,
        [
            (FeedFormat::Rss, "/feed.rss", Some("All stories")),
            (FeedFormat::Atom, "/atom.xml", None),
            (FeedFormat::Json, "/2026/12/feed.json", None),
            (FeedFormat::Rdf, "/index.rdf", None),
            (FeedFormat::Xml, "/old.xml", None),
        ]
    );
}

#[test]
fn directives_for_robots_and_the_named_bots_only() {
    let page = read(
        r#"<head>
        <meta name="robots" content="noindex, nofollow">
        <meta name="FFBOT" content="nosnippet">
        <meta name="serenereader" content="noarchive">
        <meta name="googlebot" content="none">
        <meta name="robots">
        </head>"#,
    );
    let directives: Vec<(&str, &str)> = page
        .directives
        .iter()
        .map(|d| (d.name.as_str(), d.content.as_str()))
        .collect();
    assert_eq!(
        directives,
        [
            ("robots", "noindex, nofollow"),
            ("ffbot", "nosnippet"),
            ("serenereader", "noarchive"),
        ]
    );
}

#[test]
fn licences_terms_and_tdm() {
    let page = read(
        r#"<head>
        <link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
        <link rel="terms-of-service" href="/terms">
        <meta name="tdm-reservation" content="1">
        <meta name="tdm-policy" content="/tdm-policy.json">
        </head><body>
        <a rel="license" href="https://creativecommons.org/licenses/by/4.0/">CC BY</a>
        <a rel="nofollow license" href="http://creativecommons.org/publicdomain/zero/1.0/">CC0</a>
        <a href="/about">About</a>
        </body>"#,
    );
    assert_eq!(
        page.licences,
        [
            url("https://creativecommons.org/licenses/by/4.0/"),
            url("http://creativecommons.org/publicdomain/zero/1.0/"),
        ]
    );
    assert_eq!(page.terms, [url("https://news.example/terms")]);
    assert_eq!(page.tdm.reservation.as_deref(), Some("1"));
    assert_eq!(
        page.tdm.policy,
        Some(url("https://news.example/tdm-policy.json"))
    );
}

#[test]
fn the_first_base_resolves_relative_urls() {
    let page = read(
        r#"<head><base href="https://static.example/assets/"><base href="https://other.example/">
        <meta property="og:image" content="lead.jpg"></head>"#,
    );
    assert_eq!(page.base, Some(url("https://static.example/assets/")));
    assert_eq!(
        page.images[0].url,
        url("https://static.example/assets/lead.jpg")
    );
    // No base: the page URL.
    assert_eq!(read("<p>hi").base, Some(url(PAGE_URL)));
}

#[test]
fn title_description_and_language_fall_back() {
    let page = read(
        r#"<html><head>
        <meta property="og:title" content="OG title">
        <meta property="og:description" content="OG description">
        <meta http-equiv="Content-Language" content="fr, en">
        </head></html>"#,
    );
    assert_eq!(page.title.as_deref(), Some("OG title"));
    assert_eq!(page.description.as_deref(), Some("OG description"));
    assert_eq!(page.language.as_deref(), Some("fr"));
    let page = read(
        "<title>\n  Own\n\ttitle  </title><meta name=description content=\"Own description\">\
         <meta property=og:title content=\"OG\">",
    );
    assert_eq!(page.title.as_deref(), Some("Own title"));
    assert_eq!(page.description.as_deref(), Some("Own description"));
}

#[test]
fn urls_of_other_schemes_and_overlong_urls_are_dropped() {
    let long = format!("/{}", "a".repeat(3_000));
    let page = read(&format!(
        r#"<meta property="og:image" content="javascript:void(0)">
        <meta property="og:image" content="data:image/png;base64,AAAA">
        <meta property="og:image" content="ftp://files.example/x.png">
        <meta property="og:image" content="{long}">
        <meta property="og:image" content="http://[::1">
        <meta property="og:image" content="  /kept.png  ">"#
    ));
    assert_eq!(
        image_urls(&page),
        [(
            ImageSource::OpenGraph,
            "https://news.example/kept.png".into()
        )]
    );
}

#[test]
fn lists_and_texts_are_bounded() {
    let mut html = String::from("<title>");
    html.push_str(&"word ".repeat(2_000));
    html.push_str("</title>");
    for i in 0..100 {
        html.push_str(&format!(r#"<link rel="icon" href="/i{i}.png">"#));
        html.push_str(&format!(r#"<meta name="robots" content="noindex{i}">"#));
    }
    let page = read(&html);
    let limits = Limits::default();
    assert_eq!(page.icons.len(), limits.max_items);
    assert_eq!(page.directives.len(), limits.max_items);
    let title = page.title.unwrap();
    assert!(
        title.chars().count() <= limits.max_text_chars,
        "{}",
        title.len()
    );
    assert!(title.starts_with("word word"));
}

#[test]
fn body_links_once_each_in_order_and_bounded() {
    let page = read(
        r##"<body><a href="/a">a</a> <a href="/a#part">a again</a>
        <a rel="nofollow ugc" href="b.html">b</a>
        <area href="/map/c" alt="c">
        <a href="/podcast" type="application/rss+xml">podcast</a>
        <a href="mailto:x@news.example">mail</a> <a name="anchor-only">none</a>
        <!-- <a href="/commented"> --><script>var a = '<a href="/scripted">';</script>"##,
    );
    let links: Vec<(String, Option<FeedFormat>, bool)> = page
        .links
        .iter()
        .map(|l| (l.url.to_string(), l.feed_type, l.nofollow))
        .collect();
    assert_eq!(
        links,
        [
            ("https://news.example/a".to_string(), None, false),
            ("https://news.example/2026/12/b.html".into(), None, true),
            ("https://news.example/map/c".into(), None, false),
            (
                "https://news.example/podcast".into(),
                Some(FeedFormat::Rss),
                false
            ),
        ]
    );
    let many: String = (0..50).map(|i| format!("<a href=/p{i}>p</a>")).collect();
    let limits = Limits {
        max_links: 7,
        ..Limits::default()
    };
    let page = read_with(many.as_bytes(), None, limits);
    assert_eq!(page.links.len(), 7);
    assert_eq!(page.links[6].url.path(), "/p6");
}

#[test]
fn only_the_byte_budget_is_read() {
    let limits = Limits {
        max_bytes: 200,
        ..Limits::default()
    };
    let mut html = String::from(r#"<meta property="og:image" content="/early.png">"#);
    html.push_str(&" ".repeat(300));
    html.push_str(r#"<meta property="og:image" content="/late.png">"#);
    let page = read_with(html.as_bytes(), None, limits);
    assert!(page.truncated);
    assert_eq!(
        image_urls(&page),
        [(
            ImageSource::OpenGraph,
            "https://news.example/early.png".into()
        )]
    );
    assert!(!read("<p>short").truncated);
}

#[test]
fn encodings_from_bom_header_meta_or_a_guess() {
    // "Notícias" in windows-1252, declared by the header.
    let latin1 = b"<title>Not\xedcias</title>";
    let page = read_with(
        latin1,
        Some("text/html; charset=\"windows-1252\""),
        Limits::default(),
    );
    assert_eq!(page.title.as_deref(), Some("Notícias"));
    assert_eq!(page.encoding, "windows-1252");
    // Declared by a meta in the first 1024 bytes: "Новости" in windows-1251.
    let cyrillic = b"<meta charset=windows-1251><title>\xcd\xee\xe2\xee\xf1\xf2\xe8</title>";
    let page = read_with(cyrillic, None, Limits::default());
    assert_eq!(page.title.as_deref(), Some("Новости"));
    // The http-equiv form.
    let sjis = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">\
        <title>\x83\x6a\x83\x85\x81\x5b\x83\x58</title>";
    let page = read_with(sjis, None, Limits::default());
    assert_eq!(page.title.as_deref(), Some("ニュース"));
    assert_eq!(page.encoding, "Shift_JIS");
    // A byte order mark wins over a header that says otherwise.
    let mut utf16: Vec<u8> = vec![0xff, 0xfe];
    for unit in "<title>Überblick</title>".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let page = read_with(
        &utf16,
        Some("text/html; charset=iso-8859-1"),
        Limits::default(),
    );
    assert_eq!(page.title.as_deref(), Some("Überblick"));
    assert_eq!(page.encoding, "UTF-16LE");
    // A meta declaring UTF-16 in ASCII bytes means UTF-8.
    let page = read_with(
        "<meta charset=utf-16><title>Olá</title>".as_bytes(),
        None,
        Limits::default(),
    );
    assert_eq!(page.encoding, "UTF-8");
    assert_eq!(page.title.as_deref(), Some("Olá"));
    // Nothing declared, valid UTF-8: UTF-8.
    assert_eq!(read("<title>Événement</title>").encoding, "UTF-8");
}

#[test]
fn charset_parameters() {
    use crate::decode::charset_of_content_type as charset;
    assert_eq!(
        charset("text/html; charset=UTF-8").as_deref(),
        Some("UTF-8")
    );
    assert_eq!(
        charset("text/html;charset = 'koi8-r'").as_deref(),
        Some("koi8-r")
    );
    assert_eq!(charset("text/html; charset=\"unclosed").as_deref(), None);
    assert_eq!(
        charset("text/html; charsetx; charset=gbk").as_deref(),
        Some("gbk")
    );
    assert_eq!(charset("text/html").as_deref(), None);
}

#[test]
fn the_first_image_of_a_fragment_within_its_bound() {
    let base = url("https://pub.example/2026/story");
    let html = r#"<p>Intro <img src="data:image/gif;base64,R0lG"> <img src="pics/a.jpg" width="640" alt="A"></p><img src="/b.jpg">"#;
    let img = first_image(html, &base, 10_000).unwrap();
    assert_eq!(img.url, url("https://pub.example/2026/pics/a.jpg"));
    assert_eq!((img.width, img.alt.as_deref()), (Some(640), Some("A")));
    // Past the bound, nothing is looked at.
    assert_eq!(first_image(html, &base, 20), None);
    assert_eq!(
        first_image("<p>é</p><img src=x.png>", &base, 6),
        None,
        "cut at a character"
    );
}

#[test]
fn the_text_of_a_fragment() {
    for (html, want) in [
        ("<p>One</p><p>Two &amp; three</p>", "One Two & three"),
        ("wo<b>rd</b>s<br>next", "words next"),
        (
            "<script>var x = '<p>no</p>';</script>Shown<style>p{}</style>",
            "Shown",
        ),
        ("<template><p>inert</p></template>kept", "kept"),
        ("  spaced \n\t out  ", "spaced out"),
        ("<svg><text>chart</text></svg>after", "after"),
        ("&lt;not a tag&gt; &#x41;&eacute;", "<not a tag> Aé"),
        ("<p>unclosed <i>markup", "unclosed markup"),
        ("", ""),
    ] {
        assert_eq!(text(html, 100), want, "{html:?}");
    }
    assert_eq!(text("abc def ghi", 7), "abc def");
    assert_eq!(text("<p>é</p>".repeat(10).as_str(), 5), "é é é");
}

proptest::proptest! {
    /// The text of anything is bounded and has no markup the input did not spell as text.
    #[test]
    fn any_fragment_gives_bounded_text(html in ".{0,300}", most in 0usize..100) {
        let t = text(&html, most);
        proptest::prop_assert!(t.chars().count() <= most);
        proptest::prop_assert!(!t.starts_with(' ') && !t.ends_with(' '));
    }

    /// Arbitrary bytes never panic, and nothing past the budget changes what is read.
    #[test]
    fn any_bytes_are_read_within_the_budget(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2_000),
        budget in 0usize..1_500,
    ) {
        let limits = Limits { max_bytes: budget, ..Limits::default() };
        let whole = read_with(&bytes, None, limits);
        let cut = &bytes[..bytes.len().min(budget)];
        let prefix = read_with(cut, None, limits);
        proptest::prop_assert_eq!(whole.truncated, bytes.len() > budget);
        proptest::prop_assert_eq!(Page { truncated: false, ..whole }, prefix);
    }

    /// Markup-shaped input: tags and attributes drawn from the ones the crate reads.
    #[test]
    fn markup_shaped_input_never_panics(parts in proptest::collection::vec(
        proptest::sample::select(vec![
            "<meta property=og:image content=", "<link rel=icon href=", "<title>", "</title>",
            "<script>", "</script>", "<svg>", "</svg>", "<template>", "</template>", "<base href=",
            "\"", "'", ">", "/x.png", "http://", "<!--", "-->", "\u{0}", "&amp;", "<img src=",
            "<meta charset=", "utf-16", "<a rel=license href=", "<meta name=robots content=",
        ]),
        0..60,
    )) {
        let html = parts.concat();
        let page = read(&html);
        proptest::prop_assert!(page.images.len() <= Limits::default().max_items);
    }
}
