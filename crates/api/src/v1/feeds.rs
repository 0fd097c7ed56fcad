//! `GET /v1/feeds` and `GET /v1/feeds/{id}`.

use super::params;
use super::wire::{Feed, FeedList};
use crate::AppState;
use crate::problem::Problem;
use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};

/// Every feed, by id.
pub async fn list(State(state): State<AppState>) -> Result<Json<FeedList>, Problem> {
    let feeds = state.store.feeds().await?;
    Ok(Json(FeedList {
        feeds: feeds.iter().map(Feed::from).collect(),
    }))
}

/// One feed; 404 when there is none with that id.
pub async fn get(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Feed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    match state.store.feed(id).await? {
        Some(feed) => Ok(Json(Feed::from(&feed))),
        None => Err(Problem::not_found(format!("no feed with id {id}"))),
    }
}
