//! The PostgreSQL backend, chosen by a `postgres://` URL: the shared store of several crawler
//! processes.
//!
//! Times are `TIMESTAMPTZ`; the full-text index is a generated `tsvector` column (configuration
//! `simple`, so no language guessing and no stop words) searched with `plainto_tsquery`, which
//! reads any input as plain words. `apply_fetch` locks the feed row (`FOR UPDATE`) so two
//! processes can never interleave the fetch results of one feed. A process's fetches are
//! written by group commit (`group`): many in one transaction.

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
    self, DEFAULT_ENTRY_LIMIT, ENTRY_COLUMNS, MAX_ENTRY_LIMIT, SearchFilter, without_nul,
    without_nul_opt,
};
use crate::feeds::pg as sql;
use crate::freshness::ClearOnDrop;
use crate::log;
use crate::{
    ApplyReport, BlockAdded, EntryQuery, FeedPatch, FeedRecord, FeedState, FetchRecord, HostClaim,
    HostState, HostStateHolding, LogQuery, NewBlock, NewEntryCounts, NewFeed, RequestLogRow,
    Result, RobotsCache, Store, StoreError, StoredBlock, StoredEntry, Subscribed, migrations,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, QueryBuilder};
use std::str::FromStr;
use std::time::Duration;
use tidings_model::{FeedId, FeedUrl, RequestTicket};

/// Connections in the pool of one process.
const MAX_CONNECTIONS: u32 = 8;
/// How long to wait for a free connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long opening the store waits for PostgreSQL's first answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The store in a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// Fetches are written by group commit (`group`).
    writer: group::Writer,
    /// The do-not-crawl rules' version, as last read.
    blocks_version: std::sync::Arc<crate::freshness::Kept>,
}

impl PgStore {
    /// Host `host`'s floor and robots.txt copy, the copy's text left out when it is `held`
    /// (`sql::HOST_STATE`).
    async fn host_row(
        &self,
        host: &str,
        held: Option<(DateTime<Utc>, Option<i32>)>,
    ) -> Result<(Option<DateTime<Utc>>, Option<RobotsCache>)> {
        type Row = (
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
            Option<i32>,
            Option<String>,
        );
        let row: Option<Row> = sqlx::query_as(sql::HOST_STATE)
            .bind(host)
            .bind(held.map(|(at, _)| at))
            .bind(held.and_then(|(_, status)| status))
            .fetch_optional(&self.pool)
            .await?;
        let Some((floor, fetched_at, status, body)) = row else {
            return Ok((None, None));
        };
        let robots = fetched_at.map(|fetched_at| RobotsCache {
            fetched_at,
            status,
            body,
        });
        Ok((floor, robots))
    }

    /// Connect to the database at the `postgres://` URL `location` and apply pending migrations.
    pub async fn open(location: &str) -> Result<PgStore> {
        let options = PgConnectOptions::from_str(location)
            .map_err(|e| StoreError::Location(redact(location), e.to_string()))?;
        // One connection first, so an unreachable server is said at once and why (refused,
        // unknown host, wrong password), not as a pool that timed out.
        let first = <sqlx::PgConnection as sqlx::Connection>::connect_with(&options);
        match tokio::time::timeout(CONNECT_TIMEOUT, first).await {
            Ok(Ok(first)) => {
                let _ = sqlx::Connection::close(first).await;
            }
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => {
                return Err(StoreError::Location(
                    redact(location),
                    format!(
                        "PostgreSQL did not answer within {}s",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                ));
            }
        }
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await?;
        migrations::postgres().run(&pool).await?;
        Ok(PgStore {
            writer: group::Writer::start(pool.clone()),
            pool,
            blocks_version: Default::default(),
        })
    }
}

/// `location` without its password, for error messages.
fn redact(location: &str) -> String {
    match url::Url::parse(location) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("***"));
            }
            url.to_string()
        }
        Err(_) => "<unparseable postgres url>".to_owned(),
    }
}

/// The feed at `url` (by its URL or the URL it was first subscribed at), made as `new` says
/// when there is none; and whether it was made. A feed removed on request is
/// [`StoreError::FeedRemoved`] (WFM10).
pub(super) async fn feed_for(
    tx: &mut sqlx::Transaction<'static, Postgres>,
    url: &FeedUrl,
    now: DateTime<Utc>,
    new: &NewFeed,
) -> Result<(i64, bool)> {
    apply::ensure_host(tx, url, now).await?;
    // Insert first, so two processes subscribing at once meet on the unique URL.
    let inserted: Option<i64> = sqlx::query_scalar(
        "INSERT INTO feeds (url, original_url, host, next_fetch_at, next_fetch_reason, \
             interval_secs, created_at) \
             SELECT $1, $1, $2, $6, $4, $5, $3 \
             WHERE NOT EXISTS (SELECT 1 FROM feeds WHERE original_url = $1) \
             ON CONFLICT (url) DO NOTHING RETURNING id",
    )
    .bind(url.as_str())
    .bind(url.host_key().as_str())
    .bind(now)
    .bind(&new.next_fetch_reason)
    .bind(new.interval_secs)
    .bind(new.next_fetch_at)
    .fetch_optional(&mut **tx)
    .await?;
    let (feed_id, new_feed) = match inserted {
        Some(id) => (id, true),
        None => {
            let (id, state): (i64, String) = sqlx::query_as(sql::AT_URL)
                .bind(url.as_str())
                .fetch_one(&mut **tx)
                .await?;
            if state == FeedState::Removed.as_str() {
                return Err(StoreError::FeedRemoved(url.to_string()));
            }
            (id, false)
        }
    };
    Ok((feed_id, new_feed))
}

/// How this backend binds a time and matches an id list in a statement built at run time.
impl crate::sql::Dialect for sqlx::Postgres {
    type Time = chrono::DateTime<chrono::Utc>;

    fn time(at: chrono::DateTime<chrono::Utc>) -> Self::Time {
        at
    }

    fn push_in_ids(
        sql: &mut sqlx::QueryBuilder<Self>,
        column: &str,
        ids: &[i64],
    ) -> crate::Result<()> {
        sql.push(format_args!(" AND {column} = ANY("))
            .push_bind(ids.to_vec())
            .push(")");
        Ok(())
    }
}

#[async_trait]
impl Store for PgStore {
    async fn subscribe(
        &self,
        url: &FeedUrl,
        subscriber: &str,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed> {
        let mut tx = self.pool.begin().await?;
        let (feed_id, new_feed) = feed_for(&mut tx, url, now, new).await?;
        let new_subscription = sqlx::query(sql::SUBSCRIBE)
            .bind(feed_id)
            .bind(subscriber)
            .bind(now)
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
        let done = sqlx::query(sql::UNSUBSCRIBE)
            .bind(feed.0)
            .bind(subscriber)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn discard_feed(&self, feed: FeedId) -> Result<bool> {
        let done = sqlx::query(sql::DISCARD)
            .bind(feed.0)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn remove_feed(&self, feed: FeedId) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let found = sqlx::query(sql::REMOVE)
            .bind(feed.0)
            .bind(codec::REMOVED_REASON)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        sqlx::query(sql::DROP_SUBSCRIPTIONS)
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        // Its hub stops being listened to: a push for it finds no callback (WFM10).
        sqlx::query(sql::DROP_WEBSUB)
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(found)
    }

    async fn feed(&self, id: FeedId) -> Result<Option<FeedRecord>> {
        sqlx::query(sql::BY_ID)
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::feed_from_row)
            .transpose()
    }

    async fn feed_by_url(&self, url: &FeedUrl) -> Result<Option<FeedRecord>> {
        sqlx::query(sql::BY_URL)
            .bind(url.as_str())
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::feed_from_row)
            .transpose()
    }

    async fn feeds(&self) -> Result<Vec<FeedRecord>> {
        sqlx::query(sql::ALL)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn due_feeds(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<FeedRecord>> {
        sqlx::query(sql::DUE)
            .bind(now)
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
        sqlx::query(sql::DUE_AFTER)
            .bind(now)
            .bind(i64::from(limit))
            .bind(after.0)
            .bind(after.1.0)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>> {
        let at: Option<DateTime<Utc>> = sqlx::query_scalar(sql::NEXT_DUE)
            .fetch_one(&self.pool)
            .await?;
        Ok(at)
    }

    async fn next_due_after(&self, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
        let at: Option<DateTime<Utc>> = sqlx::query_scalar(sql::NEXT_DUE_AFTER)
            .bind(after)
            .fetch_one(&self.pool)
            .await?;
        Ok(at)
    }

    async fn apply_fetch(&self, fetch: FetchRecord) -> Result<ApplyReport> {
        self.writer.apply(fetch).await
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
        let mut sql = QueryBuilder::<Postgres>::new(ENTRY_COLUMNS);
        sql.push(" WHERE TRUE");
        if let Some(feed) = query.feed {
            sql.push(" AND e.feed_id = ").push_bind(feed.0);
        }
        if let Some(since) = query.since {
            sql.push(" AND e.sort_at >= ").push_bind(since);
        }
        if let Some(until) = query.until {
            sql.push(" AND e.sort_at < ").push_bind(until);
        }
        if let Some(after) = query.after {
            sql.push(" AND (e.sort_at, e.id) < (")
                .push_bind(after.sort_at)
                .push(", ")
                .push_bind(after.id)
                .push(")");
        }
        if let Some(category) = &query.category {
            let Some(needle) = codec::category_needle(category) else {
                return Ok(Vec::new());
            };
            sql.push(" AND strpos(e.categories, ")
                .push_bind(needle)
                .push(") > 0");
        }
        if let Some(now) = query.current_at {
            sql.push(" AND (e.expires IS NULL OR e.expires > ")
                .push_bind(now)
                .push(") AND e.feed_id NOT IN (SELECT id FROM feeds WHERE expires <= ")
                .push_bind(now)
                .push(")");
        }
        if let Some(subscriber) = &query.subscriber {
            sql.push(" AND e.feed_id IN (SELECT feed_id FROM subscriptions WHERE subscriber = ")
                .push_bind(without_nul(subscriber).into_owned())
                .push(")");
        }
        if let SearchFilter::Words(words) = &search {
            // FF14: a feed under noindex keeps its entries out of search.
            sql.push(" AND e.feed_id NOT IN (SELECT id FROM feeds WHERE noindex)");
            sql.push(" AND e.search @@ plainto_tsquery('simple', ")
                .push_bind(without_nul(&words.join(" ")).into_owned())
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
        let rows = sqlx::query(sql::DIRECTIVE_HISTORY)
            .bind(feed.0)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(DirectiveRecord {
                    at: row.try_get("at")?,
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
            let mut tx = self.pool.begin().await?;
            let done = sqlx::query(log::pg::PRUNE)
                .bind(before)
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
        let open = sqlx::query(log::pg::PRUNE_OPEN)
            .bind(before)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(deleted + open)
    }

    async fn request_log(&self, query: &LogQuery) -> Result<Vec<RequestLogRow>> {
        let mut sql = log::listing::<Postgres>(query);
        sql.build()
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::log_from_row)
            .collect()
    }

    async fn open_request(&self, row: &RequestLogRow) -> Result<RequestTicket> {
        self.writer.open(row.clone()).await
    }

    async fn withdraw_request(&self, ticket: RequestTicket) -> Result<()> {
        sqlx::query(log::pg::WITHDRAW)
            .bind(ticket.0)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn count_entries(&self, feed: Option<FeedId>) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(sql::COUNT_ENTRIES)
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
        let keys: Vec<String> = ids
            .iter()
            .map(|id| codec::entry_key(id).into_owned())
            .collect();
        let (unseen, recent): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM unnest($1::TEXT[]) AS k(key) WHERE NOT EXISTS \
               (SELECT 1 FROM entries e WHERE e.feed_id = $2 AND e.entry_key = k.key)), \
             (SELECT COUNT(*) FROM entries WHERE feed_id = $2 AND first_seen_at >= $3)",
        )
        .bind(keys)
        .bind(feed.0)
        .bind(since)
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
        self.writer.claim(hosts, holder, now, until).await
    }

    async fn release_hosts(
        &self,
        holder: &str,
        releases: &[Release],
        now: DateTime<Utc>,
    ) -> Result<u64> {
        self.writer.give_back(holder, releases, now).await
    }

    async fn save_robots(
        &self,
        host: &str,
        robots: &RobotsCache,
        log: &[RequestLogRow],
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::SAVE_ROBOTS)
            .bind(host)
            .bind(robots.fetched_at)
            .bind(robots.status)
            .bind(robots.body.as_deref().map(codec::without_nul))
            .execute(&mut *tx)
            .await?;
        for row in log {
            apply::insert_log(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn resume_feed(&self, id: FeedId, at: DateTime<Utc>, reason: &str) -> Result<bool> {
        let done = sqlx::query(sql::RESUME)
            .bind(id.0)
            .bind(at)
            .bind(reason)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn add_block(&self, block: &NewBlock) -> Result<BlockAdded> {
        let _clear = ClearOnDrop(&self.blocks_version);
        let mut tx = self.pool.begin().await?;
        let new = sqlx::query(sql::ADD_BLOCK)
            .bind(without_nul(&block.kind).as_ref())
            .bind(without_nul(&block.value).as_ref())
            .bind(without_nul_opt(block.reason.as_deref()))
            .bind(block.created_at)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            > 0;
        let row: BlockTuple = sqlx::query_as(sql::BLOCK)
            .bind(without_nul(&block.kind).as_ref())
            .bind(without_nul(&block.value).as_ref())
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(BlockAdded {
            block: block_from_row(row),
            new,
        })
    }

    async fn remove_block(&self, kind: &str, value: &str) -> Result<bool> {
        let _clear = ClearOnDrop(&self.blocks_version);
        let done = sqlx::query(sql::REMOVE_BLOCK)
            .bind(without_nul(kind).as_ref())
            .bind(without_nul(value).as_ref())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn blocks(&self) -> Result<Vec<StoredBlock>> {
        let rows: Vec<BlockTuple> = sqlx::query_as(sql::BLOCKS).fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(block_from_row).collect())
    }

    async fn blocks_version(&self) -> Result<i64> {
        if let Some(version) = self.blocks_version.get() {
            return Ok(version);
        }
        let (version,): (i64,) = sqlx::query_as(sql::BLOCKS_VERSION)
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
        let moved = sqlx::query(sql::READ_SOONER)
            .bind(id.0)
            .bind(sooner.at)
            .bind(without_nul(&sooner.reason).into_owned())
            .bind(sooner.after_read)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(moved > 0)
    }

    async fn patch_feed(&self, id: FeedId, patch: &FeedPatch) -> Result<Option<FeedRecord>> {
        let mut tx = self.pool.begin().await?;
        match patch.paused {
            Some(true) => {
                sqlx::query(sql::PAUSE)
                    .bind(id.0)
                    .bind(without_nul(&patch.reason).into_owned())
                    .bind(patch.held_by.as_deref())
                    .execute(&mut *tx)
                    .await?;
            }
            Some(false) => {
                sqlx::query(sql::RESUME)
                    .bind(id.0)
                    .bind(patch.at)
                    .bind(without_nul(&patch.reason).into_owned())
                    .execute(&mut *tx)
                    .await?;
            }
            None => {}
        }
        if let Some(egress) = &patch.egress {
            sqlx::query(sql::SET_EGRESS)
                .bind(id.0)
                .bind(egress.as_deref().map(|e| without_nul(e).into_owned()))
                .execute(&mut *tx)
                .await?;
        }
        if let Some(overrides) = &patch.overrides {
            sqlx::query(sql::SET_OVERRIDES)
                .bind(id.0)
                .bind(codec::encode_overrides(overrides)?)
                .execute(&mut *tx)
                .await?;
        }
        if let Some((at, reason)) = &patch.reschedule {
            sqlx::query(sql::RESCHEDULE)
                .bind(id.0)
                .bind(*at)
                .bind(without_nul(reason).into_owned())
                .execute(&mut *tx)
                .await?;
        }
        let feed = sqlx::query(sql::BY_ID)
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
        sqlx::query(sql::OF_SUBSCRIBER)
            .bind(without_nul(subscriber).into_owned())
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(rows::feed_from_row)
            .collect()
    }

    async fn count_due(&self, now: DateTime<Utc>) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(sql::COUNT_DUE)
            .bind(now)
            .fetch_one(&self.pool)
            .await?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative count {n}")))
    }

    async fn count_feeds_by_state(&self) -> Result<Vec<(FeedState, u64)>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(sql::COUNT_BY_STATE)
            .fetch_all(&self.pool)
            .await?;
        codec::counts_by_state(rows)
    }

    async fn entry(&self, id: i64) -> Result<Option<StoredEntry>> {
        let mut sql = QueryBuilder::<Postgres>::new(ENTRY_COLUMNS);
        sql.push(" WHERE e.id = ").push_bind(id);
        sql.build()
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(rows::entry_from_row)
            .transpose()
    }
}

type BlockTuple = (i64, String, String, Option<String>, DateTime<Utc>);

fn block_from_row((id, kind, value, reason, created_at): BlockTuple) -> StoredBlock {
    StoredBlock {
        id,
        kind,
        value,
        reason,
        created_at,
    }
}
