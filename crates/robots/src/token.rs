//! The crawler's product token (RFC 9309, section 2.2.1).
//!
//! A product token is the name a crawler is addressed by in `User-agent` lines: only ASCII
//! letters, `_` and `-`. It is validated once, here; matching against a `User-agent` value is
//! case-insensitive and looks only at the value's leading token characters, so that
//! `User-agent: SereneReader/1.0` addresses `SereneReader`.

use std::fmt;
use std::str::FromStr;

/// Why a string is not a product token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The string is empty.
    #[error("a product token cannot be empty")]
    Empty,
    /// The string holds a character other than an ASCII letter, `_` or `-`.
    #[error(
        "invalid character {found:?} at byte {at} in product token (allowed: A-Z, a-z, _ and -)"
    )]
    InvalidChar {
        /// The offending character.
        found: char,
        /// Its byte offset in the string.
        at: usize,
    },
}

/// A validated RFC 9309 product token, such as `SereneReader`.
///
/// ```
/// use tidings_robots::ProductToken;
///
/// let token = ProductToken::new("SereneReader").unwrap();
/// assert!(token.matches_user_agent_value("serenereader/1.0"));
/// assert!(ProductToken::new("SereneReader/1.0").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProductToken(String);

/// Returns true for the characters RFC 9309 allows in a product token.
pub(crate) const fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'-'
}

impl ProductToken {
    /// Validates `token`: one or more ASCII letters, `_` or `-`.
    ///
    /// # Errors
    ///
    /// [`TokenError`] if the string is empty or holds any other character.
    pub fn new(token: &str) -> Result<Self, TokenError> {
        if token.is_empty() {
            return Err(TokenError::Empty);
        }
        if let Some((at, found)) = token
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii() && is_token_byte(c as u8)))
        {
            return Err(TokenError::InvalidChar { found, at });
        }
        Ok(Self(token.to_owned()))
    }

    /// The token as given.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Returns true if a `User-agent` value addresses this token: its leading token characters
    /// (everything before the first character that is not a letter, `_` or `-`, so the version
    /// in `Token/1.0` is ignored) equal the token, ignoring ASCII case.
    #[must_use]
    pub fn matches_user_agent_value(&self, value: &str) -> bool {
        self.matches_value_bytes(value.as_bytes())
    }

    /// [`ProductToken::matches_user_agent_value`] on raw bytes from the file.
    pub(crate) fn matches_value_bytes(&self, value: &[u8]) -> bool {
        leading_token(value).eq_ignore_ascii_case(self.0.as_bytes())
    }
}

/// The leading product-token characters of a `User-agent` value (possibly empty).
pub(crate) fn leading_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&b| !is_token_byte(b))
        .unwrap_or(value.len());
    value.get(..end).unwrap_or_default()
}

impl FromStr for ProductToken {
    type Err = TokenError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl fmt::Display for ProductToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for ProductToken {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_tokens() {
        for ok in ["SereneReader", "daily-football_bot", "x", "A-"] {
            assert_eq!(
                ProductToken::new(ok).map(|t| t.0),
                Ok(ok.to_owned()),
                "{ok}"
            );
        }
    }

    #[test]
    fn invalid_tokens() {
        assert_eq!(ProductToken::new(""), Err(TokenError::Empty));
        assert_eq!(
            ProductToken::new("Bot/1.0"),
            Err(TokenError::InvalidChar { found: '/', at: 3 })
        );
        assert_eq!(
            ProductToken::new("bot2"),
            Err(TokenError::InvalidChar { found: '2', at: 3 })
        );
        assert_eq!(
            ProductToken::new("bötchen"),
            Err(TokenError::InvalidChar { found: 'ö', at: 1 })
        );
        assert!(ProductToken::new("*").is_err());
        assert!(ProductToken::new("a b").is_err());
    }

    #[test]
    fn value_matching() {
        let t = ProductToken::new("SereneReader").unwrap();
        assert!(t.matches_user_agent_value("SereneReader"));
        assert!(t.matches_user_agent_value("serenereader"));
        assert!(t.matches_user_agent_value("SereneReader/1.0"));
        assert!(t.matches_user_agent_value("SereneReader (+https://x)"));
        assert!(!t.matches_user_agent_value("SereneReader-News"));
        assert!(!t.matches_user_agent_value("Serene"));
        assert!(!t.matches_user_agent_value("*"));
        assert!(!t.matches_user_agent_value(""));
    }
}
