//! `GET /v1/entries`: stored entries, newest first, a page at a time.
//!
//! Pages follow a keyset cursor (see `cursor`), so entries arriving between two requests never
//! shift a page: the next page starts strictly after the last entry of the previous one. One
//! entry more than asked for is read to know whether there is a next page at all.

use super::cursor::Cursor;
use super::params;
use super::wire::{Entry, EntryPage};
use crate::AppState;
use crate::auth::{Caller, ReadAccess, Role};
use crate::openapi::ReadErrors;
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use chrono::{DateTime, Utc};
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
    /// Only entries filed under this category (compared trimmed, case-folded, whole).
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    category: Option<String>,
    /// Only the entries of the feeds the calling key subscribes to; needs a key. A reader
    /// key of an account always lists only its account's feeds.
    #[param(value_type = Option<bool>)]
    mine: Option<String>,
    /// Expired entries too (FF16: past their or their feed's `dcterms:valid` end); needs an
    /// admin key.
    #[param(value_type = Option<bool>)]
    include_expired: Option<String>,
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
        (status = FORBIDDEN, description = "`include_expired=true` without an admin key.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
    query: Result<Query<EntriesParams>, QueryRejection>,
) -> Result<Json<EntryPage>, Problem> {
    let Query(p) = query?;
    let limit = params::limit(p.limit.as_deref())?;
    let scope = Scope::of(
        caller,
        p.mine.as_deref(),
        p.include_expired.as_deref(),
        Utc::now(),
    )?;
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
        category: p.category.as_deref().map(params::category).transpose()?,
        current_at: scope.current_at,
        subscriber: scope.subscriber,
        limit: limit + 1,
    };
    let mut found = state.store.entries(&store_query).await?;
    let more = found.len() > limit as usize;
    found.truncate(limit as usize);
    let next_cursor = more
        .then(|| found.last().map(|e| Cursor(e.cursor()).encode()))
        .flatten();
    let mut entries: Vec<Entry> = found.iter().map(Entry::from).collect();
    crate::ui::media::set_cached(
        &state,
        entries
            .iter_mut()
            .map(|e| (&mut e.image, format!("/images/entries/{}", e.id))),
    )
    .await?;
    Ok(Json(EntryPage {
        entries,
        next_cursor,
    }))
}

/// Whose entries and which: the caller's subscriptions only (`mine`, and always for a reader
/// key of an account: a reader sees only the feeds its account subscribes to), and whether
/// expired entries are left out (FF16: always, unless an admin key asks for them).
pub(crate) struct Scope {
    pub subscriber: Option<String>,
    pub current_at: Option<DateTime<Utc>>,
}

impl Scope {
    pub(crate) fn of(
        caller: Option<Caller>,
        mine: Option<&str>,
        include_expired: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Scope, Problem> {
        let own_only = caller.is_some_and(|c| c.account().is_some() && c.role == Role::Reader);
        let subscriber = if params::flag("mine", mine)? || own_only {
            let Some(caller) = caller else {
                return Err(Problem::new(
                    ProblemKind::Unauthorized,
                    "mine=true lists the subscriptions of the key sent: send one as \
                     Authorization: Bearer TOKEN",
                ));
            };
            Some(caller.subscriber())
        } else {
            None
        };
        let current_at = if params::flag("include_expired", include_expired)? {
            match caller {
                Some(c) if c.role == Role::Admin => None,
                _ => {
                    return Err(Problem::new(
                        ProblemKind::Forbidden,
                        "expired entries (FF16) are kept for administration: \
                         include_expired=true needs an admin key",
                    ));
                }
            }
        } else {
            Some(now)
        };
        Ok(Scope {
            subscriber,
            current_at,
        })
    }
}
