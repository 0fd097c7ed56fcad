//! The JSON API, version 1.

use crate::AppState;
use axum::Router;

/// The API's routes, under `/v1`.
pub fn routes() -> Router<AppState> {
    Router::new()
}
