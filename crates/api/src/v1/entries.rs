//! `GET /v1/entries`: stored entries, newest first, a page at a time.
//!
//! Pages follow a keyset cursor (see `cursor`), so entries arriving between two requests never
//! shift a page: the next page starts strictly after the last entry of the previous one. One
//! entry more than asked for is read to know whether there is a next page at all.

use super::cursor::Cursor;
use super::params;
use super::wire::{Entry, EntryPage};
use crate::AppState;
use crate::auth::ReadAccess;
use crate::openapi::ReadErrors;
use crate::problem::{self, Problem};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use tidings_store::EntryQuery;
use utoipa::IntoParams;

/// The query string, as text; [`params`] reads each value. The `#[param]`s say what is read.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EntriesParams {
    /// Entries per page.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500, default = 50)]
    limit: Option<String>,
    /// Only this feed's entries: its id.
    #[param(value_type = Option<i64>, minimum = 1)]
    feed: Option<String>,
    /// Only entries listed at or after this time (`sort_at`).
    #[param(schema_with = params::time_schema)]
    since: Option<String>,
    /// Only entries listed before this time (`sort_at`).
    #[param(schema_with = params::time_schema)]
    until: Option<String>,
    /// Full-text search: entries holding every word (title, summary, content). Blank is no
    /// search; text without a letter or digit matches nothing.
    q: Option<String>,
    /// `next_cursor` of the previous page, unchanged. The pattern is the shape of every cursor
    /// this API gives out (version 1, a time within 36,000 years of 1970, a positive id).
    #[param(pattern = "^01[0fF][0-9a-fA-F]{15}(?!0{16}$)[0-7][0-9a-fA-F]{15}$")]
    cursor: Option<String>,
}

/// One page of entries, newest first (by `sort_at`, then id).
///
/// Pass `next_cursor` as `cursor` for the next page; entries that arrive meanwhile never shift
/// a page.
#[utoipa::path(
    get,
    path = "/v1/entries",
    operation_id = "list_entries",
    tag = "entries",
    params(EntriesParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "One page of entries.", body = EntryPage),
        (status = BAD_REQUEST, description = "A parameter is malformed or out of bounds, or \
            the cursor is not one this API gave out; `parameter` names it.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    _: ReadAccess,
    query: Result<Query<EntriesParams>, QueryRejection>,
) -> Result<Json<EntryPage>, Problem> {
    let Query(p) = query?;
    let limit = params::limit(p.limit.as_deref())?;
    let store_query = EntryQuery {
        feed: p
            .feed
            .as_deref()
            .map(|f| params::feed_id("feed", f))
            .transpose()?,
        since: p
            .since
            .as_deref()
            .map(|t| params::time("since", t))
            .transpose()?,
        until: p
            .until
            .as_deref()
            .map(|t| params::time("until", t))
            .transpose()?,
        search: p.q.filter(|q| !q.trim().is_empty()),
        after: p
            .cursor
            .as_deref()
            .map(Cursor::decode)
            .transpose()?
            .map(|c| c.0),
        limit: limit + 1,
    };
    let mut found = state.store.entries(&store_query).await?;
    let more = found.len() > limit as usize;
    found.truncate(limit as usize);
    let next_cursor = more
        .then(|| found.last().map(|e| Cursor(e.cursor()).encode()))
        .flatten();
    Ok(Json(EntryPage {
        entries: found.iter().map(Entry::from).collect(),
        next_cursor,
    }))
}
