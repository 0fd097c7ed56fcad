//! The SQLite backend: one file in WAL mode, the default store.
//!
//! Durability: WAL with `synchronous = NORMAL`. A committed transaction survives a killed
//! process (SIGKILL) because it is in the WAL before `COMMIT` returns; on power loss the last
//! few commits may be lost but the file is never corrupt, and the crawler simply fetches those
//! feeds again. Every write transaction starts with `BEGIN IMMEDIATE`, so writers queue on the
//! busy timeout instead of failing when a read transaction would have to be upgraded. The WAL
//! is checkpointed by a task on a connection of its own (`Checkpointer`), so no commit pays
//! for copying it back; a writer checkpoints itself only past a large backstop.
//!
//! Fetches and host leases are written by group commit (`group`): concurrent `apply_fetch`
//! calls, lease claims and give-backs share one transaction, written by one writer task with
//! multi-row statements (`apply`, `leases`), and each call returns its own result once that
//! transaction is committed.
//!
//! Times are stored as INTEGER microseconds since the Unix epoch (see `codec`).

mod accounts;
mod apply;
mod checks;
mod group;
mod images;
mod jobs;
mod keys;
mod leases;
mod reading;
mod resources;
mod rows;
mod websub;

use crate::DirectiveRecord;
use crate::Release;
use crate::codec::{
    self, DEFAULT_ENTRY_LIMIT, ENTRY_COLUMNS, MAX_ENTRY_LIMIT, SearchFilter, micros,
};
use crate::feeds::lite as sql;
use crate::freshness::ClearOnDrop;
use crate::log;
use crate::{
    ApplyReport, BlockAdded, EntryQuery, FeedPatch, FeedRecord, FeedState, FetchRecord, HostClaim,
    HostState, HostStateHolding, LogQuery, NewBlock, NewEntryCounts, NewFeed, RequestLogRow,
    Result, RobotsCache, Store, StoreError, StoredBlock, StoredEntry, Subscribed, migrations,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, QueryBuilder, Sqlite, Transaction};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{FeedId, FeedUrl, RequestTicket};
use tokio::sync::OwnedMutexGuard;

/// How long a writer waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Page cache per connection, in KiB when negative (SQLite's default is 2 MiB).
const CACHE_SIZE: &str = "-32768";
/// WAL pages after which a committing writer checkpoints on its own, in its commit: only a
/// backstop (about 400 MiB), for when the checkpointer cannot keep up or has stopped.
const WAL_AUTOCHECKPOINT: &str = "100000";
/// How often the checkpointer copies committed WAL pages back into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
/// Connections in the pool: readers run concurrently under WAL (writers in the write turn
/// have a connection of their own).
const MAX_CONNECTIONS: u32 = 4;

/// The store in a SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// The write turn's own connection: a write transaction never waits for a connection
    /// behind the readers (hundreds of lanes' reads queued in `pool` held every group commit
    /// back by their whole queue).
    writes: SqlitePool,
    /// Writers take turns here before `BEGIN IMMEDIATE`. SQLite lets one writer in at a time;
    /// the others would wait in its busy handler, which sleeps (1, 2, 5 ... 100 ms) while
    /// holding a pooled connection, so under many concurrent writes the lock sat free while
    /// writers slept and readers found no connection. Queueing here wakes the next writer as
    /// soon as the previous one commits.
    writer: Arc<tokio::sync::Mutex<()>>,
    /// Fetches waiting to be applied together in one transaction (see `group`).
    queue: Arc<group::Queue>,
    /// The do-not-crawl rules' version, as last read.
    blocks_version: Arc<crate::freshness::Kept>,
    /// Checkpoints the WAL beside the writer; stops with the last clone of the store.
    _checkpoints: Option<Arc<Checkpointer>>,
}

/// Checkpoints the WAL on a connection of its own, so no commit pays for it.
///
/// SQLite checkpoints in the commit that crosses `wal_autocheckpoint`: that writer copies
/// the WAL back into the database file and syncs it while every other write waits for it
/// (150–200 ms every few seconds under a full crawl). A passive checkpoint from another
/// connection does the same work beside the writer, without taking its lock; readers and
/// writers go on meanwhile.
#[derive(Debug)]
struct Checkpointer(tokio::task::JoinHandle<()>);

impl Checkpointer {
    fn start(pool: SqlitePool) -> Checkpointer {
        Checkpointer(tokio::spawn(async move {
            let mut every = tokio::time::interval(CHECKPOINT_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                // A checkpoint that fails (the file busy, the disk full) is tried again at
                // the next tick; the writers' own backstop bounds the WAL meanwhile.
                let _ = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                    .execute(&pool)
                    .await;
            }
        }))
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl SqliteStore {
    /// Host `host`'s floor and robots.txt copy, the copy's text left out when it is `held`
    /// (`sql::HOST_STATE`).
    async fn host_row(
        &self,
        host: &str,
        held: Option<(DateTime<Utc>, Option<i32>)>,
    ) -> Result<(Option<DateTime<Utc>>, Option<RobotsCache>)> {
        type Row = (Option<i64>, Option<i64>, Option<i32>, Option<String>);
        let row: Option<Row> = sqlx::query_as(AssertSqlSafe(sql::HOST_STATE.as_str()))
            .bind(host)
            .bind(held.map(|(at, _)| codec::micros(at)))
            .bind(held.and_then(|(_, status)| status))
            .fetch_optional(&self.pool)
            .await?;
        let Some((floor, fetched_at, status, body)) = row else {
            return Ok((None, None));
        };
        let robots = match fetched_at {
            Some(at) => Some(RobotsCache {
                fetched_at: codec::from_micros(at)?,
                status,
                body,
            }),
            None => None,
        };
        Ok((floor.map(codec::from_micros).transpose()?, robots))
    }

    /// Open (creating if missing) the database at `location`, a `sqlite:` URL or a file path,
    /// and apply pending migrations.
    pub async fn open(location: &str) -> Result<SqliteStore> {
        let options = connect_options(location)?;
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            // Keep one connection: an in-memory database lives only as long as one is open.
            .min_connections(1)
            .connect_with(options.clone())
            .await?;
        migrations::sqlite().run(&pool).await?;
        let writes = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .connect_with(options.clone())
            .await?;
        // An in-memory database has no WAL to checkpoint.
        let checkpoints = if is_memory(options.get_filename()) {
            None
        } else {
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await?;
            Some(Arc::new(Checkpointer::start(pool)))
        };
        Ok(SqliteStore {
            pool,
            writes,
            writer: Arc::default(),
            queue: Arc::default(),
            blocks_version: Arc::default(),
            _checkpoints: checkpoints,
        })
    }

    /// Start a write transaction, taking the write lock up front. Hold the returned turn until
    /// the transaction ends (declare it first, so it is dropped after the transaction).
    async fn write(&self) -> Result<(OwnedMutexGuard<()>, Transaction<'static, Sqlite>)> {
        let turn = self.writer.clone().lock_owned().await;
        Ok((turn, self.writes.begin_with("BEGIN IMMEDIATE").await?))
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
        .busy_timeout(BUSY_TIMEOUT)
        // A group commit writes thousands of rows in one transaction: a page cache that holds
        // them spares spilling dirty pages to the WAL before COMMIT and reading them back.
        .pragma("cache_size", CACHE_SIZE)
        // Statement journals (multi-row INSERTs inside a transaction) in memory, not temp files.
        .pragma("temp_store", "memory")
        // Checkpoint less often: a hot page written by many commits is copied back once.
        .pragma("wal_autocheckpoint", WAL_AUTOCHECKPOINT))
}

fn is_memory(path: &Path) -> bool {
    let p = path.to_string_lossy();
    p == ":memory:" || p.starts_with("file:")
}

/// The feed at `url` (by its URL or the URL it was first subscribed at), made as `new` says
/// when there is none; and whether it was made. A feed removed on request is
/// [`StoreError::FeedRemoved`] (WFM10).
pub(super) async fn feed_for(
    tx: &mut Transaction<'static, Sqlite>,
    url: &FeedUrl,
    now: DateTime<Utc>,
    new: &NewFeed,
) -> Result<(i64, bool)> {
    let existing: Option<(i64, String)> = sqlx::query_as(AssertSqlSafe(sql::AT_URL.as_str()))
        .bind(url.as_str())
        .fetch_optional(&mut **tx)
        .await?;
    let (feed_id, new_feed) = match existing {
        Some((_, state)) if state == FeedState::Removed.as_str() => {
            return Err(StoreError::FeedRemoved(url.to_string()));
        }
        Some((id, _)) => (id, false),
        None => {
            apply::ensure_host_at(tx, url, now).await?;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO feeds (url, original_url, host, next_fetch_at, next_fetch_reason, \
                     interval_secs, created_at) VALUES (?1, ?1, ?2, ?6, ?4, ?5, ?3) RETURNING id",
            )
            .bind(url.as_str())
            .bind(url.host_key().as_str())
            .bind(micros(now))
            .bind(&new.next_fetch_reason)
            .bind(new.interval_secs)
            .bind(micros(new.next_fetch_at))
            .fetch_one(&mut **tx)
            .await?;
            (id, true)
        }
    };
    Ok((feed_id, new_feed))
}

/// How this backend binds a time and matches an id list in a statement built at run time.
impl crate::sql::Dialect for sqlx::Sqlite {
    type Time = i64;

    fn time(at: chrono::DateTime<chrono::Utc>) -> i64 {
        crate::codec::micros(at)
    }

    fn push_in_ids(
        sql: &mut sqlx::QueryBuilder<Self>,
        column: &str,
        ids: &[i64],
    ) -> crate::Result<()> {
        sql.push(format_args!(
            " AND {column} IN (SELECT value FROM json_each("
        ))
        .push_bind(apply::json(&ids)?)
        .push("))");
        Ok(())
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn subscribe(
        &self,
        url: &FeedUrl,
        subscriber: &str,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed> {
        let (_turn, mut tx) = self.write().await?;
        let (feed_id, new_feed) = feed_for(&mut tx, url, now, new).await?;
        let new_subscription = sqlx::query(AssertSqlSafe(sql::SUBSCRIBE.as_str()))
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
        let done = sqlx::query(AssertSqlSafe(sql::UNSUBSCRIBE.as_str()))
            .bind(feed.0)
            .bind(subscriber)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn discard_feed(&self, feed: FeedId) -> Result<bool> {
        let done = sqlx::query(AssertSqlSafe(sql::DISCARD.as_str()))
            .bind(feed.0)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn remove_feed(&self, feed: FeedId) -> Result<bool> {
        let (_turn, mut tx) = self.write().await?;
        let found = sqlx::query(AssertSqlSafe(sql::REMOVE.as_str()))
            .bind(feed.0)
            .bind(codec::REMOVED_REASON)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        sqlx::query(AssertSqlSafe(sql::DROP_SUBSCRIPTIONS.as_str()))
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        // Its hub stops being listened to: a push for it finds no callback (WFM10).
        sqlx::query(AssertSqlSafe(sql::DROP_WEBSUB.as_str()))
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(found)
    }

    async fn feed(&self, id: FeedId) -> Result<Option<FeedRecord>> {
        sqlx::query(AssertSqlSafe(sql::BY_ID.as_str()))
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::feed_from_row)
            .transpose()
    }

    async fn feed_by_url(&self, url: &FeedUrl) -> Result<Option<FeedRecord>> {
        sqlx::query(AssertSqlSafe(sql::BY_URL.as_str()))
            .bind(url.as_str())
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::feed_from_row)
            .transpose()
    }

    async fn feeds(&self) -> Result<Vec<FeedRecord>> {
        sqlx::query(AssertSqlSafe(sql::ALL.as_str()))
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn due_feeds(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<FeedRecord>> {
        sqlx::query(AssertSqlSafe(sql::DUE.as_str()))
            .bind(micros(now))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn due_feeds_after(
        &self,
        now: DateTime<Utc>,
        after: Option<(DateTime<Utc>, FeedId)>,
        limit: u32,
    ) -> Result<Vec<FeedRecord>> {
        let Some(after) = after else {
            return self.due_feeds(now, limit).await;
        };
        sqlx::query(AssertSqlSafe(sql::DUE_AFTER.as_str()))
            .bind(micros(now))
            .bind(i64::from(limit))
            .bind(micros(after.0))
            .bind(after.1.0)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>> {
        let at: Option<i64> = sqlx::query_scalar(AssertSqlSafe(sql::NEXT_DUE.as_str()))
            .fetch_one(&self.pool)
            .await?;
        at.map(codec::from_micros).transpose()
    }

    async fn next_due_after(&self, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
        let at: Option<i64> = sqlx::query_scalar(AssertSqlSafe(sql::NEXT_DUE_AFTER.as_str()))
            .bind(micros(after))
            .fetch_one(&self.pool)
            .await?;
        at.map(codec::from_micros).transpose()
    }

    async fn apply_fetch(&self, fetch: FetchRecord) -> Result<ApplyReport> {
        self.apply_grouped(apply::Prepared::of(fetch)?).await
    }

    async fn apply_push(&self, push: crate::PushRecord) -> Result<ApplyReport> {
        self.apply_push_in(push).await
    }

    async fn websub(&self, feed: FeedId) -> Result<Option<crate::WebSubRecord>> {
        self.websub_in(feed).await
    }

    async fn websub_by_token(&self, token: &str) -> Result<Option<crate::WebSubRecord>> {
        self.websub_by_token_in(token).await
    }

    async fn save_websub(&self, record: &crate::WebSubRecord, log: &[RequestLogRow]) -> Result<()> {
        self.save_websub_in(record, log).await
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
        if let Some(category) = &query.category {
            let Some(needle) = codec::category_needle(category) else {
                return Ok(Vec::new());
            };
            sql.push(" AND instr(e.categories, ")
                .push_bind(needle)
                .push(") > 0");
        }
        if let Some(now) = query.current_at {
            sql.push(" AND (e.expires IS NULL OR e.expires > ")
                .push_bind(micros(now))
                .push(") AND e.feed_id NOT IN (SELECT id FROM feeds WHERE expires <= ")
                .push_bind(micros(now))
                .push(")");
        }
        if let Some(subscriber) = &query.subscriber {
            sql.push(" AND e.feed_id IN (SELECT feed_id FROM subscriptions WHERE subscriber = ")
                .push_bind(subscriber.as_str())
                .push(")");
        }
        if let SearchFilter::Words(words) = &search {
            // FF14: a feed under noindex keeps its entries out of search.
            sql.push(" AND e.feed_id NOT IN (SELECT id FROM feeds WHERE noindex = 1)");
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
            .map(rows::entry_from_row)
            .collect()
    }

    async fn directive_history(&self, feed: FeedId, limit: u32) -> Result<Vec<DirectiveRecord>> {
        use sqlx::Row;
        let rows = sqlx::query(AssertSqlSafe(sql::DIRECTIVE_HISTORY.as_str()))
            .bind(feed.0)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(DirectiveRecord {
                    at: codec::from_micros(row.try_get("at")?)?,
                    seen: codec::decode_directives(Some(
                        row.try_get::<String, _>("seen")?.as_str(),
                    )),
                    current: codec::decode_directives(Some(
                        row.try_get::<String, _>("current")?.as_str(),
                    )),
                    full: row.try_get("full_response")?,
                })
            })
            .collect()
    }

    async fn prune_request_log(&self, before: DateTime<Utc>) -> Result<u64> {
        /// Rows deleted per transaction.
        const BATCH: i64 = 10_000;
        let mut deleted = 0;
        loop {
            let (_turn, mut tx) = self.write().await?;
            let done = sqlx::query(sqlx::AssertSqlSafe(log::lite::PRUNE.as_str()))
                .bind(micros(before))
                .bind(BATCH)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            deleted += done;
            if done < u64::try_from(BATCH).unwrap_or(u64::MAX) {
                break;
            }
        }
        let (_turn, mut tx) = self.write().await?;
        let open = sqlx::query(sqlx::AssertSqlSafe(log::lite::PRUNE_OPEN.as_str()))
            .bind(micros(before))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(deleted + open)
    }

    async fn request_log(&self, query: &LogQuery) -> Result<Vec<RequestLogRow>> {
        let mut sql = log::listing::<Sqlite>(query);
        sql.build()
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::log_from_row)
            .collect()
    }

    async fn open_request(&self, row: &RequestLogRow) -> Result<RequestTicket> {
        self.open_grouped(row.clone()).await
    }

    async fn withdraw_request(&self, ticket: RequestTicket) -> Result<()> {
        let (_turn, mut tx) = self.write().await?;
        sqlx::query(AssertSqlSafe(log::lite::WITHDRAW.as_str()))
            .bind(ticket.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn count_entries(&self, feed: Option<FeedId>) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(AssertSqlSafe(sql::COUNT_ENTRIES.as_str()))
            .bind(feed.map(|f| f.0))
            .fetch_one(&self.pool)
            .await?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative count {n}")))
    }

    async fn new_entry_counts(
        &self,
        feed: FeedId,
        ids: &[&str],
        since: DateTime<Utc>,
    ) -> Result<NewEntryCounts> {
        let keys: Vec<std::borrow::Cow<'_, str>> =
            ids.iter().map(|id| codec::entry_key(id)).collect();
        let keys = serde_json::to_string(&keys)
            .map_err(|e| StoreError::Corrupt(format!("entry keys: {e}")))?;
        let (unseen, recent): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM json_each(?1) AS k WHERE NOT EXISTS \
               (SELECT 1 FROM entries e WHERE e.feed_id = ?2 AND e.entry_key = k.value)), \
             (SELECT COUNT(*) FROM entries WHERE feed_id = ?2 AND first_seen_at >= ?3)",
        )
        .bind(keys)
        .bind(feed.0)
        .bind(codec::micros(since))
        .fetch_one(&self.pool)
        .await?;
        Ok(NewEntryCounts {
            unseen: codec::count(unseen)?,
            first_seen_since: codec::count(recent)?,
        })
    }

    async fn host_state(&self, host: &str) -> Result<HostState> {
        let (floor, robots) = self.host_row(host, None).await?;
        Ok(HostState { floor, robots })
    }

    async fn host_state_holding(
        &self,
        host: &str,
        held: DateTime<Utc>,
        held_status: Option<i32>,
    ) -> Result<HostStateHolding> {
        let held = Some((held, held_status));
        let (floor, robots) = self.host_row(host, held).await?;
        Ok(HostStateHolding::of(floor, robots, held))
    }

    async fn claim_hosts(
        &self,
        hosts: &[String],
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<HostClaim>> {
        if hosts.is_empty() {
            return Ok(Vec::new());
        }
        self.claim_grouped(leases::Claim {
            hosts: hosts.to_vec(),
            holder: holder.to_owned(),
            now,
            until,
        })
        .await
    }

    async fn release_hosts(
        &self,
        holder: &str,
        releases: &[Release],
        now: DateTime<Utc>,
    ) -> Result<u64> {
        if releases.is_empty() {
            return Ok(0);
        }
        self.give_back_grouped(leases::GiveBack {
            holder: holder.to_owned(),
            releases: releases.to_vec(),
            now,
        })
        .await
    }

    async fn save_robots(
        &self,
        host: &str,
        robots: &RobotsCache,
        log: &[RequestLogRow],
    ) -> Result<()> {
        let (_turn, mut tx) = self.write().await?;
        sqlx::query(AssertSqlSafe(sql::SAVE_ROBOTS.as_str()))
            .bind(host)
            .bind(micros(robots.fetched_at))
            .bind(robots.status)
            .bind(robots.body.as_deref())
            .execute(&mut *tx)
            .await?;
        for row in log {
            apply::insert_log(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn resume_feed(&self, id: FeedId, at: DateTime<Utc>, reason: &str) -> Result<bool> {
        let done = sqlx::query(AssertSqlSafe(sql::RESUME.as_str()))
            .bind(id.0)
            .bind(micros(at))
            .bind(reason)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn add_block(&self, block: &NewBlock) -> Result<BlockAdded> {
        let _clear = ClearOnDrop(&self.blocks_version);
        let (_turn, mut tx) = self.write().await?;
        let new = sqlx::query(AssertSqlSafe(sql::ADD_BLOCK.as_str()))
            .bind(&block.kind)
            .bind(&block.value)
            .bind(block.reason.as_deref())
            .bind(micros(block.created_at))
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        let row: (i64, String, String, Option<String>, i64) =
            sqlx::query_as(AssertSqlSafe(sql::BLOCK.as_str()))
                .bind(&block.kind)
                .bind(&block.value)
                .fetch_one(&mut *tx)
                .await?;
        tx.commit().await?;
        Ok(BlockAdded {
            block: block_from_row(row)?,
            new,
        })
    }

    async fn remove_block(&self, kind: &str, value: &str) -> Result<bool> {
        let _clear = ClearOnDrop(&self.blocks_version);
        let done = sqlx::query(AssertSqlSafe(sql::REMOVE_BLOCK.as_str()))
            .bind(kind)
            .bind(value)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn blocks(&self) -> Result<Vec<StoredBlock>> {
        let rows: Vec<(i64, String, String, Option<String>, i64)> =
            sqlx::query_as(AssertSqlSafe(sql::BLOCKS.as_str()))
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter().map(block_from_row).collect()
    }

    async fn blocks_version(&self) -> Result<i64> {
        if let Some(version) = self.blocks_version.get() {
            return Ok(version);
        }
        let (version,): (i64,) = sqlx::query_as(AssertSqlSafe(sql::BLOCKS_VERSION.as_str()))
            .fetch_one(&self.pool)
            .await?;
        self.blocks_version.set(version);
        Ok(version)
    }

    async fn add_bot_key(&self, key: &crate::BotKeyRow) -> Result<bool> {
        keys::add_bot_key(self, key).await
    }

    async fn bot_keys(&self) -> Result<Vec<crate::BotKeyRow>> {
        keys::bot_keys(self).await
    }

    async fn queue_pages(
        &self,
        feed: FeedId,
        pages: &[crate::NewPage],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        self.queue_pages_in(feed, pages, due_at, reason).await
    }

    async fn queue_icons(
        &self,
        feed: FeedId,
        site: &str,
        candidates: &[String],
        first_add: bool,
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<bool> {
        self.queue_icons_in(feed, site, candidates, first_add, due_at, reason)
            .await
    }

    async fn due_resources(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<crate::ResourceRecord>> {
        self.due_resources_in(now, limit).await
    }

    async fn next_resource_due(&self, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
        self.next_resource_due_in(after).await
    }

    async fn apply_resource(&self, apply: &crate::ResourceApply) -> Result<ApplyReport> {
        self.apply_resource_in(apply).await
    }

    async fn resources(
        &self,
        purpose: Option<tidings_model::RequestPurpose>,
        limit: u32,
    ) -> Result<Vec<crate::ResourceRecord>> {
        self.resources_in(purpose, limit).await
    }

    async fn icon(&self, site: &str) -> Result<Option<crate::StoredIcon>> {
        self.icon_in(site).await
    }

    async fn sites_with_icons(&self, sites: &[String]) -> Result<Vec<String>> {
        self.sites_with_icons_in(sites).await
    }

    async fn queue_images(
        &self,
        feed: FeedId,
        urls: &[String],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        self.queue_images_in(feed, urls, due_at, reason).await
    }

    async fn image(&self, url: &str, at: DateTime<Utc>) -> Result<Option<crate::StoredImage>> {
        self.image_in(url, at).await
    }

    async fn cached_images(&self, urls: &[String]) -> Result<Vec<String>> {
        self.cached_images_in(urls).await
    }

    async fn prune_images(&self, bounds: crate::ImageBounds) -> Result<(u64, u64)> {
        self.prune_images_in(bounds).await
    }

    async fn image_cache_stats(&self) -> Result<crate::ImageCacheStats> {
        self.image_cache_stats_in().await
    }

    async fn apply_check(&self, apply: &crate::CheckApply) -> Result<i64> {
        self.apply_check_in(apply).await
    }

    async fn last_checks(&self, urls: &[String]) -> Result<Vec<crate::StoredCheck>> {
        self.last_checks_in(urls).await
    }

    async fn url_check(&self, id: i64) -> Result<Option<crate::StoredCheck>> {
        self.url_check_in(id).await
    }

    async fn url_checks(&self, url: &str, limit: u32) -> Result<Vec<crate::StoredCheck>> {
        self.url_checks_in(url, limit).await
    }

    async fn held_checks(&self, limit: u32) -> Result<Vec<crate::StoredCheck>> {
        self.held_checks_in(limit).await
    }

    async fn feeds_with_content_hash(&self, hash: &str) -> Result<Vec<FeedId>> {
        self.feeds_with_content_hash_in(hash).await
    }

    async fn add_search_query(
        &self,
        provider: &str,
        query: &str,
        at: DateTime<Utc>,
    ) -> Result<(crate::SearchQuery, bool)> {
        self.add_search_query_in(provider, query, at).await
    }

    async fn search_queries(&self) -> Result<Vec<crate::SearchQuery>> {
        self.search_queries_in().await
    }

    async fn remove_search_query(&self, id: i64) -> Result<bool> {
        self.remove_search_query_in(id).await
    }

    async fn search_query_ran(&self, id: i64, at: DateTime<Utc>, result: &str) -> Result<()> {
        self.search_query_ran_in(id, at, result).await
    }

    async fn submit_page_job(&self, job: &crate::NewPageJob) -> Result<crate::PageJob> {
        self.submit_page_job_in(job).await
    }

    async fn page_job(&self, id: i64) -> Result<Option<crate::PageJob>> {
        self.page_job_in(id).await
    }

    async fn page_jobs(&self, limit: u32) -> Result<Vec<crate::PageJob>> {
        self.page_jobs_in(limit).await
    }

    async fn claim_page_job(
        &self,
        only: Option<i64>,
        at: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<crate::PageJob>> {
        self.claim_page_job_in(only, at, stale_before).await
    }

    async fn release_page_job(&self, id: i64, at: DateTime<Utc>) -> Result<bool> {
        self.release_page_job_in(id, at).await
    }

    async fn page_job_frontier(&self, id: i64) -> Result<crate::JobFrontier> {
        self.page_job_frontier_in(id).await
    }

    async fn page_job_step(&self, id: i64, step: &crate::JobStep, at: DateTime<Utc>) -> Result<()> {
        self.page_job_step_in(id, step, at).await
    }

    async fn page_job_feeds(&self, id: i64) -> Result<Vec<crate::JobFeed>> {
        self.page_job_feeds_in(id).await
    }

    async fn finish_page_job(
        &self,
        id: i64,
        state: tidings_model::PageJobState,
        stopped_by: Option<&str>,
        error: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        self.finish_page_job_in(id, state, stopped_by, error, at)
            .await
    }

    async fn prune_page_jobs(&self, before: DateTime<Utc>) -> Result<u64> {
        self.prune_page_jobs_in(before).await
    }

    async fn add_to_catalogue(
        &self,
        feed: FeedId,
        added_by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        self.add_to_catalogue_in(feed, added_by, at).await
    }

    async fn catalogue(&self) -> Result<Vec<crate::CatalogueEntry>> {
        self.catalogue_in().await
    }

    async fn remove_from_catalogue(&self, feed: FeedId) -> Result<bool> {
        self.remove_from_catalogue_in(feed).await
    }

    async fn entry_overlap(&self, ids: &[String], limit: u32) -> Result<Vec<crate::EntryOverlap>> {
        self.entry_overlap_in(ids, limit).await
    }

    async fn remove_bot_key(&self, keyid: &str) -> Result<bool> {
        keys::remove_bot_key(self, keyid).await
    }

    async fn add_account(&self, account: &crate::NewAccount) -> Result<Option<crate::Account>> {
        accounts::add(self, account).await
    }

    async fn accounts(&self) -> Result<Vec<crate::Account>> {
        accounts::list(self).await
    }

    async fn account_secrets(&self, name: &str) -> Result<Option<crate::AccountSecrets>> {
        accounts::secrets(self, name).await
    }

    async fn set_password(&self, name: &str, hash: &str, at: DateTime<Utc>) -> Result<bool> {
        accounts::set_password(self, name, hash, at).await
    }

    async fn set_api_password(
        &self,
        name: &str,
        password: Option<&crate::ApiPassword>,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        accounts::set_api_password(self, name, password, at).await
    }

    async fn account_by_fever_key(&self, fever_key_hash: &str) -> Result<Option<crate::Account>> {
        accounts::by_fever_key(self, fever_key_hash).await
    }

    async fn remove_account(&self, name: &str) -> Result<bool> {
        accounts::remove(self, name).await
    }

    async fn create_session(&self, session: &crate::NewSession) -> Result<()> {
        accounts::create_session(self, session).await
    }

    async fn session_account(
        &self,
        token_hash: &str,
        kind: crate::SessionKind,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::Account>> {
        accounts::session_account(self, token_hash, kind, now).await
    }

    async fn end_session(&self, token_hash: &str) -> Result<bool> {
        accounts::end_session(self, token_hash).await
    }

    async fn subscribe_account(
        &self,
        url: &FeedUrl,
        account: i64,
        placement: &crate::Placement,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed> {
        reading::subscribe(self, url, account, placement, now, new).await
    }

    async fn move_subscriptions(
        &self,
        from: FeedId,
        to: &FeedUrl,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed> {
        reading::move_subscriptions(self, from, to, now, new).await
    }

    async fn unsubscribe_account(&self, account: i64, feed: FeedId) -> Result<bool> {
        reading::unsubscribe(self, account, feed).await
    }

    async fn subscriptions(&self, account: i64) -> Result<Vec<crate::Subscription>> {
        reading::subscriptions(self, account).await
    }

    async fn edit_subscription(
        &self,
        account: i64,
        feed: FeedId,
        edit: &crate::SubscriptionEdit,
    ) -> Result<bool> {
        reading::edit(self, account, feed, edit).await
    }

    async fn rename_folder(&self, account: i64, from: &str, to: Option<&str>) -> Result<u64> {
        reading::rename_folder(self, account, from, to).await
    }

    async fn set_entry_states(
        &self,
        account: i64,
        ids: &[i64],
        change: crate::StateChange,
        now: DateTime<Utc>,
    ) -> Result<u64> {
        reading::set_states(self, account, ids, change, now).await
    }

    async fn mark_all_read(
        &self,
        account: i64,
        scope: &crate::ReadScope,
        up_to: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64> {
        reading::mark_all_read(self, account, scope, up_to, now).await
    }

    async fn reading(&self, query: &crate::ReadingQuery) -> Result<Vec<crate::ReadEntry>> {
        reading::reading(self, query).await
    }

    async fn count_reading(&self, query: &crate::ReadingQuery) -> Result<u64> {
        reading::count(self, query).await
    }

    async fn recount_unread(&self, account: i64) -> Result<Vec<(FeedId, u64)>> {
        reading::recount_unread(self, account).await
    }

    async fn create_key(&self, key: &crate::NewKey) -> Result<crate::ApiKey> {
        keys::create(self, key).await
    }

    async fn key_by_hash(&self, hash: &str) -> Result<Option<crate::ApiKey>> {
        keys::by_hash(self, hash).await
    }

    async fn list_keys(&self) -> Result<Vec<crate::ApiKey>> {
        keys::list(self).await
    }

    async fn revoke_key(&self, id: i64, at: DateTime<Utc>) -> Result<bool> {
        keys::revoke(self, id, at).await
    }

    async fn touch_key(&self, id: i64, at: DateTime<Utc>) -> Result<()> {
        keys::touch(self, id, at).await
    }

    async fn read_sooner(&self, id: FeedId, sooner: &crate::Sooner) -> Result<bool> {
        let (_turn, mut tx) = self.write().await?;
        let moved = sqlx::query(AssertSqlSafe(sql::READ_SOONER.as_str()))
            .bind(id.0)
            .bind(micros(sooner.at))
            .bind(&sooner.reason)
            .bind(sooner.after_read.map(micros))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(moved > 0)
    }

    async fn patch_feed(&self, id: FeedId, patch: &FeedPatch) -> Result<Option<FeedRecord>> {
        let (_turn, mut tx) = self.write().await?;
        match patch.paused {
            Some(true) => {
                sqlx::query(AssertSqlSafe(sql::PAUSE.as_str()))
                    .bind(id.0)
                    .bind(&patch.reason)
                    .bind(patch.held_by.as_deref())
                    .execute(&mut *tx)
                    .await?;
            }
            Some(false) => {
                sqlx::query(AssertSqlSafe(sql::RESUME.as_str()))
                    .bind(id.0)
                    .bind(micros(patch.at))
                    .bind(&patch.reason)
                    .execute(&mut *tx)
                    .await?;
            }
            None => {}
        }
        if let Some(egress) = &patch.egress {
            sqlx::query(AssertSqlSafe(sql::SET_EGRESS.as_str()))
                .bind(id.0)
                .bind(egress.as_deref())
                .execute(&mut *tx)
                .await?;
        }
        if let Some(overrides) = &patch.overrides {
            sqlx::query(AssertSqlSafe(sql::SET_OVERRIDES.as_str()))
                .bind(id.0)
                .bind(codec::encode_overrides(overrides)?)
                .execute(&mut *tx)
                .await?;
        }
        if let Some((at, reason)) = &patch.reschedule {
            sqlx::query(AssertSqlSafe(sql::RESCHEDULE.as_str()))
                .bind(id.0)
                .bind(micros(*at))
                .bind(reason)
                .execute(&mut *tx)
                .await?;
        }
        let feed = sqlx::query(AssertSqlSafe(sql::BY_ID.as_str()))
            .bind(id.0)
            .fetch_optional(&mut *tx)
            .await?
            .as_ref()
            .map(rows::feed_from_row)
            .transpose()?;
        tx.commit().await?;
        Ok(feed)
    }

    async fn feeds_of(&self, subscriber: &str) -> Result<Vec<FeedRecord>> {
        sqlx::query(AssertSqlSafe(sql::OF_SUBSCRIBER.as_str()))
            .bind(subscriber)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn count_due(&self, now: DateTime<Utc>) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(AssertSqlSafe(sql::COUNT_DUE.as_str()))
            .bind(micros(now))
            .fetch_one(&self.pool)
            .await?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative count {n}")))
    }

    async fn count_feeds_by_state(&self) -> Result<Vec<(FeedState, u64)>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(AssertSqlSafe(sql::COUNT_BY_STATE.as_str()))
            .fetch_all(&self.pool)
            .await?;
        codec::counts_by_state(rows)
    }

    async fn entry(&self, id: i64) -> Result<Option<StoredEntry>> {
        let mut sql = QueryBuilder::<Sqlite>::new(ENTRY_COLUMNS);
        sql.push(" WHERE e.id = ").push_bind(id);
        sql.build()
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::entry_from_row)
            .transpose()
    }
}

fn block_from_row(
    (id, kind, value, reason, created_at): (i64, String, String, Option<String>, i64),
) -> Result<StoredBlock> {
    Ok(StoredBlock {
        id,
        kind,
        value,
        reason,
        created_at: codec::from_micros(created_at)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Committed pages reach the database file without a writer checkpointing: the commit
    /// below stays far under the writers' backstop, so only the checkpointer copies it back.
    #[tokio::test]
    async fn the_wal_is_checkpointed_beside_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wal.db");
        let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        {
            let (_turn, mut tx) = store.write().await.unwrap();
            sqlx::query("CREATE TABLE filler (b BLOB)")
                .execute(&mut *tx)
                .await
                .unwrap();
            // About 2 MiB: 500 pages, under the backstop's 100,000.
            for _ in 0..64 {
                sqlx::query("INSERT INTO filler VALUES (zeroblob(32768))")
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
            tx.commit().await.unwrap();
        }
        let wal = dir.path().join("wal.db-wal");
        assert!(std::fs::metadata(&wal).unwrap().len() > 2_000_000);
        let mut grown = 0;
        for _ in 0..100 {
            tokio::time::sleep(CHECKPOINT_EVERY / 5).await;
            grown = std::fs::metadata(&path)
                .unwrap()
                .len()
                .saturating_sub(before);
            if grown > 2_000_000 {
                break;
            }
        }
        assert!(
            grown > 2_000_000,
            "the database file grew by {grown} bytes only"
        );
    }
}
