//! `tidings simulate`: the real policy in virtual time at a small size, with `--json`; no
//! database is opened, and the exit code says whether the auditor found a violation.

mod support;

use support::{stderr, stdout, tidings};

/// C3, C4, C6, FF11: a small modelled web is crawled without violation, and the report
/// carries its figures.
#[tokio::test]
async fn c3_simulate_reports_figures_and_no_violation_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("never-created.db");
    let out = tidings(
        &db,
        &[
            "simulate", "--feeds", "2000", "--hosts", "200", "--days", "2", "--seed", "5", "--json",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!db.exists(), "simulate needs no database");
    let r: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(r["profile"], "default");
    assert_eq!(r["feeds"], 2000);
    assert_eq!(r["hosts"], 200);
    assert_eq!(r["days"], 2);
    assert_eq!(r["violations_total"], 0, "{r:#}");
    assert_eq!(r["violations"]["gap_too_short"], 0);
    let requests = r["requests"].as_u64().unwrap();
    assert!(requests > 10_000, "{r:#}");
    assert_eq!(
        r["requests_per_day"].as_f64().unwrap(),
        requests as f64 / 2.0
    );
    assert!(r["requests_by_outcome"]["not_modified"].as_u64().unwrap() > 0);
    let share = r["share_304"].as_f64().unwrap();
    assert!(share > 0.0 && share < 1.0, "{share}");
    let busiest = &r["busiest_host"];
    assert!(busiest["requests_per_day"].as_f64().unwrap() > 0.0);
    assert!(
        busiest["min_gap_secs"].as_f64().unwrap() >= 1.0,
        "{busiest:#}"
    );
    let states = &r["feeds_final"];
    assert_eq!(
        states["active"].as_u64().unwrap() + states["off"].as_u64().unwrap(),
        2000
    );
    assert!(r["wall_secs"].as_f64().unwrap() > 0.0);
    assert!(r["peak_rss_bytes"].as_u64().unwrap() > 0);
}

/// DFB4: the global `--profile` is the one simulated; its 2-second gap is what the busiest
/// host sees, and the readable summary names the figures.
#[tokio::test]
async fn dfb4_simulate_runs_the_chosen_profile() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("slow.toml");
    std::fs::write(
        &profile,
        "name = \"slow\"\nuser_agent = \"slow/{version}\"\n[pacing]\nhost_gap = 2\n",
    )
    .unwrap();
    let out = tidings(
        &dir.path().join("unused.db"),
        &[
            "--profile",
            profile.to_str().unwrap(),
            "simulate",
            "--feeds",
            "500",
            "--hosts",
            "50",
            "--days",
            "1",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("profile slow: 500 feeds on 50 hosts, 1 days"),
        "{text}"
    );
    assert!(text.contains("violations: 0 "), "{text}");
    let gap: f64 = text
        .split("shortest gap ")
        .nth(1)
        .and_then(|s| s.split('s').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    assert!(gap >= 2.0, "{text}");
}
