//! A real sync client end to end: Debian's newsboat with `urls-source "miniflux"` against
//! `tidings serve`, over an account whose feeds were read from a local publisher.
//!
//! Reading: `newsboat -x reload print-unread` reports the unread count tidings keeps, and a
//! mark made in tidings shows in newsboat at its next reload. Writing, through newsboat's own
//! screen driven in tmux: leaving an opened article marks it read in tidings, and `A` marks
//! its feed read.
//!
//! Needs `newsboat` and `tmux` on PATH (`.ci/run` installs them). Without them the test is
//! skipped with a message, unless `CI` is set, where it fails.

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{
    Publisher, Resource, fast_profile, on_path, rss, spawn_serve, stderr, stdout, tidings,
    with_stdin,
};
use tidings_store::{ReadStatus, ReadingQuery, StateChange};

/// How long a mark sent by newsboat (from a detached thread) may take to arrive. Waiting
/// polls; nothing is asserted about the time taken.
const DEADLINE: Duration = Duration::from_secs(30);

/// Ana's unread entries per feed id, as tidings keeps them.
async fn unread(db: &Path) -> Vec<(i64, u64)> {
    let store = tidings_store::open(db.to_str().expect("utf-8 path"))
        .await
        .expect("open store");
    let id = store
        .account_secrets("ana")
        .await
        .unwrap()
        .expect("ana")
        .account
        .id;
    store
        .subscriptions(id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.feed_id.0, s.unread))
        .collect()
}

fn total(counts: &[(i64, u64)]) -> u64 {
    counts.iter().map(|(_, n)| n).sum()
}

/// newsboat's own count after a reload, from `N unread articles`.
async fn newsboat_unread(newsboat: &Path, dir: &Path) -> u64 {
    let out = tokio::process::Command::new(newsboat)
        .env("HOME", dir.join("home"))
        .arg("-C")
        .arg(dir.join("config"))
        .arg("-u")
        .arg(dir.join("urls"))
        .arg("-c")
        .arg(dir.join("cache.db"))
        .args(["-x", "reload", "print-unread"])
        .output()
        .await
        .expect("run newsboat");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "newsboat: {text}{}", stderr(&out));
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("newsboat printed {text:?}"))
}

fn tmux(args: &[&str]) -> std::process::Output {
    std::process::Command::new("tmux")
        .args(args)
        .output()
        .expect("run tmux")
}

/// Wait until tidings' unread counts satisfy `done`.
async fn wait_for(db: &Path, what: &str, done: impl Fn(&[(i64, u64)]) -> bool) -> Vec<(i64, u64)> {
    let start = Instant::now();
    loop {
        let counts = unread(db).await;
        if done(&counts) {
            return counts;
        }
        assert!(start.elapsed() < DEADLINE, "{what}: still {counts:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn newsboat_reads_and_marks_through_the_miniflux_api() {
    let (Some(newsboat), Some(_)) = (on_path("newsboat"), on_path("tmux")) else {
        if std::env::var_os("CI").is_some() {
            panic!("newsboat or tmux is not on PATH: install newsboat tmux");
        }
        eprintln!("skipped: install newsboat and tmux (not on PATH)");
        return;
    };
    let publisher = Publisher::start().await;
    publisher.set("/alpha.xml", Resource::feed(rss("alpha", 1, 5), "\"a1\""));
    publisher.set("/beta.xml", Resource::feed(rss("beta", 1, 3), "\"b1\""));
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];

    // An account with an API password, subscribed to two feeds (read once each).
    let out = with_stdin(&db, &["users", "add", "ana"], "login-password-1\n").await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = with_stdin(
        &db,
        &["users", "passwd", "ana", "--api"],
        "sync-password-1\n",
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let alpha = publisher.url("/alpha.xml");
    let beta = publisher.url("/beta.xml");
    let out = tidings(
        &db,
        &[
            &common[..],
            &["add", "--user", "ana", "--folder", "News", &alpha],
        ]
        .concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let out = tidings(
        &db,
        &[&common[..], &["add", "--user", "ana", &beta]].concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(total(&unread(&db).await), 8);

    let (mut child, addr) = spawn_serve(&db, &[] as &[&str], &["--no-crawl"], Stdio::null()).await;

    let nb = dir.path();
    std::fs::create_dir_all(nb.join("home")).expect("home");
    std::fs::write(nb.join("urls"), "").expect("urls");
    std::fs::write(
        nb.join("config"),
        format!(
            "urls-source \"miniflux\"\nminiflux-url \"http://{addr}/compat/miniflux\"\n\
             miniflux-login \"ana\"\nminiflux-password \"sync-password-1\"\n"
        ),
    )
    .expect("config");

    // Reading: newsboat counts what tidings counts.
    assert_eq!(newsboat_unread(&newsboat, nb).await, 8);
    // A mark made in tidings shows at newsboat's next reload.
    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    let ana = store
        .account_secrets("ana")
        .await
        .unwrap()
        .unwrap()
        .account
        .id;
    let two: Vec<i64> = store
        .reading(&ReadingQuery {
            account: ana,
            status: Some(ReadStatus::Unread),
            limit: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .iter()
        .map(|r| r.entry.id)
        .collect();
    let read = StateChange {
        read: Some(true),
        starred: None,
    };
    store
        .set_entry_states(ana, &two, read, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(total(&unread(&db).await), 6);
    assert_eq!(newsboat_unread(&newsboat, nb).await, 6);

    // Writing, through newsboat's screen: open the first feed and its first article, leave
    // it (the read mark goes to tidings), then mark the feed read with `A`.
    let session = format!("tidings-nb-{}", std::process::id());
    let run = format!(
        "HOME={} {} -C {} -u {} -c {}",
        nb.join("home").display(),
        newsboat.display(),
        nb.join("config").display(),
        nb.join("urls").display(),
        nb.join("cache.db").display()
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "120",
        "-y",
        "30",
        &run,
    ]);
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let screen = || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned()
    };
    let start = Instant::now();
    while !screen().contains("Your feeds") {
        assert!(
            start.elapsed() < DEADLINE,
            "newsboat's feed list: {}",
            screen()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let keys = |key: &str| {
        let sent = tmux(&["send-keys", "-t", &session, key]);
        assert!(sent.status.success());
    };
    keys("Enter");
    tokio::time::sleep(Duration::from_millis(700)).await;
    keys("Enter");
    let start = Instant::now();
    while !screen().contains("Article '") {
        assert!(start.elapsed() < DEADLINE, "an open article: {}", screen());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    keys("q");
    wait_for(&db, "the article newsboat opened is read", |c| {
        total(c) == 5
    })
    .await;
    keys("A");
    let counts = wait_for(&db, "the feed newsboat marked is read", |c| {
        c.iter().any(|(_, n)| *n == 0) && total(c) < 5
    })
    .await;
    keys("q");
    keys("q");
    let _ = tmux(&["kill-session", "-t", &session]);
    // One feed is all read; the other kept what it had.
    let left = total(&counts);
    assert!(
        left > 0,
        "the other feed keeps its unread entries: {counts:?}"
    );
    assert_eq!(newsboat_unread(&newsboat, nb).await, left);

    let _ = child.start_kill();
    let _ = child.wait().await;
}
