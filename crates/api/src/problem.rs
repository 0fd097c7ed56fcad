//! Errors as `application/problem+json` (RFC 9457), each with a stable `type`.
//!
//! Every error a handler returns is a [`Problem`]: a closed [`ProblemKind`] (which fixes the
//! `type` URI, the `title` and the status) and a `detail` written for the client. Invalid input
//! is a 4xx naming the parameter; a store failure is a 500 whose detail says nothing about the
//! database (the cause goes to the log, never to the client). axum's own rejections (query
//! strings, path parameters, unknown paths, wrong methods) are turned into problems too.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tidings_store::StoreError;
use utoipa::ToSchema;

/// Where the problem types live; each kind appends its own name.
pub const TYPE_BASE: &str = "https://tidings.example/problems/";

/// The media type of a problem document (RFC 9457, section 3).
pub const CONTENT_TYPE: &str = "application/problem+json";

/// What kind of problem: fixes the `type`, the `title` and the HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// The resource does not exist (404).
    NotFound,
    /// A query or path parameter is malformed or out of bounds (400).
    InvalidParameter,
    /// The path exists but not with this method (405).
    MethodNotAllowed,
    /// Something failed on our side; the detail never says what (500).
    Internal,
    /// No API key, or one that is unknown or revoked (401).
    Unauthorized,
    /// The key may not do this: a reader key asking to write (403).
    Forbidden,
    /// The request is understood but refused: a do-not-crawl rule or a removed feed (422).
    Refused,
    /// The key sent more requests than its rate allows, or the client's address failed too many
    /// key checks (429).
    TooManyRequests,
    /// The request's body did not arrive within the server's body-read timeout (408).
    RequestTimeout,
}

impl ProblemKind {
    /// The last segment of the `type` URI, stable across versions.
    pub fn slug(self) -> &'static str {
        match self {
            ProblemKind::NotFound => "not-found",
            ProblemKind::InvalidParameter => "invalid-parameter",
            ProblemKind::MethodNotAllowed => "method-not-allowed",
            ProblemKind::Internal => "internal",
            ProblemKind::Unauthorized => "unauthorized",
            ProblemKind::Forbidden => "forbidden",
            ProblemKind::Refused => "refused",
            ProblemKind::TooManyRequests => "too-many-requests",
            ProblemKind::RequestTimeout => "request-timeout",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            ProblemKind::NotFound => "Not found",
            ProblemKind::InvalidParameter => "Invalid parameter",
            ProblemKind::MethodNotAllowed => "Method not allowed",
            ProblemKind::Internal => "Internal error",
            ProblemKind::Unauthorized => "Unauthorized",
            ProblemKind::Forbidden => "Forbidden",
            ProblemKind::Refused => "Refused",
            ProblemKind::TooManyRequests => "Too many requests",
            ProblemKind::RequestTimeout => "Request timeout",
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            ProblemKind::NotFound => StatusCode::NOT_FOUND,
            ProblemKind::InvalidParameter => StatusCode::BAD_REQUEST,
            ProblemKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ProblemKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ProblemKind::Unauthorized => StatusCode::UNAUTHORIZED,
            ProblemKind::Forbidden => StatusCode::FORBIDDEN,
            ProblemKind::Refused => StatusCode::UNPROCESSABLE_ENTITY,
            ProblemKind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ProblemKind::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        }
    }

    /// The full `type` URI.
    pub fn type_uri(self) -> String {
        format!("{TYPE_BASE}{}", self.slug())
    }
}

/// An error answer of the API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {detail}", kind.slug())]
pub struct Problem {
    pub kind: ProblemKind,
    /// For the client: what was wrong with this request.
    pub detail: String,
    /// The query or path parameter at fault, for [`ProblemKind::InvalidParameter`].
    pub parameter: Option<&'static str>,
}

impl Problem {
    pub fn not_found(detail: impl Into<String>) -> Problem {
        Problem {
            kind: ProblemKind::NotFound,
            detail: detail.into(),
            parameter: None,
        }
    }

    /// `parameter` is malformed or out of bounds; `detail` says what is expected.
    pub fn invalid(parameter: &'static str, detail: impl Into<String>) -> Problem {
        Problem {
            kind: ProblemKind::InvalidParameter,
            detail: detail.into(),
            parameter: Some(parameter),
        }
    }

    /// A problem of `kind` without a parameter at fault.
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            detail: detail.into(),
            parameter: None,
        }
    }

    /// A failure on our side; `cause` is logged, the client only learns that it failed.
    pub fn internal(cause: &dyn std::fmt::Display) -> Problem {
        tracing::error!(error = %cause, "request failed");
        Problem {
            kind: ProblemKind::Internal,
            detail: "the server could not complete the request; try again later".to_owned(),
            parameter: None,
        }
    }
}

/// The problem document as sent (RFC 9457), and its schema in the OpenAPI document.
#[derive(Serialize, ToSchema)]
#[schema(as = Problem)]
pub struct Body<'a> {
    /// Stable: `https://tidings.example/problems/` and the kind (`invalid-parameter`,
    /// `not-found`, `unauthorized`, ...).
    #[serde(rename = "type")]
    #[schema(
        format = "uri",
        example = "https://tidings.example/problems/invalid-parameter"
    )]
    pub type_: String,
    /// The kind's title, the same for every problem of that `type`.
    pub title: &'static str,
    /// The HTTP status, repeated.
    #[schema(minimum = 400, maximum = 599)]
    pub status: u16,
    /// What was wrong with this request, for a person to read.
    pub detail: &'a str,
    /// Extension member: the query or path parameter at fault (`limit`, `id`, `body`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<&'static str>,
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = self.kind.status();
        let body = Body {
            type_: self.kind.type_uri(),
            title: self.kind.title(),
            status: status.as_u16(),
            detail: &self.detail,
            parameter: self.parameter,
        };
        // Serialising plain strings and numbers cannot fail; keep a fixed body if it ever does.
        let json = serde_json::to_vec(&body).unwrap_or_else(|_| b"{}".to_vec());
        let mut response = (status, json).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
        if self.kind == ProblemKind::Unauthorized {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"tidings\""),
            );
        }
        response
    }
}

impl From<StoreError> for Problem {
    fn from(e: StoreError) -> Problem {
        match e {
            StoreError::NoSuchFeed(id) => Problem::not_found(format!("no feed with id {id}")),
            other => Problem::internal(&other),
        }
    }
}

impl From<QueryRejection> for Problem {
    fn from(e: QueryRejection) -> Problem {
        // axum's text names the serde error (`invalid digit`, `duplicate field`): about the
        // client's own input, so it is safe to pass on.
        Problem::invalid(
            "query",
            format!("cannot read the query string: {}", e.body_text()),
        )
    }
}

impl From<PathRejection> for Problem {
    fn from(e: PathRejection) -> Problem {
        Problem::invalid("path", format!("cannot read the path: {}", e.body_text()))
    }
}

/// Fallback for paths under `/v1` that name nothing.
pub async fn no_route() -> Problem {
    Problem::not_found("no such resource")
}

/// Fallback for a known path asked with a method it does not take.
pub async fn method_not_allowed() -> Problem {
    Problem {
        kind: ProblemKind::MethodNotAllowed,
        detail: "this resource does not take that method".to_owned(),
        parameter: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(problem: Problem) -> (StatusCode, String, serde_json::Value) {
        let response = problem.into_response();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let status = response.status();
        let bytes = body_bytes(response);
        (
            status,
            content_type,
            serde_json::from_slice(&bytes).unwrap(),
        )
    }

    fn body_bytes(response: Response) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap()
                .to_vec()
        })
    }

    #[test]
    fn invalid_parameter_is_a_400_naming_the_parameter() {
        let (status, content_type, json) = body(Problem::invalid("limit", "too big"));
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(content_type, CONTENT_TYPE);
        assert_eq!(
            json,
            serde_json::json!({
                "type": "https://tidings.example/problems/invalid-parameter",
                "title": "Invalid parameter",
                "status": 400,
                "detail": "too big",
                "parameter": "limit",
            })
        );
    }

    #[test]
    fn store_errors_are_500s_that_leak_nothing() {
        let secret = StoreError::Location("postgres://user:hunter2@db".into(), "bad".into());
        let (status, _, json) = body(Problem::from(secret));
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(json["type"], "https://tidings.example/problems/internal");
        let text = json.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("postgres"),
            "{text}"
        );
        assert!(json.get("parameter").is_none());
    }

    #[test]
    fn a_missing_feed_from_the_store_is_a_404() {
        let (status, _, json) = body(Problem::from(StoreError::NoSuchFeed(
            tidings_model::FeedId(7),
        )));
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(json["type"], "https://tidings.example/problems/not-found");
        assert_eq!(json["detail"], "no feed with id 7");
    }
}
