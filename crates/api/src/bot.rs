//! `/bot`: the public bot page, rendered from the running profile.

use crate::AppState;
use axum::Router;

/// The bot page's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
}
