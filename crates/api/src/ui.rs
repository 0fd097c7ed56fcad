//! The web UI: server-rendered HTML pages for readers and the operator. Every page works
//! without script; `/ui.js` (our only script, allowed by the CSP from this origin only) adds
//! keyboard shortcuts and local times.
//!
//! Reader: `/` (the newest entries across feeds, and the subscriptions), `/feeds/{id}`,
//! `/entries/{id}` (the content sanitised by ammonia, or as plain text when the profile says
//! so, PF12), `/search?q=`, `/subscribe`. Logged in as an account, `/` and `/feeds/{id}` are
//! its own reading (`mine`: unread counts, folders, marks, stars, mark all read, read now,
//! OPML import at `/import` and export at `/export.opml`). Admin (an admin login or key):
//! `/admin` (feeds by state, with reasons), `/admin/hosts/{name}`, `/admin/log`,
//! `/admin/rules` (do-not-crawl rules), `/admin/discovery` (matches held for review, FF3),
//! `/admin/jobs` (the page queue: spider runs and discoveries started and followed, FF4),
//! `/admin/errors`, `/admin/queue` (the page queue and
//! the image cache). `/login` opens a web session with an
//! account's password (or keeps an API token in a cookie, since a browser cannot send a Bearer
//! header); `/logout` ends it (`crate::auth`).
//!
//! Every page carries a strict Content-Security-Policy ([`CSP`]): a page loads only the
//! stylesheet at `/ui.css`, the script at `/ui.js` and images from tidings itself. Nothing on a page contacts a
//! publisher: a feed's icon is its site's icon from the store (else a monogram), an entry's
//! thumbnail comes from the image cache where the profile and its licence allow (`media`), and
//! images inside entry HTML are not shown (`content`). Every value from the store or
//! the request goes through `crate::escape::text`, or through ammonia for entry HTML. Every
//! state-changing form is a POST checked against cross-site requests (`access::SameOrigin`).
//!
//! Modules: `page` (the layout, the headers, error pages), `access` (who is asking: login,
//! cookie, CSRF), `content` (entry HTML as shown), `media` (icons and cached images),
//! `reader` (the shared list, entry pages, search, subscribe), `mine` (an account's reading),
//! `admin`, `rules`.

mod access;
mod admin;
mod catalogue;
pub(crate) mod content;
mod jobs;
pub(crate) mod media;
mod mine;
mod page;
mod reader;
mod review;
mod rules;

use crate::AppState;
use axum::Router;
use axum::routing::{get, post};

pub use page::CSP;

/// Entries on one page of the reader.
pub const PAGE_SIZE: u32 = 30;

/// The UI's routes, with the strict headers on every answer.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(reader::home))
        .route("/feeds/{id}", get(reader::feed))
        .route("/feeds/{id}/unsubscribe", post(reader::unsubscribe))
        .route("/entries/{id}", get(reader::entry))
        .route("/search", get(reader::search))
        .route("/reading/mark", post(mine::mark))
        .route("/reading/mark-all-read", post(mine::mark_all))
        .route("/feeds/{id}/subscription", post(mine::edit))
        .route("/feeds/{id}/read-now", post(mine::read_now))
        .route("/import", get(mine::import_form).post(mine::import))
        .route("/export.opml", get(mine::export))
        .route(
            "/subscribe",
            get(reader::subscribe_form).post(reader::subscribe),
        )
        .route("/login", get(access::login_form).post(access::login))
        .route("/logout", get(access::logout_form).post(access::logout))
        .route("/admin", get(admin::feeds))
        .route("/admin/hosts/{name}", get(admin::host))
        .route("/admin/log", get(admin::log))
        .route("/admin/errors", get(admin::errors))
        .route("/admin/queue", get(admin::queue))
        .route("/admin/feeds/{id}/directives", get(admin::directives))
        .route("/admin/rules", get(rules::list).post(rules::add))
        .route("/admin/rules/remove", post(rules::remove))
        .route("/admin/discovery", get(review::list).post(review::decide))
        .route("/admin/jobs", get(jobs::list).post(jobs::start))
        .route("/catalogue", get(catalogue::list).post(catalogue::add))
        .route("/catalogue/{id}", get(catalogue::one))
        .route("/admin/jobs/{id}", get(jobs::one))
        .route("/icons/{feed}", get(media::icon))
        .route("/images/entries/{id}", get(media::entry_image))
        .route("/images/feeds/{id}", get(media::feed_image))
        .route("/ui.css", get(page::stylesheet))
        .route("/ui.js", get(page::script))
        .fallback(page::not_found)
        .layer(axum::middleware::map_response(page::strict_headers))
}
