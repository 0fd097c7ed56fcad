//! tidings' real scheduling policy, run in virtual time against a modelled web.
//!
//! No sockets, no database: a [`web::Web`] of hosts and feeds drawn from a seed answers
//! requests with [`tidings_model::FetchOutcome`]s; a virtual-time driver ([`engine`]) runs
//! every read of every feed through the read machine the crawler runs (`tidings_read`: the
//! same step order, robots.txt on real text, floors, gaps, the FF11 pause, WFM5, the
//! decision); an independent [`audit`]or counts every politeness violation. [`simulate`]
//! returns a [`Report`].
//!
//! Hosts are independent, so they are split across threads, and each thread works one host
//! through a whole virtual day before the next (so the host's data stays in the cache); the
//! result depends neither on the number of threads nor on that order. What is not modelled:
//! the crawler's `host_concurrency` limit (every host is worked as soon as it is due),
//! redirects, do-not-crawl rules, body sizes, parsing.
//!
//! Reading order: [`rng`], [`web`], [`target`], [`engine`], [`audit`], [`report`]; [`script`]
//! writes a web out by hand, to compare this driver with the crawler's.

pub mod audit;
pub mod engine;
pub mod report;
pub mod rng;
pub mod script;
pub mod target;
pub mod web;

pub use audit::Violations;
pub use report::{BusiestHost, FeedStates, NotSent, Report};

use std::sync::Mutex;
use std::time::Instant;
use tidings_policy::Profile;

/// The size of a simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub feeds: u32,
    pub hosts: u32,
    pub days: u32,
    pub seed: u64,
    /// Worker threads (at least 1); hosts are shared out among them.
    pub threads: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            feeds: 1_000_000,
            hosts: 50_000,
            days: 7,
            seed: 1,
            threads: 2,
        }
    }
}

/// Why a simulation cannot run.
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigError(pub &'static str);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Run a simulation. `day_done(d)` is called once for each virtual day `d` every thread has
/// finished (from any thread).
pub fn simulate(
    config: &Config,
    profile: &Profile,
    day_done: &(dyn Fn(u32) + Sync),
) -> Result<Report, ConfigError> {
    if config.hosts == 0 || config.feeds == 0 {
        return Err(ConfigError("feeds and hosts must be at least 1"));
    }
    if config.days == 0 {
        return Err(ConfigError("days must be at least 1"));
    }
    let started = Instant::now();
    let threads = config.threads.clamp(1, config.hosts);
    let web = web::Web::new(
        web::WebShape {
            feeds: config.feeds,
            hosts: config.hosts,
            seed: config.seed,
        },
        &profile.robots.token,
    );
    // Progress: a day is done when every thread has done it.
    let progress = Mutex::new((vec![0u32; threads as usize], 0u32));
    let outcomes: Vec<ShardResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let web = &web;
                let progress = &progress;
                scope.spawn(move || {
                    let mut shard = engine::Shard::new(web, profile, config.days, index, threads);
                    shard.run(&|day| {
                        let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                        p.0[index as usize] = day;
                        let all = p.0.iter().copied().min().unwrap_or(0);
                        if all > p.1 {
                            p.1 = all;
                            day_done(all);
                        }
                    });
                    ShardResult::of(&shard)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let wall = started.elapsed();
    Ok(merge(config, profile, threads, &outcomes, wall))
}

struct ShardResult {
    counts: report::Counts,
    violations: Violations,
    finals: (u64, u64, u64),
    busiest: Option<(u32, u64, u64, Option<i64>)>,
    machine: std::time::Duration,
}

impl ShardResult {
    fn of(shard: &engine::Shard<'_>) -> ShardResult {
        ShardResult {
            counts: shard.counts.clone(),
            violations: shard.auditor.violations,
            finals: shard.finals(),
            busiest: shard.busiest(),
            machine: shard.machine_estimate,
        }
    }
}

fn merge(
    config: &Config,
    profile: &Profile,
    threads: u32,
    shards: &[ShardResult],
    wall: std::time::Duration,
) -> Report {
    let mut counts = report::Counts::default();
    let mut violations = Violations::default();
    let mut feeds_final = FeedStates::default();
    let mut machine = std::time::Duration::ZERO;
    let mut busiest: Option<(u32, u64, u64, Option<i64>)> = None;
    for s in shards {
        counts.add(&s.counts);
        violations.add(&s.violations);
        feeds_final.active += s.finals.0;
        feeds_final.off += s.finals.1;
        feeds_final.failing += s.finals.2;
        machine += s.machine;
        if let Some(b) = s.busiest
            && busiest.is_none_or(|o| (b.2, std::cmp::Reverse(b.0)) > (o.2, std::cmp::Reverse(o.0)))
        {
            busiest = Some(b);
        }
    }
    let days = f64::from(config.days);
    let requests: u64 = counts.by_outcome.iter().sum();
    let feed_requests = requests - counts.of(report::Outcome::Robots);
    let share = |n: u64| {
        if feed_requests == 0 {
            0.0
        } else {
            n as f64 / feed_requests as f64
        }
    };
    let not_modified = counts.of(report::Outcome::NotModified);
    let by_outcome = counts.labelled();
    let wall_secs = wall.as_secs_f64();
    Report {
        profile: profile.name.clone(),
        feeds: config.feeds,
        hosts: config.hosts,
        days: config.days,
        seed: config.seed,
        threads,
        requests,
        requests_per_day: requests as f64 / days,
        requests_per_day_by_outcome: by_outcome
            .iter()
            .map(|(&k, &v)| (k, v as f64 / days))
            .collect(),
        requests_by_outcome: by_outcome,
        share_304: share(not_modified),
        share_unchanged: share(not_modified + counts.of(report::Outcome::Unchanged)),
        refused_403_by_day: counts.refused_403_by_day.clone(),
        second_attempts: counts.second_attempts,
        not_sent: NotSent {
            postponed_by_host_floor: counts.postponed,
            denied_by_robots: counts.robots_denied,
            deferred_by_robots: counts.robots_deferred,
            set_aside_by_crawl_delay: counts.paused_by_crawl_delay,
        },
        busiest_host: busiest.map(|(id, feeds, requests, gap)| BusiestHost {
            host: format!("host{id}.test"),
            feeds,
            requests,
            requests_per_day: requests as f64 / days,
            min_gap_secs: gap.map(|g| g as f64 / 1000.0),
        }),
        violations_total: violations.total(),
        violations,
        feeds_final,
        reads: counts.reads,
        machine_share: if wall_secs > 0.0 {
            machine.as_secs_f64() / (wall_secs * f64::from(threads))
        } else {
            0.0
        },
        wall_secs,
        peak_rss_bytes: report::peak_rss_bytes(),
    }
}

#[cfg(test)]
mod tests;
