//! `tidings spider URL`: a bounded Spider Mode run on one site (FF4), with a status line while
//! it runs (on a terminal) and a report at the end: pages read, feeds found, duplicates,
//! refusals and each budget as spent. Every limit defaults to the profile's `[spider]` and may
//! not pass its ceilings.

use super::commands::Context;
use super::terminal::{count, visible};
use anyhow::Result;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tidings_crawler::spider::Budget;
use tidings_model::{FeedUrl, LimitsAsked, PageJobKind};

#[derive(Debug, Args)]
pub struct SpiderArgs {
    /// The page to start from
    #[arg(required_unless_present = "resume")]
    pub url: Option<String>,
    /// Go on with a stopped run (its number, as the run printed it) where it was, within
    /// the budget it was given
    #[arg(long, value_name = "JOB", conflicts_with_all = ["url", "depth", "max_urls", "max_requests", "max_bytes", "max_time", "linked_sites"])]
    pub resume: Option<i64>,
    /// Links followed from the first page (0: that page only) [default: the profile's]
    #[arg(long)]
    pub depth: Option<u32>,
    /// URLs looked at, pages and feed candidates [default: the profile's]
    #[arg(long, value_name = "N")]
    pub max_urls: Option<u32>,
    /// Requests sent: pages, feed checks, redirect hops and robots.txt [default: the profile's]
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u32>,
    /// Response body bytes [default: the profile's]
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<u64>,
    /// Elapsed time (30m, 2h, ...) [default: the profile's]
    #[arg(long, value_name = "DURATION", value_parser = super::crawl::parse_duration)]
    pub max_time: Option<Duration>,
    /// Follow links onto the other sites a page links to
    #[arg(long)]
    pub linked_sites: bool,
}

pub async fn run(ctx: &Context, args: SpiderArgs) -> Result<ExitCode> {
    let crawler = ctx.crawler()?;
    let job = match (&args.url, args.resume) {
        (_, Some(id)) => match crawler.claim_page_job(Some(id)).await? {
            Some(job) if job.kind == PageJobKind::Spider => job,
            Some(job) => {
                // Not ours to work here: give it back as it was.
                crawler
                    .store()
                    .release_page_job(job.id, crawler.now())
                    .await?;
                eprintln!("job {id} is no spider run (it finds the feeds of one URL)");
                return Ok(ExitCode::FAILURE);
            }
            None => {
                eprintln!("{}", visible(&not_resumable(&crawler, id).await?));
                return Ok(ExitCode::FAILURE);
            }
        },
        (Some(url), None) => {
            let start = match FeedUrl::parse(url) {
                Ok(url) => url,
                Err(e) => {
                    eprintln!("{}", visible(&format!("{url}: {e}")));
                    return Ok(ExitCode::FAILURE);
                }
            };
            let limits = ctx.settings.profile.spider.limits(&LimitsAsked {
                depth: args.depth,
                max_urls: args.max_urls,
                max_requests: args.max_requests,
                max_bytes: args.max_bytes,
                max_time: args.max_time,
                linked_sites: args.linked_sites,
            });
            match crawler.submit_spider(&start, limits, "cli", true).await {
                Ok(job) => job,
                Err(tidings_crawler::CrawlError::Refused(why)) => {
                    eprintln!("{}", visible(&why));
                    return Ok(ExitCode::FAILURE);
                }
                Err(e) => return Err(e.into()),
            }
        }
        (None, None) => unreachable!("clap requires a URL or --resume"),
    };
    let id = job.id;
    let start = job.url.clone();
    // Ctrl-C stops the run after the URL in hand; the job waits to be resumed.
    let stopping = Arc::new(AtomicBool::new(false));
    let on_signal = stopping.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.store(true, Ordering::Relaxed);
        }
    });
    let terminal = std::io::stderr().is_terminal();
    let clock = crawler.clone();
    let status = move |_: &tidings_crawler::discover::Checked, b: &Budget| {
        if terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{}", spent(b, clock.now()));
            let _ = err.flush();
        }
    };
    let stop = move || stopping.load(Ordering::Relaxed);
    let report = crawler.spider_job(job, &status, &stop).await?;
    if terminal {
        eprintln!();
    }
    let looked = report.job.spent.urls;
    println!(
        "spider {} (job {id}): {} read, {} found, {} duplicate, {} refused; {} looked at",
        visible(&start),
        count(u64::from(report.pages), "page", "pages"),
        count(report.feeds.len() as u64, "feed", "feeds"),
        report.duplicates,
        report.refused,
        count(u64::from(looked), "URL", "URLs"),
    );
    for f in &report.feeds {
        println!("{}", feed_line(f));
    }
    let b = &report.budget;
    println!(
        "budget: {} of {} requests, {} of {} bytes, {} of {} URLs, {}s of {}s; {}",
        b.requests,
        b.limits.max_requests,
        b.bytes,
        b.limits.max_bytes,
        b.urls,
        b.limits.max_urls,
        b.elapsed(crawler.now()).as_secs(),
        b.limits.max_time.as_secs(),
        match (&report.stopped_by, report.finished) {
            (_, false) => format!("stopped: `tidings spider --resume {id}` goes on where it was"),
            (Some(which), true) => format!("stopped: the {which} budget is spent"),
            (None, true) => "every link within the depth was followed".to_owned(),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Why job `id` cannot be resumed now, in words.
async fn not_resumable(crawler: &tidings_crawler::Crawler, id: i64) -> Result<String> {
    Ok(match crawler.store().page_job(id).await? {
        None => format!("no job {id}: `tidings spider URL` starts a run"),
        Some(job) if job.state.finished() => format!(
            "job {id} has ended ({}{}): `tidings spider {}` starts a new run",
            job.state.as_str(),
            job.stopped_by
                .map(|b| format!(", the {b} budget spent"))
                .or(job.error.map(|e| format!(": {e}")))
                .unwrap_or_default(),
            job.url
        ),
        Some(job) => format!(
            "job {id} is being worked (last heard of at {}); a job left by a stopped process \
             can be resumed {} minutes after that",
            job.updated_at.format("%Y-%m-%d %H:%M:%S UTC"),
            tidings_crawler::jobs::JOB_STALE_SECS / 60
        ),
    })
}

/// The status line: the budget as spent.
fn spent(b: &Budget, now: chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "spider: {}/{} requests, {:.1}/{:.1} MB, {}/{} URLs, {}s/{}s",
        b.requests,
        b.limits.max_requests,
        b.bytes as f64 / 1e6,
        b.limits.max_bytes as f64 / 1e6,
        b.urls,
        b.limits.max_urls,
        b.elapsed(now).as_secs(),
        b.limits.max_time.as_secs()
    )
}

#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// A feed's URL, or a site's or page's
    pub url: String,
    /// Check every candidate of the page (its feed links and the common feed paths too), not
    /// only until a declared feed is found
    #[arg(long)]
    pub thorough: bool,
}

/// `tidings discover URL`: find the feeds of a URL without subscribing (FF1–FF3): each URL
/// checked is listed with what it was, then the feeds found.
pub async fn discover(ctx: &Context, args: DiscoverArgs) -> Result<ExitCode> {
    use tidings_crawler::discover::Reach;
    let url = match FeedUrl::parse(&args.url) {
        Ok(url) => url,
        Err(e) => {
            eprintln!("{}", visible(&format!("{}: {e}", args.url)));
            return Ok(ExitCode::FAILURE);
        }
    };
    let crawler = ctx.crawler()?;
    let reach = if args.thorough {
        Reach::Thorough
    } else {
        Reach::Declared
    };
    let show = |c: &tidings_crawler::discover::Checked| {
        println!(
            "  {:<10} {} ({})",
            c.disposition.as_str(),
            visible(&c.url),
            visible(&c.reason)
        );
    };
    let found = match crawler.discover(&url, reach, &show).await {
        Ok(found) => found,
        Err(e @ tidings_crawler::CrawlError::Unreachable { .. }) => {
            eprintln!("{}", visible(&e.to_string()));
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    println!(
        "{}: {} found, {} checked, {} sent",
        visible(url.as_str()),
        count(found.feeds.len() as u64, "feed", "feeds"),
        count(found.checked.len() as u64, "URL", "URLs"),
        count(found.requests as u64, "request", "requests"),
    );
    for f in &found.feeds {
        println!("{}", feed_line(&tidings_crawler::spider::job_feed(f)));
    }
    Ok(if found.feeds.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A feed found, as the reports list it: its title, URL, and why it is (or may be) a stored
/// feed.
fn feed_line(f: &tidings_store::JobFeed) -> String {
    let title = f.title.as_deref().unwrap_or("(no title)");
    let note = match (&f.note, f.held) {
        (Some(n), true) => format!(" — held for review: {}", visible(n)),
        (Some(n), false) => format!(" — {}", visible(n)),
        (None, _) => String::new(),
    };
    format!("  {} <{}>{note}", visible(title), visible(&f.url))
}
