//! What an operator does through the API (admin key): do-not-crawl rules (FF13), removal on
//! a publisher's request (WFM10), and OPML import and export of subscriptions.
//!
//! A rule takes effect at once: the feeds it covers are paused with the rule as their reason,
//! without a request, as `tidings block` does; removing a rule resumes the feeds no other rule
//! covers. The running crawler reads the rules again within 30 seconds and checks them before
//! every request anyway.

use super::Scope;
use super::feeds::{block_list, subscribe};
use super::params;
use super::wire::{
    Feed, ImportedFeed, NewRule, OpmlImport, Removal, Removed, Rule, RuleAdded, RuleList,
    RuleRemoved,
};
use crate::AppState;
use crate::auth::{AdminAccess, Caller, ReadAccess, WriteAccess};
use crate::openapi::{AdminErrors, ReadErrors};
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use tidings_feed::opml::{self, Outline};
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::{BlockKind, block_hold_reason, is_block_hold, parse_rule};
use tidings_store::{FeedPatch, FeedState, NewBlock};
use utoipa::IntoParams;

/// The media type of the OPML export.
pub const OPML_TYPE: &str = "text/x-opml; charset=utf-8";
/// The most outlines one import takes.
pub const MAX_IMPORT: usize = 10_000;

/// `GET /v1/rules`: every do-not-crawl rule, oldest first.
#[utoipa::path(
    get,
    path = "/v1/rules",
    operation_id = "list_rules",
    tag = "operator",
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The do-not-crawl rules.", body = RuleList),
        AdminErrors,
    )
)]
pub async fn rules(
    State(state): State<AppState>,
    _: AdminAccess,
) -> Result<Json<RuleList>, Problem> {
    let rules = state.store.blocks().await?;
    Ok(Json(RuleList {
        rules: rules.iter().map(Rule::from).collect(),
    }))
}

/// `POST /v1/rules` with `{"kind": "host", "value": "example.org", "reason": "..."}`: 201 with
/// the new rule and the feeds it paused, or 200 with the rule that already existed.
#[utoipa::path(
    post,
    path = "/v1/rules",
    operation_id = "add_rule",
    tag = "operator",
    request_body(content = NewRule, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = CREATED, description = "The new rule and the feeds it paused.", body = RuleAdded),
        (status = OK, description = "The rule existed already; feeds it covers are paused.",
            body = RuleAdded),
        (status = BAD_REQUEST, description = "The body is not JSON with `kind` and `value`, \
            the kind is unknown, or the value is not a valid rule of that kind.",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn add_rule(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, Problem> {
    let body: NewRule = params::json_object(
        body,
        r#"{"kind": "host", "value": "example.org", "reason": "asked by its publisher"}"#,
    )?;
    let kind = BlockKind::parse(&body.kind).map_err(|e| Problem::invalid("kind", e.to_string()))?;
    let value =
        parse_rule(kind, &body.value).map_err(|e| Problem::invalid("value", e.to_string()))?;
    let reason = body.reason.filter(|r| !r.trim().is_empty());
    let added = state
        .store
        .add_block(&NewBlock {
            kind: kind.as_str().to_owned(),
            value,
            reason,
            created_at: Utc::now(),
        })
        .await?;
    let paused = hold_covered_feeds(&state, &caller).await?;
    tracing::info!(
        rule = added.block.id,
        kind = %added.block.kind,
        value = %added.block.value,
        key_id = caller.key_id,
        paused = paused.len(),
        "do-not-crawl rule added through the api"
    );
    let status = if added.new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let answer = RuleAdded {
        rule: Rule::from(&added.block),
        new: added.new,
        paused: paused.iter().map(|f| f.0).collect(),
    };
    Ok((status, Json(answer)).into_response())
}

/// `DELETE /v1/rules/{id}`: the rule goes and the feeds it held that no other rule covers are
/// resumed (read when due). 404 when there is no such rule.
#[utoipa::path(
    delete,
    path = "/v1/rules/{id}",
    operation_id = "remove_rule",
    tag = "operator",
    params(("id" = i64, Path, minimum = 1, description = "The rule's id.")),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The rule removed and the feeds resumed.", body = RuleRemoved),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.", body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No rule has this id.", body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn remove_rule(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<RuleRemoved>, Problem> {
    let Path(id) = id?;
    let id = match id.parse::<i64>() {
        Ok(id) if id > 0 => id,
        _ => {
            return Err(Problem::invalid(
                "id",
                format!("a rule id is a positive whole number, not {id:?}"),
            ));
        }
    };
    let rules = state.store.blocks().await?;
    let Some(rule) = rules.into_iter().find(|r| r.id == id) else {
        return Err(Problem::not_found(format!(
            "no do-not-crawl rule with id {id}"
        )));
    };
    state.store.remove_block(&rule.kind, &rule.value).await?;
    let resumed = resume_uncovered_feeds(&state, &caller).await?;
    tracing::info!(
        rule = rule.id,
        key_id = caller.key_id,
        resumed = resumed.len(),
        "do-not-crawl rule removed through the api"
    );
    Ok(Json(RuleRemoved {
        rule: Rule::from(&rule),
        resumed: resumed.iter().map(|f| f.0).collect(),
    }))
}

/// Pause every active feed a rule now covers, with the rule as its reason; nothing is sent.
pub(crate) async fn hold_covered_feeds(
    state: &AppState,
    caller: &Caller,
) -> Result<Vec<FeedId>, Problem> {
    let list = block_list(state).await?;
    let mut paused = Vec::new();
    for feed in state.store.feeds().await? {
        if feed.state != FeedState::Active {
            continue;
        }
        let Some(block) = list.check(feed.url.as_url(), Some(feed.id)) else {
            continue;
        };
        let patch = FeedPatch::paused(true, block_hold_reason(&block.describe()), Utc::now());
        if state.store.patch_feed(feed.id, &patch).await?.is_some() {
            tracing::info!(feed_id = %feed.id, key_id = caller.key_id, "feed held by a rule");
            paused.push(feed.id);
        }
    }
    Ok(paused)
}

/// Resume the feeds a rule held that no rule covers any more.
pub(crate) async fn resume_uncovered_feeds(
    state: &AppState,
    caller: &Caller,
) -> Result<Vec<FeedId>, Problem> {
    let list = block_list(state).await?;
    let mut resumed = Vec::new();
    for feed in state.store.feeds().await? {
        let held = feed.state == FeedState::Paused
            && feed.state_reason.as_deref().is_some_and(is_block_hold);
        if !held || list.check(feed.url.as_url(), Some(feed.id)).is_some() {
            continue;
        }
        let patch = FeedPatch::paused(
            false,
            "resumed: no do-not-crawl rule covers it any more",
            Utc::now(),
        );
        if state.store.patch_feed(feed.id, &patch).await?.is_some() {
            tracing::info!(feed_id = %feed.id, key_id = caller.key_id, "feed resumed: no rule covers it");
            resumed.push(feed.id);
        }
    }
    if !resumed.is_empty() {
        state.wake_crawler();
    }
    Ok(resumed)
}

/// `POST /v1/feeds/{id}/removal` (WFM10): the feed is removed at once, every subscription
/// ends, and it is never read or subscribed to again; its entries and request log stay. With
/// `"block": true` its URLs (the one read and the one first added) also become `url` rules.
#[utoipa::path(
    post,
    path = "/v1/feeds/{id}/removal",
    operation_id = "remove_feed",
    tag = "operator",
    params(("id" = i64, Path, minimum = 1, description = "The feed's id.")),
    request_body(content = Removal, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The feed, now removed; the rules added.", body = Removed),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number, or the body \
            is not JSON with only `reason` and `block`.", body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No feed has this id.", body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn remove_feed(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<Removed>, Problem> {
    let Path(id) = id?;
    let id = params::feed_id("id", &id)?;
    let body: Removal = params::json_object(
        body,
        r#"{"reason": "asked by its publisher", "block": true}"#,
    )?;
    let Some(before) = state.store.feed(id).await? else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    state.store.remove_feed(id).await?;
    let mut rules = Vec::new();
    if body.block {
        let reason = body
            .reason
            .clone()
            .filter(|r| !r.trim().is_empty())
            .or_else(|| Some(format!("feed {id} removed on request (WFM10)")));
        let mut urls = vec![before.url.to_string()];
        if before.original_url != before.url.as_str() {
            urls.push(before.original_url.clone());
        }
        for url in urls {
            let value = parse_rule(BlockKind::Url, &url)
                .map_err(|e| Problem::internal(&format!("a stored feed URL is no rule: {e}")))?;
            let added = state
                .store
                .add_block(&NewBlock {
                    kind: BlockKind::Url.as_str().to_owned(),
                    value,
                    reason: reason.clone(),
                    created_at: Utc::now(),
                })
                .await?;
            rules.push(Rule::from(&added.block));
        }
    }
    let Some(after) = state.store.feed(id).await? else {
        return Err(Problem::internal(&"a removed feed vanished"));
    };
    tracing::info!(
        feed_id = %id,
        key_id = caller.key_id,
        subscriptions_ended = before.subscribers,
        rules = rules.len(),
        "feed removed on request through the api"
    );
    Ok(Json(Removed {
        feed: Feed::from(&after),
        subscriptions_ended: before.subscribers,
        rules,
    }))
}

/// The OPML export's query string.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OpmlParams {
    /// Only the calling key's subscriptions; needs a key.
    #[param(value_type = Option<bool>)]
    mine: Option<String>,
}

/// `GET /v1/opml`: every subscribed feed (or, with `mine=true`, the calling key's) as OPML 2.0.
#[utoipa::path(
    get,
    path = "/v1/opml",
    operation_id = "export_opml",
    tag = "operator",
    params(OpmlParams),
    security((), ("bearer" = [])),
    responses(
        (status = OK, description = "The subscriptions as OPML 2.0.", body = String,
            content_type = "text/x-opml"),
        (status = BAD_REQUEST, description = "`mine` is not true or false.", body = problem::Body, content_type = "application/problem+json"),
        ReadErrors,
    )
)]
pub async fn export_opml(
    State(state): State<AppState>,
    ReadAccess(caller): ReadAccess,
    query: Result<Query<OpmlParams>, QueryRejection>,
) -> Result<Response, Problem> {
    let Query(p) = query?;
    let scope = Scope::of(caller, p.mine.as_deref(), None, Utc::now())?;
    let feeds = match &scope.subscriber {
        Some(who) => state.store.feeds_of(who).await?,
        None => state.store.feeds().await?,
    };
    let outlines: Vec<Outline> = feeds
        .into_iter()
        .filter(|f| f.subscribers > 0 && f.state != FeedState::Removed)
        .map(|f| Outline {
            xml_url: f.url.to_string(),
            title: f.title,
            html_url: f.site_link,
        })
        .collect();
    let title = match caller.filter(|_| scope.subscriber.is_some()) {
        Some(c) => format!("tidings: the subscriptions of key {}", c.key_id),
        None => "tidings subscriptions".to_owned(),
    };
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(OPML_TYPE)),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=\"tidings.opml\""),
            ),
        ],
        opml::write(&title, &outlines),
    )
        .into_response())
}

/// `POST /v1/opml` with an OPML document as the body: the calling key subscribes to every
/// feed listed, each as `POST /v1/feeds` would (rules and removals refuse some). Nothing is
/// fetched here. 200 with what became of each outline; a body that is no OPML is a 400.
#[utoipa::path(
    post,
    path = "/v1/opml",
    operation_id = "import_opml",
    tag = "operator",
    request_body(content = String, content_type = "text/x-opml",
        description = "An OPML document (at most 10,000 feeds, 2 MiB)."),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "What became of each outline.", body = OpmlImport),
        (status = BAD_REQUEST, description = "The body is not an OPML document, or lists too \
            many feeds.", body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn import_opml(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<OpmlImport>, Problem> {
    let body = body.map_err(|e| {
        Problem::invalid(
            "body",
            format!("the OPML document could not be read: {}", e.body_text()),
        )
    })?;
    let text = String::from_utf8_lossy(&body);
    let outlines = opml::read(&text)
        .map_err(|e| Problem::invalid("body", format!("the body is an OPML document: {e}")))?;
    if outlines.len() > MAX_IMPORT {
        return Err(Problem::invalid(
            "body",
            format!(
                "one import takes at most {MAX_IMPORT} feeds; this document lists {}",
                outlines.len()
            ),
        ));
    }
    let mut report = OpmlImport::default();
    for outline in outlines {
        let url = match FeedUrl::parse(&outline.xml_url) {
            Ok(url) => url,
            Err(e) => {
                report.skipped.push(ImportedFeed {
                    url: outline.xml_url,
                    detail: format!("not a feed URL: {e}"),
                });
                continue;
            }
        };
        match subscribe(&state, &caller, &url).await {
            Ok((subscribed, feed)) if subscribed.new_subscription => {
                report.subscribed.push(feed.id.0);
            }
            Ok((_, feed)) => report.already.push(feed.id.0),
            Err(problem) if problem.kind == ProblemKind::Refused => {
                report.refused.push(ImportedFeed {
                    url: url.to_string(),
                    detail: problem.detail,
                });
            }
            // The URL itself will not do (a private address): skipped, like an ftp URL.
            Err(problem) if problem.kind == ProblemKind::InvalidParameter => {
                report.skipped.push(ImportedFeed {
                    url: url.to_string(),
                    detail: problem.detail,
                });
            }
            Err(problem) => return Err(problem),
        }
    }
    tracing::info!(
        key_id = caller.key_id,
        subscribed = report.subscribed.len(),
        already = report.already.len(),
        refused = report.refused.len(),
        skipped = report.skipped.len(),
        "opml imported through the api"
    );
    Ok(Json(report))
}
