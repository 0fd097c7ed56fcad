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
use crate::problem::Problem;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use tidings_store::EntryQuery;

/// The query string, as text; [`params`] reads each value.
#[derive(Debug, Default, Deserialize)]
pub struct EntriesParams {
    limit: Option<String>,
    feed: Option<String>,
    since: Option<String>,
    until: Option<String>,
    q: Option<String>,
    cursor: Option<String>,
}

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
