//! `tidings serve [--addr 127.0.0.1:8080] [--no-crawl] [--public-reads]`: the HTTP API and, unless told not
//! to, the continuous crawl, in one process over one store.
//!
//! The server is `tidings_api::server::serve`, with its limits against slow and many clients
//! (header and body timeouts, connections in all and per address) and the limit on failed key
//! checks per address, each from a flag, else `tidings.toml`, else its default
//! (`settings::resolve_serve`).
//!
//! The first line on stdout says where it listens (the bound address, so `--addr
//! 127.0.0.1:0` prints the port it got). SIGINT or SIGTERM stops both gracefully: the server
//! stops accepting, answers what it is answering, and the crawl starts no new read and lets
//! the reads in flight finish and be stored (as `tidings crawl` does). A crawl that fails
//! stops the server too, and the command fails. The crawl's live state (`Crawler::live`) is
//! shared with the API: `/metrics` and the host gate in `/v1/hosts/{name}` show it.

use super::commands::Context;
use super::crawl::signals;
use super::settings::{ServeLimitArgs, resolve_serve};
use anyhow::{Context as _, Result};
use clap::Args;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use tidings_api::AppState;
use tidings_crawler::{CrawlState, CrawlUntil, FeedReport, Progress};
use tokio::sync::watch;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 takes any free port (the one taken is printed)
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    pub addr: SocketAddr,
    /// Only serve: do not crawl in this process
    #[arg(long)]
    pub no_crawl: bool,
    /// Let anyone read without logging in: the web reader's pages and `/v1`'s reads, over
    /// every feed (env TIDINGS_PUBLIC_READS: 1/0, yes/no, true/false, on/off). By default
    /// reading needs an account's login or an API key, and each account sees its own
    /// subscriptions
    #[arg(
        long,
        env = "TIDINGS_PUBLIC_READS",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub public_reads: bool,
    /// Accepted for older scripts: reads need a key or a login by default now
    #[arg(long, hide = true, conflicts_with = "public_reads")]
    pub keyed_reads: bool,
    #[command(flatten)]
    pub limits: ServeLimitArgs,
}

/// `tidings serve`.
pub async fn run(ctx: &Context, args: ServeArgs) -> Result<ExitCode> {
    let limits = resolve_serve(&args.limits, &ctx.settings.serve_file)?;
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener
        .local_addr()
        .context("cannot read the address listened on")?;
    let crawler = if args.no_crawl {
        None
    } else {
        Some(ctx.crawler()?)
    };
    let mut state = AppState::new(
        ctx.store.clone(),
        Arc::new(ctx.settings.profile.clone()),
        env!("CARGO_PKG_VERSION"),
    )
    .with_egress(ctx.settings.fetch.egress.clone())
    .with_private_networks(ctx.settings.fetch.allow_private_networks)
    .with_auth(tidings_api::auth::Auth::new(
        tidings_api::auth::AuthConfig {
            public_reads: args.public_reads,
            failures: limits.failures,
            ..Default::default()
        },
    ));
    // `/metrics` and the host gate in `/v1/hosts/{name}` show the crawl of this process.
    if let Some(crawler) = &crawler {
        state = state.with_live(crawler.live());
    }
    let (stop, stopped) = watch::channel(false);
    tokio::spawn(signals(stop.clone()));

    let mut shutdown = stopped.clone();
    let server = tokio::spawn(tidings_api::server::serve(
        listener,
        tidings_api::router(state),
        limits.server,
        async move {
            let _ = shutdown.wait_for(|stop| *stop).await;
        },
    ));
    println!("listening on http://{addr}");
    println!(
        "  reader: http://{addr}/   bot page: http://{addr}/bot   API: http://{addr}/v1/feeds"
    );
    if args.public_reads {
        println!("  anyone may read every feed here without logging in (--public-reads)");
    } else {
        println!("  reading needs a login or an API key (--public-reads lets anyone read)");
    }
    let admins = ctx
        .store
        .list_keys()
        .await?
        .iter()
        .filter(|k| k.role == "admin" && k.revoked_at.is_none())
        .count();
    // The commands below act on this server's database: name it unless it is the default.
    let db = if ctx.settings.db == super::settings::DEFAULT_DB {
        String::new()
    } else {
        format!(" --db {}", super::settings::redacted(&ctx.settings.db))
    };
    if ctx.store.accounts().await?.is_empty() {
        println!(
            "  no accounts yet: `tidings users add NAME --role admin{db}` makes the first (it \
             asks for the password); log in with it at /login"
        );
    }
    if admins == 0 {
        println!(
            "  no admin key yet: `tidings keys create --role admin{db}` prints one, for scripts \
             and the writes of /v1"
        );
    }
    // SR11: where verifiers look for the keys, and where this server publishes them.
    if let Some(signer) = &ctx.settings.fetch.signer {
        println!(
            "  requests are signed (Web Bot Auth): Signature-Agent names {}; this server \
             publishes the keys at http://{addr}{}",
            signer.agent(),
            tidings_fetch::botkeys::DIRECTORY_PATH
        );
    }
    if args.no_crawl {
        println!("not crawling (--no-crawl)");
    } else {
        println!("crawling feeds as they fall due");
    }

    let crawled = if let Some(crawler) = crawler {
        let until = CrawlUntil {
            stop: stopped,
            deadline: None,
        };
        let outcome = crawler.crawl(until, Arc::new(Log)).await;
        // A failed crawl takes the server down with it: better no process than half of one.
        let _ = stop.send(true);
        Some(outcome)
    } else {
        None
    };

    server
        .await
        .context("the server task failed")?
        .context("the server failed")?;
    match crawled {
        None => println!("stopped"),
        Some(outcome) => {
            let summary = outcome.context("the crawl failed")?;
            println!(
                "stopped: {} feeds read (ok {}, not modified {}, failed {}), {} new entries, \
                 {} updated entries",
                summary.feeds,
                summary.fetched,
                summary.not_modified,
                summary.failed,
                summary.new_entries,
                summary.updated_entries,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The crawl's progress as structured log lines (a server has no status line to draw).
struct Log;

impl Progress for Log {
    fn found(&self, _total: usize) {}

    fn done(&self, report: &FeedReport) {
        match &report.error {
            None => tracing::info!(
                feed_id = %report.feed_id,
                feed_url = %report.url,
                outcome = %report.outcome,
                status = ?report.status,
                new_entries = report.new_entries,
                next_fetch_at = %report.next_fetch_at,
                reason = %report.next_fetch_reason,
                "feed read"
            ),
            Some(error) => tracing::warn!(
                feed_id = %report.feed_id,
                feed_url = %report.url,
                outcome = %report.outcome,
                status = ?report.status,
                error = %error,
                next_fetch_at = %report.next_fetch_at,
                reason = %report.next_fetch_reason,
                "feed read failed"
            ),
        }
    }

    fn state(&self, _state: &CrawlState) {}
}
