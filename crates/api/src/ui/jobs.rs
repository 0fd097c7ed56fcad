//! `/admin/jobs`: the page queue (FF1, FF4). A form starts a spider run (or a discovery of
//! one URL) within the profile's ceilings, and the jobs are listed newest first with what
//! each spent and found; `/admin/jobs/{id}` shows one job's feeds. The form submits through
//! `tidings_crawler::operator::submit_page_job`, as `POST /v1/discovery/jobs` and the CLI do;
//! the crawl works the queue, the web UI sends nothing.

use super::access::{Admin, SameOrigin, frame};
use super::page::{self, Frame, render, time};
use crate::AppState;
use crate::escape::text as esc;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use tidings_crawler::operator::{JobAsk, SubmitError};
use tidings_model::{FeedUrl, LimitsAsked};
use tidings_store::PageJob;

/// The most jobs the page lists.
const MOST_JOBS: u32 = 100;

/// The start form's fields; an empty limit is the profile's.
#[derive(Debug, Default, Deserialize)]
pub struct StartForm {
    url: String,
    kind: String,
    #[serde(default)]
    depth: String,
    #[serde(default)]
    max_requests: String,
    #[serde(default)]
    max_urls: String,
    #[serde(default)]
    max_minutes: String,
    #[serde(default)]
    linked_sites: Option<String>,
}

/// `GET /admin/jobs`.
pub async fn list(State(state): State<AppState>, Admin(caller): Admin) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    jobs_page(&state, &frame, StatusCode::OK, None).await
}

/// `POST /admin/jobs`: start a spider run or a discovery.
pub async fn start(
    State(state): State<AppState>,
    _: SameOrigin,
    Admin(caller): Admin,
    form: Result<Form<StartForm>, FormRejection>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let Ok(Form(form)) = form else {
        let refused = Err("The form was incomplete.".to_owned());
        return jobs_page(&state, &frame, StatusCode::BAD_REQUEST, Some(refused)).await;
    };
    let ask = match ask_of(&form, &state) {
        Ok(ask) => ask,
        Err(why) => {
            return jobs_page(&state, &frame, StatusCode::BAD_REQUEST, Some(Err(why))).await;
        }
    };
    let url = match FeedUrl::parse(form.url.trim()) {
        Ok(url) => url,
        Err(e) => {
            let why = Err(format!("{:?} is not an http(s) URL: {e}", form.url.trim()));
            return jobs_page(&state, &frame, StatusCode::BAD_REQUEST, Some(why)).await;
        }
    };
    match crate::v1::discovery::queue(&state, &url, ask, &caller.subscriber()).await {
        Ok(job) => {
            let done = Ok(format!(
                "Job {} queued: the crawl works it and this page shows its progress.",
                job.id
            ));
            jobs_page(&state, &frame, StatusCode::OK, Some(done)).await
        }
        Err(SubmitError::Store(e)) => page::failed(&frame, &e),
        Err(e) => {
            let problem = crate::v1::discovery::refused(e);
            let status = problem.kind.status();
            jobs_page(&state, &frame, status, Some(Err(problem.detail))).await
        }
    }
}

/// What the form asks for: an empty limit is the profile's default.
fn ask_of(form: &StartForm, state: &AppState) -> Result<JobAsk, String> {
    match form.kind.as_str() {
        "discover" => Ok(JobAsk::Discover),
        "spider" => {
            fn number<T: std::str::FromStr>(field: &str, value: &str) -> Result<Option<T>, String> {
                let value = value.trim();
                if value.is_empty() {
                    return Ok(None);
                }
                value
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{field} is a whole number, not {value:?}"))
            }
            let minutes: Option<u64> = number("Time", &form.max_minutes)?;
            Ok(JobAsk::Spider(state.profile.spider.limits(&LimitsAsked {
                depth: number("Depth", &form.depth)?,
                max_urls: number("URLs", &form.max_urls)?,
                max_requests: number("Requests", &form.max_requests)?,
                max_bytes: None,
                max_time: minutes.map(|m| std::time::Duration::from_secs(m.saturating_mul(60))),
                linked_sites: form.linked_sites.is_some(),
            })))
        }
        other => Err(format!("There is no job kind {other:?}.")),
    }
}

/// `GET /admin/jobs/{id}`: one job, with the feeds it found.
pub async fn one(
    State(state): State<AppState>,
    Admin(caller): Admin,
    Path(id): Path<String>,
) -> Response {
    let frame = frame(&state, Some(caller), "admin");
    let job = match id.parse::<i64>() {
        Ok(id) if id > 0 => state.store.page_job(id).await,
        _ => Ok(None),
    };
    let job = match job {
        Ok(Some(job)) => job,
        Ok(None) => {
            let why = format!(
                "There is no job {id} (a finished job is dropped after its retention period)."
            );
            return page::message(&frame, StatusCode::NOT_FOUND, "No such job", &why);
        }
        Err(e) => return page::failed(&frame, &e),
    };
    let feeds = match state.store.page_job_feeds(job.id).await {
        Ok(feeds) => feeds,
        Err(e) => return page::failed(&frame, &e),
    };
    let mut main = format!("<h1>Job {}</h1>\n", job.id);
    super::admin::admin_nav(&mut main);
    main.push_str(&format!(
        "<p>{} of <code>{}</code>: {}.</p>\n",
        kind_label(&job),
        esc(&job.url),
        esc(&state_words(&job))
    ));
    main.push_str(&format!("<p>{}</p>\n", esc(&spent_words(&job))));
    main.push_str(&format!("<h2>Feeds found ({})</h2>\n", feeds.len()));
    if feeds.is_empty() {
        main.push_str("<p>None yet.</p>\n");
    } else {
        main.push_str("<ul>\n");
        for f in &feeds {
            let note = match (&f.note, f.held) {
                (Some(n), true) => format!(" — held for review: {}", esc(n)),
                (Some(n), false) => format!(" — {}", esc(n)),
                (None, true) => " — held for review".to_owned(),
                (None, false) => String::new(),
            };
            main.push_str(&format!(
                "<li>{} <code>{}</code>{note}</li>\n",
                esc(f.title.as_deref().unwrap_or("(no title)")),
                esc(&f.url)
            ));
        }
        main.push_str("</ul>\n");
    }
    page::html(StatusCode::OK, render(&frame, "Job", None, &main))
}

fn kind_label(job: &PageJob) -> &'static str {
    match job.kind {
        tidings_model::PageJobKind::Discover => "Discovery",
        tidings_model::PageJobKind::Spider => "Spider run",
        tidings_model::PageJobKind::Catalogue => "Catalogue read",
    }
}

/// Where a job stands, in words.
fn state_words(job: &PageJob) -> String {
    match (&job.stopped_by, &job.error) {
        (_, Some(e)) => format!("{}: {e}", job.state.as_str()),
        (Some(b), None) => format!("{}, the {b} budget spent", job.state.as_str()),
        (None, None) => job.state.as_str().to_owned(),
    }
}

/// What a job spent and found, in words.
fn spent_words(job: &PageJob) -> String {
    let s = &job.spent;
    let of = |n: u64, limit: Option<u64>| match limit {
        Some(l) => format!("{n} of {l}"),
        None => n.to_string(),
    };
    let l = job.limits.as_ref();
    format!(
        "{} pages, {} feeds, {} duplicates, {} refused; {} requests, {} URLs, {} bytes, {} s",
        s.pages,
        s.feeds,
        s.duplicates,
        s.refused,
        of(u64::from(s.requests), l.map(|l| u64::from(l.max_requests))),
        of(u64::from(s.urls), l.map(|l| u64::from(l.max_urls))),
        of(s.bytes, l.map(|l| l.max_bytes)),
        of(s.elapsed.as_secs(), l.map(|l| l.max_time.as_secs())),
    )
}

async fn jobs_page(
    state: &AppState,
    frame: &Frame<'_>,
    status: StatusCode,
    outcome: Option<Result<String, String>>,
) -> Response {
    let jobs = match state.store.page_jobs(MOST_JOBS).await {
        Ok(jobs) => jobs,
        Err(e) => return page::failed(frame, &e),
    };
    let mut main = String::from("<h1>Discovery jobs</h1>\n");
    super::admin::admin_nav(&mut main);
    page::outcome(&mut main, outcome);
    let d = state.profile.spider.default_limits();
    main.push_str(&format!(
        "<h2>Start</h2>\n<form method=\"post\" action=\"/admin/jobs\">\
         <p><label>Page URL <input name=\"url\" type=\"url\" required size=\"48\"></label></p>\
         <p><label><input type=\"radio\" name=\"kind\" value=\"spider\" checked> Spider run \
         (follows links within the limits)</label> \
         <label><input type=\"radio\" name=\"kind\" value=\"discover\"> Find this page's \
         feeds</label></p>\
         <p><label>Depth <input name=\"depth\" inputmode=\"numeric\" size=\"4\" \
         placeholder=\"{depth}\"></label> \
         <label>Requests <input name=\"max_requests\" inputmode=\"numeric\" size=\"7\" \
         placeholder=\"{requests}\"></label> \
         <label>URLs <input name=\"max_urls\" inputmode=\"numeric\" size=\"7\" \
         placeholder=\"{urls}\"></label> \
         <label>Minutes <input name=\"max_minutes\" inputmode=\"numeric\" size=\"5\" \
         placeholder=\"{minutes}\"></label> \
         <label><input type=\"checkbox\" name=\"linked_sites\" value=\"1\"> onto linked \
         sites</label></p>\
         <p><button type=\"submit\">Queue</button></p></form>\n\
         <p>Empty limits are the profile's ({profile}); none may pass its ceilings. Every \
         request counts (pages, feed checks, redirects, robots.txt); robots.txt, do-not-crawl \
         rules and each host's gap hold on every page.</p>\n",
        depth = d.depth,
        requests = d.max_requests,
        urls = d.max_urls,
        minutes = d.max_time.as_secs() / 60,
        profile = esc(&state.profile.name),
    ));
    main.push_str(&format!("<h2>Jobs ({})</h2>\n", jobs.len()));
    if jobs.is_empty() {
        main.push_str("<p>No job yet.</p>\n");
    } else {
        main.push_str(
            "<div class=\"table\"><table>\n<thead><tr><th>Job</th><th>Kind</th><th>URL</th>\
             <th>State</th><th>Spent and found</th><th>Asked by</th><th>Asked</th></tr>\
             </thead>\n<tbody>\n",
        );
        for job in &jobs {
            main.push_str(&format!(
                "<tr><td><a href=\"/admin/jobs/{id}\">{id}</a></td><td>{kind}</td>\
                 <td><code>{url}</code></td><td>{state}</td><td>{spent}</td><td>{who}</td>\
                 <td>{at}</td></tr>\n",
                id = job.id,
                kind = kind_label(job),
                url = esc(&job.url),
                state = esc(&state_words(job)),
                spent = esc(&spent_words(job)),
                who = esc(&job.requested_by),
                at = time(job.created_at),
            ));
        }
        main.push_str("</tbody>\n</table></div>\n");
    }
    page::html(status, render(frame, "Discovery jobs", None, &main))
}
