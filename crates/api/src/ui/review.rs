//! `/admin/discovery`: the feeds discovery found that may be ones already stored (FF3), each
//! with the match's reason and three buttons: the same feed, a feed of its own, or rejected.
//! The decision is `tidings_crawler::operator::review`'s, as `POST /v1/discovery/held/{id}`
//! takes it.

use super::access::{Admin, SameOrigin, frame};
use super::page::{self, Frame, render, time};
use crate::AppState;
use crate::escape::text as esc;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use tidings_crawler::operator::{self, Review, ReviewError};

/// The most held matches the page lists.
const MOST_HELD: u32 = 200;

/// A decision button's fields.
#[derive(Debug, Default, Deserialize)]
pub struct DecideForm {
    id: i64,
    decision: String,
}

/// `GET /admin/discovery`.
pub async fn list(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    held_page(&state, &frame, StatusCode::OK, None).await
}

/// `POST /admin/discovery`: decide one held match.
pub async fn decide(
    State(state): State<AppState>,
    _: SameOrigin,
    Admin(caller): Admin,
    form: Result<Form<DecideForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Ok(Form(form)) = form else {
        let refused = Err("The form was incomplete.".to_owned());
        return held_page(&state, &frame, StatusCode::BAD_REQUEST, Some(refused)).await;
    };
    let Some(decision) = Review::from_name(&form.decision) else {
        let refused = Err(format!("There is no decision {:?}.", form.decision));
        return held_page(&state, &frame, StatusCode::BAD_REQUEST, Some(refused)).await;
    };
    let who = caller.to_string();
    match operator::review(&*state.store, form.id, decision, &who, chrono::Utc::now()).await {
        Ok(decided) => {
            tracing::info!(check = form.id, caller = %caller, decision = %form.decision, "held match decided in the web ui (FF3)");
            let done = Ok(format!("{}: {}", decided.check.url, decided.check.reason));
            held_page(&state, &frame, StatusCode::OK, Some(done)).await
        }
        Err(ReviewError::Store(e)) => page::failed(&frame, &e),
        Err(e @ ReviewError::NotFound(_)) => {
            held_page(
                &state,
                &frame,
                StatusCode::NOT_FOUND,
                Some(Err(e.to_string())),
            )
            .await
        }
        Err(e @ ReviewError::NotHeld { .. }) => {
            let status = StatusCode::UNPROCESSABLE_ENTITY;
            held_page(&state, &frame, status, Some(Err(e.to_string()))).await
        }
    }
}

async fn held_page(
    state: &AppState,
    frame: &Frame<'_>,
    status: StatusCode,
    outcome: Option<Result<String, String>>,
) -> Response {
    let held = match state.store.held_checks(MOST_HELD).await {
        Ok(held) => held,
        Err(e) => return page::failed(frame, &e),
    };
    let mut main = String::from("<h1>Held matches</h1>\n");
    super::admin::admin_nav(&mut main);
    page::outcome(&mut main, outcome);
    main.push_str(
        "<p>Feeds discovery found that may be feeds already stored: about half their entries \
         are a stored feed's. Decide each: the same feed (a duplicate of it), a feed of its \
         own, or rejected. The decision is kept beside the match.</p>\n",
    );
    main.push_str(&format!("<h2>Waiting ({})</h2>\n", held.len()));
    if held.is_empty() {
        main.push_str("<p>Nothing waits for review.</p>\n");
    } else {
        main.push_str(
            "<div class=\"table\"><table>\n<thead><tr><th>URL</th><th>May be</th><th>Why</th>\
             <th>Found</th><th>Decide</th></tr></thead>\n<tbody>\n",
        );
        for c in &held {
            let may_be = match c.check.feed_id {
                Some(id) => format!("<a href=\"/feeds/{id}\">feed {id}</a>"),
                None => "a stored feed".to_owned(),
            };
            let mut buttons = String::new();
            for (decision, label) in [
                ("duplicate", "Same feed"),
                ("new", "Own feed"),
                ("reject", "Reject"),
            ] {
                buttons.push_str(&format!(
                    "<form class=\"inline\" method=\"post\" action=\"/admin/discovery\">\
                     <input type=\"hidden\" name=\"id\" value=\"{id}\">\
                     <input type=\"hidden\" name=\"decision\" value=\"{decision}\">\
                     <button class=\"quiet\" type=\"submit\" \
                     aria-label=\"{label}: check {id}\">{label}</button></form>",
                    id = c.id,
                ));
            }
            main.push_str(&format!(
                "<tr><td><code>{url}</code></td><td>{may_be}</td><td>{why}</td>\
                 <td>{at}</td><td>{buttons}</td></tr>\n",
                url = esc(&c.check.url),
                why = esc(&c.check.reason),
                at = time(c.check.at),
            ));
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(status, render(frame, "Held matches", None, &main))
}
