//! The operator's view of publishers, for an admin key: `GET /v1/log` (the request log, C7)
//! and `GET /v1/hosts/{name}` (what tidings holds about a host: its robots.txt, its
//! Retry-After floor, its feeds by state, and its gate in the crawler of this process).

use super::params;
use super::wire::{HostFeed, HostGate, HostOrigin, HostView, LogPage, LogRow};
use crate::AppState;
use crate::auth::AdminAccess;
use crate::openapi::AdminErrors;
use crate::problem::{self, Problem};
use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use std::collections::BTreeMap;
use tidings_store::{FeedState, LogQuery};
use utoipa::IntoParams;

/// The query string of `/v1/log`, as text; [`params`] reads each value. The `#[param]`s say
/// what is read.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogParams {
    /// A host name (`example.org`: every scheme and port) or an origin
    /// (`https://example.org:443`); the pattern is what the server takes.
    #[param(
        pattern = r"^[A-Za-z0-9.:/\[\]-]*[A-Za-z0-9:/\[\]-][A-Za-z0-9.:/\[\]-]*$",
        max_length = 300
    )]
    host: Option<String>,
    /// Only requests for this feed: its id.
    #[param(value_type = Option<i64>, minimum = 1)]
    feed: Option<String>,
    /// Rows to return.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500, default = 50)]
    limit: Option<String>,
}

/// The request log, newest first (C7).
///
/// For a host (a name, every scheme and port; or an origin, `https://example.org:443`) and/or
/// a feed.
#[utoipa::path(
    get,
    path = "/v1/log",
    operation_id = "request_log",
    tag = "operator",
    params(LogParams),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The newest requests first.", body = LogPage),
        (status = BAD_REQUEST, description = "A parameter is malformed or out of bounds; \
            `parameter` names it.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn log(
    State(state): State<AppState>,
    _: AdminAccess,
    query: Result<Query<LogParams>, QueryRejection>,
) -> Result<Json<LogPage>, Problem> {
    let Query(p) = query?;
    let host = p
        .host
        .as_deref()
        .map(|h| host_name("host", h))
        .transpose()?;
    let rows = state
        .store
        .request_log(&LogQuery {
            host,
            feed: p
                .feed
                .as_deref()
                .map(|f| params::feed_id("feed", f))
                .transpose()?,
            limit: params::limit(p.limit.as_deref())?,
        })
        .await?;
    Ok(Json(LogPage {
        requests: rows.iter().map(LogRow::from).collect(),
    }))
}

/// What tidings holds about a host.
///
/// Its two usual origins' robots.txt and Retry-After floor, its feeds by state, with the
/// reason of each that is not active, and its gate when a crawler runs in this process.
#[utoipa::path(
    get,
    path = "/v1/hosts/{name}",
    operation_id = "get_host",
    tag = "operator",
    params(("name" = String, Path, description = "A host name (`example.org`).",
        pattern = r"^[A-Za-z0-9.:/\[\]-]*[A-Za-z0-9:/\[\]-][A-Za-z0-9.:/\[\]-]*$", max_length = 300)),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "What tidings holds about the host.", body = HostView),
        (status = BAD_REQUEST, description = "`name` is not a host name.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn host(
    State(state): State<AppState>,
    _: AdminAccess,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<HostView>, Problem> {
    let Path(name) = name?;
    let name = host_name("name", &name)?;
    let mut origins = Vec::new();
    for (scheme, port) in [("https", 443), ("http", 80)] {
        let origin = format!("{scheme}://{name}:{port}");
        let robots = state.store.robots(&origin).await?;
        let floor = state.store.host_floor(&origin).await?;
        if robots.is_some() || floor.is_some() {
            origins.push(HostOrigin::new(origin, robots.as_ref(), floor));
        }
    }
    let mut states: BTreeMap<String, u64> = BTreeMap::new();
    let mut not_active = Vec::new();
    for feed in state.store.feeds().await? {
        let on_host = feed
            .url
            .as_url()
            .host_str()
            .is_some_and(|h| h.trim_end_matches('.').eq_ignore_ascii_case(&name));
        if !on_host {
            continue;
        }
        *states.entry(feed.state.as_str().to_owned()).or_default() += 1;
        if feed.state != FeedState::Active {
            not_active.push(HostFeed::from(&feed));
        }
    }
    let gate = state
        .live
        .as_ref()
        .map(|live| HostGate::from(live.gate(&name)));
    Ok(Json(HostView {
        name,
        origins,
        feeds_by_state: states,
        not_active,
        gate,
    }))
}

/// A host name as given (lower-cased, without a trailing dot), or an origin for `/v1/log`:
/// letters, digits, dots, hyphens, and for an origin `scheme://` and `:port`.
pub(crate) fn host_name(parameter: &'static str, text: &str) -> Result<String, Problem> {
    let text = text.trim().trim_end_matches('.').to_ascii_lowercase();
    let ok = !text.is_empty()
        && text.len() <= 300
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '/' | '[' | ']'));
    if ok {
        Ok(text)
    } else {
        Err(Problem::invalid(
            parameter,
            format!(
                "{parameter} is a host name (example.org) or an origin (https://example.org:443)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::host_name;

    #[test]
    fn host_names_and_origins_are_read_once() {
        assert_eq!(host_name("host", " Example.ORG. ").unwrap(), "example.org");
        assert_eq!(
            host_name("host", "https://example.org:443").unwrap(),
            "https://example.org:443"
        );
        for bad in ["", "exa mple.org", "a.org/<x>", "ex%41.org"] {
            assert!(host_name("host", bad).is_err(), "{bad:?}");
        }
    }
}
