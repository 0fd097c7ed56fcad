//! `/.well-known/http-message-signatures-directory`: the public keys this bot signs its
//! requests with (SR11, Web Bot Auth), as a JWK Set with the directory's media type.
//!
//! The response is itself signed, once by each key it lists, over the authority the request
//! named (`"@authority";req`) and the body's `Content-Digest`, so a verifier can check that
//! the keys come from this origin and were not altered on the way. The key directory holds
//! every key that has not expired: one signing now, older ones until they expire, and any
//! made ahead of their start. With none, a 404 says so.

use crate::AppState;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tidings_fetch::botkeys::{self, DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH};

/// The directory's route.
pub fn routes() -> Router<AppState> {
    Router::new().route(DIRECTORY_PATH, get(directory))
}

async fn directory(State(state): State<AppState>, request: HeaderMap) -> Response {
    let plain = [(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    )];
    let Some(authority) = request
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| authority_of(h.trim()))
        .filter(|h| !h.is_empty() && !h.contains(['\r', '\n']))
    else {
        return (StatusCode::BAD_REQUEST, plain, "a Host header is needed\n").into_response();
    };
    let keys = match tidings_crawler::keys::load(state.store.as_ref()).await {
        Ok(keys) => keys,
        Err(e) => {
            tracing::error!(error = %e, "cannot read the bot keys");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                plain,
                "the keys cannot be read now\n",
            )
                .into_response();
        }
    };
    let now = chrono::Utc::now().timestamp();
    if botkeys::published(&keys, now).is_empty() {
        return (
            StatusCode::NOT_FOUND,
            plain,
            "This bot publishes no signing keys: it does not sign its requests.\n",
        )
            .into_response();
    }
    let body = botkeys::directory_json(&keys, now);
    // Verifiers may cache it as long as the profile says; a rotated key is published that
    // long before it signs.
    let max_age = state.profile.signing.directory_max_age;
    let signed = match botkeys::sign_directory(&keys, &authority, body.as_bytes(), now, max_age) {
        Ok(Some(signed)) => signed,
        Ok(None) | Err(_) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                plain,
                "the key directory cannot be signed\n",
            )
                .into_response();
        }
    };
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(DIRECTORY_MEDIA_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, cache_control(max_age));
    for (name, value) in [
        ("content-digest", signed.content_digest),
        ("signature-input", signed.signature_input),
        ("signature", signed.signature),
    ] {
        // Built here from base64, numbers and the keyids: always a valid value.
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    (headers, body).into_response()
}

/// `Cache-Control` for a directory verifiers may keep `max_age` seconds.
fn cache_control(max_age: u64) -> HeaderValue {
    // Digits only: always a valid value.
    HeaderValue::from_str(&format!("max-age={max_age}"))
        .unwrap_or_else(|_| HeaderValue::from_static("no-cache"))
}

/// The `@authority` of a Host value (RFC 9421 §2.2.3): lower-cased, without a default port
/// (80 or 443; the server cannot tell which scheme the client used behind a proxy).
fn authority_of(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    match host.rsplit_once(':') {
        Some((name, "80" | "443")) if !name.is_empty() && !name.ends_with(':') => name.to_owned(),
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authority_drops_a_default_port_and_case() {
        for (host, authority) in [
            ("Bot.Example", "bot.example"),
            ("bot.example:443", "bot.example"),
            ("bot.example:80", "bot.example"),
            ("bot.example:8443", "bot.example:8443"),
            ("127.0.0.1:4000", "127.0.0.1:4000"),
            ("[::1]:443", "[::1]"),
            ("[::1]", "[::1]"),
        ] {
            assert_eq!(authority_of(host), authority, "{host}");
        }
    }

    #[test]
    fn the_cache_lifetime_is_the_profiles() {
        assert_eq!(cache_control(3600), "max-age=3600");
        assert_eq!(cache_control(60), "max-age=60");
    }
}
