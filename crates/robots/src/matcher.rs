//! Our thin wrapper around `robotxt`'s pattern matching (RFC 9309, sections 2.2.2 and 2.2.3).
//!
//! `robotxt` =0.7.0 does the hard part well: it normalises a pattern and a path the same way
//! (percent-encoded unreserved characters decoded, other escapes given uppercase hex digits,
//! non-ASCII bytes, controls and spaces encoded), matches `*` anywhere and `$` at the end, and
//! measures a rule's specificity as the length of its normalised pattern.
//!
//! It does not expose a rule constructor, so each rule value is handed to it as a one-rule file
//! and the single [`robotxt::Rule`] it yields is kept. Before that, this module escapes every
//! byte that is not printable ASCII (which `robotxt` would encode anyway, so its result is
//! unchanged), and corrects two points where `robotxt` and RFC 9309 part ways:
//!
//! - Section 2.2.3: a rule matches a literal `*` or `$` in a URL by spelling it `%2A` or `%24`
//!   (`Allow: /path/foo-%24` matches `/path/foo-$`). `robotxt` keeps `*` and `$` of the path
//!   as they are and `%2A`/`%24` of the rule encoded, so they never meet. Here the path's `*`
//!   and `$` are encoded, and so is a `$` inside a pattern (only a final `$` is an anchor), so
//!   a literal `$` written in the middle of a rule still matches the same literal in the path.
//! - A `%` that does not start an escape is the literal character `%` and becomes `%25`.
//!   `robotxt` keeps it as is, so `Disallow: /100%` would not match the path `/100%25` a
//!   client sends for it.

use std::borrow::Cow;
use std::sync::LazyLock;

/// One `Allow` or `Disallow` pattern, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    rule: robotxt::Rule,
    /// The normalised pattern has no `*` and no final `$`: it matches the paths it is a prefix
    /// of (most rules are written so).
    prefix_only: bool,
}

impl Pattern {
    /// The pattern of a rule value, or `None` for an empty value (which matches nothing).
    pub(crate) fn new(value: &[u8]) -> Option<Self> {
        if value.is_empty() {
            return None;
        }
        let mut file = b"user-agent: *\nallow: ".to_vec();
        file.extend_from_slice(&escape(value, Part::Pattern));
        let robots = robotxt::Robots::parse(&file, robotxt::ANY_AGENT);
        let rule = robots.rules().first().cloned()?;
        let prefix_only = !rule.pattern().contains(['*', '$']);
        Some(Self { rule, prefix_only })
    }

    /// Returns true if the pattern matches the path.
    pub(crate) fn matches(&self, path: &Path) -> bool {
        match (path.normal, self.prefix_only) {
            (true, true) => path.text.starts_with(self.rule.pattern()),
            (true, false) => wildcard_match(self.rule.pattern(), &path.text),
            (false, _) => self.rule.is_match(&path.text),
        }
    }

    /// The specificity of the pattern: the length of its normalised form. The longest
    /// matching pattern decides (RFC 9309, section 2.2.2).
    pub(crate) fn specificity(&self) -> usize {
        self.rule.pattern().len()
    }

    /// The normalised pattern, for tests.
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        self.rule.pattern()
    }
}

/// A path pattern in robots.txt syntax outside a robots.txt file, for the formats that borrow
/// it (TDMRep's `location`): normalised and matched exactly as an `Allow`/`Disallow` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern(Pattern);

impl PathPattern {
    /// The pattern of `value`, or `None` for an empty one (which matches nothing).
    pub fn new(value: &str) -> Option<Self> {
        Pattern::new(value.trim().as_bytes()).map(Self)
    }

    /// Whether it matches a URL's path and query (its fragment ignored).
    pub fn matches(&self, path_and_query: &str) -> bool {
        self.0.matches(&Path::new(path_and_query))
    }

    /// How specific it is: the longest matching pattern decides.
    pub fn specificity(&self) -> usize {
        self.0.specificity()
    }
}

/// A path and query, prepared for matching: the fragment dropped and every byte escaped the
/// way [`Pattern::new`] escapes rule values.
///
/// Most paths (those a [`url::Url`] gives) are already in `robotxt`'s normal form: then they
/// are matched as they are, once per check, instead of being normalised again for each rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path<'a> {
    text: Cow<'a, str>,
    /// `text` is its own normal form: it starts with `/` and holds no `%` and none of the
    /// characters `robotxt` encodes beside the unprintable ones (which `escape` already did).
    normal: bool,
}

impl<'a> Path<'a> {
    /// Borrows the path when nothing in it needs escaping (the usual case).
    pub(crate) fn new(path_and_query: &'a str) -> Self {
        // One look at each byte settles the usual path: a `/`, then only characters that are
        // their own normal form (no fragment, no escape, nothing to encode).
        if path_and_query.starts_with('/') && path_and_query.bytes().all(plain_path_byte) {
            return Self {
                text: Cow::Borrowed(path_and_query),
                normal: true,
            };
        }
        Self::escaped(path_and_query)
    }

    /// [`Path::new`] the long way, for any path.
    fn escaped(path_and_query: &'a str) -> Self {
        let without_fragment = path_and_query
            .split_once('#')
            .map_or(path_and_query, |(path, _)| path);
        // `escape` only ever yields printable ASCII, and borrows only what already is.
        let text = match escape(without_fragment.as_bytes(), Part::Path) {
            Cow::Borrowed(_) => Cow::Borrowed(without_fragment),
            Cow::Owned(escaped) => Cow::Owned(String::from_utf8_lossy(&escaped).into_owned()),
        };
        let normal = text.starts_with('/') && !text.bytes().any(not_normal);
        Self { text, normal }
    }

    /// Returns true if this is the path RFC 9309 always allows, `/robots.txt`, in any of its
    /// equivalent spellings (such as `/%72obots.txt`).
    pub(crate) fn is_robots_txt(&self) -> bool {
        if self.normal {
            return self.text == "/robots.txt";
        }
        ROBOTS_TXT
            .as_ref()
            .map_or(self.text == "/robots.txt", |robots| robots.matches(self))
    }
}

/// A byte an escaped path may hold that is not in `robotxt`'s normal form: an escape (which it
/// rewrites) or a character it encodes beside the unprintable ones.
const fn not_normal(b: u8) -> bool {
    matches!(b, b'%' | b'"' | b'<' | b'>' | b'`' | b'{' | b'}')
}

/// A byte that a path may hold as it is, in `robotxt`'s normal form: printable ASCII but the
/// fragment mark, the wildcard characters and what is [`not_normal`].
const fn is_plain_path_byte(b: u8) -> bool {
    b.is_ascii_graphic() && !matches!(b, b'#' | b'*' | b'$') && !not_normal(b)
}

/// [`is_plain_path_byte`] for every byte, looked up: every path checked is read byte by byte.
const PLAIN_PATH_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_plain_path_byte(b as u8);
        b += 1;
    }
    table
};

fn plain_path_byte(b: u8) -> bool {
    PLAIN_PATH_BYTES[usize::from(b)]
}

/// Whether a normalised pattern matches a normalised path: `*` stands for any run of
/// characters, a final `$` ties the end of the pattern to the end of the path, and a pattern
/// without one matches any path it is a prefix of (RFC 9309, section 2.2.2).
///
/// Each piece between stars is taken at its leftmost place after the one before it: any match
/// can be moved there, and that leaves the most path for the pieces still to come.
fn wildcard_match(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(body) => (body, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split('*');
    let head = pieces.next().unwrap_or("");
    let Some(mut rest) = path.strip_prefix(head) else {
        return false;
    };
    let mut pieces = pieces.peekable();
    while let Some(piece) = pieces.next() {
        let last = pieces.peek().is_none();
        if last && anchored {
            // The last piece must end the path, at any place after the star.
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    // No star: the pattern was a prefix; an anchor also needs the path to end here.
    !anchored || rest.is_empty()
}

/// `/robots.txt$` as a pattern, normalised like any rule (a constant, built once).
static ROBOTS_TXT: LazyLock<Option<Pattern>> = LazyLock::new(|| Pattern::new(b"/robots.txt$"));

/// What is being escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// A rule value: `*` is a wildcard and a final `$` an anchor; any other `$` is literal.
    Pattern,
    /// A URL's path and query: `*` and `$` are literal.
    Path,
}

/// Escapes as `%XX` every byte that is not printable ASCII, a `%` that does not start a `%XX`
/// escape, and the `*` and `$` that stand for themselves (see [`Part`]). The result is
/// printable ASCII.
fn escape(bytes: &[u8], part: Part) -> Cow<'_, [u8]> {
    let last = bytes.len().saturating_sub(1);
    let needs_escape = |at: usize, b: u8| match b {
        b'%' => !is_escape(bytes, at),
        b'*' => part == Part::Path,
        b'$' => part == Part::Path || at != last,
        _ => !b.is_ascii_graphic(),
    };
    if !bytes.iter().enumerate().any(|(at, &b)| needs_escape(at, b)) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 8);
    for (at, &b) in bytes.iter().enumerate() {
        if needs_escape(at, b) {
            out.extend_from_slice(&percent(b));
        } else {
            out.push(b);
        }
    }
    Cow::Owned(out)
}

/// Returns true if `bytes[at]` starts a `%XX` escape.
fn is_escape(bytes: &[u8], at: usize) -> bool {
    matches!(
        bytes.get(at..at + 3),
        Some([b'%', high, low]) if high.is_ascii_hexdigit() && low.is_ascii_hexdigit()
    )
}

fn percent(b: u8) -> [u8; 3] {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    [b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0x0f)]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(value: &str) -> Pattern {
        Pattern::new(value.as_bytes()).unwrap()
    }

    #[test]
    fn empty_value_is_no_pattern() {
        assert_eq!(Pattern::new(b""), None);
    }

    #[test]
    fn normalisation() {
        assert_eq!(pattern("/%7efoo%2fbar").as_str(), "/~foo%2Fbar");
        assert_eq!(pattern("/ä b").as_str(), "/%C3%A4%20b");
        assert_eq!(pattern("*.php$").as_str(), "/*.php$");
        assert_eq!(pattern("/100%").as_str(), "/100%25");
        assert_eq!(Pattern::new(b"/\xff\x00").unwrap().as_str(), "/%FF%00");
    }

    #[test]
    fn stray_percent_is_a_literal_percent() {
        assert!(pattern("/100%").matches(&Path::new("/100%25")));
        assert!(pattern("/100%25").matches(&Path::new("/100%")));
        assert!(pattern("/%zz").matches(&Path::new("/%25zz")));
    }

    #[test]
    fn rfc9309_2_2_3_encoded_special_characters_match_literals() {
        // robotxt alone: the RFC's own examples do not match.
        let robots = robotxt::Robots::parse(
            b"user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24",
            "bot",
        );
        assert!(robots.is_allowed("/path/file-with-a-*.html"));
        assert!(robots.is_allowed("/path/foo-$"));
        // Our wrapper: they do.
        assert!(
            pattern("/path/file-with-a-%2A.html").matches(&Path::new("/path/file-with-a-*.html"))
        );
        assert!(pattern("/path/foo-%24").matches(&Path::new("/path/foo-$")));
        assert!(pattern("/path/foo-%24").matches(&Path::new("/path/foo-%24")));
        // A wildcard still matches a literal star, and an anchor is still an anchor.
        assert!(pattern("/a*c").matches(&Path::new("/a*c")));
        assert!(pattern("/a$").matches(&Path::new("/a")));
        assert!(!pattern("/a$").matches(&Path::new("/a$")));
        // A `$` inside a pattern is a literal.
        assert_eq!(pattern("/a$b").as_str(), "/a%24b");
        assert!(pattern("/a$b").matches(&Path::new("/a$b/c")));
        assert!(pattern("/a$$").matches(&Path::new("/a$")));
        assert!(!pattern("/a$$").matches(&Path::new("/a$b")));
    }

    /// The one-pass match agrees with `robotxt`'s own on every pattern and path below,
    /// including paths `robotxt` would normalise (those take its matcher).
    #[test]
    fn wildcard_match_agrees_with_robotxt() {
        let patterns = [
            "/",
            "/a",
            "/a$",
            "/a*",
            "/a*$",
            "/*",
            "*",
            "/*.xml$",
            "/*.xml",
            "/a*b*c",
            "/a*b*c$",
            "/a**b",
            "/feeds/",
            "/feeds/*/rss",
            "/f?x=1",
            "/f?*x=",
            "/$",
            "/ab*ab$",
            "/aba*ba$",
            "/%7Efoo",
            "/~foo",
            "/x%2Fy",
            "/ä",
            "/a$b",
        ];
        let paths = [
            "/",
            "/a",
            "/ab",
            "/abc",
            "/a/b/c",
            "/axbxc",
            "/acb",
            "/feeds/1.xml",
            "/feeds/1.xml?x",
            "/feeds/a/rss",
            "/feeds/a/b/rss/x",
            "/f?x=1",
            "/f?y=2&x=3",
            "/abab",
            "/aba",
            "/ababa",
            "/~foo",
            "/%7efoo",
            "/%7Efoo/bar",
            "/x%2fy",
            "/x/y",
            "/%C3%A4",
            "/ä",
            "/a b",
            "/a$b",
            "/a{b}",
            "",
        ];
        let mut normal = 0;
        for pattern in patterns {
            let p = Pattern::new(pattern.as_bytes()).unwrap();
            for path in paths {
                let ours = Path::new(path);
                let theirs = p.rule.is_match(&ours.text);
                assert_eq!(p.matches(&ours), theirs, "{pattern} on {path}");
                // The one-look route gives what the long way gives.
                assert_eq!(ours, Path::escaped(path), "{path}");
                if ours.normal {
                    assert_eq!(wildcard_match(p.rule.pattern(), &ours.text), theirs);
                    normal += 1;
                }
            }
        }
        // Most of the paths took the one-pass match.
        assert!(normal > patterns.len() * paths.len() / 2, "{normal}");
    }

    #[test]
    fn fragment_is_dropped() {
        assert!(pattern("/a$").matches(&Path::new("/a#b")));
    }

    #[test]
    fn robots_txt_spellings() {
        for path in ["/robots.txt", "/%72obots.txt", "/robots.txt#x"] {
            assert!(Path::new(path).is_robots_txt(), "{path}");
        }
        for path in [
            "/robots.txt?x=1",
            "/Robots.txt",
            "/robots.txt/",
            "/a/robots.txt",
        ] {
            assert!(!Path::new(path).is_robots_txt(), "{path}");
        }
    }
}
