//! `tidings crawl` end to end against a local publisher, with `--time-scale` so hours of
//! crawler time pass in seconds: reads at the feed's interval, stops at `--for`, stops
//! gracefully on SIGTERM, and a restart does not reset the schedule.

mod support;

use std::time::Duration;
use support::{Publisher, Resource, command, rss, stderr, stdout, tidings};

/// Crawler time an hour per real second.
const SCALE: &str = "3600";

async fn feed_requests(publisher: &Publisher) -> usize {
    publisher
        .seen()
        .iter()
        .filter(|s| s.path == "/feed.xml")
        .count()
}

/// The default profile reading exactly hourly: without the feed's own rhythm (PF8) and
/// jitter, which would move the reads these tests count.
const HOURLY: &str = "name = \"hourly\"\nuser_agent = \"tidings-test/{version}\"\n\
                      [hints]\nadaptive = false\njitter = 0.0\n";

/// A publisher with one feed, subscribed without a read; the database is next to an
/// `hourly.toml` profile, passed with `--profile`.
async fn setup(dir: &std::path::Path) -> (Publisher, std::path::PathBuf) {
    let db = dir.join("t.db");
    std::fs::write(dir.join("hourly.toml"), HOURLY).unwrap();
    let publisher = Publisher::start().await;
    publisher.set("/feed.xml", Resource::feed(rss("alpha", 1, 3), "\"a1\""));
    let out = tidings(
        &db,
        &[
            "--allow-private-networks",
            "add",
            "--no-fetch",
            &publisher.url("/feed.xml"),
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    (publisher, db)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_for_reads_at_the_interval_then_exits_and_a_restart_keeps_the_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let (publisher, db) = setup(dir.path()).await;
    let profile = dir
        .path()
        .join("hourly.toml")
        .to_string_lossy()
        .into_owned();
    let crawl = |span: &'static str| {
        let db = db.clone();
        let profile = profile.clone();
        async move {
            tidings(
                &db,
                &[
                    "--allow-private-networks",
                    "--profile",
                    &profile,
                    "--time-scale",
                    SCALE,
                    "crawl",
                    "--for",
                    span,
                ],
            )
            .await
        }
    };

    // The default profile reads hourly: at 0h, 1h, 2h and 3h of three and a half hours.
    let out = crawl("210m").await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(feed_requests(&publisher).await, 4);
    assert!(
        stdout(&out).contains("crawl stopped: 4 feeds read (ok 1, not modified 3, failed 0)"),
        "{}",
        stdout(&out)
    );
    // The log line per round (stderr is not a terminal here).
    assert!(stderr(&out).contains("crawl: "), "{}", stderr(&out));

    // Started again, the crawler's time starts over but the stored next read is still ahead:
    // half an hour of crawling reads nothing.
    let out = crawl("30m").await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        feed_requests(&publisher).await,
        4,
        "no read before its time"
    );
    assert!(
        stdout(&out).contains("crawl stopped: 0 feeds read"),
        "{}",
        stdout(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_gracefully_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (publisher, db) = setup(dir.path()).await;
    let child = command(&db)
        .args(["--allow-private-networks", "--time-scale", SCALE, "crawl"])
        .arg("--profile")
        .arg(dir.path().join("hourly.toml"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    // Two hourly reads: about a second of real time.
    for _ in 0..600 {
        if feed_requests(&publisher).await >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(feed_requests(&publisher).await >= 2);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("crawl exits after SIGTERM")
        .unwrap();
    assert!(out.status.success(), "{:?} {}", out.status, stderr(&out));
    assert!(stdout(&out).contains("crawl stopped: "), "{}", stdout(&out));
    assert!(stderr(&out).contains("stopping"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_scale_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = tidings(
        &dir.path().join("t.db"),
        &["--time-scale", "0", "crawl", "--for", "1m"],
    )
    .await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--time-scale must be at least 1"),
        "{}",
        stderr(&out)
    );
}
