//! What of each entry is stored (DFB2): a profile's `[keep]` and `[rights]` settings, and
//! the one function that applies them to a parsed feed before anything reaches the store.
//!
//! What is not kept is removed here, so it never reaches the store, the API or the exports.

use crate::decide::{self, Ruling};
use crate::directive::Directives;
use crate::objection::Objection;
use serde::Deserialize;
use tidings_model::{Entry, ParsedFeed};

/// A profile's `[keep]`: what of each entry is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KeepSettings {
    /// Full content (`content:encoded`, Atom `content`).
    pub content: bool,
    /// Images: the feed's image, icon and thumbnails, each entry's thumbnails, and the
    /// enclosures and media that are images.
    pub images: bool,
    /// Publisher metadata beyond title, link and dates: authors, contributors, categories,
    /// keywords, comments, rights and licence, source, other links, enclosures and media,
    /// language, duration (FF10 keeps them; DFB2 does not).
    pub metadata: bool,
    /// The summary as the feed gives it, or an excerpt of its text (DFB2).
    pub summary: SummaryKeep,
    /// The longest excerpt, in characters, when `summary = "excerpt"`.
    pub excerpt_max_chars: u32,
}

/// How an entry's summary is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SummaryKeep {
    /// As the feed gives it (within `entries.max_text_bytes`).
    Full,
    /// Its text, at most `excerpt_max_chars` characters, and only when the publisher objects
    /// neither to AI crawlers nor to text and data mining (DFB2).
    Excerpt,
}

impl Default for KeepSettings {
    fn default() -> Self {
        KeepSettings {
            content: true,
            images: true,
            metadata: true,
            summary: SummaryKeep::Full,
            excerpt_max_chars: 300,
        }
    }
}

/// The longest excerpt a profile may ask for.
pub const MAX_EXCERPT_CHARS: u32 = 10_000;

impl KeepSettings {
    /// Whether every part of an entry is kept as parsed.
    pub fn keeps_everything(&self) -> bool {
        self.content && self.images && self.metadata && self.summary == SummaryKeep::Full
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_EXCERPT_CHARS).contains(&self.excerpt_max_chars) {
            return Err(format!(
                "keep.excerpt_max_chars must be between 1 and {MAX_EXCERPT_CHARS}"
            ));
        }
        Ok(())
    }
}

/// A profile's `[rights]`: whose objections count and what the service is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RightsSettings {
    /// robots.txt product tokens of AI crawlers: a group naming one that disallows a feed's
    /// path is the publisher objecting to AI crawlers (DFB2).
    pub ai_crawlers: Vec<String>,
    /// Whether the service is commercial: a non-commercial licence then permits no thumbnail
    /// (FF8).
    pub commercial_service: bool,
    /// Whether `X-Robots-Tag` and robots meta directives restrict what is kept (FF14:
    /// `nosnippet` keeps excerpts out).
    pub directives: bool,
    /// Whether one thumbnail is selected per entry with its licence decision (FF7, FF8).
    pub thumbnails: bool,
}

impl Default for RightsSettings {
    fn default() -> Self {
        RightsSettings {
            ai_crawlers: DEFAULT_AI_CRAWLERS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            commercial_service: false,
            directives: false,
            thumbnails: false,
        }
    }
}

/// The AI crawler tokens a profile lists unless it names its own: crawlers that gather text
/// for training or answering with language models, as their operators document them.
pub const DEFAULT_AI_CRAWLERS: &[&str] = &[
    "GPTBot",
    "ChatGPT-User",
    "OAI-SearchBot",
    "CCBot",
    "Google-Extended",
    "ClaudeBot",
    "Claude-Web",
    "anthropic-ai",
    "Applebot-Extended",
    "PerplexityBot",
    "Bytespider",
    "meta-externalagent",
    "cohere-ai",
    "Diffbot",
    "Omgilibot",
    "Amazonbot",
];

impl RightsSettings {
    pub fn validate(&self) -> Result<(), String> {
        let (_, bad) = crate::objection::ai_tokens(self.ai_crawlers.iter().map(String::as_str));
        match bad.first() {
            Some(name) => Err(format!(
                "rights.ai_crawlers: {name:?} is not a robots.txt product token"
            )),
            None => Ok(()),
        }
    }
}

/// What [`apply`] decided for a read, for its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The excerpt decision, when the profile keeps excerpts.
    pub excerpt: Option<Ruling>,
}

/// Remove from `parsed` what the profile does not keep. `objections` and `directives` are
/// the publisher's, for this feed (the caller passes no directives for a profile that does
/// not obey them): `nosnippet` keeps no summary, `max-snippet` cuts it, `noarchive` keeps no
/// content.
pub fn apply(
    parsed: &mut ParsedFeed,
    keep: &KeepSettings,
    objections: &[Objection],
    directives: &Directives,
) -> Kept {
    apply_with(parsed, keep, objections, &|_| None, directives)
}

/// [`apply`], with an objection that may bear on one entry only: robots.txt keeping AI
/// crawlers from the entry's own page (`entry_objection`, asked of each entry whose excerpt
/// would be kept).
pub fn apply_with(
    parsed: &mut ParsedFeed,
    keep: &KeepSettings,
    objections: &[Objection],
    entry_objection: &dyn Fn(&Entry) -> Option<Objection>,
    directives: &Directives,
) -> Kept {
    if keep.keeps_everything() && directives.is_empty() {
        return Kept { excerpt: None };
    }
    if !keep.images {
        let feed = &mut parsed.feed;
        feed.image = None;
        feed.icon = None;
        feed.thumbnails.clear();
    }
    let mut excerpt = None;
    for entry in &mut parsed.entries {
        let own = match (keep.summary, objections.is_empty()) {
            (SummaryKeep::Excerpt, true) => entry_objection(entry),
            _ => None,
        };
        let objections = match &own {
            Some(o) => std::slice::from_ref(o),
            None => objections,
        };
        if let Some(ruling) = keep_entry(entry, keep, objections, directives) {
            // One reason per read: the first entry's (they differ only in having a summary).
            excerpt.get_or_insert(ruling);
        }
    }
    Kept { excerpt }
}

fn keep_entry(
    entry: &mut Entry,
    keep: &KeepSettings,
    objections: &[Objection],
    directives: &Directives,
) -> Option<Ruling> {
    if !keep.content {
        entry.content = None;
    }
    if !keep.images {
        entry.thumbnails.clear();
        entry
            .enclosures
            .retain(|e| !is_image(e.media_type.as_deref(), None));
        entry
            .media
            .retain(|m| !is_image(m.media_type.as_deref(), m.medium.as_deref()));
    }
    if !keep.metadata {
        entry.authors.clear();
        entry.contributors.clear();
        entry.categories.clear();
        entry.keywords.clear();
        entry.comments = None;
        entry.rights = None;
        entry.license = None;
        entry.source = None;
        entry.links.clear();
        entry.enclosures.clear();
        entry.media.clear();
        entry.language = None;
        entry.duration = None;
        entry.explicit = None;
    }
    // FF14: no retained copy of the text under noarchive.
    if directives.noarchive {
        entry.content = None;
    }
    let most = match keep.summary {
        SummaryKeep::Excerpt => usize::try_from(keep.excerpt_max_chars).unwrap_or(usize::MAX),
        // A full summary is cut only by the publisher's own directives (FF14).
        SummaryKeep::Full if directives.nosnippet || directives.max_snippet.is_some() => {
            usize::try_from(directives.max_snippet.unwrap_or(0)).unwrap_or(usize::MAX)
        }
        SummaryKeep::Full => return None,
    };
    let objections = match keep.summary {
        SummaryKeep::Excerpt => objections,
        SummaryKeep::Full => &[],
    };
    // The text a reader sees, a little longer than the bound so the cut falls at a word
    // where it can.
    let text = entry
        .summary
        .as_deref()
        .map(|s| tidings_page::text(s, most.saturating_add(most / 5 + 1)));
    let (excerpt, ruling) = decide::excerpt(text.as_deref(), objections, directives, most);
    entry.summary = excerpt;
    Some(ruling)
}

/// Whether a media type or Media RSS `medium` names an image.
fn is_image(media_type: Option<&str>, medium: Option<&str>) -> bool {
    medium.is_some_and(|m| m.eq_ignore_ascii_case("image"))
        || media_type.is_some_and(|t| {
            t.trim()
                .get(..6)
                .is_some_and(|p| p.eq_ignore_ascii_case("image/"))
        })
}
