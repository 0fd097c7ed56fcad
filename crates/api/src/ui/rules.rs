//! `/admin/rules`: the operator's do-not-crawl rules (FF13): the list, a form to add one and a
//! button to remove each. Input is read by `tidings_policy::parse_rule`, as `tidings block`
//! reads it. After a change, the feeds it concerns are paused or resumed at once: the action is
//! `tidings_crawler::operator`'s, as `POST /v1/rules` and `tidings block` take it.

use super::access::{Admin, SameOrigin, frame};
use super::page::{self, Frame, render, time};
use crate::AppState;
use crate::escape::text as esc;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use tidings_crawler::operator::{self, OperatorError};
use tidings_policy::BlockKind;
use tidings_store::FeedRecord;

/// The add form's fields.
#[derive(Debug, Default, Deserialize)]
pub struct AddForm {
    kind: String,
    value: String,
    reason: Option<String>,
}

/// The remove button's fields: the rule as stored.
#[derive(Debug, Default, Deserialize)]
pub struct RemoveForm {
    kind: String,
    value: String,
}

/// What happened, shown above the list.
enum Outcome {
    None,
    Done(String),
    Refused(String),
}

/// `GET /admin/rules`.
pub async fn list(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    rules_page(&state, &frame, StatusCode::OK, Outcome::None, None).await
}

/// `POST /admin/rules`: add a rule, then pause the feeds it covers.
pub async fn add(
    State(state): State<AppState>,
    _: SameOrigin,
    Admin(caller): Admin,
    form: Result<Form<AddForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Ok(Form(form)) = form else {
        let refused = Outcome::Refused("The form was incomplete: give a kind and a value.".into());
        return rules_page(&state, &frame, StatusCode::BAD_REQUEST, refused, None).await;
    };
    let added = BlockKind::parse(&form.kind).map(|kind| (kind, form.reason.clone()));
    let done = match added {
        Ok((kind, reason)) => {
            operator::add_rule(&*state.store, kind, &form.value, reason, chrono::Utc::now()).await
        }
        Err(e) => Err(OperatorError::Rule(e)),
    };
    let done = match done {
        Ok(done) => done,
        Err(OperatorError::Rule(e)) => {
            let refused = Outcome::Refused(format!("Not a rule: {e}."));
            return rules_page(
                &state,
                &frame,
                StatusCode::BAD_REQUEST,
                refused,
                Some(&form),
            )
            .await;
        }
        Err(OperatorError::Store(e)) => return page::failed(&frame, &e),
    };
    state.settle_requests().await;
    let rule = &done.added.block;
    tracing::info!(block_id = rule.id, kind = %rule.kind, value = %rule.value, caller = %caller, "do-not-crawl rule added in the web ui");
    let mut text = if done.added.new {
        format!("Added rule {}: {} {}.", rule.id, rule.kind, rule.value)
    } else {
        format!(
            "Already a rule ({}): {} {}.",
            rule.id, rule.kind, rule.value
        )
    };
    text.push(' ');
    text.push_str(&effects("Paused", &done.held));
    rules_page(&state, &frame, StatusCode::OK, Outcome::Done(text), None).await
}

/// `POST /admin/rules/remove`: remove a rule, then resume the feeds no rule covers any more.
pub async fn remove(
    State(state): State<AppState>,
    _: SameOrigin,
    Admin(caller): Admin,
    form: Result<Form<RemoveForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Ok(Form(form)) = form else {
        let refused = Outcome::Refused("The form was incomplete.".into());
        return rules_page(&state, &frame, StatusCode::BAD_REQUEST, refused, None).await;
    };
    let Ok(kind) = BlockKind::parse(&form.kind) else {
        let refused = Outcome::Refused(format!("There is no kind of rule {:?}.", form.kind));
        return rules_page(&state, &frame, StatusCode::BAD_REQUEST, refused, None).await;
    };
    match operator::remove_rule(&*state.store, kind, &form.value, chrono::Utc::now()).await {
        Ok(Some(removed)) => {
            let value = &removed.rule.value;
            tracing::info!(kind = %kind, value = %value, caller = %caller, "do-not-crawl rule removed in the web ui");
            if !removed.resumed.is_empty() {
                state.wake_crawler();
            }
            let text = format!(
                "Removed the rule {kind} {value}. {}",
                effects("Resumed", &removed.resumed)
            );
            rules_page(&state, &frame, StatusCode::OK, Outcome::Done(text), None).await
        }
        Ok(None) => {
            let value = form.value.trim();
            let refused = Outcome::Refused(format!("There is no rule {kind} {value}."));
            rules_page(&state, &frame, StatusCode::NOT_FOUND, refused, None).await
        }
        Err(OperatorError::Store(e)) => page::failed(&frame, &e),
        Err(OperatorError::Rule(e)) => page::failed(&frame, &e),
    }
}

/// Which feeds an addition paused or a removal resumed (`verb`), in words.
fn effects(verb: &str, feeds: &[FeedRecord]) -> String {
    if feeds.is_empty() {
        return format!("{verb} no feed.");
    }
    let list: Vec<String> = feeds.iter().map(|f| format!("feed {}", f.id)).collect();
    format!("{verb}: {}.", list.join(", "))
}

async fn rules_page(
    state: &AppState,
    frame: &Frame<'_>,
    status: StatusCode,
    outcome: Outcome,
    form: Option<&AddForm>,
) -> Response {
    let blocks = match state.store.blocks().await {
        Ok(blocks) => blocks,
        Err(e) => return page::failed(frame, &e),
    };
    let mut main = String::from("<h1>Do-not-crawl rules</h1>\n");
    super::admin::admin_nav(&mut main);
    match outcome {
        Outcome::None => {}
        Outcome::Done(text) => main.push_str(&format!(
            "<p class=\"notice\" role=\"status\">{}</p>\n",
            esc(&text)
        )),
        Outcome::Refused(text) => main.push_str(&format!(
            "<p class=\"error\" role=\"alert\">{}</p>\n",
            esc(&text)
        )),
    }
    main.push_str(
        "<p>No request goes to what a rule covers: not the feed, not its robots.txt, not a \
         redirect through it. A feed whose URL a rule covers is paused, and resumed when no \
         rule covers it any more.</p>\n",
    );
    add_form(&mut main, form);
    main.push_str(&format!("<h2>Rules ({})</h2>\n", blocks.len()));
    if blocks.is_empty() {
        main.push_str("<p>No rule.</p>\n");
    } else {
        main.push_str(
            "<div class=\"table\"><table>\n<thead><tr><th>Id</th><th>Kind</th><th>Value</th>\
             <th>Why</th><th>Added</th><th><span class=\"skip\">Remove</span></th></tr></thead>\n\
             <tbody>\n",
        );
        for b in &blocks {
            main.push_str(&format!(
                "<tr><td>{id}</td><td>{kind}</td><td><code>{value}</code></td><td>{why}</td>\
                 <td>{at}</td><td><form method=\"post\" action=\"/admin/rules/remove\">\
                 <input type=\"hidden\" name=\"kind\" value=\"{kind}\">\
                 <input type=\"hidden\" name=\"value\" value=\"{value}\">\
                 <button class=\"quiet\" type=\"submit\" aria-label=\"Remove rule {id}\">Remove\
                 </button></form></td></tr>\n",
                id = b.id,
                kind = esc(&b.kind),
                value = esc(&b.value),
                why = esc(b.reason.as_deref().unwrap_or("")),
                at = time(b.created_at),
            ));
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(status, render(frame, "Do-not-crawl rules", None, &main))
}

fn add_form(html: &mut String, form: Option<&AddForm>) {
    let chosen = form.map(|f| f.kind.trim().to_ascii_lowercase());
    let mut options = String::new();
    for (kind, label) in [
        ("url", "url: one URL"),
        ("feed", "feed: a feed id"),
        ("path", "path: an origin and path prefix"),
        ("origin", "origin: scheme://host[:port]"),
        ("host", "host: a host name"),
        ("domain", "domain: a registrable domain and its hosts"),
    ] {
        let selected = if chosen.as_deref() == Some(kind) {
            " selected"
        } else {
            ""
        };
        options.push_str(&format!(
            "<option value=\"{kind}\"{selected}>{label}</option>"
        ));
    }
    html.push_str(&format!(
        "<h2>Add a rule</h2>\n<form class=\"inline\" method=\"post\" action=\"/admin/rules\">\n\
         <label>Kind<select name=\"kind\">{options}</select></label>\n\
         <label>Value<input name=\"value\" required value=\"{}\" \
         placeholder=\"example.org\"></label>\n\
         <label>Why<input name=\"reason\" value=\"{}\" placeholder=\"publisher asked on …\">\
         </label>\n<button type=\"submit\">Add rule</button>\n</form>\n",
        esc(form.map_or("", |f| f.value.as_str())),
        esc(form.and_then(|f| f.reason.as_deref()).unwrap_or(""))
    ));
}
