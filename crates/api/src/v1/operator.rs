//! What an operator does through the API (admin key): do-not-crawl rules (FF13), removal on
//! a publisher's request (WFM10), and OPML import and export of subscriptions.
//!
//! The actions are `tidings_crawler::operator`'s, as the CLI and the UI take them. A rule
//! governs the next request decision of every process sharing the store; the feeds it covers
//! are paused at once with the rule as their reason, without a request, and removing a rule
//! resumes the feeds no other rule covers. An added rule is answered only once every request
//! the crawler of this process decided under the old rules has ended.

use super::Scope;
use super::feeds::subscribe;
use super::params;
use super::wire::{
    Feed, ImportedFeed, NewRule, OpmlImport, Removal, Removed, Rule, RuleAdded, RuleList,
    RuleRemoved,
};
use crate::AppState;
use crate::auth::{AdminAccess, ReadAccess, WriteAccess};
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
use tidings_crawler::operator::{self, Listing, OperatorError};
use tidings_feed::opml;
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::BlockKind;
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
    let done = operator::add_rule(&*state.store, kind, &body.value, body.reason, Utc::now())
        .await
        .map_err(|e| match e {
            OperatorError::Rule(e) => Problem::invalid("value", e.to_string()),
            OperatorError::Store(e) => Problem::from(e),
        })?;
    // Every request of this process's crawler that was decided under the old rules has
    // ended before the answer: from here on, none goes to what the rule covers.
    state.settle_requests().await;
    let added = done.added;
    let paused: Vec<FeedId> = done.held.iter().map(|f| f.id).collect();
    tracing::info!(
        rule = added.block.id,
        kind = %added.block.kind,
        value = %added.block.value,
        caller = %caller,
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
    let Some(removed) = operator::remove_rule_by_id(&*state.store, id, Utc::now())
        .await
        .map_err(operator_problem)?
    else {
        return Err(Problem::not_found(format!(
            "no do-not-crawl rule with id {id}"
        )));
    };
    if !removed.resumed.is_empty() {
        state.wake_crawler();
    }
    let rule = removed.rule;
    let resumed: Vec<FeedId> = removed.resumed.iter().map(|f| f.id).collect();
    tracing::info!(
        rule = rule.id,
        caller = %caller,
        resumed = resumed.len(),
        "do-not-crawl rule removed through the api"
    );
    Ok(Json(RuleRemoved {
        rule: Rule::from(&rule),
        resumed: resumed.iter().map(|f| f.0).collect(),
    }))
}

/// The problem an operator action's failure is.
fn operator_problem(e: OperatorError) -> Problem {
    match e {
        OperatorError::Rule(e) => Problem::invalid("value", e.to_string()),
        OperatorError::Store(e) => Problem::from(e),
    }
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
    let Some(removed) =
        operator::remove_on_request(&*state.store, id, body.block, body.reason, Utc::now())
            .await
            .map_err(operator_problem)?
    else {
        return Err(Problem::not_found(format!("no feed with id {id}")));
    };
    let (before, after) = (removed.before, removed.after);
    let rules: Vec<Rule> = removed.rules.iter().map(Rule::from).collect();
    tracing::info!(
        feed_id = %id,
        caller = %caller,
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
    // An account's key lists its account's subscriptions, with their titles and folders.
    let whose = match (&scope.subscriber, caller.and_then(|c| c.account())) {
        (Some(_), Some(account)) => Listing::Account(account),
        (Some(who), None) => Listing::Named(who),
        (None, _) => Listing::Everyone,
    };
    let outlines = operator::outlines(&*state.store, whose).await?;
    let title = match caller.filter(|_| scope.subscriber.is_some()) {
        Some(c) => format!("tidings: the subscriptions of {c}"),
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
        let (key, placement) = (caller.subscriber(), tidings_store::Placement::default());
        match subscribe(&state, caller.subscribing(&key, &placement), &url).await {
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
        caller = %caller,
        subscribed = report.subscribed.len(),
        already = report.already.len(),
        refused = report.refused.len(),
        skipped = report.skipped.len(),
        "opml imported through the api"
    );
    Ok(Json(report))
}
