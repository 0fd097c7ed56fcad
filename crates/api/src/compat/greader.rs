//! The Google Reader API under [`PREFIX`], over an account's reading state: what NetNewsWire,
//! Reeder, Read You, FeedMe, Fluent Reader and their kin speak (ClientLogin, token, user-info,
//! subscription list/edit/quickadd, tags, unread counts, stream ids and contents, edit-tag,
//! mark-all-as-read).
//!
//! `ClientLogin` takes the account's name and its API password and answers a session token
//! (`Auth=…`; hex, never an `=`, which NetNewsWire splits on). Requests send it as
//! `Authorization: GoogleLogin auth=TOKEN`; a bad one is a 401 with
//! `X-Reader-Google-Bad-Token: true`. The edit token (`T`) is the same token and is not
//! required: the API takes no cookie, so no other site can send a request with the header.
//! Parameters are read from the query and a form body alike, repeated keys kept (`i`, `s`,
//! `a`, `r`). Item ids go out as decimal strings in `itemRefs` and as
//! `tag:google.com,2005:reader/item/%016x` in items, and come in in any of the four forms
//! clients send ([`item_id`]); they stay below 2³¹ like every sync API's.

use super::{SyncAccount, folder_id, small_id};
use crate::AppState;
use crate::auth::client_ip;
use crate::ui::content::sanitise_outbound;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use tidings_model::{FeedId, FeedUrl, web_url};
use tidings_store::{
    NewSession, Placement, ReadEntry, ReadScope, ReadStatus, ReadingOrder, ReadingQuery,
    SessionKind, StateChange, StoreError, Subscriber, Subscription, SubscriptionEdit,
};

/// Where the API is mounted: a client's server URL.
pub const PREFIX: &str = "/compat/greader";
/// How long a ClientLogin token lives (clients log in again on a 401).
pub const SESSION_DAYS: i64 = 90;
/// Items a stream request lists when it names no count.
pub const DEFAULT_COUNT: u32 = 20;
/// The most item ids one `edit-tag` or `stream/items/contents` request may name.
pub const MAX_ITEMS: usize = 10_000;

const READ: &str = "user/-/state/com.google/read";
const STARRED: &str = "user/-/state/com.google/starred";
const READING_LIST: &str = "user/-/state/com.google/reading-list";
const KEPT_UNREAD: &str = "user/-/state/com.google/kept-unread";
const ITEM_PREFIX: &str = "tag:google.com,2005:reader/item/";

/// The routes, each under [`PREFIX`] (written out: every route's path is a literal).
pub fn routes() -> Router<AppState> {
    Router::new()
        // POST only: a password never travels in a URL a proxy may log.
        .route("/compat/greader/accounts/ClientLogin", post(client_login))
        .route("/compat/greader/reader/api/0/token", get(token).post(token))
        .route("/compat/greader/reader/api/0/user-info", get(user_info))
        .route(
            "/compat/greader/reader/api/0/subscription/list",
            get(subscription_list),
        )
        .route(
            "/compat/greader/reader/api/0/subscription/edit",
            post(subscription_edit),
        )
        .route(
            "/compat/greader/reader/api/0/subscription/quickadd",
            post(quickadd),
        )
        .route("/compat/greader/reader/api/0/tag/list", get(tag_list))
        .route("/compat/greader/reader/api/0/rename-tag", post(rename_tag))
        .route(
            "/compat/greader/reader/api/0/disable-tag",
            post(disable_tag),
        )
        .route(
            "/compat/greader/reader/api/0/unread-count",
            get(unread_count),
        )
        .route(
            "/compat/greader/reader/api/0/stream/items/ids",
            get(item_ids),
        )
        .route(
            "/compat/greader/reader/api/0/stream/items/contents",
            get(contents).post(contents),
        )
        .route(
            "/compat/greader/reader/api/0/stream/contents",
            get(stream_contents),
        )
        .route(
            "/compat/greader/reader/api/0/stream/contents/{*stream}",
            get(stream_contents_of),
        )
        .route("/compat/greader/reader/api/0/edit-tag", post(edit_tag))
        .route(
            "/compat/greader/reader/api/0/mark-all-as-read",
            post(mark_all_as_read),
        )
}

/// An item id as clients send it: `tag:google.com,2005:reader/item/` and hex (padded or not),
/// 16 hex digits alone, or decimal.
pub fn item_id(text: &str) -> Option<i64> {
    let text = text.trim();
    let id = if let Some(hex) = text.strip_prefix(ITEM_PREFIX) {
        i64::from_str_radix(hex, 16).ok()?
    } else if text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        i64::from_str_radix(text, 16).ok()?
    } else {
        text.parse().ok()?
    };
    small_id(id).map(i64::from)
}

/// The long form of an item id.
pub fn long_item_id(id: i64) -> String {
    format!("{ITEM_PREFIX}{id:016x}")
}

/// A failure, as plain text (what these clients show).
#[derive(Debug)]
pub struct Failure(StatusCode, String);

impl Failure {
    fn bad(message: impl Into<String>) -> Failure {
        Failure(StatusCode::BAD_REQUEST, message.into())
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        let (status, message) = super::store_failed("google reader api", &e);
        Failure(status, message)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut response = (self.0, self.1).into_response();
        if self.0 == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                "x-reader-google-bad-token",
                HeaderValue::from_static("true"),
            );
        }
        response
    }
}

/// The parameters of a request: its query and its form body, in order, repeats kept.
struct Params(Vec<(String, String)>);

impl Params {
    fn of(query: Option<String>, body: &[u8]) -> Params {
        let mut pairs: Vec<(String, String)> = query
            .as_deref()
            .map(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        pairs.extend(url::form_urlencoded::parse(body).into_owned());
        Params(pairs)
    }

    fn first(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn all(&self, key: &str) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, Failure> {
        self.first(key)
            .filter(|v| !v.is_empty())
            .map(|v| {
                v.parse()
                    .map_err(|_| Failure::bad(format!("{key} must be a whole number, not {v:?}")))
            })
            .transpose()
    }
}

/// The account a request's token belongs to.
pub struct Reader(pub SyncAccount);

impl FromRequestParts<AppState> for Reader {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Reader, Failure> {
        let unauthorized = || Failure(StatusCode::UNAUTHORIZED, "Unauthorized".into());
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, rest) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("googlelogin").then_some(rest)
            })
            .and_then(|rest| rest.trim().strip_prefix("auth="))
            .ok_or_else(unauthorized)?;
        let client = client_ip(parts);
        state.auth.may_try(client).map_err(|wait| {
            Failure(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many failed logins; try again in {} s",
                    wait.as_secs().max(1)
                ),
            )
        })?;
        match state
            .store
            .session_account(&token_hash(token), SessionKind::Sync, Utc::now())
            .await?
        {
            Some(account) => Ok(Reader(SyncAccount {
                id: account.id,
                admin: account.role == tidings_store::AccountRole::Admin,
                name: account.name,
            })),
            None => {
                state.auth.failed(client);
                Err(unauthorized())
            }
        }
    }
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// `POST /accounts/ClientLogin`: `Email` (the account's name) and `Passwd` (its API password)
/// in, `SID`, `LSID` and `Auth` out (JSON with `output=json`).
async fn client_login(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    parts: axum::http::request::Parts,
    body: Bytes,
) -> Result<Response, Failure> {
    let params = Params::of(query, &body);
    let (Some(name), Some(password)) = (params.first("Email"), params.first("Passwd")) else {
        return Err(Failure(
            StatusCode::UNAUTHORIZED,
            "Error=BadAuthentication\n".into(),
        ));
    };
    let account = match super::login(&state, name, password, client_ip(&parts)).await {
        Ok(account) => account,
        Err(super::Refused::Throttled(wait)) => {
            return Err(Failure(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many failed logins; try again in {} s",
                    wait.as_secs().max(1)
                ),
            ));
        }
        Err(super::Refused::Unavailable) => {
            return Err(Failure(
                StatusCode::SERVICE_UNAVAILABLE,
                "the store is unavailable".into(),
            ));
        }
        Err(super::Refused::Unauthorized) => {
            return Err(Failure(
                StatusCode::UNAUTHORIZED,
                "Error=BadAuthentication\n".into(),
            ));
        }
    };
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::warn!(error = %e, "no random bytes for a session token");
        Failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "no session can be opened now".into(),
        )
    })?;
    let token = format!("{}/{}", account.id, hex::encode(bytes));
    let now = Utc::now();
    state
        .store
        .create_session(&NewSession {
            token_hash: token_hash(&token),
            account_id: account.id,
            kind: SessionKind::Sync,
            created_at: now,
            expires_at: now + Duration::days(SESSION_DAYS),
        })
        .await?;
    tracing::info!(account = %account.name, "google reader api: logged in");
    if params.first("output") == Some("json") {
        return Ok(
            axum::Json(json!({ "SID": token, "LSID": token, "Auth": token })).into_response(),
        );
    }
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("SID={token}\nLSID={token}\nAuth={token}\n"),
    )
        .into_response())
}

/// `GET /reader/api/0/token`: the edit token, the session token itself.
async fn token(parts: Parts, Reader(_): Reader) -> Result<String, Failure> {
    let header = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    Ok(header
        .split_once("auth=")
        .map(|(_, t)| t.trim().to_owned())
        .unwrap_or_default())
}

async fn user_info(Reader(account): Reader) -> axum::Json<Value> {
    axum::Json(json!({
        "userId": account.id.to_string(),
        "userName": account.name,
        "userProfileId": account.id.to_string(),
        "userEmail": "",
    }))
}

fn label_id(folder: &str) -> String {
    format!("user/-/label/{folder}")
}

/// A stream id as clients send it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stream {
    ReadingList,
    Starred,
    Read,
    Label(String),
    Feed(FeedId),
    FeedUrl(String),
}

impl Stream {
    fn parse(text: &str) -> Option<Stream> {
        // `user/-/…` and `user/<id>/…` name the same account's streams.
        let rest = match text.strip_prefix("user/") {
            Some(rest) => rest.split_once('/')?.1,
            None => {
                let feed = text.strip_prefix("feed/")?;
                return Some(match feed.parse::<i64>() {
                    Ok(id) => Stream::Feed(FeedId(id)),
                    Err(_) => Stream::FeedUrl(feed.to_owned()),
                });
            }
        };
        if let Some(label) = rest.strip_prefix("label/") {
            return Some(Stream::Label(label.to_owned()));
        }
        match rest.strip_prefix("state/com.google/")? {
            "reading-list" => Some(Stream::ReadingList),
            "starred" => Some(Stream::Starred),
            "read" => Some(Stream::Read),
            _ => None,
        }
    }

    /// Narrow `query` to this stream of an account with subscriptions `subs`.
    fn narrow(
        &self,
        subs: &[Subscription],
        feeds: &[FeedUrlOf],
        query: &mut ReadingQuery,
    ) -> Result<(), Failure> {
        match self {
            Stream::ReadingList => {}
            Stream::Starred => query.starred = Some(true),
            Stream::Read => query.status = Some(ReadStatus::Read),
            Stream::Label(name) => query.folder = Some(name.clone()),
            Stream::Feed(id) => {
                if !subs.iter().any(|s| s.feed_id == *id) {
                    return Err(Failure(StatusCode::NOT_FOUND, "no such feed".into()));
                }
                query.feed = Some(*id);
            }
            Stream::FeedUrl(url) => {
                let id = feeds
                    .iter()
                    .find(|f| f.url == *url)
                    .map(|f| f.id)
                    .ok_or_else(|| Failure(StatusCode::NOT_FOUND, "no such feed".into()))?;
                query.feed = Some(id);
            }
        }
        Ok(())
    }
}

/// A subscribed feed's id and URL, for `feed/URL` streams.
struct FeedUrlOf {
    id: FeedId,
    url: String,
}

async fn feed_urls(state: &AppState, subs: &[Subscription]) -> Result<Vec<FeedUrlOf>, Failure> {
    let mut out = Vec::new();
    for sub in subs {
        if let Some(feed) = state.store.feed(sub.feed_id).await? {
            out.push(FeedUrlOf {
                id: feed.id,
                url: feed.url.to_string(),
            });
        }
    }
    Ok(out)
}

async fn subscription_list(
    State(state): State<AppState>,
    Reader(account): Reader,
) -> Result<axum::Json<Value>, Failure> {
    let mut list = Vec::new();
    for sub in state.store.subscriptions(account.id).await? {
        let (Some(id), Some(feed)) = (
            small_id(sub.feed_id.0),
            state.store.feed(sub.feed_id).await?,
        ) else {
            continue;
        };
        let categories: Vec<Value> = sub
            .folder
            .iter()
            .map(|f| json!({ "id": label_id(f), "label": f }))
            .collect();
        list.push(json!({
            "id": format!("feed/{id}"),
            "title": sub.title.clone().or(feed.title.clone()).unwrap_or_else(|| feed.url.to_string()),
            "categories": categories,
            "url": feed.url.to_string(),
            "htmlUrl": feed.site_link.as_deref().and_then(web_url).unwrap_or_default(),
            "iconUrl": "",
        }));
    }
    Ok(axum::Json(json!({ "subscriptions": list })))
}

/// The folder a label stream names.
fn label_of(stream: &str) -> Option<String> {
    match Stream::parse(stream)? {
        Stream::Label(name) => Some(name),
        _ => None,
    }
}

/// Subscribe `account` to `url` through tidings' own subscribe path (rules, reachability, one
/// feed for all).
async fn subscribe(
    state: &AppState,
    account: &SyncAccount,
    url: &str,
    placement: &Placement,
) -> Result<tidings_store::FeedRecord, Failure> {
    let url = FeedUrl::parse(url).map_err(|e| Failure::bad(format!("not a feed URL: {e}")))?;
    let who = Subscriber::Account {
        id: account.id,
        placement,
    };
    crate::v1::feeds::subscribe(state, who, &url)
        .await
        .map(|(_, feed)| feed)
        .map_err(|problem| Failure(problem.kind.status(), problem.detail))
}

/// `POST subscription/edit`: `ac=subscribe|unsubscribe|edit` with `s` (feed streams), `t` (a
/// title), `a` and `r` (a folder to file under or leave).
async fn subscription_edit(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<&'static str, Failure> {
    let params = Params::of(query, &body);
    let streams: Vec<&str> = params.all("s").collect();
    if streams.is_empty() {
        return Err(Failure::bad("s (a feed stream) is required"));
    }
    let title = params.first("t").map(str::to_owned);
    let add = params.all("a").find_map(label_of);
    let remove = params.all("r").find_map(label_of);
    let subs = state.store.subscriptions(account.id).await?;
    let feeds = feed_urls(&state, &subs).await?;
    for stream in streams {
        match params.first("ac") {
            Some("subscribe") => {
                let url = stream.strip_prefix("feed/").unwrap_or(stream);
                let placement = Placement {
                    title: title.clone(),
                    folder: add.clone(),
                };
                subscribe(&state, &account, url, &placement).await?;
            }
            Some("unsubscribe") => {
                let id = feed_of(stream, &subs, &feeds)?;
                state.store.unsubscribe_account(account.id, id).await?;
            }
            Some("edit") => {
                let id = feed_of(stream, &subs, &feeds)?;
                let folder = match (&add, &remove) {
                    (Some(f), _) => Some(Some(f.clone())),
                    (None, Some(_)) => Some(None),
                    (None, None) => None,
                };
                let edit = SubscriptionEdit {
                    title: title.clone().map(Some),
                    folder,
                };
                state.store.edit_subscription(account.id, id, &edit).await?;
            }
            other => {
                return Err(Failure::bad(format!(
                    "ac is subscribe, unsubscribe or edit, not {:?}",
                    other.unwrap_or("")
                )));
            }
        }
    }
    Ok("OK")
}

/// The subscribed feed a `feed/…` stream names.
fn feed_of(stream: &str, subs: &[Subscription], feeds: &[FeedUrlOf]) -> Result<FeedId, Failure> {
    let mut query = ReadingQuery::default();
    match Stream::parse(stream) {
        Some(s @ (Stream::Feed(_) | Stream::FeedUrl(_))) => s.narrow(subs, feeds, &mut query)?,
        _ => return Err(Failure::bad(format!("{stream:?} is not a feed stream"))),
    }
    query
        .feed
        .ok_or_else(|| Failure::bad(format!("{stream:?} is not a feed stream")))
}

/// `POST subscription/quickadd`: `quickadd=URL`.
async fn quickadd(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<axum::Json<Value>, Failure> {
    let params = Params::of(query, &body);
    let url = params
        .first("quickadd")
        .ok_or_else(|| Failure::bad("quickadd (a feed URL) is required"))?;
    let url = url.strip_prefix("feed/").unwrap_or(url);
    let feed = subscribe(&state, &account, url, &Placement::default()).await?;
    Ok(axum::Json(json!({
        "numResults": 1,
        "query": url,
        "streamId": format!("feed/{}", feed.id),
        "streamName": feed.title.clone().unwrap_or_else(|| feed.url.to_string()),
    })))
}

async fn tag_list(
    State(state): State<AppState>,
    Reader(account): Reader,
) -> Result<axum::Json<Value>, Failure> {
    let folders = super::folders(&state, account.id).await?;
    let mut tags = vec![json!({ "id": STARRED })];
    tags.extend(
        folders
            .iter()
            .map(|f| json!({ "id": label_id(f), "type": "folder", "sortid": format!("{:08X}", folder_id(f)) })),
    );
    Ok(axum::Json(json!({ "tags": tags })))
}

/// The folder named by `s` (a label stream) or `t` (a bare name).
fn folder_param(params: &Params) -> Result<String, Failure> {
    params
        .first("s")
        .and_then(label_of)
        .or_else(|| params.first("t").map(str::to_owned))
        .ok_or_else(|| Failure::bad("s (a label stream) or t (a folder) is required"))
}

async fn rename_tag(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<&'static str, Failure> {
    let params = Params::of(query, &body);
    let from = folder_param(&params)?;
    let to = params
        .first("dest")
        .and_then(label_of)
        .ok_or_else(|| Failure::bad("dest (a label stream) is required"))?;
    state
        .store
        .rename_folder(account.id, &from, Some(&to))
        .await?;
    Ok("OK")
}

async fn disable_tag(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<&'static str, Failure> {
    let params = Params::of(query, &body);
    let folder = folder_param(&params)?;
    state.store.rename_folder(account.id, &folder, None).await?;
    Ok("OK")
}

fn micros(at: DateTime<Utc>) -> String {
    at.timestamp_micros().to_string()
}

async fn unread_count(
    State(state): State<AppState>,
    Reader(account): Reader,
) -> Result<axum::Json<Value>, Failure> {
    let subs = state.store.subscriptions(account.id).await?;
    let mut counts = Vec::new();
    let mut folders: BTreeMap<String, (u64, Option<DateTime<Utc>>)> = BTreeMap::new();
    let mut total = (0u64, None::<DateTime<Utc>>);
    for sub in &subs {
        let Some(id) = small_id(sub.feed_id.0) else {
            continue;
        };
        // The newest unread item's arrival, which clients compare with what they hold.
        let newest = state
            .store
            .reading(&ReadingQuery {
                account: account.id,
                feed: Some(sub.feed_id),
                status: Some(ReadStatus::Unread),
                order: ReadingOrder::IdDescending,
                limit: 1,
                ..ReadingQuery::default()
            })
            .await?
            .first()
            .map(|r| r.entry.first_seen_at);
        counts.push(json!({
            "id": format!("feed/{id}"),
            "count": sub.unread,
            "newestItemTimestampUsec": newest.map(micros).unwrap_or_else(|| "0".into()),
        }));
        let add = |slot: &mut (u64, Option<DateTime<Utc>>)| {
            slot.0 += sub.unread;
            slot.1 = slot.1.max(newest);
        };
        if let Some(folder) = &sub.folder {
            add(folders.entry(folder.clone()).or_default());
        }
        add(&mut total);
    }
    for (folder, (count, newest)) in &folders {
        counts.push(json!({
            "id": label_id(folder),
            "count": count,
            "newestItemTimestampUsec": newest.map(micros).unwrap_or_else(|| "0".into()),
        }));
    }
    counts.push(json!({
        "id": READING_LIST,
        "count": total.0,
        "newestItemTimestampUsec": total.1.map(micros).unwrap_or_else(|| "0".into()),
    }));
    Ok(axum::Json(
        json!({ "max": total.0, "unreadcounts": counts }),
    ))
}

/// The store query for a stream request: `s` (or the stream in the path), `xt` and `it`,
/// `ot`/`nt` (Unix seconds), `r=o` (oldest first), `n` and the continuation `c` (an offset).
async fn stream_query(
    state: &AppState,
    account: &SyncAccount,
    params: &Params,
    stream: Option<&str>,
) -> Result<ReadingQuery, Failure> {
    let subs = state.store.subscriptions(account.id).await?;
    let feeds = feed_urls(state, &subs).await?;
    let stream_text = stream.or(params.first("s")).unwrap_or(READING_LIST);
    let stream = Stream::parse(stream_text)
        .ok_or_else(|| Failure::bad(format!("unknown stream {stream_text:?}")))?;
    let mut query = ReadingQuery {
        account: account.id,
        current_at: Some(Utc::now()),
        limit: params.number("n")?.unwrap_or(DEFAULT_COUNT),
        offset: params.number("c")?.unwrap_or(0),
        order: if params.first("r") == Some("o") {
            ReadingOrder::OldestFirst
        } else {
            ReadingOrder::NewestFirst
        },
        ..ReadingQuery::default()
    };
    stream.narrow(&subs, &feeds, &mut query)?;
    for excluded in params.all("xt") {
        match Stream::parse(excluded) {
            Some(Stream::Read) => query.status = Some(ReadStatus::Unread),
            Some(Stream::Starred) => query.starred = Some(false),
            _ => {}
        }
    }
    for included in params.all("it") {
        match Stream::parse(included) {
            Some(Stream::Read) => query.status = Some(ReadStatus::Read),
            Some(Stream::Starred) => query.starred = Some(true),
            _ => {}
        }
    }
    let unix = |key: &str| -> Result<Option<DateTime<Utc>>, Failure> {
        params
            .number::<i64>(key)?
            .map(|s| {
                DateTime::from_timestamp(s, 0)
                    .ok_or_else(|| Failure::bad(format!("{key} is out of range")))
            })
            .transpose()
    };
    query.since = unix("ot")?;
    query.until = unix("nt")?;
    Ok(query)
}

/// The continuation for the page after `query`'s, when there may be one.
fn continuation(query: &ReadingQuery, listed: usize) -> Option<String> {
    let asked = if query.limit == 0 {
        tidings_store::reading::DEFAULT_READING_LIMIT
    } else {
        query.limit.min(tidings_store::reading::MAX_READING_LIMIT)
    };
    (listed > 0 && listed >= asked as usize).then(|| (query.offset + asked).to_string())
}

async fn item_ids(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
) -> Result<axum::Json<Value>, Failure> {
    let params = Params::of(query, &[]);
    let query = stream_query(&state, &account, &params, None).await?;
    let found = state.store.reading(&query).await?;
    let refs: Vec<Value> = found
        .iter()
        .filter_map(|r| small_id(r.entry.id))
        .map(|id| json!({ "id": id.to_string() }))
        .collect();
    let mut answer = json!({ "itemRefs": refs });
    if let Some(c) = continuation(&query, found.len()) {
        answer["continuation"] = json!(c);
    }
    Ok(axum::Json(answer))
}

/// The items of a stream, as `stream/contents` and `stream/items/contents` answer them.
async fn items_json(
    state: &AppState,
    account: &SyncAccount,
    found: &[ReadEntry],
) -> Result<Vec<Value>, Failure> {
    let subs = state.store.subscriptions(account.id).await?;
    let shown: BTreeSet<FeedId> = found.iter().map(|r| r.entry.feed_id).collect();
    let mut feeds = BTreeMap::new();
    for sub in subs.iter().filter(|s| shown.contains(&s.feed_id)) {
        if let Some(feed) = state.store.feed(sub.feed_id).await? {
            feeds.insert(sub.feed_id, (sub.clone(), feed));
        }
    }
    Ok(found
        .iter()
        .filter_map(|read| item_json(read, feeds.get(&read.entry.feed_id)))
        .collect())
}

fn item_json(
    read: &ReadEntry,
    feed: Option<&(Subscription, tidings_store::FeedRecord)>,
) -> Option<Value> {
    let stored = &read.entry;
    let (id, feed_id) = (small_id(stored.id)?, small_id(stored.feed_id.0)?);
    let e = &stored.entry;
    let link = e.link.as_deref().and_then(web_url);
    let html = e.content.as_deref().or(e.summary.as_deref()).unwrap_or("");
    let content = sanitise_outbound(html, e.html_base());
    let mut categories = vec![READING_LIST.to_owned()];
    if let Some(folder) = feed.and_then(|(s, _)| s.folder.as_deref()) {
        categories.push(label_id(folder));
    }
    if read.state.read {
        categories.push(READ.to_owned());
    }
    if read.state.starred {
        categories.push(STARRED.to_owned());
    }
    let links: Vec<Value> = link
        .iter()
        .map(|href| json!({ "href": href, "type": "text/html" }))
        .collect();
    let canonical: Vec<Value> = link.iter().map(|href| json!({ "href": href })).collect();
    let (title, html_url) = match feed {
        Some((sub, f)) => (
            sub.title
                .clone()
                .or(f.title.clone())
                .unwrap_or_else(|| f.url.to_string()),
            f.site_link.as_deref().and_then(web_url).unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    };
    Some(json!({
        "id": long_item_id(i64::from(id)),
        "crawlTimeMsec": stored.first_seen_at.timestamp_millis().to_string(),
        "timestampUsec": micros(stored.first_seen_at),
        "published": stored.sort_at.timestamp(),
        "updated": stored.updated_at.timestamp(),
        "title": e.title.clone().unwrap_or_default(),
        "author": e.authors.iter().find_map(|a| a.name.clone()).unwrap_or_default(),
        "alternate": links,
        "canonical": canonical,
        "summary": { "direction": "ltr", "content": content },
        "categories": categories,
        "origin": { "streamId": format!("feed/{feed_id}"), "title": title, "htmlUrl": html_url },
    }))
}

/// `stream/items/contents`: the items named by repeated `i`.
async fn contents(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<axum::Json<Value>, Failure> {
    let params = Params::of(query, &body);
    let ids = ids_of(&params)?;
    let query = ReadingQuery {
        account: account.id,
        ids: Some(ids),
        limit: tidings_store::reading::MAX_READING_LIMIT,
        ..ReadingQuery::default()
    };
    let found = state.store.reading(&query).await?;
    let items = items_json(&state, &account, &found).await?;
    Ok(axum::Json(json!({
        "id": READING_LIST,
        "updated": Utc::now().timestamp(),
        "items": items,
    })))
}

/// The item ids of repeated `i`, each in any form clients send.
fn ids_of(params: &Params) -> Result<Vec<i64>, Failure> {
    let ids: Vec<i64> = params
        .all("i")
        .map(|i| item_id(i).ok_or_else(|| Failure::bad(format!("not an item id: {i:?}"))))
        .collect::<Result<_, _>>()?;
    if ids.is_empty() {
        return Err(Failure::bad("i (an item id) is required"));
    }
    if ids.len() > MAX_ITEMS {
        return Err(Failure::bad(format!("at most {MAX_ITEMS} items at once")));
    }
    Ok(ids)
}

async fn stream_contents(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
) -> Result<axum::Json<Value>, Failure> {
    stream_answer(&state, &account, &Params::of(query, &[]), None).await
}

async fn stream_contents_of(
    State(state): State<AppState>,
    Reader(account): Reader,
    Path(stream): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<axum::Json<Value>, Failure> {
    stream_answer(&state, &account, &Params::of(query, &[]), Some(&stream)).await
}

async fn stream_answer(
    state: &AppState,
    account: &SyncAccount,
    params: &Params,
    stream: Option<&str>,
) -> Result<axum::Json<Value>, Failure> {
    let query = stream_query(state, account, params, stream).await?;
    let found = state.store.reading(&query).await?;
    let items = items_json(state, account, &found).await?;
    let id = stream.or(params.first("s")).unwrap_or(READING_LIST);
    let mut answer = json!({
        "id": id,
        "updated": Utc::now().timestamp(),
        "items": items,
    });
    if let Some(c) = continuation(&query, found.len()) {
        answer["continuation"] = json!(c);
    }
    Ok(axum::Json(answer))
}

/// `POST edit-tag`: repeated `i`; `a` and `r` add and remove `read`, `starred` or
/// `kept-unread`. Labels on single items are not kept (a folder is a feed's).
async fn edit_tag(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<&'static str, Failure> {
    let params = Params::of(query, &body);
    let ids = ids_of(&params)?;
    let mut change = StateChange::default();
    let named = |tag: &str, which: &str| {
        // `user/<id>/state/…` names the same state as `user/-/state/…`.
        tag.split_once("/state/")
            .is_some_and(|(_, rest)| which.ends_with(&format!("/state/{rest}")))
    };
    for tag in params.all("a") {
        if named(tag, READ) {
            change.read = Some(true);
        } else if named(tag, STARRED) {
            change.starred = Some(true);
        } else if named(tag, KEPT_UNREAD) {
            change.read = Some(false);
        }
    }
    for tag in params.all("r") {
        if named(tag, READ) {
            change.read = Some(false);
        } else if named(tag, STARRED) {
            change.starred = Some(false);
        }
    }
    state
        .store
        .set_entry_states(account.id, &ids, change, Utc::now())
        .await?;
    Ok("OK")
}

/// `POST mark-all-as-read`: `s` (a feed, a label or the reading list) up to `ts` (Unix seconds,
/// or microseconds when it has 16 digits or more; now when absent).
async fn mark_all_as_read(
    State(state): State<AppState>,
    Reader(account): Reader,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<&'static str, Failure> {
    let params = Params::of(query, &body);
    let now = Utc::now();
    let up_to = match params.first("ts").filter(|t| !t.is_empty()) {
        None => now,
        Some(ts) => {
            let n: i64 = ts
                .parse()
                .map_err(|_| Failure::bad(format!("ts must be a whole number, not {ts:?}")))?;
            let at = if ts.len() >= 16 {
                DateTime::from_timestamp_micros(n)
            } else {
                DateTime::from_timestamp(n, 0)
            };
            at.ok_or_else(|| Failure::bad("ts is out of range"))?
        }
    };
    let subs = state.store.subscriptions(account.id).await?;
    let feeds = feed_urls(&state, &subs).await?;
    let stream = params.first("s").unwrap_or(READING_LIST);
    let scope = match Stream::parse(stream) {
        Some(Stream::ReadingList) => ReadScope::All,
        Some(Stream::Label(name)) => ReadScope::Folder(name),
        Some(Stream::Feed(_) | Stream::FeedUrl(_)) => {
            ReadScope::Feed(feed_of(stream, &subs, &feeds)?)
        }
        _ => return Err(Failure::bad(format!("{stream:?} cannot be marked read"))),
    };
    state
        .store
        .mark_all_read(account.id, &scope, up_to, now)
        .await?;
    Ok("OK")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_form_clients_send_reads_back() {
        // Ids across the range below 2^31, and the edges.
        let mut ids = vec![1i64, 15, 16, 255, 4096, 0x7fff_ffff];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ids.push(1 + (x % 0x7fff_ffff) as i64);
        }
        for id in ids {
            let forms = [
                long_item_id(id),
                format!("{ITEM_PREFIX}{id:x}"),
                format!("{id:016x}"),
                id.to_string(),
            ];
            for form in &forms {
                assert_eq!(item_id(form), Some(id), "{form}");
            }
        }
        assert_eq!(
            long_item_id(0x148b9369),
            "tag:google.com,2005:reader/item/00000000148b9369"
        );
        for bad in [
            "",
            "x",
            "tag:google.com,2005:reader/item/zz",
            "-5",
            "0",
            "5000000001",
        ] {
            assert_eq!(item_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn streams_are_read_in_every_spelling() {
        let cases = [
            (
                "user/-/state/com.google/reading-list",
                Some(Stream::ReadingList),
            ),
            ("user/1234/state/com.google/starred", Some(Stream::Starred)),
            ("user/-/state/com.google/read", Some(Stream::Read)),
            (
                "user/-/label/Tech news",
                Some(Stream::Label("Tech news".into())),
            ),
            ("feed/42", Some(Stream::Feed(FeedId(42)))),
            (
                "feed/https://example.org/feed.xml",
                Some(Stream::FeedUrl("https://example.org/feed.xml".into())),
            ),
            ("user/-/state/com.google/broadcast", None),
            ("nonsense", None),
        ];
        for (text, want) in cases {
            assert_eq!(Stream::parse(text), want, "{text}");
        }
    }
}
