//! What names a resource: the crawler's URLs, or the simulation's compact names.

use std::fmt::{Debug, Display};
use tidings_model::HostKey;
use url::Url;

/// A resource's name, as far as one read needs it.
pub trait Locator: Clone + PartialEq + Debug + Display {
    /// The origin (scheme, host, port): the unit of robots.txt and of a host's Retry-After
    /// floor (C6).
    type Host: Clone + PartialEq + Debug + Display;

    fn host(&self) -> Self::Host;

    /// The origin's `/robots.txt`.
    fn robots_txt(&self) -> Self;

    /// The path and query robots.txt rules are matched against.
    fn path_and_query(&self) -> &str;

    /// Where a redirect answer with `status` and `location` points, when it is one to follow
    /// (301, 302, 303, 307, 308 with a usable Location).
    fn follow(&self, status: u16, location: &str) -> Option<Self>;
}

impl Locator for Url {
    type Host = HostKey;

    fn host(&self) -> HostKey {
        HostKey::of(self)
    }

    fn robots_txt(&self) -> Url {
        let mut url = self.clone();
        url.set_path("/robots.txt");
        url.set_query(None);
        url.set_fragment(None);
        url
    }

    fn path_and_query(&self) -> &str {
        tidings_robots::path_and_query(self)
    }

    fn follow(&self, status: u16, location: &str) -> Option<Url> {
        // A Location that was not UTF-8 is kept lossily by the fetcher: no usable target.
        if !matches!(status, 301 | 302 | 303 | 307 | 308) || location.contains('\u{fffd}') {
            return None;
        }
        let mut next = self.join(location.trim()).ok()?;
        next.set_fragment(None);
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c8_redirect_targets_are_resolved_against_the_url_and_only_for_redirects() {
        let url = Url::parse("https://example.org/a/feed.xml?x=1#top").unwrap();
        let cases = [
            (301, "/b.xml", Some("https://example.org/b.xml")),
            (308, "c.xml#frag", Some("https://example.org/a/c.xml")),
            (
                302,
                " https://other.example/f ",
                Some("https://other.example/f"),
            ),
            (300, "/b.xml", None),
            (304, "/b.xml", None),
            (301, "/caf\u{fffd}", None),
            (307, "http://[::1", None),
        ];
        for (status, location, want) in cases {
            let got = url.follow(status, location).map(|u| u.to_string());
            assert_eq!(got.as_deref(), want, "{status} {location}");
        }
        assert_eq!(url.robots_txt().as_str(), "https://example.org/robots.txt");
        assert_eq!(url.path_and_query(), "/a/feed.xml?x=1");
        assert_eq!(Locator::host(&url).as_str(), "https://example.org:443");
    }
}
