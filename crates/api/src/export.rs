//! Stored entries as feeds again: Atom 1.0 and JSON Feed 1.1, for one feed
//! (`/v1/feeds/{id}/atom`, `/v1/feeds/{id}/feed.json`) or for every feed (`/v1/entries/atom`,
//! `/v1/entries/feed.json`), newest first, `?limit=` 1 to 500 (50 by default).
//!
//! The Atom document is built as text here: every value goes through [`xml_text`], which
//! escapes markup and drops the characters XML 1.0 cannot hold, so a publisher's `<script>`,
//! `&` or `]]>` stays text. Content is sent as escaped HTML (`type="html"`), sanitised as the API
//! sends it ([`sanitise_outbound`]). JSON Feed is serialised from the serde types below; its
//! `summary` is plain text, as that format defines it.
//!
//! Not yet: the all-feeds outputs list every stored feed; once API keys exist they should list
//! only the feeds the key subscribes to. The server does not know its public URL, so there is
//! no `rel="self"` link and ids are `urn:tidings:` names where the publisher gave no URI.

use crate::AppState;
use crate::auth::{Caller, ReadAccess};
use crate::escape::text as xml_text;
use crate::openapi::ReadErrors;
use crate::problem::{self, Problem};
use crate::ui::content::sanitise_outbound;
use crate::v1::Scope;
use crate::v1::params;
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use tidings_model::{FeedId, web_url};
use tidings_store::{EntryQuery, FeedRecord, StoredEntry};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The media type of the Atom outputs.
pub const ATOM_TYPE: &str = "application/atom+xml; charset=utf-8";
/// The media type of the JSON Feed outputs.
pub const JSON_FEED_TYPE: &str = "application/feed+json";
/// The `version` of every JSON Feed served.
pub const JSON_FEED_VERSION: &str = "https://jsonfeed.org/version/1.1";

/// The output routes and their OpenAPI operations (see `crate::openapi`).
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(feed_atom))
        .routes(routes!(feed_json))
        .routes(routes!(all_atom))
        .routes(routes!(all_json))
}

/// The query string, as text; [`params`] reads it. The `#[param]` says what is read.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportParams {
    /// Entries in the document, newest first.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500, default = 50)]
    limit: Option<String>,
}

/// The query string of the all-feeds outputs.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AllParams {
    /// Entries in the document, newest first.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500, default = 50)]
    limit: Option<String>,
    /// Only the entries of the feeds the calling key subscribes to; needs a key. A reader
    /// key of an account always lists only its account's feeds.
    #[param(value_type = Option<bool>)]
    mine: Option<String>,
}

/// What one output holds: a title, a site link, the entries, and a fallback `updated`.
struct Listing {
    title: String,
    /// The id of the document as a whole.
    id: String,
    site_link: Option<String>,
    /// The feed's URL, for the per-feed outputs.
    source_url: Option<String>,
    entries: Vec<StoredEntry>,
    /// `updated` when there is no entry.
    fallback_updated: DateTime<Utc>,
    /// For the all-feeds outputs: each entry's feed, by id, named in an Atom `<source>`.
    sources: HashMap<FeedId, FeedRecord>,
}

impl Listing {
    /// The newest change among the entries, else the fallback.
    fn updated(&self) -> DateTime<Utc> {
        self.entries
            .iter()
            .map(entry_updated)
            .max()
            .unwrap_or(self.fallback_updated)
    }
}

async fn one_feed(
    state: &AppState,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Listing, Problem> {
    let Path(id) = id?;
    let Query(p) = query?;
    let id = params::feed_id("id", &id)?;
    let limit = params::limit(p.limit.as_deref())?;
    let Some(feed) = state.store.feed(id).await? else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    let entries = state
        .store
        .entries(&EntryQuery {
            feed: Some(id),
            current_at: Some(Utc::now()),
            limit,
            ..EntryQuery::default()
        })
        .await?;
    Ok(feed_listing(&feed, entries))
}

fn feed_listing(feed: &FeedRecord, entries: Vec<StoredEntry>) -> Listing {
    Listing {
        title: feed
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| feed.url.as_str().to_owned()),
        id: format!("urn:tidings:feed:{}", feed.id.0),
        site_link: feed.site_link.as_deref().and_then(web_url),
        source_url: Some(feed.url.as_str().to_owned()),
        entries,
        fallback_updated: feed.last_fetch_at.unwrap_or(feed.created_at),
        sources: HashMap::new(),
    }
}

async fn all_feeds(
    state: &AppState,
    caller: Option<Caller>,
    query: Result<Query<AllParams>, QueryRejection>,
) -> Result<Listing, Problem> {
    let Query(p) = query?;
    let limit = params::limit(p.limit.as_deref())?;
    // Expired entries (FF16) never go out in an output.
    let scope = Scope::of(caller, p.mine.as_deref(), None, Utc::now())?;
    let mine = scope.subscriber.is_some();
    let entries = state
        .store
        .entries(&EntryQuery {
            limit,
            current_at: scope.current_at,
            subscriber: scope.subscriber,
            ..EntryQuery::default()
        })
        .await?;
    let sources = state
        .store
        .feeds()
        .await?
        .into_iter()
        .map(|f| (f.id, f))
        .collect();
    let (title, id) = match caller.filter(|_| mine) {
        Some(c) => (
            format!("tidings: the subscriptions of {c}"),
            format!("urn:tidings:entries:{}", c.subscriber()),
        ),
        None => (
            "tidings: every feed".to_owned(),
            "urn:tidings:entries".to_owned(),
        ),
    };
    Ok(Listing {
        title,
        id,
        site_link: None,
        source_url: None,
        entries,
        fallback_updated: DateTime::UNIX_EPOCH,
        sources,
    })
}

/// One feed's stored entries as Atom 1.0, newest first.
#[utoipa::path(
    get,
    path = "/v1/feeds/{id}/atom",
    operation_id = "feed_atom",
    tag = "outputs",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id."), ExportParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "An Atom 1.0 document (RFC 4287).", body = String,
            content_type = "application/atom+xml"),
        (status = BAD_REQUEST, description = "`id` or `limit` is malformed or out of bounds.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
async fn feed_atom(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Response, Problem> {
    Ok(atom_response(&one_feed(&state, id, query).await?))
}

/// One feed's stored entries as JSON Feed 1.1, newest first.
#[utoipa::path(
    get,
    path = "/v1/feeds/{id}/feed.json",
    operation_id = "feed_json_feed",
    tag = "outputs",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id."), ExportParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "A JSON Feed 1.1 document.", body = JsonFeed,
            content_type = "application/feed+json"),
        (status = BAD_REQUEST, description = "`id` or `limit` is malformed or out of bounds.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
async fn feed_json(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Response, Problem> {
    Ok(json_response(&one_feed(&state, id, query).await?))
}

/// Every feed's stored entries as Atom 1.0, newest first, each naming its feed in `<source>`.
#[utoipa::path(
    get,
    path = "/v1/entries/atom",
    operation_id = "entries_atom",
    tag = "outputs",
    params(AllParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "An Atom 1.0 document (RFC 4287).", body = String,
            content_type = "application/atom+xml"),
        (status = BAD_REQUEST, description = "`limit` is malformed or out of bounds.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
async fn all_atom(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
    query: Result<Query<AllParams>, QueryRejection>,
) -> Result<Response, Problem> {
    Ok(atom_response(&all_feeds(&state, caller, query).await?))
}

/// Every feed's stored entries as JSON Feed 1.1, newest first.
#[utoipa::path(
    get,
    path = "/v1/entries/feed.json",
    operation_id = "entries_json_feed",
    tag = "outputs",
    params(AllParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "A JSON Feed 1.1 document.", body = JsonFeed,
            content_type = "application/feed+json"),
        (status = BAD_REQUEST, description = "`limit` is malformed or out of bounds.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
async fn all_json(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
    query: Result<Query<AllParams>, QueryRejection>,
) -> Result<Response, Problem> {
    Ok(json_response(&all_feeds(&state, caller, query).await?))
}

fn atom_response(listing: &Listing) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(ATOM_TYPE)),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        atom(listing),
    )
        .into_response()
}

fn json_response(listing: &Listing) -> Response {
    let mut response = Json(json_feed(listing)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(JSON_FEED_TYPE),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// When an entry last changed: its own `updated`, else `published`, else when tidings saw
/// its content change.
fn entry_updated(s: &StoredEntry) -> DateTime<Utc> {
    s.entry
        .updated
        .or(s.entry.published)
        .unwrap_or(s.updated_at)
}

/// The entry's id in both outputs: the publisher's id when it is a URI (Atom ids must be),
/// else a name made from tidings' row id.
pub fn entry_id(s: &StoredEntry) -> String {
    match &s.entry.id {
        Some(guid) if looks_like_uri(guid) => guid.clone(),
        _ => format!("urn:tidings:entry:{}", s.id),
    }
}

/// A scheme (a letter, then letters, digits, `+`, `-`, `.`), a colon, then no white space.
fn looks_like_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !rest.chars().any(char::is_whitespace)
}

/// RFC 3339 in UTC, whole seconds (`2026-11-30T12:00:00Z`).
fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `<name>text</name>` with `text` escaped.
fn element(out: &mut String, indent: &str, name: &str, text: &str) {
    let _ = writeln!(out, "{indent}<{name}>{}</{name}>", xml_text(text));
}

/// `<name type="html">html</name>`: HTML sent as escaped text.
fn html_element(out: &mut String, indent: &str, name: &str, html: &str) {
    let _ = writeln!(
        out,
        "{indent}<{name} type=\"html\">{}</{name}>",
        xml_text(html)
    );
}

/// The Atom 1.0 document (RFC 4287).
fn atom(listing: &Listing) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n",
    );
    element(&mut out, "  ", "id", &listing.id);
    element(&mut out, "  ", "title", &listing.title);
    element(&mut out, "  ", "updated", &rfc3339(listing.updated()));
    let _ = writeln!(
        out,
        "  <generator>tidings</generator>\n  <author><name>{}</name></author>",
        xml_text(&listing.title)
    );
    if let Some(link) = &listing.site_link {
        let _ = writeln!(
            out,
            "  <link rel=\"alternate\" href=\"{}\"/>",
            xml_text(link)
        );
    }
    if let Some(url) = &listing.source_url {
        let _ = writeln!(out, "  <link rel=\"via\" href=\"{}\"/>", xml_text(url));
    }
    for s in &listing.entries {
        atom_entry(&mut out, s, listing.sources.get(&s.feed_id));
    }
    out.push_str("</feed>\n");
    out
}

fn atom_entry(out: &mut String, s: &StoredEntry, source: Option<&FeedRecord>) {
    let e = &s.entry;
    out.push_str("  <entry>\n");
    element(out, "    ", "id", &entry_id(s));
    element(out, "    ", "title", e.title.as_deref().unwrap_or(""));
    element(out, "    ", "updated", &rfc3339(entry_updated(s)));
    if let Some(published) = e.published {
        element(out, "    ", "published", &rfc3339(published));
    }
    if let Some(link) = e.link.as_deref().and_then(web_url) {
        let _ = writeln!(
            out,
            "    <link rel=\"alternate\" href=\"{}\"/>",
            xml_text(&link)
        );
    }
    for (x, url) in e
        .enclosures
        .iter()
        .filter_map(|x| web_url(&x.url).map(|url| (x, url)))
    {
        let _ = write!(
            out,
            "    <link rel=\"enclosure\" href=\"{}\"",
            xml_text(&url)
        );
        if let Some(media_type) = &x.media_type {
            let _ = write!(out, " type=\"{}\"", xml_text(media_type));
        }
        if let Some(length) = x.length {
            let _ = write!(out, " length=\"{length}\"");
        }
        out.push_str("/>\n");
    }
    for a in &e.authors {
        let Some(name) = a.name.as_deref().or(a.email.as_deref()) else {
            continue;
        };
        let _ = write!(out, "    <author><name>{}</name>", xml_text(name));
        if let Some(email) = &a.email {
            let _ = write!(out, "<email>{}</email>", xml_text(email));
        }
        if let Some(uri) = a.uri.as_deref().and_then(web_url) {
            let _ = write!(out, "<uri>{}</uri>", xml_text(&uri));
        }
        out.push_str("</author>\n");
    }
    for c in &e.categories {
        let _ = writeln!(out, "    <category term=\"{}\"/>", xml_text(c));
    }
    let base = e.html_base();
    if let Some(summary) = &e.summary {
        html_element(out, "    ", "summary", &sanitise_outbound(summary, base));
    }
    match (&e.content, &e.link) {
        (Some(content), _) => {
            html_element(out, "    ", "content", &sanitise_outbound(content, base));
        }
        // An entry with neither content nor an alternate link must have content (RFC 4287,
        // 4.1.2): an empty one.
        (None, None) => out.push_str("    <content type=\"html\"></content>\n"),
        (None, Some(_)) => {}
    }
    if let Some(feed) = source {
        atom_source(out, feed);
    }
    out.push_str("  </entry>\n");
}

/// `<source>`: the feed an entry came from, in the all-feeds output.
fn atom_source(out: &mut String, feed: &FeedRecord) {
    out.push_str("    <source>\n");
    element(
        out,
        "      ",
        "id",
        &format!("urn:tidings:feed:{}", feed.id.0),
    );
    if let Some(title) = &feed.title {
        element(out, "      ", "title", title);
    }
    let _ = writeln!(
        out,
        "      <link rel=\"self\" href=\"{}\"/>",
        xml_text(feed.url.as_str())
    );
    if let Some(link) = &feed.site_link {
        let _ = writeln!(
            out,
            "      <link rel=\"alternate\" href=\"{}\"/>",
            xml_text(link)
        );
    }
    out.push_str("    </source>\n");
}

/// A JSON Feed 1.1 document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JsonFeed {
    pub version: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home_page_url: Option<String>,
    pub items: Vec<JsonItem>,
}

/// One JSON Feed item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JsonItem {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The entry's content, else its summary, as HTML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_html: Option<String>,
    /// Empty text when the entry has neither content nor summary (one of the two is required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub date_published: Option<String>,
    #[schema(format = DateTime)]
    pub date_modified: String,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub authors: Vec<JsonAuthor>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub attachments: Vec<JsonAttachment>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct JsonAuthor {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct JsonAttachment {
    pub url: String,
    pub mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_in_bytes: Option<u64>,
}

fn json_feed(listing: &Listing) -> JsonFeed {
    JsonFeed {
        version: JSON_FEED_VERSION.to_owned(),
        title: listing.title.clone(),
        home_page_url: listing.site_link.clone(),
        items: listing.entries.iter().map(json_item).collect(),
    }
}

/// The most characters of a JSON Feed item's plain-text `summary`.
const SUMMARY_CHARS: usize = 1_000;

fn json_item(s: &StoredEntry) -> JsonItem {
    let e = &s.entry;
    let base = e.html_base();
    let content_html = e
        .content
        .as_deref()
        .or(e.summary.as_deref())
        .map(|h| sanitise_outbound(h, base));
    JsonItem {
        id: entry_id(s),
        url: e.link.as_deref().and_then(web_url),
        title: e.title.clone(),
        content_text: content_html.is_none().then(String::new),
        content_html,
        // The summary is repeated only when the content is something else.
        summary: e
            .content
            .as_ref()
            .and(e.summary.as_deref())
            .map(|h| tidings_page::text(h, SUMMARY_CHARS)),
        date_published: e.published.map(rfc3339),
        date_modified: rfc3339(entry_updated(s)),
        authors: e
            .authors
            .iter()
            .map(|a| JsonAuthor {
                name: a.name.clone(),
                url: a.uri.as_deref().and_then(web_url),
            })
            .filter(|a| a.name.is_some() || a.url.is_some())
            .collect(),
        tags: e.categories.clone(),
        attachments: e
            .enclosures
            .iter()
            .filter_map(|x| web_url(&x.url).map(|url| (x, url)))
            .map(|(x, url)| JsonAttachment {
                url,
                mime_type: x
                    .media_type
                    .clone()
                    .unwrap_or_else(|| "application/octet-stream".to_owned()),
                size_in_bytes: x.length,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_text_escapes_markup_and_drops_what_xml_cannot_hold() {
        assert_eq!(
            xml_text("<script>a & b]]>\"'</script>"),
            "&lt;script&gt;a &amp; b]]&gt;&quot;&#39;&lt;/script&gt;"
        );
        assert_eq!(xml_text("a\u{0}b\u{1b}c\td\u{FFFF}"), "abc&#9;d");
    }

    #[test]
    fn only_uris_are_kept_as_ids() {
        for good in ["https://example.org/1", "urn:uuid:1234", "tag:a.org,2026:x"] {
            assert!(looks_like_uri(good), "{good}");
        }
        for bad in ["", "42", "abc", ":x", "1a:b", "a b:c", "x:", "x:a b"] {
            assert!(!looks_like_uri(bad), "{bad}");
        }
    }
}
