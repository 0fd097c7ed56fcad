//! Indexing directives (FF14): `X-Robots-Tag` headers and `<meta name=robots|BOT>` tags.
//!
//! A directive restricts what may be done with the resource that carries it, and only that
//! resource. Restrictions add up (the most restrictive reading wins: `index, noindex` is
//! `noindex`), and directives written for another bot do not apply.

use std::fmt;

/// The restrictions in force on one resource.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(default)]
pub struct Directives {
    /// No text indexing (search).
    pub noindex: bool,
    /// No link discovery from the resource.
    pub nofollow: bool,
    /// No excerpt.
    pub nosnippet: bool,
    /// No retained copy of the text.
    pub noarchive: bool,
    /// `max-snippet:N`: an excerpt of at most N characters (0 is `nosnippet`).
    pub max_snippet: Option<u32>,
}

/// Directive names that take a value after a colon (`max-snippet:50`), so that the colon is
/// not read as a bot name's.
const VALUED: &[&str] = &[
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
];

impl Directives {
    pub const NONE: Directives = Directives {
        noindex: false,
        nofollow: false,
        nosnippet: false,
        noarchive: false,
        max_snippet: None,
    };

    /// Whether nothing is restricted.
    pub fn is_empty(&self) -> bool {
        *self == Directives::NONE
    }

    /// Both sets of restrictions.
    #[must_use]
    pub fn union(self, other: Directives) -> Directives {
        Directives {
            noindex: self.noindex || other.noindex,
            nofollow: self.nofollow || other.nofollow,
            nosnippet: self.nosnippet || other.nosnippet,
            noarchive: self.noarchive || other.noarchive,
            max_snippet: match (self.max_snippet, other.max_snippet) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Whether `self` restricts everything `other` does (and perhaps more).
    pub fn covers(&self, other: &Directives) -> bool {
        self.union(*other) == *self
    }

    /// One comma-separated list, as a meta tag's `content` holds it. Unknown words are
    /// ignored; positive words (`all`, `index`, `follow`) restrict nothing.
    pub fn parse_list(content: &str) -> Directives {
        let mut out = Directives::NONE;
        for word in content.split(',') {
            out.apply(word);
        }
        out
    }

    fn apply(&mut self, word: &str) {
        let word = word.trim();
        let (name, value) = match word.split_once(':') {
            Some((name, value)) => (name.trim(), Some(value.trim())),
            None => (word, None),
        };
        match name.to_ascii_lowercase().as_str() {
            "noindex" => self.noindex = true,
            "nofollow" => self.nofollow = true,
            "none" => {
                self.noindex = true;
                self.nofollow = true;
            }
            "nosnippet" => self.nosnippet = true,
            "noarchive" => self.noarchive = true,
            // -1 is "no limit"; anything that is not a number says nothing.
            "max-snippet" => {
                if let Some(n) = value.and_then(|v| v.parse::<i64>().ok())
                    && n >= 0
                {
                    // `max-snippet:0` is `nosnippet`, and is kept as that alone.
                    let n = u32::try_from(n).unwrap_or(u32::MAX);
                    *self = self.union(if n == 0 {
                        Directives {
                            nosnippet: true,
                            ..Directives::NONE
                        }
                    } else {
                        Directives {
                            max_snippet: Some(n),
                            ..Directives::NONE
                        }
                    });
                }
            }
            _ => {}
        }
    }

    /// The longest excerpt allowed: `None` for none at all, else at most `wanted` characters.
    pub fn excerpt_chars(&self, wanted: usize) -> Option<usize> {
        if self.nosnippet {
            return None;
        }
        let most = self.max_snippet.map_or(wanted, |n| {
            wanted.min(usize::try_from(n).unwrap_or(usize::MAX))
        });
        (most > 0).then_some(most)
    }
}

impl fmt::Display for Directives {
    /// `noindex, nosnippet`, or `no restriction`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("no restriction");
        }
        let mut first = true;
        let mut word = |f: &mut fmt::Formatter<'_>, w: &dyn fmt::Display| {
            let sep = if first { "" } else { ", " };
            first = false;
            write!(f, "{sep}{w}")
        };
        for (on, name) in [
            (self.noindex, "noindex"),
            (self.nofollow, "nofollow"),
            (self.nosnippet, "nosnippet"),
            (self.noarchive, "noarchive"),
        ] {
            if on {
                word(f, &name)?;
            }
        }
        if let Some(n) = self.max_snippet
            && n > 0
        {
            word(f, &format_args!("max-snippet:{n}"))?;
        }
        Ok(())
    }
}

/// The `X-Robots-Tag` values of one response (one per header line), as they apply to `bot`:
/// the directives written for every bot and those written for `bot` by name (case ignored).
///
/// A part `name: directive` whose name is not a directive's starts directives for that bot;
/// the parts after it in the same header line are that bot's too.
pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>, bot: &str) -> Directives {
    let mut out = Directives::NONE;
    for value in values {
        // `None`: every bot; `Some(applies)`: a named bot's, which applies or not.
        let mut scope: Option<bool> = None;
        for part in value.split(',') {
            let mut word = part.trim();
            if let Some((name, rest)) = word.split_once(':') {
                let name = name.trim();
                if !VALUED.iter().any(|v| name.eq_ignore_ascii_case(v)) {
                    scope = Some(name.eq_ignore_ascii_case(bot));
                    word = rest;
                }
            }
            if scope != Some(false) {
                out.apply(word);
            }
        }
    }
    out
}

/// The `<meta>` directives of a page as they apply to `bot`: `robots` and `bot`'s own.
pub fn from_meta<'a>(tags: impl IntoIterator<Item = (&'a str, &'a str)>, bot: &str) -> Directives {
    tags.into_iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case(bot))
        .fold(Directives::NONE, |acc, (_, content)| {
            acc.union(Directives::parse_list(content))
        })
}

/// FF14: what one response did to a feed's directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// What the response said.
    pub seen: Directives,
    /// The feed's directives after it.
    pub current: Directives,
    /// A full response (which replaces), or a 304 (which only adds).
    pub full: bool,
}

/// The change a response makes to `current`, or `None` when they stay as they are.
pub fn change(current: Directives, seen: Directives, full: bool) -> Option<Change> {
    let next = after_response(current, seen, full);
    (next != current).then_some(Change {
        seen,
        current: next,
        full,
    })
}

impl Directives {
    /// The words stored for them: [`Display`](fmt::Display)'s, empty for none; read back
    /// with [`Directives::parse_list`].
    pub fn to_words(&self) -> String {
        if self.is_empty() {
            String::new()
        } else {
            self.to_string()
        }
    }
}

/// FF14: a feed's current directives after a response. A full response says what holds now
/// and replaces them; a 304 may add restrictions but never clears one.
pub fn after_response(current: Directives, seen: Directives, full: bool) -> Directives {
    if full { seen } else { current.union(seen) }
}
