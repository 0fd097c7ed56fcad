//! `GET /v1/feeds`, `GET /v1/feeds/{id}`, and the writes an admin key may make:
//! `POST /v1/feeds` (subscribe), `PATCH /v1/feeds/{id}` (pause, resume, refresh interval,
//! egress address) and `DELETE /v1/feeds/{id}` (unsubscribe).

use super::params;
use super::wire::{Feed, FeedChange, FeedList, Subscribe};
use crate::AppState;
use crate::auth::{Caller, ReadAccess, WriteAccess};
use crate::problem::{Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::{Block, BlockKind, BlockList};
use tidings_store::{
    FeedOverrides, FeedPatch, FeedRecord, FeedState, NewFeed, StoreError, Subscribed,
};

/// Every feed, by id.
pub async fn list(State(state): State<AppState>, _: ReadAccess) -> Result<Json<FeedList>, Problem> {
    let feeds = state.store.feeds().await?;
    Ok(Json(FeedList {
        feeds: feeds.iter().map(Feed::from).collect(),
    }))
}

/// One feed; 404 when there is none with that id.
pub async fn get(
    State(state): State<AppState>,
    _: ReadAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Feed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    match state.store.feed(id).await? {
        Some(feed) => Ok(Json(Feed::from(&feed))),
        None => Err(Problem::not_found(format!("no feed with id {id}"))),
    }
}

/// Subscribe the calling key (`key:ID`) to `{"url": ...}`, as the crawler's `subscribe` does:
/// a URL a do-not-crawl rule forbids is refused (FF13), and so is a feed removed on request
/// (WFM10). Nothing is fetched here: a new feed is due at once and the running crawl reads it.
/// 201 with the feed and its `Location`.
pub async fn create(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Json<Subscribe>, JsonRejection>,
) -> Result<Response, Problem> {
    let Json(body) = body.map_err(|e| {
        Problem::invalid(
            "body",
            format!(
                "the body is JSON like {{\"url\": \"https://example.org/feed.xml\"}}: {}",
                e.body_text()
            ),
        )
    })?;
    let url = FeedUrl::parse(&body.url)
        .map_err(|e| Problem::invalid("url", format!("not a feed URL: {e}")))?;
    let (subscribed, feed) = subscribe(&state, &caller, &url).await?;
    tracing::info!(
        feed_id = %feed.id,
        feed_url = %feed.url,
        key_id = caller.key_id,
        new_feed = subscribed.new_feed,
        "subscribed through the api"
    );
    let mut response = (StatusCode::CREATED, Json(Feed::from(&feed))).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/v1/feeds/{}", feed.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// Remove the calling key's subscription to feed `{id}`: 204, or 404 when it has none. The
/// feed and its entries stay.
pub async fn delete(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    if state.store.unsubscribe(id, &caller.subscriber()).await? {
        tracing::info!(feed_id = %id, key_id = caller.key_id, "unsubscribed through the api");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Problem::not_found(format!(
            "this key has no subscription to feed {id}"
        )))
    }
}

/// Subscribe `caller` to `url`: refused (422) when a do-not-crawl rule forbids it (FF13) or the
/// feed was removed on request (WFM10). The new feed is due at once, for the running crawl.
pub(crate) async fn subscribe(
    state: &AppState,
    caller: &Caller,
    url: &FeedUrl,
) -> Result<(Subscribed, FeedRecord), Problem> {
    refuse_blocked(state, url).await?;
    let now = chrono::Utc::now();
    let first = tidings_policy::first_fetch(now, &state.profile);
    let new = NewFeed {
        next_fetch_at: first.next_fetch_at,
        next_fetch_reason: first.reason,
        interval_secs: i64::try_from(first.interval_secs).unwrap_or(i64::MAX),
    };
    let subscribed = match state
        .store
        .subscribe(url, &caller.subscriber(), now, &new)
        .await
    {
        Ok(subscribed) => subscribed,
        Err(StoreError::FeedRemoved(_)) => {
            return Err(Problem::new(
                ProblemKind::Refused,
                "this feed was removed on request and cannot be subscribed to again",
            ));
        }
        Err(e) => return Err(e.into()),
    };
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
pub async fn patch(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<FeedChange>, JsonRejection>,
) -> Result<Json<Feed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    let Json(change) = body.map_err(|e| {
        Problem::invalid(
            "body",
            format!(
                "the body is JSON with any of paused (true or false), interval_secs (seconds \
                 or null) and egress (an IP address or null): {}",
                e.body_text()
            ),
        )
    })?;
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
        .map(|address| address.as_deref().map(egress_address).transpose())
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
            Some(true) => format!("paused by an operator (key {})", caller.key_id),
            _ => format!("resumed by an operator (key {})", caller.key_id),
        },
        egress,
        overrides,
        reschedule,
        at: now,
    };
    let Some(feed) = state.store.patch_feed(id, &patch).await? else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    tracing::info!(feed_id = %id, key_id = caller.key_id, ?change, "feed changed through the api");
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

/// An egress address: an IP address, kept in its canonical form.
fn egress_address(text: &str) -> Result<String, Problem> {
    text.trim()
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.to_string())
        .map_err(|_| {
            Problem::invalid(
                "egress",
                format!("egress is a local IP address such as 192.0.2.10, not {text:?}"),
            )
        })
}

/// The operator's do-not-crawl rules, read on each call, so one added by `tidings block`
/// holds at once.
pub(crate) async fn block_list(state: &AppState) -> Result<BlockList, Problem> {
    let blocks = state.store.blocks().await?;
    Ok(BlockList::new(
        blocks
            .into_iter()
            .filter_map(|b| {
                Some(Block {
                    id: b.id,
                    kind: BlockKind::parse(&b.kind).ok()?,
                    value: b.value,
                    reason: b.reason,
                    created_at: b.created_at,
                })
            })
            .collect(),
    ))
}

/// A 422 problem when a do-not-crawl rule forbids `url` (or the feed it already names).
pub(crate) async fn refuse_blocked(state: &AppState, url: &FeedUrl) -> Result<(), Problem> {
    let list = block_list(state).await?;
    if list.is_empty() {
        return Ok(());
    }
    let known: Option<FeedId> = state.store.feed_by_url(url).await?.map(|f| f.id);
    match list.check(url.as_url(), known) {
        Some(block) => Err(Problem::new(
            ProblemKind::Refused,
            format!("{url} may not be crawled: {}", block.describe()),
        )),
        None => Ok(()),
    }
}
