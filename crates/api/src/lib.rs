//! What tidings serves over HTTP (`tidings serve`): the JSON API under `/v1` and its OpenAPI
//! document at `/openapi.json`, the web UI (`ui`: the reader at `/`, the operator's pages
//! under `/admin`), the bot page at `/bot` rendered from the running profile, the signing
//! keys' directory at `/.well-known/http-message-signatures-directory` (`keydir`), `/metrics`
//! and `/healthz`. Wire types live only here; the handlers read and write through
//! the `Store` trait and never send requests to publishers. Of a crawler running in the same
//! process they read only its live state (`tidings_crawler::Live`). `server` runs the router
//! with the limits a public listener needs (header and body timeouts, connections in all and
//! per address); `throttle` limits failed key checks per client address.

pub mod accounts;
pub mod auth;
pub mod bot;
pub mod compat;
mod escape;
pub mod export;
pub mod keydir;
pub mod metrics;
pub mod openapi;
pub mod problem;
pub mod publishers;
pub mod server;
pub mod throttle;
pub mod ui;
pub mod v1;
pub mod websub;

use axum::Router;
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
    /// The local addresses an operator may assign to a feed (`PATCH /v1/feeds/{id}`).
    pub egress: Arc<Vec<std::net::IpAddr>>,
    /// The live state of the crawler running in this process, if one does (`/metrics`, the
    /// host gate in `/v1/hosts/{name}`).
    pub live: Option<tidings_crawler::Live>,
    /// Whether the fetcher reads private networks (`--allow-private-networks`): when it does
    /// not, a subscription to an IP literal outside the public address space is refused.
    pub allow_private_networks: bool,
}

impl AppState {
    /// Public reads, admin-key writes; the other parts have their defaults.
    pub fn new(store: Arc<dyn Store>, profile: Arc<Profile>, version: &'static str) -> AppState {
        AppState {
            store,
            profile,
            version,
            auth: Arc::default(),
            egress: Arc::default(),
            live: None,
            allow_private_networks: false,
        }
    }

    /// Whether the fetcher this server's subscriptions are read with allows private networks.
    pub fn with_private_networks(mut self, allowed: bool) -> AppState {
        self.allow_private_networks = allowed;
        self
    }

    /// The egress addresses the fetcher is configured with.
    pub fn with_egress(mut self, egress: Vec<std::net::IpAddr>) -> AppState {
        self.egress = Arc::new(egress);
        self
    }

    /// Who may read and write.
    pub fn with_auth(mut self, auth: auth::Auth) -> AppState {
        self.auth = Arc::new(auth);
        self
    }

    /// Tell the crawler running in this process, if one does, that work may be due now: a
    /// feed subscribed to, resumed or rescheduled is read without waiting for its next look.
    pub fn wake_crawler(&self) {
        if let Some(live) = &self.live {
            live.wake();
        }
    }

    /// Wait until every request the crawler of this process decided before now has ended: a
    /// do-not-crawl rule just added then governs every request that follows (FF13).
    pub async fn settle_requests(&self) {
        if let Some(live) = &self.live {
            live.settle().await;
        }
    }

    /// The crawler running in this process: its counters and host gate are shown.
    pub fn with_live(mut self, live: tidings_crawler::Live) -> AppState {
        self.live = Some(live);
        self
    }
}

/// Every route: the documented ones (`/healthz`, `/v1`, the outputs; see `openapi`) and the
/// pages.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(openapi::routes())
        .merge(metrics::routes())
        .merge(bot::routes())
        .merge(publishers::routes())
        .merge(keydir::routes())
        .merge(ui::routes())
        .merge(compat::routes())
        .merge(websub::routes())
        .with_state(state)
}

/// The server answers.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "health",
    responses((status = OK, description = "`ok` and a newline", body = String, content_type = "text/plain"))
)]
async fn healthz() -> &'static str {
    "ok\n"
}
