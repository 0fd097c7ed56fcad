//! FF7, FF8: the one thumbnail selected for an entry or a feed, and whether it may be shown.
//!
//! Explicit thumbnails first (`media:thumbnail`), then images the item carries (`media:content`
//! that is an image, an image enclosure), then a bounded look at the entry's own HTML for its
//! first `<img>`. Nothing is fetched to collect this: no image file, no licence link. The
//! decision rests on the most specific licence declared: on the image, else on the entry,
//! else on the feed ([`crate::decide::thumbnail`]).

use crate::decide::{self, Declarations};
use tidings_model::{Entry, Feed, ParsedFeed, SelectedImage, Thumbnail};
use tidings_policy::profile::{KeepSettings, RightsSettings};
use url::Url;

/// Select every entry's thumbnail in `parsed` (replacing an earlier selection: every full
/// read decides again), each resolved against the entry's link, else the feed's, else
/// `feed_url`; nothing for a profile that selects none or keeps no images (DFB2).
pub fn select(
    parsed: &mut ParsedFeed,
    feed_url: Option<&Url>,
    rights: &RightsSettings,
    keep: &KeepSettings,
) {
    if !(rights.thumbnails && keep.images) {
        return;
    }
    parsed.feed.selected_image = for_feed(&parsed.feed, rights.commercial_service);
    let feed_base = parsed
        .feed
        .link
        .as_deref()
        .and_then(|l| Url::parse(l).ok())
        .or_else(|| feed_url.cloned());
    let feed_licence = parsed.feed.license.clone();
    for entry in &mut parsed.entries {
        let base = entry
            .link
            .as_deref()
            .and_then(|l| Url::parse(l).ok())
            .or_else(|| feed_base.clone());
        entry.selected_image = for_entry(entry, feed_licence.as_deref(), base.as_ref(), rights);
    }
}

/// Whether `entry` offers an image of its own (a thumbnail, an image medium or enclosure, an
/// `<img>` in the first `html_bytes` of its HTML): SR1 reads the article page only of an
/// entry that does not.
pub fn has_image(entry: &Entry, base: Option<&Url>, html_bytes: usize) -> bool {
    entry_candidate(entry, base, html_bytes).is_some()
}

/// SR1: the preview an article page offers: its `og:image` (the first, with what the page
/// declares of it), nothing else. A preview is the publisher's own choice for sharing the
/// page; no licence is read for it.
pub fn preview(page: &tidings_page::Page) -> Option<SelectedImage> {
    let image = page
        .images
        .iter()
        .find(|i| i.source == tidings_page::ImageSource::OpenGraph)?;
    Some(SelectedImage {
        url: image.url.to_string(),
        source: image.source.as_str().into(),
        width: image.width,
        height: image.height,
        media_type: image.mime.clone(),
        shown: true,
        why: "SR1: the og:image of the entry's article page".into(),
        ..SelectedImage::default()
    })
}

/// A candidate before the decision: the image and its own licence declaration.
struct Candidate {
    image: SelectedImage,
    own_licence: Option<String>,
}

/// The thumbnail of `entry` (whose feed declared `feed_licence`), resolved against `base`
/// (the entry's link, else the feed's), with the decision; `None` when it offers no image.
pub fn for_entry(
    entry: &Entry,
    feed_licence: Option<&str>,
    base: Option<&Url>,
    rights: &RightsSettings,
) -> Option<SelectedImage> {
    let html_bytes = usize::try_from(rights.thumbnail_html_bytes).unwrap_or(usize::MAX);
    let candidate = entry_candidate(entry, base, html_bytes)?;
    Some(decided(
        candidate,
        entry.license.as_deref(),
        feed_licence,
        rights.commercial_service,
    ))
}

/// The thumbnail of a feed: its own thumbnails first, then its channel image.
pub fn for_feed(feed: &Feed, commercial_service: bool) -> Option<SelectedImage> {
    let candidate = feed
        .thumbnails
        .iter()
        .find(|t| usable(&t.url))
        .map(from_thumbnail)
        .or_else(|| {
            feed.image
                .as_ref()
                .filter(|u| usable(u))
                .map(|url| Candidate {
                    image: SelectedImage {
                        url: url.clone(),
                        source: "image".into(),
                        ..SelectedImage::default()
                    },
                    own_licence: None,
                })
        })?;
    // A feed's image has no entry level between it and the feed's licence.
    Some(decided(
        candidate,
        None,
        feed.license.as_deref(),
        commercial_service,
    ))
}

fn entry_candidate(entry: &Entry, base: Option<&Url>, html_bytes: usize) -> Option<Candidate> {
    if let Some(t) = entry.thumbnails.iter().find(|t| usable(&t.url)) {
        return Some(from_thumbnail(t));
    }
    let is_image = |medium: Option<&str>, kind: Option<&str>| {
        medium.is_some_and(|m| m.eq_ignore_ascii_case("image"))
            || kind.is_some_and(|t| t.trim().to_ascii_lowercase().starts_with("image/"))
    };
    if let Some(m) = entry.media.iter().find(|m| {
        is_image(m.medium.as_deref(), m.media_type.as_deref())
            && m.url.as_deref().is_some_and(usable)
    }) {
        return Some(Candidate {
            image: SelectedImage {
                url: m.url.clone().unwrap_or_default(),
                source: "media:content".into(),
                width: m.width,
                height: m.height,
                media_type: m.media_type.clone(),
                ..SelectedImage::default()
            },
            own_licence: None,
        });
    }
    if let Some(e) = entry
        .enclosures
        .iter()
        .find(|e| is_image(None, e.media_type.as_deref()) && usable(&e.url))
    {
        return Some(Candidate {
            image: SelectedImage {
                url: e.url.clone(),
                source: "enclosure".into(),
                media_type: e.media_type.clone(),
                ..SelectedImage::default()
            },
            own_licence: None,
        });
    }
    let base = base?;
    let html = entry.content.as_deref().or(entry.summary.as_deref())?;
    let img = tidings_page::first_image(html, base, html_bytes)?;
    Some(Candidate {
        image: SelectedImage {
            url: img.url.to_string(),
            source: "img".into(),
            width: img.width,
            height: img.height,
            ..SelectedImage::default()
        },
        own_licence: None,
    })
}

/// A declared thumbnail as a candidate, with what it says of itself.
fn from_thumbnail(t: &Thumbnail) -> Candidate {
    Candidate {
        image: SelectedImage {
            url: t.url.clone(),
            source: "media:thumbnail".into(),
            width: t.width,
            height: t.height,
            media_type: t.media_type.clone(),
            credit: t.credit.clone(),
            copyright: t.copyright.clone(),
            ..SelectedImage::default()
        },
        own_licence: t.license.clone(),
    }
}

/// Whether a declared URL is one we could show: an absolute http(s) URL.
fn usable(url: &str) -> bool {
    Url::parse(url.trim()).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
}

fn decided(
    candidate: Candidate,
    entry_licence: Option<&str>,
    feed_licence: Option<&str>,
    commercial_service: bool,
) -> SelectedImage {
    let own: Vec<&str> = candidate.own_licence.as_deref().into_iter().collect();
    let entry: Vec<&str> = entry_licence.into_iter().collect();
    let feed: Vec<&str> = feed_licence.into_iter().collect();
    let ruling = decide::thumbnail(
        &Declarations {
            image: &own,
            entry: &entry,
            feed: &feed,
        },
        commercial_service,
    );
    let licence = own.first().or(entry.first()).or(feed.first());
    SelectedImage {
        licence: licence.map(|l| (*l).to_owned()),
        shown: ruling.allowed,
        why: ruling.reason,
        ..candidate.image
    }
}
