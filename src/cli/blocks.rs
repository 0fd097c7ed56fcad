//! The operator's do-not-crawl commands (FF13) and removal on request (WFM10): `block`,
//! `unblock`, `blocks` and `remove`.
//!
//! Rules are checked by the crawler before every request; each command is its own process, so
//! a rule added here holds from the next `fetch`, `add` or `crawl` on.

use super::commands::{Context, describe};
use super::terminal::{json, one_line, visible};
use anyhow::{Context as _, Result, bail};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use tidings_crawler::Purpose;
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::{BlockKind, is_block_hold, parse_rule};
use tidings_store::{FeedRecord, FeedState, NewBlock};

#[derive(Debug, Args)]
pub struct BlockArgs {
    /// url, feed, path, origin, host or domain
    pub kind: String,
    /// What to block: a URL, a feed id, an origin and path prefix (`https://ex.com/private/`,
    /// or `https://ex.com/a*` for a plain string prefix), an origin (`https://ex.com`), a host
    /// name, or a registrable domain (`example.co.uk`)
    pub value: String,
    /// Why (kept with the rule)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// url, feed, path, origin, host or domain
    pub kind: String,
    /// The value, as given to `block`
    pub value: String,
}

#[derive(Debug, Args)]
pub struct BlocksArgs {
    /// Print JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The feed: its id or its URL
    pub feed: String,
    /// Also block its URL, so that it cannot be added again by URL
    #[arg(long)]
    pub block: bool,
    /// Why (kept with the rule made by --block)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

/// `tidings block KIND VALUE [--reason TEXT]`.
pub async fn block(ctx: &Context, args: BlockArgs) -> Result<ExitCode> {
    let kind = BlockKind::parse(&args.kind)?;
    let value = parse_rule(kind, &args.value)?;
    add(ctx, kind, value, args.reason).await?;
    hold_covered_feeds(ctx).await?;
    Ok(ExitCode::SUCCESS)
}

/// Pause at once every active feed a rule now covers, so `feeds` shows it blocked before its
/// next read would find out. Nothing is sent: the crawler checks the rules first.
async fn hold_covered_feeds(ctx: &Context) -> Result<()> {
    let crawler = ctx.crawler()?;
    let list = crawler.reload_blocks().await?;
    for feed in ctx.store.feeds().await? {
        if feed.state != FeedState::Active || list.check(feed.url.as_url(), Some(feed.id)).is_none()
        {
            continue;
        }
        let report = crawler.refresh(&feed, Purpose::Scheduled).await?;
        println!(
            "feed {}: {} paused: {}",
            feed.id,
            describe(&feed),
            one_line(&report.next_fetch_reason)
        );
    }
    Ok(())
}

/// Resume the feeds paused by a rule that no longer covers them; they are read when due.
async fn resume_uncovered_feeds(ctx: &Context) -> Result<()> {
    let crawler = ctx.crawler()?;
    let list = crawler.reload_blocks().await?;
    let now = crawler.now();
    for feed in ctx.store.feeds().await? {
        let held = feed.state == FeedState::Paused
            && feed.state_reason.as_deref().is_some_and(is_block_hold);
        if !held || list.check(feed.url.as_url(), Some(feed.id)).is_some() {
            continue;
        }
        if ctx
            .store
            .resume_feed(
                feed.id,
                now,
                "resumed: no do-not-crawl rule covers it any more",
            )
            .await?
        {
            println!("feed {}: {} resumed", feed.id, describe(&feed));
        }
    }
    Ok(())
}

async fn add(ctx: &Context, kind: BlockKind, value: String, reason: Option<String>) -> Result<()> {
    let added = ctx
        .store
        .add_block(&NewBlock {
            kind: kind.as_str().into(),
            value,
            reason,
            created_at: chrono::Utc::now(),
        })
        .await?;
    let rule = &added.block;
    if added.new {
        println!(
            "blocked {} {} (rule {})",
            visible(&rule.kind),
            visible(&rule.value),
            rule.id
        );
    } else {
        println!(
            "already blocked: {} {} (rule {})",
            visible(&rule.kind),
            visible(&rule.value),
            rule.id
        );
    }
    Ok(())
}

/// `tidings unblock KIND VALUE`: exits 1 when there was no such rule.
pub async fn unblock(ctx: &Context, args: UnblockArgs) -> Result<ExitCode> {
    let kind = BlockKind::parse(&args.kind)?;
    // The rule was stored in its normal form; a value that does not parse any more is tried
    // as given.
    let value = parse_rule(kind, &args.value).unwrap_or_else(|_| args.value.trim().to_string());
    if ctx.store.remove_block(kind.as_str(), &value).await? {
        println!("unblocked {kind} {}", visible(&value));
        resume_uncovered_feeds(ctx).await?;
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("no do-not-crawl rule {kind} {}", visible(&value));
        Ok(ExitCode::FAILURE)
    }
}

/// `tidings blocks [--json]`.
pub async fn blocks(ctx: &Context, args: BlocksArgs) -> Result<ExitCode> {
    let rules = ctx.store.blocks().await?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for rule in &rules {
            writeln!(out, "{}", json(&serde_json::to_string(rule)?))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "   ID  KIND    ADDED                 VALUE")?;
    for rule in &rules {
        let reason = rule
            .reason
            .as_deref()
            .map(|r| format!("  ({})", one_line(r)))
            .unwrap_or_default();
        writeln!(
            out,
            "{:>5}  {:<7} {:<20}  {}{reason}",
            rule.id,
            visible(&rule.kind),
            rule.created_at.format("%Y-%m-%d %H:%M:%S"),
            visible(&rule.value),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings remove FEED [--block]` (WFM10): at once, whoever subscribes.
pub async fn remove(ctx: &Context, args: RemoveArgs) -> Result<ExitCode> {
    let feed = find(ctx, &args.feed).await?;
    ctx.store.remove_feed(feed.id).await?;
    println!(
        "feed {}: {} removed ({} subscriptions ended)",
        feed.id,
        visible(feed.url.as_str()),
        feed.subscribers
    );
    if args.block {
        // The URL it is read at and the one it was first added at, when it moved.
        let mut urls = vec![feed.url.to_string()];
        if feed.original_url != feed.url.as_str() {
            urls.push(feed.original_url.clone());
        }
        let reason = args
            .reason
            .clone()
            .or_else(|| Some(format!("feed {} removed on request (WFM10)", feed.id)));
        for url in urls {
            let value = parse_rule(BlockKind::Url, &url)?;
            add(ctx, BlockKind::Url, value, reason.clone()).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A feed by id or URL.
async fn find(ctx: &Context, given: &str) -> Result<FeedRecord> {
    let found = match given.trim().parse::<i64>() {
        Ok(id) => ctx.store.feed(FeedId(id)).await?,
        Err(_) => {
            let url = FeedUrl::parse(given).with_context(|| format!("{given} is no feed id"))?;
            ctx.store.feed_by_url(&url).await?
        }
    };
    match found {
        Some(feed) => Ok(feed),
        None => bail!("no feed {given}"),
    }
}
