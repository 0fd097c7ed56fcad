//! The operator's do-not-crawl commands (FF13) and removal on request (WFM10): `block`,
//! `unblock`, `blocks` and `remove`.
//!
//! The actions are `tidings_crawler::operator`'s, the same the API and the UI take. A rule
//! governs the next request decision of every process sharing the store, a running `serve`
//! or `crawl` included.

use super::commands::{Context, describe};
use super::settings::CLI_SUBSCRIBER;
use super::terminal::{json, one_line, visible};
use anyhow::{Context as _, Result, bail};
use chrono::Utc;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use tidings_crawler::operator;
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::BlockKind;
use tidings_store::{BlockAdded, FeedRecord};

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

#[derive(Debug, Args)]
pub struct UnsubscribeArgs {
    /// The feed: its id or its URL
    pub feed: String,
    #[command(flatten)]
    pub account: super::args::AccountArgs,
}

/// `tidings unsubscribe FEED`: the command line's subscription ends; the feed and its
/// entries stay, and it is read on only for the subscribers it has left.
pub async fn unsubscribe(ctx: &Context, args: UnsubscribeArgs) -> Result<ExitCode> {
    let feed = find(ctx, &args.feed).await?;
    let url = visible(feed.url.as_str());
    if let Some(name) = &args.account.user {
        let id = super::users::account_id(ctx, name).await?;
        if !ctx.store.unsubscribe_account(id, feed.id).await? {
            eprintln!(
                "feed {}: {url} is not among the subscriptions of {}",
                feed.id,
                visible(name)
            );
            return Ok(ExitCode::FAILURE);
        }
        println!(
            "feed {}: {url} unsubscribed for {} (their read and starred marks of it are \
             forgotten; the feed stays for its other subscribers)",
            feed.id,
            visible(name)
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !ctx.store.unsubscribe(feed.id, CLI_SUBSCRIBER).await? {
        eprintln!(
            "feed {}: {url} was not subscribed from the command line ({} other subscriber{}); \
             `tidings remove` ends every subscription, on request",
            feed.id,
            feed.subscribers,
            if feed.subscribers == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::FAILURE);
    }
    let left = feed.subscribers.saturating_sub(1);
    if left == 0 {
        println!(
            "feed {}: {url} unsubscribed; no subscriber is left, so it is no longer read (its \
             entries stay; `tidings add` subscribes again)",
            feed.id
        );
    } else {
        println!(
            "feed {}: {url} unsubscribed; it is still read for {left} other subscriber{}",
            feed.id,
            if left == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings block KIND VALUE [--reason TEXT]`.
pub async fn block(ctx: &Context, args: BlockArgs) -> Result<ExitCode> {
    let kind = BlockKind::parse(&args.kind)?;
    let added = operator::add_rule(&*ctx.store, kind, &args.value, args.reason, Utc::now()).await?;
    print_added(&added.added);
    print_held(&added.held);
    Ok(ExitCode::SUCCESS)
}

fn print_added(added: &BlockAdded) {
    let rule = &added.block;
    let already = if added.new { "" } else { "already " };
    println!(
        "{already}blocked {} {} (rule {})",
        visible(&rule.kind),
        visible(&rule.value),
        rule.id
    );
}

/// The feeds a rule now holds: paused at once, nothing sent.
fn print_held(held: &[FeedRecord]) {
    for feed in held {
        println!(
            "feed {}: {} paused: {}",
            feed.id,
            describe(feed),
            one_line(feed.state_reason.as_deref().unwrap_or_default())
        );
    }
}

/// `tidings unblock KIND VALUE`: exits 1 when there was no such rule.
pub async fn unblock(ctx: &Context, args: UnblockArgs) -> Result<ExitCode> {
    let kind = BlockKind::parse(&args.kind)?;
    match operator::remove_rule(&*ctx.store, kind, &args.value, Utc::now()).await? {
        Some(removed) => {
            println!("unblocked {kind} {}", visible(&removed.rule.value));
            for feed in &removed.resumed {
                println!("feed {}: {} resumed", feed.id, describe(feed));
            }
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!("no do-not-crawl rule {kind} {}", visible(args.value.trim()));
            Ok(ExitCode::FAILURE)
        }
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
    let Some(removed) =
        operator::remove_on_request(&*ctx.store, feed.id, args.block, args.reason, Utc::now())
            .await?
    else {
        bail!("no feed {}", args.feed);
    };
    println!(
        "feed {}: {} removed ({} subscriptions ended)",
        feed.id,
        visible(feed.url.as_str()),
        removed.before.subscribers
    );
    for rule in &removed.rules {
        println!(
            "blocked {} {} (rule {})",
            visible(&rule.kind),
            visible(&rule.value),
            rule.id
        );
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
