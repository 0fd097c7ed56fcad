//! Validated identities: a [`FeedUrl`] parses or fails once, and code after it never re-checks.

use serde::{Deserialize, Serialize};
use std::fmt;
use url::Url;

/// Row id of a feed in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FeedId(pub i64);

impl fmt::Display for FeedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A request's write-ahead row in the request log: written before the request is sent, and
/// closed by the request's own row once its answer is stored (C7). A row never closed is a
/// request whose process stopped before storing its answer, logged all the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RequestTicket(pub i64);

/// Why a string is not a feed URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedUrlError {
    #[error("not a URL: {0}")]
    Invalid(String),
    /// A host and path without `http://` or `https://` (what people paste from an address bar).
    #[error("no scheme (http:// or https://): did you mean https://{0}?")]
    NoScheme(String),
    #[error("only http and https feeds can be fetched, not {0}")]
    Scheme(String),
    #[error("the URL has no host")]
    NoHost,
    #[error("URLs with a user name or password are not accepted")]
    Credentials,
}

/// `text` as an absolute `http` or `https` URL with a host, normalised; `None` for anything
/// else (`javascript:`, `data:`, a relative path). Every link that leaves tidings (the API,
/// the exports, OPML, the pages) passes through it.
pub fn web_url(text: &str) -> Option<String> {
    let url = Url::parse(text.trim()).ok()?;
    (matches!(url.scheme(), "http" | "https") && url.host().is_some()).then(|| url.to_string())
}

/// `example.org/feed.xml`: a dotted host name, then perhaps a path, and nothing that would
/// not be a URL once `https://` is put before it.
fn looks_like_a_host(input: &str) -> bool {
    let host = input.split(['/', '?', '#']).next().unwrap_or_default();
    !input.contains(char::is_whitespace)
        && host.contains('.')
        && Url::parse(&format!("https://{input}")).is_ok_and(|u| u.host().is_some())
}

/// An absolute `http` or `https` URL with a host and no credentials, without its fragment.
///
/// Query parameters are part of the identity (FF3); the fragment is not, since it is never
/// sent to the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FeedUrl(Url);

impl FeedUrl {
    pub fn parse(input: &str) -> Result<FeedUrl, FeedUrlError> {
        let input = input.trim();
        let mut url = Url::parse(input).map_err(|e| match e {
            url::ParseError::RelativeUrlWithoutBase if looks_like_a_host(input) => {
                FeedUrlError::NoScheme(input.to_owned())
            }
            e => FeedUrlError::Invalid(format!("{input}: {e}")),
        })?;
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(FeedUrlError::Scheme(other.to_string())),
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(FeedUrlError::NoHost);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FeedUrlError::Credentials);
        }
        url.set_fragment(None);
        Ok(FeedUrl(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn as_url(&self) -> &Url {
        &self.0
    }

    /// The host this URL is fetched from, for per-host pacing.
    pub fn host_key(&self) -> HostKey {
        HostKey::of(&self.0)
    }
}

impl fmt::Display for FeedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.as_str().fmt(f)
    }
}

impl TryFrom<String> for FeedUrl {
    type Error = FeedUrlError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        FeedUrl::parse(&s)
    }
}

impl From<FeedUrl> for String {
    fn from(u: FeedUrl) -> String {
        u.0.into()
    }
}

/// The unit of politeness: scheme, lower-cased host and port (`https://example.org:443`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HostKey(String);

impl HostKey {
    pub fn of(url: &Url) -> HostKey {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let port = url.port_or_known_default().unwrap_or(0);
        HostKey(format!("{}://{}:{}", url.scheme(), host, port))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HostKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_url_accepts_http_and_drops_fragment() {
        let u = FeedUrl::parse(" https://Example.org/feed.xml?a=1#top ").unwrap();
        assert_eq!(u.as_str(), "https://example.org/feed.xml?a=1");
        assert_eq!(u.host_key().as_str(), "https://example.org:443");
    }

    #[test]
    fn only_web_urls_leave() {
        let cases = [
            (
                "https://example.org/a?b=1#c",
                Some("https://example.org/a?b=1#c"),
            ),
            (" http://EXAMPLE.org ", Some("http://example.org/")),
            ("javascript:alert(1)", None),
            ("JavaScript:alert(1)", None),
            ("data:text/html,<script>", None),
            ("/relative/path", None),
            ("mailto:a@example.org", None),
            ("", None),
        ];
        for (input, want) in cases {
            assert_eq!(web_url(input).as_deref(), want, "{input:?}");
        }
    }

    #[test]
    fn feed_url_rejects_what_cannot_be_fetched() {
        let cases = [
            ("ftp://example.org/f", FeedUrlError::Scheme("ftp".into())),
            ("https://user:pw@example.org/f", FeedUrlError::Credentials),
            ("file:///etc/passwd", FeedUrlError::Scheme("file".into())),
        ];
        for (input, want) in cases {
            assert_eq!(FeedUrl::parse(input).unwrap_err(), want, "{input}");
        }
        assert!(matches!(
            FeedUrl::parse("not a url"),
            Err(FeedUrlError::Invalid(_))
        ));
        // What people paste from an address bar: the error says what to add.
        assert_eq!(
            FeedUrl::parse(" example.org/feed.xml ").unwrap_err(),
            FeedUrlError::NoScheme("example.org/feed.xml".into())
        );
        assert_eq!(
            FeedUrl::parse("example.org/feed.xml")
                .unwrap_err()
                .to_string(),
            "no scheme (http:// or https://): did you mean https://example.org/feed.xml?"
        );
        assert!(
            matches!(FeedUrl::parse("feed.xml"), Err(FeedUrlError::NoScheme(_))),
            "a dotted name may be a host"
        );
        assert!(matches!(
            FeedUrl::parse("/feed"),
            Err(FeedUrlError::Invalid(_))
        ));
    }

    #[test]
    fn host_key_distinguishes_ports() {
        let a = FeedUrl::parse("http://a.test:8080/x").unwrap().host_key();
        let b = FeedUrl::parse("http://a.test/x").unwrap().host_key();
        assert_ne!(a, b);
        assert_eq!(b.as_str(), "http://a.test:80");
    }
}
