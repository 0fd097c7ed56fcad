//! The JSON shapes of API v1. They are built from the store's values here and nowhere else, so
//! a change inside tidings does not change what clients read.

use crate::ui::content::sanitise_outbound;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tidings_model::web_url;
use tidings_store::{FeedRecord, RequestLogRow, RobotsCache, StoredBlock, StoredEntry};
use utoipa::ToSchema;

/// `GET /v1/feeds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FeedList {
    pub feeds: Vec<Feed>,
}

/// One feed: what it is, whether and when it is read next, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Feed {
    pub id: i64,
    /// The URL read now (after a permanent redirect was followed, it differs from
    /// `original_url`).
    pub url: String,
    pub original_url: String,
    pub title: Option<String>,
    pub site_link: Option<String>,
    /// `active`, `paused`, `off` or `removed`.
    pub state: String,
    /// Why the feed is paused, off or removed.
    pub state_reason: Option<String>,
    pub next_fetch_at: DateTime<Utc>,
    /// Why `next_fetch_at` is what it is ("interval 1h", "Retry-After 3600s", ...).
    pub next_fetch_reason: String,
    pub interval_secs: i64,
    pub last_fetch_at: Option<DateTime<Utc>>,
    /// The HTTP status of the last read, when an answer came.
    pub last_status: Option<i32>,
    /// How the last read ended (`ok`, `not_modified`, `timeout`, ...).
    pub last_outcome: Option<String>,
    pub consecutive_failures: i32,
    pub subscribers: i64,
    /// Which validators are stored (their values are the publisher's, echoed only to it).
    pub validators: ValidatorsPresent,
    pub counters: Counters,
    pub created_at: DateTime<Utc>,
    /// The feed's own `dcterms:valid` end (FF16): after it, its entries leave current views.
    pub expires: Option<DateTime<Utc>>,
    /// The local address an operator assigned to this feed's requests, if any.
    pub egress: Option<String>,
    /// What an operator set for this feed in place of the profile's values.
    pub overrides: Overrides,
    /// Each address the feed was read from (`default`: the system's own) and whether its
    /// latest answer was a refusal; refused from every one of two or more, the feed is off (WFM8).
    pub egress_refusals: std::collections::BTreeMap<String, bool>,
    /// The directives in force on the feed, as its responses' `X-Robots-Tag` gave them for
    /// this bot under a profile that obeys them (FF14), such as `noindex, nosnippet`; empty
    /// when none are. Their history: `GET /v1/feeds/{id}/directives`.
    pub directives: String,
    /// What those directives permit, each with its reason.
    pub decisions: FeedDecisions,
    /// The one thumbnail selected for the feed under the profile, with whether its licence
    /// lets it be shown and why (FF7, FF8); `null` when none was selected.
    pub image: Option<Image>,
    /// The path on this server that serves the feed's site icon (SR1), when tidings keeps
    /// one; `null` otherwise. The publisher is never asked for it by a reader's browser.
    pub icon: Option<String>,
}

/// `GET /v1/feeds/{id}/websub`: a feed's WebSub subscription, `null` when it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FeedWebSub {
    pub subscription: Option<WebSubscription>,
}

/// A feed's WebSub subscription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WebSubscription {
    /// The hub the feed names.
    pub hub: String,
    /// What the hub knows the feed as: its `rel="self"` URL, else the URL read.
    pub topic: String,
    /// `requested` (asked, not verified yet), `live` (the hub pushes until `lease_until`),
    /// `denied` (the hub refused) or `failed` (the request was not accepted).
    pub state: String,
    /// When the hub was last asked.
    pub requested_at: DateTime<Utc>,
    /// When the verified lease ends; it is renewed by a read before then.
    pub lease_until: Option<DateTime<Utc>>,
    /// Why it is denied or failed.
    pub reason: Option<String>,
    /// Pushes stored.
    pub pushes: i64,
    pub last_push_at: Option<DateTime<Utc>>,
}

impl From<&tidings_store::WebSubRecord> for WebSubscription {
    fn from(r: &tidings_store::WebSubRecord) -> WebSubscription {
        WebSubscription {
            hub: r.hub.clone(),
            topic: r.topic.clone(),
            state: r.state.as_str().to_owned(),
            requested_at: r.requested_at,
            lease_until: r.lease_until,
            reason: r.reason.clone(),
            pushes: r.pushes,
            last_push_at: r.last_push_at,
        }
    }
}

/// `GET /v1/feeds/{id}/directives`: each change of a feed's directives, newest first (FF14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DirectiveHistory {
    pub changes: Vec<DirectiveChange>,
}

/// One change of a feed's directives and the response that brought it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DirectiveChange {
    pub at: DateTime<Utc>,
    /// What the response said (empty: nothing).
    pub seen: String,
    /// The feed's directives after it (empty: none).
    pub current: String,
    /// A full response, which replaces them; `false`: a 304, which may only add.
    pub full_response: bool,
}

impl From<&tidings_store::DirectiveRecord> for DirectiveChange {
    fn from(r: &tidings_store::DirectiveRecord) -> DirectiveChange {
        DirectiveChange {
            at: r.at,
            seen: r.seen.to_words(),
            current: r.current.to_words(),
            full_response: r.full,
        }
    }
}

/// An operator's settings for one feed (`PATCH /v1/feeds/{id}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Overrides {
    /// A fixed refresh interval in seconds instead of the one learned from the feed.
    pub interval_secs: Option<u64>,
}

/// The body of `PATCH /v1/feeds/{id}`: each field present changes that part, `null` clears
/// `interval_secs` and `egress`; unknown fields are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1)]
pub struct FeedChange {
    /// `true` pauses the feed; `false` resumes a paused or switched-off feed (read at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// A fixed refresh interval in seconds, within the profile's bounds; `null` goes back to
    /// the learned one.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0)]
    pub interval_secs: Option<Option<u64>>,
    /// The local IP address to send this feed's requests from; `null` goes back to the default.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<String>)]
    pub egress: Option<Option<String>>,
}

/// A field that is present: `Some(None)` for `null`, so that absent and `null` differ.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Whether an ETag and a Last-Modified are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ValidatorsPresent {
    pub etag: bool,
    pub last_modified: bool,
}

/// Reads of a feed since it was added, by outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Counters {
    pub fetches: i64,
    pub ok: i64,
    pub not_modified: i64,
    pub errors: i64,
}

impl From<&FeedRecord> for Feed {
    fn from(f: &FeedRecord) -> Feed {
        Feed {
            id: f.id.0,
            url: f.url.as_str().to_owned(),
            original_url: f.original_url.clone(),
            title: f.title.clone(),
            site_link: f.site_link.as_deref().and_then(web_url),
            state: f.state.as_str().to_owned(),
            state_reason: f.state_reason.clone(),
            next_fetch_at: f.next_fetch_at,
            next_fetch_reason: f.next_fetch_reason.clone(),
            interval_secs: f.interval_secs,
            last_fetch_at: f.last_fetch_at,
            last_status: f.last_status,
            last_outcome: f.last_outcome.map(|l| l.as_str().to_owned()),
            consecutive_failures: f.consecutive_failures,
            subscribers: f.subscribers,
            validators: ValidatorsPresent {
                etag: f.validators.etag.is_some(),
                last_modified: f.validators.last_modified.is_some(),
            },
            counters: Counters {
                fetches: f.counters.fetches,
                ok: f.counters.ok,
                not_modified: f.counters.not_modified,
                errors: f.counters.errors,
            },
            created_at: f.created_at,
            expires: f.expires,
            egress: f.egress.clone(),
            overrides: Overrides {
                interval_secs: f.overrides.interval_secs,
            },
            egress_refusals: f.egress_refusals.clone(),
            directives: f.directives.to_words(),
            decisions: FeedDecisions {
                index: tidings_rights::decide::index_text(&f.directives).into(),
                archive: tidings_rights::decide::retain_entry_text(&f.directives).into(),
            },
            image: f.thumbnail.as_ref().and_then(Image::web),
            icon: None,
        }
    }
}

/// `GET /v1/entries`: one page, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EntryPage {
    pub entries: Vec<Entry>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// One stored entry. Text fields are the publisher's; `summary` and `content` are HTML,
/// sanitised (no scripts, styles, event handlers, frames or forms, only http, https and mailto
/// URLs, relative ones resolved against the `xml:base` the document declared for them, else the
/// entry's link).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Entry {
    /// The entry's id in tidings.
    pub id: i64,
    pub feed_id: i64,
    /// The entry's stable identity within its feed.
    pub key: String,
    /// The publisher's own id (`guid`, `id`), when it gave one.
    pub guid: Option<String>,
    pub title: Option<String>,
    pub link: Option<String>,
    pub summary: Option<String>,
    pub content: Option<String>,
    pub authors: Vec<Author>,
    pub contributors: Vec<Author>,
    pub categories: Vec<String>,
    /// Media RSS and iTunes keywords.
    pub keywords: Vec<String>,
    /// Where the entry came from when the publisher copied it from another feed.
    pub source: Option<Source>,
    /// The publisher's rights statement, as written (never read as a permission, FF15).
    pub rights: Option<String>,
    /// The licence the publisher declared for the entry, as written.
    pub licence: Option<String>,
    pub enclosures: Vec<Enclosure>,
    /// The one image selected for the entry under the profile, with whether its licence lets
    /// it be shown and why (FF7, FF8); `null` when none was selected.
    pub image: Option<Image>,
    /// The preview image the entry's article page names (`og:image`), read once for an entry
    /// without an image of its own under a profile that reads article pages (SR1); `null`
    /// until read, or when the page names none. tidings holds no copy of it.
    pub preview: Option<Image>,
    /// Whether an excerpt of the summary was kept and why, under a profile that keeps
    /// excerpts or a feed whose directives limit snippets (DFB2, FF14): the publisher's AI or
    /// text-and-data-mining objection, `nosnippet`, or the excerpt's length. `null` when the
    /// summary is kept as supplied.
    pub excerpt: Option<Decision>,
    /// What tidings recorded of the entry's article page when it read it (FF6): its
    /// metadata, licence and terms links and directives; never its text. `null` until read.
    pub page: Option<PageRecord>,
    pub published: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    /// The listing order: `published`, else `updated`, else `first_seen_at`, never later
    /// than `first_seen_at`.
    pub sort_at: DateTime<Utc>,
    pub first_seen_at: DateTime<Utc>,
    /// When tidings last saw its content change.
    pub changed_at: DateTime<Utc>,
}

/// The feed an entry was copied from (RSS and Atom `source`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Source {
    pub title: Option<String>,
    /// The source's site.
    pub link: Option<String>,
    /// The source feed's URL.
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Author {
    pub name: Option<String>,
    pub email: Option<String>,
    pub uri: Option<String>,
}

/// A permission decision and its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Decision {
    pub allowed: bool,
    pub why: String,
}

impl From<tidings_rights::Ruling> for Decision {
    fn from(r: tidings_rights::Ruling) -> Decision {
        Decision {
            allowed: r.allowed,
            why: r.reason,
        }
    }
}

/// What the feed's directives in force permit of its entries (FF14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FeedDecisions {
    /// Whether its entries are in search (`noindex` keeps them out).
    pub index: Decision,
    /// Whether its entries' full text is kept (`noarchive` keeps none).
    pub archive: Decision,
}

/// What was recorded of an inspected page (FF6). Plain text and absolute URLs as the page
/// declared them, bounded in length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PageRecord {
    pub title: Option<String>,
    pub description: Option<String>,
    pub language: Option<String>,
    /// `rel=license` links.
    pub licences: Vec<String>,
    /// Terms-of-use links.
    pub terms: Vec<String>,
    /// The page's directives for this bot (`noindex, nosnippet`), from its `<meta>` tags and
    /// `X-Robots-Tag` headers, written as a feed's are; empty when none.
    pub directives: String,
    /// A TDMRep reservation the page declares (`1`: text and data mining rights reserved).
    pub tdm_reservation: Option<String>,
    /// The page filled the bytes read and may go on.
    pub truncated: bool,
}

impl From<&tidings_rights::PageRecord> for PageRecord {
    fn from(r: &tidings_rights::PageRecord) -> PageRecord {
        PageRecord {
            title: r.title.clone(),
            description: r.description.clone(),
            language: r.language.clone(),
            licences: r.licences.clone(),
            terms: r.terms.clone(),
            directives: r.directives.to_words(),
            tdm_reservation: r.tdm_reservation.clone(),
            truncated: r.truncated,
        }
    }
}

/// An entry's selected image (FF7) and the licence decision on it (FF8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Image {
    /// The publisher's image URL, as declared.
    pub url: String,
    /// Where it was found: `media:thumbnail`, `media:content`, `enclosure`, `img`.
    pub source: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub credit: Option<String>,
    pub copyright: Option<String>,
    /// The licence declaration the decision rests on, as written.
    pub licence: Option<String>,
    /// Whether the licence lets it be shown.
    pub shown: bool,
    /// Why it may or may not be shown.
    pub why: String,
    /// The path on this server that serves tidings' own copy (FF9): set when the profile
    /// caches images, the decision shows it and a copy is held; `null` otherwise.
    pub cached: Option<String>,
}

impl Image {
    /// The image when its URL is an http(s) one (a `data:` or `javascript:` URL never leaves).
    fn web(image: &tidings_model::SelectedImage) -> Option<Image> {
        web_url(&image.url).map(|url| Image {
            url,
            ..Image::from(image)
        })
    }
}

impl From<&tidings_model::SelectedImage> for Image {
    fn from(i: &tidings_model::SelectedImage) -> Image {
        Image {
            url: i.url.clone(),
            source: i.source.clone(),
            width: i.width,
            height: i.height,
            media_type: i.media_type.clone(),
            credit: i.credit.clone(),
            copyright: i.copyright.clone(),
            licence: i.licence.clone(),
            shown: i.shown,
            why: i.why.clone(),
            cached: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Enclosure {
    pub url: String,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
    pub length: Option<u64>,
}

impl From<&tidings_model::Author> for Author {
    fn from(a: &tidings_model::Author) -> Author {
        Author {
            name: a.name.clone(),
            email: a.email.clone(),
            uri: a.uri.as_deref().and_then(web_url),
        }
    }
}

impl From<&StoredEntry> for Entry {
    fn from(s: &StoredEntry) -> Entry {
        let e = &s.entry;
        Entry {
            id: s.id,
            feed_id: s.feed_id.0,
            key: e.identity.clone(),
            guid: e.id.clone(),
            title: e.title.clone(),
            link: e.link.as_deref().and_then(web_url),
            summary: e
                .summary
                .as_deref()
                .map(|h| sanitise_outbound(h, e.html_base())),
            content: e
                .content
                .as_deref()
                .map(|h| sanitise_outbound(h, e.html_base())),
            authors: e.authors.iter().map(Author::from).collect(),
            contributors: e.contributors.iter().map(Author::from).collect(),
            categories: e.categories.clone(),
            keywords: e.keywords.clone(),
            source: e.source.as_ref().map(|s| Source {
                title: s.title.clone(),
                link: s.link.as_deref().and_then(web_url),
                url: s.url.as_deref().and_then(web_url),
            }),
            rights: e.rights.clone(),
            licence: e.license.clone(),
            enclosures: e
                .enclosures
                .iter()
                .filter_map(|x| {
                    Some(Enclosure {
                        url: web_url(&x.url)?,
                        media_type: x.media_type.clone(),
                        length: x.length,
                    })
                })
                .collect(),
            image: e.selected_image.as_ref().and_then(Image::web),
            preview: s.preview.as_ref().and_then(Image::web),
            page: s.page.as_ref().map(PageRecord::from),
            excerpt: e.excerpt_decision.clone().map(Decision::from),
            published: e.published,
            updated: e.updated,
            sort_at: s.sort_at,
            first_seen_at: s.first_seen_at,
            changed_at: s.updated_at,
        }
    }
}

/// The body of `POST /v1/feeds`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Subscribe {
    /// The feed's URL: http or https, with a host, without user name or password. The pattern
    /// is the usual shape of one (a host name, no punycode, at most a 4-digit port); other
    /// valid URLs, such as an IP address, are taken too.
    #[schema(
        pattern = r"^[Hh][Tt][Tt][Pp][Ss]?://(?![^/]*[Xx][Nn]--)([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/[!-~]*)?$",
        example = "https://example.org/feed.xml"
    )]
    pub url: String,
}

/// `GET /v1/log`: requests sent to publishers, newest first (C7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LogPage {
    pub requests: Vec<LogRow>,
}

/// One request sent: when, where, why, and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LogRow {
    pub at: DateTime<Utc>,
    pub feed_id: Option<i64>,
    /// The origin (`https://example.org:443`).
    pub host: String,
    /// `feed`, `robots`, `first_add`, ...
    pub purpose: String,
    pub url: String,
    /// The local address it was sent from, when one was bound.
    pub egress: Option<String>,
    pub status: Option<i32>,
    pub outcome: String,
    pub bytes: i64,
    pub duration_ms: i64,
    /// The rule that allowed the request.
    pub rule: String,
}

impl From<&RequestLogRow> for LogRow {
    fn from(r: &RequestLogRow) -> LogRow {
        LogRow {
            at: r.at,
            feed_id: r.feed_id.map(|f| f.0),
            host: r.host.clone(),
            purpose: r.purpose.clone(),
            url: r.url.clone(),
            egress: r.egress.clone(),
            status: r.status,
            outcome: r.outcome.as_str().to_owned(),
            bytes: r.bytes,
            duration_ms: r.duration_ms,
            rule: r.rule.clone(),
        }
    }
}

/// `GET /v1/hosts/{name}`: what tidings holds about a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HostView {
    pub name: String,
    /// The origins (https on 443, http on 80) with a stored robots.txt or Retry-After floor.
    pub origins: Vec<HostOrigin>,
    /// How many of the host's feeds are in each state.
    pub feeds_by_state: std::collections::BTreeMap<String, u64>,
    /// The host's feeds that are paused, off or removed, with why.
    pub not_active: Vec<HostFeed>,
    /// The host gate of the crawler running in this process (C3); `null` when none runs.
    pub gate: Option<HostGate>,
}

/// A host's gate in the crawler of this process: one request in flight at most, spaced by a gap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HostGate {
    /// A request to the host is being sent or answered now.
    pub in_flight: bool,
    /// The earliest the next request may start (in the past: the host is free now); `null`
    /// while one is in flight, or when this process sent the host nothing yet.
    pub next_allowed_at: Option<DateTime<Utc>>,
    /// The gap the last request was spaced by (the profile's, or the host's crawl-delay);
    /// `null` when this process sent the host nothing yet.
    pub gap_secs: Option<f64>,
}

impl From<tidings_crawler::GateView> for HostGate {
    fn from(g: tidings_crawler::GateView) -> HostGate {
        HostGate {
            in_flight: g.in_flight,
            next_allowed_at: g.next_allowed_at,
            gap_secs: g.gap.map(|gap| gap.as_secs_f64()),
        }
    }
}

/// One origin of a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HostOrigin {
    pub origin: String,
    /// When robots.txt was last read, if ever.
    pub robots_fetched_at: Option<DateTime<Utc>>,
    /// Its HTTP status then; `None` when no answer came.
    pub robots_status: Option<i32>,
    /// The file as read (2xx answers only).
    pub robots_txt: Option<String>,
    /// No request goes to the origin before this (a 429 or 503 with Retry-After, C6).
    pub retry_after_until: Option<DateTime<Utc>>,
}

impl HostOrigin {
    pub fn new(
        origin: String,
        robots: Option<&RobotsCache>,
        floor: Option<DateTime<Utc>>,
    ) -> HostOrigin {
        HostOrigin {
            origin,
            robots_fetched_at: robots.map(|r| r.fetched_at),
            robots_status: robots.and_then(|r| r.status),
            robots_txt: robots.and_then(|r| r.body.clone()),
            retry_after_until: floor,
        }
    }
}

/// A feed of a host that is not active.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HostFeed {
    pub id: i64,
    pub url: String,
    pub state: String,
    pub state_reason: Option<String>,
    pub last_status: Option<i32>,
}

impl From<&FeedRecord> for HostFeed {
    fn from(f: &FeedRecord) -> HostFeed {
        HostFeed {
            id: f.id.0,
            url: f.url.to_string(),
            state: f.state.as_str().to_owned(),
            state_reason: f.state_reason.clone(),
            last_status: f.last_status,
        }
    }
}

/// One check of a URL by discovery (FF2): what the URL was, and the decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Check {
    pub id: i64,
    pub url: String,
    /// `feed`, `not_a_feed`, `duplicate`, `held`, `refused` or `failed`.
    pub disposition: String,
    /// The decision, in words.
    pub reason: String,
    /// The stored feed it is (a feed, a duplicate) or may be (held).
    pub feed_id: Option<i64>,
    /// `submitted`, `alternate`, `body_link`, `common_path` or `spider`.
    pub source: String,
    /// The page it was found on.
    pub found_on: Option<String>,
    pub checked_at: DateTime<Utc>,
}

impl From<&tidings_store::StoredCheck> for Check {
    fn from(c: &tidings_store::StoredCheck) -> Check {
        Check {
            id: c.id,
            url: c.check.url.clone(),
            disposition: c.check.disposition.as_str().to_owned(),
            reason: c.check.reason.clone(),
            feed_id: c.check.feed_id.map(|f| f.0),
            source: c.check.source.as_str().to_owned(),
            found_on: c.check.found_on.clone(),
            checked_at: c.check.at,
        }
    }
}

/// `GET /v1/discovery/held`: feeds found that may be stored ones, waiting for review (FF3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HeldList {
    pub held: Vec<Check>,
}

/// `POST /v1/discovery/held/{id}`: an operator's decision on a held match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewDecision {
    pub decision: HeldDecision,
}

/// What a held match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeldDecision {
    /// The stored feed it was matched to.
    Duplicate,
    /// A feed of its own.
    New,
    /// Neither: not taken.
    Reject,
}

/// `GET /v1/rules`: the operator's do-not-crawl rules (FF13), oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RuleList {
    pub rules: Vec<Rule>,
}

/// One do-not-crawl rule: no request goes to what it covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Rule {
    pub id: i64,
    /// `url`, `feed`, `path`, `origin`, `host` or `domain`.
    pub kind: String,
    /// The value in its normal form (a host lower-cased, a URL parsed, ...).
    pub value: String,
    /// Why it was added.
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<&StoredBlock> for Rule {
    fn from(b: &StoredBlock) -> Rule {
        Rule {
            id: b.id,
            kind: b.kind.clone(),
            value: b.value.clone(),
            reason: b.reason.clone(),
            created_at: b.created_at,
        }
    }
}

/// The body of `POST /v1/rules`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRule {
    /// `url`, `feed`, `path`, `origin`, `host` or `domain`.
    #[schema(example = "host")]
    pub kind: String,
    pub value: String,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `POST /v1/rules`: the rule, whether it is new, and the feeds it paused at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RuleAdded {
    pub rule: Rule,
    pub new: bool,
    pub paused: Vec<i64>,
}

/// `DELETE /v1/rules/{id}`: the rule that went and the feeds resumed because of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RuleRemoved {
    pub rule: Rule,
    pub resumed: Vec<i64>,
}

/// The body of `POST /v1/feeds/{id}/removal` (WFM10).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Removal {
    /// Why, as the publisher asked; kept with the rules.
    #[serde(default)]
    pub reason: Option<String>,
    /// Also add `url` rules for the feed's URLs, so no one adds it again under another name.
    #[serde(default)]
    pub block: bool,
}

/// `POST /v1/feeds/{id}/removal`: the feed as it is now (`removed`), how many subscriptions
/// ended, and the rules added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Removed {
    pub feed: Feed,
    pub subscriptions_ended: i64,
    pub rules: Vec<Rule>,
}

/// `POST /v1/opml`: what became of each outline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct OpmlImport {
    /// Feed ids newly subscribed to.
    pub subscribed: Vec<i64>,
    /// Feed ids this key was already subscribed to.
    pub already: Vec<i64>,
    /// Refused by a do-not-crawl rule or a removal.
    pub refused: Vec<ImportedFeed>,
    /// Not a feed URL.
    pub skipped: Vec<ImportedFeed>,
}

/// An outline that was not subscribed to, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImportedFeed {
    pub url: String,
    pub detail: String,
}

/// What a job of the page queue does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Find the feeds of one URL (FF1).
    Discover,
    /// A bounded spider run from one page (FF4).
    Spider,
    /// One read of a feed for the catalogue (SR2), submitted by `POST /v1/catalogue`.
    Catalogue,
}

/// Where a job of the page queue stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Running,
    Done,
    Failed,
}

impl From<tidings_model::PageJobState> for JobState {
    fn from(state: tidings_model::PageJobState) -> JobState {
        match state {
            tidings_model::PageJobState::Queued => JobState::Queued,
            tidings_model::PageJobState::Running => JobState::Running,
            tidings_model::PageJobState::Done => JobState::Done,
            tidings_model::PageJobState::Failed => JobState::Failed,
        }
    }
}

/// `POST /v1/discovery/jobs`: a URL whose feeds to find, or a spider run to start from it.
/// A spider run's limits default to the profile's `[spider]` and may not pass its ceilings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JobRequest {
    /// The page (or feed) to start from: an http(s) URL with a host.
    #[schema(example = "https://example.org/")]
    pub url: String,
    pub kind: JobKind,
    #[schema(minimum = 0)]
    pub depth: Option<u32>,
    #[schema(minimum = 1)]
    pub max_urls: Option<u32>,
    #[schema(minimum = 1)]
    pub max_requests: Option<u32>,
    #[schema(minimum = 1)]
    pub max_bytes: Option<u64>,
    #[schema(minimum = 1)]
    pub max_time_secs: Option<u64>,
    /// Follow links onto the other sites a page links to.
    pub linked_sites: Option<bool>,
}

/// A spider run's budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobLimits {
    pub depth: u32,
    pub max_urls: u32,
    pub max_requests: u32,
    pub max_bytes: u64,
    pub max_time_secs: u64,
    pub linked_sites: bool,
}

/// What a job spent and found so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobSpent {
    pub requests: u32,
    pub bytes: u64,
    /// URLs looked at.
    pub urls: u32,
    /// HTML pages read.
    pub pages: u32,
    pub elapsed_secs: u64,
    pub feeds: u32,
    pub duplicates: u32,
    pub refused: u32,
}

/// A feed a job found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobFeed {
    /// The URL to subscribe to.
    pub url: String,
    pub title: Option<String>,
    /// The stored feed it is, when it is one already (FF3).
    pub feed_id: Option<i64>,
    /// Perhaps a stored feed: held for an operator's review, not offered (FF3).
    pub held: bool,
    /// Why it is (or may be) a stored feed.
    pub note: Option<String>,
}

/// A job of the page queue (FF1, FF4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Job {
    pub id: i64,
    pub kind: JobKind,
    pub url: String,
    pub state: JobState,
    /// Who asked for it (`cli`, `key:7`, `account:3`).
    pub requested_by: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// A spider run's budget; none for a discovery job.
    pub limits: Option<JobLimits>,
    pub spent: JobSpent,
    /// Which budget ended it (`requests`, `bytes`, `urls`, `time`), if one did.
    pub stopped_by: Option<String>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// The feeds found, in the order found (only when one job is asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feeds: Option<Vec<JobFeed>>,
}

impl Job {
    pub fn of(job: &tidings_store::PageJob, feeds: Option<&[tidings_store::JobFeed]>) -> Job {
        Job {
            id: job.id,
            kind: match job.kind {
                tidings_model::PageJobKind::Discover => JobKind::Discover,
                tidings_model::PageJobKind::Spider => JobKind::Spider,
                tidings_model::PageJobKind::Catalogue => JobKind::Catalogue,
            },
            url: job.url.clone(),
            state: job.state.into(),
            requested_by: job.requested_by.clone(),
            created_at: job.created_at,
            started_at: job.started_at,
            updated_at: job.updated_at,
            finished_at: job.finished_at,
            limits: job.limits.map(|l| JobLimits {
                depth: l.depth,
                max_urls: l.max_urls,
                max_requests: l.max_requests,
                max_bytes: l.max_bytes,
                max_time_secs: l.max_time.as_secs(),
                linked_sites: l.linked_sites,
            }),
            spent: JobSpent {
                requests: job.spent.requests,
                bytes: job.spent.bytes,
                urls: job.spent.urls,
                pages: job.spent.pages,
                elapsed_secs: job.spent.elapsed.as_secs(),
                feeds: job.spent.feeds,
                duplicates: job.spent.duplicates,
                refused: job.spent.refused,
            },
            stopped_by: job.stopped_by.clone(),
            error: job.error.clone(),
            feeds: feeds.map(|found| {
                found
                    .iter()
                    .map(|f| JobFeed {
                        url: f.url.clone(),
                        title: f.title.clone(),
                        feed_id: f.feed_id.map(|id| id.0),
                        held: f.held,
                        note: f.note.clone(),
                    })
                    .collect()
            }),
        }
    }
}

/// `GET /v1/discovery/jobs`: the page queue's jobs, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JobList {
    pub jobs: Vec<Job>,
}

/// A feed of the catalogue (SR2), as readers browse it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CatalogueFeed {
    /// The feed's id (subscribe with `POST /v1/feeds` and its URL).
    pub id: i64,
    pub url: String,
    pub title: Option<String>,
    pub site_link: Option<String>,
    pub last_fetch_at: Option<DateTime<Utc>>,
    pub added_at: DateTime<Utc>,
    /// Its newest entries (only when one feed is asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<Entry>>,
    /// Nothing was stored, so one read of it is queued (SR2): ask again shortly.
    pub reading: bool,
}

/// `GET /v1/catalogue`: the catalogue's feeds, in the order added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CatalogueList {
    pub feeds: Vec<CatalogueFeed>,
}
