//! A publisher's objections to AI crawlers and to text and data mining (DFB2).
//!
//! The signals read, and nothing else:
//!
//! 1. robots.txt: a group that names one of the profile's AI crawler tokens (GPTBot, CCBot,
//!    Google-Extended, ClaudeBot, …) and disallows the path in question. Only a group naming
//!    the token counts; the `*` group speaks to every crawler, not to AI crawlers.
//! 2. TDMRep, the `tdm-reservation: 1` response header.
//! 3. TDMRep, `<meta name="tdm-reservation" content="1">` in a page.
//! 4. TDMRep, a `/.well-known/tdmrep.json` rule whose `location` matches the path and whose
//!    `tdm-reservation` is 1 (its locations are robots.txt patterns; the longest match
//!    decides).
//!
//! Any one signal that reserves rights is an objection; a `0` never lifts another signal's
//! reservation. llms.txt, ai.txt, AGENTS.md and prose are never read (FF15).

use std::fmt;
use tidings_robots::{PathPattern, ProductToken, Robots, StarGroup};

/// One signal by which a publisher objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objection {
    pub signal: Signal,
    /// What was seen: the group and rule line, the header or tag value, the file's rule.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    AiCrawlerGroup,
    TdmHeader,
    TdmMeta,
    TdmRepFile,
}

impl fmt::Display for Objection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.signal {
            Signal::AiCrawlerGroup => "robots.txt disallows an AI crawler",
            Signal::TdmHeader => "tdm-reservation header",
            Signal::TdmMeta => "tdm-reservation meta tag",
            Signal::TdmRepFile => "/.well-known/tdmrep.json",
        };
        write!(f, "{what} ({})", self.detail)
    }
}

/// The AI crawler tokens a profile lists, validated; tokens that are not valid product tokens
/// are returned apart, for the profile's loader to refuse.
pub fn ai_tokens<'a>(names: impl IntoIterator<Item = &'a str>) -> (Vec<ProductToken>, Vec<String>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for name in names {
        match ProductToken::new(name) {
            Ok(token) => good.push(token),
            Err(_) => bad.push(name.to_owned()),
        }
    }
    (good, bad)
}

/// Signal 1: the first AI crawler token whose own group disallows `path_and_query`.
pub fn in_robots(
    robots: &Robots,
    tokens: &[ProductToken],
    path_and_query: &str,
) -> Option<Objection> {
    tokens.iter().find_map(|token| {
        let verdict = robots.check_with(token, path_and_query, StarGroup::Ignore);
        (!verdict.is_allowed()).then(|| Objection {
            signal: Signal::AiCrawlerGroup,
            detail: format!("{} for {path_and_query}: {verdict}", token.as_str()),
        })
    })
}

/// A `tdm-reservation` value: `Some(true)` for `1`, `Some(false)` for `0`, `None` otherwise.
pub fn reservation(value: &str) -> Option<bool> {
    match value.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Signal 2: the `tdm-reservation` header values of a response.
pub fn in_header<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Objection> {
    values
        .into_iter()
        .find(|v| reservation(v) == Some(true))
        .map(|v| Objection {
            signal: Signal::TdmHeader,
            detail: format!("tdm-reservation: {}", v.trim()),
        })
}

/// Signal 3: a page's `tdm-reservation` meta content.
pub fn in_meta(content: Option<&str>) -> Option<Objection> {
    content
        .filter(|c| reservation(c) == Some(true))
        .map(|c| Objection {
            signal: Signal::TdmMeta,
            detail: format!("content={}", c.trim()),
        })
}

/// A site's `/.well-known/tdmrep.json`: its rules, in order.
#[derive(Debug, Clone, Default)]
pub struct TdmRep {
    rules: Vec<TdmRule>,
}

#[derive(Debug, Clone)]
struct TdmRule {
    location: String,
    pattern: PathPattern,
    reserved: bool,
    policy: Option<String>,
}

/// Why a tdmrep.json file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdmRepError(pub String);

impl fmt::Display for TdmRepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tdmrep.json: {}", self.0)
    }
}

impl std::error::Error for TdmRepError {}

/// The most rules of one file that are read.
const MAX_TDM_RULES: usize = 1_000;

impl TdmRep {
    /// Read the file: a JSON array of `{"location", "tdm-reservation", "tdm-policy"}`. A rule
    /// without a usable location or reservation is skipped; a file that is not such an
    /// array is an error (and says nothing).
    pub fn parse(bytes: &[u8]) -> Result<TdmRep, TdmRepError> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| TdmRepError(e.to_string()))?;
        let items = value
            .as_array()
            .ok_or_else(|| TdmRepError("not a JSON array".into()))?;
        let rules = items
            .iter()
            .take(MAX_TDM_RULES)
            .filter_map(|item| {
                let location = item.get("location")?.as_str()?;
                let reserved = match item.get("tdm-reservation")? {
                    serde_json::Value::Number(n) => reservation(&n.to_string())?,
                    serde_json::Value::String(s) => reservation(s)?,
                    _ => return None,
                };
                Some(TdmRule {
                    location: location.to_owned(),
                    pattern: PathPattern::new(location)?,
                    reserved,
                    policy: item
                        .get("tdm-policy")
                        .and_then(|p| p.as_str())
                        .map(str::to_owned),
                })
            })
            .collect();
        Ok(TdmRep { rules })
    }

    /// Signal 4: whether the rule that decides `path_and_query` reserves rights.
    pub fn objection(&self, path_and_query: &str) -> Option<Objection> {
        let mut best: Option<&TdmRule> = None;
        for rule in &self.rules {
            if rule.pattern.matches(path_and_query)
                && best.is_none_or(|b| rule.pattern.specificity() > b.pattern.specificity())
            {
                best = Some(rule);
            }
        }
        let rule = best.filter(|r| r.reserved)?;
        Some(Objection {
            signal: Signal::TdmRepFile,
            detail: match &rule.policy {
                Some(policy) => format!("location {} reserved, policy {policy}", rule.location),
                None => format!("location {} reserved", rule.location),
            },
        })
    }
}
