//! A Miniflux-compatible subset of the v1 API, under [`PREFIX`] (tidings owns `/v1`): enough
//! for newsboat's `miniflux` backend (categories, feeds, a feed's entries, `PUT /v1/entries`)
//! and for scripts (`/me`, `/entries` with status, starred, limit and paging, counters,
//! bookmarks).
//!
//! Clients log in with HTTP Basic: an account's name and its API password (see
//! [`super::login`]); or send `X-Auth-Token` with an API key that belongs to the account. Categories are the account's folders (id 1, "All", holds the feeds
//! filed under none); ids are tidings' row ids, sent only when below 2³¹ ([`super::small_id`]).
//! Content leaves sanitised as on the reader's page. `PUT` bodies are JSON whatever their
//! `Content-Type` (newsboat sends `application/x-www-form-urlencoded`) and a state change
//! answers 204 with no body, as newsboat expects.

use super::{NO_FOLDER_ID, Refused, SyncAccount, folder_id, small_id};
use crate::AppState;
use crate::auth::client_ip;
use crate::ui::content::sanitise_outbound;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use base64::Engine;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use tidings_model::{FeedId, web_url};
use tidings_store::{
    FeedRecord, ReadStatus, ReadingOrder, ReadingQuery, StateChange, StoreError, Subscription,
};

/// Where the API is mounted: point a client's Miniflux URL here.
pub const PREFIX: &str = "/compat/miniflux";
/// The most entry ids one `PUT /v1/entries` may change.
pub const MAX_IDS: usize = 10_000;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/compat/miniflux/v1/me", get(me))
        .route("/compat/miniflux/v1/categories", get(categories))
        .route("/compat/miniflux/v1/feeds", get(feeds))
        .route("/compat/miniflux/v1/feeds/counters", get(counters))
        .route("/compat/miniflux/v1/feeds/{id}/entries", get(feed_entries))
        .route(
            "/compat/miniflux/v1/categories/{id}/entries",
            get(category_entries),
        )
        .route("/compat/miniflux/v1/entries", get(entries).put(set_status))
        .route("/compat/miniflux/v1/entries/{id}", get(entry))
        .route("/compat/miniflux/v1/entries/{id}/bookmark", put(bookmark))
}

/// An error as Miniflux answers it: `{"error_message": …}`.
#[derive(Debug)]
pub struct Failure(StatusCode, String);

impl Failure {
    fn bad(message: impl Into<String>) -> Failure {
        Failure(StatusCode::BAD_REQUEST, message.into())
    }

    fn not_found(what: &str) -> Failure {
        Failure(StatusCode::NOT_FOUND, format!("{what} not found"))
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        let (status, message) = super::store_failed("miniflux api", &e);
        Failure(status, message)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut response = (self.0, axum::Json(json!({ "error_message": self.1 }))).into_response();
        if self.0 == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"tidings\""),
            );
        }
        response
    }
}

/// The account a request logged in as (HTTP Basic, name and API password).
pub struct User(pub SyncAccount);

impl FromRequestParts<AppState> for User {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<User, Failure> {
        let unauthorized = |why: &str| Failure(StatusCode::UNAUTHORIZED, why.to_owned());
        if let Some(token) = parts
            .headers
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok())
        {
            return token_user(parts, state, token.trim()).await;
        }
        let Some((name, password)) = basic(parts) else {
            return Err(unauthorized(
                "log in with HTTP Basic: the account's name and its API password",
            ));
        };
        match super::login(state, &name, &password, client_ip(parts)).await {
            Ok(account) => Ok(User(account)),
            Err(Refused::Unauthorized) => Err(unauthorized(
                "wrong name or API password (set one with `tidings users passwd NAME --api`)",
            )),
            Err(Refused::Throttled(wait)) => Err(Failure(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many failed logins from this address; try again in {} s",
                    wait.as_secs().max(1)
                ),
            )),
            Err(Refused::Unavailable) => Err(Failure(
                StatusCode::SERVICE_UNAVAILABLE,
                "the store is unavailable".into(),
            )),
        }
    }
}

/// The account of an API key sent as `X-Auth-Token` (a key made with `tidings keys create
/// --user NAME`), checked as every key is (rate, revocation, failures per address).
async fn token_user(parts: &Parts, state: &AppState, token: &str) -> Result<User, Failure> {
    use crate::auth::{Counted, Denied, verify};
    let refused = |why: &str| Failure(StatusCode::UNAUTHORIZED, why.to_owned());
    let caller = match verify(token, state, client_ip(parts), Counted::Yes).await {
        Ok(caller) => caller,
        Err(Denied::TooMany(wait) | Denied::Throttled(wait)) => {
            return Err(Failure(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many requests; try again in {} s",
                    wait.as_secs().max(1)
                ),
            ));
        }
        Err(Denied::Failed(e)) => return Err(e.into()),
        Err(Denied::Unknown | Denied::Malformed) => {
            return Err(refused("the API key is unknown or revoked"));
        }
    };
    let Some(id) = caller.account() else {
        return Err(refused(
            "this API key belongs to no account: make one with `tidings keys create --user NAME`",
        ));
    };
    let account = state
        .store
        .accounts()
        .await?
        .into_iter()
        .find(|a| a.id == id)
        .ok_or_else(|| refused("the key's account is gone"))?;
    Ok(User(SyncAccount {
        id,
        admin: account.role == tidings_store::AccountRole::Admin,
        name: account.name,
    }))
}

/// The name and password of an `Authorization: Basic` header.
fn basic(parts: &Parts) -> Option<(String, String)> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (name, password) = text.split_once(':')?;
    Some((name.to_owned(), password.to_owned()))
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

async fn me(User(account): User) -> Result<axum::Json<Value>, Failure> {
    let id = small_id(account.id).ok_or_else(|| Failure::bad("account id out of range"))?;
    Ok(axum::Json(json!({
        "id": id,
        "username": account.name,
        "is_admin": account.admin,
        "language": "en_US",
        "timezone": "UTC",
        "entry_sorting_direction": "desc",
        "entries_per_page": tidings_store::reading::DEFAULT_READING_LIMIT,
    })))
}

/// The feeds of `subs` (only those in `only`, when given), each with its subscription.
async fn with_feeds<'s>(
    state: &AppState,
    subs: &'s [Subscription],
    only: Option<&BTreeSet<FeedId>>,
) -> Result<Vec<(&'s Subscription, FeedRecord)>, Failure> {
    let mut out = Vec::new();
    for sub in subs {
        if only.is_some_and(|ids| !ids.contains(&sub.feed_id)) {
            continue;
        }
        if let Some(feed) = state.store.feed(sub.feed_id).await? {
            out.push((sub, feed));
        }
    }
    Ok(out)
}

fn category(account: &SyncAccount, folder: Option<&str>) -> Value {
    json!({
        "id": folder.map_or(NO_FOLDER_ID, folder_id),
        "title": folder.unwrap_or("All"),
        "user_id": small_id(account.id),
    })
}

async fn categories(
    State(state): State<AppState>,
    User(account): User,
) -> Result<axum::Json<Value>, Failure> {
    let folders = super::folders(&state, account.id).await?;
    let mut list = vec![category(&account, None)];
    list.extend(folders.iter().map(|f| category(&account, Some(f))));
    Ok(axum::Json(Value::Array(list)))
}

fn feed_json(account: &SyncAccount, sub: &Subscription, feed: &FeedRecord) -> Option<Value> {
    let id = small_id(feed.id.0)?;
    let title = sub
        .title
        .clone()
        .or_else(|| feed.title.clone())
        .unwrap_or_else(|| feed.url.to_string());
    Some(json!({
        "id": id,
        "user_id": small_id(account.id),
        "title": title,
        "feed_url": feed.url.to_string(),
        "site_url": feed.site_link.as_deref().and_then(web_url).unwrap_or_default(),
        "checked_at": feed.last_fetch_at.map(time),
        "parsing_error_count": feed.consecutive_failures,
        "parsing_error_message": feed.last_error.clone().unwrap_or_default(),
        "disabled": false,
        "category": category(account, sub.folder.as_deref()),
    }))
}

async fn feeds(
    State(state): State<AppState>,
    User(account): User,
) -> Result<axum::Json<Value>, Failure> {
    let subs = state.store.subscriptions(account.id).await?;
    let list = with_feeds(&state, &subs, None)
        .await?
        .iter()
        .filter_map(|(sub, feed)| feed_json(&account, sub, feed))
        .collect();
    Ok(axum::Json(Value::Array(list)))
}

async fn counters(
    State(state): State<AppState>,
    User(account): User,
) -> Result<axum::Json<Value>, Failure> {
    let mut reads = BTreeMap::new();
    let mut unreads = BTreeMap::new();
    for sub in state.store.subscriptions(account.id).await? {
        let Some(id) = small_id(sub.feed_id.0) else {
            continue;
        };
        let all = state.store.count_entries(Some(sub.feed_id)).await?;
        reads.insert(id.to_string(), all.saturating_sub(sub.unread));
        unreads.insert(id.to_string(), sub.unread);
    }
    Ok(axum::Json(json!({ "reads": reads, "unreads": unreads })))
}

/// The listing parameters Miniflux takes (repeated `status` allowed).
#[derive(Debug, Default)]
struct Listing {
    statuses: Vec<String>,
    starred: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
    order: Option<String>,
    direction: Option<String>,
    feed_id: Option<String>,
    category_id: Option<String>,
    after_entry_id: Option<String>,
    before_entry_id: Option<String>,
    after: Option<String>,
    before: Option<String>,
    changed_after: Option<String>,
}

impl Listing {
    fn of(pairs: Vec<(String, String)>) -> Listing {
        let mut l = Listing::default();
        for (k, v) in pairs {
            let slot = match k.as_str() {
                "status" => {
                    l.statuses.push(v);
                    continue;
                }
                "starred" => &mut l.starred,
                "limit" => &mut l.limit,
                "offset" => &mut l.offset,
                "order" => &mut l.order,
                "direction" => &mut l.direction,
                "feed_id" => &mut l.feed_id,
                "category_id" => &mut l.category_id,
                "after_entry_id" => &mut l.after_entry_id,
                "before_entry_id" => &mut l.before_entry_id,
                "after" => &mut l.after,
                "before" => &mut l.before,
                "changed_after" => &mut l.changed_after,
                _ => continue,
            };
            *slot = Some(v);
        }
        l
    }
}

fn number<T: std::str::FromStr>(name: &str, value: Option<&String>) -> Result<Option<T>, Failure> {
    value
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| Failure::bad(format!("{name} must be a whole number, not {v:?}")))
        })
        .transpose()
}

fn unix(name: &str, value: Option<&String>) -> Result<Option<DateTime<Utc>>, Failure> {
    number::<i64>(name, value)?
        .map(|s| {
            DateTime::from_timestamp(s, 0)
                .ok_or_else(|| Failure::bad(format!("{name} is out of range")))
        })
        .transpose()
}

/// The store query for `listing` of `account`'s entries (`subs`: its subscriptions).
fn query_of(
    account: &SyncAccount,
    subs: &[Subscription],
    listing: &Listing,
) -> Result<ReadingQuery, Failure> {
    let status = match listing.statuses.as_slice() {
        [] => None,
        all if all.iter().all(|s| s == "unread") => Some(ReadStatus::Unread),
        all if all.iter().all(|s| s == "read") => Some(ReadStatus::Read),
        all if all.iter().all(|s| s == "read" || s == "unread") => None,
        _ => {
            return Err(Failure::bad(
                "status is read or unread (tidings keeps no removed entries)",
            ));
        }
    };
    let starred = match listing.starred.as_deref() {
        None | Some("") => None,
        Some("true" | "1") => Some(true),
        Some("false" | "0") => Some(false),
        Some(other) => {
            return Err(Failure::bad(format!(
                "starred is true or false, not {other:?}"
            )));
        }
    };
    let descending = match listing.direction.as_deref() {
        None | Some("asc") => false,
        Some("desc") => true,
        Some(other) => {
            return Err(Failure::bad(format!(
                "direction is asc or desc, not {other:?}"
            )));
        }
    };
    let by_id = listing.order.as_deref() == Some("id");
    let order = match (by_id, descending) {
        (true, false) => ReadingOrder::IdAscending,
        (true, true) => ReadingOrder::IdDescending,
        (false, false) => ReadingOrder::OldestFirst,
        (false, true) => ReadingOrder::NewestFirst,
    };
    let mut query = ReadingQuery {
        account: account.id,
        feed: number::<i64>("feed_id", listing.feed_id.as_ref())?.map(FeedId),
        status,
        starred,
        id_above: number("after_entry_id", listing.after_entry_id.as_ref())?,
        id_below: number("before_entry_id", listing.before_entry_id.as_ref())?,
        since: unix("after", listing.after.as_ref())?,
        until: unix("before", listing.before.as_ref())?,
        changed_after: unix("changed_after", listing.changed_after.as_ref())?,
        current_at: Some(Utc::now()),
        order,
        offset: number("offset", listing.offset.as_ref())?.unwrap_or(0),
        // 0: the store's default, 100 as in Miniflux.
        limit: number("limit", listing.limit.as_ref())?.unwrap_or(0),
        ..ReadingQuery::default()
    };
    if let Some(category) = number::<i32>("category_id", listing.category_id.as_ref())? {
        filter_category(subs, category, &mut query)?;
    }
    Ok(query)
}

/// Narrow `query` to the folder of `subs` whose id is `category`.
fn filter_category(
    subs: &[Subscription],
    category: i32,
    query: &mut ReadingQuery,
) -> Result<(), Failure> {
    if category == NO_FOLDER_ID {
        query.unfiled = true;
        return Ok(());
    }
    let folder = subs
        .iter()
        .filter_map(|s| s.folder.clone())
        .find(|f| folder_id(f) == category)
        .ok_or_else(|| Failure::not_found("category"))?;
    query.folder = Some(folder);
    Ok(())
}

/// Entries as Miniflux lists them, with the total the query selects; each names its feed
/// (only the feeds of the entries listed are read).
async fn listed(
    state: &AppState,
    account: &SyncAccount,
    subs: &[Subscription],
    query: &ReadingQuery,
) -> Result<axum::Json<Value>, Failure> {
    let found = state.store.reading(query).await?;
    let total = state.store.count_reading(query).await?;
    let shown: BTreeSet<FeedId> = found.iter().map(|r| r.entry.feed_id).collect();
    let feeds: BTreeMap<FeedId, Value> = with_feeds(state, subs, Some(&shown))
        .await?
        .iter()
        .filter_map(|(sub, feed)| Some((feed.id, feed_json(account, sub, feed)?)))
        .collect();
    let list: Vec<Value> = found
        .iter()
        .filter_map(|read| entry_json(account, read, feeds.get(&read.entry.feed_id)))
        .collect();
    Ok(axum::Json(json!({ "total": total, "entries": list })))
}

fn entry_json(
    account: &SyncAccount,
    read: &tidings_store::ReadEntry,
    feed: Option<&Value>,
) -> Option<Value> {
    let stored = &read.entry;
    let (Some(id), Some(feed_id)) = (small_id(stored.id), small_id(stored.feed_id.0)) else {
        tracing::warn!(
            entry = stored.id,
            "miniflux api: an entry id beyond 2^31 is not sent"
        );
        return None;
    };
    let e = &stored.entry;
    let link = e.link.as_deref().and_then(web_url);
    let html = e.content.as_deref().or(e.summary.as_deref()).unwrap_or("");
    let content = sanitise_outbound(html, e.html_base());
    let words = content.split_whitespace().count();
    Some(json!({
        "id": id,
        "user_id": small_id(account.id),
        "feed_id": feed_id,
        "status": if read.state.read { "read" } else { "unread" },
        "hash": stored.content_hash,
        "title": e.title.clone().unwrap_or_default(),
        "url": link.unwrap_or_default(),
        "comments_url": e.comments.as_deref().and_then(web_url).unwrap_or_default(),
        "published_at": time(stored.sort_at),
        "created_at": time(stored.first_seen_at),
        "changed_at": time(read.state.changed_at),
        "content": content,
        "author": e.authors.iter().find_map(|a| a.name.clone()).unwrap_or_default(),
        "share_code": "",
        "starred": read.state.starred,
        "reading_time": words.div_ceil(265),
        "enclosures": [],
        "tags": e.categories,
        "feed": feed,
    }))
}

async fn entries(
    State(state): State<AppState>,
    User(account): User,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<axum::Json<Value>, Failure> {
    let subs = state.store.subscriptions(account.id).await?;
    let query = query_of(&account, &subs, &Listing::of(pairs))?;
    listed(&state, &account, &subs, &query).await
}

fn path_id(text: &str, what: &str) -> Result<i64, Failure> {
    text.parse()
        .ok()
        .filter(|id: &i64| small_id(*id).is_some())
        .ok_or_else(|| Failure::not_found(what))
}

async fn feed_entries(
    State(state): State<AppState>,
    User(account): User,
    Path(id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<axum::Json<Value>, Failure> {
    let feed = FeedId(path_id(&id, "feed")?);
    let subs = state.store.subscriptions(account.id).await?;
    if !subs.iter().any(|s| s.feed_id == feed) {
        return Err(Failure::not_found("feed"));
    }
    let mut query = query_of(&account, &subs, &Listing::of(pairs))?;
    query.feed = Some(feed);
    listed(&state, &account, &subs, &query).await
}

async fn category_entries(
    State(state): State<AppState>,
    User(account): User,
    Path(id): Path<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<axum::Json<Value>, Failure> {
    let category =
        i32::try_from(path_id(&id, "category")?).map_err(|_| Failure::not_found("category"))?;
    let subs = state.store.subscriptions(account.id).await?;
    let mut query = query_of(&account, &subs, &Listing::of(pairs))?;
    filter_category(&subs, category, &mut query)?;
    listed(&state, &account, &subs, &query).await
}

/// One entry of the account, by id.
async fn one(
    state: &AppState,
    account: &SyncAccount,
    id: &str,
) -> Result<tidings_store::ReadEntry, Failure> {
    let id = path_id(id, "entry")?;
    let query = ReadingQuery {
        account: account.id,
        ids: Some(vec![id]),
        limit: 1,
        ..ReadingQuery::default()
    };
    state
        .store
        .reading(&query)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| Failure::not_found("entry"))
}

async fn entry(
    State(state): State<AppState>,
    User(account): User,
    Path(id): Path<String>,
) -> Result<axum::Json<Value>, Failure> {
    let read = one(&state, &account, &id).await?;
    let subs = state.store.subscriptions(account.id).await?;
    let only = BTreeSet::from([read.entry.feed_id]);
    let feed = with_feeds(&state, &subs, Some(&only))
        .await?
        .first()
        .and_then(|(sub, f)| feed_json(&account, sub, f));
    entry_json(&account, &read, feed.as_ref())
        .map(axum::Json)
        .ok_or_else(|| Failure::not_found("entry"))
}

#[derive(Debug, Deserialize)]
struct StatusBody {
    entry_ids: Vec<i64>,
    status: String,
}

/// `PUT /v1/entries`: mark entries read or unread. The body is JSON whatever its
/// `Content-Type`; the answer is 204 with no body.
async fn set_status(
    State(state): State<AppState>,
    User(account): User,
    body: Bytes,
) -> Result<StatusCode, Failure> {
    let body: StatusBody = serde_json::from_slice(&body).map_err(|e| {
        Failure::bad(format!(
            "the body is JSON {{\"entry_ids\": [...], \"status\": \"read\"}}: {e}"
        ))
    })?;
    let read = match body.status.as_str() {
        "read" => true,
        "unread" => false,
        other => {
            return Err(Failure::bad(format!(
                "status is read or unread, not {other:?}"
            )));
        }
    };
    if body.entry_ids.is_empty() {
        return Err(Failure::bad("entry_ids is empty"));
    }
    if body.entry_ids.len() > MAX_IDS {
        return Err(Failure::bad(format!("at most {MAX_IDS} entry ids at once")));
    }
    let change = StateChange {
        read: Some(read),
        starred: None,
    };
    state
        .store
        .set_entry_states(account.id, &body.entry_ids, change, Utc::now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /v1/entries/{id}/bookmark`: star an entry, or unstar a starred one.
async fn bookmark(
    State(state): State<AppState>,
    User(account): User,
    Path(id): Path<String>,
) -> Result<StatusCode, Failure> {
    let read = one(&state, &account, &id).await?;
    let change = StateChange {
        read: None,
        starred: Some(!read.state.starred),
    };
    state
        .store
        .set_entry_states(account.id, &[read.entry.id], change, Utc::now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
