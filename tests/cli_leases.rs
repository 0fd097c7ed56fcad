//! One request in flight per host across processes (C3): `serve` crawling, and `fetch` and
//! `add` processes beside it, share each host through its lease in the store, on SQLite and on
//! PostgreSQL. The publisher's own record is the judge: no host sees two requests in flight,
//! and none a gap shorter than the profile's.

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use support::{command, spawn_serve, stderr, tidings};
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource, Web};

const HOSTS: usize = 3;
const FEEDS_PER_HOST: usize = 4;

async fn share_hosts_across_processes(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("leases.toml");
    // The tests' fast profile (reads every second) with a 1-second gap between two requests
    // to a host.
    let text = support::FAST_PROFILE.replace("host_gap = 0", "host_gap = 1");
    assert_ne!(text, support::FAST_PROFILE);
    std::fs::write(&profile, text).unwrap();
    // Each answer takes a while, so requests of two processes would overlap if nothing kept
    // them apart.
    let slow = |title: &str| {
        Resource::feed(FeedSpec::changing(title, Duration::from_secs(1)))
            .with(Behaviour::Delay(Duration::from_millis(150)))
    };
    let mut hosts = Vec::new();
    for h in 0..HOSTS {
        let mut spec = HostSpec::new(&format!("h{h}.test"))
            .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"));
        for f in 0..=FEEDS_PER_HOST {
            spec = spec.at(&format!("/f{f}.xml"), slow(&format!("h{h} f{f}")));
        }
        hosts.push(spec);
    }
    let web = Web::start(hosts).await.expect("start the simulated web");
    let db = Path::new(db);
    let mut common: Vec<String> = vec![
        "--profile".into(),
        profile.to_string_lossy().into_owned(),
        "--allow-private-networks".into(),
    ];
    for resolve in web.resolve_args() {
        common.push("--resolve".into());
        common.push(resolve);
    }
    let with = |args: &[&str]| -> Vec<String> {
        common
            .iter()
            .cloned()
            .chain(args.iter().map(|a| a.to_string()))
            .collect()
    };
    let mut urls = Vec::new();
    for h in 0..HOSTS {
        for f in 0..FEEDS_PER_HOST {
            urls.push(
                web.url(&format!("h{h}.test"), &format!("/f{f}.xml"))
                    .unwrap(),
            );
        }
    }
    let mut add = vec!["add", "--no-fetch"];
    add.extend(urls.iter().map(String::as_str));
    let out = tidings(
        db,
        &with(&add).iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    // `serve` crawls; meanwhile two `fetch` runs and an `add` that reads at once.
    let (mut serve, _) = spawn_serve(db, &with(&[]), &[] as &[&str], Stdio::piped()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let extra = web
        .url("h0.test", &format!("/f{FEEDS_PER_HOST}.xml"))
        .unwrap();
    let runs = [
        with(&["fetch"]),
        with(&["fetch"]),
        with(&["add", extra.as_str()]),
    ];
    // Started together, so they run at the same time; then waited for one by one.
    let children: Vec<_> = runs
        .iter()
        .map(|args| {
            command(db)
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start tidings")
        })
        .collect();
    for (args, child) in runs.iter().zip(children) {
        let out = child.wait_with_output().await.expect("run tidings");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let _ = serve.start_kill();
    let _ = serve.wait().await;

    let exchanges = web.recorder().exchanges();
    let feed_requests = exchanges
        .iter()
        .filter(|e| e.target != "/robots.txt")
        .count();
    // Every feed read at least twice (by the processes together), so hosts were shared.
    assert!(
        feed_requests >= 2 * HOSTS * FEEDS_PER_HOST,
        "{feed_requests} feed requests"
    );
    support::assert_one_in_flight_and_gaps(&exchanges, Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_processes_sharing_a_sqlite_store_keep_one_request_per_host() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    share_hosts_across_processes(db.to_str().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_processes_sharing_a_postgres_store_keep_one_request_per_host() {
    let Ok(base) = std::env::var("DATABASE_URL") else {
        eprintln!("DATABASE_URL is not set: the PostgreSQL case is skipped");
        return;
    };
    let schema = format!(
        "leases_{}_{}",
        std::process::id(),
        chrono::Utc::now().timestamp_micros()
    );
    let psql = |sql: String| {
        let base = base.clone();
        async move {
            use sqlx::Connection;
            let mut c = sqlx::PgConnection::connect(&base).await.expect("connect");
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut c)
                .await
                .expect("schema");
        }
    };
    psql(format!("CREATE SCHEMA {schema}")).await;
    let separator = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{separator}options=-c%20search_path%3D{schema}");
    share_hosts_across_processes(&url).await;
    psql(format!("DROP SCHEMA {schema} CASCADE")).await;
}
