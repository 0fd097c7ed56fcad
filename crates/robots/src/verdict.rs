//! What a check decides, and why.
//!
//! A [`Verdict`] carries the answer ([`Access`]), the group whose rules were consulted
//! ([`Group`]) and what settled it ([`Basis`]): a rule line with its number and text, no
//! matching rule, no applicable group, or the always-allowed `/robots.txt`. Its `Display`
//! starts with `allowed` or `disallowed`, followed by the group and the deciding line, so it
//! can be printed or stored as a reason as is.

use std::fmt;

/// Whether the `*` group may decide a check (SR8).
///
/// A profile can exempt some fetches (feeds, for SereneReader) from the rules written for
/// every crawler, while still obeying the group written for it by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StarGroup {
    /// RFC 9309: the `*` group applies when no group names the crawler.
    #[default]
    Apply,
    /// Only a group naming the crawler applies; without one, everything is allowed.
    Ignore,
}

/// The answer of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The URL may be fetched.
    Allowed,
    /// The URL must not be fetched.
    Disallowed,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Allowed => "allowed",
            Self::Disallowed => "disallowed",
        })
    }
}

/// The group whose rules were consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group<'a> {
    /// The crawler's own group(s), merged; named by the token as the file first spells it.
    Own(&'a str),
    /// The `*` group(s), merged, because no group names the crawler.
    Star,
    /// No group applies (none names the crawler, and there is no `*` group or it is ignored).
    None,
}

impl fmt::Display for Group<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Own(name) => write!(f, "group {name}"),
            Self::Star => f.write_str("group *"),
            Self::None => f.write_str("no group"),
        }
    }
}

/// An `Allow` or `Disallow` line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleLine<'a> {
    /// The 1-based line number, as an editor shows it.
    pub line: usize,
    /// The line as written, without its comment and surrounding spaces (bytes that are not
    /// UTF-8 are shown as U+FFFD; past [`MAX_RULE_TEXT`](crate::MAX_RULE_TEXT) characters it
    /// is cut and ends with `…`), e.g. `Disallow: /private`.
    pub text: &'a str,
}

/// What settled a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis<'a> {
    /// The most specific matching rule of the group.
    Rule(RuleLine<'a>),
    /// The group applies, but none of its rules matches the path: allowed.
    NoRuleMatched,
    /// No group names the crawler and there is no `*` group: allowed.
    NoGroup,
    /// No group names the crawler and the caller ignores the `*` group ([`StarGroup::Ignore`]):
    /// allowed.
    StarGroupIgnored,
    /// The path is `/robots.txt`, which is always allowed (RFC 9309, section 2.2.2).
    RobotsTxt,
}

/// The result of checking a path against a robots.txt file for one crawler, borrowing the
/// group's name and the rule's text from the file it checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// Allowed or disallowed.
    pub access: Access,
    /// The group consulted.
    pub group: Group<'a>,
    /// What settled it.
    pub basis: Basis<'a>,
}

impl<'a> Verdict<'a> {
    /// Returns true if the path may be fetched.
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        self.access == Access::Allowed
    }

    /// The deciding rule line, if a rule decided.
    #[must_use]
    pub fn rule(&self) -> Option<RuleLine<'a>> {
        match self.basis {
            Basis::Rule(rule) => Some(rule),
            _ => None,
        }
    }
}

impl fmt::Display for Verdict<'_> {
    /// `disallowed by group SereneReader line 3: Disallow: /private`,
    /// `allowed by group *: no rule matched`, `allowed: no group applies`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = self.access;
        let group = &self.group;
        match &self.basis {
            Basis::Rule(rule) => {
                write!(f, "{access} by {group} line {}: {}", rule.line, rule.text)
            }
            Basis::NoRuleMatched => write!(f, "{access} by {group}: no rule matched"),
            Basis::NoGroup => write!(f, "{access}: no group applies"),
            Basis::StarGroupIgnored => write!(f, "{access}: no own group, the * group is ignored"),
            Basis::RobotsTxt => write!(f, "{access}: /robots.txt is always allowed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_starts_with_the_answer() {
        let verdict = Verdict {
            access: Access::Disallowed,
            group: Group::Own("SereneReader"),
            basis: Basis::Rule(RuleLine {
                line: 3,
                text: "Disallow: /private",
            }),
        };
        assert_eq!(
            verdict.to_string(),
            "disallowed by group SereneReader line 3: Disallow: /private"
        );
        let verdict = Verdict {
            access: Access::Allowed,
            group: Group::Star,
            basis: Basis::NoRuleMatched,
        };
        assert_eq!(verdict.to_string(), "allowed by group *: no rule matched");
        let verdict = Verdict {
            access: Access::Allowed,
            group: Group::None,
            basis: Basis::StarGroupIgnored,
        };
        assert_eq!(
            verdict.to_string(),
            "allowed: no own group, the * group is ignored"
        );
    }
}
