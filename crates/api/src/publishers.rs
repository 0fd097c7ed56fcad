//! `/publishers?host=example.org`: what tidings fetched from one host in the last 30 days
//! (time, URL, status, bytes, purpose, and the rule that allowed each request), newest first,
//! and which of the host's feeds are paused, off or removed, and why. For the publisher, so it
//! can check what the crawler did without asking: it shows nothing about subscribers.
//!
//! URLs are shown without user information, query or fragment ([`public_url`]): a private
//! feed's URL often carries its subscriber's token there.
//!
//! Server-rendered HTML, no script, the bot page's stylesheet, and a Content-Security-Policy
//! that allows only that stylesheet and the page's own GET form. A host name that is not one
//! is a 400 page naming the problem, never a 500.
//!
//! [`Host::parse`] validates the input once; [`render`] is a pure function of what the store
//! returned and the time.

use crate::AppState;
use crate::bot::words::esc;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Deserialize;
use tidings_store::{FeedRecord, FeedState, LogQuery, RequestLogRow};

/// The page's Content-Security-Policy: its stylesheet, and its form sent to itself.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'none'; \
                       base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// How far back the page looks.
pub const WINDOW_DAYS: i64 = 30;

/// The most requests one page lists; the page says when there were more.
pub const MAX_ROWS: u32 = 1000;

/// The longest host name (RFC 1035: 253 characters in text form).
const MAX_HOST_LEN: usize = 253;

/// The page's route.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/publishers", get(page))
        .route("/feed-ips.txt", get(feed_ips))
}

/// `/feed-ips.txt`: the addresses feeds are read from, one per line, when the running profile
/// publishes them (PF11); a 404 saying so when it does not (SR12). Lines starting with `#` are
/// comments. Without configured addresses, requests leave from the system's own choice, which
/// the file says instead of guessing it.
async fn feed_ips(State(state): State<AppState>) -> Response {
    let plain = HeaderValue::from_static("text/plain; charset=utf-8");
    if !state.profile.egress.publish {
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, plain)],
            "# This bot does not publish the addresses it reads feeds from; they may change.\n",
        )
            .into_response();
    }
    let mut body = format!(
        "# The addresses {} reads feeds from, one per line.\n",
        state.profile.name
    );
    if state.egress.is_empty() {
        body.push_str("# None is configured: requests leave from this server's own address.\n");
    }
    for ip in state.egress.iter() {
        body.push_str(&format!("{ip}\n"));
    }
    ([(header::CONTENT_TYPE, plain)], body).into_response()
}

/// The query string: `host`, as text.
#[derive(Debug, Default, Deserialize)]
pub struct PublisherParams {
    host: Option<String>,
}

/// A host name as the request log and feed URLs spell it: lower-case ASCII letters, digits,
/// `-`, `_` and dots, or an IP address (IPv6 in brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host(String);

/// Why a host name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("a host name is at most {MAX_HOST_LEN} characters")]
    TooLong,
    #[error(
        "give only the host name (example.org), without a scheme, port, path or spaces; \
         internationalised names in their ASCII form (xn--...)"
    )]
    NotAHostName,
}

impl Host {
    /// Trim, lower-case, drop one trailing dot, put an IPv6 address in brackets.
    pub fn parse(input: &str) -> Result<Host, HostError> {
        let text = input.trim().to_ascii_lowercase();
        let text = text.strip_suffix('.').unwrap_or(&text);
        if text.len() > MAX_HOST_LEN {
            return Err(HostError::TooLong);
        }
        let bare_v6 = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(ip) = bare_v6.parse::<core::net::Ipv6Addr>() {
            return Ok(Host(format!("[{ip}]")));
        }
        let labels_ok = !text.is_empty()
            && text.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            });
        if labels_ok {
            Ok(Host(text.to_owned()))
        } else {
            Err(HostError::NotAHostName)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether `feed`'s URL is on `host` (any scheme or port).
fn on_host(feed: &FeedRecord, host: &Host) -> bool {
    feed.url
        .as_url()
        .host_str()
        .is_some_and(|h| h.eq_ignore_ascii_case(host.as_str()))
}

/// What the page shows for one host.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub host: Host,
    /// Requests since `since`, newest first.
    pub requests: Vec<RequestLogRow>,
    /// Whether the store had more than [`MAX_ROWS`] in the window.
    pub truncated: bool,
    /// The host's feeds that are not read normally.
    pub stopped: Vec<FeedRecord>,
    /// How many of the host's feeds are read normally.
    pub active: usize,
    pub since: DateTime<Utc>,
}

/// What the handler answers: the page with a status.
enum Outcome {
    Form,
    Found(Report),
    BadHost(String, HostError),
    Failed,
}

async fn page(
    State(state): State<AppState>,
    query: Result<Query<PublisherParams>, QueryRejection>,
) -> Response {
    let now = Utc::now();
    let outcome = match query {
        Err(_) => Outcome::BadHost(String::new(), HostError::NotAHostName),
        Ok(Query(PublisherParams { host: None })) => Outcome::Form,
        Ok(Query(PublisherParams { host: Some(text) })) if text.trim().is_empty() => Outcome::Form,
        Ok(Query(PublisherParams { host: Some(text) })) => match Host::parse(&text) {
            Err(e) => Outcome::BadHost(text, e),
            Ok(host) => match report(&state, host, now).await {
                Ok(report) => Outcome::Found(report),
                Err(e) => {
                    tracing::error!(error = %e, "publisher page failed");
                    Outcome::Failed
                }
            },
        },
    };
    let (status, body) = match &outcome {
        Outcome::Form => (StatusCode::OK, render(None, "")),
        Outcome::Found(report) => (StatusCode::OK, render(Some(report), report.host.as_str())),
        Outcome::BadHost(text, e) => (
            StatusCode::BAD_REQUEST,
            render_message(text, &format!("That is not a host name: {e}.")),
        ),
        Outcome::Failed => (
            StatusCode::INTERNAL_SERVER_ERROR,
            render_message("", "The page could not be built just now; try again later."),
        ),
    };
    (
        status,
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
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

async fn report(
    state: &AppState,
    host: Host,
    now: DateTime<Utc>,
) -> Result<Report, tidings_store::StoreError> {
    let since = now - Duration::days(WINDOW_DAYS);
    let mut requests = state
        .store
        .request_log(&LogQuery {
            host: Some(host.as_str().to_owned()),
            feed: None,
            limit: MAX_ROWS + 1,
        })
        .await?;
    requests.retain(|r| r.at >= since);
    let truncated = requests.len() > MAX_ROWS as usize;
    requests.truncate(MAX_ROWS as usize);
    let feeds: Vec<FeedRecord> = state
        .store
        .feeds()
        .await?
        .into_iter()
        .filter(|f| on_host(f, &host))
        .collect();
    let active = feeds
        .iter()
        .filter(|f| f.state == FeedState::Active)
        .count();
    let stopped = feeds
        .into_iter()
        .filter(|f| f.state != FeedState::Active)
        .collect();
    Ok(Report {
        host,
        requests,
        truncated,
        stopped,
        active,
        since,
    })
}

/// A URL as the page shows it: without user information and with the query and fragment
/// replaced by `?…`, since a private feed's URL often carries its subscriber's token there.
/// The path is shown as it is (a token in the path cannot be told from a name).
pub fn public_url(url: &str) -> String {
    let (before, hidden) = match url.find(['?', '#']) {
        Some(at) => (&url[..at], true),
        None => (url, false),
    };
    let shown = match before.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => before.to_owned(),
    };
    if hidden {
        format!("{shown}?…")
    } else {
        shown
    }
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The page's head, title, introduction and form, with `value` in the field.
fn head(html: &mut String, title: &str, value: &str) {
    html.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/static/bot.css\">\n\
         </head>\n<body>\n<header>\n<h1>{title}</h1>\n\
         <p>What this tidings instance fetched from a host in the last {WINDOW_DAYS} days, \
         and which of the host's feeds it does not read now, and why. \
         See <a href=\"/bot\">how the crawler behaves</a>.</p>\n\
         <form method=\"get\" action=\"/publishers\">\n\
         <label for=\"host\">Host name</label>\n\
         <input id=\"host\" name=\"host\" type=\"text\" value=\"{value}\" \
         placeholder=\"example.org\" maxlength=\"300\" required>\n\
         <button type=\"submit\">Show</button>\n</form>\n</header>\n<main>\n",
        value = esc(value),
    ));
}

fn foot(html: &mut String) {
    html.push_str("</main>\n</body>\n</html>\n");
}

/// A page with only the form and a message (the 400 and 500 pages).
fn render_message(value: &str, message: &str) -> String {
    let mut html = String::with_capacity(2048);
    head(&mut html, "Requests to a host", value);
    html.push_str(&format!("<p role=\"alert\">{}</p>\n", esc(message)));
    foot(&mut html);
    html
}

/// The page: the form, and the report when there is one.
pub fn render(report: Option<&Report>, value: &str) -> String {
    let mut html = String::with_capacity(8 * 1024);
    let Some(r) = report else {
        head(&mut html, "Requests to a host", value);
        foot(&mut html);
        return html;
    };
    let host = esc(r.host.as_str());
    head(&mut html, &format!("Requests to {host}"), value);
    feeds_section(&mut html, r, &host);
    requests_section(&mut html, r, &host);
    foot(&mut html);
    html
}

fn feeds_section(html: &mut String, r: &Report, host: &str) {
    html.push_str("<h2>Feeds not read now</h2>\n");
    let active = r.active;
    let read = if active == 1 { "feed is" } else { "feeds are" };
    html.push_str(&format!(
        "<p>{active} {read} read normally on {host}.</p>\n"
    ));
    if r.stopped.is_empty() {
        html.push_str("<p>No feed on this host is paused or off.</p>\n");
        return;
    }
    html.push_str(
        "<table>\n<thead><tr><th>Feed</th><th>State</th><th>Why</th><th>Last read</th>\
         <th>Next read</th></tr></thead>\n<tbody>\n",
    );
    for f in &r.stopped {
        let next = match f.state {
            FeedState::Paused => esc(&format!(
                "{} ({})",
                time(f.next_fetch_at),
                f.next_fetch_reason
            )),
            FeedState::Off | FeedState::Removed | FeedState::Active => "never".to_owned(),
        };
        html.push_str(&format!(
            "<tr><td><code>{url}</code></td><td>{state}</td><td>{why}</td><td>{last}</td>\
             <td>{next}</td></tr>\n",
            url = esc(&public_url(f.url.as_str())),
            state = f.state.as_str(),
            why = esc(f.state_reason.as_deref().unwrap_or("")),
            last = f.last_fetch_at.map(time).unwrap_or_default(),
        ));
    }
    html.push_str("</tbody>\n</table>\n");
}

fn requests_section(html: &mut String, r: &Report, host: &str) {
    html.push_str(&format!("<h2>Requests since {}</h2>\n", time(r.since)));
    if r.requests.is_empty() {
        html.push_str(&format!(
            "<p>No request to {host} in the last {WINDOW_DAYS} days.</p>\n"
        ));
        return;
    }
    let n = r.requests.len();
    let more = if r.truncated {
        format!(" (the newest {MAX_ROWS}; there were more)")
    } else {
        String::new()
    };
    html.push_str(&format!("<p>{n} request(s){more}, newest first.</p>\n"));
    html.push_str(
        "<table>\n<thead><tr><th>Time (UTC)</th><th>URL</th><th>Status</th><th>Bytes</th>\
         <th>Purpose</th><th>Why</th></tr></thead>\n<tbody>\n",
    );
    for row in &r.requests {
        let status = match row.status {
            Some(code) => format!("{code} {}", esc(row.outcome.as_str())),
            None => esc(row.outcome.as_str()),
        };
        html.push_str(&format!(
            "<tr><td>{at}</td><td><code>{url}</code></td><td>{status}</td><td>{bytes}</td>\
             <td>{purpose}</td><td>{rule}</td></tr>\n",
            at = time(row.at),
            url = esc(&public_url(&row.url)),
            bytes = row.bytes,
            purpose = esc(&row.purpose),
            rule = esc(&row.rule),
        ));
    }
    html.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials_or_queries() {
        for (url, shown) in [
            (
                "https://example.org/feed.xml",
                "https://example.org/feed.xml",
            ),
            (
                "https://example.org/f?token=s3cret",
                "https://example.org/f?…",
            ),
            ("https://example.org/f#s3cret", "https://example.org/f?…"),
            (
                "https://u:s3cret@example.org:8443/f",
                "https://example.org:8443/f",
            ),
            ("https://u@x@example.org", "https://example.org"),
            ("http://example.org", "http://example.org"),
            ("not a url?x", "not a url?…"),
        ] {
            assert_eq!(public_url(url), shown, "{url}");
        }
    }

    #[test]
    fn host_names_are_read_once() {
        for (input, want) in [
            ("example.org", "example.org"),
            ("  Example.ORG. ", "example.org"),
            ("a-b_c.example", "a-b_c.example"),
            ("192.0.2.1", "192.0.2.1"),
            ("::1", "[::1]"),
            ("[2001:DB8::1]", "[2001:db8::1]"),
            ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ] {
            assert_eq!(Host::parse(input).unwrap().as_str(), want, "{input}");
        }
        for bad in [
            "https://example.org",
            "example.org/feed",
            "example.org:443",
            "exa mple.org",
            "a..b",
            ".",
            "<script>",
            "bücher.example",
            "%",
            "a\u{0}b",
            &"a".repeat(64),
        ] {
            assert_eq!(Host::parse(bad), Err(HostError::NotAHostName), "{bad:?}");
        }
        assert_eq!(Host::parse(&"a.".repeat(130)), Err(HostError::TooLong));
    }
}
