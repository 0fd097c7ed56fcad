//! The Fever API at `/fever/` (Miniflux's place) and `/api/fever.php` (FreshRSS's), over an
//! account's reading state: what Reeder Classic, Unread, Fiery Feeds, ReadKit, FeedMe and
//! Fluent Reader speak.
//!
//! A client sends `api_key`, md5 of `name:API password` (see
//! [`crate::accounts::fever_key`]), with every request; a wrong or missing key is answered
//! `{"api_version": 3, "auth": 0}` with status 200, as the protocol has it, and counts
//! against the client's address like a failed login. Parameters are read from the query and
//! the body alike: a form, a bare POST with everything in the URL, a GET, or
//! `multipart/form-data`. Every selector present is answered (`groups`, `feeds`, `favicons`,
//! `items` with `since_id`, `max_id` or `with_ids`, `unread_item_ids`, `saved_item_ids`,
//! `links`); a `mark` is applied first and answered with the id list it changes. Groups are
//! the account's folders; ids stay below 2³¹.

use super::{SyncAccount, folder_id, small_id};
use crate::AppState;
use crate::auth::client_ip;
use crate::ui::content::sanitise_outbound;
use axum::Router;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use tidings_model::{FeedId, web_url};
use tidings_store::{
    ReadEntry, ReadScope, ReadStatus, ReadingOrder, ReadingQuery, StateChange, StoreError,
    Subscription,
};

/// Items one `items` request lists (the protocol's page).
pub const ITEMS_PER_PAGE: u32 = 50;
/// The most bytes of a request body read.
const MAX_BODY: usize = 1 << 20;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/fever", any(fever))
        .route("/fever/", any(fever))
        .route("/api/fever.php", any(fever))
}

/// A failure after a good login: a 400 with the reason, in the protocol's envelope.
struct Failure(StatusCode, String);

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        let (status, message) = super::store_failed("fever api", &e);
        Failure(status, message)
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure(StatusCode::BAD_REQUEST, message.into())
}

/// The request's parameters, from its query and its body (form or multipart), repeats kept.
async fn params(state: &AppState, request: Request) -> Result<Vec<(String, String)>, Failure> {
    let mut pairs: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect()
        })
        .unwrap_or_default();
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
    if multipart {
        let mut form = Multipart::from_request(request, state)
            .await
            .map_err(|e| bad(format!("unreadable multipart body: {e}")))?;
        while let Some(field) = form
            .next_field()
            .await
            .map_err(|e| bad(format!("unreadable multipart body: {e}")))?
        {
            let name = field.name().unwrap_or_default().to_owned();
            let value = field
                .text()
                .await
                .map_err(|e| bad(format!("unreadable multipart field {name:?}: {e}")))?;
            pairs.push((name, value));
        }
    } else {
        let body = axum::body::to_bytes(request.into_body(), MAX_BODY)
            .await
            .map_err(|_| bad(format!("the body is larger than {MAX_BODY} bytes")))?;
        pairs.extend(url::form_urlencoded::parse(&body).into_owned());
    }
    Ok(pairs)
}

fn first<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn has(pairs: &[(String, String)], key: &str) -> bool {
    pairs.iter().any(|(k, _)| k == key)
}

fn number(pairs: &[(String, String)], key: &str) -> Result<Option<i64>, Failure> {
    first(pairs, key)
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| bad(format!("{key} must be a whole number, not {v:?}")))
        })
        .transpose()
}

fn envelope(auth: bool) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("api_version".into(), json!(3));
    out.insert("auth".into(), json!(i32::from(auth)));
    out
}

/// Every Fever request, whatever its method and path.
async fn fever(State(state): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let client = client_ip(&parts);
    let request = Request::from_parts(parts, body);
    let refused = || axum::Json(Value::Object(envelope(false))).into_response();
    if let Err(wait) = state.auth.may_try(client) {
        let mut response = refused();
        *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
        if let Ok(value) = wait.as_secs().max(1).to_string().parse() {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return response;
    }
    let pairs = match params(&state, request).await {
        Ok(pairs) => pairs,
        Err(Failure(status, why)) => return failure(status, &why),
    };
    let key = first(&pairs, "api_key").unwrap_or_default();
    let account = match state
        .store
        .account_by_fever_key(&crate::accounts::fever_key_hash(key))
        .await
    {
        Ok(Some(account)) if !key.is_empty() => SyncAccount {
            id: account.id,
            admin: account.role == tidings_store::AccountRole::Admin,
            name: account.name,
        },
        Ok(_) => {
            state.auth.failed(client);
            return refused();
        }
        Err(e) => return Failure::from(e).into_response(),
    };
    match answer(&state, &account, &pairs).await {
        Ok(body) => axum::Json(Value::Object(body)).into_response(),
        Err(Failure(status, why)) => failure(status, &why),
    }
}

/// A favicon as Fever sends it: `TYPE;base64,DATA`, for raster images only (an SVG may hold
/// script, and a client would draw it outside tidings' pages).
fn favicon_data(media_type: &str, body: &[u8]) -> Option<String> {
    use base64::Engine;
    let kind = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let raster = matches!(
        kind.as_str(),
        "image/png"
            | "image/gif"
            | "image/jpeg"
            | "image/webp"
            | "image/x-icon"
            | "image/vnd.microsoft.icon"
    );
    (raster && !body.is_empty()).then(|| {
        format!(
            "{kind};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(body)
        )
    })
}

fn failure(status: StatusCode, why: &str) -> Response {
    let mut body = envelope(true);
    body.insert("error".into(), json!(why));
    (status, axum::Json(Value::Object(body))).into_response()
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        failure(self.0, &self.1)
    }
}

/// The answer to an authenticated request: its mark applied, then every selector present.
async fn answer(
    state: &AppState,
    account: &SyncAccount,
    pairs: &[(String, String)],
) -> Result<Map<String, Value>, Failure> {
    let mut out = envelope(true);
    let subs = state.store.subscriptions(account.id).await?;
    let mut feeds = Vec::new();
    for sub in &subs {
        if let Some(feed) = state.store.feed(sub.feed_id).await? {
            feeds.push((sub, feed));
        }
    }
    let refreshed = feeds
        .iter()
        .filter_map(|(_, f)| f.last_fetch_at)
        .max()
        .map_or(0, |t| t.timestamp());
    out.insert("last_refreshed_on_time".into(), json!(refreshed));

    if let Some(what) = first(pairs, "mark") {
        let list = mark(state, account, &subs, what, pairs).await?;
        let (key, status) = match list {
            Answered::Unread => ("unread_item_ids", Some(ReadStatus::Unread)),
            Answered::Saved => ("saved_item_ids", None),
        };
        out.insert(key.into(), json!(ids_of(state, account, status).await?));
    }
    if has(pairs, "groups") || has(pairs, "feeds") {
        out.insert("feeds_groups".into(), feeds_groups(&subs));
    }
    // A feed's favicon is its site's icon kept by tidings (never fetched for a client), by
    // the feed's id.
    let icons = if has(pairs, "feeds") || has(pairs, "favicons") {
        crate::ui::media::Icons::of(state.store.as_ref(), feeds.iter().map(|(_, f)| f)).await?
    } else {
        crate::ui::media::Icons::default()
    };
    if has(pairs, "groups") {
        let groups: Vec<Value> = folders(&subs)
            .keys()
            .map(|name| json!({ "id": folder_id(name), "title": name }))
            .collect();
        out.insert("groups".into(), json!(groups));
    }
    if has(pairs, "feeds") {
        let list: Vec<Value> = feeds
            .iter()
            .filter_map(|(sub, f)| {
                Some(json!({
                    "id": small_id(f.id.0)?,
                    "favicon_id": if icons.has(f.id) { small_id(f.id.0)? } else { 0 },
                    "title": sub.title.clone().or(f.title.clone()).unwrap_or_else(|| f.url.to_string()),
                    "url": f.url.to_string(),
                    "site_url": f.site_link.as_deref().and_then(web_url).unwrap_or_default(),
                    "is_spark": 0,
                    "last_updated_on_time": f.last_fetch_at.map_or(0, |t| t.timestamp()),
                }))
            })
            .collect();
        out.insert("feeds".into(), json!(list));
    }
    if has(pairs, "favicons") {
        let mut list = Vec::new();
        for (_, f) in feeds.iter().filter(|(_, f)| icons.has(f.id)) {
            let (Some(id), Some(site)) = (small_id(f.id.0), f.site.as_deref()) else {
                continue;
            };
            if let Some(icon) = state.store.icon(site).await?
                && let Some(data) = favicon_data(&icon.media_type, &icon.body)
            {
                list.push(json!({ "id": id, "data": data }));
            }
        }
        out.insert("favicons".into(), json!(list));
    }
    if has(pairs, "items") {
        let (items, total) = items(state, account, pairs).await?;
        out.insert("items".into(), json!(items));
        out.insert("total_items".into(), json!(total));
    }
    if has(pairs, "unread_item_ids") {
        out.insert(
            "unread_item_ids".into(),
            json!(ids_of(state, account, Some(ReadStatus::Unread)).await?),
        );
    }
    if has(pairs, "saved_item_ids") {
        out.insert(
            "saved_item_ids".into(),
            json!(ids_of(state, account, None).await?),
        );
    }
    if has(pairs, "links") {
        out.insert("links".into(), json!([]));
    }
    Ok(out)
}

/// The account's folders and their feeds.
fn folders(subs: &[Subscription]) -> BTreeMap<&str, Vec<FeedId>> {
    let mut out: BTreeMap<&str, Vec<FeedId>> = BTreeMap::new();
    for sub in subs {
        if let Some(folder) = sub.folder.as_deref() {
            out.entry(folder).or_default().push(sub.feed_id);
        }
    }
    out
}

fn feeds_groups(subs: &[Subscription]) -> Value {
    let list: Vec<Value> = folders(subs)
        .iter()
        .map(|(name, feeds)| {
            let ids: Vec<String> = feeds
                .iter()
                .filter_map(|f| small_id(f.0))
                .map(|id| id.to_string())
                .collect();
            json!({ "group_id": folder_id(name), "feed_ids": ids.join(",") })
        })
        .collect();
    json!(list)
}

/// Unread (`Some(Unread)`) or saved (`None`) item ids, comma-separated, lowest first.
async fn ids_of(
    state: &AppState,
    account: &SyncAccount,
    status: Option<ReadStatus>,
) -> Result<String, Failure> {
    let query = ReadingQuery {
        account: account.id,
        status,
        starred: status.is_none().then_some(true),
        order: ReadingOrder::IdAscending,
        limit: tidings_store::reading::MAX_READING_LIMIT,
        ..ReadingQuery::default()
    };
    let ids: Vec<String> = state
        .store
        .reading(&query)
        .await?
        .iter()
        .filter_map(|r| small_id(r.entry.id))
        .map(|id| id.to_string())
        .collect();
    Ok(ids.join(","))
}

async fn items(
    state: &AppState,
    account: &SyncAccount,
    pairs: &[(String, String)],
) -> Result<(Vec<Value>, u64), Failure> {
    let mut query = ReadingQuery {
        account: account.id,
        current_at: Some(Utc::now()),
        limit: ITEMS_PER_PAGE,
        order: ReadingOrder::IdAscending,
        ..ReadingQuery::default()
    };
    let total = state.store.count_reading(&query).await?;
    if let Some(with) = first(pairs, "with_ids").filter(|w| !w.trim().is_empty()) {
        let ids: Vec<i64> = with
            .split(',')
            .map(|id| {
                id.trim()
                    .parse()
                    .map_err(|_| bad(format!("with_ids holds {id:?}, not an item id")))
            })
            .collect::<Result<_, _>>()?;
        if ids.len() > ITEMS_PER_PAGE as usize {
            return Err(bad(format!(
                "with_ids names at most {ITEMS_PER_PAGE} items"
            )));
        }
        query.ids = Some(ids);
    } else if let Some(max) = number(pairs, "max_id")? {
        query.id_below = Some(max);
        query.order = ReadingOrder::IdDescending;
    } else if let Some(since) = number(pairs, "since_id")? {
        query.id_above = Some(since);
    }
    let found = state.store.reading(&query).await?;
    Ok((found.iter().filter_map(item_json).collect(), total))
}

fn item_json(read: &ReadEntry) -> Option<Value> {
    let stored = &read.entry;
    let e = &stored.entry;
    let link = e.link.as_deref().and_then(web_url);
    let html = e.content.as_deref().or(e.summary.as_deref()).unwrap_or("");
    Some(json!({
        "id": small_id(stored.id)?,
        "feed_id": small_id(stored.feed_id.0)?,
        "title": e.title.clone().unwrap_or_default(),
        "author": e.authors.iter().find_map(|a| a.name.clone()).unwrap_or_default(),
        "html": sanitise_outbound(html, e.html_base()),
        "url": link.unwrap_or_default(),
        "is_saved": i32::from(read.state.starred),
        "is_read": i32::from(read.state.read),
        "created_on_time": stored.sort_at.timestamp(),
    }))
}

/// Which id list a mark is answered with.
enum Answered {
    Unread,
    Saved,
}

/// `mark=item|feed|group&as=…&id=N[&before=T]`.
async fn mark(
    state: &AppState,
    account: &SyncAccount,
    subs: &[Subscription],
    what: &str,
    pairs: &[(String, String)],
) -> Result<Answered, Failure> {
    let how = first(pairs, "as").unwrap_or_default();
    let id = number(pairs, "id")?.ok_or_else(|| bad("mark needs an id"))?;
    let now = Utc::now();
    match what {
        "item" => {
            let (change, answered) = match how {
                "read" => (
                    StateChange {
                        read: Some(true),
                        starred: None,
                    },
                    Answered::Unread,
                ),
                "unread" => (
                    StateChange {
                        read: Some(false),
                        starred: None,
                    },
                    Answered::Unread,
                ),
                "saved" => (
                    StateChange {
                        read: None,
                        starred: Some(true),
                    },
                    Answered::Saved,
                ),
                "unsaved" => (
                    StateChange {
                        read: None,
                        starred: Some(false),
                    },
                    Answered::Saved,
                ),
                other => {
                    return Err(bad(format!(
                        "as is read, unread, saved or unsaved, not {other:?}"
                    )));
                }
            };
            state
                .store
                .set_entry_states(account.id, &[id], change, now)
                .await?;
            Ok(answered)
        }
        "feed" | "group" => {
            if how != "read" {
                return Err(bad(format!("a {what} is marked as read, not {how:?}")));
            }
            let before = match number(pairs, "before")? {
                Some(t) => {
                    DateTime::from_timestamp(t, 0).ok_or_else(|| bad("before is out of range"))?
                }
                None => now,
            };
            let scope = match (what, id) {
                ("feed", id) => ReadScope::Feed(FeedId(id)),
                ("group", 0) => ReadScope::All,
                // -1 is Fever's "Sparks", which tidings has none of.
                ("group", -1) => return Ok(Answered::Unread),
                (_, id) => {
                    let folder = folders(subs)
                        .into_keys()
                        .find(|name| i64::from(folder_id(name)) == id)
                        .ok_or_else(|| bad(format!("no group {id}")))?;
                    ReadScope::Folder(folder.to_owned())
                }
            };
            state
                .store
                .mark_all_read(account.id, &scope, before, now)
                .await?;
            Ok(Answered::Unread)
        }
        other => Err(bad(format!("mark is item, feed or group, not {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::favicon_data;

    #[test]
    fn favicons_are_raster_images_only() {
        assert_eq!(
            favicon_data("image/png", b"ab").as_deref(),
            Some("image/png;base64,YWI=")
        );
        assert_eq!(
            favicon_data("Image/X-Icon; charset=binary", b"ab").as_deref(),
            Some("image/x-icon;base64,YWI=")
        );
        for (kind, body) in [
            ("image/svg+xml", &b"<svg/>"[..]),
            ("text/html", b"<p>"),
            ("image/png", b""),
            ("", b"ab"),
        ] {
            assert_eq!(favicon_data(kind, body), None, "{kind}");
        }
    }
}
