//! Accumulators: one feed or entry being filled from several competing elements.
//!
//! Many fields have more than one source (`description`, `itunes:summary`, `dc:description`
//! all offer a summary). Each source offers its value with a rank; the lowest rank wins, and
//! the first offer among equals. `finish` turns the accumulator into the model.

use chrono::{DateTime, Utc};
use tidings_model::{Author, Entry, Feed, Link};

/// Primary source: the format's own element.
pub(crate) const PRIMARY: u8 = 0;
/// A well-known alternative (Dublin Core, `atom:link` in RSS).
pub(crate) const SECONDARY: u8 = 1;
/// A last resort (iTunes, Media RSS, `xml:lang`).
pub(crate) const FALLBACK: u8 = 2;

/// A value offered by several elements.
#[derive(Debug)]
pub(crate) struct Pick<T> {
    rank: u8,
    val: Option<T>,
}

impl<T> Default for Pick<T> {
    fn default() -> Self {
        Pick { rank: 0, val: None }
    }
}

impl<T> Pick<T> {
    pub(crate) fn offer(&mut self, rank: u8, val: Option<T>) {
        if let Some(v) = val
            && (self.val.is_none() || rank < self.rank)
        {
            self.rank = rank;
            self.val = Some(v);
        }
    }

    /// Like [`Pick::offer`], but a later value of the same rank replaces an earlier one (the
    /// last alternate link wins, as in feedparser).
    pub(crate) fn offer_last(&mut self, rank: u8, val: Option<T>) {
        if let Some(v) = val
            && (self.val.is_none() || rank <= self.rank)
        {
            self.rank = rank;
            self.val = Some(v);
        }
    }

    pub(crate) fn is_set(&self) -> bool {
        self.val.is_some()
    }

    pub(crate) fn take(self) -> Option<T> {
        self.val
    }
}

/// Fields shared by feeds and entries that have several sources.
#[derive(Debug, Default)]
pub(crate) struct Common {
    pub(crate) title: Pick<String>,
    pub(crate) link: Pick<String>,
    pub(crate) summary: Pick<String>,
    pub(crate) updated: Pick<DateTime<Utc>>,
    pub(crate) published: Pick<DateTime<Utc>>,
    pub(crate) language: Pick<String>,
    pub(crate) rights: Pick<String>,
    pub(crate) license: Pick<String>,
    pub(crate) expires: Pick<DateTime<Utc>>,
    /// Authors used only when no primary author was found (`itunes:author`).
    pub(crate) fallback_authors: Vec<Author>,
}

/// A feed being filled, in place: the caller's [`Feed`] (a large value, so it is never moved).
#[derive(Debug)]
pub(crate) struct FeedAcc<'f> {
    pub(crate) f: &'f mut Feed,
    pub(crate) c: Common,
    pub(crate) image: Pick<String>,
    /// The podcast's owner (`itunes:owner`): the feed's author when nothing else names one.
    pub(crate) owner: Option<Author>,
}

/// An entry being filled, in place: the [`Entry`] it was made for (a large value, so it is
/// never moved).
///
/// Summary and content follow feedparser's order-dependent rule, because they have many
/// sources: the first summary-like element is the summary; a later one, while the entry has no
/// content yet, is the content; content seen before any summary is the summary too; a summary
/// after content replaces that copy.
#[derive(Debug)]
pub(crate) struct EntryAcc<'e> {
    pub(crate) e: &'e mut Entry,
    pub(crate) c: Common,
    summary: Option<String>,
    content: Option<String>,
    summary_seen: bool,
    content_seen: bool,
}

/// Whether an entry holds anything read from the document (the language alone, inherited
/// from above, does not count): a truncated last item without data is dropped.
pub(crate) fn has_data(e: &Entry) -> bool {
    e.id.is_some()
        || e.title.is_some()
        || e.link.is_some()
        || e.summary.is_some()
        || e.content.is_some()
        || e.published.is_some()
        || e.updated.is_some()
        || !e.authors.is_empty()
        || !e.categories.is_empty()
        || !e.enclosures.is_empty()
        || !e.media.is_empty()
        || !e.thumbnails.is_empty()
}

/// The authors, else the fallback ones (`itunes:author`). An RSS `author` often gives only an
/// email while another element (`dc:creator`, `itunes:author`) names the person: when the
/// first author has an email and no name, the first name-only author found after it (or among
/// the fallbacks) is taken as that person's name, and merged into one author, as feedparser
/// merges them.
fn merge_authors(mut authors: Vec<Author>, fallback: Vec<Author>) -> Vec<Author> {
    if authors.is_empty() {
        return fallback;
    }
    let nameless = authors
        .first()
        .is_some_and(|a| a.name.is_none() && a.email.is_some());
    if !nameless {
        return authors;
    }
    let name_only = |a: &Author| a.name.is_some() && a.email.is_none() && a.uri.is_none();
    if let Some(at) = authors.iter().skip(1).position(name_only) {
        let named = authors.remove(at + 1);
        if let Some(first) = authors.first_mut() {
            first.name = named.name;
        }
    } else if let Some(named) = fallback.into_iter().find(name_only)
        && let Some(first) = authors.first_mut()
    {
        first.name = named.name;
    }
    authors
}

/// Remove repeated values, keeping the first of each.
fn dedup(list: &mut Vec<String>) {
    if list.len() > 1 {
        let mut seen = Vec::with_capacity(list.len());
        list.retain(|v| {
            if seen.contains(v) {
                false
            } else {
                seen.push(v.clone());
                true
            }
        });
    }
}

/// Add a link, skipping exact duplicates.
pub(crate) fn push_link(links: &mut Vec<Link>, link: Link) {
    if !links
        .iter()
        .any(|l| l.href == link.href && l.rel == link.rel)
    {
        links.push(link);
    }
}

impl<'f> FeedAcc<'f> {
    /// An accumulator filling `f`, which should be empty.
    pub(crate) fn new(f: &'f mut Feed) -> Self {
        FeedAcc {
            f,
            c: Common::default(),
            image: Pick::default(),
            owner: None,
        }
    }

    /// Write the picks into the feed.
    pub(crate) fn finish(self) {
        let FeedAcc { f, c, image, owner } = self;
        f.title = c.title.take();
        f.link = c.link.take();
        f.description = c.summary.take();
        f.updated = c.updated.take();
        f.published = c.published.take();
        f.language = c.language.take();
        f.rights = c.rights.take();
        f.license = c.license.take();
        f.expires = c.expires.take();
        f.image = image.take();
        f.authors = merge_authors(std::mem::take(&mut f.authors), c.fallback_authors);
        if f.authors.is_empty() {
            f.authors.extend(owner);
        }
        dedup(&mut f.categories);
        f.skip_hours.sort_unstable();
        f.skip_hours.dedup();
    }
}

impl<'e> EntryAcc<'e> {
    /// An accumulator filling `e`, which should be empty.
    pub(crate) fn new(e: &'e mut Entry) -> Self {
        EntryAcc {
            e,
            c: Common::default(),
            summary: None,
            content: None,
            summary_seen: false,
            content_seen: false,
        }
    }

    /// A summary-like element: `description`, `summary`, `itunes:summary`, `dc:description`.
    pub(crate) fn add_summary(&mut self, value: Option<String>) {
        let Some(v) = value else {
            return;
        };
        if self.summary_seen && !self.content_seen {
            self.content_seen = true;
            self.content = Some(v);
        } else {
            self.summary_seen = true;
            self.summary = Some(v);
        }
    }

    /// Start as if a content element had been seen: later summary-like elements replace the
    /// summary instead of becoming the content (feedparser state carried in from the channel).
    pub(crate) fn assume_content_seen(&mut self) {
        self.content_seen = true;
    }

    /// The `xml:base` in scope for the entry's summary or content, the first one met.
    pub(crate) fn note_content_base(&mut self, base: Option<&url::Url>) {
        if self.e.content_base.is_none() {
            self.e.content_base = base.map(url::Url::to_string);
        }
    }

    /// A content element: `content:encoded`, Atom `content`.
    pub(crate) fn add_content(&mut self, value: Option<String>) {
        let Some(v) = value else {
            return;
        };
        self.content_seen = true;
        if !self.summary_seen {
            self.summary_seen = true;
            self.summary = Some(v.clone());
        }
        if self.content.is_none() {
            self.content = Some(v);
        }
    }

    /// Write the picks into the entry.
    pub(crate) fn finish(self) {
        let EntryAcc {
            e,
            c,
            summary,
            content,
            ..
        } = self;
        e.title = c.title.take();
        e.link = c.link.take();
        e.summary = summary
            .or_else(|| c.summary.take())
            .or_else(|| e.media.iter().find_map(|m| m.description.clone()));
        e.content = content;
        // Categories are every tag the entry carries, as feedparser's tags are: its own
        // categories, then its keywords and those of its media (each list also kept apart).
        let media_tags: Vec<String> = e
            .media
            .iter()
            .flat_map(|m| m.categories.iter().chain(&m.keywords))
            .cloned()
            .collect();
        e.categories.extend(e.keywords.iter().cloned());
        e.categories.extend(media_tags);
        dedup(&mut e.categories);
        e.updated = c.updated.take();
        e.published = c.published.take();
        e.language = c.language.take();
        e.rights = c.rights.take();
        e.license = c.license.take();
        e.expires = c.expires.take();
        e.authors = merge_authors(std::mem::take(&mut e.authors), c.fallback_authors);
    }
}
