//! `/catalogue`: the catalogue's feeds (SR2) for a reader to browse and subscribe to; an
//! admin also adds one by its URL (queued for its verification read, as `POST /v1/catalogue`).
//! `/catalogue/{id}` shows a feed's newest entries; with nothing stored it queues one read
//! (the same rule as `GET /v1/catalogue/{id}`) and says so.

use super::access::{Acting, Admin, SameOrigin, frame};
use super::page::{self, Frame, render, time};
use crate::AppState;
use crate::escape::text as esc;
use crate::v1::catalogue::{ENTRIES_SHOWN, catalogue_feed, queue_read};
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use tidings_crawler::operator::{JobAsk, SubmitError};
use tidings_model::FeedUrl;
use tidings_store::EntryQuery;

/// The add form's field.
#[derive(Debug, Default, Deserialize)]
pub struct AddForm {
    url: String,
}

/// `GET /catalogue`.
pub async fn list(State(state): State<AppState>, Acting(caller): Acting) -> Response {
    let frame = frame(&state, Some(caller), "catalogue");
    catalogue_page(&state, &frame, StatusCode::OK, None).await
}

/// `POST /catalogue`: an admin adds a feed (its verification read is queued).
pub async fn add(
    State(state): State<AppState>,
    _: SameOrigin,
    Admin(caller): Admin,
    form: Result<Form<AddForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "catalogue");
    let url = match form.map(|Form(f)| f.url) {
        Ok(url) => url,
        Err(_) => {
            let why = Err("The form was incomplete: give the feed's URL.".to_owned());
            return catalogue_page(&state, &frame, StatusCode::BAD_REQUEST, Some(why)).await;
        }
    };
    let url = match FeedUrl::parse(url.trim()) {
        Ok(url) => url,
        Err(e) => {
            let why = Err(format!("{:?} is not an http(s) URL: {e}", url.trim()));
            return catalogue_page(&state, &frame, StatusCode::BAD_REQUEST, Some(why)).await;
        }
    };
    let (status, outcome) =
        match crate::v1::discovery::queue(&state, &url, JobAsk::Catalogue, &caller.subscriber())
            .await
        {
            Ok(job) => (
                StatusCode::OK,
                Ok(format!(
                    "{url} is read once to check it (job {}); it is listed when it reads as a \
                     feed.",
                    job.id
                )),
            ),
            Err(SubmitError::Store(e)) => return page::failed(&frame, &e),
            Err(e) => {
                let problem = crate::v1::discovery::refused(e);
                (problem.kind.status(), Err(problem.detail))
            }
        };
    catalogue_page(&state, &frame, status, Some(outcome)).await
}

async fn catalogue_page(
    state: &AppState,
    frame: &Frame<'_>,
    status: StatusCode,
    outcome: Option<Result<String, String>>,
) -> Response {
    let listed = match state.store.catalogue().await {
        Ok(listed) => listed,
        Err(e) => return page::failed(frame, &e),
    };
    let mut main = String::from("<h1>Catalogue</h1>\n");
    page::outcome(&mut main, outcome);
    main.push_str("<p>Feeds our operators list for you to browse before subscribing.</p>\n");
    if listed.is_empty() {
        main.push_str("<p>The catalogue is empty.</p>\n");
    } else {
        main.push_str("<ul>\n");
        for entry in &listed {
            let feed = match state.store.feed(entry.feed_id).await {
                Ok(Some(feed)) => feed,
                Ok(None) => continue,
                Err(e) => return page::failed(frame, &e),
            };
            main.push_str(&format!(
                "<li><a href=\"/catalogue/{id}\">{name}</a> <code>{url}</code></li>\n",
                id = feed.id,
                name = esc(&page::feed_name(&feed)),
                url = esc(feed.url.as_str()),
            ));
        }
        main.push_str("</ul>\n");
    }
    if frame.is_admin() {
        main.push_str(
            "<h2>Add a feed</h2>\n<form method=\"post\" action=\"/catalogue\">\
             <p><label>Feed URL <input name=\"url\" type=\"url\" required size=\"48\"></label> \
             <button type=\"submit\">Check and add</button></p></form>\n\
             <p>The feed is read once to check it (no wait for a crawl-delay) and listed when \
             it reads as a feed. Listed feeds are not read on a schedule: only when someone \
             subscribes, or views one with nothing stored.</p>\n",
        );
    }
    page::html(status, render(frame, "Catalogue", None, &main))
}

/// `GET /catalogue/{id}`: a catalogue feed's newest entries, or one read queued.
pub async fn one(
    State(state): State<AppState>,
    Acting(caller): Acting,
    Path(id): Path<String>,
) -> Response {
    let frame = frame(&state, Some(caller), "catalogue");
    let Some(id) = crate::v1::params::feed_id("id", &id).ok() else {
        return page::message(
            &frame,
            StatusCode::NOT_FOUND,
            "No such feed",
            "A feed is named by its number.",
        );
    };
    let (_, feed) = match catalogue_feed(&state, id).await {
        Ok(found) => found,
        Err(problem) => {
            return page::message(
                &frame,
                problem.kind.status(),
                "Not in the catalogue",
                &problem.detail,
            );
        }
    };
    let query = EntryQuery {
        feed: Some(id),
        limit: ENTRIES_SHOWN,
        current_at: Some(chrono::Utc::now()),
        ..EntryQuery::default()
    };
    let entries = match state.store.entries(&query).await {
        Ok(entries) => entries,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = format!("<h1>{}</h1>\n", esc(&page::feed_name(&feed)));
    main.push_str(&format!(
        "<form method=\"post\" action=\"/subscribe\"><input type=\"hidden\" name=\"url\" \
         value=\"{}\"><button type=\"submit\">Subscribe</button></form>\n",
        esc(feed.url.as_str())
    ));
    if entries.is_empty() {
        let reading = match queue_read(&state, &feed, &caller.subscriber()).await {
            Ok(reading) => reading,
            Err(problem) => {
                tracing::warn!(detail = %problem.detail, "a catalogue read could not be queued");
                false
            }
        };
        main.push_str(if reading {
            "<p class=\"notice\" role=\"status\">Nothing is stored for this feed yet: it is \
             being read now. Come back in a moment.</p>\n"
        } else {
            "<p>Nothing is stored for this feed yet.</p>\n"
        });
    } else {
        main.push_str("<ul>\n");
        for e in &entries {
            let title = e.entry.title.as_deref().unwrap_or("(no title)");
            let line = match &e.entry.link {
                Some(link) if link.starts_with("http://") || link.starts_with("https://") => {
                    format!(
                        "<a href=\"{}\" rel=\"noopener noreferrer\">{}</a>",
                        esc(link),
                        esc(title)
                    )
                }
                _ => esc(title),
            };
            main.push_str(&format!(
                "<li>{line} <small>{}</small></li>\n",
                time(e.first_seen_at)
            ));
        }
        main.push_str("</ul>\n");
    }
    page::html(StatusCode::OK, render(&frame, "Catalogue", None, &main))
}
