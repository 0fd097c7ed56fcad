//! The catalogue (SR2): an operator's list of feeds readers browse before subscribing. An
//! admin adds a feed by its URL: the crawl verifies it with one read (a first add's, which
//! does not wait for crawl-delay, SR9) and lists it when it reads as a feed. A reader (any
//! key: never an anonymous caller) viewing a catalogue feed with nothing stored queues one
//! read of it (without a key the answer is a 401, public reads or not). The API itself sends
//! nothing: reads are page-queue jobs the crawl works.

use super::discovery::{queue, refused};
use super::wire::{CatalogueFeed, CatalogueList, Entry, Job, Subscribe};
use crate::AppState;
use crate::auth::{ReadAccess, WriteAccess};
use crate::openapi::{AdminErrors, ReadErrors};
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use tidings_crawler::operator::{JobAsk, SubmitError};
use tidings_model::{FeedId, FeedUrl, PageJobKind};
use tidings_store::{CatalogueEntry, EntryQuery, FeedRecord};

/// Entries shown with one catalogue feed.
pub(crate) const ENTRIES_SHOWN: u32 = 20;

fn wire(entry: &CatalogueEntry, feed: &FeedRecord) -> CatalogueFeed {
    CatalogueFeed {
        id: feed.id.0,
        url: feed.url.to_string(),
        title: feed.title.clone(),
        site_link: feed.site_link.clone(),
        last_fetch_at: feed.last_fetch_at,
        added_at: entry.added_at,
        entries: None,
        reading: false,
    }
}

/// `GET /v1/catalogue`: the catalogue's feeds, in the order added.
#[utoipa::path(
    get,
    path = "/v1/catalogue",
    operation_id = "list_catalogue",
    tag = "catalogue",
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The catalogue's feeds.", body = CatalogueList),
        ReadErrors,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
) -> Result<Json<CatalogueList>, Problem> {
    reader(caller)?;
    let mut feeds = Vec::new();
    for entry in state.store.catalogue().await? {
        if let Some(feed) = state.store.feed(entry.feed_id).await? {
            feeds.push(wire(&entry, &feed));
        }
    }
    Ok(Json(CatalogueList { feeds }))
}

/// A reader's key is required: SR2's reads are for authenticated readers only.
fn reader(caller: Option<crate::auth::Caller>) -> Result<crate::auth::Caller, Problem> {
    caller.ok_or_else(|| {
        Problem::new(
            ProblemKind::Unauthorized,
            "the catalogue is for readers: send Authorization: Bearer followed by a key",
        )
    })
}

/// `GET /v1/catalogue/{id}`: one catalogue feed with its newest entries. With nothing stored
/// (and no read in the last hour, none waiting), one read is queued: `reading` is true.
#[utoipa::path(
    get,
    path = "/v1/catalogue/{id}",
    operation_id = "get_catalogue_feed",
    tag = "catalogue",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The feed and its newest entries.", body = CatalogueFeed),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No catalogue feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn one(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<CatalogueFeed>, Problem> {
    let caller = reader(caller)?;
    let Path(id) = id?;
    let id = super::params::feed_id("id", &id)?;
    let (entry, feed) = catalogue_feed(&state, id).await?;
    let mut out = wire(&entry, &feed);
    let query = EntryQuery {
        feed: Some(id),
        limit: ENTRIES_SHOWN,
        current_at: Some(Utc::now()),
        ..EntryQuery::default()
    };
    let entries = state.store.entries(&query).await?;
    if entries.is_empty() {
        out.reading = queue_read(&state, &feed, &caller.subscriber()).await?;
    }
    out.entries = Some(entries.iter().map(Entry::from).collect());
    Ok(Json(out))
}

/// The catalogue's entry for feed `id` and the feed, or a 404.
pub(crate) async fn catalogue_feed(
    state: &AppState,
    id: FeedId,
) -> Result<(CatalogueEntry, FeedRecord), Problem> {
    let listed = state.store.catalogue().await?;
    let Some(entry) = listed.into_iter().find(|c| c.feed_id == id) else {
        return Err(Problem::not_found(format!(
            "feed {id} is not in the catalogue"
        )));
    };
    let Some(feed) = state.store.feed(id).await? else {
        return Err(Problem::not_found(format!(
            "feed {id} is not in the catalogue"
        )));
    };
    Ok((entry, feed))
}

/// Queue one read of a catalogue feed a reader views with nothing stored (SR2), unless it
/// was read too recently (`tidings_policy::discovery::may_read_on_view`) or a read of it
/// already waits. Returns whether
/// a read is queued or waiting.
pub(crate) async fn queue_read(
    state: &AppState,
    feed: &FeedRecord,
    who: &str,
) -> Result<bool, Problem> {
    let now = Utc::now();
    let waiting = state.store.page_jobs(200).await?.into_iter().any(|j| {
        j.kind == PageJobKind::Catalogue && j.url == feed.url.as_str() && !j.state.finished()
    });
    if waiting {
        return Ok(true);
    }
    if !tidings_policy::discovery::may_read_on_view(feed.last_fetch_at, now) {
        return Ok(false);
    }
    match queue(state, &feed.url, JobAsk::Catalogue, who).await {
        Ok(_) => Ok(true),
        // A rule now covers it, or the guard refuses it: nothing is read.
        Err(SubmitError::Refused(_)) => Ok(false),
        Err(e) => Err(refused(e)),
    }
}

/// `POST /v1/catalogue` with `{"url": …}`: verify a feed with one read and add it (SR2). 202
/// with the job; the feed is listed once the read finds a feed.
#[utoipa::path(
    post,
    path = "/v1/catalogue",
    operation_id = "add_to_catalogue",
    tag = "catalogue",
    request_body(content = Subscribe, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = ACCEPTED, description = "The verification read is queued.", body = Job),
        (status = BAD_REQUEST, description = "The body is not `{\"url\": …}`, or the URL is \
            not an http(s) URL the address guard lets through.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = UNPROCESSABLE_ENTITY, description = "A do-not-crawl rule covers the URL.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn add(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, Problem> {
    let body: Subscribe =
        super::params::json_object(body, r#"{"url": "https://example.org/feed.xml"}"#)?;
    let url = FeedUrl::parse(&body.url)
        .map_err(|e| Problem::invalid("url", format!("not an http(s) URL: {e}")))?;
    let job = queue(&state, &url, JobAsk::Catalogue, &caller.subscriber())
        .await
        .map_err(refused)?;
    Ok((StatusCode::ACCEPTED, Json(Job::of(&job, Some(&[])))).into_response())
}

/// `DELETE /v1/catalogue/{id}`: take a feed off the catalogue (its subscriptions stay).
#[utoipa::path(
    delete,
    path = "/v1/catalogue/{id}",
    operation_id = "remove_from_catalogue",
    tag = "catalogue",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security(("bearer" = [])),
    responses(
        (status = NO_CONTENT, description = "Taken off the catalogue."),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No catalogue feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn remove(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, Problem> {
    let Path(id) = id?;
    let id = super::params::feed_id("id", &id)?;
    if state.store.remove_from_catalogue(id).await? {
        tracing::info!(feed_id = %id, caller = %caller, "taken off the catalogue");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Problem::not_found(format!(
            "feed {id} is not in the catalogue"
        )))
    }
}
