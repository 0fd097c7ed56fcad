//! The command line as typed: clap definitions, nothing resolved yet.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// tidings: a courteous feed crawler and aggregator.
#[derive(Debug, Parser)]
#[command(name = "tidings", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes, before or after the subcommand.
///
/// Precedence: flag, then `TIDINGS_*` environment variable, then the config file, then the
/// built-in default.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// Database: a SQLite file path or a postgres:// URL [default: ./tidings.db]
    #[arg(long, global = true, env = "TIDINGS_DB", value_name = "PATH|URL")]
    pub db: Option<String>,

    /// Profile: an embedded profile name or a path to a TOML file [default: default]
    #[arg(long, global = true, env = "TIDINGS_PROFILE", value_name = "NAME|PATH")]
    pub profile: Option<String>,

    /// TOML configuration file [default: ./tidings.toml when it exists]
    #[arg(long, global = true, env = "TIDINGS_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Allow fetching from loopback, private and link-local addresses (the variable takes
    /// 1/0, yes/no, true/false, on/off)
    #[arg(
        long,
        global = true,
        env = "TIDINGS_ALLOW_PRIVATE_NETWORKS",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_private_networks: bool,

    /// Resolve HOST:PORT to ADDR instead of asking DNS (curl syntax; repeatable)
    #[arg(long, global = true, value_name = "HOST:PORT:ADDR")]
    pub resolve: Vec<String>,

    /// A local address feeds may be read from when an operator assigns it (repeatable)
    #[arg(long = "egress-address", global = true, value_name = "ADDR")]
    pub egress_addresses: Vec<String>,

    /// The origin serving this bot's key directory, named in every signed request's
    /// Signature-Agent (SR11; overrides the profile's signing.agent)
    #[arg(
        long,
        global = true,
        env = "TIDINGS_SIGNATURE_AGENT",
        value_name = "URL"
    )]
    pub signature_agent: Option<String>,

    /// The public URL this instance's `serve` is reached at by WebSub hubs: with it, a feed
    /// that names a hub is subscribed to there (callbacks at URL/websub/TOKEN) and polled less
    /// often while the hub pushes; without it, no hub is asked [default: none]
    #[arg(
        long,
        global = true,
        env = "TIDINGS_WEBSUB_CALLBACK",
        value_name = "URL"
    )]
    pub websub_callback: Option<String>,

    /// Run crawler time N times faster than real time (tests, demos) [default: 1]
    #[arg(long, global = true, env = "TIDINGS_TIME_SCALE", value_name = "N")]
    pub time_scale: Option<u32>,

    /// Log filter, e.g. `info` or `tidings_crawler=debug` [default: warn]
    #[arg(long, global = true, env = "TIDINGS_LOG", value_name = "FILTER")]
    pub log: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Subscribe to feeds and read each once now
    Add(AddArgs),
    /// Read every feed that is due, once
    Fetch,
    /// Read feeds as they fall due until stopped (Ctrl-C, SIGTERM) or for a while
    Crawl(super::crawl::CrawlArgs),
    /// List feeds with their state and schedule
    Feeds(FeedsArgs),
    /// List stored entries, newest first
    Entries(EntriesArgs),
    /// Show the request log: every request sent, why, and what came back (C7)
    Log(LogArgs),
    /// Subscribe to every feed listed in an OPML file (read on the next fetch)
    ImportOpml(ImportOpmlArgs),
    /// Print the subscriptions as OPML
    ExportOpml(ExportOpmlArgs),
    /// Resume a paused or switched-off feed: read it again at the next fetch
    Resume(ResumeArgs),
    /// Change how one feed is read: the egress address its requests leave from (WFM7)
    Feed(FeedArgs),
    /// Parse feed files and print the normalized model as JSON
    Parse(ParseArgs),
    /// Check a URL against a robots.txt file: prints `allowed` or `disallowed` first, then the
    /// group and the line that decided; exits 0 when allowed, 1 when not
    Robots(RobotsArgs),
    /// Never request what a rule names (FF13): KIND is url, feed, path, origin, host or domain
    Block(super::blocks::BlockArgs),
    /// Remove a do-not-crawl rule
    Unblock(super::blocks::UnblockArgs),
    /// List the do-not-crawl rules
    Blocks(super::blocks::BlocksArgs),
    /// Unsubscribe the command line from a feed: it is no longer read unless another
    /// subscriber remains, and it can be added again (unlike `remove`)
    Unsubscribe(super::blocks::UnsubscribeArgs),
    /// Remove a feed at once, on request (WFM10); --block keeps its URL from being added again
    Remove(super::blocks::RemoveArgs),
    /// Serve the JSON API (and crawl, unless --no-crawl) until stopped (Ctrl-C, SIGTERM)
    Serve(super::serve::ServeArgs),
    /// Manage the API keys of `serve`: create (prints the token once), list, revoke
    Keys(super::keys::KeysArgs),
    /// Manage the accounts people log in with: add, list, passwd (--api: the sync clients'
    /// password), remove
    Users(super::users::UsersArgs),
    /// Search-engine query definitions, a discovery source (FF18): add, list, remove, run
    /// (no search provider is connected in this build: a query is kept, not run)
    Queries(super::queries::QueriesArgs),
    /// The catalogue of feeds readers browse (SR2): add (verified with one read now), list,
    /// remove
    Catalogue(super::catalogue::CatalogueArgs),
    /// A bounded Spider Mode run from one page to find feeds (FF4): link depth, URLs,
    /// requests, bytes and time are limited (the profile's [spider], never past its ceilings);
    /// needs a profile that lists "discovery" (FFBot)
    Spider(super::spider::SpiderArgs),
    /// Find the feeds of a URL without subscribing (FF1): each URL checked and what it was,
    /// then the feeds found (a stored one named as such, FF3); exits 1 when none is found
    Discover(super::spider::DiscoverArgs),
    /// Run the real scheduling policy in virtual time against a modelled web (no database, no
    /// network) and report requests, 304s, the busiest host and politeness violations; exits
    /// non-zero when there is any violation
    Simulate(SimulateArgs),
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Feeds in the modelled web
    #[arg(long, default_value_t = 1_000_000)]
    pub feeds: u32,
    /// Hosts they live on
    #[arg(long, default_value_t = 50_000)]
    pub hosts: u32,
    /// Virtual days to run
    #[arg(long, default_value_t = 7)]
    pub days: u32,
    /// Seed of the modelled web
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads [default: the number of cores]
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RobotsArgs {
    /// The robots.txt file
    pub file: PathBuf,
    /// The URL (or path) to check
    pub url: String,
    /// The product token to check for, e.g. `SereneReader`
    #[arg(long, value_name = "TOKEN")]
    pub agent: String,
    /// Ignore the `*` group, as profiles do for feed URLs when their page says so (SR8)
    #[arg(long)]
    pub ignore_star: bool,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Feed URLs, or the URL of a site or page: its feeds are found (the ones it declares;
    /// under a profile that lists "discovery", also its feed links and common feed paths)
    #[arg(required = true, value_name = "URL")]
    pub urls: Vec<String>,
    /// Subscribe without reading the feeds now
    #[arg(long)]
    pub no_fetch: bool,
    /// When a page names several feeds: subscribe to every one
    #[arg(long, conflicts_with = "pick")]
    pub all: bool,
    /// When a page names several feeds: subscribe to these, by their number in the list
    /// `add` prints (1, 2, …; repeat or separate with commas)
    #[arg(long, value_name = "N", value_delimiter = ',')]
    pub pick: Vec<usize>,
    #[command(flatten)]
    pub account: AccountArgs,
    /// With --user: the folder to file the feeds under
    #[arg(long, value_name = "NAME", requires = "user")]
    pub folder: Option<String>,
}

/// Whose subscriptions a command works on.
#[derive(Debug, Args)]
pub struct AccountArgs {
    /// The account whose subscriptions these are (with its reading state); without it, the
    /// command line's own subscriptions, which keep feeds read and have no reading state
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
}

#[derive(Debug, Args)]
pub struct FeedsArgs {
    /// Print JSON instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EntriesArgs {
    /// Only entries of this feed id
    #[arg(long, value_name = "ID")]
    pub feed: Option<i64>,
    /// Only entries since a time: RFC 3339, a date (2026-11-30) or an age (90m, 24h, 7d)
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Full-text search in titles and summaries
    #[arg(long, value_name = "QUERY")]
    pub search: Option<String>,
    /// Only entries filed under this category (case does not matter)
    #[arg(long, value_name = "NAME")]
    pub category: Option<String>,
    /// Also entries past their `dcterms:valid` end, or whose feed's end passed (FF16)
    #[arg(long)]
    pub expired: bool,
    /// At most this many entries
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Print JSON lines (one entry per line) instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FeedArgs {
    /// The feed id (see `tidings feeds`)
    pub feed: i64,
    /// Read it from this local address, one of the configured ones (--egress-address)
    #[arg(long, value_name = "ADDR", conflicts_with = "default_egress")]
    pub egress: Option<String>,
    /// Read it from the system's own address again
    #[arg(long)]
    pub default_egress: bool,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The feed id (see `tidings feeds`)
    pub feed: i64,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only requests to this host (`example.org`, or a host key like `https://example.org:443`)
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Only requests for this feed id
    #[arg(long, value_name = "ID")]
    pub feed: Option<i64>,
    /// At most this many rows, newest first
    #[arg(long, default_value_t = 100)]
    pub limit: u32,
    /// Print JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportOpmlArgs {
    /// The OPML file
    pub file: PathBuf,
    /// With --user, each feed is filed under its OPML folder
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Debug, Args)]
pub struct ExportOpmlArgs {
    /// Write to this file instead of standard output
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With --user, only the account's subscriptions, with its folders and titles
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// Feed files to parse
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// One JSON object per line, with `path`, `ok`, `error` and `warnings`
    #[arg(long)]
    pub jsonl: bool,
    /// Base URL for relative links
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Charset hint, as an HTTP Content-Type would give it
    #[arg(long, value_name = "LABEL")]
    pub charset: Option<String>,
}
