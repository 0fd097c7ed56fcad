//! Operator do-not-crawl rules (FF13, WFM10): which URLs may never be requested.
//!
//! A [`Block`] names a URL, a feed, a path prefix, an origin, a host or a registrable domain.
//! [`parse_rule`] turns operator input into the one normal form a rule is stored in (or says
//! clearly why it cannot); [`BlockList::check`] answers, for one URL about to be requested,
//! which rule (if any) forbids it. The crawler asks before every request: the feed, its
//! robots.txt and every redirect hop.
//!
//! Normal forms, and how a URL is compared with them:
//! - host names are lower-case ASCII (IDN as punycode, as the `url` crate writes them) without a
//!   trailing dot, so `Example.COM.` and `example.com` are one host;
//! - `url`: the whole URL without its fragment, default port dropped, host normalised as above;
//!   the query is part of it (FF3);
//! - `feed`: a feed id; it matches every request made for that feed, redirect hops included;
//! - `path`: an origin and a path. It matches that path and everything below it at segment
//!   boundaries: `https://ex.com/a` matches `/a`, `/a/`, `/a/b` and `/a?x`, never `/ab`. A rule
//!   written with a trailing `*` (`https://ex.com/a*`) is a plain string prefix and matches `/ab`
//!   too. The query never matters to a path rule;
//! - `origin`: `scheme://host:port` with the port written out (`https://ex.com:443`);
//! - `host`: one exact host name (any scheme, any port); `a.ex.com` is not `ex.com`;
//! - `domain`: a registrable domain by the public suffix list (`example.co.uk`, not `co.uk` and
//!   not `www.example.co.uk`); it matches every host whose registrable domain it is, so
//!   `a.b.example.co.uk` matches and `example.co.uk.evil.net` does not.

use chrono::{DateTime, Utc};
use std::collections::{HashMap, HashSet};
use std::fmt;
use tidings_model::FeedId;
use url::{Host, Url};

/// What a do-not-crawl rule names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BlockKind {
    /// One URL exactly (after normalisation).
    Url,
    /// One feed, by id: every request made for it.
    Feed,
    /// An origin and a path prefix.
    Path,
    /// `scheme://host:port`.
    Origin,
    /// One host name, any scheme and port.
    Host,
    /// A registrable domain and every host below it.
    Domain,
}

impl BlockKind {
    /// Every kind, most specific first (the order [`BlockList::check`] looks in).
    pub const ALL: [BlockKind; 6] = [
        BlockKind::Feed,
        BlockKind::Url,
        BlockKind::Path,
        BlockKind::Origin,
        BlockKind::Host,
        BlockKind::Domain,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Url => "url",
            BlockKind::Feed => "feed",
            BlockKind::Path => "path",
            BlockKind::Origin => "origin",
            BlockKind::Host => "host",
            BlockKind::Domain => "domain",
        }
    }

    /// The kind named `s` (case-insensitive), as the CLI and the store write it.
    pub fn parse(s: &str) -> Result<BlockKind, RuleError> {
        BlockKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| RuleError::Kind(s.to_string()))
    }
}

impl fmt::Display for BlockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One stored do-not-crawl rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub id: i64,
    pub kind: BlockKind,
    /// The normal form made by [`parse_rule`].
    pub value: String,
    /// Why the operator added it ("publisher asked by email on ...").
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl Block {
    /// The reason a refused request carries: `do-not-crawl: host example.com (FF13)`.
    pub fn describe(&self) -> String {
        format!("do-not-crawl: {} {} (FF13)", self.kind, self.value)
    }
}

/// Why operator input is not a valid rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("unknown block kind {0:?}: use url, feed, path, origin, host or domain")]
    Kind(String),
    #[error("the rule is empty")]
    Empty,
    #[error("not a URL: {0}")]
    NotUrl(String),
    #[error("only http and https URLs are fetched, not {0}")]
    Scheme(String),
    #[error("{0} has no host name")]
    NoHost(String),
    #[error("{0} has a user name or password; leave them out")]
    Credentials(String),
    #[error("a feed rule is a feed id (a positive number), not {0:?}")]
    FeedId(String),
    #[error("an origin is scheme://host[:port] without a path or query, not {0}; use a path rule")]
    OriginPath(String),
    #[error("a path rule has no query or fragment ({0}); use a url rule for one URL")]
    PathQuery(String),
    #[error("{0:?} is not a host name: {1}")]
    HostName(String, String),
    #[error("a {0} rule is a bare host name like example.com, not a URL ({1})")]
    HostIsUrl(BlockKind, String),
    #[error("a domain rule needs a domain name, not the address {0}; use a host rule")]
    DomainIsAddress(String),
    #[error("{0} is a public suffix, not a registrable domain: a rule on it would block everyone")]
    PublicSuffix(String),
    #[error(
        "{given} is not a registrable domain; block the domain {registrable} or the host {given}"
    )]
    NotRegistrable { given: String, registrable: String },
}

/// Check and normalise operator input into a rule's stored value (see the module doc).
pub fn parse_rule(kind: BlockKind, value: &str) -> Result<String, RuleError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(RuleError::Empty);
    }
    match kind {
        BlockKind::Url => Ok(url_key(&parse_http(value)?)),
        BlockKind::Feed => match value.parse::<i64>() {
            Ok(id) if id > 0 => Ok(id.to_string()),
            _ => Err(RuleError::FeedId(value.to_string())),
        },
        BlockKind::Path => {
            let (base, star) = match value.strip_suffix('*') {
                Some(base) => (base, true),
                None => (value, false),
            };
            let url = parse_http(base)?;
            if url.query().is_some() || base.contains('#') {
                return Err(RuleError::PathQuery(value.to_string()));
            }
            let star = if star { "*" } else { "" };
            Ok(format!("{}{}{star}", origin_key(&url), url.path()))
        }
        BlockKind::Origin => {
            let url = parse_http(value)?;
            if url.path() != "/" || url.query().is_some() || value.contains('#') {
                return Err(RuleError::OriginPath(value.to_string()));
            }
            Ok(origin_key(&url))
        }
        BlockKind::Host => host_rule(kind, value),
        BlockKind::Domain => {
            let host = host_rule(kind, value)?;
            if host.starts_with('[') || host.parse::<core::net::Ipv4Addr>().is_ok() {
                return Err(RuleError::DomainIsAddress(host));
            }
            match registrable(&host) {
                Some(domain) if domain == host => Ok(host),
                Some(domain) => Err(RuleError::NotRegistrable {
                    given: host.clone(),
                    registrable: domain.to_string(),
                }),
                None => Err(RuleError::PublicSuffix(host)),
            }
        }
    }
}

/// An absolute http(s) URL with a host and no credentials.
fn parse_http(value: &str) -> Result<Url, RuleError> {
    let url = Url::parse(value).map_err(|e| RuleError::NotUrl(format!("{value}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RuleError::Scheme(url.scheme().to_string()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(RuleError::NoHost(value.to_string()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(RuleError::Credentials(value.to_string()));
    }
    Ok(url)
}

/// A bare host name, normalised; `kind` is for the error message.
fn host_rule(kind: BlockKind, value: &str) -> Result<String, RuleError> {
    if value.contains("://") || value.contains('/') {
        return Err(RuleError::HostIsUrl(kind, value.to_string()));
    }
    let host = Host::parse(value).map_err(|e| RuleError::HostName(value.into(), e.to_string()))?;
    let host = normal_host(&host);
    if host.is_empty() {
        return Err(RuleError::HostName(value.into(), "empty".into()));
    }
    Ok(host)
}

/// A host as rules compare it: the `url` crate's form (lower-case, punycode) without a
/// trailing dot.
fn normal_host<S: AsRef<str>>(host: &Host<S>) -> String {
    match host {
        Host::Domain(d) => d.as_ref().trim_end_matches('.').to_ascii_lowercase(),
        other => other.to_string(),
    }
}

fn host_of(url: &Url) -> Option<String> {
    url.host().map(|h| normal_host(&h))
}

/// `scheme://host:port` with the port written out.
fn origin_key(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        host_of(url).unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// The whole URL as a `url` rule stores it: no fragment, normal host.
fn url_key(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    if let Some(Host::Domain(d)) = url.host()
        && d.ends_with('.')
    {
        let trimmed = d.trim_end_matches('.').to_string();
        // Setting a host the url crate produced itself cannot fail; keep it as is if it did.
        let _ = url.set_host(Some(&trimmed));
    }
    url.to_string()
}

/// The registrable domain of a host name by the public suffix list; `None` for a public suffix.
fn registrable(host: &str) -> Option<&str> {
    psl::domain_str(host)
}

/// The rules, indexed for a check per request.
#[derive(Debug, Clone, Default)]
pub struct BlockList {
    blocks: Vec<Block>,
    /// (kind, key) → index into `blocks`; `path` rules are kept apart.
    exact: HashMap<(BlockKind, String), usize>,
    /// Path rules: (origin, path, string prefix?) → index.
    paths: Vec<(String, String, bool, usize)>,
    kinds: HashSet<BlockKind>,
}

impl BlockList {
    /// Index `blocks`; each value is taken in the normal form [`parse_rule`] gives (a value not
    /// in it is normalised again when it can be, and otherwise can never match).
    pub fn new(blocks: Vec<Block>) -> BlockList {
        let mut list = BlockList::default();
        for (i, block) in blocks.iter().enumerate() {
            let value =
                parse_rule(block.kind, &block.value).unwrap_or_else(|_| block.value.clone());
            list.kinds.insert(block.kind);
            if block.kind == BlockKind::Path {
                let (base, star) = match value.strip_suffix('*') {
                    Some(base) => (base, true),
                    None => (value.as_str(), false),
                };
                if let Ok(url) = Url::parse(base) {
                    list.paths
                        .push((origin_key(&url), url.path().to_string(), star, i));
                }
            } else {
                list.exact.entry((block.kind, value)).or_insert(i);
            }
        }
        list.blocks = blocks;
        list
    }

    /// Every rule, as given.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The rule that forbids requesting `url` (for `feed`, when the request is made for one),
    /// most specific first; `None` when the URL may be requested.
    pub fn check(&self, url: &Url, feed: Option<FeedId>) -> Option<&Block> {
        if self.blocks.is_empty() {
            return None;
        }
        let found = |kind: BlockKind, key: String| {
            self.exact
                .get(&(kind, key))
                .and_then(|&i| self.blocks.get(i))
        };
        if let Some(feed) = feed
            && let Some(block) = found(BlockKind::Feed, feed.0.to_string())
        {
            return Some(block);
        }
        if self.kinds.contains(&BlockKind::Url)
            && let Some(block) = found(BlockKind::Url, url_key(url))
        {
            return Some(block);
        }
        let origin = origin_key(url);
        let path = url.path();
        for (rule_origin, prefix, star, i) in &self.paths {
            if *rule_origin == origin && path_matches(prefix, *star, path) {
                return self.blocks.get(*i);
            }
        }
        if let Some(block) = found(BlockKind::Origin, origin) {
            return Some(block);
        }
        let host = host_of(url)?;
        if let Some(block) = found(BlockKind::Host, host.clone()) {
            return Some(block);
        }
        if self.kinds.contains(&BlockKind::Domain)
            && let Some(domain) = registrable(&host)
        {
            return found(BlockKind::Domain, domain.to_string());
        }
        None
    }
}

/// Whether a path rule's `prefix` covers `path` (see the module doc).
fn path_matches(prefix: &str, star: bool, path: &str) -> bool {
    match path.strip_prefix(prefix) {
        None => false,
        Some(rest) => star || prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        match Url::parse(s) {
            Ok(u) => u,
            Err(e) => panic!("bad test url {s}: {e}"),
        }
    }

    fn list(rules: &[(BlockKind, &str)]) -> BlockList {
        let blocks = rules
            .iter()
            .enumerate()
            .map(|(i, &(kind, value))| Block {
                id: i64::try_from(i).unwrap_or(0) + 1,
                kind,
                value: match parse_rule(kind, value) {
                    Ok(v) => v,
                    Err(e) => panic!("bad test rule {kind} {value}: {e}"),
                },
                reason: None,
                created_at: DateTime::<Utc>::UNIX_EPOCH,
            })
            .collect();
        BlockList::new(blocks)
    }

    /// One table row: a rule, a URL (with the feed it is requested for), blocked or not.
    fn check(rule: (BlockKind, &str), target: &str, feed: Option<i64>, blocked: bool) {
        let list = list(&[rule]);
        let got = list.check(&url(target), feed.map(FeedId));
        assert_eq!(
            got.is_some(),
            blocked,
            "rule {} {:?} against {target} (feed {feed:?})",
            rule.0,
            rule.1
        );
    }

    use BlockKind::{Domain, Feed, Host, Origin, Path, Url as UrlRule};

    #[test]
    fn ff13_url_rules_match_one_url_after_normalisation() {
        let rule = (UrlRule, "https://Example.COM./feed.xml?a=1#top");
        check(rule, "https://example.com/feed.xml?a=1", None, true);
        check(rule, "https://EXAMPLE.com.:443/feed.xml?a=1#x", None, true);
        check(rule, "https://example.com/feed.xml", None, false);
        check(rule, "https://example.com/feed.xml?a=2", None, false);
        check(rule, "http://example.com/feed.xml?a=1", None, false);
        check(rule, "https://example.com:8443/feed.xml?a=1", None, false);
        check(rule, "https://www.example.com/feed.xml?a=1", None, false);
    }

    #[test]
    fn ff13_wfm10_feed_rules_match_every_request_of_that_feed() {
        let rule = (Feed, "7");
        check(rule, "https://example.com/feed.xml", Some(7), true);
        check(rule, "https://elsewhere.net/robots.txt", Some(7), true);
        check(rule, "https://example.com/feed.xml", Some(8), false);
        check(rule, "https://example.com/feed.xml", None, false);
    }

    #[test]
    fn ff13_path_rules_match_at_segment_boundaries_unless_written_as_prefix() {
        let rule = (Path, "https://ex.com/a");
        check(rule, "https://ex.com/a", None, true);
        check(rule, "https://ex.com/a/", None, true);
        check(rule, "https://ex.com/a/b.xml", None, true);
        check(rule, "https://ex.com/a?x=1", None, true);
        check(rule, "https://EX.com.:443/a/b", None, true);
        check(rule, "https://ex.com/ab", None, false);
        check(rule, "https://ex.com/b/a", None, false);
        check(rule, "http://ex.com/a", None, false);
        check(rule, "https://ex.com:8443/a", None, false);
        check(rule, "https://www.ex.com/a", None, false);

        let dir = (Path, "https://ex.com/private/");
        check(dir, "https://ex.com/private/feed.xml", None, true);
        check(dir, "https://ex.com/private/", None, true);
        check(dir, "https://ex.com/private", None, false);
        check(dir, "https://ex.com/privateer", None, false);

        let star = (Path, "https://ex.com/a*");
        check(star, "https://ex.com/ab", None, true);
        check(star, "https://ex.com/a/b", None, true);
        check(star, "https://ex.com/b", None, false);

        let root = (Path, "https://ex.com/");
        check(root, "https://ex.com/anything", None, true);
        check(root, "https://ex.com.evil.net/anything", None, false);
    }

    #[test]
    fn ff13_origin_rules_match_scheme_host_and_port() {
        let rule = (Origin, "https://Ex.com");
        check(rule, "https://ex.com/feed", None, true);
        check(rule, "https://ex.com:443/feed", None, true);
        check(rule, "https://ex.com./feed", None, true);
        check(rule, "http://ex.com/feed", None, false);
        check(rule, "https://ex.com:8443/feed", None, false);
        check(rule, "https://a.ex.com/feed", None, false);
        let port = (Origin, "http://ex.com:8080/");
        check(port, "http://ex.com:8080/x", None, true);
        check(port, "http://ex.com/x", None, false);
    }

    #[test]
    fn ff13_host_rules_match_one_host_on_any_scheme_and_port() {
        let rule = (Host, "Example.COM.");
        check(rule, "https://example.com/feed", None, true);
        check(rule, "http://EXAMPLE.com:8080/feed", None, true);
        check(rule, "https://example.com./feed", None, true);
        check(rule, "https://www.example.com/feed", None, false);
        check(rule, "https://example.com.evil.net/feed", None, false);
        check(rule, "https://notexample.com/feed", None, false);
        let idn = (Host, "bücher.example");
        check(idn, "https://xn--bcher-kva.example/feed", None, true);
        check(idn, "https://BÜCHER.example/feed", None, true);
        let ip = (Host, "127.0.0.7");
        check(ip, "http://127.0.0.7:9000/feed", None, true);
        check(ip, "http://127.0.0.8/feed", None, false);
        let v6 = (Host, "[::1]");
        check(v6, "http://[::1]:8080/feed", None, true);
    }

    #[test]
    fn ff13_domain_rules_cover_every_host_of_a_registrable_domain() {
        let rule = (Domain, "example.co.uk");
        check(rule, "https://example.co.uk/feed", None, true);
        check(rule, "https://a.b.example.co.uk/feed", None, true);
        check(rule, "http://A.B.EXAMPLE.CO.UK.:81/feed", None, true);
        check(rule, "https://other.co.uk/feed", None, false);
        check(rule, "https://example.co.uk.evil.net/feed", None, false);
        check(rule, "https://notexample.co.uk/feed", None, false);
        let com = (Domain, "example.com");
        check(com, "https://www.example.com/feed", None, true);
        check(com, "https://example.com.evil.net/feed", None, false);
        check(com, "https://evil-example.com/feed", None, false);
        check(com, "http://127.0.0.1/feed", None, false);
    }

    #[test]
    fn ff13_the_most_specific_rule_is_named() {
        let list = list(&[(Domain, "example.com"), (UrlRule, "https://example.com/f")]);
        let got = list.check(&url("https://example.com/f"), None);
        assert_eq!(got.map(|b| b.kind), Some(UrlRule));
        let got = list.check(&url("https://example.com/g"), None);
        assert_eq!(
            got.map(Block::describe).as_deref(),
            Some("do-not-crawl: domain example.com (FF13)")
        );
        assert!(
            BlockList::new(Vec::new())
                .check(&url("https://example.com/f"), None)
                .is_none()
        );
    }

    #[test]
    fn ff13_operator_input_is_normalised_or_refused_clearly() {
        let ok = [
            (
                UrlRule,
                " https://Ex.COM.:443/a?b=1#c ",
                "https://ex.com/a?b=1",
            ),
            (Feed, "42", "42"),
            (
                Path,
                "https://EX.com/private/",
                "https://ex.com:443/private/",
            ),
            (Path, "http://ex.com/a*", "http://ex.com:80/a*"),
            (Origin, "https://Ex.com/", "https://ex.com:443"),
            (Origin, "http://ex.com:8080", "http://ex.com:8080"),
            (Host, "WWW.Example.com.", "www.example.com"),
            (Host, "bücher.example", "xn--bcher-kva.example"),
            (Domain, "Example.CO.UK", "example.co.uk"),
        ];
        for (kind, input, want) in ok {
            assert_eq!(
                parse_rule(kind, input).as_deref(),
                Ok(want),
                "{kind} {input}"
            );
        }
        let refused = [
            (UrlRule, "", "the rule is empty"),
            (
                UrlRule,
                "ftp://ex.com/f",
                "only http and https URLs are fetched, not ftp",
            ),
            (UrlRule, "ex.com/feed", "not a URL"),
            (Feed, "0", "a feed rule is a feed id"),
            (Feed, "seven", "a feed rule is a feed id"),
            (Path, "https://ex.com/a?b=1", "a path rule has no query"),
            (
                Origin,
                "https://ex.com/feed",
                "an origin is scheme://host[:port]",
            ),
            (Host, "https://ex.com/", "a host rule is a bare host name"),
            (Host, "ex ample.com", "is not a host name"),
            (Domain, "co.uk", "co.uk is a public suffix"),
            (
                Domain,
                "www.example.co.uk",
                "block the domain example.co.uk or the host",
            ),
            (Domain, "127.0.0.1", "not the address 127.0.0.1"),
        ];
        for (kind, input, want) in refused {
            match parse_rule(kind, input) {
                Ok(v) => panic!("{kind} {input:?} was accepted as {v}"),
                Err(e) => assert!(e.to_string().contains(want), "{kind} {input:?}: {e}"),
            }
        }
        assert_eq!(BlockKind::parse("HOST"), Ok(Host));
        assert!(BlockKind::parse("site").is_err());
    }
}
