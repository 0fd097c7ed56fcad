//! The reader's pages: `/` (newest entries and the subscriptions), `/feeds/{id}`,
//! `/entries/{id}`, `/search`, and the subscribe form.
//!
//! Lists are paged like `/v1/entries`: the "older" link carries the keyset cursor of the last
//! entry shown, so entries arriving meanwhile never shift a page.

use super::PAGE_SIZE;
use super::access::{Acting, SameOrigin, Viewer, frame, query_escape, see_other};
use super::content::{plain_text, sanitise};
use super::media;
use super::media::Icons;
use super::mine::{self, Show, View};
use super::page::{self, Frame, feed_name, icon, natural_key, render, time};
use crate::AppState;
use crate::escape::text as esc;
use crate::problem::Problem;
use crate::publishers::public_url;
use crate::v1::cursor::Cursor;
use crate::v1::feeds::subscribe as subscribe_feed;
use crate::v1::params;
use axum::extract::rejection::{FormRejection, PathRejection, QueryRejection};
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use std::collections::HashMap;
use tidings_model::{FeedId, FeedUrl, web_url};
use tidings_store::{EntryQuery, FeedRecord, FeedState, StoredEntry};

/// The most subscriptions listed beside the entries.
pub const MAX_SIDE_FEEDS: usize = 200;

/// A list's query string: the cursor of the page's start, and a search.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    before: Option<String>,
    q: Option<String>,
    added: Option<String>,
    unsubscribed: Option<String>,
    /// An account's lists: `unread` (the default), `all` or `starred`.
    show: Option<String>,
    /// An account's list of one folder.
    folder: Option<String>,
    /// An account's lists: the page of entries stored before this one.
    older: Option<String>,
    /// What became of a "read now": `now`, `soon` or `kept`.
    read: Option<String>,
}

impl ListQuery {
    /// The account's view this query names (`feed`: the feed page's), or what is wrong.
    fn view(&self, feed: Option<FeedId>) -> Result<View, &'static str> {
        let show = Show::parse(self.show.as_deref())
            .ok_or("A list shows unread, all or starred entries.")?;
        let older = match self.older.as_deref() {
            None | Some("") => None,
            Some(text) => Some(
                text.parse::<i64>()
                    .ok()
                    .filter(|id| *id > 0)
                    .ok_or("This page's position is not one tidings gave out.")?,
            ),
        };
        let folder = self
            .folder
            .as_deref()
            .filter(|_| feed.is_none())
            .and_then(tidings_store::reading::clean_label);
        Ok(View {
            show,
            folder,
            feed,
            older,
        })
    }

    /// What to say above a feed's page after a change made on it.
    fn notice(&self) -> Option<&'static str> {
        if self.added.is_some() {
            return Some(
                "Subscribed. The feed is due now: the crawler reads it shortly, and its entries \
                 appear here once it has (reload the page).",
            );
        }
        if self.unsubscribed.is_some() {
            return Some(
                "Unsubscribed. The feed is read on only for the subscribers it has left; its \
                 entries stay, and you can subscribe again.",
            );
        }
        match self.read.as_deref() {
            Some("now") => Some("The feed is read now; reload the page in a moment."),
            Some("soon") => Some(
                "The feed was read a short while ago: it is read again as soon as the \
                 profile's shortest interval has passed.",
            ),
            Some("kept") => Some(
                "The feed keeps its next read: it is due already, or a failure's backoff or \
                 the publisher's Retry-After is in force.",
            ),
            _ => None,
        }
    }
}

/// `GET /`.
pub async fn home(
    State(state): State<AppState>,
    Viewer(who): Viewer,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Response {
    let frame = frame(&state, who, "reader");
    let (query, after) = match position(query) {
        Ok(found) => found,
        Err(text) => return bad_request(&frame, text),
    };
    if let Some(account) = who.and_then(|c| c.account()) {
        return match query.view(None) {
            Ok(view) => mine::list(&state, &frame, account, view, query.notice()).await,
            Err(text) => bad_request(&frame, text),
        };
    }
    let listed = list(
        &state,
        EntryQuery {
            after,
            ..EntryQuery::default()
        },
    )
    .await;
    let (feeds, (entries, more)) = match listed {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = String::from("<h1>Newest entries</h1>\n");
    if entries.is_empty() && after.is_none() {
        main.push_str(
            "<p>No entries yet. Subscribe to a feed; its entries appear here once the crawler \
             has read it.</p>\n",
        );
    }
    entry_list(&mut main, &entries, &feeds, true);
    older_link(&mut main, &entries, more, "/?");
    let side = side(&frame, &feeds);
    page::html(
        StatusCode::OK,
        render(&frame, "Newest entries", Some(&side), &main),
    )
}

/// `GET /feeds/{id}`: the feed's state and its entries.
pub async fn feed(
    State(state): State<AppState>,
    Viewer(who): Viewer,
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Response {
    let frame = frame(&state, who, "reader");
    let id = match id
        .map_err(|_| ())
        .and_then(|Path(id)| params::feed_id("id", &id).map_err(|_| ()))
    {
        Ok(id) => id,
        Err(()) => return bad_request(&frame, "A feed is named by a positive whole number."),
    };
    let (query, after) = match position(query) {
        Ok(found) => found,
        Err(text) => return bad_request(&frame, text),
    };
    // An account's own feed, in its reader; an admin also opens the others (from the admin
    // pages) as the operator sees them.
    let own = match who.and_then(|c| c.account()) {
        Some(account) if frame.is_admin() => match state.store.subscriptions(account).await {
            Ok(subs) => subs.iter().any(|s| s.feed_id == id).then_some(account),
            Err(e) => return page::failed(&frame, &e),
        },
        other => other,
    };
    if let Some(account) = own {
        return match query.view(Some(id)) {
            Ok(view) => mine::list(&state, &frame, account, view, query.notice()).await,
            Err(text) => bad_request(&frame, text),
        };
    }
    let listed = list(
        &state,
        EntryQuery {
            feed: Some(id),
            after,
            ..EntryQuery::default()
        },
    )
    .await;
    let (feeds, (entries, more)) = match listed {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    let Some(feed) = feeds.by_id.get(&id) else {
        // A page subscribed to by its URL became the feed it offers (FF1): say so, and offer
        // the page's other feeds.
        return match resolved_page(&state, id).await {
            Ok(Some(main)) => page::html(
                StatusCode::OK,
                render(&frame, "Feeds of a page", None, &main),
            ),
            Ok(None) => page::message(
                &frame,
                StatusCode::NOT_FOUND,
                "No such feed",
                &format!("There is no feed {id}."),
            ),
            Err(e) => page::failed(&frame, &e),
        };
    };
    let name = feed_name(feed);
    let mut main = format!(
        "<div class=\"feedhead\">{}<h1>{}</h1></div>\n",
        icon(feed, true, &feeds.icons),
        esc(&name)
    );
    if let Some(notice) = query.notice() {
        main.push_str(&format!(
            "<p class=\"notice\" role=\"status\">{}</p>\n",
            esc(notice)
        ));
    }
    facts(&mut main, feed, frame.is_admin());
    if frame.is_admin() && feed.subscribers > 0 {
        // A form, so it works without script; the same-origin check guards it.
        main.push_str(&format!(
            "<form method=\"post\" action=\"/feeds/{}/unsubscribe\"><button type=\"submit\">\
             Unsubscribe</button> <span class=\"meta\">(this key's subscription; removal on \
             request is on the admin pages)</span></form>\n",
            feed.id
        ));
    }
    main.push_str("<h2>Entries</h2>\n");
    if entries.is_empty() && after.is_none() {
        main.push_str("<p>No entries from this feed yet.</p>\n");
    }
    entry_list(&mut main, &entries, &feeds, false);
    older_link(&mut main, &entries, more, &format!("/feeds/{id}?"));
    let side = side(&frame, &feeds);
    page::html(StatusCode::OK, render(&frame, &name, Some(&side), &main))
}

/// What became of feed `id` when it was a page subscribed to by its URL: the feed its
/// subscribers follow now and the page's other feeds, each with a subscribe button; `None`
/// when it was no such page.
async fn resolved_page(
    state: &AppState,
    id: tidings_model::FeedId,
) -> Result<Option<String>, tidings_store::StoreError> {
    let asked_by = tidings_crawler::discover::resolution_of(id);
    let Some(job) = state
        .store
        .page_jobs(500)
        .await?
        .into_iter()
        .find(|j| j.requested_by == asked_by)
    else {
        return Ok(None);
    };
    let offered = state.store.page_job_feeds(job.id).await?;
    let mut main = format!(
        "<h1>Feeds of a page</h1>\n<p><code>{}</code> is a web page, not a feed.</p>\n",
        esc(&job.url)
    );
    if offered.is_empty() {
        main.push_str("<p>It offers no feed.</p>\n");
        return Ok(Some(main));
    }
    main.push_str(&format!(
        "<p>It offers {} feed{}; its subscriptions now follow the first.</p>\n<ul>\n",
        offered.len(),
        if offered.len() == 1 { "" } else { "s" }
    ));
    for f in &offered {
        let name = esc(f.title.as_deref().unwrap_or("(no title)"));
        let line = match f.feed_id {
            Some(feed) => format!(
                "<a href=\"/feeds/{feed}\">{name}</a> <code>{}</code> (followed now)",
                esc(&f.url)
            ),
            None => format!(
                "{name} <code>{url}</code> <form class=\"inline\" method=\"post\" \
                 action=\"/subscribe\"><input type=\"hidden\" name=\"url\" value=\"{url}\">\
                 <button class=\"quiet\" type=\"submit\">Subscribe too</button></form>",
                url = esc(&f.url)
            ),
        };
        main.push_str(&format!("<li>{line}</li>\n"));
    }
    main.push_str("</ul>\n");
    Ok(Some(main))
}

/// What the reader may know about a feed; the operator sees its full URL and subscribers.
pub(super) fn facts(main: &mut String, feed: &FeedRecord, admin: bool) {
    let url = if admin {
        feed.url.to_string()
    } else {
        public_url(feed.url.as_str())
    };
    main.push_str("<dl class=\"facts\">\n");
    main.push_str(&format!(
        "<dt>Feed</dt><dd><code>{}</code></dd>\n",
        esc(&url)
    ));
    if let Some(site) = feed.site_link.as_deref().and_then(web_url) {
        main.push_str(&format!(
            "<dt>Site</dt><dd><a href=\"{href}\" rel=\"noopener noreferrer nofollow\">{href}</a>\
             </dd>\n",
            href = esc(&site)
        ));
    }
    let state = feed.state.as_str();
    let reason = feed
        .state_reason
        .as_deref()
        .map(|r| format!(": {}", esc(r)))
        .unwrap_or_default();
    main.push_str(&format!(
        "<dt>State</dt><dd><span class=\"state-{state}\">{state}</span>{reason}</dd>\n"
    ));
    match (feed.last_fetch_at, feed.last_outcome.map(|l| l.as_str())) {
        (Some(at), outcome) => {
            let status = feed
                .last_status
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            main.push_str(&format!(
                "<dt>Last read</dt><dd>{}: {}{status}</dd>\n",
                time(at),
                esc(outcome.unwrap_or("?"))
            ));
        }
        (None, _) => main.push_str("<dt>Last read</dt><dd>not read yet</dd>\n"),
    }
    if let Some(error) = &feed.last_error {
        main.push_str(&format!("<dt>Last error</dt><dd>{}</dd>\n", esc(error)));
    }
    if matches!(feed.state, FeedState::Active | FeedState::Paused) {
        main.push_str(&format!(
            "<dt>Next read</dt><dd>{} ({})</dd>\n",
            time(feed.next_fetch_at),
            esc(&feed.next_fetch_reason)
        ));
    }
    if !feed.directives.is_empty() {
        // FF14: what the publisher's X-Robots-Tag asks of this feed.
        let history = if admin {
            format!("/admin/feeds/{}/directives", feed.id)
        } else {
            format!("/v1/feeds/{}/directives", feed.id)
        };
        main.push_str(&format!(
            "<dt>Directives</dt><dd>{} (the feed's <code>X-Robots-Tag</code>; \
             <a href=\"{history}\">history</a>)</dd>\n",
            esc(&feed.directives.to_words()),
        ));
    }
    if admin {
        main.push_str(&format!(
            "<dt>Subscribers</dt><dd>{}</dd>\n<dt>Operator</dt><dd><a href=\"/admin/log?feed={}\">\
             requests</a> · <a href=\"/admin/hosts/{}\">host</a></dd>\n",
            feed.subscribers,
            feed.id,
            esc(feed.url.as_url().host_str().unwrap_or_default())
        ));
    }
    main.push_str("</dl>\n");
}

/// `GET /entries/{id}`: one entry, its content sanitised (or as plain text, PF12).
pub async fn entry(
    State(state): State<AppState>,
    Viewer(who): Viewer,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let frame = frame(&state, who, "reader");
    let id = match id.ok().and_then(|Path(id)| id.parse::<i64>().ok()) {
        Some(id) if id > 0 => id,
        _ => return bad_request(&frame, "An entry is named by a positive whole number."),
    };
    let stored = match state.store.entry(id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => {
            return page::message(
                &frame,
                StatusCode::NOT_FOUND,
                "No such entry",
                &format!("There is no entry {id}."),
            );
        }
        Err(e) => return page::failed(&frame, &e),
    };
    let feed = match state.store.feed(stored.feed_id).await {
        Ok(feed) => feed,
        Err(e) => return page::failed(&frame, &e),
    };
    let e = &stored.entry;
    // FF16: past its end of validity (or its feed's), an entry is kept for administration only.
    let now = chrono::Utc::now();
    let expired = e.expires.is_some_and(|at| at <= now)
        || feed
            .as_ref()
            .and_then(|f| f.expires)
            .is_some_and(|at| at <= now);
    if expired && !frame.is_admin() {
        return page::message(
            &frame,
            StatusCode::NOT_FOUND,
            "Entry expired",
            "Its publisher set an end to this entry's validity, so it is no longer shown.",
        );
    }
    // An account sees only the entries of the feeds it subscribes to; opening one marks it
    // read. An admin may open any.
    let bar = match who.and_then(|c| c.account()) {
        Some(account) => match mine::entry_bar(&state, account, id, stored.feed_id).await {
            Ok(Some(bar)) => bar,
            Ok(None) if frame.is_admin() => String::new(),
            Ok(None) => {
                return page::message(
                    &frame,
                    StatusCode::NOT_FOUND,
                    "No such entry",
                    &format!("There is no entry {id} in the feeds you subscribe to."),
                );
            }
            Err(e) => return page::failed(&frame, &e),
        },
        None => String::new(),
    };
    let title = entry_title(&stored);
    let mut main = format!("<article class=\"entry\">\n{bar}<h1>{}</h1>\n", esc(&title));
    let mut meta = Vec::new();
    if let Some(feed) = &feed {
        meta.push(format!(
            "<a href=\"/feeds/{}\">{}</a>",
            feed.id,
            esc(&feed_name(feed))
        ));
    }
    meta.push(time(stored.sort_at));
    let authors: Vec<String> = e
        .authors
        .iter()
        .filter_map(|a| a.name.as_deref())
        .map(esc)
        .collect();
    if !authors.is_empty() {
        meta.push(format!("by {}", authors.join(", ")));
    }
    main.push_str(&format!("<p class=\"meta\">{}</p>\n", meta.join(" · ")));
    if expired {
        main.push_str(
            "<p class=\"notice\">Expired (FF16): readers no longer see this entry; it is shown \
             to an admin key only.</p>\n",
        );
    }
    let original = e.link.as_deref().and_then(web_url);
    if let Some(link) = &original {
        main.push_str(&format!(
            "<p><a href=\"{}\" rel=\"noopener noreferrer nofollow\">Read the original</a></p>\n",
            esc(link)
        ));
    }
    match thumbnail(&state, &stored).await {
        Some(figure) => main.push_str(&figure),
        None => article_preview(&mut main, &stored),
    }
    let body = e.content.as_deref().or(e.summary.as_deref()).unwrap_or("");
    if state.profile.display.plain_text {
        main.push_str(&format!(
            "<div class=\"content plain\">{}</div>\n",
            plain_text(body)
        ));
    } else {
        let shown = sanitise(body, e.html_base());
        main.push_str(&format!(
            "<div class=\"content\">\n{}\n</div>\n",
            shown.html
        ));
        if shown.had_images {
            main.push_str(
                "<p class=\"meta\">This entry has images or media, which are not shown here so \
                 that reading it does not contact the publisher's server; see the original.</p>\n",
            );
        }
    }
    media(&mut main, e);
    publisher_metadata(&mut main, e);
    main.push_str("</article>\n");
    page::html(StatusCode::OK, render(&frame, &title, None, &main))
}

/// The entry's thumbnail from the image cache, with its credit and licence, when the profile
/// caches images, the licence decision shows it (FF8) and a copy is cached (FF9).
async fn thumbnail(state: &AppState, stored: &StoredEntry) -> Option<String> {
    let image = stored.entry.selected_image.as_ref()?;
    if !media::may_show(state, Some(image)) {
        return None;
    }
    let cached = match state
        .store
        .cached_images(std::slice::from_ref(&image.url))
        .await
    {
        Ok(cached) => !cached.is_empty(),
        Err(e) => {
            tracing::warn!(error = %e, "the image cache could not be read");
            false
        }
    };
    if !cached {
        return None;
    }
    let size = match (image.width, image.height) {
        (Some(w), Some(h)) => format!(" width=\"{w}\" height=\"{h}\""),
        _ => String::new(),
    };
    let caption: Vec<String> = [&image.credit, &image.copyright, &image.licence]
        .into_iter()
        .flatten()
        .map(|t| esc(t))
        .collect();
    let caption = if caption.is_empty() {
        String::new()
    } else {
        format!(
            "<figcaption class=\"meta\">{}</figcaption>",
            caption.join(" · ")
        )
    };
    Some(format!(
        "<figure class=\"thumb\"><img src=\"/images/entries/{}\" alt=\"\"{size}>{caption}</figure>\n",
        stored.id
    ))
}

/// SR1, FF6: the preview of the entry's article page, as read once: the page's title and
/// description and a link to its `og:image`, which is not loaded (SereneReader's page lists
/// no image requests, and reading here never contacts a publisher); the licence and terms the
/// page declares. A page that asks for no snippet shows no description.
fn article_preview(main: &mut String, stored: &StoredEntry) {
    let page = stored.page.as_ref();
    let image = stored
        .preview
        .as_ref()
        .and_then(|p| web_url(&p.url).map(|href| (href, p)));
    if page.is_none() && image.is_none() {
        return;
    }
    let mut rows = Vec::new();
    if let Some(title) = page.and_then(|p| p.title.as_deref()) {
        rows.push(format!("<p class=\"preview-title\">{}</p>", esc(title)));
    }
    // FF14: `nosnippet` shows none of it, `max-snippet` at most that many characters.
    let description = page.and_then(|p| {
        let text = p.description.as_deref()?;
        let most = p.directives.excerpt_chars(text.chars().count())?;
        Some(text.chars().take(most).collect::<String>())
    });
    if let Some(description) = description {
        rows.push(format!("<p>{}</p>", esc(&description)));
    }
    if let Some((href, image)) = &image {
        let size = match (image.width, image.height) {
            (Some(w), Some(h)) => format!(" ({w}×{h})"),
            _ => String::new(),
        };
        rows.push(format!(
            "<p class=\"meta\">Preview image{size}: <a href=\"{}\" rel=\"noopener noreferrer \
             nofollow\">{}</a>, not loaded here so that reading does not contact the \
             publisher.</p>",
            esc(href),
            esc(&ammonia::Url::parse(href)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| href.clone()))
        ));
    }
    let links = |label: &str, rel: &str, urls: &[String]| -> Option<String> {
        let items: Vec<String> = urls
            .iter()
            .filter_map(|u| web_url(u))
            .map(|u| {
                format!(
                    "<a href=\"{l}\" rel=\"{rel}noopener noreferrer nofollow\">{l}</a>",
                    l = esc(&u)
                )
            })
            .collect();
        (!items.is_empty()).then(|| format!("<p class=\"meta\">{label}: {}</p>", items.join(", ")))
    };
    if let Some(page) = page {
        rows.extend(links("Page licence", "license ", &page.licences));
        rows.extend(links("Terms", "", &page.terms));
    }
    main.push_str(&format!(
        "<aside class=\"preview\">\n<p class=\"meta\">From the article page</p>\n{}\n</aside>\n",
        rows.join("\n")
    ));
}

/// Podcast and other enclosures, as links with their type and size: the reader's browser
/// asks the publisher only when the reader follows one.
fn media(main: &mut String, e: &tidings_model::Entry) {
    let items: Vec<String> = e
        .enclosures
        .iter()
        .filter_map(|x| {
            let href = web_url(&x.url)?;
            let name = ammonia::Url::parse(&href)
                .ok()
                .and_then(|u| {
                    u.path_segments()
                        .and_then(|mut s| s.next_back().map(str::to_owned))
                })
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| href.clone());
            let mut facts = Vec::new();
            if let Some(t) = &x.media_type {
                facts.push(esc(t));
            }
            if let Some(n) = x.length.filter(|n| *n > 0) {
                facts.push(page::size(n));
            }
            let facts = if facts.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"meta\">({})</span>", facts.join(", "))
            };
            Some(format!(
                "<li><a href=\"{}\" rel=\"noopener noreferrer nofollow\">{}</a>{facts}</li>",
                esc(&href),
                esc(&name)
            ))
        })
        .collect();
    if items.is_empty() {
        return;
    }
    main.push_str(&format!(
        "<h2>Media</h2>\n<ul class=\"media\">\n{}\n</ul>\n",
        items.join("\n")
    ));
}

/// FF10: what the publisher says of an entry besides its text: categories, keywords,
/// contributors, where it came from, its rights and licence.
fn publisher_metadata(main: &mut String, e: &tidings_model::Entry) {
    let joined = |items: &[String]| items.iter().map(|c| esc(c)).collect::<Vec<_>>().join(", ");
    let mut rows = Vec::new();
    if !e.categories.is_empty() {
        rows.push(format!("Filed under: {}", joined(&e.categories)));
    }
    if !e.keywords.is_empty() {
        rows.push(format!("Keywords: {}", joined(&e.keywords)));
    }
    let contributors: Vec<String> = e
        .contributors
        .iter()
        .filter_map(|a| a.name.clone().or_else(|| a.email.clone()))
        .collect();
    if !contributors.is_empty() {
        rows.push(format!("With: {}", joined(&contributors)));
    }
    if let Some(source) = &e.source {
        let name = source
            .title
            .as_deref()
            .or(source.link.as_deref())
            .or(source.url.as_deref());
        if let Some(name) = name {
            let name = esc(name);
            rows.push(match source.link.as_deref().and_then(web_url) {
                Some(link) => format!(
                    "From: <a href=\"{}\" rel=\"noopener noreferrer nofollow\">{name}</a>",
                    esc(&link)
                ),
                None => format!("From: {name}"),
            });
        }
    }
    if let Some(rights) = &e.rights {
        rows.push(format!("Rights: {}", esc(rights)));
    }
    if let Some(licence) = &e.license {
        rows.push(match web_url(licence) {
            Some(link) => format!(
                "Licence: <a href=\"{l}\" rel=\"license noopener noreferrer nofollow\">{l}</a>",
                l = esc(&link)
            ),
            None => format!("Licence: {}", esc(licence)),
        });
    }
    for row in rows {
        main.push_str(&format!("<p class=\"meta\">{row}</p>\n"));
    }
}

/// `GET /search?q=`: entries whose title, summary or content text holds every word.
pub async fn search(
    State(state): State<AppState>,
    Viewer(who): Viewer,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Response {
    let frame = frame(&state, who, "search");
    let (query, after) = match position(query) {
        Ok(found) => found,
        Err(text) => return bad_request(&frame, text),
    };
    let q = query.q.as_deref().map(str::trim).unwrap_or_default();
    let mut main = format!(
        "<h1>Search</h1>\n<form class=\"inline\" method=\"get\" action=\"/search\" \
         role=\"search\">\n<label>Words in the title, summary or text\
         <input name=\"q\" type=\"search\" value=\"{}\"></label>\n\
         <button type=\"submit\">Search</button>\n</form>\n",
        esc(q)
    );
    if q.is_empty() {
        return page::html(StatusCode::OK, render(&frame, "Search", None, &main));
    }
    let listed = list(
        &state,
        EntryQuery {
            search: Some(q.to_owned()),
            // An account searches the feeds it subscribes to.
            subscriber: who
                .filter(|c| c.account().is_some())
                .map(|c| c.subscriber()),
            after,
            ..EntryQuery::default()
        },
    )
    .await;
    let (feeds, (entries, more)) = match listed {
        Ok(found) => found,
        Err(e) => return page::failed(&frame, &e),
    };
    if entries.is_empty() {
        main.push_str(&format!(
            "<p role=\"status\">No entry matches {}.</p>\n",
            esc(&format!("“{q}”"))
        ));
    } else {
        main.push_str(&format!(
            "<h2>Entries matching {}</h2>\n",
            esc(&format!("“{q}”"))
        ));
    }
    entry_list(&mut main, &entries, &feeds, true);
    older_link(
        &mut main,
        &entries,
        more,
        &format!("/search?q={}&", query_escape(q)),
    );
    let title = format!("Search: {q}");
    page::html(StatusCode::OK, render(&frame, &title, None, &main))
}

/// The subscribe form's fields; `folder` files an account's subscription.
#[derive(Debug, Default, Deserialize)]
pub struct SubscribeForm {
    url: String,
    #[serde(default)]
    folder: String,
}

/// `GET /subscribe`: the form.
pub async fn subscribe_form(State(state): State<AppState>, Acting(caller): Acting) -> Response {
    let frame = frame(&state, Some(caller), "subscribe");
    subscribe_page(&frame, StatusCode::OK, "", None)
}

/// `POST /subscribe`: subscribe this account (or admin key) to a URL, as `POST /v1/feeds`
/// does; an account's subscription is filed under `folder`. Nothing is fetched here: the feed
/// is due at once and the running crawler reads it.
pub async fn subscribe(
    State(state): State<AppState>,
    _: SameOrigin,
    Acting(caller): Acting,
    form: Result<Form<SubscribeForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "subscribe");
    let Ok(Form(form)) = form else {
        return subscribe_page(
            &frame,
            StatusCode::BAD_REQUEST,
            "",
            Some("The form was incomplete: give the feed's URL."),
        );
    };
    let subscribed = match FeedUrl::parse(form.url.trim()) {
        Ok(url) => {
            let placement = tidings_store::Placement {
                title: None,
                folder: tidings_store::reading::clean_label(&form.folder),
            };
            let key = caller.subscriber();
            subscribe_feed(&state, caller.subscribing(&key, &placement), &url).await
        }
        Err(e) => Err(Problem::invalid("url", format!("not a feed URL: {e}"))),
    };
    match subscribed {
        Ok((_, feed)) => {
            tracing::info!(feed_id = %feed.id, feed_url = %feed.url, caller = %caller, "subscribed in the web ui");
            see_other(&format!("/feeds/{}?added=1", feed.id))
        }
        // The problem's detail is written for the client (a failure's says only that).
        Err(problem) => subscribe_page(
            &frame,
            problem.kind.status(),
            &form.url,
            Some(&problem.detail),
        ),
    }
}

/// `POST /feeds/{id}/unsubscribe`: end this key's subscription, as `DELETE /v1/feeds/{id}`
/// does. The feed and its entries stay; with no subscriber left it is no longer read.
pub async fn unsubscribe(
    State(state): State<AppState>,
    _: SameOrigin,
    Acting(caller): Acting,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "reader");
    let Some(id) = id.ok().and_then(|Path(id)| params::feed_id("id", &id).ok()) else {
        return page::message(
            &frame,
            StatusCode::BAD_REQUEST,
            "No such feed",
            "A feed is named by its number.",
        );
    };
    match caller.unsubscribe(&*state.store, id).await {
        Ok(true) => {
            tracing::info!(feed_id = %id, caller = %caller, "unsubscribed in the web ui");
            // An account's list no longer holds the feed; an operator's still shows it.
            if caller.account().is_some() {
                see_other("/?unsubscribed=1")
            } else {
                see_other(&format!("/feeds/{id}?unsubscribed=1"))
            }
        }
        Ok(false) => page::message(
            &frame,
            StatusCode::NOT_FOUND,
            "Not subscribed",
            &format!("You have no subscription to feed {id}."),
        ),
        Err(e) => page::failed(&frame, &e),
    }
}

fn subscribe_page(
    frame: &Frame<'_>,
    status: StatusCode,
    url: &str,
    error: Option<&str>,
) -> Response {
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>\n", esc(e)))
        .unwrap_or_default();
    // An account files its subscription; an operator's key has no folders.
    let folder = if frame.who.is_some_and(|c| c.account().is_some()) {
        "<label for=\"folder\">Folder (optional)</label>\n\
         <input id=\"folder\" name=\"folder\">\n"
    } else {
        ""
    };
    let main = format!(
        "<h1>Subscribe</h1>\n{error}<form class=\"stack\" method=\"post\" action=\"/subscribe\">\n\
         <label for=\"url\">Feed URL</label>\n\
         <input id=\"url\" name=\"url\" type=\"url\" required value=\"{}\" \
         placeholder=\"https://example.org/feed.xml\">\n{folder}\
         <button type=\"submit\">Subscribe</button>\n</form>\n\
         <p>The feed is read shortly by the running crawler, as its robots.txt and the \
         do-not-crawl rules allow; nothing is fetched while you wait.</p>\n",
        esc(url)
    );
    page::html(status, render(frame, "Subscribe", None, &main))
}

/// Every feed by id with the icons kept for them, and one page of entries (one more is read
/// to know whether there are older ones).
async fn list(
    state: &AppState,
    query: EntryQuery,
) -> Result<(Feeds, (Vec<StoredEntry>, bool)), tidings_store::StoreError> {
    let mut entries = state
        .store
        .entries(&EntryQuery {
            // FF16: an expired entry (or one of an expired feed) is not shown to readers.
            current_at: Some(chrono::Utc::now()),
            limit: PAGE_SIZE + 1,
            ..query
        })
        .await?;
    let more = entries.len() > PAGE_SIZE as usize;
    entries.truncate(PAGE_SIZE as usize);
    let feeds: HashMap<FeedId, FeedRecord> = state
        .store
        .feeds()
        .await?
        .into_iter()
        .map(|f| (f.id, f))
        .collect();
    let icons = Icons::of(state.store.as_ref(), feeds.values()).await?;
    Ok((
        Feeds {
            by_id: feeds,
            icons,
        },
        (entries, more),
    ))
}

/// The feeds a page lists, by id, and which have their site's icon kept.
struct Feeds {
    by_id: HashMap<FeedId, FeedRecord>,
    icons: Icons,
}

/// The query string and the cursor it names, or what is wrong with them (for a 400 page).
fn position(
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<(ListQuery, Option<tidings_store::EntryCursor>), &'static str> {
    let Ok(Query(query)) = query else {
        return Err("The address's query string could not be read.");
    };
    let after = match query.before.as_deref() {
        None | Some("") => None,
        Some(text) => match Cursor::decode(text) {
            Ok(cursor) => Some(cursor.0),
            Err(_) => {
                return Err(
                    "This page's position is not one tidings gave out; start again \
                            from the first page.",
                );
            }
        },
    };
    Ok((query, after))
}

fn bad_request(frame: &Frame<'_>, text: &str) -> Response {
    page::message(frame, StatusCode::BAD_REQUEST, "Bad request", text)
}

/// The side column: the subscribe form for an admin, then the subscribed feeds.
fn side(frame: &Frame<'_>, feeds: &Feeds) -> String {
    let mut html = String::new();
    if frame.is_admin() {
        html.push_str(
            "<h2>Subscribe</h2>\n<form class=\"stack\" method=\"post\" action=\"/subscribe\">\n\
             <label for=\"side-url\">Feed URL</label>\n\
             <input id=\"side-url\" name=\"url\" type=\"url\" required \
             placeholder=\"https://example.org/feed.xml\">\n\
             <button type=\"submit\">Subscribe</button>\n</form>\n",
        );
    }
    let mut shown: Vec<&FeedRecord> = feeds
        .by_id
        .values()
        .filter(|f| f.subscribers > 0 && f.state != FeedState::Removed)
        .collect();
    shown.sort_by_cached_key(|f| (natural_key(&feed_name(f)), f.id));
    html.push_str("<h2>Subscriptions</h2>\n");
    if shown.is_empty() {
        html.push_str("<p>None yet.</p>\n");
        return html;
    }
    html.push_str("<ul class=\"feeds\">\n");
    for feed in shown.iter().take(MAX_SIDE_FEEDS) {
        let state = match feed.state {
            FeedState::Active => String::new(),
            other => format!(" <span class=\"meta\">({})</span>", other.as_str()),
        };
        html.push_str(&format!(
            "<li>{}<a href=\"/feeds/{}\">{}</a>{state}</li>\n",
            icon(feed, false, &feeds.icons),
            feed.id,
            esc(&feed_name(feed))
        ));
    }
    html.push_str("</ul>\n");
    if shown.len() > MAX_SIDE_FEEDS {
        html.push_str(&format!(
            "<p class=\"meta\">and {} more</p>\n",
            shown.len() - MAX_SIDE_FEEDS
        ));
    }
    html
}

fn entry_list(html: &mut String, entries: &[StoredEntry], feeds: &Feeds, with_feed: bool) {
    if entries.is_empty() {
        return;
    }
    html.push_str("<ol class=\"entries\">\n");
    for stored in entries {
        let feed = feeds.by_id.get(&stored.feed_id);
        let icon = feed
            .map(|f| icon(f, false, &feeds.icons))
            .unwrap_or_default();
        let source = match feed.filter(|_| with_feed) {
            Some(f) => format!("<a href=\"/feeds/{}\">{}</a> · ", f.id, esc(&feed_name(f))),
            None => String::new(),
        };
        html.push_str(&format!(
            "<li>{icon}<div><a class=\"title\" href=\"/entries/{}\">{}</a>\
             <div class=\"meta\">{source}{}</div></div></li>\n",
            stored.id,
            esc(&entry_title(stored)),
            time(stored.sort_at)
        ));
    }
    html.push_str("</ol>\n");
}

/// The "older entries" link after a page, when there are more.
fn older_link(html: &mut String, entries: &[StoredEntry], more: bool, base: &str) {
    if let (true, Some(last)) = (more, entries.last()) {
        html.push_str(&format!(
            "<nav class=\"pages\" aria-label=\"Pages\"><a href=\"{}before={}\" rel=\"next\">\
             Older entries</a></nav>\n",
            esc(base),
            Cursor(last.cursor()).encode()
        ));
    }
}

pub(super) fn entry_title(stored: &StoredEntry) -> String {
    match stored.entry.title.as_deref().map(str::trim) {
        Some(title) if !title.is_empty() => title.to_owned(),
        _ => "Untitled entry".to_owned(),
    }
}
