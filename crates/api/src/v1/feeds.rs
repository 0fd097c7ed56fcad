//! `GET /v1/feeds`, `GET /v1/feeds/{id}`, and the writes an admin key may make:
//! `POST /v1/feeds` (subscribe), `PATCH /v1/feeds/{id}` (pause, resume, refresh interval,
//! egress address) and `DELETE /v1/feeds/{id}` (unsubscribe).

use super::params;
use super::wire::{
    DirectiveChange, DirectiveHistory, Feed, FeedChange, FeedList, FeedWebSub, Subscribe,
    WebSubscription,
};
use crate::AppState;
use crate::auth::{ReadAccess, WriteAccess};
use crate::openapi::{AdminErrors, ReadErrors};
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tidings_crawler::operator::{self, Refusal, SubscribeError};
use tidings_model::FeedUrl;
use tidings_store::{
    FeedOverrides, FeedPatch, FeedRecord, FeedState, StoreError, Subscribed, Subscriber,
};

/// Every feed, by id.
#[utoipa::path(
    get,
    path = "/v1/feeds",
    operation_id = "list_feeds",
    tag = "feeds",
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "Every feed, by id.", body = FeedList),
        ReadErrors,
    )
)]
pub async fn list(State(state): State<AppState>, _: ReadAccess) -> Result<Json<FeedList>, Problem> {
    let records = state.store.feeds().await?;
    let mut feeds: Vec<Feed> = records.iter().map(Feed::from).collect();
    served_here(&state, &records, &mut feeds).await?;
    Ok(Json(FeedList { feeds }))
}

/// Set the paths of what tidings serves itself for `feeds` (built from `records`, in order):
/// the site's icon (SR1) and the cached thumbnail (FF9).
async fn served_here(
    state: &AppState,
    records: &[tidings_store::FeedRecord],
    feeds: &mut [Feed],
) -> Result<(), Problem> {
    crate::ui::media::set_icons(state, records, feeds).await?;
    crate::ui::media::set_cached(
        state,
        feeds
            .iter_mut()
            .map(|f| (&mut f.image, format!("/images/feeds/{}", f.id))),
    )
    .await?;
    Ok(())
}

/// One feed; 404 when there is none with that id.
#[utoipa::path(
    get,
    path = "/v1/feeds/{id}",
    operation_id = "get_feed",
    tag = "feeds",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "The feed.", body = Feed),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn get(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Feed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    match state.store.feed(id).await? {
        Some(record) => {
            let mut feed = [Feed::from(&record)];
            served_here(&state, std::slice::from_ref(&record), &mut feed).await?;
            let [feed] = feed;
            Ok(Json(feed))
        }
        None => Err(Problem::not_found(format!("no feed with id {id}"))),
    }
}

/// The changes of a feed's directives, newest first (FF14): what each response's
/// `X-Robots-Tag` said and what held after it (a full response replaces them, a 304 may only
/// add). At most the last 100; 404 when there is no feed with that id.
/// The most changes of a feed's directives shown, newest first (the API's and the admin page's).
pub const DIRECTIVE_CHANGES: u32 = 100;

#[utoipa::path(
    get,
    path = "/v1/feeds/{id}/directives",
    operation_id = "get_feed_directives",
    tag = "feeds",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "The changes, newest first.", body = DirectiveHistory),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn directives(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<DirectiveHistory>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    if state.store.feed(id).await?.is_none() {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    }
    let changes = state.store.directive_history(id, DIRECTIVE_CHANGES).await?;
    Ok(Json(DirectiveHistory {
        changes: changes.iter().map(DirectiveChange::from).collect(),
    }))
}

/// The feed's WebSub subscription, if it has one: the hub it names, the topic, where it
/// stands, its lease and the pushes stored (never its secret or its callback). A feed has none
/// when no callback is configured, its feed names no hub, or the hub was not asked yet.
#[utoipa::path(
    get,
    path = "/v1/feeds/{id}/websub",
    operation_id = "get_feed_websub",
    tag = "feeds",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "The subscription, or `null`.", body = FeedWebSub),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn websub(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<FeedWebSub>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    if state.store.feed(id).await?.is_none() {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    }
    let subscription = state.store.websub(id).await?;
    Ok(Json(FeedWebSub {
        subscription: subscription.as_ref().map(WebSubscription::from),
    }))
}

/// Subscribe the calling key to a feed.
///
/// The key subscribes as `key:ID`, as the crawler's `subscribe` does: a URL a do-not-crawl rule forbids is refused (FF13), and so is a feed removed on request
/// (WFM10). Nothing is fetched here: a new feed is due at once and the running crawl reads it.
/// 201 with the feed and its `Location`.
#[utoipa::path(
    post,
    path = "/v1/feeds",
    operation_id = "subscribe",
    tag = "feeds",
    request_body(content = Subscribe, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = CREATED, description = "Subscribed: the feed, new or already known.",
            body = Feed,
            headers(("Location" = String, description = "`/v1/feeds/ID`"))),
        (status = BAD_REQUEST, description = "The body is not JSON with a `url`, or the URL \
            is not an http or https URL with a host and without credentials, or its host is an \
            IP address outside the public address space and the server does not allow private \
            networks (`--allow-private-networks`).",
            body = problem::Body, content_type = "application/problem+json"),
        (status = UNPROCESSABLE_ENTITY, description = "A do-not-crawl rule forbids the URL, or \
            the feed was removed on request.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, Problem> {
    let body: Subscribe = params::json_object(body, r#"{"url": "https://example.org/feed.xml"}"#)?;
    let url = FeedUrl::parse(&body.url)
        .map_err(|e| Problem::invalid("url", format!("not a feed URL: {e}")))?;
    let (key, placement) = (caller.subscriber(), tidings_store::Placement::default());
    let (subscribed, feed) = subscribe(&state, caller.subscribing(&key, &placement), &url).await?;
    tracing::info!(
        feed_id = %feed.id,
        feed_url = %feed.url,
        caller = %caller,
        new_feed = subscribed.new_feed,
        "subscribed through the api"
    );
    let mut response = (StatusCode::CREATED, Json(Feed::from(&feed))).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/v1/feeds/{}", feed.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// Unsubscribe the calling key from a feed.
///
/// 204, or 404 when the key has no subscription to feed `{id}`. The feed and its entries stay.
#[utoipa::path(
    delete,
    path = "/v1/feeds/{id}",
    operation_id = "unsubscribe",
    tag = "feeds",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    security(("bearer" = [])),
    responses(
        (status = NO_CONTENT, description = "The key's subscription is removed."),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "This key has no subscription to the feed.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    if caller.unsubscribe(&*state.store, id).await? {
        tracing::info!(feed_id = %id, caller = %caller, "unsubscribed through the api");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Problem::not_found(format!(
            "this key has no subscription to feed {id}"
        )))
    }
}

/// Subscribe `who` to `url` (an API key, the web UI's key, a sync client's account): a 400 when
/// its host is no host name or address; refused (422) when a do-not-crawl rule forbids it
/// (FF13) or the feed was removed on request (WFM10). The new feed is due at once, for the
/// running crawl.
pub(crate) async fn subscribe(
    state: &AppState,
    who: Subscriber<'_>,
    url: &FeedUrl,
) -> Result<(Subscribed, FeedRecord), Problem> {
    let subscribed = match operator::subscribe(
        &*state.store,
        &state.profile,
        url,
        who,
        state.allow_private_networks,
        chrono::Utc::now(),
    )
    .await
    {
        Ok(subscribed) => subscribed,
        Err(SubscribeError::Refused(refusal @ Refusal::NoHost { .. })) => {
            return Err(Problem::invalid(
                "url",
                format!("not a feed URL: {refusal}"),
            ));
        }
        Err(SubscribeError::Refused(Refusal::Unreachable { url, reason })) => {
            return Err(Problem::invalid(
                "url",
                format!("{url} cannot be read: {reason}"),
            ));
        }
        Err(SubscribeError::Refused(Refusal::Blocked { url, reason })) => {
            return Err(Problem::new(
                ProblemKind::Refused,
                format!("{url} may not be crawled: {reason}"),
            ));
        }
        Err(SubscribeError::Store(StoreError::FeedRemoved(_))) => {
            return Err(Problem::new(
                ProblemKind::Refused,
                "this feed was removed on request and cannot be subscribed to again",
            ));
        }
        Err(SubscribeError::Store(e)) => return Err(e.into()),
    };
    // A new feed is due at once: the crawler reads it now rather than at its next look.
    state.wake_crawler();
    let Some(feed) = state.store.feed(subscribed.feed_id).await? else {
        return Err(Problem::internal(
            &"the feed vanished right after it was added",
        ));
    };
    Ok((subscribed, feed))
}

/// An operator's change to feed `{id}` (see [`FeedChange`]): 200 with the feed as it is now.
/// An interval outside the profile's bounds or an egress that is no IP address is a 400; a
/// feed removed on request, or one a do-not-crawl rule still covers, cannot be resumed (422).
/// A longer interval moves the next read at once; a shorter one takes effect after it, so a
/// change never brings a read forward past a failure's wait or a Retry-After.
#[utoipa::path(
    patch,
    path = "/v1/feeds/{id}",
    operation_id = "change_feed",
    tag = "feeds",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    request_body(content = FeedChange, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The feed as it is now.", body = Feed),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number; the body is \
            not JSON with at least one of `paused`, `interval_secs`, `egress` and nothing else; \
            the interval is outside the running profile's bounds; or the egress is not one of \
            the server's configured addresses. `parameter` names which.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = UNPROCESSABLE_ENTITY, description = "The feed was removed on request, or a \
            do-not-crawl rule still covers the feed being resumed.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn patch(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<Feed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    let change: FeedChange = params::json_object(
        body,
        r#"{"paused": true, "interval_secs": 7200, "egress": null} (any of them)"#,
    )?;
    if change == FeedChange::default() {
        return Err(Problem::invalid(
            "body",
            "nothing to change: give paused, interval_secs or egress",
        ));
    }
    let Some(feed) = state.store.feed(id).await? else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    if feed.state == FeedState::Removed {
        return Err(Problem::new(
            ProblemKind::Refused,
            "this feed was removed on request (WFM10) and stays removed",
        ));
    }
    let now = chrono::Utc::now();
    let interval = change
        .interval_secs
        .map(|secs| secs.map(|s| interval_within_profile(&state, s)).transpose())
        .transpose()?;
    let egress = change
        .egress
        .as_ref()
        .map(|address| {
            address
                .as_deref()
                .map(|a| egress_address(&state, a))
                .transpose()
        })
        .transpose()?;
    if change.paused == Some(false) {
        refuse_blocked(&state, &feed.url).await?;
    }
    let overrides = interval.map(|interval_secs| FeedOverrides { interval_secs });
    let reschedule = match (interval, feed.last_fetch_at) {
        (Some(Some(secs)), Some(last))
            if feed.state == FeedState::Active && feed.consecutive_failures == 0 =>
        {
            let at = last + chrono::Duration::seconds(i64::try_from(secs).unwrap_or(i64::MAX));
            (at > feed.next_fetch_at)
                .then(|| (at, format!("interval {secs}s (set by an operator)")))
        }
        _ => None,
    };
    let patch = FeedPatch {
        paused: change.paused,
        reason: match change.paused {
            Some(true) => format!("paused by an operator ({caller})"),
            _ => format!("resumed by an operator ({caller})"),
        },
        held_by: None,
        egress,
        overrides,
        reschedule,
        at: now,
    };
    let Some(feed) = state.store.patch_feed(id, &patch).await? else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    state.wake_crawler();
    tracing::info!(feed_id = %id, caller = %caller, ?change, "feed changed through the api");
    Ok(Json(Feed::from(&feed)))
}

/// An operator's refresh interval: within the running profile's bounds (WFM3, DFB3, ...).
fn interval_within_profile(state: &AppState, secs: u64) -> Result<u64, Problem> {
    let bounds = &state.profile.schedule;
    if (bounds.min_interval..=bounds.max_interval).contains(&secs) {
        Ok(secs)
    } else {
        Err(Problem::invalid(
            "interval_secs",
            format!(
                "the profile {:?} reads a feed every {} to {} seconds; {secs} is outside that",
                state.profile.name, bounds.min_interval, bounds.max_interval
            ),
        ))
    }
}

/// An egress address: one of the addresses the server is configured to send from, kept in
/// its canonical form.
fn egress_address(state: &AppState, text: &str) -> Result<String, Problem> {
    let ip = text.trim().parse::<std::net::IpAddr>().map_err(|_| {
        Problem::invalid(
            "egress",
            format!("egress is a local IP address such as 192.0.2.10, not {text:?}"),
        )
    })?;
    if !state.egress.contains(&ip) {
        let configured = if state.egress.is_empty() {
            "none is configured (tidings.toml `egress = [...]` or --egress-address)".to_owned()
        } else {
            let list: Vec<String> = state.egress.iter().map(ToString::to_string).collect();
            format!("the configured ones are {}", list.join(", "))
        };
        return Err(Problem::invalid(
            "egress",
            format!("{ip} is not an egress address of this server: {configured}"),
        ));
    }
    Ok(ip.to_string())
}

/// A 422 problem when a do-not-crawl rule forbids `url` (or the feed it already names).
pub(crate) async fn refuse_blocked(state: &AppState, url: &FeedUrl) -> Result<(), Problem> {
    match operator::rule_covering(&*state.store, url).await? {
        Some(reason) => Err(Problem::new(
            ProblemKind::Refused,
            format!("{url} may not be crawled: {reason}"),
        )),
        None => Ok(()),
    }
}
