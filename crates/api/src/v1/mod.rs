//! The JSON API, version 1: feeds and entries; an admin key subscribes and unsubscribes
//! (`POST /v1/feeds`, `DELETE /v1/feeds/{id}`, see `crate::auth`).
//!
//! Modules: `wire` (the JSON shapes, which live only here and change only with a new version),
//! `params` (reading query and path parameters, every failure a 400 problem naming the
//! parameter), `cursor` (the opaque keyset cursor of entry pages), then one module per
//! resource: `feeds`, `entries`, `hosts` (the request log and hosts, for an admin key) and
//! `operator` (do-not-crawl rules, removal on request, OPML import and export).

mod cursor;
mod entries;
mod feeds;
mod hosts;
mod operator;
pub(crate) mod params;
pub mod wire;

pub(crate) use entries::Scope;

use crate::AppState;
use crate::problem;
use axum::Router;
use axum::routing::{any, delete, get, post};

/// The most entries one page may hold (`limit`).
pub const MAX_LIMIT: u32 = 500;
/// Entries per page when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 50;

/// The API's routes, under `/v1`. Unknown paths under `/v1` and wrong methods on known ones
/// answer with problems too.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/feeds", get(feeds::list).post(feeds::create))
        .route(
            "/v1/feeds/{id}",
            get(feeds::get).patch(feeds::patch).delete(feeds::delete),
        )
        .route("/v1/feeds/{id}/removal", post(operator::remove_feed))
        .route("/v1/rules", get(operator::rules).post(operator::add_rule))
        .route("/v1/rules/{id}", delete(operator::remove_rule))
        .route(
            "/v1/opml",
            get(operator::export_opml).post(operator::import_opml),
        )
        .route("/v1/entries", get(entries::list))
        .route("/v1/log", get(hosts::log))
        .route("/v1/hosts/{name}", get(hosts::host))
        .route("/v1", any(problem::no_route))
        .route("/v1/{*rest}", any(problem::no_route))
        .method_not_allowed_fallback(problem::method_not_allowed)
}
