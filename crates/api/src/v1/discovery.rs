//! What discovery holds for an operator's review (FF3): a feed found that may be one already
//! stored, listed with the match's reason, and decided as a duplicate, a feed of its own, or
//! rejected (`tidings_crawler::operator::review`, as the CLI decides it). A decision is a new
//! check of the URL; the held one stays (FF2).

use super::wire::{Check, HeldDecision, HeldList, ReviewDecision};
use crate::AppState;
use crate::auth::{AdminAccess, WriteAccess};
use crate::openapi::AdminErrors;
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use chrono::Utc;
use tidings_crawler::operator::{self, Review, ReviewError};

/// The most held matches one answer lists.
const MOST_HELD: u32 = 500;

/// `GET /v1/discovery/held`: the feeds found that may be stored ones, oldest first.
#[utoipa::path(
    get,
    path = "/v1/discovery/held",
    operation_id = "list_held_matches",
    tag = "operator",
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The matches waiting for review.", body = HeldList),
        AdminErrors,
    )
)]
pub async fn held(
    State(state): State<AppState>,
    _: AdminAccess,
) -> Result<Json<HeldList>, Problem> {
    let held = state.store.held_checks(MOST_HELD).await?;
    Ok(Json(HeldList {
        held: held.iter().map(Check::from).collect(),
    }))
}

/// `POST /v1/discovery/held/{id}` with `{"decision": "duplicate" | "new" | "reject"}`: the
/// decision, as the URL's new check. 404 for no such check, 422 for one not waiting.
#[utoipa::path(
    post,
    path = "/v1/discovery/held/{id}",
    operation_id = "review_held_match",
    tag = "operator",
    params(("id" = i64, Path, minimum = 1, description = "The held check's id.")),
    request_body(content = ReviewDecision, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The decision, recorded as the URL's latest check.", body = Check),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number, or the body \
            is not `{\"decision\": ...}` with `duplicate`, `new` or `reject`.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No check has this id.", body = problem::Body, content_type = "application/problem+json"),
        (status = UNPROCESSABLE_ENTITY, description = "The check is not waiting for review \
            (decided already, or checked again since).",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn review(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<Check>, Problem> {
    let Path(id) = id?;
    let id = match id.parse::<i64>() {
        Ok(id) if id > 0 => id,
        _ => {
            return Err(Problem::invalid(
                "id",
                format!("a check id is a positive whole number, not {id:?}"),
            ));
        }
    };
    let body: ReviewDecision = super::params::json_object(body, r#"{"decision": "duplicate"}"#)?;
    let decision = match body.decision {
        HeldDecision::Duplicate => Review::Duplicate,
        HeldDecision::New => Review::New,
        HeldDecision::Reject => Review::Reject,
    };
    let who = caller.to_string();
    let decided = operator::review(&*state.store, id, decision, &who, Utc::now())
        .await
        .map_err(|e| match e {
            ReviewError::NotFound(_) => Problem::not_found(e.to_string()),
            ReviewError::NotHeld { .. } => Problem::new(ProblemKind::Refused, e.to_string()),
            ReviewError::Store(e) => Problem::from(e),
        })?;
    tracing::info!(check = id, caller = %caller, decision = ?body.decision, "held match decided (FF3)");
    Ok(Json(Check::from(&decided)))
}
