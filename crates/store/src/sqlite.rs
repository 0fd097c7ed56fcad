//! The SQLite backend: one file in WAL mode, the default store.
//!
//! Durability: WAL with `synchronous = NORMAL`. A committed transaction survives a killed
//! process (SIGKILL) because it is in the WAL before `COMMIT` returns; on power loss the last
//! few commits may be lost but the file is never corrupt, and the crawler simply fetches those
//! feeds again. Every write transaction starts with `BEGIN IMMEDIATE`, so writers queue on the
//! busy timeout instead of failing when a read transaction would have to be upgraded.
//!
//! Times are stored as INTEGER microseconds since the Unix epoch (see `codec`).

use crate::codec::{
    self, CounterDelta, DEFAULT_ENTRY_LIMIT, DEFAULT_LOG_LIMIT, ENTRY_COLUMNS, FIRST_ADD_REASON,
    FIRST_INTERVAL_SECS, LOG_COLUMNS, MAX_ENTRY_LIMIT, MAX_LOG_LIMIT, SearchFilter, from_micros,
    from_micros_opt, micros, select_feeds,
};
use crate::{
    ApplyReport, EntryQuery, FeedCounters, FeedRecord, FetchRecord, LogQuery, RequestLogRow,
    Result, Store, StoreError, StoredEntry, Subscribed, migrations,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite, Transaction};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;
use tidings_model::{FeedId, FeedUrl, Validators};

/// How long a writer waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections in the pool: readers run concurrently under WAL, writers queue.
const MAX_CONNECTIONS: u32 = 4;

/// The store in a SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Open (creating if missing) the database at `location`, a `sqlite:` URL or a file path,
    /// and apply pending migrations.
    pub async fn open(location: &str) -> Result<SqliteStore> {
        let options = connect_options(location)?;
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .connect_with(options)
            .await?;
        migrations::sqlite().run(&pool).await?;
        Ok(SqliteStore { pool })
    }

    /// Start a write transaction, taking the write lock up front.
    async fn write(&self) -> Result<Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }
}

fn connect_options(location: &str) -> Result<SqliteConnectOptions> {
    let invalid = |why: String| StoreError::Location(location.to_owned(), why);
    if location.trim().is_empty() {
        return Err(invalid("empty path".to_owned()));
    }
    let options = if location.starts_with("sqlite:") {
        SqliteConnectOptions::from_str(location).map_err(|e| invalid(e.to_string()))?
    } else {
        SqliteConnectOptions::new().filename(location)
    };
    let path = options.get_filename();
    if path.is_dir() {
        return Err(invalid("is a directory, not a database file".to_owned()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
        && !is_memory(path)
    {
        return Err(invalid(format!(
            "directory {} does not exist",
            dir.display()
        )));
    }
    Ok(options
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT))
}

fn is_memory(path: &Path) -> bool {
    let p = path.to_string_lossy();
    p == ":memory:" || p.starts_with("file:")
}

fn feed_from_row(row: &SqliteRow) -> Result<FeedRecord> {
    Ok(FeedRecord {
        id: FeedId(row.try_get("id")?),
        url: codec::parse_url(row.try_get("url")?)?,
        original_url: row.try_get("original_url")?,
        title: row.try_get("title")?,
        site_link: row.try_get("site_link")?,
        state: codec::parse_state(row.try_get("state")?)?,
        state_reason: row.try_get("state_reason")?,
        validators: Validators {
            etag: row.try_get("etag")?,
            last_modified: row.try_get("last_modified")?,
        },
        content_hash: row.try_get("content_hash")?,
        next_fetch_at: from_micros(row.try_get("next_fetch_at")?)?,
        next_fetch_reason: row.try_get("next_fetch_reason")?,
        interval_secs: row.try_get("interval_secs")?,
        last_fetch_at: from_micros_opt(row.try_get("last_fetch_at")?)?,
        last_status: row.try_get("last_status")?,
        last_outcome: row.try_get("last_outcome")?,
        last_error: row.try_get("last_error")?,
        consecutive_failures: row.try_get("consecutive_failures")?,
        counters: FeedCounters {
            fetches: row.try_get("fetches")?,
            ok: row.try_get("ok")?,
            not_modified: row.try_get("not_modified")?,
            errors: row.try_get("errors")?,
        },
        subscribers: row.try_get("subscribers")?,
        created_at: from_micros(row.try_get("created_at")?)?,
    })
}

fn entry_from_row(row: &SqliteRow) -> Result<StoredEntry> {
    Ok(StoredEntry {
        id: row.try_get("id")?,
        feed_id: FeedId(row.try_get("feed_id")?),
        entry: codec::decode_entry(row.try_get("data")?)?,
        sort_at: from_micros(row.try_get("sort_at")?)?,
        first_seen_at: from_micros(row.try_get("first_seen_at")?)?,
        updated_at: from_micros(row.try_get("updated_at")?)?,
        content_hash: row.try_get("content_hash")?,
    })
}

fn log_from_row(row: &SqliteRow) -> Result<RequestLogRow> {
    Ok(RequestLogRow {
        at: from_micros(row.try_get("at")?)?,
        feed_id: row.try_get::<Option<i64>, _>("feed_id")?.map(FeedId),
        host: row.try_get("host")?,
        purpose: row.try_get("purpose")?,
        url: row.try_get("url")?,
        egress: row.try_get("egress")?,
        status: row.try_get("status")?,
        outcome: row.try_get("outcome")?,
        bytes: row.try_get("bytes")?,
        duration_ms: row.try_get("duration_ms")?,
        rule: row.try_get("rule")?,
    })
}

/// Make sure a host row exists for `url`'s host.
async fn ensure_host(
    tx: &mut Transaction<'static, Sqlite>,
    url: &FeedUrl,
    now: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO hosts (host, created_at) VALUES (?1, ?2) ON CONFLICT (host) DO NOTHING",
    )
    .bind(url.host_key().as_str())
    .bind(micros(now))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Insert or update one entry of `fetch`, counting what happened in `report`.
async fn upsert_entry(
    tx: &mut Transaction<'static, Sqlite>,
    fetch: &FetchRecord,
    entry: &tidings_model::Entry,
    report: &mut ApplyReport,
) -> Result<()> {
    let encoded = codec::encode_entry(entry)?;
    let at = micros(fetch.fetched_at);
    let known: Option<(i64, String, i64)> = sqlx::query_as(
        "SELECT id, content_hash, first_seen_at FROM entries WHERE feed_id = ?1 AND entry_key = ?2",
    )
    .bind(fetch.feed_id.0)
    .bind(&entry.id)
    .fetch_optional(&mut **tx)
    .await?;
    match known {
        None => {
            sqlx::query(
                "INSERT INTO entries (feed_id, entry_key, guid, title, link, summary, published, \
                 updated, expires, sort_at, first_seen_at, updated_at, content_hash, data) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13)",
            )
            .bind(fetch.feed_id.0)
            .bind(&entry.id)
            .bind(&entry.guid)
            .bind(&entry.title)
            .bind(&entry.link)
            .bind(&entry.summary)
            .bind(entry.published.map(micros))
            .bind(entry.updated.map(micros))
            .bind(entry.expires.map(micros))
            .bind(entry.published.map_or(at, micros))
            .bind(at)
            .bind(&encoded.content_hash)
            .bind(&encoded.data)
            .execute(&mut **tx)
            .await?;
            report.new_entries += 1;
        }
        Some((id, hash, first_seen)) if hash != encoded.content_hash => {
            sqlx::query(
                "UPDATE entries SET guid = ?2, title = ?3, link = ?4, summary = ?5, published = ?6, \
                 updated = ?7, expires = ?8, sort_at = ?9, updated_at = ?10, content_hash = ?11, \
                 data = ?12 WHERE id = ?1",
            )
            .bind(id)
            .bind(&entry.guid)
            .bind(&entry.title)
            .bind(&entry.link)
            .bind(&entry.summary)
            .bind(entry.published.map(micros))
            .bind(entry.updated.map(micros))
            .bind(entry.expires.map(micros))
            .bind(entry.published.map_or(first_seen, micros))
            .bind(at)
            .bind(&encoded.content_hash)
            .bind(&encoded.data)
            .execute(&mut **tx)
            .await?;
            report.updated_entries += 1;
        }
        Some(_) => report.unchanged_entries += 1,
    }
    Ok(())
}

#[async_trait]
impl Store for SqliteStore {
    async fn subscribe(
        &self,
        url: &FeedUrl,
        subscriber: &str,
        now: DateTime<Utc>,
    ) -> Result<Subscribed> {
        let mut tx = self.write().await?;
        let existing: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM feeds WHERE url = ?1 OR original_url = ?1 \
             ORDER BY url = ?1 DESC, id LIMIT 1",
        )
        .bind(url.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let (feed_id, new_feed) = match existing {
            Some(id) => (id, false),
            None => {
                ensure_host(&mut tx, url, now).await?;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO feeds (url, original_url, host, next_fetch_at, next_fetch_reason, \
                     interval_secs, created_at) VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?3) RETURNING id",
                )
                .bind(url.as_str())
                .bind(url.host_key().as_str())
                .bind(micros(now))
                .bind(FIRST_ADD_REASON)
                .bind(FIRST_INTERVAL_SECS)
                .fetch_one(&mut *tx)
                .await?;
                (id, true)
            }
        };
        let new_subscription = sqlx::query(
            "INSERT INTO subscriptions (feed_id, subscriber, created_at) VALUES (?1, ?2, ?3) \
             ON CONFLICT (feed_id, subscriber) DO NOTHING",
        )
        .bind(feed_id)
        .bind(subscriber)
        .bind(micros(now))
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        tx.commit().await?;
        Ok(Subscribed {
            feed_id: FeedId(feed_id),
            new_feed,
            new_subscription,
        })
    }

    async fn unsubscribe(&self, feed: FeedId, subscriber: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM subscriptions WHERE feed_id = ?1 AND subscriber = ?2")
            .bind(feed.0)
            .bind(subscriber)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn feed(&self, id: FeedId) -> Result<Option<FeedRecord>> {
        sqlx::query(select_feeds!("WHERE f.id = ?1"))
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(feed_from_row)
            .transpose()
    }

    async fn feed_by_url(&self, url: &FeedUrl) -> Result<Option<FeedRecord>> {
        sqlx::query(select_feeds!(
            "WHERE f.url = ?1 OR f.original_url = ?1 ORDER BY f.url = ?1 DESC, f.id LIMIT 1"
        ))
        .bind(url.as_str())
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(feed_from_row)
        .transpose()
    }

    async fn feeds(&self) -> Result<Vec<FeedRecord>> {
        sqlx::query(select_feeds!("ORDER BY f.id"))
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(feed_from_row)
            .collect()
    }

    async fn due_feeds(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<FeedRecord>> {
        sqlx::query(select_feeds!(
            "WHERE f.state = 'active' AND f.next_fetch_at <= ?1 \
             AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id) \
             ORDER BY f.next_fetch_at, f.id LIMIT ?2"
        ))
        .bind(micros(now))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(feed_from_row)
        .collect()
    }

    async fn apply_fetch(&self, fetch: &FetchRecord) -> Result<ApplyReport> {
        let update = &fetch.update;
        let mut tx = self.write().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM feeds WHERE id = ?1")
            .bind(fetch.feed_id.0)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(StoreError::NoSuchFeed(fetch.feed_id));
        }
        if let Some(url) = &update.url {
            ensure_host(&mut tx, url, fetch.fetched_at).await?;
        }
        let delta = CounterDelta::of(&update.last_outcome);
        sqlx::query(
            "UPDATE feeds SET \
             url = COALESCE(?2, url), host = COALESCE(?3, host), \
             etag = CASE WHEN ?4 THEN ?5 ELSE etag END, \
             last_modified = CASE WHEN ?4 THEN ?6 ELSE last_modified END, \
             content_hash = COALESCE(?7, content_hash), \
             title = CASE WHEN ?8 THEN ?9 ELSE title END, \
             site_link = CASE WHEN ?8 THEN ?10 ELSE site_link END, \
             state = ?11, state_reason = ?12, next_fetch_at = ?13, next_fetch_reason = ?14, \
             interval_secs = ?15, consecutive_failures = ?16, last_status = ?17, \
             last_outcome = ?18, last_error = ?19, last_fetch_at = ?20, \
             fetches = fetches + 1, ok = ok + ?21, not_modified = not_modified + ?22, \
             errors = errors + ?23 \
             WHERE id = ?1",
        )
        .bind(fetch.feed_id.0)
        .bind(update.url.as_ref().map(FeedUrl::as_str))
        .bind(
            update
                .url
                .as_ref()
                .map(|u| u.host_key().as_str().to_owned()),
        )
        .bind(update.validators.is_some())
        .bind(update.validators.as_ref().and_then(|v| v.etag.as_deref()))
        .bind(
            update
                .validators
                .as_ref()
                .and_then(|v| v.last_modified.as_deref()),
        )
        .bind(update.content_hash.as_deref())
        .bind(update.meta.is_some())
        .bind(update.meta.as_ref().and_then(|m| m.title.as_deref()))
        .bind(update.meta.as_ref().and_then(|m| m.site_link.as_deref()))
        .bind(update.state.as_str())
        .bind(update.state_reason.as_deref())
        .bind(micros(update.next_fetch_at))
        .bind(&update.next_fetch_reason)
        .bind(update.interval_secs)
        .bind(update.consecutive_failures)
        .bind(update.last_status)
        .bind(&update.last_outcome)
        .bind(update.last_error.as_deref())
        .bind(micros(fetch.fetched_at))
        .bind(delta.ok)
        .bind(delta.not_modified)
        .bind(delta.errors)
        .execute(&mut *tx)
        .await?;

        let mut report = ApplyReport::default();
        for entry in &fetch.entries {
            upsert_entry(&mut tx, fetch, entry, &mut report).await?;
        }

        let log = &fetch.log;
        sqlx::query(
            "INSERT INTO request_log (at, feed_id, host, purpose, url, egress, status, outcome, \
             bytes, duration_ms, rule) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .bind(micros(log.at))
        .bind(log.feed_id.map(|f| f.0))
        .bind(&log.host)
        .bind(&log.purpose)
        .bind(&log.url)
        .bind(log.egress.as_deref())
        .bind(log.status)
        .bind(&log.outcome)
        .bind(log.bytes)
        .bind(log.duration_ms)
        .bind(&log.rule)
        .execute(&mut *tx)
        .await?;

        tx.commit().await?;
        Ok(report)
    }

    async fn entries(&self, query: &EntryQuery) -> Result<Vec<StoredEntry>> {
        let search = SearchFilter::of(query.search.as_deref());
        if search == SearchFilter::Nothing {
            return Ok(Vec::new());
        }
        let mut sql = QueryBuilder::<Sqlite>::new(ENTRY_COLUMNS);
        sql.push(" WHERE 1 = 1");
        if let Some(feed) = query.feed {
            sql.push(" AND e.feed_id = ").push_bind(feed.0);
        }
        if let Some(since) = query.since {
            sql.push(" AND e.sort_at >= ").push_bind(micros(since));
        }
        if let Some(until) = query.until {
            sql.push(" AND e.sort_at < ").push_bind(micros(until));
        }
        if let Some(after) = query.after {
            sql.push(" AND (e.sort_at, e.id) < (")
                .push_bind(micros(after.sort_at))
                .push(", ")
                .push_bind(after.id)
                .push(")");
        }
        if let SearchFilter::Words(words) = &search {
            sql.push(" AND e.id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ")
                .push_bind(codec::fts5_match(words))
                .push(")");
        }
        sql.push(" ORDER BY e.sort_at DESC, e.id DESC LIMIT ")
            .push_bind(codec::limit(
                query.limit,
                DEFAULT_ENTRY_LIMIT,
                MAX_ENTRY_LIMIT,
            ));
        sql.build()
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(entry_from_row)
            .collect()
    }

    async fn request_log(&self, query: &LogQuery) -> Result<Vec<RequestLogRow>> {
        let mut sql = QueryBuilder::<Sqlite>::new(LOG_COLUMNS);
        sql.push(" WHERE 1 = 1");
        if let Some(host) = &query.host {
            sql.push(" AND host = ").push_bind(host.as_str());
        }
        if let Some(feed) = query.feed {
            sql.push(" AND feed_id = ").push_bind(feed.0);
        }
        sql.push(" ORDER BY at DESC, id DESC LIMIT ")
            .push_bind(codec::limit(query.limit, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT));
        sql.build()
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(log_from_row)
            .collect()
    }

    async fn count_entries(&self, feed: Option<FeedId>) -> Result<u64> {
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM entries WHERE ?1 IS NULL OR feed_id = ?1")
                .bind(feed.map(|f| f.0))
                .fetch_one(&self.pool)
                .await?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative count {n}")))
    }
}
