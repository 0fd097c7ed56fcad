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
use std::time::Duration;
use tidings_crawler::spider::{Budget, SpiderLimits};
use tidings_model::FeedUrl;

#[derive(Debug, Args)]
pub struct SpiderArgs {
    /// The page to start from
    pub url: String,
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
    let start = match FeedUrl::parse(&args.url) {
        Ok(url) => url,
        Err(e) => {
            eprintln!("{}", visible(&format!("{}: {e}", args.url)));
            return Ok(ExitCode::FAILURE);
        }
    };
    let defaults = ctx.settings.profile.spider.default_limits();
    let limits = SpiderLimits {
        depth: args.depth.unwrap_or(defaults.depth),
        max_urls: args.max_urls.unwrap_or(defaults.max_urls),
        max_requests: args.max_requests.unwrap_or(defaults.max_requests),
        max_bytes: args.max_bytes.unwrap_or(defaults.max_bytes),
        max_time: args.max_time.unwrap_or(defaults.max_time),
        linked_sites: args.linked_sites,
    };
    let crawler = ctx.crawler()?;
    let terminal = std::io::stderr().is_terminal();
    let clock = crawler.clone();
    let status = move |_: &tidings_crawler::discover::Checked, b: &Budget| {
        if terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{}", spent(b, clock.now()));
            let _ = err.flush();
        }
    };
    let report = match crawler.spider(&start, limits, &status).await {
        Ok(report) => report,
        Err(tidings_crawler::CrawlError::Refused(why)) => {
            eprintln!("{}", visible(&why));
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    if terminal {
        eprintln!();
    }
    println!(
        "spider {}: {} read, {} found, {} duplicate, {} refused; {} looked at",
        visible(start.as_str()),
        count(u64::from(report.pages), "page", "pages"),
        count(report.feeds.len() as u64, "feed", "feeds"),
        report.duplicates,
        report.refused,
        count(report.checked.len() as u64, "URL", "URLs"),
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
        match &report.stopped_by {
            Some(which) => format!("stopped: the {which} budget is spent"),
            None => "every link within the depth was followed".to_owned(),
        }
    );
    Ok(ExitCode::SUCCESS)
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
        println!("{}", feed_line(f));
    }
    Ok(if found.feeds.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A feed found, as the reports list it: its title, URL, and why it is (or may be) a stored
/// feed.
fn feed_line(f: &tidings_crawler::discover::FoundFeed) -> String {
    let title = f.title.as_deref().unwrap_or("(no title)");
    let note = match (&f.note, f.held) {
        (Some(n), true) => format!(" — held for review: {}", visible(n)),
        (Some(n), false) => format!(" — {}", visible(n)),
        (None, _) => String::new(),
    };
    format!("  {} <{}>{note}", visible(title), visible(f.url.as_str()))
}
