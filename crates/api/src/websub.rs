//! `/websub/{token}`: the callback WebSub hubs reach (issue 17). A `GET` verifies the intent
//! of a subscription this instance asked for (the challenge echoed) or notes a denial; a
//! `POST` brings pushed content, stored only when signed with the subscription's secret.
//! What each means is `tidings_crawler::websub`'s to decide; this module only speaks HTTP.
//!
//! Not a route of the API's document: hubs, not apps, call it, and the token in the path is
//! the only thing that names a subscription.

use crate::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::collections::HashMap;
use tidings_crawler::websub::{self, Pushed, Verification, Verified};

pub fn routes() -> Router<AppState> {
    Router::new().route("/websub/{token}", get(verify).post(push))
}

fn plain(status: StatusCode, text: impl Into<String>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        text.into(),
    )
        .into_response()
}

async fn verify(
    State(state): State<AppState>,
    Path(token): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if !websub::is_token(&token) {
        return plain(StatusCode::NOT_FOUND, "no such subscription\n");
    }
    let asked = Verification {
        mode: query.get("hub.mode").cloned().unwrap_or_default(),
        topic: query.get("hub.topic").cloned(),
        challenge: query.get("hub.challenge").cloned(),
        lease_seconds: query.get("hub.lease_seconds").and_then(|s| s.parse().ok()),
        reason: query.get("hub.reason").cloned(),
    };
    let now = chrono::Utc::now();
    match websub::verify_intent(state.store.as_ref(), &state.profile, &token, &asked, now).await {
        // The challenge goes back as it came, as the protocol asks, in a body that is
        // never rendered as HTML.
        Ok(Verified::Echo(challenge)) => {
            let mut response = plain(StatusCode::OK, challenge);
            response.headers_mut().insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        Ok(Verified::Noted) => plain(StatusCode::OK, ""),
        Ok(Verified::NotOurs) => plain(StatusCode::NOT_FOUND, "no such subscription\n"),
        Err(e) => {
            tracing::error!(error = %e, "a WebSub verification could not be answered");
            plain(StatusCode::SERVICE_UNAVAILABLE, "try again later\n")
        }
    }
}

async fn push(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !websub::is_token(&token) {
        return plain(StatusCode::GONE, "no such subscription\n");
    }
    let limit = usize::try_from(state.profile.websub.max_push_bytes).unwrap_or(usize::MAX);
    let Ok(bytes) = axum::body::to_bytes(body, limit.saturating_add(1)).await else {
        return plain(StatusCode::PAYLOAD_TOO_LARGE, "the body is too large\n");
    };
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let signature = text(header::HeaderName::from_static("x-hub-signature"));
    let content_type = text(header::CONTENT_TYPE);
    let now = chrono::Utc::now();
    let pushed = websub::accept_push(
        state.store.as_ref(),
        &state.profile,
        &token,
        signature.as_deref(),
        content_type.as_deref(),
        bytes.to_vec(),
        now,
    )
    .await;
    match pushed {
        Ok(Pushed::Stored { .. } | Pushed::Ignored(_)) => plain(StatusCode::ACCEPTED, ""),
        Ok(Pushed::Gone) => plain(StatusCode::GONE, "no such subscription\n"),
        Ok(Pushed::TooLarge) => plain(StatusCode::PAYLOAD_TOO_LARGE, "the body is too large\n"),
        Err(e) => {
            tracing::error!(error = %e, "a WebSub push could not be stored");
            plain(StatusCode::SERVICE_UNAVAILABLE, "try again later\n")
        }
    }
}
