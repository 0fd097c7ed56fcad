//! Loopback crawl throughput: the real crawler (fetcher, robots, parser, policy, SQLite store)
//! against the simulated publisher web of `tidings-sim`, over real sockets on 127.0.0.2–254.
//!
//! ```text
//! cargo bench -p tidings-crawler --bench loopback -- \
//!     --hosts 1000 --feeds 5000 --scenario not-modified --seconds 60
//! cargo bench -p tidings-crawler --bench loopback -- \
//!     --hosts 1000 --feeds 5000 --scenario new-entries --seconds 200
//! ```
//!
//! Every host has its own name (`h0000.sim.test`, …, resolved with the fetcher's fixed
//! resolutions), a robots.txt read once before its first feed, and `--feeds / --hosts` feeds.
//! The profile is the default one with a zero host gap; one request in flight per host stays.
//! Setup subscribes every feed, then a warm-up round reads every robots.txt and every feed once
//! (storing validators and the first entries). The measured phase then repeats rounds of
//! `Crawler::refresh_due` until `--seconds` have passed (a round reads every feed once):
//!
//! - `not-modified`: feeds never change and send an ETag and Last-Modified; every read is a
//!   conditional request answered 304;
//! - `new-entries`: every request sees a new version of the feed whose `--entries` entries
//!   (20 by default) are all new, so each read is a 200 that is parsed and stores them.
//!
//! The load generator (the simulated web) runs on its own tokio runtime whose threads are named
//! `sim`; the crawler runs on another (`crawl`), with sqlx's SQLite worker threads beside it.
//! CPU time is read per thread from `/proc/self/task`, so the crawler's share is reported
//! apart from the load generator's, also per fetch. Request times are the fetcher's own
//! (`duration_ms` of the request log: send to body read, whole milliseconds).
//!
//! `--db postgres://…` stores into that PostgreSQL database instead of a temporary SQLite file
//! (each scenario in a schema of its own, dropped afterwards); the CPU reported is then the
//! crawler's only, not the server's.
//!
//! `--gap SECS` sets the profile's gap between two requests to a host (0 by default), and
//! `--first-pass-only` stops after the first pass, printed against its floor (the busiest
//! host's feeds one after another, the gap between two, in waves of `--concurrency` hosts):
//!
//! ```text
//! cargo bench -p tidings-crawler --bench loopback -- \
//!     --hosts 20 --feeds 2000 --gap 1 --first-pass-only --scenario not-modified
//! ```
//!
//! Without `--bench` (as `cargo test --benches` runs it) it does a small smoke run of both
//! scenarios and fails if any read failed or an entry is missing.

use chrono::Utc;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tidings_crawler::{Crawler, CrawlerConfig, NoProgress, Progress, RunSummary};
use tidings_fetch::{FetchConfig, Fetcher};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tidings_sim::{FeedSpec, HostSpec, Resource, RunningWeb, SimClock, Web};
use tidings_store::{LogQuery, Store};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    NotModified,
    NewEntries,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::NotModified => "not-modified",
            Scenario::NewEntries => "new-entries",
        }
    }
}

#[derive(Debug, Clone)]
struct Args {
    hosts: usize,
    feeds: usize,
    scenarios: Vec<Scenario>,
    seconds: f64,
    entries: u64,
    concurrency: usize,
    sim_threads: usize,
    crawl_threads: usize,
    /// The profile's gap between two requests to a host, in seconds.
    gap: f64,
    /// Only the first pass (robots.txt and every feed once), measured against its floor.
    first_pass_only: bool,
    /// Disallow lines each host's robots.txt has beyond its first (a large site's file has
    /// hundreds).
    robots_lines: usize,
    /// Sum the store's statements' time by statement and print the costliest.
    sql_stats: bool,
    /// A PostgreSQL URL to store into (each scenario in a fresh schema, dropped after);
    /// a SQLite file in a temporary directory when not given.
    db: Option<String>,
    smoke: bool,
}

impl Args {
    fn parse() -> Result<Args, Error> {
        let raw: Vec<String> = std::env::args().skip(1).collect();
        let smoke = !raw.iter().any(|a| a == "--bench");
        let mut args = Args {
            hosts: if smoke { 8 } else { 1000 },
            feeds: if smoke { 24 } else { 5000 },
            scenarios: vec![Scenario::NotModified, Scenario::NewEntries],
            seconds: if smoke { 0.0 } else { 30.0 },
            entries: 20,
            concurrency: tidings_crawler::DEFAULT_HOST_CONCURRENCY,
            sim_threads: 2,
            crawl_threads: 2,
            gap: 0.0,
            first_pass_only: false,
            robots_lines: 0,
            sql_stats: false,
            db: None,
            smoke,
        };
        let mut it = raw.into_iter();
        while let Some(flag) = it.next() {
            if flag == "--bench" {
                continue;
            }
            if flag == "--first-pass-only" {
                args.first_pass_only = true;
                continue;
            }
            if flag == "--sql-stats" {
                args.sql_stats = true;
                continue;
            }
            let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--hosts" => args.hosts = value()?.parse()?,
                "--feeds" => args.feeds = value()?.parse()?,
                "--seconds" => args.seconds = value()?.parse()?,
                "--entries" => args.entries = value()?.parse()?,
                "--concurrency" => args.concurrency = value()?.parse()?,
                "--sim-threads" => args.sim_threads = value()?.parse()?,
                "--crawl-threads" => args.crawl_threads = value()?.parse()?,
                "--gap" => args.gap = value()?.parse()?,
                "--robots-lines" => args.robots_lines = value()?.parse()?,
                "--db" => args.db = Some(value()?),
                "--scenario" => {
                    args.scenarios = match value()?.as_str() {
                        "not-modified" => vec![Scenario::NotModified],
                        "new-entries" => vec![Scenario::NewEntries],
                        "both" => vec![Scenario::NotModified, Scenario::NewEntries],
                        other => return Err(format!("unknown scenario {other}").into()),
                    }
                }
                // Filters and flags cargo or a harness may pass; nothing to select here.
                _ => {}
            }
        }
        if args.hosts == 0 || args.feeds < args.hosts {
            return Err("need at least one host and one feed per host".into());
        }
        Ok(args)
    }
}

fn main() -> Result<(), Error> {
    let args = Args::parse()?;
    if args.sql_stats {
        sql_stats::install();
    }
    for &scenario in &args.scenarios {
        let outcome = run(&args, scenario)?;
        if args.smoke && !outcome {
            return Err(format!("smoke run of {} found problems", scenario.name()).into());
        }
    }
    Ok(())
}

/// One scenario end to end; false when a read failed or entries are missing.
fn run(args: &Args, scenario: Scenario) -> Result<bool, Error> {
    let sim_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.sim_threads.max(1))
        .thread_name("sim")
        .enable_all()
        .build()?;
    let crawl_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.crawl_threads.max(1))
        .thread_name("crawl")
        .enable_all()
        .build()?;

    let specs = hosts(args, scenario);
    let clock = SimClock::scaled(SystemTime::now(), 1);
    let web = sim_rt.block_on(Web::start_with(specs, clock))?;
    let dir = tempfile::tempdir()?;
    let outcome = match &args.db {
        None => {
            let db = dir.path().join("bench.db");
            crawl_rt.block_on(crawl(args, scenario, &web, db.to_string_lossy().as_ref()))?
        }
        Some(base) => crawl_rt.block_on(async {
            let schema = format!(
                "bench_{}_{}",
                std::process::id(),
                scenario.name().replace('-', "_")
            );
            let url = schema_url(base, &schema, &format!("CREATE SCHEMA {schema}")).await?;
            let outcome = crawl(args, scenario, &web, &url).await;
            schema_url(base, &schema, &format!("DROP SCHEMA {schema} CASCADE")).await?;
            outcome
        })?,
    };
    drop(web);
    sim_rt.shutdown_timeout(Duration::from_secs(1));
    crawl_rt.shutdown_timeout(Duration::from_secs(1));
    Ok(outcome)
}

/// The virtual hosts: a robots.txt each and their share of the feeds.
fn hosts(args: &Args, scenario: Scenario) -> Vec<HostSpec> {
    let robots = robots_txt(args.robots_lines);
    let mut hosts: Vec<HostSpec> = (0..args.hosts)
        .map(|h| HostSpec::new(&host_name(h)).at("/robots.txt", Resource::robots(&robots)))
        .collect();
    for f in 0..args.feeds {
        let spec = FeedSpec {
            title: format!("f{f}"),
            // A new version every microsecond of real time: each request sees one no earlier
            // request saw, with `entries` entries none of them carried.
            every: match scenario {
                Scenario::NotModified => None,
                Scenario::NewEntries => Some(Duration::from_micros(1)),
            },
            entries: args.entries,
            new_per_change: args.entries,
        };
        if let Some(host) = hosts.get_mut(f % args.hosts) {
            host.resources.insert(feed_path(f), Resource::feed(spec));
        }
    }
    hosts
}

fn host_name(h: usize) -> String {
    format!("h{h:04}.sim.test")
}

/// A robots.txt that allows the feeds, with `lines` more Disallow lines (some with
/// wildcards, as large sites write them).
fn robots_txt(lines: usize) -> String {
    let mut text = String::from("User-agent: *\nDisallow: /private/\n");
    for i in 0..lines {
        let line = match i % 3 {
            0 => format!("Disallow: /section-{i}/archive/\n"),
            1 => format!("Disallow: /*?session-{i}=\n"),
            _ => format!("Allow: /section-{i}/archive/public$\n"),
        };
        text.push_str(&line);
    }
    text
}

fn feed_path(f: usize) -> String {
    format!("/feed/{f}.xml")
}

/// How many host-lease claims the store has granted so far: every claim moves its host's
/// fencing token by one from 0, so their sum counts them.
async fn lease_claims(db: &str) -> Result<i64, Error> {
    use sqlx::Connection;
    const SQL: &str = "SELECT CAST(COALESCE(SUM(token), 0) AS BIGINT) FROM host_leases";
    let claims = if db.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(db).await?;
        sqlx::query_scalar(SQL).fetch_one(&mut c).await?
    } else {
        let mut c = sqlx::SqliteConnection::connect(&format!("sqlite://{db}")).await?;
        sqlx::query_scalar(SQL).fetch_one(&mut c).await?
    };
    Ok(claims)
}

/// Run `sql` on the database at `base`, and give the URL that stores into `schema` there.
async fn schema_url(base: &str, schema: &str, sql: &str) -> Result<String, Error> {
    use sqlx::Connection;
    let mut admin = sqlx::PgConnection::connect(base).await?;
    sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(&mut admin)
        .await?;
    let separator = if base.contains('?') { '&' } else { '?' };
    Ok(format!(
        "{base}{separator}options=-c%20search_path%3D{schema}"
    ))
}

async fn crawl(args: &Args, scenario: Scenario, web: &RunningWeb, db: &str) -> Result<bool, Error> {
    let names = web.host_names();
    let mut resolve: Vec<(String, u16, SocketAddr)> = Vec::with_capacity(names.len());
    for name in &names {
        let addr = web.addr(name).ok_or("host without address")?;
        resolve.push((name.clone(), addr.port(), addr));
    }
    let ports: HashMap<String, u16> = resolve.iter().map(|(n, p, _)| (n.clone(), *p)).collect();

    let store = tidings_store::open(db).await?;
    let mut config = FetchConfig::new("tidings-bench/1 (+https://tidings.example/bot)");
    config.allow_private_networks = true;
    config.resolve = resolve;
    let mut profile = Profile::embedded("default")?;
    profile.pacing.host_gap = args.gap;
    let crawler = Crawler::new(
        store.clone(),
        Arc::new(Fetcher::new(config)?),
        Arc::new(profile),
        CrawlerConfig {
            host_concurrency: args.concurrency,
            ..CrawlerConfig::default()
        },
    );

    let setup = Instant::now();
    for f in 0..args.feeds {
        let h = f % args.hosts;
        let name = host_name(h);
        let port = ports.get(&name).ok_or("unknown host")?;
        let url = FeedUrl::parse(&format!("http://{name}:{port}{}", feed_path(f)))?;
        crawler.subscribe(&url, "bench").await?;
    }
    let subscribed = setup.elapsed();

    // Past every schedule the crawler writes, so every feed is due in every round.
    let far = Utc::now() + chrono::Duration::days(3650);
    let progress: Arc<dyn Progress> = Arc::new(NoProgress);
    let warm_start = Instant::now();
    let warm = crawler.refresh_due(far, progress.clone()).await?;
    let warm_time = warm_start.elapsed();
    let warm_requests = web.recorder().len();
    // The floor of the first pass: the busiest host's requests (robots.txt and its feeds) one
    // after another with the gap between two, in waves of `concurrency` hosts.
    let per_host = args.feeds.div_ceil(args.hosts);
    let waves = args.hosts.div_ceil(args.concurrency.max(1));
    let floor = args.gap * per_host as f64 * waves as f64;
    println!(
        "first pass: {} feeds and {} robots.txt of {} hosts in {:.2} s; floor {:.2} s \
         ({per_host} feeds per host, gap {} s, {waves} wave(s) of {} hosts): {:.1} % above it",
        warm.feeds,
        args.hosts,
        args.hosts,
        warm_time.as_secs_f64(),
        floor,
        args.gap,
        args.concurrency,
        if floor > 0.0 {
            (warm_time.as_secs_f64() / floor - 1.0) * 100.0
        } else {
            0.0
        }
    );
    if args.first_pass_only {
        return Ok(warm.failed == 0 && warm.feeds == args.feeds as u64);
    }
    web.recorder().clear();
    let entries_before = store.count_entries(None).await?;

    let claims_before = lease_claims(db).await?;
    let load_before = load_average();
    sql_stats::reset();
    let cpu_before = Cpu::read();
    let started = Instant::now();
    let mut total = RunSummary::default();
    let mut requests = 0usize;
    let mut rounds = 0u32;
    loop {
        let summary = crawler.refresh_due(far, progress.clone()).await?;
        rounds += 1;
        total.merge(&summary);
        // The recorder keeps every exchange in memory; count and forget them per round.
        requests += web.recorder().len();
        web.recorder().clear();
        if started.elapsed().as_secs_f64() >= args.seconds {
            break;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_since(Cpu::read(), cpu_before);
    let entries_after = store.count_entries(None).await?;
    let stored = entries_after - entries_before;
    let load_after = load_average();
    let latencies = request_times(&store, total.feeds).await?;

    let per_sec = |n: f64| n / elapsed;
    println!("== loopback crawl: {} ==", scenario.name());
    println!(
        "hosts {} ({} addresses), feeds {}, host concurrency {}, threads sim {} / crawl {}",
        args.hosts,
        args.hosts.min(253),
        args.feeds,
        args.concurrency,
        args.sim_threads,
        args.crawl_threads
    );
    println!(
        "setup: subscribed in {:.1} s; warm-up read {} feeds with {} requests in {:.1} s \
         ({} new entries, {} failed)",
        subscribed.as_secs_f64(),
        warm.feeds,
        warm_requests,
        warm_time.as_secs_f64(),
        warm.new_entries,
        warm.failed
    );
    println!(
        "measured: {rounds} rounds, {} feed reads, {requests} requests seen by the web, \
         {elapsed:.1} s",
        total.feeds
    );
    println!(
        "outcomes: {} not modified, {} fetched (200, parsed), {} failed",
        total.not_modified, total.fetched, total.failed
    );
    println!(
        "throughput: {:.0} fetches/s ({:.0} requests/s on the wire)",
        per_sec(total.feeds as f64),
        per_sec(requests as f64)
    );
    let claims = lease_claims(db).await?.saturating_sub(claims_before);
    println!(
        "host leases: {claims} claims in the measured phase ({:.0}/s)",
        per_sec(claims as f64)
    );
    println!(
        "entries: {} new reported, {stored} rows stored in the measured phase ({:.0}/s), \
         {entries_after} in the store",
        total.new_entries,
        per_sec(stored as f64)
    );
    if let (Some(p50), Some(p99)) = (percentile(&latencies, 0.50), percentile(&latencies, 0.99)) {
        println!(
            "request time (fetcher, whole ms, last {} requests): p50 {p50} ms, p99 {p99} ms",
            latencies.len()
        );
    }
    if let Some(cpu) = cpu {
        let reads = total.feeds.max(1) as f64;
        println!(
            "cpu: crawler+store {:.0} % of one core, load generator {:.0} % \
             (of {elapsed:.1} s wall; 2 cores = 200 %)",
            cpu.crawler / elapsed * 100.0,
            cpu.sim / elapsed * 100.0
        );
        println!(
            "cpu per fetch: crawler+store {:.0} us, load generator {:.0} us",
            cpu.crawler / reads * 1e6,
            cpu.sim / reads * 1e6
        );
    }
    println!("load average (1 min) before / after: {load_before} / {load_after}");
    if args.sql_stats {
        sql_stats::print(reads_of(&total));
    }
    let expected = match scenario {
        Scenario::NotModified => 0,
        Scenario::NewEntries => total.fetched * args.entries,
    };
    Ok(total.failed == 0 && warm.failed == 0 && stored == expected)
}

/// The fetcher's own duration of the last `n` requests (at most 10,000), sorted.
async fn request_times(store: &Arc<dyn Store>, n: u64) -> Result<Vec<i64>, Error> {
    let query = LogQuery {
        host: None,
        feed: None,
        limit: u32::try_from(n.min(10_000)).unwrap_or(10_000),
    };
    let mut v: Vec<i64> = store
        .request_log(&query)
        .await?
        .iter()
        .map(|r| r.duration_ms)
        .collect();
    v.sort_unstable();
    Ok(v)
}

/// The one-minute load average, to show how busy the shared machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split(' ').next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn percentile(sorted: &[i64], q: f64) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted.get(i).copied()
}

/// CPU seconds used by the load generator's threads and by everything else.
struct Cpu {
    total: f64,
    sim: f64,
}

struct CpuUse {
    crawler: f64,
    sim: f64,
}

impl Cpu {
    /// `None` where `/proc` cannot be read.
    fn read() -> Option<Cpu> {
        let total = ticks(&std::fs::read_to_string("/proc/self/stat").ok()?)?.1;
        let mut sim = 0.0;
        for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
                continue;
            };
            if let Some((comm, t)) = ticks(&stat)
                && comm.starts_with("sim")
            {
                sim += t;
            }
        }
        Some(Cpu { total, sim })
    }
}

/// The CPU time used between two readings.
fn cpu_since(after: Option<Cpu>, before: Option<Cpu>) -> Option<CpuUse> {
    let (after, before) = (after?, before?);
    let sim = after.sim - before.sim;
    Some(CpuUse {
        crawler: (after.total - before.total) - sim,
        sim,
    })
}

/// The command name and utime + stime in seconds of a `stat` line (clock ticks of 1/100 s,
/// the Linux default).
fn ticks(stat: &str) -> Option<(String, f64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = stat.get(close + 2..)?.split(' ').collect();
    // After the command: state is field 3 of the line, utime 14 and stime 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((comm, (utime + stime) / 100.0))
}

/// The reads of a measured phase.
fn reads_of(total: &RunSummary) -> u64 {
    total.fetched + total.not_modified + total.failed
}

/// `--sql-stats`: the time SQLite spent on each statement (sqlx's own measure, logged as
/// `sqlx::query` events: from the first step to the last row, on the connection's worker
/// thread), summed by statement over the measured phase.
mod sql_stats {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::{Context, SubscriberExt};

    /// Statement → (count, seconds).
    static SEEN: LazyLock<Mutex<HashMap<String, (u64, f64)>>> = LazyLock::new(Mutex::default);

    struct Statements;

    #[derive(Default)]
    struct Fields {
        sql: Option<String>,
        secs: f64,
    }

    impl Visit for Fields {
        fn record_str(&mut self, field: &Field, value: &str) {
            if field.name() == "db.statement" || (field.name() == "summary" && self.sql.is_none()) {
                self.sql = Some(value.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
        fn record_f64(&mut self, field: &Field, value: f64) {
            if field.name() == "elapsed_secs" {
                self.secs = value;
            }
        }
        fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
    }

    impl<S: tracing::Subscriber> Layer<S> for Statements {
        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            if event.metadata().target() != "sqlx::query" {
                return;
            }
            let mut fields = Fields::default();
            event.record(&mut fields);
            let Some(sql) = fields.sql else { return };
            let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
            let slot = seen.entry(sql).or_default();
            slot.0 += 1;
            slot.1 += fields.secs;
        }
    }

    pub fn install() {
        let subscriber = tracing_subscriber::registry()
            .with(Statements.with_filter(tracing_subscriber::filter::LevelFilter::DEBUG));
        if tracing::subscriber::set_global_default(subscriber).is_err() {
            eprintln!("--sql-stats: a tracing subscriber is already installed");
        }
    }

    pub fn reset() {
        SEEN.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    pub fn print(reads: u64) {
        let seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let mut rows: Vec<(&String, &(u64, f64))> = seen.iter().collect();
        rows.sort_by(|a, b| b.1.1.total_cmp(&a.1.1));
        let total: f64 = rows.iter().map(|r| r.1.1).sum();
        let reads = reads.max(1) as f64;
        println!(
            "sql: {:.2} s in statements, {:.0} us per read; costliest first (count, per read, us each, statement):",
            total,
            total / reads * 1e6
        );
        for (sql, (n, secs)) in rows.iter().take(15) {
            let shown: String = sql.chars().take(110).collect();
            println!(
                "  {n:>8} {:>6.2} {:>8.1} us  {shown}",
                *n as f64 / reads,
                secs / *n as f64 * 1e6
            );
        }
    }
}
