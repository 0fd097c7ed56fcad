//! `tidings simulate`: the real scheduling policy in virtual time against a modelled web of
//! `--feeds` feeds on `--hosts` hosts for `--days` days, with an auditor counting politeness
//! violations. No database, no network.

use super::args::{GlobalArgs, SimulateArgs};
use super::settings;
use anyhow::{Context, Result};
use std::io::IsTerminal;
use std::process::ExitCode;
use tidings_simulate::{Config, Report, simulate};

/// Run the simulation; exit non-zero when any violation was found.
pub fn run(global: &GlobalArgs, args: &SimulateArgs) -> Result<ExitCode> {
    let file = settings::load_file(global)?;
    let profile = settings::resolve_profile(global, &file)?;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let config = Config {
        feeds: args.feeds,
        hosts: args.hosts,
        days: args.days,
        seed: args.seed,
        threads: args.threads.unwrap_or(threads).max(1),
    };
    let terminal = std::io::stderr().is_terminal();
    let days = config.days;
    let report = simulate(&config, &profile, &|day| {
        if terminal {
            eprint!("\rsimulated day {day}/{days}");
            if day == days {
                eprintln!();
            }
        }
    })
    .context("cannot simulate")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", summary(&report));
    }
    Ok(if report.violations_total == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn summary(r: &Report) -> String {
    let mut out = format!(
        "profile {}: {} feeds on {} hosts, {} days (seed {}, {} threads)\n",
        r.profile, r.feeds, r.hosts, r.days, r.seed, r.threads
    );
    out += &format!(
        "requests: {} ({:.0}/day); 304 share {:.1}%, 304 or unchanged {:.1}%\n",
        r.requests,
        r.requests_per_day,
        r.share_304 * 100.0,
        r.share_unchanged * 100.0
    );
    for (label, per_day) in &r.requests_per_day_by_outcome {
        out += &format!("  {label:<14} {per_day:>12.0}/day\n");
    }
    out += &format!(
        "not sent: {} postponed by a host's Retry-After, {} denied and {} deferred by robots.txt\n",
        r.not_sent.postponed_by_host_floor,
        r.not_sent.denied_by_robots,
        r.not_sent.deferred_by_robots
    );
    out += &format!(
        "second attempts after no answer: {} (each after the host's gap)\n",
        r.second_attempts
    );
    if let Some(b) = &r.busiest_host {
        out += &format!(
            "busiest host: {} ({} feeds) {:.0} requests/day, shortest gap {}\n",
            b.host,
            b.feeds,
            b.requests_per_day,
            b.min_gap_secs
                .map_or("-".to_string(), |g| format!("{g:.3}s"))
        );
    }
    out += &format!(
        "feeds at the end: {} active ({} failing), {} off\n",
        r.feeds_final.active, r.feeds_final.failing, r.feeds_final.off
    );
    let v = &r.violations;
    out += &format!(
        "violations: {} (two in flight {}, gap {}, before Retry-After {}, robots disallowed {}, no robots {}, stale robots {}, unconditional {}, too frequent {})\n",
        r.violations_total,
        v.two_in_flight,
        v.gap_too_short,
        v.before_retry_after,
        v.robots_disallowed,
        v.no_robots,
        v.stale_robots,
        v.unconditional,
        v.too_frequent
    );
    out += &format!(
        "reads: {} through the read machine, ~{:.0}% of thread time in its steps\n",
        r.reads,
        r.machine_share * 100.0
    );
    out += &format!(
        "wall {:.1}s, peak RSS {}\n",
        r.wall_secs,
        r.peak_rss_bytes.map_or("unknown".to_string(), |b| format!(
            "{:.0} MiB",
            b as f64 / 1048576.0
        ))
    );
    out
}
