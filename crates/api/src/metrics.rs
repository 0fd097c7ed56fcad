//! `GET /metrics`: the Prometheus scrape, in the OpenMetrics text format.
//!
//! Series: `tidings_build_info{version}`; from the store at each scrape,
//! `tidings_due_feeds` (the due queue: active, subscribed feeds whose next fetch time has
//! come) and `tidings_feeds{state}` (every state, zero included); and when a crawler runs in
//! this process, its live state: `tidings_fetches_total{outcome,purpose}`,
//! `tidings_fetch_duration_seconds` and `tidings_hosts_in_flight`. Without a crawler
//! (`--no-crawl`) those three are absent.
//!
//! Public, like `/healthz`: the numbers say how busy tidings is, nothing about subscribers
//! or keys. A store that fails makes the scrape a 500 problem (so the scrape shows as down).

use crate::AppState;
use crate::problem::Problem;
use axum::Router;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

/// The content type of the OpenMetrics 1.0 text format.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub fn routes() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

/// The scrape: the store is asked now, the crawler's counters are read as they are.
pub async fn metrics(State(state): State<AppState>) -> Result<Response, Problem> {
    let now = state
        .live
        .as_ref()
        .map_or_else(chrono::Utc::now, |live| live.now());
    let due = state.store.count_due(now).await?;
    let by_state = state.store.count_feeds_by_state().await?;

    let mut registry = Registry::default();
    registry.register(
        "tidings_build",
        "The running tidings",
        Info::new([("version", state.version)]),
    );
    let due_feeds = Gauge::<i64>::default();
    due_feeds.set(i64::try_from(due).unwrap_or(i64::MAX));
    registry.register(
        "tidings_due_feeds",
        "Feeds due now: active, subscribed, their next fetch time come (the due queue)",
        due_feeds,
    );
    let feeds = Family::<StateLabel, Gauge>::default();
    for (feed_state, n) in by_state {
        feeds
            .get_or_create(&StateLabel {
                state: feed_state.as_str(),
            })
            .set(i64::try_from(n).unwrap_or(i64::MAX));
    }
    registry.register("tidings_feeds", "Feeds by state", feeds);
    if let Some(live) = &state.live {
        live.register(&mut registry);
    }

    let mut body = String::new();
    prometheus_client::encoding::text::encode(&mut body, &registry)
        .map_err(|e| Problem::internal(&e))?;
    Ok(([(CONTENT_TYPE, OPENMETRICS)], body).into_response())
}
