//! Crash safety: SIGKILL in the middle of a crawl loses nothing committed and leaves no feed
//! half-written; a restart finishes the work.

mod support;

use std::time::Duration;
use support::{Publisher, Resource, command, rss, stdout, tidings};
use tidings_store::{EntryQuery, LogQuery};

const HOSTS: usize = 8;
const FEEDS_PER_HOST: usize = 5;
const ITEMS: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_crawl_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let profile = dir.path().join("p.toml");
    std::fs::write(
        &profile,
        "name='crash'\nuser_agent='tidings-test/{version}'\n[pacing]\nhost_gap=0\n",
    )
    .unwrap();
    let publisher = Publisher::start().await;
    let mut args: Vec<String> = vec![
        "--allow-private-networks".into(),
        "--profile".into(),
        profile.to_string_lossy().into_owned(),
    ];
    let mut urls = Vec::new();
    for h in 0..HOSTS {
        args.push("--resolve".into());
        args.push(format!("h{h}.test:{}:127.0.0.1", publisher.port));
        for f in 0..FEEDS_PER_HOST {
            let path = format!("/h{h}/f{f}.xml");
            let mut resource = Resource::feed(rss(&format!("h{h}f{f}"), 1, ITEMS), "\"v1\"");
            resource.delay = Duration::from_millis(250);
            publisher.set(&path, resource);
            urls.push(format!("http://h{h}.test:{}{path}", publisher.port));
        }
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let add: Vec<&str> = [
        &arg_refs[..],
        &["add", "--no-fetch"],
        &urls.iter().map(String::as_str).collect::<Vec<_>>()[..],
    ]
    .concat();
    let out = tidings(&db, &add).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Start a crawl of all 40 feeds and kill it once some, not all, answers were served.
    let mut child = command(&db)
        .args(&arg_refs)
        .arg("fetch")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let total = HOSTS * FEEDS_PER_HOST;
    loop {
        // Feed answers only: each host's robots.txt is asked first.
        let served = publisher
            .seen()
            .iter()
            .filter(|s| s.path != "/robots.txt")
            .count();
        if served >= total / 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the crawl ended before it could be killed"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();

    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    let feeds = store.feeds().await.unwrap();
    assert_eq!(feeds.len(), total);
    let mut committed = 0;
    for feed in &feeds {
        let entries = store.count_entries(Some(feed.id)).await.unwrap();
        let log = store
            .request_log(&LogQuery {
                feed: Some(feed.id),
                ..LogQuery::default()
            })
            .await
            .unwrap();
        if feed.last_fetch_at.is_some() {
            committed += 1;
            assert_eq!(entries, ITEMS as u64, "feed {} half-written", feed.url);
            assert_eq!(log.len(), 1, "feed {} lost its log row", feed.url);
            assert_eq!(feed.validators.etag.as_deref(), Some("\"v1\""));
        } else {
            assert_eq!(
                entries, 0,
                "feed {} has entries without its fetch",
                feed.url
            );
            // Its request may have been in flight when the process died: it is logged, as
            // such (C7), and nothing else of the read is.
            assert!(
                log.len() <= 1
                    && log
                        .iter()
                        .all(|r| r.outcome == tidings_model::Label::InFlight),
                "feed {} has a log row without its fetch: {log:?}",
                feed.url
            );
        }
    }
    assert!(committed > 0, "nothing was committed before the kill");
    assert!(
        committed < total,
        "the crawl finished before the kill: the test proved nothing"
    );
    drop(store);

    // A restart reads the rest; what was committed is not read again (not due yet).
    let out = tidings(&db, &[&arg_refs[..], &["fetch"]].concat()).await;
    let summary = stdout(&out);
    assert!(
        summary.contains(&format!("{} feeds:", total - committed)),
        "{summary}"
    );
    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    assert_eq!(
        store.count_entries(None).await.unwrap(),
        (total * ITEMS) as u64
    );
    let all = store
        .entries(&EntryQuery {
            limit: 1000,
            ..EntryQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(all.len(), total * ITEMS);
}
