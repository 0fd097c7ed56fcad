//! Serve a seeded mixed web on 127.0.0.x for a by-hand run of `tidings crawl`, then audit what
//! the crawler did there when it is stopped with Ctrl-C.
//!
//! ```text
//! cargo run -p tidings-sim --example sim_web -- --hosts 40 --feeds-per-host 5 --scale 60
//! ```
//!
//! It writes `feeds.opml` and `tidings.toml` (the `--resolve` entries and the database) into
//! `--dir` and prints the commands to import the feeds and crawl them on a clock `--scale`
//! times faster than real time, the same scale as the web's own clock.
//!
//! Options: `--seed N` (7), `--hosts N` (40), `--feeds-per-host N` (5), `--scale N` (60),
//! `--agent TOKEN` (the profile's robots.txt token, `tidings`), `--gap SECONDS` (the profile's
//! host gap, 1), `--dir PATH` (`./sim-web`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};
use tidings_sim::{Expectations, Scenario, SimClock, TimeBase, Web, audit};

struct Options {
    seed: u64,
    hosts: usize,
    feeds_per_host: usize,
    scale: u32,
    agent: String,
    gap: f64,
    dir: PathBuf,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        seed: 7,
        hosts: 40,
        feeds_per_host: 5,
        scale: 60,
        agent: "tidings".into(),
        gap: 1.0,
        dir: PathBuf::from("sim-web"),
    };
    let mut args = args.peekable();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |what: &str| format!("{flag}: {value:?} is not {what}");
        match flag.as_str() {
            "--seed" => o.seed = value.parse().map_err(|_| number("a number"))?,
            "--hosts" => o.hosts = value.parse().map_err(|_| number("a number"))?,
            "--feeds-per-host" => {
                o.feeds_per_host = value.parse().map_err(|_| number("a number"))?;
            }
            "--scale" => o.scale = value.parse().map_err(|_| number("a number"))?,
            "--agent" => o.agent = value,
            "--gap" => o.gap = value.parse().map_err(|_| number("a number of seconds"))?,
            "--dir" => o.dir = PathBuf::from(value),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if o.hosts == 0 || o.hosts > 253 {
        return Err("--hosts must be between 1 and 253 (one loopback address each)".into());
    }
    if o.scale == 0 || !(0.0..=86_400.0).contains(&o.gap) {
        return Err("--scale must be at least 1 and --gap between 0 and 86400".into());
    }
    Ok(o)
}

/// An OPML subscription list of every feed.
fn opml(urls: &[String]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n\
         <head><title>simulated web</title></head>\n<body>\n",
    );
    for url in urls {
        out.push_str(&format!(
            "  <outline type=\"rss\" text=\"{url}\" xmlUrl=\"{url}\"/>\n"
        ));
    }
    out.push_str("</body>\n</opml>\n");
    out
}

#[tokio::main]
async fn main() -> ExitCode {
    let o = match parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("sim_web: {e}");
            return ExitCode::from(2);
        }
    };
    match run(o).await {
        Ok(clean) if clean => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sim_web: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(o: Options) -> Result<bool, String> {
    let scenario = Scenario::mixed(o.seed, o.hosts, o.feeds_per_host, &o.agent);
    // The web's clock starts now and runs as fast as the crawler's `--time-scale` clock.
    let web = Web::start_with(
        scenario.hosts.clone(),
        SimClock::scaled(SystemTime::now(), o.scale),
    )
    .await
    .map_err(|e| e.to_string())?;
    let urls: Vec<String> = scenario
        .feeds
        .iter()
        .filter_map(|(host, path)| web.url(host, path))
        .collect();
    std::fs::create_dir_all(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    let opml_path = o.dir.join("feeds.opml");
    std::fs::write(&opml_path, opml(&urls)).map_err(|e| e.to_string())?;
    let config_path = o.dir.join("tidings.toml");
    let resolve: Vec<String> = web
        .resolve_args()
        .iter()
        .map(|r| format!("  {r:?},"))
        .collect();
    let db = o.dir.join("tidings.db");
    std::fs::write(
        &config_path,
        format!(
            "db = {:?}\nresolve = [\n{}\n]\n",
            db.display().to_string(),
            resolve.join("\n")
        ),
    )
    .map_err(|e| e.to_string())?;
    println!(
        "serving {} hosts and {} feeds (seed {}), scenario clock {}x real time",
        o.hosts,
        urls.len(),
        o.seed,
        o.scale
    );
    let config = config_path.display();
    println!("in another terminal:");
    println!(
        "  tidings --config {config} import-opml {}",
        opml_path.display()
    );
    println!("  tidings --config {config} --time-scale {} crawl", o.scale);
    println!("then stop both with Ctrl-C; this side audits every request it saw.");

    tokio::signal::ctrl_c()
        .await
        .map_err(|e| format!("waiting for Ctrl-C: {e}"))?;
    // Requests still in flight end within a second or two.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let exchanges = web.recorder().exchanges();
    let mut expect = Expectations {
        default_gap: Duration::from_secs_f64(o.gap),
        gap_clock: TimeBase::Scenario,
        robots_first: web.host_names(),
        robots: scenario.robots_rules(&o.agent),
        dates_on_wall: web.clock().follows_real_time(),
        ..Expectations::default()
    };
    for (host, rules) in &expect.robots {
        if let Some(delay) = rules.crawl_delay {
            let gap = delay.max(expect.default_gap);
            expect.gaps.insert(host.clone(), gap);
        }
    }
    let violations = audit(&exchanges, &expect);
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    for e in &exchanges {
        let key = e.status.map_or("no answer".into(), |s| s.to_string());
        *statuses.entry(key).or_default() += 1;
    }
    let scenario_time = web.clock().elapsed();
    println!(
        "\n{} requests in {:.1} h of scenario time; by status: {}",
        exchanges.len(),
        scenario_time.as_secs_f64() / 3600.0,
        statuses
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("{} violations", violations.len());
    for v in &violations {
        println!("  {v}");
    }
    Ok(violations.is_empty())
}
