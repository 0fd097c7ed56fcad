//! The commands that use the store: add, fetch, feeds, entries, import-opml, export-opml.

use super::args::{
    AddArgs, EntriesArgs, ExportOpmlArgs, FeedArgs, FeedsArgs, ImportOpmlArgs, LogArgs, ResumeArgs,
};
use super::progress::Bar;
use super::settings::{CLI_SUBSCRIBER, Settings};
use super::terminal::{count, json, one_line, visible};
use super::time::parse_since;
use anyhow::{Context as _, Result};
use chrono::{DateTime, Utc};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tidings_crawler::operator::{self, Listing};
use tidings_crawler::{Crawler, NoProgress};
use tidings_feed::opml;
use tidings_fetch::Fetcher;
use tidings_model::{FeedId, FeedUrl};
use tidings_store::{EntryQuery, FeedRecord, FeedState, LogQuery, Placement, Store, Subscriber};

/// What every command gets.
pub struct Context {
    pub store: Arc<dyn Store>,
    pub settings: Arc<Settings>,
}

impl Context {
    pub(super) fn crawler(&self) -> Result<Crawler> {
        let fetcher = Fetcher::new(self.settings.fetch.clone())?;
        Ok(Crawler::new(
            self.store.clone(),
            Arc::new(fetcher),
            Arc::new(self.settings.profile.clone()),
            self.settings.crawler.clone(),
        ))
    }
}

/// `tidings add URL...`: subscribe, then read each new feed once.
pub async fn add(ctx: &Context, args: AddArgs) -> Result<ExitCode> {
    let crawler = ctx.crawler()?;
    let account = match &args.account.user {
        Some(name) => Some(super::users::account_id(ctx, name).await?),
        None => None,
    };
    let placement = Placement {
        title: None,
        folder: args.folder.clone(),
    };
    let who = match account {
        Some(id) => Subscriber::Account {
            id,
            placement: &placement,
        },
        None => Subscriber::Named(CLI_SUBSCRIBER),
    };
    let mut failed = false;
    let mut urls = Vec::new();
    for raw in &args.urls {
        match FeedUrl::parse(raw) {
            Ok(url) => urls.push(url),
            Err(e) => {
                // The parse error quotes the input too.
                eprintln!("{}", visible(&format!("{raw}: {e}")));
                failed = true;
            }
        }
    }
    // A URL that answers an HTML page gives the feeds it names (FF1), added in a second round.
    let mut round = 0;
    while !urls.is_empty() {
        round += 1;
        let (pages, round_failed) = add_round(ctx, &crawler, &urls, who, &args).await?;
        failed |= round_failed;
        urls = Vec::new();
        for (feed, page) in pages {
            if round > 1 {
                // A feed a page named is itself a page: said, not followed further.
                eprintln!(
                    "{}: an HTML page too, not a feed",
                    visible(feed.url.as_str())
                );
                crawler.page_feeds(feed.id, who, &page, &|_| {}).await?;
                failed = true;
                continue;
            }
            match choose(&crawler, &feed, who, &page, &args).await? {
                Some(chosen) => urls.extend(chosen),
                None => failed = true,
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// One round of `add`: subscribe to `urls` and read the new feeds once. Returns the feeds
/// whose first read found an HTML page (with the page), and whether anything failed.
async fn add_round(
    ctx: &Context,
    crawler: &Crawler,
    urls: &[FeedUrl],
    who: Subscriber<'_>,
    args: &AddArgs,
) -> Result<(
    Vec<(FeedRecord, Box<tidings_crawler::refresh::HtmlPage>)>,
    bool,
)> {
    let mut failed = false;
    let mut to_read = Vec::new();
    let mut new_feeds = Vec::new();
    let mut pages = Vec::new();
    for url in urls {
        // A refused URL (a do-not-crawl rule, a private address) does not stop the others.
        let sub = match crawler.subscribe(url, who).await {
            Ok(sub) => sub,
            Err(e) if is_refusal(&e) => {
                eprintln!("{}", visible(&e.to_string()));
                failed = true;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let feed = ctx
            .store
            .feed(sub.feed_id)
            .await?
            .context("the feed vanished right after it was added")?;
        if to_read.iter().any(|f: &FeedRecord| f.id == feed.id) {
            continue;
        }
        if sub.new_feed {
            new_feeds.push(feed.id);
        }
        if sub.new_feed && args.no_fetch {
            println!(
                "feed {}: {} added, not read now (--no-fetch): the next fetch or a running \
                 crawl reads it",
                feed.id,
                visible(feed.url.as_str())
            );
            continue;
        }
        if feed.last_fetch_at.is_some() || args.no_fetch {
            // A known feed whose last read failed says so, and when it is read again.
            let failed = match &feed.last_error {
                Some(e) if feed.last_fetch_at.is_some() => format!(
                    "; its last read failed: {}; read again {}",
                    visible(e),
                    feed.next_fetch_at.format("%Y-%m-%d %H:%M:%S UTC")
                ),
                _ => String::new(),
            };
            println!(
                "feed {}: {} (already known: {}{failed})",
                feed.id,
                visible(feed.url.as_str()),
                describe(&feed)
            );
            continue;
        }
        to_read.push(feed);
    }
    if !to_read.is_empty() {
        let reports = crawler
            .refresh_feeds(to_read.clone(), Arc::new(NoProgress))
            .await?;
        for r in reports {
            // A new subscription to an HTML page: its feeds are offered instead (FF1).
            if let Some(page) = r.html_page
                && new_feeds.contains(&r.feed_id)
                && let Some(feed) = to_read.iter().find(|f| f.id == r.feed_id)
            {
                pages.push((feed.clone(), page));
                continue;
            }
            match &r.error {
                // Nothing was requested: the host asked everyone to wait (C6) or its work is
                // set aside (FF11). Say so, and when the first read will be.
                None if r.outcome == tidings_model::Label::Postponed => println!(
                    "feed {}: {} added, not read yet: {}; first read at {}",
                    r.feed_id,
                    visible(&r.url),
                    visible(&r.next_fetch_reason),
                    r.next_fetch_at.format("%Y-%m-%d %H:%M:%S UTC")
                ),
                None => println!(
                    "feed {}: {} added, {}",
                    r.feed_id,
                    visible(&r.url),
                    count(r.new_entries, "entry", "entries")
                ),
                Some(e) => {
                    // Kept, so a passing failure mends itself; the way out is said.
                    println!(
                        "feed {}: {} added, but the first read failed: {}. It is kept and read \
                         again at {} ({}); `tidings unsubscribe {}` drops it",
                        r.feed_id,
                        visible(&r.url),
                        visible(e),
                        r.next_fetch_at.format("%Y-%m-%d %H:%M:%S UTC"),
                        visible(&r.next_fetch_reason),
                        r.feed_id
                    );
                    failed = true;
                }
            }
        }
    }
    Ok((pages, failed))
}

/// `tidings fetch`: read everything due once, with a progress bar and a summary.
pub async fn fetch(ctx: &Context) -> Result<ExitCode> {
    let started = Instant::now();
    let bar = Arc::new(Bar::new());
    let crawler = ctx.crawler()?;
    let summary = crawler.refresh_due(crawler.now(), bar.clone()).await?;
    bar.finish();
    println!(
        "{}: fetched {}, not modified {}, failed {}, new entries {}, updated entries {} ({:.1}s)",
        count(summary.feeds, "feed", "feeds"),
        summary.fetched,
        summary.not_modified,
        summary.failed,
        summary.new_entries,
        summary.updated_entries,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// `tidings feeds`.
pub async fn feeds(ctx: &Context, args: FeedsArgs) -> Result<ExitCode> {
    let feeds = ctx.store.feeds().await?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for feed in &feeds {
            writeln!(out, "{}", json(&serde_json::to_string(feed)?))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "   ID  STATE   STATUS  NEXT FETCH           FEED")?;
    let now = Utc::now();
    for feed in &feeds {
        // A feed that is not active is not scheduled: say why instead of when.
        let (next, why) = match feed.state {
            FeedState::Active => (
                relative(feed.next_fetch_at, now),
                feed.next_fetch_reason.as_str(),
            ),
            _ => (
                "-".to_string(),
                feed.state_reason.as_deref().unwrap_or("by an operator"),
            ),
        };
        writeln!(
            out,
            "{:>5}  {:<7} {:>6}  {:<20} {}\n{:>21} {}",
            feed.id,
            state_word(feed),
            feed.last_status.map_or("-".into(), |s| s.to_string()),
            next,
            describe(feed),
            "why:",
            one_line(why),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings entries`.
pub async fn entries(ctx: &Context, args: EntriesArgs) -> Result<ExitCode> {
    let now = Utc::now();
    let query = EntryQuery {
        feed: args.feed.map(FeedId),
        since: args
            .since
            .as_deref()
            .map(|s| parse_since(s, now))
            .transpose()?,
        until: None,
        search: args.search.clone(),
        category: args.category.clone(),
        current_at: (!args.expired).then_some(now),
        subscriber: None,
        after: None,
        limit: args.limit,
    };
    let entries = ctx.store.entries(&query).await?;
    let mut out = std::io::stdout().lock();
    for stored in &entries {
        if args.json {
            writeln!(out, "{}", json(&serde_json::to_string(stored)?))?;
        } else {
            let e = &stored.entry;
            writeln!(
                out,
                "{}  #{:<4} {}  {}",
                stored.sort_at.format("%Y-%m-%d %H:%M"),
                stored.feed_id,
                one_line(e.title.as_deref().unwrap_or("(no title)")),
                visible(e.link.as_deref().unwrap_or("")),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings log`: the request log, newest first.
pub async fn log(ctx: &Context, args: LogArgs) -> Result<ExitCode> {
    let query = LogQuery {
        host: args.host.clone(),
        feed: args.feed.map(FeedId),
        limit: args.limit,
    };
    let rows = ctx.store.request_log(&query).await?;
    let mut out = std::io::stdout().lock();
    for row in &rows {
        if args.json {
            writeln!(out, "{}", json(&serde_json::to_string(row)?))?;
        } else {
            writeln!(
                out,
                "{}  {:<9} {:>4} {:<13} {:>9}B {:>6}ms  {}  [{}]",
                row.at.format("%Y-%m-%d %H:%M:%S"),
                row.purpose,
                row.status.map_or("-".into(), |s| s.to_string()),
                row.outcome,
                row.bytes,
                row.duration_ms,
                visible(&row.url),
                visible(&row.rule),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The crawler refused this one subscription; the others may go on.
/// The feeds to add for a page `feed`'s first read found (FF1): the one it names, or those
/// `--all` / `--pick` choose of several; `None` (said on stderr) when there is none to take.
async fn choose(
    crawler: &Crawler,
    feed: &FeedRecord,
    who: Subscriber<'_>,
    page: &tidings_crawler::refresh::HtmlPage,
    args: &AddArgs,
) -> Result<Option<Vec<FeedUrl>>> {
    let terminal = std::io::stderr().is_terminal();
    let progress = move |c: &tidings_crawler::discover::Checked| {
        if terminal {
            eprintln!("  checked {}: {}", visible(&c.url), visible(&c.reason));
        }
    };
    let found = crawler.page_feeds(feed.id, who, page, &progress).await?;
    let page_url = visible(feed.url.as_str());
    let offers = &found.offers;
    if offers.is_empty() {
        let guessed = match &found.discovery {
            Some(d) => {
                let held = d.feeds.iter().filter(|f| f.held).count();
                format!(
                    "; {} checked{}",
                    count(d.checked.len() as u64, "likely URL", "likely URLs"),
                    if held > 0 {
                        format!(
                            ", {} held for an operator's review as perhaps a feed already stored",
                            count(held as u64, "feed", "feeds")
                        )
                    } else {
                        String::new()
                    }
                )
            }
            None => String::new(),
        };
        eprintln!("{page_url} is an HTML page that names no feed{guessed}; nothing added");
        return Ok(None);
    }
    let list = || -> String {
        offers
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let title = o.title.as_deref().unwrap_or("(no title)");
                format!(
                    "  {}. {} <{}>\n",
                    i + 1,
                    visible(title),
                    visible(o.url.as_str())
                )
            })
            .collect()
    };
    if offers.len() == 1 {
        println!(
            "{page_url} is an HTML page naming one feed: {}",
            visible(offers[0].url.as_str())
        );
        return Ok(Some(vec![offers[0].url.clone()]));
    }
    if args.all {
        println!(
            "{page_url} is an HTML page naming {} feeds: adding all",
            offers.len()
        );
        return Ok(Some(offers.iter().map(|o| o.url.clone()).collect()));
    }
    if !args.pick.is_empty() {
        let mut chosen = Vec::new();
        for &n in &args.pick {
            match offers.get(n.wrapping_sub(1)) {
                Some(o) => chosen.push(o.url.clone()),
                None => {
                    eprint!(
                        "{page_url}: --pick {n} is not in the list (1 to {}):\n{}",
                        offers.len(),
                        list()
                    );
                    return Ok(None);
                }
            }
        }
        return Ok(Some(chosen));
    }
    eprint!(
        "{page_url} is an HTML page naming {} feeds; nothing added. Add one of them, or run \
         again with --pick N or --all:\n{}",
        offers.len(),
        list()
    );
    Ok(None)
}

fn is_refusal(e: &tidings_crawler::CrawlError) -> bool {
    use tidings_crawler::CrawlError;
    matches!(
        e,
        CrawlError::Blocked { .. } | CrawlError::Unreachable { .. }
    )
}

/// `tidings import-opml FILE`: subscribe to every feed listed; they are read on the next fetch.
/// A URL that is refused (a do-not-crawl rule, a private address) is reported and the others
/// are subscribed; the command then exits 1.
pub async fn import_opml(ctx: &Context, args: ImportOpmlArgs) -> Result<ExitCode> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file = args.file.display().to_string();
    let text = String::from_utf8_lossy(&bytes);
    let outlines = opml::read(&text).with_context(|| format!("{}", args.file.display()))?;
    let crawler = ctx.crawler()?;
    let account = match &args.account.user {
        Some(name) => Some(super::users::account_id(ctx, name).await?),
        None => None,
    };
    let (mut new, mut known, mut invalid, mut refused) = (0, 0, 0, 0);
    for outline in outlines {
        let placement = Placement {
            title: None,
            folder: outline.folder.clone(),
        };
        let who = match account {
            Some(id) => Subscriber::Account {
                id,
                placement: &placement,
            },
            None => Subscriber::Named(CLI_SUBSCRIBER),
        };
        match FeedUrl::parse(&outline.xml_url) {
            Ok(url) => match crawler.subscribe(&url, who).await {
                Ok(sub) if sub.new_feed => new += 1,
                Ok(_) => known += 1,
                Err(e) if is_refusal(&e) => {
                    eprintln!("refused {}", visible(&e.to_string()));
                    refused += 1;
                }
                Err(e) => return Err(e.into()),
            },
            Err(e) => {
                eprintln!("skipped {}", visible(&format!("{}: {e}", outline.xml_url)));
                invalid += 1;
            }
        }
    }
    println!(
        "imported {}: {new} new feeds, {known} already known, {invalid} skipped, {refused} refused; \
         run `tidings fetch` to read them",
        visible(&file)
    );
    Ok(if refused > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `tidings export-opml`: every subscribed feed, or with `--user` one account's
/// subscriptions with its folders and titles.
pub async fn export_opml(ctx: &Context, args: ExportOpmlArgs) -> Result<ExitCode> {
    let (title, whose) = match &args.account.user {
        Some(name) => {
            let id = super::users::account_id(ctx, name).await?;
            let title = format!("tidings: the subscriptions of {name}");
            (title, Listing::Account(id))
        }
        None => ("tidings subscriptions".to_owned(), Listing::Everyone),
    };
    let outlines = operator::outlines(ctx.store.as_ref(), whose).await?;
    let doc = opml::write(&title, &outlines);
    match args.output {
        Some(path) => std::fs::write(&path, doc)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().lock().write_all(doc.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `tidings resume FEED`: an operator lifts a pause (PF5–PF7) or an off state.
pub async fn resume(ctx: &Context, args: ResumeArgs) -> Result<ExitCode> {
    let id = FeedId(args.feed);
    let Some(feed) = ctx.store.feed(id).await? else {
        anyhow::bail!("no feed {id}");
    };
    let now = ctx.crawler()?.now();
    if !ctx
        .store
        .resume_feed(id, now, "resumed by an operator")
        .await?
    {
        anyhow::bail!(
            "feed {id} is {}, not paused or off: nothing to resume",
            feed.state.as_str()
        );
    }
    println!(
        "feed {id}: {} resumed (was {}: {}); read at the next fetch",
        describe(&feed),
        feed.state.as_str(),
        one_line(feed.state_reason.as_deref().unwrap_or("no reason stored"))
    );
    Ok(ExitCode::SUCCESS)
}

/// `tidings feed FEED --egress ADDR | --default-egress`: an operator assigns the local address a
/// feed is read from (WFM7): one of the configured ones, never chosen by tidings itself.
pub async fn feed(ctx: &Context, args: FeedArgs) -> Result<ExitCode> {
    let id = FeedId(args.feed);
    let egress = match (&args.egress, args.default_egress) {
        (Some(text), _) => {
            let ip: std::net::IpAddr = text
                .trim()
                .parse()
                .with_context(|| format!("egress {text:?} is not an IP address"))?;
            let configured = &ctx.settings.fetch.egress;
            if !configured.contains(&ip) {
                let known: Vec<String> = configured.iter().map(ToString::to_string).collect();
                anyhow::bail!(
                    "{ip} is not a configured egress address ({}); add it with --egress-address or \
                     `egress = [...]` in tidings.toml",
                    if known.is_empty() {
                        "none is configured".to_owned()
                    } else {
                        known.join(", ")
                    }
                );
            }
            Some(ip.to_string())
        }
        (None, true) => None,
        (None, false) => anyhow::bail!("nothing to change: give --egress ADDR or --default-egress"),
    };
    let Some(before) = ctx.store.feed(id).await? else {
        anyhow::bail!("no feed {id}");
    };
    if before.state == FeedState::Removed {
        anyhow::bail!("feed {id} was removed on request (WFM10) and stays removed");
    }
    let patch = tidings_store::FeedPatch::egress(egress, chrono::Utc::now());
    let Some(after) = ctx.store.patch_feed(id, &patch).await? else {
        anyhow::bail!("no feed {id}");
    };
    println!(
        "feed {id}: {} is read from {}",
        describe(&after),
        after
            .egress
            .as_deref()
            .unwrap_or("the system's own address")
    );
    Ok(ExitCode::SUCCESS)
}

/// The state as `feeds` shows it: a feed paused by a do-not-crawl rule is `blocked`.
pub(super) fn state_word(feed: &FeedRecord) -> &'static str {
    match (&feed.state, &feed.held_by) {
        (FeedState::Paused, Some(_)) => "blocked",
        (state, _) => state.as_str(),
    }
}

pub(super) fn describe(feed: &FeedRecord) -> String {
    match &feed.title {
        Some(t) => format!("{} <{}>", one_line(t), visible(feed.url.as_str())),
        None => visible(feed.url.as_str()).into_owned(),
    }
}

/// `in 5m`, `3h ago`, `now`.
fn relative(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (t - now).num_seconds();
    let human = tidings_policy::schedule::human(secs.unsigned_abs());
    match secs {
        -59..=59 => "now".into(),
        s if s > 0 => format!("in {human}"),
        _ => format!("{human} ago"),
    }
}
