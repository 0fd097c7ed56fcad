//! An account's reader (issue 15): what a viewer logged in as an account (its web session, or
//! a key of an account) sees at `/`, `/feeds/{id}` and `/entries/{id}` in place of the shared
//! list of every feed. Only the feeds it subscribes to, each with its unread count, filed in
//! its folders and sorted by title naturally; entries unread, all or starred, newest arrival
//! first; an entry is marked read when opened.
//!
//! Every action is a form (a POST checked by `access::SameOrigin`) that sends the browser back
//! where it was, so everything works without script; `/ui.js` only adds keyboard shortcuts
//! that press the same buttons. The forms: mark one entry read or unread, star or unstar it
//! (`/reading/mark`); mark everything in view read up to the moment the page was made
//! (`/reading/mark-all-read`: nothing that arrived since is marked); rename a subscription or
//! file it under a folder (`/feeds/{id}/subscription`); "read now" (`/feeds/{id}/read-now`,
//! within the schedule's floors, `tidings_policy::schedule::read_now`); unsubscribe; import
//! an OPML file (`/import`).

use super::PAGE_SIZE;
use super::access::{Member, SameOrigin, frame, query_escape, safe_next, see_other};
use super::media::Icons;
use super::page::{self, Frame, feed_name, icon, natural_key, render, time};
use crate::AppState;
use crate::escape::text as esc;
use axum::extract::rejection::{FormRejection, PathRejection};
use axum::extract::{Form, Multipart, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Deserialize;
use std::collections::HashMap;
use tidings_model::{FeedId, FeedUrl};
use tidings_store::{
    FeedRecord, Placement, ReadEntry, ReadScope, ReadStatus, ReadingOrder, ReadingQuery,
    StateChange, StoreError, Subscription, SubscriptionEdit, account_subscriber,
};

/// Characters of the excerpt line under an entry's title.
pub const EXCERPT_CHARS: usize = 180;
/// The largest OPML file `/import` takes.
pub const MAX_OPML_BYTES: usize = 2 * 1024 * 1024;
/// The most feeds one OPML import subscribes to.
pub const MAX_OPML_FEEDS: usize = 2_000;

/// Which of the account's entries a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Show {
    #[default]
    Unread,
    All,
    Starred,
}

impl Show {
    /// `unread` (also nothing), `all` or `starred`.
    pub fn parse(text: Option<&str>) -> Option<Show> {
        match text {
            None | Some("" | "unread") => Some(Show::Unread),
            Some("all") => Some(Show::All),
            Some("starred") => Some(Show::Starred),
            Some(_) => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Show::Unread => "unread",
            Show::All => "all",
            Show::Starred => "starred",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Show::Unread => "Unread",
            Show::All => "All",
            Show::Starred => "Starred",
        }
    }
}

/// One list of the account's: what it shows, narrowed to a folder or a feed, and where its
/// page starts (entries stored before entry `older`).
#[derive(Debug, Clone, Default)]
pub struct View {
    pub show: Show,
    pub folder: Option<String>,
    pub feed: Option<FeedId>,
    pub older: Option<i64>,
}

impl View {
    fn query(&self, account: i64, now: DateTime<Utc>) -> ReadingQuery {
        ReadingQuery {
            account,
            feed: self.feed,
            folder: self.folder.clone(),
            status: (self.show == Show::Unread).then_some(ReadStatus::Unread),
            starred: (self.show == Show::Starred).then_some(true),
            id_below: self.older,
            current_at: Some(now),
            order: ReadingOrder::IdDescending,
            limit: PAGE_SIZE + 1,
            ..ReadingQuery::default()
        }
    }

    /// This list's address showing `show`, from its first page.
    fn href(&self, show: Show) -> String {
        let mut params = Vec::new();
        if show != Show::Unread {
            params.push(format!("show={}", show.as_str()));
        }
        if let (Some(folder), None) = (&self.folder, self.feed) {
            params.push(format!("folder={}", query_escape(folder)));
        }
        let path = match self.feed {
            Some(feed) => format!("/feeds/{feed}"),
            None => "/".to_owned(),
        };
        if params.is_empty() {
            path
        } else {
            format!("{path}?{}", params.join("&"))
        }
    }

    /// This very page's address (a form's way back).
    fn here(&self) -> String {
        let base = self.href(self.show);
        match self.older {
            Some(older) => {
                let join = if base.contains('?') { '&' } else { '?' };
                format!("{base}{join}older={older}")
            }
            None => base,
        }
    }

    fn title(&self, feeds: &Feeds) -> String {
        let scope = match (self.feed, &self.folder) {
            (Some(feed), _) => feeds.name(feed),
            (None, Some(folder)) => folder.clone(),
            (None, None) => return format!("{} entries", self.show.label()),
        };
        format!("{scope}: {}", self.show.label().to_lowercase())
    }
}

/// The account's subscriptions with their feeds and icons.
struct Feeds {
    subscriptions: Vec<Subscription>,
    records: HashMap<FeedId, FeedRecord>,
    icons: Icons,
}

impl Feeds {
    async fn of(state: &AppState, account: i64) -> Result<Feeds, StoreError> {
        let subscriptions = state.store.subscriptions(account).await?;
        let records: HashMap<FeedId, FeedRecord> = state
            .store
            .feeds_of(&account_subscriber(account))
            .await?
            .into_iter()
            .map(|f| (f.id, f))
            .collect();
        let icons = Icons::of(state.store.as_ref(), records.values()).await?;
        Ok(Feeds {
            subscriptions,
            records,
            icons,
        })
    }

    fn subscription(&self, feed: FeedId) -> Option<&Subscription> {
        self.subscriptions.iter().find(|s| s.feed_id == feed)
    }

    /// The account's title for a feed, else the feed's own.
    fn name(&self, feed: FeedId) -> String {
        let own = self.subscription(feed).and_then(|s| s.title.clone());
        match (own, self.records.get(&feed)) {
            (Some(title), _) => title,
            (None, Some(record)) => feed_name(record),
            (None, None) => format!("Feed {feed}"),
        }
    }

    fn icon(&self, feed: FeedId) -> String {
        self.records
            .get(&feed)
            .map(|f| icon(f, false, &self.icons))
            .unwrap_or_default()
    }

    /// The folders, by name naturally, then the feeds filed under none (`None`), each with
    /// its subscriptions by name naturally.
    fn filed(&self) -> Vec<(Option<&str>, Vec<&Subscription>)> {
        let mut folders: Vec<(Option<&str>, Vec<&Subscription>)> = Vec::new();
        for s in &self.subscriptions {
            let folder = s.folder.as_deref();
            match folders.iter_mut().find(|(f, _)| *f == folder) {
                Some((_, list)) => list.push(s),
                None => folders.push((folder, vec![s])),
            }
        }
        for (_, list) in &mut folders {
            list.sort_by_cached_key(|s| (natural_key(&self.name(s.feed_id)), s.feed_id));
        }
        folders.sort_by_cached_key(|(f, _)| (f.is_none(), f.map(natural_key)));
        folders
    }

    fn folder_names(&self) -> Vec<&str> {
        self.filed().into_iter().filter_map(|(f, _)| f).collect()
    }
}

/// `GET /` or `GET /feeds/{id}` for an account: one list. `notice` is said above it.
pub async fn list(
    state: &AppState,
    frame: &Frame<'_>,
    account: i64,
    view: View,
    notice: Option<&str>,
) -> Response {
    let now = Utc::now();
    let feeds = match Feeds::of(state, account).await {
        Ok(feeds) => feeds,
        Err(e) => return page::failed(frame, &e),
    };
    if let Some(feed) = view.feed
        && feeds.subscription(feed).is_none()
    {
        return page::message(
            frame,
            StatusCode::NOT_FOUND,
            "Not subscribed",
            &format!("You do not subscribe to feed {feed}. Subscribe to it to read it here."),
        );
    }
    let mut entries = match state.store.reading(&view.query(account, now)).await {
        Ok(entries) => entries,
        Err(e) => return page::failed(frame, &e),
    };
    let more = entries.len() > PAGE_SIZE as usize;
    entries.truncate(PAGE_SIZE as usize);
    let title = view.title(&feeds);
    let mut main = String::new();
    if let Some(notice) = notice {
        main.push_str(&format!(
            "<p class=\"notice\" role=\"status\">{}</p>\n",
            esc(notice)
        ));
    }
    match view.feed {
        Some(feed) => feed_head(&mut main, &feeds, feed, &view, frame.is_admin()),
        None => main.push_str(&format!("<h1>{}</h1>\n", esc(&title))),
    }
    toolbar(&mut main, &view, now);
    if entries.is_empty() {
        main.push_str(match (view.show, view.older) {
            (_, Some(_)) => "<p>No older entries.</p>\n",
            (Show::Unread, None) => "<p>Nothing unread here.</p>\n",
            (Show::Starred, None) => "<p>No starred entries here.</p>\n",
            (Show::All, None) if feeds.subscriptions.is_empty() => {
                "<p>You subscribe to no feed yet: give a feed's address in the side column, or \
                 import an OPML file.</p>\n"
            }
            (Show::All, None) => "<p>No entries here yet.</p>\n",
        });
    }
    entry_list(&mut main, &entries, &feeds, &view);
    if let (true, Some(last)) = (more, entries.last()) {
        let older = View {
            older: Some(last.entry.id),
            ..view.clone()
        };
        main.push_str(&format!(
            "<nav class=\"pages\" aria-label=\"Pages\"><a href=\"{}\" rel=\"next\">Older \
             entries</a></nav>\n",
            esc(&older.here())
        ));
    }
    let side = side(&feeds, &view);
    page::html(StatusCode::OK, render(frame, &title, Some(&side), &main))
}

/// A feed's heading, what the reader may know of it, and its subscription's forms.
fn feed_head(main: &mut String, feeds: &Feeds, feed: FeedId, view: &View, admin: bool) {
    let name = feeds.name(feed);
    let Some(record) = feeds.records.get(&feed) else {
        main.push_str(&format!("<h1>{}</h1>\n", esc(&name)));
        return;
    };
    main.push_str(&format!(
        "<div class=\"feedhead\">{}<h1>{}</h1></div>\n",
        icon(record, true, &feeds.icons),
        esc(&name)
    ));
    super::reader::facts(main, record, admin);
    let subscription = feeds.subscription(feed);
    let title = subscription.and_then(|s| s.title.as_deref()).unwrap_or("");
    let folder = subscription.and_then(|s| s.folder.as_deref()).unwrap_or("");
    let back = esc(&view.here());
    main.push_str(&format!(
        "<details class=\"manage\">\n<summary>Manage this subscription</summary>\n\
         <form class=\"stack\" method=\"post\" action=\"/feeds/{feed}/subscription\">\n\
         <label for=\"sub-title\">Title (empty: the feed's own)</label>\n\
         <input id=\"sub-title\" name=\"title\" value=\"{}\" placeholder=\"{}\">\n\
         <label for=\"sub-folder\">Folder (empty: none)</label>\n\
         <input id=\"sub-folder\" name=\"folder\" value=\"{}\" list=\"folders\">\n\
         <input type=\"hidden\" name=\"back\" value=\"{back}\">\n\
         <button type=\"submit\">Save</button>\n</form>\n\
         <form class=\"read-now\" method=\"post\" action=\"/feeds/{feed}/read-now\">\
         <input type=\"hidden\" name=\"back\" value=\"{back}\">\
         <button type=\"submit\">Read now</button> <span class=\"meta\">(as soon as the \
         publisher's limits allow)</span></form>\n\
         <form method=\"post\" action=\"/feeds/{feed}/unsubscribe\"><button type=\"submit\">\
         Unsubscribe</button></form>\n</details>\n",
        esc(title),
        esc(&record.title.clone().unwrap_or_default()),
        esc(folder),
    ));
}

/// The views of this list and "mark all read" up to `now`.
fn toolbar(main: &mut String, view: &View, now: DateTime<Utc>) {
    main.push_str("<div class=\"toolbar\">\n<nav class=\"views\" aria-label=\"Show\">");
    for show in [Show::Unread, Show::All, Show::Starred] {
        let current = if show == view.show {
            " aria-current=\"page\""
        } else {
            ""
        };
        main.push_str(&format!(
            "<a href=\"{}\"{current}>{}</a> ",
            esc(&view.href(show)),
            show.label()
        ));
    }
    main.push_str("</nav>\n");
    let scope = match (view.feed, &view.folder) {
        (Some(feed), _) => format!("<input type=\"hidden\" name=\"feed\" value=\"{feed}\">"),
        (None, Some(folder)) => format!(
            "<input type=\"hidden\" name=\"folder\" value=\"{}\">",
            esc(folder)
        ),
        (None, None) => String::new(),
    };
    main.push_str(&format!(
        "<form class=\"mark-all\" method=\"post\" action=\"/reading/mark-all-read\">{scope}\
         <input type=\"hidden\" name=\"up_to\" value=\"{}\">\
         <input type=\"hidden\" name=\"back\" value=\"{}\">\
         <button type=\"submit\">Mark all read</button></form>\n</div>\n",
        now.to_rfc3339_opts(SecondsFormat::Micros, true),
        esc(&view.href(view.show)),
    ));
}

fn entry_list(main: &mut String, entries: &[ReadEntry], feeds: &Feeds, view: &View) {
    if entries.is_empty() {
        return;
    }
    let back = esc(&view.here());
    main.push_str("<ol class=\"entries mine\">\n");
    for read in entries {
        let stored = &read.entry;
        let class = if read.state.read { "read" } else { "unread" };
        let source = if view.feed.is_none() {
            format!(
                "<a href=\"/feeds/{}\">{}</a> · ",
                stored.feed_id,
                esc(&feeds.name(stored.feed_id))
            )
        } else {
            String::new()
        };
        let excerpt = stored
            .entry
            .summary
            .as_deref()
            .or(stored.entry.content.as_deref())
            .map(|html| tidings_page::text(html, EXCERPT_CHARS))
            .filter(|t| !t.is_empty())
            .map(|t| format!("<p class=\"excerpt\">{}</p>", esc(&t)))
            .unwrap_or_default();
        main.push_str(&format!(
            "<li class=\"{class}\" id=\"e{id}\">{icon}<div class=\"item\">\
             <a class=\"title\" href=\"/entries/{id}\">{title}</a>\
             <div class=\"meta\">{source}{time}</div>{excerpt}\
             <div class=\"actions\">{read}{star}</div></div></li>\n",
            id = stored.id,
            icon = feeds.icon(stored.feed_id),
            title = esc(&super::reader::entry_title(stored)),
            time = time(stored.sort_at),
            read = read_button(stored.id, read.state.read, &back),
            star = star_button(stored.id, read.state.starred, &back),
        ));
    }
    main.push_str("</ol>\n");
}

/// The form that marks entry `id` unread when it is read, and read when it is not.
fn read_button(id: i64, read: bool, back: &str) -> String {
    let (value, label) = if read {
        ("0", "Mark unread")
    } else {
        ("1", "Mark read")
    };
    format!(
        "<form class=\"read\" method=\"post\" action=\"/reading/mark\">\
         <input type=\"hidden\" name=\"entry\" value=\"{id}\">\
         <input type=\"hidden\" name=\"read\" value=\"{value}\">\
         <input type=\"hidden\" name=\"back\" value=\"{back}\">\
         <button class=\"quiet\" type=\"submit\">{label}</button></form>"
    )
}

/// The form that stars entry `id`, or unstars it.
fn star_button(id: i64, starred: bool, back: &str) -> String {
    let (value, label, pressed) = if starred {
        ("0", "★ Starred", "true")
    } else {
        ("1", "☆ Star", "false")
    };
    format!(
        "<form class=\"star\" method=\"post\" action=\"/reading/mark\">\
         <input type=\"hidden\" name=\"entry\" value=\"{id}\">\
         <input type=\"hidden\" name=\"star\" value=\"{value}\">\
         <input type=\"hidden\" name=\"back\" value=\"{back}\">\
         <button class=\"quiet\" type=\"submit\" aria-pressed=\"{pressed}\">{label}</button>\
         </form>"
    )
}

/// The side column: subscribe, the views, the folders and feeds with their unread counts,
/// and the OPML import.
fn side(feeds: &Feeds, view: &View) -> String {
    let mut html = String::from(
        "<h2>Subscribe</h2>\n<form class=\"stack\" method=\"post\" action=\"/subscribe\">\n\
         <label for=\"side-url\">Feed URL</label>\n\
         <input id=\"side-url\" name=\"url\" type=\"url\" required \
         placeholder=\"https://example.org/feed.xml\">\n\
         <label for=\"side-folder\">Folder (optional)</label>\n\
         <input id=\"side-folder\" name=\"folder\" list=\"folders\">\n\
         <button type=\"submit\">Subscribe</button>\n</form>\n",
    );
    html.push_str("<datalist id=\"folders\">");
    for folder in feeds.folder_names() {
        html.push_str(&format!("<option value=\"{}\">", esc(folder)));
    }
    html.push_str("</datalist>\n");
    let total: u64 = feeds.subscriptions.iter().map(|s| s.unread).sum();
    // The link to the list shown is marked as the current page.
    let here = |folder: Option<&str>, feed: Option<FeedId>| {
        let current = match feed {
            Some(feed) => view.feed == Some(feed),
            None => view.feed.is_none() && view.folder.as_deref() == folder,
        };
        if current {
            " aria-current=\"page\""
        } else {
            ""
        }
    };
    html.push_str(&format!(
        "<h2>Subscriptions</h2>\n<ul class=\"feeds\">\n<li><a href=\"/\"{}>All</a>{}</li>\n\
         <li><a href=\"/?show=starred\">Starred</a></li>\n</ul>\n",
        here(None, None),
        count(total)
    ));
    for (folder, list) in feeds.filed() {
        if let Some(name) = folder {
            let unread: u64 = list.iter().map(|s| s.unread).sum();
            html.push_str(&format!(
                "<h3 class=\"folder\"><a href=\"/?folder={}\"{}>{}</a>{}</h3>\n",
                esc(&query_escape(name)),
                here(Some(name), None),
                esc(name),
                count(unread)
            ));
        } else if feeds.subscriptions.iter().any(|s| s.folder.is_some()) {
            html.push_str("<h3 class=\"folder\">Not in a folder</h3>\n");
        }
        html.push_str("<ul class=\"feeds\">\n");
        for s in list {
            let state = match feeds.records.get(&s.feed_id).map(|f| f.state) {
                Some(tidings_store::FeedState::Active) | None => String::new(),
                Some(other) => format!(" <span class=\"meta\">({})</span>", other.as_str()),
            };
            html.push_str(&format!(
                "<li>{}<a href=\"/feeds/{}\"{}>{}</a>{state}{}</li>\n",
                feeds.icon(s.feed_id),
                s.feed_id,
                here(s.folder.as_deref(), Some(s.feed_id)),
                esc(&feeds.name(s.feed_id)),
                count(s.unread)
            ));
        }
        html.push_str("</ul>\n");
    }
    html.push_str(
        "<p class=\"meta\"><a href=\"/import\">Import an OPML file</a> · \
         <a href=\"/export.opml\" download>Export as OPML</a></p>\n",
    );
    html
}

/// An unread count after a name (nothing when zero).
fn count(unread: u64) -> String {
    if unread == 0 {
        String::new()
    } else {
        format!(" <span class=\"count\" title=\"unread\">{unread}</span>")
    }
}

/// What an account's entry page adds: it marks the entry read (it was opened), and gives the
/// forms to mark it unread and to star it, and the feed's next and previous entries. `None`
/// when the account does not subscribe to the entry's feed.
pub async fn entry_bar(
    state: &AppState,
    account: i64,
    id: i64,
    feed: FeedId,
) -> Result<Option<String>, StoreError> {
    let query = |q: ReadingQuery| ReadingQuery {
        account,
        current_at: Some(Utc::now()),
        ..q
    };
    let found = state
        .store
        .reading(&query(ReadingQuery {
            ids: Some(vec![id]),
            ..ReadingQuery::default()
        }))
        .await?;
    let Some(this) = found.first() else {
        return Ok(None);
    };
    let mut entry_state = this.state;
    if !entry_state.read {
        let read = StateChange {
            read: Some(true),
            starred: None,
        };
        state
            .store
            .set_entry_states(account, &[id], read, Utc::now())
            .await?;
        entry_state.read = true;
    }
    let neighbour = |order, above, below| {
        query(ReadingQuery {
            feed: Some(feed),
            id_above: above,
            id_below: below,
            order,
            limit: 1,
            ..ReadingQuery::default()
        })
    };
    let newer = state
        .store
        .reading(&neighbour(ReadingOrder::IdAscending, Some(id), None))
        .await?;
    let older = state
        .store
        .reading(&neighbour(ReadingOrder::IdDescending, None, Some(id)))
        .await?;
    let back = esc(&format!("/entries/{id}"));
    let link = |found: &[ReadEntry], rel: &str, label: &str| match found.first() {
        Some(e) => format!(
            "<a href=\"/entries/{}\" rel=\"{rel}\">{label}</a>",
            e.entry.id
        ),
        None => format!("<span class=\"meta\">{label}</span>"),
    };
    Ok(Some(format!(
        "<nav class=\"entrybar toolbar\" aria-label=\"This entry\">{}{}{} {}</nav>\n",
        read_button(id, entry_state.read, &back),
        star_button(id, entry_state.starred, &back),
        link(&newer, "prev", "← Newer"),
        link(&older, "next", "Older →"),
    )))
}

/// `/reading/mark`'s form: one entry, read and/or starred (`1` or `0`).
#[derive(Debug, Deserialize)]
pub struct MarkForm {
    entry: String,
    read: Option<String>,
    star: Option<String>,
    back: Option<String>,
}

/// `POST /reading/mark`.
pub async fn mark(
    State(state): State<AppState>,
    _: SameOrigin,
    member: Member,
    form: Result<Form<MarkForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(member.caller), "reader");
    let flag = |v: Option<&str>| match v {
        None => Ok(None),
        Some("1") => Ok(Some(true)),
        Some("0") => Ok(Some(false)),
        Some(_) => Err(()),
    };
    let parsed = form.ok().and_then(|Form(f)| {
        let id = f.entry.parse::<i64>().ok().filter(|id| *id > 0)?;
        let change = StateChange {
            read: flag(f.read.as_deref()).ok()?,
            starred: flag(f.star.as_deref()).ok()?,
        };
        Some((id, change, f.back))
    });
    let Some((id, change, back)) = parsed else {
        return bad_form(
            &frame,
            "This form names an entry and read or star, each 1 or 0.",
        );
    };
    match state
        .store
        .set_entry_states(member.account, &[id], change, Utc::now())
        .await
    {
        Ok(_) => see_other(safe_next(back.as_deref())),
        Err(e) => page::failed(&frame, &e),
    }
}

/// `/reading/mark-all-read`'s form: a feed or a folder (neither: everything), and the time
/// the page was made.
#[derive(Debug, Deserialize)]
pub struct MarkAllForm {
    feed: Option<String>,
    folder: Option<String>,
    up_to: String,
    back: Option<String>,
}

/// `POST /reading/mark-all-read`: nothing that arrived after `up_to` is marked.
pub async fn mark_all(
    State(state): State<AppState>,
    _: SameOrigin,
    member: Member,
    form: Result<Form<MarkAllForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(member.caller), "reader");
    let parsed = form.ok().and_then(|Form(f)| {
        let up_to = DateTime::parse_from_rfc3339(&f.up_to).ok()?.to_utc();
        let scope = match (f.feed.as_deref(), f.folder) {
            (Some(feed), _) => ReadScope::Feed(crate::v1::params::feed_id("feed", feed).ok()?),
            (None, Some(folder)) => ReadScope::Folder(folder),
            (None, None) => ReadScope::All,
        };
        Some((scope, up_to, f.back))
    });
    let Some((scope, up_to, back)) = parsed else {
        return bad_form(
            &frame,
            "This form names what to mark and the time it was shown.",
        );
    };
    let now = Utc::now();
    match state
        .store
        .mark_all_read(member.account, &scope, up_to.min(now), now)
        .await
    {
        Ok(marked) => {
            tracing::debug!(caller = %member.caller, marked, "marked all read in the web ui");
            see_other(safe_next(back.as_deref()))
        }
        Err(e) => page::failed(&frame, &e),
    }
}

/// `/feeds/{id}/subscription`'s form.
#[derive(Debug, Deserialize)]
pub struct EditForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    folder: String,
    back: Option<String>,
}

/// `POST /feeds/{id}/subscription`: the account's title for the feed and its folder (empty:
/// the feed's own title, no folder).
pub async fn edit(
    State(state): State<AppState>,
    _: SameOrigin,
    member: Member,
    id: Result<Path<String>, PathRejection>,
    form: Result<Form<EditForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(member.caller), "reader");
    let (Some(feed), Ok(Form(form))) = (path_feed(id), form) else {
        return bad_form(&frame, "This form names a feed, a title and a folder.");
    };
    let edit = SubscriptionEdit {
        title: Some(tidings_store::reading::clean_label(&form.title)),
        folder: Some(tidings_store::reading::clean_label(&form.folder)),
    };
    match state
        .store
        .edit_subscription(member.account, feed, &edit)
        .await
    {
        Ok(true) => see_other(safe_next(form.back.as_deref())),
        Ok(false) => not_subscribed(&frame, feed),
        Err(e) => page::failed(&frame, &e),
    }
}

/// A form that only goes back.
#[derive(Debug, Deserialize)]
pub struct BackForm {
    back: Option<String>,
}

/// `POST /feeds/{id}/read-now`: ask for the feed to be read sooner, as the schedule's floors
/// allow (the profile's minimum interval since the last read; a pending failure's backoff;
/// the host's Retry-After and crawl-delay, kept by the read itself).
pub async fn read_now(
    State(state): State<AppState>,
    _: SameOrigin,
    member: Member,
    id: Result<Path<String>, PathRejection>,
    form: Result<Form<BackForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(member.caller), "reader");
    let back = form.ok().and_then(|Form(f)| f.back);
    let Some(feed) = path_feed(id) else {
        return bad_form(&frame, "A feed is named by its number.");
    };
    let subscribed = match state.store.subscriptions(member.account).await {
        Ok(subs) => subs.iter().any(|s| s.feed_id == feed),
        Err(e) => return page::failed(&frame, &e),
    };
    let record = match state.store.feed(feed).await {
        Ok(Some(record)) if subscribed => record,
        Ok(_) => return not_subscribed(&frame, feed),
        Err(e) => return page::failed(&frame, &e),
    };
    let now = Utc::now();
    let at = tidings_policy::schedule::read_now(
        &state.profile,
        record.last_fetch_at,
        u32::try_from(record.consecutive_failures).unwrap_or(u32::MAX),
        record.next_fetch_at,
        now,
    );
    let said = match at {
        Some(at) => {
            let sooner = tidings_store::Sooner {
                at,
                reason: tidings_policy::schedule::READ_NOW_REASON.to_owned(),
                after_read: record.last_fetch_at,
            };
            match state.store.read_sooner(feed, &sooner).await {
                Ok(true) => {
                    state.wake_crawler();
                    tracing::info!(feed_id = %feed, caller = %member.caller, "read now asked in the web ui");
                    if at <= now { "now" } else { "soon" }
                }
                Ok(false) => "kept",
                Err(e) => return page::failed(&frame, &e),
            }
        }
        None => "kept",
    };
    let back = safe_next(back.as_deref());
    let join = if back.contains('?') { '&' } else { '?' };
    see_other(&format!("{back}{join}read={said}"))
}

/// `GET /import`: the OPML form.
pub async fn import_form(State(state): State<AppState>, member: Member) -> Response {
    let frame = frame(&state, Some(member.caller), "import");
    import_page(&frame, StatusCode::OK, None)
}

fn import_page(frame: &Frame<'_>, status: StatusCode, said: Option<&str>) -> Response {
    let said = said
        .map(|s| format!("<p class=\"notice\" role=\"status\">{}</p>\n", esc(s)))
        .unwrap_or_default();
    let main = format!(
        "<h1>Import subscriptions</h1>\n{said}<p>Choose an OPML file exported from another \
         reader. Its feeds are subscribed to in their folders; those you already have stay as \
         they are.</p>\n\
         <form class=\"stack\" method=\"post\" action=\"/import\" enctype=\"multipart/form-data\">\n\
         <label for=\"opml\">OPML file</label>\n\
         <input id=\"opml\" name=\"opml\" type=\"file\" required accept=\".opml,.xml,text/xml,\
         application/xml,text/x-opml\">\n\
         <button type=\"submit\">Import</button>\n</form>\n"
    );
    page::html(status, render(frame, "Import subscriptions", None, &main))
}

/// `POST /import`: subscribe the account to every feed of an OPML file, in its folders,
/// through the one subscribe path (do-not-crawl rules, removals, one feed per URL).
pub async fn import(
    State(state): State<AppState>,
    _: SameOrigin,
    member: Member,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let frame = frame(&state, Some(member.caller), "import");
    let text = match opml_text(multipart).await {
        Ok(text) => text,
        Err(why) => return import_page(&frame, StatusCode::BAD_REQUEST, Some(why)),
    };
    let outlines = match tidings_feed::opml::read(&text) {
        Ok(outlines) => outlines,
        Err(e) => {
            return import_page(
                &frame,
                StatusCode::BAD_REQUEST,
                Some(&format!("That file cannot be read: {e}.")),
            );
        }
    };
    if outlines.len() > MAX_OPML_FEEDS {
        return import_page(
            &frame,
            StatusCode::BAD_REQUEST,
            Some(&format!(
                "That file lists {} feeds; one import takes at most {MAX_OPML_FEEDS}.",
                outlines.len()
            )),
        );
    }
    let (mut added, mut refused) = (0u32, Vec::new());
    for outline in &outlines {
        let placement = Placement {
            title: None,
            folder: outline.folder.clone(),
        };
        let who = tidings_store::Subscriber::Account {
            id: member.account,
            placement: &placement,
        };
        let result = match FeedUrl::parse(outline.xml_url.trim()) {
            Ok(url) => crate::v1::feeds::subscribe(&state, who, &url)
                .await
                .map(|_| ())
                .map_err(|p| p.detail),
            Err(e) => Err(format!("not a feed URL: {e}")),
        };
        match result {
            Ok(()) => added += 1,
            Err(why) => refused.push(format!("{}: {why}", outline.xml_url)),
        }
    }
    tracing::info!(caller = %member.caller, added, refused = refused.len(), "opml imported in the web ui");
    let mut said = format!(
        "Imported {added} of {} feeds; their entries appear once the crawler has read them.",
        outlines.len()
    );
    for line in refused.iter().take(20) {
        said.push_str(&format!(" Not subscribed: {line}."));
    }
    if refused.len() > 20 {
        said.push_str(&format!(" And {} more not subscribed.", refused.len() - 20));
    }
    import_page(&frame, StatusCode::OK, Some(&said))
}

/// The text of the `opml` field of an upload, at most [`MAX_OPML_BYTES`].
async fn opml_text(
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<String, &'static str> {
    const NO_FILE: &str = "Choose an OPML file to import.";
    let mut multipart = multipart.map_err(|_| NO_FILE)?;
    while let Some(mut field) = multipart.next_field().await.map_err(|_| NO_FILE)? {
        if field.name() != Some("opml") {
            continue;
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(|_| NO_FILE)? {
            if bytes.len() + chunk.len() > MAX_OPML_BYTES {
                return Err("That file is too large: an OPML file of at most 2 MiB is taken.");
            }
            bytes.extend_from_slice(&chunk);
        }
        if bytes.is_empty() {
            return Err(NO_FILE);
        }
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    Err(NO_FILE)
}

/// `GET /export.opml`: the account's subscriptions as OPML 2.0, in their folders, with its
/// own titles.
pub async fn export(State(state): State<AppState>, member: Member) -> Response {
    let frame = frame(&state, Some(member.caller), "reader");
    let whose = tidings_crawler::operator::Listing::Account(member.account);
    let outlines = match tidings_crawler::operator::outlines(&*state.store, whose).await {
        Ok(outlines) => outlines,
        Err(e) => return page::failed(&frame, &e),
    };
    let doc = tidings_feed::opml::write("tidings subscriptions", &outlines);
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/x-opml; charset=utf-8",
            ),
            (
                axum::http::header::CONTENT_DISPOSITION,
                "attachment; filename=\"tidings.opml\"",
            ),
            (axum::http::header::CACHE_CONTROL, "no-store"),
        ],
        doc,
    )
        .into_response()
}

fn path_feed(id: Result<Path<String>, PathRejection>) -> Option<FeedId> {
    id.ok()
        .and_then(|Path(id)| crate::v1::params::feed_id("id", &id).ok())
}

fn not_subscribed(frame: &Frame<'_>, feed: FeedId) -> Response {
    page::message(
        frame,
        StatusCode::NOT_FOUND,
        "Not subscribed",
        &format!("You do not subscribe to feed {feed}."),
    )
}

fn bad_form(frame: &Frame<'_>, text: &str) -> Response {
    page::message(frame, StatusCode::BAD_REQUEST, "Bad request", text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_links_to_itself_and_its_siblings() {
        let view = View {
            show: Show::Starred,
            folder: Some("Tech & news".into()),
            feed: None,
            older: Some(42),
        };
        assert_eq!(view.href(Show::Unread), "/?folder=Tech%20%26%20news");
        assert_eq!(view.href(Show::All), "/?show=all&folder=Tech%20%26%20news");
        assert_eq!(
            view.here(),
            "/?show=starred&folder=Tech%20%26%20news&older=42"
        );
        let feed = View {
            feed: Some(FeedId(7)),
            ..View::default()
        };
        assert_eq!(feed.href(Show::Unread), "/feeds/7");
        assert_eq!(feed.here(), "/feeds/7");
        assert_eq!(
            View {
                older: Some(3),
                ..feed
            }
            .here(),
            "/feeds/7?older=3"
        );
        for (text, show) in [
            (None, Some(Show::Unread)),
            (Some(""), Some(Show::Unread)),
            (Some("all"), Some(Show::All)),
            (Some("starred"), Some(Show::Starred)),
            (Some("nope"), None),
        ] {
            assert_eq!(Show::parse(text), show, "{text:?}");
        }
    }
}
