//! What tidings serves over HTTP (`tidings serve`): the JSON API under `/v1`, the web UI
//! (`ui`: the reader at `/`, the operator's pages under `/admin`), the bot page at `/bot`
//! rendered from the running profile, and `/healthz`. Wire types live only here; the
//! handlers read and write through the `Store` trait and never send requests to publishers.

pub mod auth;
pub mod bot;
mod escape;
pub mod export;
pub mod problem;
pub mod publishers;
pub mod ui;
pub mod v1;

use axum::Router;
use axum::routing::get;
use std::sync::Arc;
use tidings_policy::Profile;
use tidings_store::Store;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    /// The profile the crawler runs: the bot page is rendered from it.
    pub profile: Arc<Profile>,
    /// tidings' version, for the User-Agent shown on the bot page.
    pub version: &'static str,
    /// Who may read and write `/v1`; `Arc::default()` is public reads, admin-key writes.
    pub auth: Arc<auth::Auth>,
    /// What a change of the do-not-crawl rules in the UI sets off (the crawler's pausing and
    /// resuming of feeds); `None` leaves it to the crawler's next reading of the rules.
    pub rules: Option<Arc<dyn ui::RuleEffects>>,
}

impl AppState {
    /// Public reads, admin-key writes; the other parts have their defaults.
    pub fn new(store: Arc<dyn Store>, profile: Arc<Profile>, version: &'static str) -> AppState {
        AppState {
            store,
            profile,
            version,
            auth: Arc::default(),
            rules: None,
        }
    }

    /// Who may read and write.
    pub fn with_auth(mut self, auth: auth::Auth) -> AppState {
        self.auth = Arc::new(auth);
        self
    }

    /// What a rule change in the UI sets off.
    pub fn with_rule_effects(mut self, rules: Arc<dyn ui::RuleEffects>) -> AppState {
        self.rules = Some(rules);
        self
    }
}

/// Every route.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .merge(v1::routes())
        .merge(bot::routes())
        .merge(export::routes())
        .merge(publishers::routes())
        .merge(ui::routes())
        .with_state(state)
}

async fn healthz() -> &'static str {
    "ok\n"
}
