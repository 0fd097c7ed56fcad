//! What discovery holds for an operator's review (FF3): a feed found that may be one already
//! stored, listed with the match's reason, and decided as a duplicate, a feed of its own, or
//! rejected (`tidings_crawler::operator::review`, as the CLI decides it). A decision is a new
//! check of the URL; the held one stays (FF2).
//!
//! And the page queue (FF1, FF4): a URL whose feeds to find or a spider run, submitted here
//! and worked by the crawl (`tidings_crawler::operator::submit_page_job`, as the CLI and the
//! UI submit them); the API itself sends nothing.

use super::wire::{
    Check, HeldDecision, HeldList, Job, JobKind, JobList, JobRequest, ReviewDecision,
};
use crate::AppState;
use crate::auth::{AdminAccess, WriteAccess};
use crate::openapi::AdminErrors;
use crate::problem::{self, Problem, ProblemKind};
use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::Utc;
use tidings_crawler::operator::{self, JobAsk, Refusal, Review, ReviewError, SubmitError};
use tidings_model::{FeedUrl, LimitsAsked};
use tidings_store::PageJob;

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
    let id = positive_id(&id, "a check id")?;
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

/// The most jobs one answer lists.
const MOST_JOBS: u32 = 200;

/// `POST /v1/discovery/jobs`: put a job in the page queue (FF1, FF4) for the crawl to work;
/// nothing is sent by the API. 202 with the job; follow it at `/v1/discovery/jobs/{id}`.
#[utoipa::path(
    post,
    path = "/v1/discovery/jobs",
    operation_id = "submit_job",
    tag = "operator",
    request_body(content = JobRequest, content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = ACCEPTED, description = "Queued: the crawl works it.", body = Job,
            headers(("Location" = String, description = "The job's own URL."))),
        (status = BAD_REQUEST, description = "The body is not a job request (`url`, `kind`, \
            and for a spider run optional limits); the URL is not an http(s) URL or names no \
            host; the address guard refuses it; or a limit is 0 or past the profile's \
            ceilings. `parameter` names which.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = UNPROCESSABLE_ENTITY, description = "A do-not-crawl rule covers the URL, or \
            the running profile does not request discovery pages (a spider run).",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn submit(
    State(state): State<AppState>,
    WriteAccess(caller): WriteAccess,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<axum::response::Response, Problem> {
    use axum::response::IntoResponse;
    let body: JobRequest = super::params::json_object(
        body,
        r#"{"url": "https://example.org/", "kind": "discover"}"#,
    )?;
    let url = FeedUrl::parse(&body.url)
        .map_err(|e| Problem::invalid("url", format!("not an http(s) URL: {e}")))?;
    let ask = match body.kind {
        JobKind::Discover => JobAsk::Discover,
        JobKind::Catalogue => JobAsk::Catalogue,
        JobKind::Spider => JobAsk::Spider(state.profile.spider.limits(&LimitsAsked {
            depth: body.depth,
            max_urls: body.max_urls,
            max_requests: body.max_requests,
            max_bytes: body.max_bytes,
            max_time: body.max_time_secs.map(std::time::Duration::from_secs),
            linked_sites: body.linked_sites.unwrap_or(false),
        })),
    };
    let job = queue(&state, &url, ask, &caller.subscriber())
        .await
        .map_err(refused)?;
    let location = format!("/v1/discovery/jobs/{}", job.id);
    let mut response = (StatusCode::ACCEPTED, Json(Job::of(&job, Some(&[])))).into_response();
    if let Ok(value) = axum::http::HeaderValue::from_str(&location) {
        response
            .headers_mut()
            .insert(axum::http::header::LOCATION, value);
    }
    Ok(response)
}

/// Put a job in the page queue for `who` (`operator::submit_page_job` with this server's
/// profile and address guard) and wake the crawl, which works it: what the API and the web
/// UI submit.
pub(crate) async fn queue(
    state: &AppState,
    url: &FeedUrl,
    ask: JobAsk,
    who: &str,
) -> Result<PageJob, SubmitError> {
    let request = operator::JobRequest {
        url,
        ask,
        requested_by: who,
        running: false,
    };
    let job = operator::submit_page_job(
        &*state.store,
        &state.profile,
        request,
        state.allow_private_networks,
        Utc::now(),
    )
    .await?;
    tracing::info!(
        job = job.id,
        kind = job.kind.as_str(),
        requested_by = who,
        "page job queued"
    );
    state.wake_crawler();
    Ok(job)
}

/// A job refused, as a problem: 422 for a do-not-crawl rule or a profile that does not
/// discover, 400 for a URL or limits that cannot be, 500 for the store.
pub(crate) fn refused(e: SubmitError) -> Problem {
    match e {
        SubmitError::Refused(refusal @ Refusal::Blocked { .. }) => {
            Problem::new(ProblemKind::Refused, refusal.to_string())
        }
        SubmitError::Refused(refusal) => Problem::invalid("url", refusal.to_string()),
        SubmitError::NoDiscovery(why) => Problem::new(ProblemKind::Refused, why),
        SubmitError::Limits(why) => Problem::invalid("body", why),
        SubmitError::Store(e) => Problem::from(e),
    }
}

/// `GET /v1/discovery/jobs`: the page queue's jobs, newest first.
#[utoipa::path(
    get,
    path = "/v1/discovery/jobs",
    operation_id = "list_jobs",
    tag = "operator",
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The newest jobs first.", body = JobList),
        AdminErrors,
    )
)]
pub async fn jobs(State(state): State<AppState>, _: AdminAccess) -> Result<Json<JobList>, Problem> {
    let jobs = state.store.page_jobs(MOST_JOBS).await?;
    Ok(Json(JobList {
        jobs: jobs.iter().map(|j| Job::of(j, None)).collect(),
    }))
}

/// `GET /v1/discovery/jobs/{id}`: one job, with the feeds it found.
#[utoipa::path(
    get,
    path = "/v1/discovery/jobs/{id}",
    operation_id = "get_job",
    tag = "operator",
    params(("id" = i64, Path, minimum = 1, description = "The job's id.")),
    security(("bearer" = [])),
    responses(
        (status = OK, description = "The job as it stands, with its feeds.", body = Job),
        (status = BAD_REQUEST, description = "`id` is not a positive whole number.",
            body = problem::Body, content_type = "application/problem+json"),
        (status = NOT_FOUND, description = "No job has this id (or it ended and was dropped \
            after its retention period).",
            body = problem::Body, content_type = "application/problem+json"),
        AdminErrors,
    )
)]
pub async fn job(
    State(state): State<AppState>,
    _: AdminAccess,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Job>, Problem> {
    let Path(id) = id?;
    let id = positive_id(&id, "a job id")?;
    let Some(job) = state.store.page_job(id).await? else {
        return Err(Problem::not_found(format!("no job {id}")));
    };
    let feeds = state.store.page_job_feeds(id).await?;
    Ok(Json(Job::of(&job, Some(&feeds))))
}

/// A path's id: a positive whole number, else a 400 naming `id`.
fn positive_id(id: &str, what: &str) -> Result<i64, Problem> {
    match id.parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(Problem::invalid(
            "id",
            format!("{what} is a positive whole number, not {id:?}"),
        )),
    }
}
