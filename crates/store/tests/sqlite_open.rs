//! Opening a SQLite store: locations, file creation, WAL, and reopening an existing file.

use chrono::{TimeZone, Utc};
use sqlx::Connection;
use tidings_model::FeedUrl;
use tidings_store::StoreError;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid time")
}

#[tokio::test]
async fn missing_directory_is_a_location_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/tidings.db");
    let Err(err) = tidings_store::open(path.to_str().unwrap()).await else {
        panic!("opening in a missing directory must fail");
    };
    assert!(matches!(err, StoreError::Location(..)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("does not exist"), "{message}");
    assert!(message.contains("no/such/dir"), "{message}");
    assert!(!path.exists());

    let Err(err) = tidings_store::open(dir.path().to_str().unwrap()).await else {
        panic!("a directory is not a database file");
    };
    assert!(matches!(err, StoreError::Location(..)), "{err:?}");

    let Err(err) = tidings_store::open("  ").await else {
        panic!("an empty location must fail");
    };
    assert!(matches!(err, StoreError::Location(..)), "{err:?}");
}

#[tokio::test]
async fn a_new_file_is_created_in_wal_mode_and_reopens_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tidings.db");
    let location = path.to_str().unwrap().to_owned();
    let url = FeedUrl::parse("https://example.org/feed.xml").unwrap();

    let store = tidings_store::open(&location).await.unwrap();
    assert!(path.exists(), "the file is created");
    let id = store
        .subscribe(&url, "alice", now(), &new_feed())
        .await
        .unwrap()
        .feed_id;
    drop(store);

    for again in [
        location.clone(),
        format!("sqlite://{location}"),
        format!("sqlite:{location}"),
    ] {
        let store = tidings_store::open(&again).await.unwrap();
        let feed = store.feed_by_url(&url).await.unwrap();
        assert_eq!(
            feed.map(|f| f.id),
            Some(id),
            "{again}: data survives reopening"
        );
    }

    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{location}"))
        .await
        .unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/sqlite"))
        .unwrap()
        .filter(|f| {
            f.as_ref()
                .is_ok_and(|f| f.path().extension().is_some_and(|e| e == "sql"))
        })
        .count();
    assert_eq!(
        applied,
        i64::try_from(files).unwrap(),
        "each migration is applied once, however often we open"
    );
}

#[tokio::test]
async fn an_in_memory_database_works() {
    let store = tidings_store::open("sqlite::memory:").await.unwrap();
    let url = FeedUrl::parse("https://example.org/feed.xml").unwrap();
    let id = store
        .subscribe(&url, "alice", now(), &new_feed())
        .await
        .unwrap()
        .feed_id;
    assert_eq!(store.feed(id).await.unwrap().map(|f| f.url), Some(url));
}

fn new_feed() -> tidings_store::NewFeed {
    tidings_store::NewFeed {
        next_fetch_at: now(),
        next_fetch_reason: "first add".to_owned(),
        interval_secs: 3600,
    }
}

/// FF13: a rule stored by another process (another handle on the same file) is seen by this
/// one's rules version within `freshness::FRESH_FOR`.
#[tokio::test]
async fn a_rule_stored_by_another_process_moves_the_version_seen_here() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let here = tidings_store::open(path.to_str().unwrap()).await.unwrap();
    let there = tidings_store::open(path.to_str().unwrap()).await.unwrap();
    let before = here.blocks_version().await.unwrap();
    there
        .add_block(&tidings_store::NewBlock {
            kind: "host".into(),
            value: "a.example".into(),
            reason: None,
            created_at: now(),
        })
        .await
        .unwrap();
    tokio::time::sleep(tidings_store::freshness::FRESH_FOR + std::time::Duration::from_millis(20))
        .await;
    assert!(here.blocks_version().await.unwrap() > before);
}

/// An entry's JSON is kept compressed when that saves room (a BLOB); an entry an older
/// version kept as JSON text reads back the same, beside packed ones.
#[tokio::test]
async fn entries_kept_as_text_by_an_older_version_read_beside_packed_ones() {
    use tidings_model::Entry;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = tidings_store::open(path.to_str().unwrap()).await.unwrap();
    let url = FeedUrl::parse("https://example.org/feed").unwrap();
    let new = tidings_store::NewFeed {
        next_fetch_at: now(),
        next_fetch_reason: "first add".into(),
        interval_secs: 3600,
    };
    let feed = store
        .subscribe(&url, "t", now(), &new)
        .await
        .unwrap()
        .feed_id;
    let entry = |id: &str, words: usize| Entry {
        identity: id.into(),
        title: Some(id.into()),
        content: Some("<p>the council met</p>".repeat(words)),
        ..Entry::default()
    };
    store
        .apply_push(tidings_store::PushRecord {
            feed_id: feed,
            received_at: now(),
            entries: vec![entry("long", 200), entry("old", 200)],
        })
        .await
        .unwrap();
    let conn = format!("sqlite://{}", path.display());
    let mut c = sqlx::SqliteConnection::connect(&conn).await.unwrap();
    let kinds: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT entry_key, typeof(data), length(data) FROM entries ORDER BY entry_key",
    )
    .fetch_all(&mut c)
    .await
    .unwrap();
    assert!(
        kinds
            .iter()
            .all(|(_, kind, len)| kind == "blob" && *len < 1_000),
        "{kinds:?}"
    );
    // As an older version wrote it: the JSON as text.
    let json = serde_json::to_string(&entry("old", 200)).unwrap();
    sqlx::query("UPDATE entries SET data = ?1 WHERE entry_key = 'old'")
        .bind(&json)
        .execute(&mut c)
        .await
        .unwrap();
    let text: String =
        sqlx::query_scalar("SELECT typeof(data) FROM entries WHERE entry_key = 'old'")
            .fetch_one(&mut c)
            .await
            .unwrap();
    assert_eq!(text, "text");
    let stored = store
        .entries(&tidings_store::EntryQuery {
            feed: Some(feed),
            ..tidings_store::EntryQuery::default()
        })
        .await
        .unwrap();
    let mut read: Vec<Entry> = stored.into_iter().map(|s| s.entry).collect();
    read.sort_by(|a, b| a.identity.cmp(&b.identity));
    assert_eq!(read, vec![entry("long", 200), entry("old", 200)]);
}
