//! The operator's pages (an admin key): `/admin` (every feed by state, with the reason for its
//! state and for its next read), `/admin/hosts/{name}` (robots.txt, Retry-After floor, feeds),
//! `/admin/log` (the request log, C7, by host and feed) and `/admin/errors` (feeds whose last
//! read failed) and `/admin/queue` (the page queue: article pages, icons and images read for
//! feeds, SR1/SR4/SR6/FF9, and the image cache's size and evictions). Read-only; the rules
//! have their own page (`rules`).

use super::access::{Admin, frame, query_escape};
use super::page::{self, Frame, feed_name, monogram, render, time};
use crate::AppState;
use crate::escape::text as esc;
use crate::v1::hosts::host_name;
use crate::v1::params;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use std::collections::BTreeSet;
use tidings_model::HostKey;
use tidings_store::{FeedRecord, FeedState, LogQuery, RequestLogRow};

/// The most feeds listed per state on `/admin`; the page says how many more there are.
pub const MAX_FEEDS_PER_STATE: usize = 500;

/// Queue rows on `/admin/queue`.
pub const QUEUE_ROWS: u32 = 200;

/// Request-log rows on one page of `/admin/log`.
pub const LOG_ROWS: u32 = 200;

/// The most characters of a robots.txt shown.
const MAX_ROBOTS_CHARS: usize = 20_000;

const STATES: [(FeedState, &str); 4] = [
    (FeedState::Paused, "Paused"),
    (FeedState::Off, "Off"),
    (FeedState::Removed, "Removed"),
    (FeedState::Active, "Active"),
];

/// `GET /admin`.
pub async fn feeds(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let feeds = match state.store.feeds().await {
        Ok(feeds) => feeds,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = String::from("<h1>Feeds</h1>\n");
    admin_nav(&mut main);
    let counts: Vec<String> = STATES
        .iter()
        .map(|(s, label)| {
            let n = feeds.iter().filter(|f| f.state == *s).count();
            format!("<a href=\"#{}\">{label}: {n}</a>", s.as_str())
        })
        .collect();
    main.push_str(&format!("<p>{}</p>\n", counts.join(" · ")));
    for (s, label) in STATES {
        let of_state: Vec<&FeedRecord> = feeds.iter().filter(|f| f.state == s).collect();
        main.push_str(&format!(
            "<h2 id=\"{}\">{label} ({})</h2>\n",
            s.as_str(),
            of_state.len()
        ));
        if of_state.is_empty() {
            main.push_str("<p>None.</p>\n");
            continue;
        }
        feed_table(
            &mut main,
            of_state.iter().take(MAX_FEEDS_PER_STATE).copied(),
        );
        if of_state.len() > MAX_FEEDS_PER_STATE {
            main.push_str(&format!(
                "<p class=\"meta\">and {} more</p>\n",
                of_state.len() - MAX_FEEDS_PER_STATE
            ));
        }
    }
    page::html(StatusCode::OK, render(&frame, "Feeds", None, &main))
}

/// The links between the admin pages.
pub(super) fn admin_nav(html: &mut String) {
    html.push_str(
        "<nav aria-label=\"Admin\"><p><a href=\"/admin\">Feeds</a> · \
         <a href=\"/admin/errors\">Errors</a> · <a href=\"/admin/log\">Request log</a> · \
         <a href=\"/admin/queue\">Page queue</a> · \
         <a href=\"/admin/discovery\">Held matches</a> · \
         <a href=\"/admin/jobs\">Discovery jobs</a> · \
         <a href=\"/admin/rules\">Do-not-crawl rules</a></p></nav>\n",
    );
}

/// Feeds with their state's reason and their next read's.
fn feed_table<'a>(html: &mut String, feeds: impl Iterator<Item = &'a FeedRecord>) {
    html.push_str(
        "<div class=\"table\"><table>\n<thead><tr><th>Feed</th><th>Host</th><th>Why this state\
         </th><th>Next read</th><th>Last read</th></tr></thead>\n<tbody>\n",
    );
    for f in feeds {
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            feed_cell(f),
            host_cell(f),
            esc(f.state_reason.as_deref().unwrap_or("")),
            next_read(f),
            last_read(f)
        ));
    }
    html.push_str("</tbody>\n</table></div>\n");
}

fn feed_cell(f: &FeedRecord) -> String {
    format!(
        "{} <a href=\"/feeds/{}\">{}</a><br><code>{}</code>",
        monogram(f, false),
        f.id,
        esc(&feed_name(f)),
        esc(f.url.as_str())
    )
}

fn host_cell(f: &FeedRecord) -> String {
    let host = f.url.as_url().host_str().unwrap_or_default();
    format!("<a href=\"/admin/hosts/{}\">{}</a>", esc(host), esc(host))
}

fn next_read(f: &FeedRecord) -> String {
    match f.state {
        FeedState::Active | FeedState::Paused => {
            format!("{}<br>{}", time(f.next_fetch_at), esc(&f.next_fetch_reason))
        }
        FeedState::Off | FeedState::Removed => "never".to_owned(),
    }
}

fn last_read(f: &FeedRecord) -> String {
    match f.last_fetch_at {
        None => "not yet".to_owned(),
        Some(at) => {
            let status = f.last_status.map(|s| format!(" {s}")).unwrap_or_default();
            format!(
                "{}<br>{}{status}",
                time(at),
                esc(f.last_outcome.map_or("?", |l| l.as_str()))
            )
        }
    }
}

/// `GET /admin/errors`: feeds whose last read failed, most failures first.
pub async fn errors(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let mut failing: Vec<FeedRecord> = match state.store.feeds().await {
        Ok(feeds) => feeds
            .into_iter()
            .filter(|f| f.consecutive_failures > 0 && f.state != FeedState::Removed)
            .collect(),
        Err(e) => return page::failed(&frame, &e),
    };
    failing.sort_by_key(|f| (std::cmp::Reverse(f.consecutive_failures), f.id));
    let mut main = String::from("<h1>Errors</h1>\n");
    admin_nav(&mut main);
    if failing.is_empty() {
        main.push_str("<p>No feed's last read failed.</p>\n");
    } else {
        main.push_str(
            "<div class=\"table\"><table>\n<thead><tr><th>Feed</th><th>Last read</th>\
             <th>Error</th><th>Failures in a row</th><th>State</th><th>Next read</th></tr>\
             </thead>\n<tbody>\n",
        );
        for f in &failing {
            main.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                feed_cell(f),
                last_read(f),
                esc(f.last_error.as_deref().unwrap_or("")),
                f.consecutive_failures,
                esc(f.state.as_str()),
                next_read(f)
            ));
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(StatusCode::OK, render(&frame, "Errors", None, &main))
}

/// `GET /admin/hosts/{name}`: what tidings holds about one host.
pub async fn host(
    State(state): State<AppState>,
    Admin(caller): Admin,
    name: Result<Path<String>, PathRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Some(name) = name.ok().and_then(|Path(n)| host_name("name", &n).ok()) else {
        return bad_request(&frame, "Give a host name, like example.org.");
    };
    let feeds: Vec<FeedRecord> = match state.store.feeds().await {
        Ok(feeds) => feeds
            .into_iter()
            .filter(|f| {
                f.url
                    .as_url()
                    .host_str()
                    .is_some_and(|h| h.trim_end_matches('.').eq_ignore_ascii_case(&name))
            })
            .collect(),
        Err(e) => return page::failed(&frame, &e),
    };
    // The usual two origins, and those of the host's feeds (another port, a test web).
    let mut origins: BTreeSet<String> =
        [format!("https://{name}:443"), format!("http://{name}:80")]
            .into_iter()
            .collect();
    origins.extend(
        feeds
            .iter()
            .map(|f| HostKey::of(f.url.as_url()).as_str().to_owned()),
    );
    let mut main = format!("<h1>Host {}</h1>\n", esc(&name));
    admin_nav(&mut main);
    main.push_str(&format!(
        "<p><a href=\"/admin/log?host={}\">Requests to this host</a> · \
         <a href=\"/publishers?host={}\">what its publisher sees</a></p>\n",
        query_escape(&name),
        query_escape(&name)
    ));
    let mut known = 0;
    for origin in &origins {
        let robots = match state.store.robots(origin).await {
            Ok(r) => r,
            Err(e) => return page::failed(&frame, &e),
        };
        let floor = match state.store.host_floor(origin).await {
            Ok(f) => f,
            Err(e) => return page::failed(&frame, &e),
        };
        if robots.is_none() && floor.is_none() {
            continue;
        }
        known += 1;
        main.push_str(&format!(
            "<h2><code>{}</code></h2>\n<dl class=\"facts\">\n",
            esc(origin)
        ));
        match floor {
            Some(until) => main.push_str(&format!(
                "<dt>Retry-After floor</dt><dd>no request before {}</dd>\n",
                time(until)
            )),
            None => main.push_str("<dt>Retry-After floor</dt><dd>none</dd>\n"),
        }
        match &robots {
            None => main.push_str("<dt>robots.txt</dt><dd>never read</dd>\n"),
            Some(r) => {
                let status = r
                    .status
                    .map_or("no answer".to_owned(), |s| format!("status {s}"));
                main.push_str(&format!(
                    "<dt>robots.txt</dt><dd>read {}: {status}</dd>\n",
                    time(r.fetched_at)
                ));
            }
        }
        main.push_str("</dl>\n");
        if let Some(body) = robots.as_ref().and_then(|r| r.body.as_deref()) {
            let shown: String = body.chars().take(MAX_ROBOTS_CHARS).collect();
            let cut = if shown.len() < body.len() {
                "\n…"
            } else {
                ""
            };
            main.push_str(&format!(
                "<pre class=\"robots\">{}{cut}</pre>\n",
                esc(&shown)
            ));
        }
    }
    if known == 0 {
        main.push_str("<p>No robots.txt was read from this host and it set no Retry-After.</p>\n");
    }
    main.push_str(&format!("<h2>Feeds ({})</h2>\n", feeds.len()));
    if feeds.is_empty() {
        main.push_str("<p>No feed on this host.</p>\n");
    } else {
        let by_state: Vec<String> = STATES
            .iter()
            .map(|(s, label)| {
                format!(
                    "{label}: {}",
                    feeds.iter().filter(|f| f.state == *s).count()
                )
            })
            .collect();
        main.push_str(&format!("<p>{}</p>\n", by_state.join(" · ")));
        let mut sorted: Vec<&FeedRecord> = feeds.iter().collect();
        sorted.sort_by_key(|f| (STATES.iter().position(|(s, _)| *s == f.state), f.id));
        feed_table(&mut main, sorted.into_iter());
    }
    let title = format!("Host {name}");
    page::html(StatusCode::OK, render(&frame, &title, None, &main))
}

/// `/admin/log`'s query string, as text.
#[derive(Debug, Default, Deserialize)]
pub struct LogParams {
    host: Option<String>,
    feed: Option<String>,
}

/// `GET /admin/log?host=&feed=`: the newest requests, for a host and/or a feed.
pub async fn log(
    State(state): State<AppState>,
    Admin(caller): Admin,
    query: Result<Query<LogParams>, QueryRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Ok(Query(p)) = query else {
        return bad_request(&frame, "The address's query string could not be read.");
    };
    let host_text = p.host.as_deref().map(str::trim).unwrap_or_default();
    let feed_text = p.feed.as_deref().map(str::trim).unwrap_or_default();
    let host = match host_text {
        "" => None,
        text => match host_name("host", text) {
            Ok(h) => Some(h),
            Err(_) => {
                return bad_request(
                    &frame,
                    "A host is a name (example.org) or an origin (https://example.org:443).",
                );
            }
        },
    };
    let feed = match feed_text {
        "" => None,
        text => match params::feed_id("feed", text) {
            Ok(id) => Some(id),
            Err(_) => return bad_request(&frame, "A feed is a positive whole number."),
        },
    };
    let rows = match state
        .store
        .request_log(&LogQuery {
            host: host.clone(),
            feed,
            limit: LOG_ROWS,
        })
        .await
    {
        Ok(rows) => rows,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = String::from("<h1>Request log</h1>\n");
    admin_nav(&mut main);
    main.push_str(&format!(
        "<form class=\"inline\" method=\"get\" action=\"/admin/log\">\n\
         <label>Host<input name=\"host\" value=\"{}\" placeholder=\"example.org\"></label>\n\
         <label>Feed id<input name=\"feed\" value=\"{}\" inputmode=\"numeric\" size=\"8\"></label>\n\
         <button type=\"submit\">Filter</button>\n</form>\n",
        esc(host_text),
        esc(feed_text)
    ));
    log_table(&mut main, &rows);
    page::html(StatusCode::OK, render(&frame, "Request log", None, &main))
}

fn log_table(html: &mut String, rows: &[RequestLogRow]) {
    if rows.is_empty() {
        html.push_str("<p>No request matches.</p>\n");
        return;
    }
    html.push_str(&format!(
        "<p>The newest {} request(s) first (at most {LOG_ROWS}).</p>\n",
        rows.len()
    ));
    html.push_str(
        "<div class=\"table\"><table>\n<thead><tr><th>Time</th><th>Feed</th><th>URL</th>\
         <th>Status</th><th>Bytes</th><th>ms</th><th>Purpose</th><th>Why</th></tr></thead>\n\
         <tbody>\n",
    );
    for row in rows {
        let feed = row
            .feed_id
            .map(|id| format!("<a href=\"/feeds/{id}\">{id}</a>"))
            .unwrap_or_default();
        let status = match row.status {
            Some(code) => format!("{code} {}", esc(row.outcome.as_str())),
            None => esc(row.outcome.as_str()),
        };
        html.push_str(&format!(
            "<tr><td>{}</td><td>{feed}</td><td><code>{}</code></td><td>{status}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>\n",
            time(row.at),
            esc(&row.url),
            row.bytes,
            row.duration_ms,
            esc(&row.purpose),
            esc(&row.rule)
        ));
    }
    html.push_str("</tbody>\n</table></div>\n");
}

/// `GET /admin/queue`: what the profile reads besides feeds, and the image cache.
pub async fn queue(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let (rows, cache) = match tokio::try_join!(
        state.store.resources(None, QUEUE_ROWS),
        state.store.image_cache_stats()
    ) {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = String::from("<h1>Page queue</h1>\n");
    admin_nav(&mut main);
    let purposes: Vec<&str> = state
        .profile
        .requests
        .purposes
        .iter()
        .map(|p| p.as_str())
        .collect();
    main.push_str(&format!(
        "<p>This profile requests: {}.</p>\n",
        esc(&purposes.join(", "))
    ));
    let images = &state.profile.images;
    main.push_str(&format!(
        "<h2>Image cache (FF9)</h2>\n<p>{} cop{} · {} of at most {} · each at most {} · \
         unused copies removed after {} days · removed so far: {} unused, {} over the total</p>\n",
        cache.copies,
        if cache.copies == 1 { "y" } else { "ies" },
        page::size(cache.bytes),
        page::size(images.max_total_bytes),
        page::size(images.max_image_bytes),
        images.expire_unused / 86_400,
        cache.expired,
        cache.over_total
    ));
    main.push_str("<h2>Article pages, icons and images</h2>\n");
    if rows.is_empty() {
        main.push_str("<p>Nothing queued.</p>\n");
    } else {
        main.push_str(&format!(
            "<p>The most recently read or queued {} (at most {QUEUE_ROWS}).</p>\n\
             <div class=\"table\"><table>\n<thead><tr><th>For</th><th>URL</th><th>State</th>\
             <th>Next</th><th>Why</th><th>Last answer</th><th>Found</th></tr></thead>\n<tbody>\n",
            rows.len()
        ));
        for r in &rows {
            let last = match (r.last_status, r.last_outcome) {
                (Some(code), Some(o)) => format!("{code} {}", esc(o.as_str())),
                (None, Some(o)) => esc(o.as_str()),
                _ => "not asked yet".to_owned(),
            };
            let mut found: Vec<String> = r
                .preview
                .iter()
                .map(|p| format!("preview <code>{}</code>", esc(&p.url)))
                .collect();
            // FF6: what was recorded of the page.
            if let Some(page) = &r.page {
                found.extend(page.title.as_deref().map(|t| format!("“{}”", esc(t))));
                found.extend(
                    page.licences
                        .iter()
                        .map(|l| format!("licence <code>{}</code>", esc(l))),
                );
                found.extend(
                    page.terms
                        .iter()
                        .map(|t| format!("terms <code>{}</code>", esc(t))),
                );
                if !page.directives.is_empty() {
                    found.push(format!("directives: {}", esc(&page.directives.to_string())));
                }
                if page.truncated {
                    found.push("read to the byte cap".to_owned());
                }
            }
            let found = found.join("<br>");
            let next = r.due_at.map(time).unwrap_or_else(|| "never".to_owned());
            let retries = if r.retries > 0 {
                format!(
                    " ({} retr{})",
                    r.retries,
                    if r.retries == 1 { "y" } else { "ies" }
                )
            } else {
                String::new()
            };
            html_row(
                &mut main,
                &[
                    esc(r.purpose.as_str()),
                    format!("<code>{}</code>", esc(&r.url)),
                    format!("{}{retries}", esc(r.state.as_str())),
                    next,
                    esc(&r.reason),
                    last,
                    found,
                ],
            );
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(StatusCode::OK, render(&frame, "Page queue", None, &main))
}

/// `GET /admin/feeds/{id}/directives`: each change of a feed's directives (FF14), newest
/// first, with what the response said and whether it was full or a 304.
pub async fn directives(
    State(state): State<AppState>,
    Admin(caller): Admin,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Some(id) = id.ok().and_then(|Path(id)| params::feed_id("id", &id).ok()) else {
        return bad_request(
            &frame,
            "Give a feed's number, like /admin/feeds/3/directives.",
        );
    };
    let limit = crate::v1::feeds::DIRECTIVE_CHANGES;
    let (feed, changes) = match tokio::try_join!(
        state.store.feed(id),
        state.store.directive_history(id, limit)
    ) {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    let Some(feed) = feed else {
        return page::message(
            &frame,
            StatusCode::NOT_FOUND,
            "No such feed",
            &format!("There is no feed {id}."),
        );
    };
    let mut main = format!(
        "<h1>Directives of <a href=\"/feeds/{}\">{}</a></h1>\n",
        feed.id,
        esc(&feed_name(&feed))
    );
    admin_nav(&mut main);
    main.push_str(&format!(
        "<p>In force now: {}. A full response says what holds and replaces them; a 304 may add \
         restrictions and never clears one (FF14). <code>noindex</code> keeps the feed's entries \
         out of search, <code>nosnippet</code> keeps excerpts out, <code>noarchive</code> keeps \
         no retained text.</p>\n",
        esc(&feed.directives.to_string())
    ));
    if changes.is_empty() {
        main.push_str("<p>No response has changed them.</p>\n");
    } else {
        main.push_str(&format!(
            "<p>The newest {} change{} (at most {limit}).</p>\n<div class=\"table\"><table>\n\
             <thead><tr><th>When</th><th>Response</th><th>It said</th><th>In force after</th>\
             </tr></thead>\n<tbody>\n",
            changes.len(),
            if changes.len() == 1 { "" } else { "s" }
        ));
        for c in &changes {
            html_row(
                &mut main,
                &[
                    time(c.at),
                    if c.full { "full" } else { "304" }.to_owned(),
                    esc(&c.seen.to_string()),
                    esc(&c.current.to_string()),
                ],
            );
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(StatusCode::OK, render(&frame, "Directives", None, &main))
}

fn html_row(html: &mut String, cells: &[String]) {
    html.push_str("<tr>");
    for cell in cells {
        html.push_str(&format!("<td>{cell}</td>"));
    }
    html.push_str("</tr>\n");
}

fn bad_request(frame: &Frame<'_>, text: &str) -> Response {
    page::message(frame, StatusCode::BAD_REQUEST, "Bad request", text)
}
