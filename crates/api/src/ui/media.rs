//! Icons and images served from tidings' own store, so that a reader's browser never asks a
//! publisher for them: `/icons/{feed}` (the feed's site icon, SR1) and
//! `/images/entries/{id}`, `/images/feeds/{id}` (a thumbnail from the image cache, FF9).
//!
//! An image is served only while the profile caches images and the current licence decision
//! on it shows it (FF8): a refresh that withdraws the permission removes it at once, whatever
//! the cache still holds. Each answer carries the media type tidings sniffed (never SVG, never
//! the publisher's word), `nosniff`, and the UI's strict headers.

use super::access::Viewer;
use crate::AppState;
use crate::v1::params;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderValue};
use axum::response::{IntoResponse, Response};
use std::collections::HashSet;
use tidings_model::{FeedId, RequestPurpose, SelectedImage};
use tidings_store::FeedRecord;

/// How long a browser may keep an icon or image before asking tidings again.
const MAX_AGE: &str = "private, max-age=86400";

/// The feeds whose site's icon tidings keeps (SR1, read by a profile that requests icons),
/// served from `/icons/{feed}`: a reader's browser never asks the publisher for it.
#[derive(Debug, Clone, Default)]
pub struct Icons(HashSet<FeedId>);

impl Icons {
    /// Which of `feeds` have their site's icon kept.
    pub async fn of<'a>(
        store: &dyn tidings_store::Store,
        feeds: impl IntoIterator<Item = &'a FeedRecord>,
    ) -> Result<Icons, tidings_store::StoreError> {
        let feeds: Vec<&FeedRecord> = feeds.into_iter().filter(|f| f.site.is_some()).collect();
        if feeds.is_empty() {
            return Ok(Icons::default());
        }
        let mut sites: Vec<String> = feeds.iter().filter_map(|f| f.site.clone()).collect();
        sites.sort();
        sites.dedup();
        let kept: HashSet<String> = store.sites_with_icons(&sites).await?.into_iter().collect();
        Ok(Icons(
            feeds
                .iter()
                .filter(|f| f.site.as_ref().is_some_and(|s| kept.contains(s)))
                .map(|f| f.id)
                .collect(),
        ))
    }

    pub fn has(&self, feed: FeedId) -> bool {
        self.0.contains(&feed)
    }
}

/// `GET /icons/{feed}`.
pub async fn icon(State(state): State<AppState>, _: Viewer, Path(id): Path<String>) -> Response {
    let Ok(id) = params::feed_id("feed", &id) else {
        return missing();
    };
    let site = match state.store.feed(id).await {
        Ok(Some(feed)) => feed.site,
        Ok(None) => None,
        Err(e) => return failed(&e),
    };
    let Some(site) = site else {
        return missing();
    };
    match state.store.icon(&site).await {
        Ok(Some(icon)) => bytes(&icon.media_type, icon.body),
        Ok(None) => missing(),
        Err(e) => failed(&e),
    }
}

/// `GET /images/entries/{id}`: the entry's selected thumbnail, when shown and cached.
pub async fn entry_image(
    State(state): State<AppState>,
    _: Viewer,
    Path(id): Path<String>,
) -> Response {
    let Some(id) = id.parse::<i64>().ok().filter(|id| *id > 0) else {
        return missing();
    };
    let now = chrono::Utc::now();
    let image = match state.store.entry(id).await {
        // FF16: an expired entry is no longer shown, nor its image.
        Ok(Some(e)) if e.entry.expires.is_none_or(|at| at > now) => e.entry.selected_image,
        Ok(_) => None,
        Err(e) => return failed(&e),
    };
    cached(&state, image.as_ref()).await
}

/// `GET /images/feeds/{id}`: the feed's selected thumbnail, when shown and cached.
pub async fn feed_image(
    State(state): State<AppState>,
    _: Viewer,
    Path(id): Path<String>,
) -> Response {
    let Ok(id) = params::feed_id("feed", &id) else {
        return missing();
    };
    let image = match state.store.feed(id).await {
        Ok(Some(feed)) => feed.thumbnail,
        Ok(None) => None,
        Err(e) => return failed(&e),
    };
    cached(&state, image.as_ref()).await
}

/// Whether the reader may show `image` from the cache now: the profile caches images and the
/// current decision shows it (FF8, FF9).
pub fn may_show(state: &AppState, image: Option<&SelectedImage>) -> bool {
    state.profile.requests.allows(RequestPurpose::Image) && image.is_some_and(|i| i.shown)
}

/// The paths of what tidings serves itself, set on the API's answers: each feed's icon, when
/// kept (SR1).
pub async fn set_icons(
    state: &AppState,
    records: &[FeedRecord],
    feeds: &mut [crate::v1::wire::Feed],
) -> Result<(), tidings_store::StoreError> {
    let icons = Icons::of(state.store.as_ref(), records).await?;
    for feed in feeds {
        if icons.has(FeedId(feed.id)) {
            feed.icon = Some(format!("/icons/{}", feed.id));
        }
    }
    Ok(())
}

/// The paths of the thumbnails tidings holds a copy of and may show (FF8, FF9), set on the
/// API's entries and feeds.
pub async fn set_cached<'a>(
    state: &AppState,
    images: impl IntoIterator<Item = (&'a mut Option<crate::v1::wire::Image>, String)>,
) -> Result<(), tidings_store::StoreError> {
    if !state.profile.requests.allows(RequestPurpose::Image) {
        return Ok(());
    }
    let shown: Vec<(&mut crate::v1::wire::Image, String)> = images
        .into_iter()
        .filter_map(|(image, path)| image.as_mut().filter(|i| i.shown).map(|i| (i, path)))
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let urls: Vec<String> = shown.iter().map(|(i, _)| i.url.clone()).collect();
    let held: HashSet<String> = state
        .store
        .cached_images(&urls)
        .await?
        .into_iter()
        .collect();
    for (image, path) in shown {
        if held.contains(&image.url) {
            image.cached = Some(path);
        }
    }
    Ok(())
}

async fn cached(state: &AppState, image: Option<&SelectedImage>) -> Response {
    let Some(image) = image.filter(|i| may_show(state, Some(i))) else {
        return missing();
    };
    match state.store.image(&image.url, chrono::Utc::now()).await {
        Ok(Some(copy)) => bytes(&copy.media_type, copy.body),
        Ok(None) => missing(),
        Err(e) => failed(&e),
    }
}

fn bytes(media_type: &str, body: Vec<u8>) -> Response {
    let Ok(media_type) = HeaderValue::from_str(media_type) else {
        return missing();
    };
    (
        [
            (header::CONTENT_TYPE, media_type),
            (header::CACHE_CONTROL, HeaderValue::from_static(MAX_AGE)),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("inline"),
            ),
        ],
        body,
    )
        .into_response()
}

fn missing() -> Response {
    (StatusCode::NOT_FOUND, "no such image\n").into_response()
}

fn failed(cause: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %cause, "serving an image failed");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        "the image could not be read\n",
    )
        .into_response()
}
