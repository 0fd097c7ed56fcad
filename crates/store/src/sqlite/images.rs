//! The image cache on SQLite (FF9): one copy per image URL, read through the page queue, kept
//! within its bounds; and which sites have an icon kept.

use super::SqliteStore;
use super::apply::json;
use crate::codec::{self, micros};
use crate::images::lite as sql;
use crate::{ImageBounds, ImageCacheStats, Result, StoredImage};
use chrono::{DateTime, Utc};
use sqlx::{Row, Sqlite, Transaction};
use tidings_model::FeedId;

/// A copy served again within this many microseconds of its last use is not written back:
/// the expiry is counted in days, and a page of thumbnails should not be a page of writes.
const TOUCH_AFTER_MICROS: i64 = 3_600_000_000;

impl SqliteStore {
    pub(super) async fn sites_with_icons_in(&self, sites: &[String]) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT site FROM icons WHERE site IN (SELECT value FROM json_each(?1)) ORDER BY site",
        )
        .bind(json(&sites)?)
        .fetch_all(&self.pool)
        .await?)
    }

    pub(super) async fn queue_images_in(
        &self,
        feed: FeedId,
        urls: &[String],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        let (_turn, mut tx) = self.write().await?;
        let mut new = 0;
        for url in urls {
            new += sqlx::query(sqlx::AssertSqlSafe(sql::QUEUE_IMAGE.as_str()))
                .bind(url)
                .bind(feed.0)
                .bind(micros(due_at))
                .bind(reason)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        }
        tx.commit().await?;
        Ok(new)
    }

    pub(super) async fn image_in(
        &self,
        url: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<StoredImage>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(sql::IMAGE.as_str()))
            .bind(url)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let used: i64 = row.try_get("used_at")?;
        if used < micros(at) - TOUCH_AFTER_MICROS {
            let (_turn, mut tx) = self.write().await?;
            sqlx::query("UPDATE images SET used_at = MAX(used_at, ?2) WHERE url = ?1")
                .bind(url)
                .bind(micros(at))
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        }
        Ok(Some(StoredImage {
            url: row.try_get("url")?,
            media_type: row.try_get("media_type")?,
            body: row.try_get("body")?,
            fetched_at: codec::from_micros(row.try_get("fetched_at")?)?,
            used_at: codec::from_micros(used.max(micros(at)))?,
        }))
    }

    pub(super) async fn cached_images_in(&self, urls: &[String]) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT url FROM images WHERE url IN (SELECT value FROM json_each(?1)) ORDER BY url",
        )
        .bind(json(&urls)?)
        .fetch_all(&self.pool)
        .await?)
    }

    pub(super) async fn prune_images_in(&self, bounds: ImageBounds) -> Result<(u64, u64)> {
        let (_turn, mut tx) = self.write().await?;
        let expired = drop_images(
            &mut tx,
            "SELECT url FROM images WHERE used_at < ?1",
            micros(bounds.unused_before),
            "expired",
        )
        .await?;
        // The most recently used copies that fit in the total stay; the rest go.
        let over = drop_images(
            &mut tx,
            "SELECT url FROM (SELECT url, SUM(bytes) OVER (ORDER BY used_at DESC, url DESC) \
             AS kept FROM images) WHERE kept > ?1",
            i64::try_from(bounds.max_total_bytes).unwrap_or(i64::MAX),
            "over_total",
        )
        .await?;
        tx.commit().await?;
        Ok((expired, over))
    }

    pub(super) async fn image_cache_stats_in(&self) -> Result<ImageCacheStats> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS copies, COALESCE(SUM(bytes), 0) AS bytes, \
             COALESCE((SELECT count FROM image_evictions WHERE reason = 'expired'), 0) AS expired, \
             COALESCE((SELECT count FROM image_evictions WHERE reason = 'over_total'), 0) \
             AS over_total FROM images",
        )
        .fetch_one(&self.pool)
        .await?;
        let count = |name: &str| -> Result<u64> {
            Ok(u64::try_from(row.try_get::<i64, _>(name)?).unwrap_or(0))
        };
        Ok(ImageCacheStats {
            copies: count("copies")?,
            bytes: count("bytes")?,
            expired: count("expired")?,
            over_total: count("over_total")?,
        })
    }
}

/// Drop the copies `select` (one `?1` bound to `bound`) names, with their queue rows, and count
/// them under `reason`.
async fn drop_images(
    tx: &mut Transaction<'static, Sqlite>,
    select: &str,
    bound: i64,
    reason: &str,
) -> Result<u64> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM resources WHERE purpose = 'image' AND url IN ({select})"
    )))
    .bind(bound)
    .execute(&mut **tx)
    .await?;
    let dropped = sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM images WHERE url IN ({select})"
    )))
    .bind(bound)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if dropped > 0 {
        sqlx::query(sqlx::AssertSqlSafe(sql::COUNT_EVICTIONS.as_str()))
            .bind(reason)
            .bind(i64::try_from(dropped).unwrap_or(i64::MAX))
            .execute(&mut **tx)
            .await?;
    }
    Ok(dropped)
}
