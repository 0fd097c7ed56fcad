//! Who is asking, for the UI: an account's web session (a password login), or an API key in
//! the key cookie or a Bearer header, checked by `crate::auth` exactly as the API checks it
//! (same store lookup, same rate); `/login` and `/logout`; and the cross-site check of every
//! state-changing form.
//!
//! - [`Viewer`]: reader pages. A visitor who has not logged in is sent to `/login`, unless
//!   reads are public (`serve --public-reads`).
//! - [`Admin`]: admin pages and the operator's forms; without a login, to `/login`; as a
//!   reader, a 403 page. An account's own reading (marks, stars, its subscriptions) needs
//!   only its login.
//! - [`SameOrigin`]: a POST whose `Origin` (else `Referer`) names another site, or whose
//!   `Sec-Fetch-Site` says it came from one, is refused with a 403 page. The cookie is
//!   `SameSite=Strict` too, so a browser does not send it along a cross-site request at all.
//!
//! A token (a key's or a session's) never appears on a page, in a URL or in the log; it
//! lives only in an `HttpOnly` cookie, and the store keeps only its hash. Logging out ends
//! the session in the store.

use super::page::{self, Frame, render};
use crate::AppState;
use crate::auth::{
    COOKIE, Caller, Counted, Denied, Role, SESSION_COOKIE, TOO_MANY_FAILURES, TOO_MANY_FOR_KEY,
    client_ip, close_session, cookie, identify, open_session, retry_after_secs, verify,
};
use crate::escape::text as esc;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, FromRequestParts, Query, State};
use axum::http::header::{self, HeaderValue};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::time::Duration;

/// How long the login cookie lasts: 30 days (the key itself can be revoked at any time).
pub const COOKIE_MAX_AGE_SECS: u64 = 30 * 86_400;

/// The longest token `/login` looks up; a real one is 68 characters.
const MAX_TOKEN_LEN: usize = 200;

/// A reader page's viewer: the key, if one was sent.
#[derive(Debug, Clone, Copy)]
pub struct Viewer(pub Option<Caller>);

/// An admin page's viewer.
#[derive(Debug, Clone, Copy)]
pub struct Admin(pub Caller);

/// A viewer logged in as an account (its web session, or a key of an account): what changes
/// that account's own reading and subscriptions needs.
#[derive(Debug, Clone, Copy)]
pub struct Member {
    pub caller: Caller,
    pub account: i64,
}

/// A viewer who may subscribe and unsubscribe: an account (its own subscriptions), or an
/// operator's admin key.
#[derive(Debug, Clone, Copy)]
pub struct Acting(pub Caller);

/// A POST that did not come from another site.
#[derive(Debug, Clone, Copy)]
pub struct SameOrigin;

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let keyed = !state.auth.config().public_reads;
        match identify(parts, state).await {
            Ok(Some(caller)) => Ok(Viewer(Some(caller))),
            Ok(None) if keyed => Err(to_login(parts, None)),
            Ok(None) => Ok(Viewer(None)),
            // A stale cookie (the key was revoked): log in again, or read without it.
            Err(Denied::Unknown | Denied::Malformed) if keyed => {
                Err(to_login(parts, Some("stale")))
            }
            Err(Denied::Unknown | Denied::Malformed) => Ok(Viewer(None)),
            // A throttled address may still read what is public.
            Err(Denied::Throttled(_)) if !keyed => Ok(Viewer(None)),
            Err(denied) => Err(refusal(state, denied)),
        }
    }
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match identify(parts, state).await {
            Ok(Some(caller)) if caller.role == Role::Admin => Ok(Admin(caller)),
            Ok(Some(caller)) => Err(page::message(
                &frame(state, Some(caller), "admin"),
                StatusCode::FORBIDDEN,
                "Admin needed",
                "You are logged in as a reader. This page needs an admin account or key: log \
                 out and log in again as one.",
            )),
            Ok(None) => Err(to_login(parts, None)),
            Err(Denied::Unknown | Denied::Malformed) => Err(to_login(parts, Some("stale"))),
            Err(denied) => Err(refusal(state, denied)),
        }
    }
}

impl FromRequestParts<AppState> for Member {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let caller = who_is_logged_in(parts, state).await?;
        match caller.account() {
            Some(account) => Ok(Member { caller, account }),
            None => Err(page::message(
                &frame(state, Some(caller), ""),
                StatusCode::FORBIDDEN,
                "Account needed",
                "Reading state belongs to an account, and this key belongs to none: log in \
                 with an account's name and password (an operator makes one with `tidings \
                 users add NAME`).",
            )),
        }
    }
}

impl FromRequestParts<AppState> for Acting {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let caller = who_is_logged_in(parts, state).await?;
        if caller.account().is_some() || caller.role == Role::Admin {
            return Ok(Acting(caller));
        }
        Err(page::message(
            &frame(state, Some(caller), ""),
            StatusCode::FORBIDDEN,
            "Account needed",
            "This reader key may not subscribe: log in with an account, or with an admin key.",
        ))
    }
}

/// Whoever is logged in; else, to `/login`.
async fn who_is_logged_in(parts: &Parts, state: &AppState) -> Result<Caller, Response> {
    match identify(parts, state).await {
        Ok(Some(caller)) => Ok(caller),
        Ok(None) => Err(to_login(parts, None)),
        Err(Denied::Unknown | Denied::Malformed) => Err(to_login(parts, Some("stale"))),
        Err(denied) => Err(refusal(state, denied)),
    }
}

impl FromRequestParts<AppState> for SameOrigin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        if same_origin(&parts.headers) {
            Ok(SameOrigin)
        } else {
            tracing::warn!(path = parts.uri.path(), "cross-site form refused");
            Err(page::message(
                &frame(state, None, ""),
                StatusCode::FORBIDDEN,
                "Refused",
                "This form was sent from another site, so it was refused. Open the page on \
                 tidings itself and send the form from there.",
            ))
        }
    }
}

/// Whether a request's `Origin` (else `Referer`) names the host it was sent to, and its
/// `Sec-Fetch-Site` (when sent) does not say it came from elsewhere. Neither header present
/// passes: the SameSite=Strict cookie already keeps other sites' requests unauthenticated.
///
/// The pages' `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with their
/// own forms; that passes only when `Sec-Fetch-Site: same-origin` vouches for it.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let value = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|site| !matches!(site, "same-origin" | "none")) {
        return false;
    }
    let source = match (value(header::ORIGIN), value(header::REFERER)) {
        (Some(origin), _) if origin.trim() == "null" => {
            return fetch_site == Some("same-origin");
        }
        (Some(origin), _) => origin,
        (None, Some(referer)) => referer,
        (None, None) => return true,
    };
    // Without a Host nothing can be compared; HTTP/1.1 always sends one.
    let Some(host) = value(header::HOST) else {
        return false;
    };
    match authority(source) {
        Some((scheme, authority)) => strip_default_port(scheme, authority)
            .eq_ignore_ascii_case(strip_default_port(scheme, host.trim())),
        // Something unreadable.
        None => false,
    }
}

/// The scheme and `host[:port]` of an absolute http(s) URL.
fn authority(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "http" => "http",
        "https" => "https",
        _ => return None,
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    Some((scheme, authority))
}

fn strip_default_port<'a>(scheme: &str, authority: &'a str) -> &'a str {
    let default = if scheme == "https" { ":443" } else { ":80" };
    authority.strip_suffix(default).unwrap_or(authority)
}

/// A page frame for `who`.
pub fn frame<'a>(state: &'a AppState, who: Option<Caller>, current: &'a str) -> Frame<'a> {
    Frame {
        who,
        version: state.version,
        current,
    }
}

/// `303` to `/login`, coming back here afterwards (a form's page, for a POST).
fn to_login(parts: &Parts, why: Option<&str>) -> Response {
    let back = if parts.method == Method::GET {
        parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_owned()
    } else if parts.uri.path().starts_with("/admin") {
        "/admin".to_owned()
    } else {
        "/".to_owned()
    };
    let mut location = format!("/login?next={}", query_escape(&back));
    if let Some(why) = why {
        location.push_str(&format!("&why={why}"));
    }
    see_other(&location)
}

/// A `303 See Other` to a path of this server.
pub fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// The answer to a key that could not be taken for a reason other than being unknown.
fn refusal(state: &AppState, denied: Denied) -> Response {
    let frame = frame(state, None, "");
    match denied {
        Denied::TooMany(wait) => too_many(&frame, wait, TOO_MANY_FOR_KEY),
        Denied::Throttled(wait) => too_many(&frame, wait, TOO_MANY_FAILURES),
        Denied::Failed(e) => page::failed(&frame, &e),
        Denied::Unknown | Denied::Malformed => page::message(
            &frame,
            StatusCode::UNAUTHORIZED,
            "Unknown key",
            "The API key is unknown or revoked.",
        ),
    }
}

/// A 429 page saying `why` (a sentence without its capital), with `Retry-After`.
fn too_many(frame: &Frame<'_>, wait: Duration, why: &str) -> Response {
    let seconds = retry_after_secs(wait);
    let mut why = why.to_owned();
    if let Some(first) = why.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    let mut response = page::message(
        frame,
        StatusCode::TOO_MANY_REQUESTS,
        "Too many requests",
        &format!("{why}; try again in {seconds} s."),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Percent-encode a path for a query value (only what needs it).
pub fn query_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Where to go after logging in: a path on this server, else `/`. Never another site
/// (`//evil.example`, `/\evil.example`, `https://...`).
pub fn safe_next(next: Option<&str>) -> &str {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.contains('\\')
                && !path.chars().any(char::is_control) =>
        {
            path
        }
        _ => "/",
    }
}

/// `/login`'s query string.
#[derive(Debug, Default, Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
    why: Option<String>,
}

/// `/login`'s form: an account's name and password, or an API key's token.
#[derive(Debug, Default, Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    token: String,
    next: Option<String>,
}

/// `GET /login`: the form.
pub async fn login_form(
    State(state): State<AppState>,
    query: Result<Query<LoginQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let note = match query.why.as_deref() {
        Some("stale") => Some("Your key or session is unknown, revoked or expired: log in again."),
        _ => None,
    };
    login_page(&state, StatusCode::OK, query.next.as_deref(), note)
}

fn login_page(
    state: &AppState,
    status: StatusCode,
    next: Option<&str>,
    error: Option<&str>,
) -> Response {
    let next = esc(safe_next(next));
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>\n", esc(e)))
        .unwrap_or_default();
    let main = format!(
        "<h1>Log in</h1>\n{error}\
         <form class=\"stack\" method=\"post\" action=\"/login\">\n\
         <label for=\"name\">Account</label>\n\
         <input id=\"name\" name=\"name\" autocomplete=\"username\" required \
         autocapitalize=\"none\" spellcheck=\"false\">\n\
         <label for=\"password\">Password</label>\n\
         <input id=\"password\" name=\"password\" type=\"password\" \
         autocomplete=\"current-password\" required>\n\
         <input type=\"hidden\" name=\"next\" value=\"{next}\">\n\
         <button type=\"submit\">Log in</button>\n</form>\n\
         <p class=\"meta\">An operator makes an account with <code>tidings users add NAME</code>. \
         You stay logged in on this browser for 30 days or until you log out.</p>\n\
         <details>\n<summary>Log in with an API key instead</summary>\n\
         <form class=\"stack\" method=\"post\" action=\"/login\">\n\
         <label for=\"token\">API key</label>\n\
         <input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"off\" \
         required spellcheck=\"false\" placeholder=\"tdg_…\">\n\
         <input type=\"hidden\" name=\"next\" value=\"{next}\">\n\
         <button type=\"submit\">Log in with the key</button>\n</form>\n\
         <p class=\"meta\">An operator makes a key with <code>tidings keys create</code>; it is \
         kept in a cookie for this site only.</p>\n</details>\n"
    );
    page::html(
        status,
        render(&frame(state, None, "login"), "Log in", None, &main),
    )
}

/// The client's address, for the limit on failed key checks (`crate::throttle`).
#[derive(Debug, Clone, Copy)]
pub struct Client(Option<std::net::IpAddr>);

impl FromRequestParts<AppState> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _: &AppState,
    ) -> Result<Self, std::convert::Infallible> {
        Ok(Client(client_ip(parts)))
    }
}

/// `POST /login`: check the key as the API would, then keep it in the cookie. Every failure
/// counts against the client's address; past the limit, the answer is a 429 whatever the key.
pub async fn login(
    State(state): State<AppState>,
    _: SameOrigin,
    Client(client): Client,
    form: Result<Form<LoginForm>, FormRejection>,
) -> Response {
    if let Err(wait) = state.auth.may_try(client) {
        return refusal(&state, Denied::Throttled(wait));
    }
    let Ok(Form(form)) = form else {
        return login_page(
            &state,
            StatusCode::BAD_REQUEST,
            None,
            Some("The form was incomplete: give your account's name and password."),
        );
    };
    let next = form.next.as_deref();
    if form.token.trim().is_empty() {
        return password_login(&state, client, &form.name, &form.password, next).await;
    }
    let token = form.token.trim();
    // A token is `tdg_` and hex digits; anything else cannot be one (and must not reach a
    // Set-Cookie header).
    let shaped = token.len() <= MAX_TOKEN_LEN
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !shaped {
        state.auth.failed(client);
        return login_page(
            &state,
            StatusCode::UNAUTHORIZED,
            next,
            Some("That is not an API key: it starts with tdg_."),
        );
    }
    match verify(token, &state, client, Counted::Yes).await {
        Ok(caller) => {
            tracing::info!(caller = %caller, "logged in to the web ui with a key");
            logged_in(next, (COOKIE, token), SESSION_COOKIE)
        }
        Err(Denied::Unknown | Denied::Malformed) => login_page(
            &state,
            StatusCode::UNAUTHORIZED,
            next,
            Some("That API key is unknown or revoked."),
        ),
        Err(denied) => refusal(&state, denied),
    }
}

/// A login with an account's name and password: a web session in its cookie. A wrong name
/// and a wrong password get the same answer, and both count against the address.
async fn password_login(
    state: &AppState,
    client: Option<std::net::IpAddr>,
    name: &str,
    password: &str,
    next: Option<&str>,
) -> Response {
    let frame = frame(state, None, "login");
    let name = name.trim();
    if name.is_empty() || password.is_empty() {
        return login_page(
            state,
            StatusCode::BAD_REQUEST,
            next,
            Some("Give your account's name and its password."),
        );
    }
    let secrets = match state.store.account_secrets(name).await {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    let (hash, password) = (
        secrets.as_ref().map(|s| s.password_hash.clone()),
        password.to_owned(),
    );
    let matched = tokio::task::spawn_blocking(move || {
        crate::accounts::verify_login(hash.as_deref(), &password)
    })
    .await
    .unwrap_or(false);
    let verified = secrets.filter(|_| matched).map(|s| s.account);
    let Some(account) = verified else {
        state.auth.failed(client);
        return login_page(
            state,
            StatusCode::UNAUTHORIZED,
            next,
            Some("That name and password do not match an account."),
        );
    };
    match open_session(state, account.id).await {
        Ok(token) => {
            tracing::info!(account = %account.name, "logged in to the web ui");
            logged_in(next, (SESSION_COOKIE, &token), COOKIE)
        }
        Err(e) => page::failed(&frame, &e),
    }
}

/// `303` to `next` setting cookie `set` (name, value) and clearing cookie `clear`, so one
/// login is in force.
fn logged_in(next: Option<&str>, set: (&str, &str), clear: &str) -> Response {
    let mut response = see_other(safe_next(next));
    let (name, value) = set;
    for cookie in [
        format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={COOKIE_MAX_AGE_SECS}"),
        format!("{clear}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    ] {
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// `GET /logout`: a button, since logging out changes something.
pub async fn logout_form(State(state): State<AppState>, Viewer(who): Viewer) -> Response {
    let main = "<h1>Log out</h1>\n<form class=\"stack\" method=\"post\" action=\"/logout\">\
                <button type=\"submit\">Log out</button></form>\n";
    page::html(
        StatusCode::OK,
        render(&frame(&state, who, ""), "Log out", None, main),
    )
}

/// `POST /logout`: end the web session, if any, and forget both cookies.
pub async fn logout(State(state): State<AppState>, _: SameOrigin, headers: HeaderMap) -> Response {
    if let Some(token) = cookie(&headers, SESSION_COOKIE) {
        close_session(&state, &token).await;
    }
    let mut response = see_other("/login");
    for name in [COOKIE, SESSION_COOKIE] {
        let cookie = format!("{name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn forms_from_other_sites_are_refused() {
        let host = ("host", "127.0.0.1:8080");
        for (pairs, ok) in [
            (vec![host], true),
            (vec![host, ("origin", "http://127.0.0.1:8080")], true),
            (vec![host, ("origin", "HTTP://127.0.0.1:8080")], true),
            (
                vec![host, ("referer", "http://127.0.0.1:8080/admin/rules?x")],
                true,
            ),
            (
                vec![
                    ("host", "example.org"),
                    ("origin", "https://example.org:443"),
                ],
                true,
            ),
            (
                vec![("host", "example.org:80"), ("origin", "http://example.org")],
                true,
            ),
            (vec![host, ("sec-fetch-site", "same-origin")], true),
            (vec![host, ("origin", "http://evil.example")], false),
            (vec![host, ("origin", "http://127.0.0.1:9999")], false),
            (vec![host, ("origin", "null")], false),
            (
                vec![host, ("origin", "null"), ("sec-fetch-site", "same-origin")],
                true,
            ),
            (
                vec![host, ("origin", "null"), ("sec-fetch-site", "cross-site")],
                false,
            ),
            (vec![("referer", "http://127.0.0.1:8080/")], false),
            (vec![host, ("referer", "https://evil.example/x")], false),
            (
                vec![
                    host,
                    ("origin", "http://evil.example"),
                    ("referer", "http://127.0.0.1:8080/"),
                ],
                false,
            ),
            (vec![host, ("sec-fetch-site", "cross-site")], false),
            (vec![host, ("sec-fetch-site", "same-site")], false),
            (vec![host, ("origin", "http://user@127.0.0.1:8080")], false),
            (vec![("origin", "http://127.0.0.1:8080")], false),
        ] {
            assert_eq!(same_origin(&headers(&pairs)), ok, "{pairs:?}");
        }
    }

    #[test]
    fn login_goes_back_only_to_this_server() {
        assert_eq!(safe_next(Some("/admin/log?host=a")), "/admin/log?host=a");
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil",
            "admin",
            "/a\nb",
        ] {
            assert_eq!(safe_next(Some(bad)), "/", "{bad:?}");
        }
        assert_eq!(safe_next(None), "/");
        assert_eq!(query_escape("/search?q=a b&c"), "/search%3Fq%3Da%20b%26c");
    }
}
