//! Command-line front end: arguments ([`args`]), configuration ([`settings`]) and one module
//! per group of commands.

mod args;
mod blocks;
mod catalogue;
mod commands;
mod crawl;
mod keys;
mod parse;
mod progress;
mod queries;
mod robots;
mod serve;
mod settings;
mod simulate;
mod spider;
pub mod terminal;
mod time;
mod users;

use anyhow::{Context, Result};
use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;
use std::sync::Arc;

/// Parse arguments, resolve settings, run the command.
pub fn main() -> Result<ExitCode> {
    let cli = Cli::parse();
    // Parsing files needs no database, no profile and no runtime.
    match &cli.command {
        Command::Parse(args) => return parse::run(args),
        Command::Robots(args) => return robots::run(args),
        // Virtual time against a modelled web: no database, no runtime.
        Command::Simulate(args) => return simulate::run(&cli.global, args),
        _ => {}
    }
    let file = settings::load_file(&cli.global)?;
    init_tracing(&settings::log_filter(&cli.global, &file))?;
    let settings = settings::resolve(&cli.global, file)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run(cli.command, settings))
}

async fn run(command: Command, settings: settings::Settings) -> Result<ExitCode> {
    let store = tidings_store::open(&settings.db).await.with_context(|| {
        format!(
            "cannot open the database {}",
            settings::redacted(&settings.db)
        )
    })?;
    let ctx = commands::Context {
        store,
        settings: Arc::new(settings),
    };
    match command {
        Command::Add(a) => commands::add(&ctx, a).await,
        Command::Fetch => commands::fetch(&ctx).await,
        Command::Crawl(a) => crawl::run(&ctx, a).await,
        Command::Serve(a) => serve::run(&ctx, a).await,
        Command::Keys(a) => keys::run(&ctx, a).await,
        Command::Users(a) => users::run(&ctx, a).await,
        Command::Queries(a) => queries::run(&ctx, a).await,
        Command::Catalogue(a) => catalogue::run(&ctx, a).await,
        Command::Spider(a) => spider::run(&ctx, a).await,
        Command::Discover(a) => spider::discover(&ctx, a).await,
        Command::Feeds(a) => commands::feeds(&ctx, a).await,
        Command::Entries(a) => commands::entries(&ctx, a).await,
        Command::Log(a) => commands::log(&ctx, a).await,
        Command::ImportOpml(a) => commands::import_opml(&ctx, a).await,
        Command::ExportOpml(a) => commands::export_opml(&ctx, a).await,
        Command::Resume(a) => commands::resume(&ctx, a).await,
        Command::Feed(a) => commands::feed(&ctx, a).await,
        Command::Block(a) => blocks::block(&ctx, a).await,
        Command::Unblock(a) => blocks::unblock(&ctx, a).await,
        Command::Blocks(a) => blocks::blocks(&ctx, a).await,
        Command::Remove(a) => blocks::remove(&ctx, a).await,
        Command::Unsubscribe(a) => blocks::unsubscribe(&ctx, a).await,
        Command::Parse(_) | Command::Robots(_) | Command::Simulate(_) => {
            unreachable!("handled before the runtime starts")
        }
    }
}

fn init_tracing(filter: &str) -> Result<()> {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_new(quiet_libraries(filter))
        .with_context(|| format!("invalid log filter {filter:?}"))?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, not in a file or a journal.
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
    Ok(())
}

/// Libraries whose warnings are about a publisher's markup (every HTML page has some), not
/// about tidings: errors only, unless the filter names them.
const QUIET_LIBRARIES: [&str; 2] = ["html5ever", "markup5ever"];

/// `filter` with [`QUIET_LIBRARIES`] at `error` where it does not name them itself.
fn quiet_libraries(filter: &str) -> String {
    let mut out = filter.to_owned();
    for library in QUIET_LIBRARIES {
        if !filter.contains(library) {
            out.push_str(&format!(",{library}=error"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quiet_libraries;

    #[test]
    fn markup_warnings_stay_out_of_the_log_unless_asked_for() {
        assert_eq!(
            quiet_libraries("warn"),
            "warn,html5ever=error,markup5ever=error"
        );
        assert_eq!(
            quiet_libraries("info,html5ever=debug"),
            "info,html5ever=debug,markup5ever=error"
        );
        assert!(tracing_subscriber::EnvFilter::try_new(quiet_libraries("warn")).is_ok());
    }
}
