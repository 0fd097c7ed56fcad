//! Which URLs of a page may be feeds (FF1): the alternates the page declares, the links of its
//! body that look like feeds, and the common feed paths of its directory and of its site, each
//! URL once, in that order, and at most as many as the caller's plan allows.
//!
//! A candidate is only a URL worth one read: it becomes a feed when its body parses as one.
//! Nothing here is requested, and no query is ever made up: a candidate's query is the one the
//! page wrote (FF3), and the common paths carry none.

use crate::{FeedFormat, Page};
use url::Url;

/// How many candidates a page may give, and the common paths tried: the profile's numbers
/// (`[discovery]`), passed in by the caller.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// Paths tried on every site, each starting with `/` (`/feed`, `/index.xml`): at the
    /// site's root, and first under the page's own directory when that is not the root.
    pub common_paths: &'a [String],
    /// Body links that look like feeds taken, at most (not counting those already taken as
    /// alternates).
    pub max_body_links: usize,
    /// Candidates in all, at most.
    pub max_candidates: usize,
}

/// Where a candidate came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `<link rel=alternate>` with a feed type, and its title.
    Alternate {
        format: FeedFormat,
        title: Option<String>,
    },
    /// A link in the body that looks like a feed ([`looks_like_feed`] or a feed `type`).
    BodyLink,
    /// One of the plan's common paths.
    CommonPath,
}

impl Source {
    /// The name stored with a candidate's outcome.
    pub fn as_str(&self) -> &'static str {
        match self {
            Source::Alternate { .. } => "alternate",
            Source::BodyLink => "body_link",
            Source::CommonPath => "common_path",
        }
    }
}

/// A URL that may be a feed, and why it is one to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub url: Url,
    pub source: Source,
}

/// The feed candidates of `page`, read from `page_url` (its URL after redirects), in the
/// order they are worth checking: declared alternates, body links that look like feeds, then
/// the common paths under the page's directory and at the site's root. The page's own URL is
/// never a candidate (it was read as HTML).
pub fn candidates(page: &Page, page_url: &Url, plan: &Plan<'_>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    // Whether `url` was added (it is new, and there is room).
    let add = |url: Url, source: Source, out: &mut Vec<Candidate>| {
        let new = out.len() < plan.max_candidates
            && !same_resource(&url, page_url)
            && !out.iter().any(|c| same_resource(&c.url, &url));
        if new {
            out.push(Candidate { url, source });
        }
        new
    };
    for feed in &page.feeds {
        add(
            without_fragment(&feed.url),
            Source::Alternate {
                format: feed.format,
                title: feed.title.clone(),
            },
            &mut out,
        );
    }
    let mut body_links = 0;
    for link in &page.links {
        if body_links == plan.max_body_links {
            break;
        }
        if (link.feed_type.is_some() || looks_like_feed(&link.url))
            && add(without_fragment(&link.url), Source::BodyLink, &mut out)
        {
            body_links += 1;
        }
    }
    for url in common_urls(page_url, plan.common_paths) {
        add(url, Source::CommonPath, &mut out);
    }
    out
}

/// The common paths as URLs: under the page's directory first (when it is not the root),
/// then at the root of its origin.
fn common_urls(page_url: &Url, paths: &[String]) -> Vec<Url> {
    let path = page_url.path();
    let directory = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let mut out = Vec::new();
    let mut under = |prefix: &str| {
        for common in paths {
            let relative = common.trim_start_matches('/');
            let mut url = page_url.clone();
            url.set_query(None);
            url.set_fragment(None);
            url.set_path(&format!("{prefix}{relative}"));
            out.push(url);
        }
    };
    if directory.len() > 1 {
        under(directory);
    }
    under("/");
    out
}

/// Whether two URLs name the same resource: equal once the fragment is dropped.
fn same_resource(a: &Url, b: &Url) -> bool {
    a[..url::Position::AfterQuery] == b[..url::Position::AfterQuery]
}

fn without_fragment(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_fragment(None);
    url
}

/// Path segments that name a feed wherever they stand (`/feed/`, `/comments/feed`,
/// `/feeds/posts/default`, `/rss/`).
const FEED_SEGMENTS: [&str; 6] = ["feed", "feeds", "rss", "rss2", "atom", "rdf"];

/// File extensions of feeds.
const FEED_EXTENSIONS: [&str; 3] = ["rss", "atom", "rdf"];

/// Words that make an `.xml` or `.json` file name a feed's (`index.xml` is Hugo's).
const FEED_STEMS: [&str; 5] = ["feed", "rss", "atom", "index", "videos"];

/// Query parameters that ask a site's software for a feed (`?feed=rss2`, `?alt=rss`,
/// `?format=atom`), with the values that do.
const FEED_QUERIES: [(&str, &[&str]); 4] = [
    ("feed", &["rss", "rss2", "atom", "rdf", "json"]),
    ("alt", &["rss", "atom", "json"]),
    ("format", &["rss", "atom", "feed", "json"]),
    ("type", &["rss", "atom"]),
];

/// Whether a link's URL looks like a feed's: a path segment that names one (`/feed/`,
/// `/rss`), a file with a feed's extension (`.rss`, `.atom`, `.rdf`) or an `.xml`/`.json` file
/// named like one (`rss.xml`, `index.xml`, `feed.json`, never a sitemap), a query that asks
/// the site's software for one (`?feed=rss2`), or a host that serves feeds (`feeds.…`).
pub fn looks_like_feed(url: &Url) -> bool {
    if !matches!(url.scheme(), "http" | "https") {
        return false;
    }
    if url
        .host_str()
        .is_some_and(|h| h.to_ascii_lowercase().starts_with("feeds."))
    {
        return true;
    }
    let segments: Vec<String> = url
        .path_segments()
        .map(|s| {
            s.filter(|s| !s.is_empty())
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default();
    if segments.iter().any(|s| FEED_SEGMENTS.contains(&s.as_str())) {
        return true;
    }
    if let Some(last) = segments.last()
        && let Some((stem, extension)) = last.rsplit_once('.')
    {
        if FEED_EXTENSIONS.contains(&extension) {
            return true;
        }
        if matches!(extension, "xml" | "json")
            && !stem.contains("sitemap")
            && FEED_STEMS.iter().any(|w| stem.contains(w))
        {
            return true;
        }
    }
    url.query_pairs().any(|(key, value)| {
        FEED_QUERIES.iter().any(|(k, values)| {
            key.eq_ignore_ascii_case(k) && values.iter().any(|v| value.eq_ignore_ascii_case(v))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Limits, inspect};

    proptest::proptest! {
        /// FF1 on any markup-shaped input and page URL: the candidates are bounded, each URL
        /// once, never the page itself, always http(s), with no fragment, and the common
        /// paths add no query.
        #[test]
        fn any_page_gives_bounded_unique_http_candidates(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just("<link rel=alternate type=application/rss+xml href=".to_owned()),
                proptest::strategy::Just("<a href=".to_owned()),
                proptest::strategy::Just("<base href=".to_owned()),
                proptest::strategy::Just(">".to_owned()),
                "[a-z/:.?=#&%]{0,24}",
            ], 0..40),
            path in "/[a-z/.]{0,20}(\\?[a-z=]{0,6})?",
            most in 0usize..12,
            links in 0usize..5,
        ) {
            let html = parts.concat();
            let page_url = Url::parse(&format!("https://site.example{path}")).unwrap();
            let page = inspect(
                html.as_bytes(),
                &Context {
                    url: &page_url,
                    content_type: None,
                    bots: &[],
                    limits: Limits::default(),
                },
            );
            let common: Vec<String> = vec!["/feed".into(), "/index.xml".into()];
            let plan = Plan { common_paths: &common, max_body_links: links, max_candidates: most };
            let found = candidates(&page, &page_url, &plan);
            proptest::prop_assert!(found.len() <= most);
            let body = found.iter().filter(|c| c.source == Source::BodyLink).count();
            proptest::prop_assert!(body <= links);
            for (i, c) in found.iter().enumerate() {
                proptest::prop_assert!(matches!(c.url.scheme(), "http" | "https"));
                proptest::prop_assert!(c.url.fragment().is_none());
                proptest::prop_assert!(!same_resource(&c.url, &page_url));
                proptest::prop_assert!(!found[..i].iter().any(|o| same_resource(&o.url, &c.url)));
                if c.source == Source::CommonPath {
                    proptest::prop_assert!(c.url.query().is_none());
                }
            }
        }
    }

    #[test]
    fn feed_shaped_urls() {
        let yes = [
            "https://a.example/feed",
            "https://a.example/feed/",
            "https://a.example/blog/comments/feed/",
            "https://a.example/feeds/posts/default",
            "https://a.example/rss/",
            "https://a.example/index.xml",
            "https://a.example/rss.xml",
            "https://a.example/blog/atom.xml",
            "https://a.example/feed.json",
            "https://a.example/news.rss",
            "https://a.example/x/posts.atom",
            "https://a.example/?feed=rss2",
            "https://a.example/blog?alt=RSS",
            "https://a.example/feeds/videos.xml?channel_id=UCx",
            "https://feeds.a.example/site",
            "http://a.example/RSS",
        ];
        for u in yes {
            assert!(looks_like_feed(&Url::parse(u).unwrap()), "{u}");
        }
        let no = [
            "https://a.example/",
            "https://a.example/feeding-the-cat/",
            "https://a.example/rss-readers-compared",
            "https://a.example/sitemap.xml",
            "https://a.example/sitemap_index.xml",
            "https://a.example/about.html",
            "https://a.example/data.json",
            "https://a.example/?page=2",
            "https://a.example/?format=pdf",
        ];
        for u in no {
            assert!(!looks_like_feed(&Url::parse(u).unwrap()), "{u}");
        }
    }
}
