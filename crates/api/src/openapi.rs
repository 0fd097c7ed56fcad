//! The OpenAPI 3.1 document of the JSON API, made from the code and served at
//! `GET /openapi.json`.
//!
//! Each handler carries its own `#[utoipa::path(...)]` (path, parameters with their bounds,
//! body, every status it answers with and its schema, the key it needs) and each wire type
//! derives `ToSchema`. A documented handler is routed only through `utoipa_axum::routes!`, which
//! takes the path and the method from that attribute, so the router and the document are one
//! list and cannot drift: [`documented`] is that list (`/healthz`, `v1::routes`,
//! `export::routes`). `tests/openapi.rs` fails when a `/v1` route is added any other way.
//!
//! The problem answers every operation shares are [`ReadErrors`] (a `/v1` read) and
//! [`AdminErrors`] (a write, or an operator's read); an operation lists its own 400, 404 or 422
//! as tuples with `body = problem::Body, content_type = "application/problem+json"`.

use crate::problem::{self, CONTENT_TYPE as PROBLEM_TYPE};
use crate::{AppState, export, v1};
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::routing::get;
use std::collections::BTreeMap;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{
    ContentBuilder, HeaderBuilder, Ref, RefOr, Response, ResponseBuilder, Type as SchemaType,
};
use utoipa::{IntoResponses, Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Where the document is served.
pub const PATH: &str = "/openapi.json";

/// The name of the API-key scheme in `security(...)`: `security(("bearer" = []))` for an
/// operation that needs a key, `security((), ("bearer" = []))` for one where a key is optional.
pub const BEARER: &str = "bearer";

/// What the document says besides its paths.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "tidings",
        description = "The JSON API of tidings, a courteous feed crawler and aggregator: feeds, \
            entries, the request log and hosts, and the stored entries as Atom 1.0 and JSON \
            Feed 1.1. Errors are `application/problem+json` (RFC 9457) with a stable `type`. \
            Reads need a key unless the server runs with `--public-reads`; writes and the \
            operator's reads need an admin key, sent as `Authorization: Bearer TOKEN`.",
        license(name = "MIT OR Apache-2.0"),
    ),
    components(schemas(problem::Body)),
    modifiers(&BearerScheme),
    tags(
        (name = "feeds", description = "Subscriptions and what tidings knows of each feed"),
        (name = "entries", description = "Stored entries, newest first"),
        (name = "reading", description = "An account's subscriptions, unread counts, read and \
            starred entries (a key made with `tidings keys create --user NAME`)"),
        (name = "outputs", description = "Stored entries as Atom 1.0 and JSON Feed 1.1"),
        (name = "operator", description = "The request log and hosts (admin key)"),
        (name = "catalogue", description = "The catalogue (SR2): feeds an operator lists for \
            readers to browse, verified with one read before they are listed"),
        (name = "health", description = "Whether the server answers"),
    ),
)]
pub struct ApiDoc;

/// Adds the API-key scheme.
struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("tdg_ and 64 hex digits")
                    .description(Some(
                        "An API key made by `tidings keys create --role reader|admin`.",
                    ))
                    .build(),
            ),
        );
    }
}

/// Every documented route, with the document they make: the one place a documented router is
/// added. Undocumented answers (the problem for an unknown `/v1` path) are plain `.route`s
/// inside these routers, and only those.
pub fn documented() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(crate::healthz))
        .merge(v1::routes())
        .merge(export::routes())
}

/// The document, as served.
pub fn document() -> utoipa::openapi::OpenApi {
    documented().into_openapi()
}

/// The documented routes and `GET /openapi.json`; a known path asked with another method is a
/// 405 problem.
pub fn routes() -> Router<AppState> {
    let (router, doc) = documented().split_for_parts();
    // Serialising the document's own types cannot fail; an empty body would fail the tests.
    let json = axum::body::Bytes::from(serde_json::to_vec(&doc).unwrap_or_default());
    router
        .route(
            PATH,
            get(move || async move {
                (
                    [(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    )],
                    json,
                )
            }),
        )
        .method_not_allowed_fallback(problem::method_not_allowed)
}

/// The problems any read of `/v1` may answer with: 401, 429, 500.
pub struct ReadErrors;

impl IntoResponses for ReadErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([
            (
                "401".to_owned(),
                unauthorized(
                    "The key sent is unknown or revoked, or the Authorization header is not \
                     Bearer and a token; or none was sent and reads are not public (`--public-reads`).",
                ),
            ),
            ("429".to_owned(), too_many()),
            ("500".to_owned(), internal()),
        ])
    }
}

/// The problems an operation that needs an admin key may answer with: 401, 403, 429, 500.
pub struct AdminErrors;

impl IntoResponses for AdminErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([
            (
                "401".to_owned(),
                unauthorized("No key was sent, or it is unknown or revoked."),
            ),
            (
                "403".to_owned(),
                problem_response("The key is a reader key: this needs an admin key."),
            ),
            ("429".to_owned(), too_many()),
            ("500".to_owned(), internal()),
        ])
    }
}

/// The problems an operation on an account's own reading may answer with: 401, 403, 429, 500.
pub struct AccountErrors;

impl IntoResponses for AccountErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([
            (
                "401".to_owned(),
                unauthorized("No key was sent, or it is unknown or revoked."),
            ),
            (
                "403".to_owned(),
                problem_response("The key belongs to no account."),
            ),
            ("429".to_owned(), too_many()),
            ("500".to_owned(), internal()),
        ])
    }
}

/// A response whose body is a problem document.
fn problem_response(description: &str) -> RefOr<Response> {
    problem_builder(description).build().into()
}

fn problem_builder(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        PROBLEM_TYPE,
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("Problem")))
            .build(),
    )
}

fn unauthorized(description: &str) -> RefOr<Response> {
    problem_builder(description)
        .header(
            "WWW-Authenticate",
            HeaderBuilder::new()
                .schema(Some(utoipa::openapi::Object::with_type(SchemaType::String)))
                .description(Some("`Bearer realm=\"tidings\"`"))
                .build(),
        )
        .build()
        .into()
}

fn too_many() -> RefOr<Response> {
    problem_builder("The key sent more requests than its rate allows.")
        .header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(Some(utoipa::openapi::Object::with_type(
                    SchemaType::Integer,
                )))
                .description(Some("Whole seconds to wait, at least 1."))
                .build(),
        )
        .build()
        .into()
}

fn internal() -> RefOr<Response> {
    problem_response("Something failed on the server's side; the detail never says what.")
}
