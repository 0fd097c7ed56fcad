//! What discovery checked, on SQLite (FF2): one row per check, never updated.

use super::SqliteStore;
use super::apply::{insert_log, json, raise_host_floor};
use crate::codec::{self, micros};
use crate::search::lite::{ADD_QUERY, LIST_QUERIES, QUERY_BY_TEXT, QUERY_RAN, REMOVE_QUERY};
use crate::{CheckApply, EntryOverlap, Result, SearchQuery, StoredCheck, UrlCheck};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use tidings_model::FeedId;

use crate::checks::{check_columns, lite as sql};

impl SqliteStore {
    pub(super) async fn apply_check_in(&self, apply: &CheckApply) -> Result<i64> {
        let check = &apply.check;
        let (_turn, mut tx) = self.write().await?;
        let id: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql::ADD.as_str()))
            .bind(&check.url)
            .bind(micros(check.at))
            .bind(check.disposition.as_str())
            .bind(&check.reason)
            .bind(check.feed_id.map(|f| f.0))
            .bind(check.source.as_str())
            .bind(check.found_on.as_deref())
            .fetch_one(&mut *tx)
            .await?;
        for row in &apply.log {
            insert_log(&mut tx, row).await?;
        }
        if let Some((host, until)) = &apply.host_floor {
            raise_host_floor(&mut tx, host, micros(check.at), micros(*until)).await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    pub(super) async fn last_checks_in(&self, urls: &[String]) -> Result<Vec<StoredCheck>> {
        let rows = sqlx::query(concat!(
            check_columns!(),
            " WHERE id IN (SELECT MAX(id) FROM url_checks \
             WHERE url IN (SELECT value FROM json_each(?1)) GROUP BY url) ORDER BY url"
        ))
        .bind(json(&urls)?)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(check_from_row).collect()
    }

    pub(super) async fn url_check_in(&self, id: i64) -> Result<Option<StoredCheck>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(sql::BY_ID.as_str()))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(check_from_row).transpose()
    }

    pub(super) async fn url_checks_in(&self, url: &str, limit: u32) -> Result<Vec<StoredCheck>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::BY_URL.as_str()))
            .bind(url)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(check_from_row).collect()
    }

    pub(super) async fn held_checks_in(&self, limit: u32) -> Result<Vec<StoredCheck>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::HELD.as_str()))
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(check_from_row).collect()
    }
    pub(super) async fn feeds_with_content_hash_in(&self, hash: &str) -> Result<Vec<FeedId>> {
        let ids: Vec<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql::FEEDS_WITH_HASH.as_str()))
            .bind(hash)
            .fetch_all(&self.pool)
            .await?;
        Ok(ids.into_iter().map(FeedId).collect())
    }

    pub(super) async fn entry_overlap_in(
        &self,
        ids: &[String],
        limit: u32,
    ) -> Result<Vec<EntryOverlap>> {
        let rows = sqlx::query(
            "SELECT s.feed_id, s.shared, (SELECT COUNT(*) FROM entries e \
             WHERE e.feed_id = s.feed_id) AS total FROM (SELECT feed_id, COUNT(*) AS shared \
             FROM entries WHERE entry_key IN (SELECT value FROM json_each(?1)) \
             GROUP BY feed_id) s ORDER BY s.shared DESC, s.feed_id LIMIT ?2",
        )
        .bind(json(&ids)?)
        .bind(i64::from(limit.clamp(1, 1000)))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(EntryOverlap {
                    feed: FeedId(row.try_get("feed_id")?),
                    shared: u64::try_from(row.try_get::<i64, _>("shared")?).unwrap_or(0),
                    entries: u64::try_from(row.try_get::<i64, _>("total")?).unwrap_or(0),
                })
            })
            .collect()
    }
    pub(super) async fn add_search_query_in(
        &self,
        provider: &str,
        query: &str,
        at: DateTime<Utc>,
    ) -> Result<(SearchQuery, bool)> {
        let (_turn, mut tx) = self.write().await?;
        let new = sqlx::query(sqlx::AssertSqlSafe(ADD_QUERY.as_str()))
            .bind(provider)
            .bind(query)
            .bind(micros(at))
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        let row = sqlx::query(sqlx::AssertSqlSafe(QUERY_BY_TEXT.as_str()))
            .bind(provider)
            .bind(query)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok((query_from_row(&row)?, new))
    }

    pub(super) async fn search_queries_in(&self) -> Result<Vec<SearchQuery>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(LIST_QUERIES.as_str()))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(query_from_row).collect()
    }

    pub(super) async fn remove_search_query_in(&self, id: i64) -> Result<bool> {
        let done = sqlx::query(sqlx::AssertSqlSafe(REMOVE_QUERY.as_str()))
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(super) async fn search_query_ran_in(
        &self,
        id: i64,
        at: DateTime<Utc>,
        result: &str,
    ) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(QUERY_RAN.as_str()))
            .bind(id)
            .bind(micros(at))
            .bind(result)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

fn check_from_row(row: &SqliteRow) -> Result<StoredCheck> {
    Ok(StoredCheck {
        id: row.try_get("id")?,
        check: UrlCheck {
            url: row.try_get("url")?,
            at: codec::from_micros(row.try_get("checked_at")?)?,
            disposition: codec::decode_disposition(&row.try_get::<String, _>("disposition")?)?,
            reason: row.try_get("reason")?,
            feed_id: row.try_get::<Option<i64>, _>("feed_id")?.map(FeedId),
            source: codec::decode_check_source(&row.try_get::<String, _>("source")?)?,
            found_on: row.try_get("found_on")?,
        },
    })
}

fn query_from_row(row: &SqliteRow) -> Result<SearchQuery> {
    Ok(SearchQuery {
        id: row.try_get("id")?,
        provider: row.try_get("provider")?,
        query: row.try_get("query")?,
        created_at: codec::from_micros(row.try_get("created_at")?)?,
        last_run_at: codec::from_micros_opt(row.try_get("last_run_at")?)?,
        last_result: row.try_get("last_result")?,
    })
}
