//! A parsed robots.txt file and the checks made against it.
//!
//! Owns grouping and group selection (RFC 9309, sections 2.1 and 2.2.1): a group starts at a
//! `User-agent` line that follows a rule (or begins the file's first group) and collects the
//! rules until the next such line; rules before the first `User-agent` line apply to no one;
//! every group naming the crawler is merged, and the merged `*` groups apply only when none
//! does. Within the chosen group the most specific matching rule decides, `Allow` winning a
//! tie (section 2.2.2; matching itself is `matcher`'s). `Crawl-delay` and `Sitemap`
//! are read too; unknown lines are ignored.

use std::time::Duration;

use url::{Position, Url};

use crate::lexer::{self, Directive};
use crate::matcher::{Path, Pattern};
use crate::token::{ProductToken, leading_token};
use crate::verdict::{Access, Basis, Group, RuleLine, StarGroup, Verdict};

/// A parsed robots.txt file. Parsing never fails: anything that is not understood is ignored.
///
/// ```
/// use tidings_robots::{Group, ProductToken, Robots};
///
/// let robots = Robots::parse(b"User-agent: SereneReader/1.0\nDisallow: /private\n");
/// let token = ProductToken::new("SereneReader").unwrap();
/// let verdict = robots.check(&token, "/private/a");
/// assert!(!verdict.is_allowed());
/// assert_eq!(verdict.group, Group::Own("SereneReader"));
/// assert_eq!(verdict.to_string(), "disallowed by group SereneReader line 2: Disallow: /private");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Robots {
    groups: Vec<GroupRules>,
    sitemaps: Vec<String>,
}

/// The groups of one file that apply to one crawler ([`Robots::select`]), for checking any
/// number of paths against that file ([`Robots::check_selected`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    chosen: Chosen,
    /// The applying groups, by their place in the file.
    groups: Vec<usize>,
}

/// What a selection chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chosen {
    /// The groups naming the crawler; its name as first written (group, agent).
    Own { group: usize, agent: usize },
    /// The `*` groups.
    Star,
    /// None: why every path is allowed.
    Nothing(Basis<'static>),
}

/// One group as written in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct GroupRules {
    agents: Vec<Agent>,
    rules: Vec<Rule>,
    crawl_delays: Vec<Duration>,
}

/// A `User-agent` value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Agent {
    Star,
    /// The value's leading product-token characters, as written.
    Token(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    line: usize,
    text: String,
    allow: bool,
    pattern: Pattern,
}

impl Agent {
    /// Reads a `User-agent` value: `*` (alone or followed by a space), or the leading
    /// product-token characters (`Token/1.0` is `Token`). Anything else names no crawler.
    fn parse(value: &[u8]) -> Option<Self> {
        if matches!(value, [b'*'] | [b'*', b' ' | b'\t', ..]) {
            return Some(Self::Star);
        }
        let token = leading_token(value);
        (!token.is_empty()).then(|| Self::Token(String::from_utf8_lossy(token).into_owned()))
    }
}

impl Robots {
    /// Parses a robots.txt file.
    ///
    /// Only the first [`BYTE_LIMIT`](crate::BYTE_LIMIT) bytes are read (a line crossing the
    /// limit is dropped); a UTF-8 byte order mark is skipped; CR, LF and CRLF end lines; bytes
    /// that are not UTF-8 are kept as they are and matched as percent-encoded octets.
    #[must_use]
    pub fn parse(file: &[u8]) -> Self {
        let mut groups: Vec<GroupRules> = Vec::new();
        let mut sitemaps: Vec<String> = Vec::new();
        // True while reading the `User-agent` lines that open a group.
        let mut in_agents = false;

        for line in lexer::lines(file) {
            match line.directive {
                Directive::UserAgent(value) => {
                    if !in_agents {
                        groups.push(GroupRules::default());
                        in_agents = true;
                    }
                    if let (Some(group), Some(agent)) = (groups.last_mut(), Agent::parse(value)) {
                        group.agents.push(agent);
                    }
                }
                Directive::Allow(value) | Directive::Disallow(value) => {
                    in_agents = false;
                    let allow = matches!(line.directive, Directive::Allow(_));
                    if let (Some(group), Some(pattern)) = (groups.last_mut(), Pattern::new(value)) {
                        group.rules.push(Rule {
                            line: line.number,
                            text: rule_text(line.text),
                            allow,
                            pattern,
                        });
                    }
                }
                Directive::CrawlDelay(value) => {
                    in_agents = false;
                    if let (Some(group), Some(delay)) = (groups.last_mut(), parse_delay(value)) {
                        group.crawl_delays.push(delay);
                    }
                }
                Directive::Sitemap(value) => {
                    if let Some(url) = parse_sitemap(value)
                        && !sitemaps.contains(&url)
                    {
                        sitemaps.push(url);
                    }
                }
                Directive::Other => {}
            }
        }
        groups.retain(|group| !group.agents.is_empty());
        // A parsed file is kept for as long as its copy is (one per origin, for a day or
        // more): it holds what it read, not the room it grew into. Each list is moved into
        // one of its exact size (not shrunk in place, which would leave the freed tails of
        // every copy behind as holes that the next copies, of the same sizes, cannot use).
        let groups = groups
            .drain(..)
            .map(|mut group| GroupRules {
                agents: exact(&mut group.agents),
                rules: exact(&mut group.rules),
                crawl_delays: exact(&mut group.crawl_delays),
            })
            .collect();
        Self {
            groups,
            sitemaps: exact(&mut sitemaps),
        }
    }

    /// Checks a path (with its query; a fragment is ignored) for the crawler, RFC 9309 style:
    /// its own group, else the `*` group.
    #[must_use]
    pub fn check(&self, token: &ProductToken, path_and_query: &str) -> Verdict<'_> {
        self.check_with(token, path_and_query, StarGroup::Apply)
    }

    /// Checks a path, choosing whether the `*` group may decide (SR8: feeds ignore it, while
    /// the crawler's own group is always obeyed).
    ///
    /// With [`StarGroup::Ignore`] and no group naming the crawler, the path is allowed with
    /// [`Group::None`] and [`Basis::StarGroupIgnored`]. The groups are chosen on each call; a
    /// caller that checks many paths chooses them once with [`Robots::select`].
    #[must_use]
    pub fn check_with(
        &self,
        token: &ProductToken,
        path_and_query: &str,
        star: StarGroup,
    ) -> Verdict<'_> {
        self.check_selected(&self.select(token, star), path_and_query)
    }

    /// The groups that apply to the crawler named by `token` (RFC 9309, section 2.2.1): every
    /// group naming it, else the `*` groups unless `star` ignores them. Chosen once for any
    /// number of paths ([`Robots::check_selected`]).
    #[must_use]
    pub fn select(&self, token: &ProductToken, star: StarGroup) -> Selection {
        let names = |agent: &Agent| match agent {
            Agent::Token(name) => token.matches_value_bytes(name.as_bytes()),
            Agent::Star => false,
        };
        let of = |pick: &dyn Fn(&GroupRules) -> bool| -> Vec<usize> {
            let picked = self.groups.iter().enumerate().filter(|(_, g)| pick(g));
            picked.map(|(i, _)| i).collect()
        };
        let is_star = |g: &GroupRules| g.agents.contains(&Agent::Star);
        let first_naming = self.groups.iter().enumerate().find_map(|(group, rules)| {
            let agent = rules.agents.iter().position(names)?;
            Some((group, agent))
        });
        match first_naming {
            Some((group, agent)) => Selection {
                chosen: Chosen::Own { group, agent },
                groups: of(&|g| g.agents.iter().any(names)),
            },
            None if !self.groups.iter().any(is_star) => Selection {
                chosen: Chosen::Nothing(Basis::NoGroup),
                groups: Vec::new(),
            },
            None => match star {
                StarGroup::Apply => Selection {
                    chosen: Chosen::Star,
                    groups: of(&is_star),
                },
                StarGroup::Ignore => Selection {
                    chosen: Chosen::Nothing(Basis::StarGroupIgnored),
                    groups: Vec::new(),
                },
            },
        }
    }

    /// Checks a path against the groups `selection` chose from this file.
    #[must_use]
    pub fn check_selected(&self, selection: &Selection, path_and_query: &str) -> Verdict<'_> {
        let path = Path::new(path_and_query);
        let group = match selection.chosen {
            Chosen::Own { group, agent } => {
                match self.groups.get(group).and_then(|g| g.agents.get(agent)) {
                    Some(Agent::Token(name)) => Group::Own(name.as_str()),
                    _ => Group::None,
                }
            }
            Chosen::Star => Group::Star,
            Chosen::Nothing(_) => Group::None,
        };
        let allowed = |group, basis| Verdict {
            access: Access::Allowed,
            group,
            basis,
        };
        if path.is_robots_txt() {
            return allowed(group, Basis::RobotsTxt);
        }
        if let Chosen::Nothing(basis) = selection.chosen {
            return allowed(group, basis);
        }
        match best_rule(self.selected(selection), &path) {
            None => allowed(group, Basis::NoRuleMatched),
            Some(rule) => Verdict {
                access: if rule.allow {
                    Access::Allowed
                } else {
                    Access::Disallowed
                },
                group,
                basis: Basis::Rule(RuleLine {
                    line: rule.line,
                    text: &rule.text,
                }),
            },
        }
    }

    /// The crawl delay for the crawler: from its own group(s) if any names it, else from the
    /// `*` group(s). Fractional seconds are kept; values that are not a plain non-negative
    /// decimal number are ignored. If the applicable groups give several, the longest wins
    /// (the courteous reading of a contradiction).
    #[must_use]
    pub fn crawl_delay(&self, token: &ProductToken) -> Option<Duration> {
        let selection = self.select(token, StarGroup::Apply);
        self.selected(&selection)
            .flat_map(|g| &g.crawl_delays)
            .max()
            .copied()
    }

    /// The groups `selection` chose from this file.
    fn selected<'a, 's>(
        &'a self,
        selection: &'s Selection,
    ) -> impl Iterator<Item = &'a GroupRules> + use<'a, 's> {
        selection.groups.iter().filter_map(|&g| self.groups.get(g))
    }

    /// Every valid `Sitemap` URL of the file (absolute http or https), in file order without
    /// duplicates, whatever group it appears in.
    #[must_use]
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }
}

/// The most specific matching rule of the merged groups; `Allow` wins a tie, and among equal
/// rules the first in the file is reported.
fn best_rule<'a>(groups: impl Iterator<Item = &'a GroupRules>, path: &Path) -> Option<&'a Rule> {
    let mut best: Option<&Rule> = None;
    for rule in groups.flat_map(|g| &g.rules) {
        if !rule.pattern.matches(path) {
            continue;
        }
        let key = (rule.pattern.specificity(), rule.allow);
        if best.is_none_or(|b| key > (b.pattern.specificity(), b.allow)) {
            best = Some(rule);
        }
    }
    best
}

/// `list`'s items in a list of their exact size.
fn exact<T>(list: &mut Vec<T>) -> Vec<T> {
    let mut exact = Vec::with_capacity(list.len());
    exact.append(list);
    exact
}

/// The longest rule text a verdict quotes, in characters; a longer line is cut and ends with
/// `…`, so a hostile file cannot blow up the reasons stored with every decision.
pub const MAX_RULE_TEXT: usize = 200;

/// The text of a rule line for reports: lossy UTF-8, at most [`MAX_RULE_TEXT`] characters.
fn rule_text(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    match text.char_indices().nth(MAX_RULE_TEXT) {
        None => text.into_owned(),
        Some((cut, _)) => {
            let mut short = text.get(..cut).unwrap_or_default().to_owned();
            short.push('…');
            short
        }
    }
}

/// Reads a `Crawl-delay` value in seconds: digits with an optional fraction (`10`, `0.5`,
/// `.5`). Signs, exponents, units and anything else make it invalid.
fn parse_delay(value: &[u8]) -> Option<Duration> {
    let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
    let dots = value.iter().filter(|&&b| b == b'.').count();
    if digits == 0 || dots > 1 || digits + dots != value.len() {
        return None;
    }
    let seconds: f64 = std::str::from_utf8(value).ok()?.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok()
}

/// Reads a `Sitemap` value: an absolute http or https URL.
fn parse_sitemap(value: &[u8]) -> Option<String> {
    let url = Url::parse(std::str::from_utf8(value).ok()?).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.as_str().to_owned())
}

/// The path and query of a URL, the part robots.txt rules are matched against.
///
/// ```
/// let url = url::Url::parse("https://example.com/a/b?c=d#e").unwrap();
/// assert_eq!(tidings_robots::path_and_query(&url), "/a/b?c=d");
/// ```
#[must_use]
pub fn path_and_query(url: &Url) -> &str {
    &url[Position::BeforePath..Position::AfterQuery]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_chosen_once_decide_every_path_as_a_check_of_its_own_does() {
        let file = b"User-agent: *\nDisallow: /private\nAllow: /private/open\n\n\
            User-agent: bot\nDisallow: /drafts\n\nUser-agent: other\nDisallow: /\n\n\
            User-agent: BOT/2\nAllow: /drafts/public\nCrawl-delay: 3\n";
        let robots = Robots::parse(file);
        let paths = [
            "/",
            "/private",
            "/private/open/x",
            "/drafts",
            "/drafts/public/1",
            "/robots.txt",
        ];
        for token in ["Bot", "other", "nobody"] {
            let token = ProductToken::new(token).unwrap();
            for star in [StarGroup::Apply, StarGroup::Ignore] {
                let selection = robots.select(&token, star);
                for path in paths {
                    assert_eq!(
                        robots.check_selected(&selection, path),
                        robots.check_with(&token, path, star),
                        "{token:?} {star:?} {path}"
                    );
                }
            }
        }
        // Both `bot` groups are merged for Bot, its name as first written; nobody gets `*`.
        let bot = robots.select(&ProductToken::new("Bot").unwrap(), StarGroup::Apply);
        let verdict = robots.check_selected(&bot, "/drafts/public/1");
        assert!(verdict.is_allowed());
        assert_eq!(verdict.group, Group::Own("bot"));
        let nobody = robots.select(&ProductToken::new("nobody").unwrap(), StarGroup::Ignore);
        let verdict = robots.check_selected(&nobody, "/private");
        assert!(verdict.is_allowed());
        assert_eq!(verdict.basis, Basis::StarGroupIgnored);
        let nobody = robots.select(&ProductToken::new("nobody").unwrap(), StarGroup::Apply);
        assert!(!robots.check_selected(&nobody, "/private").is_allowed());
    }

    #[test]
    fn long_rule_lines_are_cut_in_reports() {
        let mut file = b"User-agent: *\nDisallow: /".to_vec();
        file.extend(std::iter::repeat_n(b'a', 1000));
        let path = format!("/{}", "a".repeat(1000));
        let robots = Robots::parse(&file);
        let verdict = robots.check(&ProductToken::new("Bot").unwrap(), &path);
        let rule = verdict.rule().unwrap();
        assert_eq!(rule.text.chars().count(), MAX_RULE_TEXT + 1);
        assert!(rule.text.starts_with("Disallow: /aaa") && rule.text.ends_with('…'));
        assert_eq!(
            rule_text("é".repeat(300).as_bytes()).chars().count(),
            MAX_RULE_TEXT + 1
        );
        assert_eq!(rule_text(b"Allow: /x"), "Allow: /x");
    }

    #[test]
    fn delays() {
        assert_eq!(parse_delay(b"10"), Some(Duration::from_secs(10)));
        assert_eq!(parse_delay(b"0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_delay(b".25"), Some(Duration::from_millis(250)));
        assert_eq!(parse_delay(b"3."), Some(Duration::from_secs(3)));
        for bad in [
            "", ".", "-1", "-0", "+1", "1e3", "5s", "1.2.3", "inf", "NaN", "1 0", "０",
        ] {
            assert_eq!(parse_delay(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn sitemaps_must_be_absolute_http() {
        assert_eq!(
            parse_sitemap(b"https://example.com/s.xml"),
            Some("https://example.com/s.xml".into())
        );
        assert_eq!(parse_sitemap(b"/s.xml"), None);
        assert_eq!(parse_sitemap(b"ftp://example.com/s.xml"), None);
        assert_eq!(parse_sitemap(b"\xff"), None);
    }

    #[test]
    fn user_agent_values() {
        assert_eq!(Agent::parse(b"*"), Some(Agent::Star));
        assert_eq!(Agent::parse(b"* extra"), Some(Agent::Star));
        assert_eq!(Agent::parse(b"Bot/1.0"), Some(Agent::Token("Bot".into())));
        assert_eq!(
            Agent::parse(b"Bot (+https://x)"),
            Some(Agent::Token("Bot".into()))
        );
        assert_eq!(Agent::parse(b"*bot"), None);
        assert_eq!(Agent::parse(b"/1.0"), None);
        assert_eq!(Agent::parse(b""), None);
    }
}
