//! The decisions: what of an entry or a page may be kept, shown and used, each with its
//! reason, as the schedule gives a reason for each next fetch.

use crate::directive::Directives;
use crate::licence::Licence;
use crate::objection::Objection;

pub use tidings_model::Ruling;

/// DFB2: the excerpt that may be stored of an entry, from the summary the feed supplies (as
/// plain text): at most `max_chars` characters (an ellipsis marks a cut), none when the
/// publisher objects to AI crawlers or to text and data mining, none under `nosnippet`.
pub fn excerpt(
    supplied: Option<&str>,
    objections: &[Objection],
    directives: &Directives,
    max_chars: usize,
) -> (Option<String>, Ruling) {
    let text = supplied.map(str::trim).filter(|t| !t.is_empty());
    let Some(text) = text else {
        return (None, Ruling::no("the feed supplies no excerpt"));
    };
    if let Some(objection) = objections.first() {
        return (
            None,
            Ruling::no(format!("the publisher objects: {objection}")),
        );
    }
    let Some(most) = directives.excerpt_chars(max_chars) else {
        return (None, Ruling::no(format!("directives: {directives}")));
    };
    let kept = cut(text, most);
    let reason = if kept.len() == text.len() {
        format!("supplied by the feed, {} characters", kept.chars().count())
    } else {
        format!("supplied by the feed, cut to {most} characters")
    };
    (Some(kept), Ruling::yes(reason))
}

/// `text` in at most `most` characters, an ellipsis in the last place when it is cut, at a
/// space when there is one in the last fifth.
fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_owned();
    }
    let room = most.saturating_sub(1);
    let end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if head[space..].chars().count() <= most / 5 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

/// The licence declarations that bear on one image, most specific first (FF8).
#[derive(Debug, Clone, Copy, Default)]
pub struct Declarations<'a> {
    /// Declared on the image itself (`media:license`, a credit element's licence).
    pub image: &'a [&'a str],
    /// Declared on the entry (`cc:license`, `creativeCommons:license`, `rel=license`).
    pub entry: &'a [&'a str],
    /// Declared on the feed, inherited unless the entry or the image declares its own.
    pub feed: &'a [&'a str],
}

/// FF8: whether a thumbnail may be shown, from the most specific level that declares a
/// licence. Shown only under a recognised licence permitting redistribution (a
/// non-commercial one only when the service is not commercial); unrecognised stays hidden.
/// We never resize (FF9), so a no-derivatives licence is kept by showing the image as it is.
pub fn thumbnail(declared: &Declarations<'_>, commercial_service: bool) -> Ruling {
    let levels = [
        ("the image", declared.image),
        ("the entry", declared.entry),
        ("the feed", declared.feed),
    ];
    let Some((level, texts)) = levels.into_iter().find(|(_, texts)| !texts.is_empty()) else {
        return Ruling::no("no licence declared");
    };
    let recognised: Vec<Licence> = texts.iter().filter_map(|t| Licence::recognise(t)).collect();
    if recognised.is_empty() {
        return Ruling::no(format!("licence declared by {level} not recognised"));
    }
    // Under several licences the user may choose any one (dual licensing).
    let usable = recognised.iter().find(|l| {
        let p = l.permits();
        p.redistribution && (p.commercial || !commercial_service)
    });
    match usable {
        Some(licence) => {
            let unmodified = if licence.permits().derivatives {
                ""
            } else {
                ", shown unmodified"
            };
            Ruling::yes(format!("{licence} declared by {level}{unmodified}"))
        }
        None => {
            let licence = &recognised[0];
            let why = if licence.permits().redistribution {
                "is non-commercial and this service is commercial"
            } else {
                "does not permit redistribution"
            };
            Ruling::no(format!("{licence} declared by {level} {why}"))
        }
    }
}

/// FF14: whether the text of a resource may be indexed for search.
pub fn index_text(directives: &Directives) -> Ruling {
    if directives.noindex {
        Ruling::no("noindex")
    } else {
        Ruling::yes("no noindex directive")
    }
}

/// FF14: whether links found in a resource may be followed for discovery.
pub fn follow_links(directives: &Directives) -> Ruling {
    if directives.nofollow {
        Ruling::no("nofollow")
    } else {
        Ruling::yes("no nofollow directive")
    }
}

/// FF14: whether an entry's full text may be kept (`noarchive` keeps no retained copy).
pub fn retain_entry_text(directives: &Directives) -> Ruling {
    if directives.noarchive {
        Ruling::no("noarchive")
    } else {
        Ruling::yes("no noarchive directive")
    }
}

/// FF6, FF14: whether the text of an inspected page may be kept. It needs the operator's
/// explicit permission (off by default) and no `noarchive`.
pub fn retain_page_text(directives: &Directives, permitted_by_operator: bool) -> Ruling {
    if !permitted_by_operator {
        Ruling::no("page text is kept only with the operator's explicit permission")
    } else if directives.noarchive {
        Ruling::no("noarchive")
    } else {
        Ruling::yes("permitted by the operator, no noarchive directive")
    }
}

/// Files some publishers write for AI agents, which are never read as permissions or
/// instructions (FF15); a request for one is a violation the auditor reports.
pub const NEVER_READ: &[&str] = &[
    "/llms.txt",
    "/llms-full.txt",
    "/ai.txt",
    "/.well-known/ai.txt",
    "/agents.md",
];

/// Whether a path is one of [`NEVER_READ`] (case ignored, query and fragment dropped).
pub fn never_read(path_and_query: &str) -> bool {
    let path = path_and_query
        .split(['?', '#'])
        .next()
        .unwrap_or(path_and_query);
    NEVER_READ.iter().any(|p| path.eq_ignore_ascii_case(p))
}
