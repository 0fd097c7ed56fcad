//! The normalized feed: what `tidings-feed` produces from RSS, RDF, Atom and JSON Feed.
//!
//! Every field is optional or a possibly empty list: a feed that omits something is still a
//! feed. Text fields hold the text as the publisher sent it (HTML is sanitised only when it is
//! displayed). Dates are UTC and serialise as RFC 3339. The field names are the public output
//! of `tidings parse` and are documented in `docs/feed-model.md`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The syntax a document was recognised as, detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedFormat {
    /// RSS 0.90 in its own namespace (Netscape), or RDF 0.90.
    Rss090,
    /// RSS 0.91 (Netscape or UserLand).
    Rss091,
    Rss092,
    Rss093,
    Rss094,
    Rss20,
    /// `<rss>` with no version, or one we do not know; read as RSS 2.0.
    Rss,
    /// RSS 1.0 (RDF).
    Rss10,
    Atom03,
    Atom10,
    JsonFeed10,
    JsonFeed11,
    /// Microsoft's Channel Definition Format (a `CHANNEL` root with an `HREF`), from 1997.
    Cdf,
}

impl FeedFormat {
    /// A short stable name, e.g. `rss20`, `atom10`, `json_feed11`.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedFormat::Rss090 => "rss090",
            FeedFormat::Rss091 => "rss091",
            FeedFormat::Rss092 => "rss092",
            FeedFormat::Rss093 => "rss093",
            FeedFormat::Rss094 => "rss094",
            FeedFormat::Rss20 => "rss20",
            FeedFormat::Rss => "rss",
            FeedFormat::Rss10 => "rss10",
            FeedFormat::Atom03 => "atom03",
            FeedFormat::Atom10 => "atom10",
            FeedFormat::JsonFeed10 => "json_feed10",
            FeedFormat::JsonFeed11 => "json_feed11",
            FeedFormat::Cdf => "cdf",
        }
    }
}

/// A parsed document: its format, the feed-level metadata, the entries in document order and
/// everything the parser had to forgive on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedFeed {
    pub format: FeedFormat,
    pub feed: Feed,
    pub entries: Vec<Entry>,
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// Feed-level (channel) metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Feed {
    pub title: Option<String>,
    /// The main alternate (HTML) link of the site.
    pub link: Option<String>,
    pub links: Vec<Link>,
    pub description: Option<String>,
    pub language: Option<String>,
    pub updated: Option<DateTime<Utc>>,
    pub published: Option<DateTime<Utc>>,
    pub authors: Vec<Author>,
    pub contributors: Vec<Author>,
    /// URL of the feed's logo or image (RSS `image/url`, Atom `logo`, iTunes `image`).
    pub image: Option<String>,
    /// URL of a small icon (Atom `icon`, JSON Feed `favicon`).
    pub icon: Option<String>,
    pub categories: Vec<String>,
    pub rights: Option<String>,
    /// A licence URL (Creative Commons, `atom:link rel="license"`).
    pub license: Option<String>,
    /// WebSub hub URL.
    pub hub: Option<String>,
    /// The feed's own URL as the feed declares it (`atom:link rel="self"`, JSON `feed_url`).
    pub self_url: Option<String>,
    pub generator: Option<String>,
    /// RSS `ttl`, in minutes.
    pub ttl: Option<u32>,
    /// RSS `skipHours`, each 0..=23, sorted and deduplicated.
    pub skip_hours: Vec<u8>,
    /// RSS `skipDays`, English day names as found, capitalised (`Monday`).
    pub skip_days: Vec<String>,
    /// `sy:updatePeriod`: hourly, daily, weekly, monthly or yearly.
    pub update_period: Option<String>,
    /// `sy:updateFrequency`: how many times per period.
    pub update_frequency: Option<u32>,
    /// `sy:updateBase`.
    pub update_base: Option<DateTime<Utc>>,
    /// RSS `cloud`, as its attributes.
    pub cloud: Option<Cloud>,
    /// End of validity (`dcterms:valid` end=...), see FF16.
    pub expires: Option<DateTime<Utc>>,
    /// iTunes `explicit` when it is clearly yes or no.
    pub explicit: Option<bool>,
    /// Media RSS channel-level thumbnails, credits and licences.
    pub thumbnails: Vec<Thumbnail>,
    /// The one image selected for the feed and whether it may be shown (FF7, FF8): derived by
    /// tidings under the profile, never by the parser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_image: Option<SelectedImage>,
}

/// One item or entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Entry {
    /// The identity tidings derives for the entry, which the store keys it by (see
    /// `tidings_feed::identity` for the rule: the publisher's id, else the link, else a hash).
    /// Never empty after parsing.
    pub identity: String,
    /// The publisher's own id (RSS `guid`, RDF `rdf:about`, Atom `id`, JSON Feed `id`), exactly
    /// as found but trimmed; `None` when it wrote none.
    pub id: Option<String>,
    pub title: Option<String>,
    pub link: Option<String>,
    pub links: Vec<Link>,
    pub published: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    /// Short text: RSS `description`, Atom `summary`, JSON `summary`, iTunes `summary`.
    pub summary: Option<String>,
    /// Full content: `content:encoded`, Atom `content`, JSON `content_html`/`content_text`.
    pub content: Option<String>,
    /// The base the relative URLs inside `summary` and `content` are relative to when the
    /// document declared one for them (an `xml:base` in scope); without it, the entry's `link`
    /// serves ([`Entry::html_base`]).
    pub content_base: Option<String>,
    pub authors: Vec<Author>,
    pub contributors: Vec<Author>,
    pub categories: Vec<String>,
    /// RSS `enclosure`s and Atom `link rel="enclosure"`; Media RSS items are in `media`.
    pub enclosures: Vec<Enclosure>,
    /// Media RSS `media:content` (also inside `media:group`).
    pub media: Vec<MediaContent>,
    pub thumbnails: Vec<Thumbnail>,
    /// URL of the comments page (RSS `comments`).
    pub comments: Option<String>,
    pub rights: Option<String>,
    pub license: Option<String>,
    pub source: Option<Source>,
    /// End of validity (`dcterms:valid` end=...), see FF16.
    pub expires: Option<DateTime<Utc>>,
    pub language: Option<String>,
    /// iTunes duration in seconds.
    pub duration: Option<u64>,
    pub explicit: Option<bool>,
    /// Media RSS / iTunes keywords, split on commas and trimmed.
    pub keywords: Vec<String>,
    /// The one image selected for the entry and whether it may be shown (FF7, FF8): derived
    /// by tidings under the profile, never by the parser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_image: Option<SelectedImage>,
    /// Whether an excerpt of the summary was kept, and why (DFB2, FF14): derived by tidings
    /// under a profile that cuts what it keeps of a summary, never by the parser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt_decision: Option<crate::Ruling>,
}

impl Entry {
    /// The base for the relative URLs inside the entry's HTML: the one its document declared
    /// for it, else its link.
    pub fn html_base(&self) -> Option<&str> {
        self.content_base.as_deref().or(self.link.as_deref())
    }
}

/// The one image tidings selected for a feed or an entry (FF7) with what the publisher
/// declared of it, and whether its licence lets it be shown (FF8), with the reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelectedImage {
    pub url: String,
    /// Where it was found: `media:thumbnail`, `media:content`, `enclosure`, `img` (the
    /// entry's own HTML), `image` (a feed's channel image).
    pub source: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub credit: Option<String>,
    pub copyright: Option<String>,
    /// The licence declaration the decision rests on, as written.
    pub licence: Option<String>,
    pub shown: bool,
    pub why: String,
}

/// A typed link (`atom:link`, JSON Feed urls).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Link {
    pub href: String,
    /// `alternate` when the document gives none.
    pub rel: String,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub title: Option<String>,
    pub length: Option<u64>,
    pub hreflang: Option<String>,
}

/// A person: author, contributor, creator.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Author {
    pub name: Option<String>,
    pub email: Option<String>,
    pub uri: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Enclosure {
    pub url: String,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub length: Option<u64>,
}

/// A Media RSS `media:content`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MediaContent {
    pub url: Option<String>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    /// image, audio, video, document or executable.
    pub medium: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub file_size: Option<u64>,
    /// Seconds.
    pub duration: Option<u64>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub credit: Option<String>,
    pub copyright: Option<String>,
    pub license: Option<String>,
    pub categories: Vec<String>,
    pub keywords: Vec<String>,
}

/// An image offered as a thumbnail, with what the publisher said about its rights.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thumbnail {
    pub url: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub credit: Option<String>,
    pub copyright: Option<String>,
    pub license: Option<String>,
}

/// Where an entry came from when it was copied from another feed (RSS `source`, Atom `source`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Source {
    pub title: Option<String>,
    /// The source's site link.
    pub link: Option<String>,
    /// The source feed's URL (RSS `source url=`, Atom source `link rel="self"`).
    pub url: Option<String>,
}

/// RSS `cloud` (rssCloud notification endpoint).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cloud {
    pub domain: Option<String>,
    pub port: Option<u16>,
    pub path: Option<String>,
    pub register_procedure: Option<String>,
    pub protocol: Option<String>,
}

/// Something the parser forgave. A feed with warnings is still a good feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Warning {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

/// The closed set of things a parser may forgive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The declared or hinted encoding was wrong or unknown, or bytes were not valid in it.
    Encoding,
    /// Bytes before the root element were skipped.
    JunkBeforeRoot,
    /// Malformed XML was recovered from (mismatched tags, bad attributes, stray `&`).
    MalformedXml,
    /// The document ended before its root was closed; what was read is kept.
    Truncated,
    /// An entity that is neither XML's nor HTML's was kept as written.
    UnknownEntity,
    /// A prefix without a namespace declaration was resolved by its usual meaning.
    UndeclaredPrefix,
    /// A date could not be read; the field is left empty.
    InvalidDate,
    /// A number, URL or other value could not be read; the field is left empty.
    InvalidValue,
    /// A JSON value had the wrong type.
    WrongType,
    /// Two entries had the same identity and one was renamed.
    DuplicateId,
    /// A text longer than the caller's bound was cut to it at a character boundary.
    TextCut,
}
