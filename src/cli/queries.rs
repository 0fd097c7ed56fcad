//! Search-engine query definitions, a discovery source (FF18): `queries add PROVIDER QUERY`,
//! `queries list`, `queries remove ID` and `queries run`. This build connects no search
//! provider: a query is kept, and `run` says it was not run; nothing is requested.

use super::commands::Context;
use super::terminal::{json, visible};
use anyhow::Result;
use clap::{Args, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct QueriesArgs {
    #[command(subcommand)]
    pub command: QueriesCommand,
}

#[derive(Debug, Subcommand)]
pub enum QueriesCommand {
    /// Keep a query for the search provider named PROVIDER
    Add { provider: String, query: String },
    /// List the queries: id, provider, query, last run and what it did
    List {
        /// Print JSON, one query per line
        #[arg(long)]
        json: bool,
    },
    /// Remove a query
    Remove { id: i64 },
    /// Run every query whose provider is connected, discovering the pages it finds
    Run,
}

pub async fn run(ctx: &Context, args: QueriesArgs) -> Result<ExitCode> {
    match args.command {
        QueriesCommand::Add { provider, query } => {
            let (provider, query) = (provider.trim(), query.trim());
            if provider.is_empty() || query.is_empty() {
                eprintln!("a query needs a provider's name and words to search for");
                return Ok(ExitCode::FAILURE);
            }
            let now = chrono::Utc::now();
            let (kept, new) = ctx.store.add_search_query(provider, query, now).await?;
            println!(
                "query {}: {} for {}{}",
                kept.id,
                visible(&kept.query),
                visible(&kept.provider),
                if new { "" } else { " (kept already)" }
            );
        }
        QueriesCommand::List { json: as_json } => {
            for q in ctx.store.search_queries().await? {
                if as_json {
                    println!("{}", json(&serde_json::to_string(&q)?));
                    continue;
                }
                let last = match (&q.last_run_at, &q.last_result) {
                    (Some(at), Some(result)) => format!(
                        "last run {}: {}",
                        at.format("%Y-%m-%d %H:%M UTC"),
                        visible(result)
                    ),
                    _ => "never run".to_owned(),
                };
                println!(
                    "{:>4}  {}  {}  ({last})",
                    q.id,
                    visible(&q.provider),
                    visible(&q.query)
                );
            }
        }
        QueriesCommand::Remove { id } => {
            if !ctx.store.remove_search_query(id).await? {
                eprintln!("no query {id}");
                return Ok(ExitCode::FAILURE);
            }
            println!("query {id} removed");
        }
        QueriesCommand::Run => {
            let crawler = ctx.crawler()?;
            let runs = crawler.run_search_queries(&|_| {}).await?;
            if runs.is_empty() {
                println!("no query is kept: `tidings queries add PROVIDER QUERY` keeps one");
            }
            for r in &runs {
                println!("query {}: {}", r.query.id, visible(&r.said));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
