//! Subscriptions the crawler could never read (issue 12): without `--allow-private-networks`
//! a feed at an IP literal outside the public address space is refused by `add` and
//! `import-opml`, with the guard's reason and the flag named, and is not stored.

mod support;

use support::{stderr, stdout, tidings};

fn feed_urls(json_lines: &str) -> Vec<String> {
    json_lines
        .lines()
        .map(|l| {
            let feed: serde_json::Value = serde_json::from_str(l).expect("json line");
            feed["url"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_refuses_a_private_address_and_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let out = tidings(&db, &["add", "http://10.0.0.1/feed"]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("http://10.0.0.1/feed cannot be added: address 10.0.0.1 is private")
            && err.contains("--allow-private-networks"),
        "{err}"
    );
    let out = tidings(&db, &["feeds", "--json"]).await;
    assert_eq!(stdout(&out), "", "nothing stored");

    // The flag is what decides: with it the feed is subscribed (not read: --no-fetch).
    let out = tidings(
        &db,
        &[
            "--allow-private-networks",
            "add",
            "--no-fetch",
            "http://10.0.0.1/feed",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["feeds", "--json"]).await;
    assert_eq!(feed_urls(&stdout(&out)), ["http://10.0.0.1/feed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opml_import_subscribes_the_public_feeds_and_reports_the_private_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let opml = dir.path().join("subs.opml");
    std::fs::write(
        &opml,
        r#"<opml version="2.0"><body>
  <outline text="One" xmlUrl="https://one.example/feed.xml"/>
  <outline text="Inside" xmlUrl="http://[fd00::1]/feed"/>
  <outline text="Two" xmlUrl="https://two.example/rss"/>
</body></opml>"#,
    )
    .unwrap();
    let out = tidings(&db, &["import-opml", opml.to_str().unwrap()]).await;
    assert!(!out.status.success(), "a refusal is a failing exit");
    let err = stderr(&out);
    assert!(
        err.contains("http://[fd00::1]/feed cannot be added: address fd00::1 is unique local")
            && err.contains("--allow-private-networks"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("2 new feeds, 0 already known, 0 skipped, 1 refused"),
        "{}",
        stdout(&out)
    );
    let out = tidings(&db, &["feeds", "--json"]).await;
    assert_eq!(
        feed_urls(&stdout(&out)),
        ["https://one.example/feed.xml", "https://two.example/rss"]
    );
}
