//! `/bot`: the public bot page, rendered from the running profile so it cannot drift from what
//! the crawler does. English, French and Portuguese: `?lang=` first, then `Accept-Language`,
//! then English. Plain HTML, no script; its stylesheet is served at `/static/bot.css` so the
//! Content-Security-Policy can forbid everything else.
//!
//! [`render`] is a pure function of (profile, language, version); the handler only picks the
//! language and sets the headers.

/// One sentence in the page's language: each arm is a format string that captures only
/// locals already escaped or built from numbers.
macro_rules! tr {
    ($lang:expr, $en:literal, $fr:literal, $pt:literal $(,)?) => {
        match $lang {
            Lang::En => format!($en),
            Lang::Fr => format!($fr),
            Lang::Pt => format!($pt),
        }
    };
}

mod failures;
mod keep;
mod lang;
mod page;
mod robots_txt;
mod signing;
pub(crate) mod words;

pub use lang::Lang;
pub use page::render;

use crate::AppState;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The page's Content-Security-Policy: nothing but its own stylesheet.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'none'; \
                       base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The bot page's stylesheet: readable on a phone, no external resources.
const CSS: &str = "\
html { font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; background: #fff; }
body { max-width: 42rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.95em; }
.ua code, pre { display: block; overflow-wrap: anywhere; white-space: pre-wrap; \
background: #f4f4f4; padding: 0.5rem; border-radius: 4px; }
ul.langs { list-style: none; padding: 0; display: flex; gap: 1rem; justify-content: flex-end; }
a { color: #0645ad; }
footer { margin-top: 2rem; font-size: 0.9rem; color: #555; }
@media (prefers-color-scheme: dark) {
  html { color: #e8e8e8; background: #121212; }
  .ua code, pre { background: #262626; }
  a { color: #8ab4f8; }
  footer { color: #aaa; }
}
";

/// The bot page's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bot", get(bot_page))
        .route("/static/bot.css", get(stylesheet))
}

/// The value of `lang` in a raw query string, if present.
fn query_lang(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "lang")
        .map(|(_, value)| value)
}

async fn bot_page(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let accept = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let lang = Lang::negotiate(query_lang(query.as_deref()), accept);
    let body = render(&state.profile, lang, state.version);
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::CONTENT_LANGUAGE,
                HeaderValue::from_static(lang.tag()),
            ),
            (header::VARY, HeaderValue::from_static("Accept-Language")),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
        ],
        body,
    )
        .into_response()
}

async fn stylesheet() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/css; charset=utf-8"),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400"),
            ),
        ],
        CSS,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_is_read_from_the_raw_query() {
        assert_eq!(query_lang(Some("lang=fr")), Some("fr"));
        assert_eq!(query_lang(Some("x=1&lang=pt&y")), Some("pt"));
        assert_eq!(query_lang(Some("language=fr")), None);
        assert_eq!(query_lang(Some("")), None);
        assert_eq!(query_lang(None), None);
    }
}
