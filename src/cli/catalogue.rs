//! The catalogue (SR2): `catalogue add URL` verifies a feed with one read now (a first
//! add's: it does not wait for crawl-delay, SR9) and lists it when it reads as a feed;
//! `catalogue list` and `catalogue remove FEED`. The API (`/v1/catalogue`) queues the same
//! read for the crawl.

use super::commands::Context;
use super::terminal::{json, visible};
use anyhow::Result;
use clap::{Args, Subcommand};
use std::process::ExitCode;
use tidings_crawler::operator::{JobAsk, JobRequest, SubmitError, submit_page_job};
use tidings_model::{FeedUrl, PageJobState};

#[derive(Debug, Args)]
pub struct CatalogueArgs {
    #[command(subcommand)]
    pub command: CatalogueCommand,
}

#[derive(Debug, Subcommand)]
pub enum CatalogueCommand {
    /// Read a feed once to verify it, and list it when it reads as a feed
    Add { url: String },
    /// The catalogue's feeds: id, URL, title, when added and by whom
    List {
        /// Print JSON, one feed per line
        #[arg(long)]
        json: bool,
    },
    /// Take a feed off the catalogue (by its id); its subscriptions stay
    Remove { feed: i64 },
}

pub async fn run(ctx: &Context, args: CatalogueArgs) -> Result<ExitCode> {
    match args.command {
        CatalogueCommand::Add { url } => add(ctx, &url).await,
        CatalogueCommand::List { json: as_json } => {
            for entry in ctx.store.catalogue().await? {
                let Some(feed) = ctx.store.feed(entry.feed_id).await? else {
                    continue;
                };
                if as_json {
                    let line = serde_json::json!({
                        "feed_id": feed.id.0,
                        "url": feed.url.as_str(),
                        "title": feed.title,
                        "added_at": entry.added_at,
                        "added_by": entry.added_by,
                    });
                    println!("{}", json(&line.to_string()));
                } else {
                    println!(
                        "{} {} {} (added {} by {})",
                        feed.id,
                        visible(feed.url.as_str()),
                        visible(feed.title.as_deref().unwrap_or("(no title)")),
                        entry.added_at.format("%Y-%m-%d %H:%M UTC"),
                        visible(&entry.added_by)
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        CatalogueCommand::Remove { feed } => {
            if ctx
                .store
                .remove_from_catalogue(tidings_model::FeedId(feed))
                .await?
            {
                println!("feed {feed} taken off the catalogue");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("feed {feed} is not in the catalogue (`tidings catalogue list`)");
                Ok(ExitCode::FAILURE)
            }
        }
    }
}

async fn add(ctx: &Context, url: &str) -> Result<ExitCode> {
    let url = match FeedUrl::parse(url) {
        Ok(url) => url,
        Err(e) => {
            eprintln!("{}", visible(&format!("{url}: {e}")));
            return Ok(ExitCode::FAILURE);
        }
    };
    let crawler = ctx.crawler()?;
    let request = JobRequest {
        url: &url,
        ask: JobAsk::Catalogue,
        requested_by: "cli",
        running: true,
    };
    let allow_private = ctx.settings.fetch.allow_private_networks;
    let profile = &ctx.settings.profile;
    let job =
        match submit_page_job(&*ctx.store, profile, request, allow_private, crawler.now()).await {
            Ok(job) => job,
            Err(SubmitError::Store(e)) => return Err(e.into()),
            Err(e) => {
                eprintln!("{}", visible(&e.to_string()));
                return Ok(ExitCode::FAILURE);
            }
        };
    let id = job.id;
    crawler.work_page_job(job, &|| false).await?;
    let Some(done) = ctx.store.page_job(id).await? else {
        anyhow::bail!("job {id} vanished");
    };
    let found = ctx.store.page_job_feeds(id).await?;
    match (done.state, found.first()) {
        (PageJobState::Done, Some(feed)) => {
            println!(
                "{} is in the catalogue as feed {}: {}",
                visible(url.as_str()),
                feed.feed_id
                    .map_or_else(|| "?".to_owned(), |f| f.to_string()),
                visible(feed.title.as_deref().unwrap_or("(no title)"))
            );
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            eprintln!(
                "{} was not added to the catalogue: {}",
                visible(url.as_str()),
                visible(done.error.as_deref().unwrap_or("it did not read as a feed"))
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
