//! FF1: the feed candidates of a golden set of HTML pages written for these tests (the shapes
//! of WordPress, Blogger, Ghost, Hugo, Jekyll, Substack and a video site's channel page, pages
//! with several alternates, relative and protocol-relative hrefs, `<base>`, broken HTML, body
//! links only, no feed at all), each with the candidates expected in order.

use tidings_page::discover::{Plan, Source, candidates};
use tidings_page::{Context, FeedFormat, Limits, inspect};
use url::Url;

const COMMON: [&str; 2] = ["/feed/", "/index.xml"];

/// What a candidate is expected to be: where it came from and its URL.
#[derive(Debug, PartialEq)]
enum Want {
    /// An alternate with its format.
    A(FeedFormat, &'static str),
    /// A body link.
    B(&'static str),
    /// A common path.
    C(&'static str),
}

use FeedFormat::{Atom, Json, Rdf, Rss, Xml};
use Want::{A, B, C};

fn found(file: &str, page_url: &str, plan: &Plan<'_>) -> Vec<Want> {
    let path = format!("{}/tests/discovery/{file}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let url = Url::parse(page_url).unwrap();
    let page = inspect(
        &bytes,
        &Context {
            url: &url,
            content_type: Some("text/html"),
            bots: &[],
            limits: Limits::default(),
        },
    );
    // The URLs are leaked to compare with the table's `&'static str`s: a test's few bytes.
    let leak = |u: &Url| -> &'static str { Box::leak(u.to_string().into_boxed_str()) };
    candidates(&page, &url, plan)
        .iter()
        .map(|c| match &c.source {
            Source::Alternate { format, .. } => A(*format, leak(&c.url)),
            Source::BodyLink => B(leak(&c.url)),
            Source::CommonPath => C(leak(&c.url)),
        })
        .collect()
}

fn plan(common: &[String]) -> Plan<'_> {
    Plan {
        common_paths: common,
        max_body_links: 3,
        max_candidates: 10,
    }
}

#[test]
fn ff1_candidates_of_the_golden_pages() {
    let common: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
    let plan = plan(&common);
    let table: Vec<(&str, &str, Vec<Want>)> = vec![
        (
            // The comments feed is a feed too (the reader picks); the oEmbed and RSD links are
            // not feeds; the body's feed links repeat the alternates.
            "wordpress.html",
            "https://allotment.example/",
            vec![
                A(Rss, "https://allotment.example/feed/"),
                A(Rss, "https://allotment.example/comments/feed/"),
                C("https://allotment.example/index.xml"),
            ],
        ),
        (
            // The query is part of the feed's URL; `service.post` is no alternate.
            "blogger.html",
            "https://tramlines.blog.example/",
            vec![
                A(Atom, "https://tramlines.blog.example/feeds/posts/default"),
                A(
                    Rss,
                    "https://tramlines.blog.example/feeds/posts/default?alt=rss",
                ),
                C("https://tramlines.blog.example/feed/"),
                C("https://tramlines.blog.example/index.xml"),
            ],
        ),
        (
            // A link to the page itself with a fragment is the page, not a candidate.
            "ghost.html",
            "https://fieldrec.example/",
            vec![
                A(Rss, "https://fieldrec.example/rss/"),
                C("https://fieldrec.example/feed/"),
                C("https://fieldrec.example/index.xml"),
            ],
        ),
        (
            "hugo.html",
            "https://carnet.example/",
            vec![
                A(Rss, "https://carnet.example/index.xml"),
                C("https://carnet.example/feed/"),
            ],
        ),
        (
            "jekyll.html",
            "https://slowblog.example/",
            vec![
                A(Atom, "https://slowblog.example/feed.xml"),
                C("https://slowblog.example/feed/"),
                C("https://slowblog.example/index.xml"),
            ],
        ),
        (
            // A link written inside a script is no link; `/feed` and `/feed/` are two URLs.
            "substack.html",
            "https://ledger.substack.example/",
            vec![
                A(Rss, "https://ledger.substack.example/feed"),
                C("https://ledger.substack.example/feed/"),
                C("https://ledger.substack.example/index.xml"),
            ],
        ),
        (
            // Alternates without a feed type (handheld, app links, oEmbed) are not feeds; the
            // common paths are tried under the page's directory first.
            "video.html",
            "https://www.videotube.example/channel/UC7f3kL2",
            vec![
                A(
                    Rss,
                    "https://www.videotube.example/feeds/videos.xml?channel_id=UC7f3kL2",
                ),
                C("https://www.videotube.example/channel/feed/"),
                C("https://www.videotube.example/channel/index.xml"),
                C("https://www.videotube.example/feed/"),
                C("https://www.videotube.example/index.xml"),
            ],
        ),
        (
            // Every feed type, once each; a stylesheet and a language alternate are not.
            "several.html",
            "https://observatory.example/",
            vec![
                A(Rss, "https://observatory.example/bulletin.rss"),
                A(Atom, "https://observatory.example/bulletin.atom"),
                A(Json, "https://observatory.example/bulletin.json"),
                A(Rdf, "https://observatory.example/bulletin.rdf"),
                A(Xml, "https://observatory.example/bulletin.xml"),
                A(Rss, "https://observatory.example/events/feed"),
                C("https://observatory.example/feed/"),
                C("https://observatory.example/index.xml"),
            ],
        ),
        (
            // Relative, parent-relative and protocol-relative hrefs; `javascript:` and empty
            // ones are dropped.
            "relative.html",
            "https://riverside.example/blog/2026/post-7.html",
            vec![
                A(Rss, "https://riverside.example/blog/2026/feed.xml"),
                A(Atom, "https://riverside.example/blog/atom.xml"),
                A(Rss, "https://cdn.riverside.example/all.rss"),
                C("https://riverside.example/blog/2026/feed/"),
                C("https://riverside.example/blog/2026/index.xml"),
                C("https://riverside.example/feed/"),
                C("https://riverside.example/index.xml"),
            ],
        ),
        (
            // The first `<base>` resolves the page's links; the common paths stay on the
            // page's own site and directory.
            "base.html",
            "https://cooperative.example/news/index.html",
            vec![
                A(Atom, "https://static.cooperative.example/site/news.atom"),
                B("https://static.cooperative.example/site/feeds/members.rss"),
                C("https://cooperative.example/news/feed/"),
                C("https://cooperative.example/news/index.xml"),
                C("https://cooperative.example/feed/"),
                C("https://cooperative.example/index.xml"),
            ],
        ),
        (
            // Upper case and unquoted attributes count; links in comments and scripts do not;
            // an unterminated attribute or end tag loses nothing after it.
            "broken.html",
            "https://parish.example/",
            vec![
                A(Rss, "https://parish.example/rss"),
                A(Atom, "https://parish.example/atom.xml"),
                B("https://parish.example/newsletter/feed/"),
                B("https://parish.example/events.rdf"),
                C("https://parish.example/feed/"),
                C("https://parish.example/index.xml"),
            ],
        ),
        (
            // Body links that look like feeds, at most three new ones: a sitemap and a path
            // that only starts with "feed" do not; the same link with a fragment is one.
            "body-links.html",
            "https://radio.example/",
            vec![
                B("https://radio.example/feed/"),
                B("https://radio.example/programas/manha/feed/"),
                B("https://feeds.podhost.example/radio-bairro"),
                C("https://radio.example/index.xml"),
            ],
        ),
        (
            "no-feed.html",
            "https://welcome.example/",
            vec![
                C("https://welcome.example/feed/"),
                C("https://welcome.example/index.xml"),
            ],
        ),
    ];
    for (file, page_url, want) in table {
        assert_eq!(found(file, page_url, &plan), want, "{file}");
    }
}

#[test]
fn ff1_a_typed_link_counts_when_the_bound_allows() {
    let common: Vec<String> = Vec::new();
    let plan = Plan {
        max_body_links: 10,
        ..plan(&common)
    };
    assert_eq!(
        found("body-links.html", "https://radio.example/", &plan),
        [
            B("https://radio.example/feed/"),
            B("https://radio.example/programas/manha/feed/"),
            B("https://feeds.podhost.example/radio-bairro"),
            B("https://radio.example/podcast"),
            B("https://radio.example/programas/tarde.rss"),
        ]
    );
}

#[test]
fn ff1_candidates_are_bounded_in_all() {
    let common: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
    let plan = Plan {
        max_candidates: 3,
        ..plan(&common)
    };
    assert_eq!(
        found("several.html", "https://observatory.example/", &plan),
        [
            A(Rss, "https://observatory.example/bulletin.rss"),
            A(Atom, "https://observatory.example/bulletin.atom"),
            A(Json, "https://observatory.example/bulletin.json"),
        ]
    );
    let none = Plan {
        max_candidates: 0,
        ..plan
    };
    assert!(found("wordpress.html", "https://allotment.example/", &none).is_empty());
}
