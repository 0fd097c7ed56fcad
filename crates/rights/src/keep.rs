//! What of each entry is stored (DFB2): the one function that applies a profile's `[keep]`
//! (`tidings_policy::profile::KeepSettings`) to a parsed feed before anything reaches the
//! store.
//!
//! What is not kept is removed here, so it never reaches the store, the API or the exports.

use crate::decide::{self, Ruling};
use crate::directive::Directives;
use crate::objection::Objection;
use tidings_model::{Entry, ParsedFeed};
use tidings_policy::profile::{KeepSettings, SummaryKeep};

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
    if !decide::retain_entry_text(directives).allowed {
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
    entry.excerpt_decision = Some(ruling.clone());
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
