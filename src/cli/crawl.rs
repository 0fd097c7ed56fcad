//! `tidings crawl [--for DURATION]`: read feeds as they fall due until stopped.
//!
//! On a terminal a live status line goes to stderr; otherwise one log line per round of work.
//! SIGINT or SIGTERM stops gracefully (no new read starts, reads in flight finish and are
//! stored) and prints a summary; a second SIGINT quits at once. Every read is stored in one
//! transaction, and the schedule lives in the store, so a crawl started again goes on where
//! this one stopped.

use super::commands::Context;
use super::terminal::visible;
use anyhow::{Result, bail};
use chrono::{DateTime, Utc};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tidings_crawler::{CrawlState, CrawlUntil, Crawler, FeedReport, Progress};
use tidings_fetch::Fetcher;
use tokio::sync::watch;

#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Stop after this long in crawler time (30s, 10m, 2h, 1d); without it, run until stopped
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    pub for_: Option<Duration>,
}

/// `tidings crawl`.
pub async fn run(ctx: &Context, args: CrawlArgs) -> Result<ExitCode> {
    let settings = &ctx.settings;
    let crawler = Crawler::new(
        ctx.store.clone(),
        Arc::new(Fetcher::new(settings.fetch.clone())?),
        Arc::new(settings.profile.clone()),
        settings.crawler.clone(),
    );
    let started = Instant::now();
    let deadline = match args.for_ {
        Some(d) => Some(crawler.now() + chrono::Duration::from_std(d)?),
        None => None,
    };
    let (stop, stopped) = watch::channel(false);
    tokio::spawn(signals(stop));
    let status = Arc::new(Status::new(crawler.clone()));
    // Keep "next due in" current while the crawler sleeps.
    let ticker = status.bar.is_some().then(|| {
        let status = status.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                status.refresh();
            }
        })
    });
    let summary = crawler
        .crawl(
            CrawlUntil {
                stop: stopped,
                deadline,
            },
            status.clone(),
        )
        .await?;
    if let Some(ticker) = ticker {
        ticker.abort();
    }
    status.finish();
    let counts = status.counts();
    println!(
        "crawl stopped: {} feeds read (ok {}, not modified {}, failed {}), {} feed requests, \
         {} new entries, {} updated entries ({:.1}s)",
        summary.feeds,
        summary.fetched,
        summary.not_modified,
        summary.failed,
        counts.requests,
        summary.new_entries,
        summary.updated_entries,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Stop on the first SIGINT or SIGTERM; quit at once on a second SIGINT.
pub(super) async fn signals(stop: watch::Sender<bool>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            tracing::warn!("cannot listen for signals; stop with --for");
            return;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        eprintln!("stopping: reads in flight finish (interrupt again to quit at once)");
        let _ = stop.send(true);
        int.recv().await;
        eprintln!("quitting at once");
        std::process::exit(130);
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping: reads in flight finish (interrupt again to quit at once)");
            let _ = stop.send(true);
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    }
}

/// `30s`, `10m`, `2h`, `1d` (a bare number is seconds).
pub(super) fn parse_duration(input: &str) -> Result<Duration> {
    let s = input.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let unit_secs: u64 = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    match n.parse::<u64>() {
        Ok(n) if unit_secs > 0 && n > 0 && n <= 100 * 365 * 86_400 / unit_secs => {
            Ok(Duration::from_secs(n * unit_secs))
        }
        _ => bail!(
            "cannot read {input:?} as a duration: use a number with s, m, h or d, like 30s or 2h"
        ),
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    read: u64,
    ok: u64,
    not_modified: u64,
    failed: u64,
    requests: u64,
    state: CrawlState,
}

/// The live status line (terminal) or a log line per round (otherwise).
struct Status {
    crawler: Crawler,
    bar: Option<ProgressBar>,
    counts: Mutex<Counts>,
    /// Feeds read when the last log line was printed.
    logged: Mutex<u64>,
}

impl Status {
    fn new(crawler: Crawler) -> Status {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Status {
            crawler,
            bar,
            counts: Mutex::new(Counts::default()),
            logged: Mutex::new(0),
        }
    }

    fn counts(&self) -> Counts {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn line(&self, c: &Counts) -> String {
        let next = match c.state.next_due {
            None => "nothing scheduled".to_string(),
            Some(at) => format!("next due {}", until(at, self.crawler.now())),
        };
        format!(
            "{} feeds read: ok {}, 304/unchanged {}, failed {}; {} feed requests; {} hosts busy, \
             {} waiting; {next}",
            c.read,
            c.ok,
            c.not_modified,
            c.failed,
            c.requests,
            c.state.hosts_busy,
            c.state.hosts_waiting
        )
    }

    fn refresh(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(self.line(&self.counts()));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Status {
    fn found(&self, _total: usize) {}

    fn done(&self, report: &FeedReport) {
        let counts = {
            let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            c.read += 1;
            match (report.is_success(), report.outcome.is_not_modified()) {
                (false, _) => c.failed += 1,
                (true, true) => c.not_modified += 1,
                (true, false) => c.ok += 1,
            }
            if report.outcome.was_sent() {
                c.requests += 1;
            }
            *c
        };
        if let Some(bar) = &self.bar {
            bar.set_message(self.line(&counts));
            if let Some(error) = &report.error {
                bar.suspend(|| {
                    eprintln!(
                        "feed {} {}: {}",
                        report.feed_id,
                        visible(&report.url),
                        visible(error)
                    )
                });
            }
        }
    }

    fn state(&self, state: &CrawlState) {
        let counts = {
            let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            c.state = *state;
            *c
        };
        match &self.bar {
            Some(bar) => bar.set_message(self.line(&counts)),
            None => {
                let mut logged = self.logged.lock().unwrap_or_else(|p| p.into_inner());
                if *logged != counts.read && state.hosts_busy == 0 {
                    *logged = counts.read;
                    eprintln!("crawl: {}", self.line(&counts));
                }
            }
        }
    }
}

/// `in 59m`, `now`.
fn until(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (at - now).num_seconds();
    match secs {
        ..=0 => "now".into(),
        1..60 => format!("in {secs}s"),
        60..3600 => format!("in {}m", secs / 60),
        3600..86_400 => format!("in {}h{:02}m", secs / 3600, secs % 3600 / 60),
        _ => format!("in {}d{:02}h", secs / 86_400, secs % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit() {
        for (input, secs) in [
            ("30s", 30),
            ("10m", 600),
            ("2h", 7200),
            ("1d", 86_400),
            ("45", 45),
        ] {
            assert_eq!(
                parse_duration(input).unwrap(),
                Duration::from_secs(secs),
                "{input}"
            );
        }
        for bad in ["", "0s", "2w", "h", "-1m", "1.5h", "99999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
