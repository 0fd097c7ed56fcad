//! An account's own reading, for a key that belongs to an account (`tidings keys create --user
//! NAME`): its subscriptions with their unread counts, folders and titles, its entries with
//! their read and starred state, marks, and "mark all read" up to a time. Nothing here sees or
//! changes another account's state.

use super::params;
use super::wire::Entry;
use crate::AppState;
use crate::auth::AccountAccess;
use crate::openapi::AccountErrors;
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tidings_store::{
    ReadScope, ReadStatus, ReadingOrder, ReadingQuery, StateChange, SubscriptionEdit, UnreadCounts,
};
use utoipa::{IntoParams, ToSchema};

/// One of the account's subscriptions.
#[derive(Debug, Serialize, ToSchema)]
pub struct Subscription {
    pub feed_id: i64,
    /// The account's own title for the feed, if it gave one.
    pub title: Option<String>,
    /// The feed's title as it names itself.
    pub feed_title: Option<String>,
    pub feed_url: String,
    /// The folder it is filed under.
    pub folder: Option<String>,
    pub unread: u64,
    pub subscribed_at: DateTime<Utc>,
}

/// A folder and its unread entries.
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderCount {
    pub folder: String,
    pub unread: u64,
}

/// The account's subscriptions, by feed id, with unread counts per folder and in all.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubscriptionList {
    pub subscriptions: Vec<Subscription>,
    pub folders: Vec<FolderCount>,
    pub unread: u64,
}

async fn subscription(
    state: &AppState,
    sub: tidings_store::Subscription,
) -> Result<Option<Subscription>, Problem> {
    Ok(state
        .store
        .feed(sub.feed_id)
        .await?
        .map(|feed| Subscription {
            feed_id: sub.feed_id.0,
            title: sub.title,
            feed_title: feed.title,
            feed_url: feed.url.to_string(),
            folder: sub.folder,
            unread: sub.unread,
            subscribed_at: sub.subscribed_at,
        }))
}

/// The account's subscriptions with their unread counts.
#[utoipa::path(
    get,
    path = "/v1/subscriptions",
    operation_id = "list_subscriptions",
    tag = "reading",
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The subscriptions and unread counts.", body = SubscriptionList),
        AccountErrors,
    )
)]
pub async fn subscriptions(
    State(state): State<AppState>,
    access: AccountAccess,
) -> Result<Json<SubscriptionList>, Problem> {
    let subs = state.store.subscriptions(access.account).await?;
    let counts = UnreadCounts::of(&subs);
    let mut list = Vec::with_capacity(subs.len());
    for sub in subs {
        list.extend(subscription(&state, sub).await?);
    }
    Ok(Json(SubscriptionList {
        subscriptions: list,
        folders: counts
            .folders
            .into_iter()
            .map(|(folder, unread)| FolderCount { folder, unread })
            .collect(),
        unread: counts.total,
    }))
}

/// A change to a subscription: a field present is set, `null` clears it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionChange {
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub title: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub folder: Option<Option<String>>,
}

/// A field that is present: `Some(None)` for `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Rename a subscription or file it under a folder.
#[utoipa::path(
    patch,
    path = "/v1/subscriptions/{id}",
    operation_id = "change_subscription",
    tag = "reading",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    request_body(content = SubscriptionChange, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The subscription as it is now.", body = Subscription),
        (status = BAD_REQUEST, description = "`feed_id` or the body is malformed.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "The account does not subscribe to this feed.",
            body = problem::Body, content_type = "application/problem+json"),
        AccountErrors,
    )
)]
pub async fn change_subscription(
    State(state): State<AppState>,
    access: AccountAccess,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<Subscription>, Problem> {
    let Path(id) = id?;
    let feed = params::feed_id("id", &id)?;
    let change: SubscriptionChange =
        params::json_object(body, r#"{"title": "My name for it", "folder": "News"}"#)?;
    let edit = SubscriptionEdit {
        title: change.title,
        folder: change.folder,
    };
    let not_found = || {
        Problem::new(
            ProblemKind::NotFound,
            format!("the account does not subscribe to feed {feed}"),
        )
    };
    if !state
        .store
        .edit_subscription(access.account, feed, &edit)
        .await?
    {
        return Err(not_found());
    }
    let sub = state
        .store
        .subscriptions(access.account)
        .await?
        .into_iter()
        .find(|s| s.feed_id == feed)
        .ok_or_else(not_found)?;
    subscription(&state, sub)
        .await?
        .map(Json)
        .ok_or_else(not_found)
}

/// The query string of `GET /v1/reading`, as text; [`params`] reads each value.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReadingParams {
    /// Only unread or only read entries.
    #[param(value_type = Option<String>, pattern = "^(unread|read)$")]
    status: Option<String>,
    /// Only starred entries (`true`) or only the others (`false`).
    #[param(value_type = Option<bool>)]
    starred: Option<String>,
    /// Only this feed's entries.
    #[param(value_type = Option<i64>, minimum = 1)]
    feed: Option<String>,
    /// Only the entries of the feeds filed under this folder.
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    folder: Option<String>,
    /// Oldest first instead of newest first.
    #[param(value_type = Option<bool>)]
    oldest_first: Option<String>,
    /// Entries per page.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500, default = 50)]
    limit: Option<String>,
    /// Entries to skip.
    #[param(value_type = Option<u32>, minimum = 0, maximum = 1000000)]
    offset: Option<String>,
}

/// An entry with the account's state of it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReadingEntry {
    pub entry: Entry,
    pub read: bool,
    pub starred: bool,
    /// When its state last changed (or it arrived).
    pub changed_at: DateTime<Utc>,
}

/// A page of the account's entries.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReadingPage {
    pub entries: Vec<ReadingEntry>,
    /// How many entries the query selects in all.
    pub total: u64,
}

/// The account's entries with their state, a page at a time.
#[utoipa::path(
    get,
    path = "/v1/reading",
    operation_id = "list_reading",
    tag = "reading",
    params(ReadingParams),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "One page of the account's entries.", body = ReadingPage),
        (status = BAD_REQUEST, description = "A parameter is malformed or out of bounds; \
            `parameter` names it.",
            body = problem::Body, content_type = "application/problem+json"),
        AccountErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    access: AccountAccess,
    query: Result<Query<ReadingParams>, QueryRejection>,
) -> Result<Json<ReadingPage>, Problem> {
    let Query(p) = query?;
    let status = match p.status.as_deref() {
        None => None,
        Some("unread") => Some(ReadStatus::Unread),
        Some("read") => Some(ReadStatus::Read),
        Some(other) => {
            return Err(Problem::invalid(
                "status",
                format!("status is unread or read, not {other:?}"),
            ));
        }
    };
    let starred = match p.starred.as_deref() {
        None => None,
        Some(_) => Some(params::flag("starred", p.starred.as_deref())?),
    };
    let offset = match p.offset.as_deref() {
        None => 0,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= 1_000_000)
            .ok_or_else(|| {
                Problem::invalid("offset", "offset is a whole number from 0 to 1000000")
            })?,
    };
    let query = ReadingQuery {
        account: access.account,
        feed: p
            .feed
            .as_deref()
            .map(|f| params::feed_id("feed", f))
            .transpose()?,
        folder: p.folder.as_deref().map(params::category).transpose()?,
        status,
        starred,
        current_at: Some(Utc::now()),
        order: if params::flag("oldest_first", p.oldest_first.as_deref())? {
            ReadingOrder::OldestFirst
        } else {
            ReadingOrder::NewestFirst
        },
        offset,
        limit: params::limit(p.limit.as_deref())?,
        ..ReadingQuery::default()
    };
    let found = state.store.reading(&query).await?;
    let total = state.store.count_reading(&query).await?;
    Ok(Json(ReadingPage {
        entries: found
            .iter()
            .map(|r| ReadingEntry {
                entry: Entry::from(&r.entry),
                read: r.state.read,
                starred: r.state.starred,
                changed_at: r.state.changed_at,
            })
            .collect(),
        total,
    }))
}

/// Entries to mark: each field present is set on every one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Marks {
    /// At most 10,000 entry ids.
    #[schema(min_items = 1, max_items = 10000)]
    pub entry_ids: Vec<i64>,
    pub read: Option<bool>,
    pub starred: Option<bool>,
}

/// What a mark changed.
#[derive(Debug, Serialize, ToSchema)]
pub struct Marked {
    /// Entries whose state changed (an entry of a feed the account does not subscribe to, or
    /// already in that state, does not count).
    pub changed: u64,
}

/// Mark entries read or unread, starred or not.
#[utoipa::path(
    post,
    path = "/v1/reading/marks",
    operation_id = "mark_entries",
    tag = "reading",
    request_body(content = Marks, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "What changed.", body = Marked),
        (status = BAD_REQUEST, description = "The body is malformed, names no entry or too \
            many, or sets nothing.",
            body = problem::Body, content_type = "application/problem+json"),
        AccountErrors,
    )
)]
pub async fn mark(
    State(state): State<AppState>,
    access: AccountAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<Marked>, Problem> {
    let marks: Marks = params::json_object(body, r#"{"entry_ids": [1, 2], "read": true}"#)?;
    if marks.entry_ids.is_empty() || marks.entry_ids.len() > 10_000 {
        return Err(Problem::invalid(
            "entry_ids",
            "entry_ids names 1 to 10000 entries",
        ));
    }
    if marks.read.is_none() && marks.starred.is_none() {
        return Err(Problem::invalid("body", "set read, starred or both"));
    }
    let change = StateChange {
        read: marks.read,
        starred: marks.starred,
    };
    let changed = state
        .store
        .set_entry_states(access.account, &marks.entry_ids, change, Utc::now())
        .await?;
    Ok(Json(Marked { changed }))
}

/// Which entries "mark all read" covers: a feed, a folder, or (neither) every subscription.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkAllRead {
    #[schema(minimum = 1)]
    pub feed_id: Option<i64>,
    #[schema(max_length = 200)]
    pub folder: Option<String>,
    /// Only entries that arrived at or before this time (default: now; never later).
    pub up_to: Option<DateTime<Utc>>,
}

/// What "mark all read" did.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarkedAll {
    /// Entries that were unread and are read now.
    pub marked: u64,
}

/// Mark every entry of a feed, a folder or every subscription read, up to a time.
#[utoipa::path(
    post,
    path = "/v1/reading/mark-all-read",
    operation_id = "mark_all_read",
    tag = "reading",
    request_body(content = MarkAllRead, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "How many entries were marked.", body = MarkedAll),
        (status = BAD_REQUEST, description = "The body is malformed, or names both a feed and \
            a folder.",
            body = problem::Body, content_type = "application/problem+json"),
        AccountErrors,
    )
)]
pub async fn mark_all_read(
    State(state): State<AppState>,
    access: AccountAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<MarkedAll>, Problem> {
    let body: MarkAllRead = params::json_object(body, r#"{"feed_id": 7}"#)?;
    let scope = match (body.feed_id, body.folder) {
        (Some(_), Some(_)) => {
            return Err(Problem::invalid(
                "body",
                "name a feed_id or a folder, not both",
            ));
        }
        (Some(id), None) => ReadScope::Feed(params::feed_id("feed_id", &id.to_string())?),
        (None, Some(folder)) => ReadScope::Folder(params::category(&folder)?),
        (None, None) => ReadScope::All,
    };
    let now = Utc::now();
    let marked = state
        .store
        .mark_all_read(access.account, &scope, body.up_to.unwrap_or(now), now)
        .await?;
    Ok(Json(MarkedAll { marked }))
}
