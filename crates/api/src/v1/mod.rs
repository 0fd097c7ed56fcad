//! The JSON API, version 1: feeds and entries; an admin key subscribes and unsubscribes
//! (`POST /v1/feeds`, `DELETE /v1/feeds/{id}`, see `crate::auth`).
//!
//! Modules: `wire` (the JSON shapes, which live only here and change only with a new version),
//! `params` (reading query and path parameters, every failure a 400 problem naming the
//! parameter), `cursor` (the opaque keyset cursor of entry pages), then one module per
//! resource: `feeds`, `entries`, `hosts` (the request log and hosts, for an admin key),
//! `operator` (do-not-crawl rules, removal on request, OPML import and export), `discovery`
//! (matches held for review, FF3) and `reading`
//! (an account's subscriptions and reading state, for a key that belongs to an account).

pub(crate) mod catalogue;
pub(crate) mod cursor;
pub(crate) mod discovery;
mod entries;
pub(crate) mod feeds;
pub(crate) mod hosts;
pub(crate) mod operator;
pub(crate) mod params;
mod reading;
pub mod wire;

pub(crate) use entries::Scope;

use crate::AppState;
use crate::problem;
use axum::routing::any;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The most entries one page may hold (`limit`).
pub const MAX_LIMIT: u32 = 500;
/// Entries per page when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 50;

/// The API's routes, under `/v1`, and their OpenAPI operations (see `crate::openapi`).
///
/// To add an endpoint: give its handler a `#[utoipa::path(...)]` (method, path, parameters,
/// body, every status with its schema, `security`), derive `ToSchema` on its wire types, and
/// list the handler here in `routes!` (handlers on the same path share one `routes!`). Unknown
/// paths under `/v1` and wrong methods on known ones answer with problems too.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(feeds::list, feeds::create))
        .routes(routes!(feeds::get, feeds::patch, feeds::delete))
        .routes(routes!(feeds::directives))
        .routes(routes!(feeds::websub))
        .routes(routes!(operator::remove_feed))
        .routes(routes!(operator::rules, operator::add_rule))
        .routes(routes!(operator::remove_rule))
        .routes(routes!(operator::export_opml, operator::import_opml))
        .routes(routes!(entries::list))
        .routes(routes!(reading::subscriptions))
        .routes(routes!(reading::change_subscription))
        .routes(routes!(reading::list))
        .routes(routes!(reading::mark))
        .routes(routes!(reading::mark_all_read))
        .routes(routes!(discovery::held))
        .routes(routes!(discovery::review))
        .routes(routes!(discovery::submit, discovery::jobs))
        .routes(routes!(discovery::job))
        .routes(routes!(catalogue::list, catalogue::add))
        .routes(routes!(catalogue::one, catalogue::remove))
        .routes(routes!(hosts::log))
        .routes(routes!(hosts::host))
        // Not operations: the problem for a path that names nothing, left out of the document.
        .route("/v1", any(problem::no_route))
        .route("/v1/{*rest}", any(problem::no_route))
}
