//! The image cache on PostgreSQL (FF9): one copy per image URL, read through the page queue,
//! kept within its bounds; and which sites have an icon kept.

use super::PgStore;
use crate::images::pg as sql;
use crate::{ImageBounds, ImageCacheStats, Result, StoredImage};
use chrono::{DateTime, Duration, Utc};
use sqlx::{Postgres, Row, Transaction};
use tidings_model::FeedId;

/// A copy served again within this long of its last use is not written back: the expiry is
/// counted in days, and a page of thumbnails should not be a page of writes.
const TOUCH_AFTER: Duration = Duration::hours(1);

impl PgStore {
    pub(super) async fn sites_with_icons_in(&self, sites: &[String]) -> Result<Vec<String>> {
        Ok(
            sqlx::query_scalar("SELECT site FROM icons WHERE site = ANY($1) ORDER BY site")
                .bind(sites)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub(super) async fn queue_images_in(
        &self,
        feed: FeedId,
        urls: &[String],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        let mut new = 0;
        for url in urls {
            new += sqlx::query(sql::QUEUE_IMAGE)
                .bind(url)
                .bind(feed.0)
                .bind(due_at)
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
        let row = sqlx::query(sql::IMAGE)
            .bind(url)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let used: DateTime<Utc> = row.try_get("used_at")?;
        if used < at - TOUCH_AFTER {
            sqlx::query("UPDATE images SET used_at = GREATEST(used_at, $2) WHERE url = $1")
                .bind(url)
                .bind(at)
                .execute(&self.pool)
                .await?;
        }
        Ok(Some(StoredImage {
            url: row.try_get("url")?,
            media_type: row.try_get("media_type")?,
            body: row.try_get("body")?,
            fetched_at: row.try_get("fetched_at")?,
            used_at: used.max(at),
        }))
    }

    pub(super) async fn cached_images_in(&self, urls: &[String]) -> Result<Vec<String>> {
        Ok(
            sqlx::query_scalar("SELECT url FROM images WHERE url = ANY($1) ORDER BY url")
                .bind(urls)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    pub(super) async fn prune_images_in(&self, bounds: ImageBounds) -> Result<(u64, u64)> {
        let mut tx = self.pool.begin().await?;
        // One pruner at a time; the cache's copies are few next to its bytes.
        sqlx::query("LOCK TABLE images IN SHARE ROW EXCLUSIVE MODE")
            .execute(&mut *tx)
            .await?;
        let expired = drop_images(
            &mut tx,
            "SELECT url FROM images WHERE used_at < $1",
            Bound::At(bounds.unused_before),
            "expired",
        )
        .await?;
        // The most recently used copies that fit in the total stay; the rest go.
        let over = drop_images(
            &mut tx,
            "SELECT url FROM (SELECT url, SUM(bytes) OVER (ORDER BY used_at DESC, url DESC) \
             AS kept FROM images) AS k WHERE kept > $1",
            Bound::Bytes(i64::try_from(bounds.max_total_bytes).unwrap_or(i64::MAX)),
            "over_total",
        )
        .await?;
        tx.commit().await?;
        Ok((expired, over))
    }

    pub(super) async fn image_cache_stats_in(&self) -> Result<ImageCacheStats> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS copies, COALESCE(SUM(bytes), 0)::BIGINT AS bytes, \
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

/// The value a drop's `$1` is bound to.
enum Bound {
    At(DateTime<Utc>),
    Bytes(i64),
}

/// Drop the copies `select` (one `$1`, bound to `bound`) names, with their queue rows, and
/// count them under `reason`.
async fn drop_images(
    tx: &mut Transaction<'static, Postgres>,
    select: &str,
    bound: Bound,
    reason: &str,
) -> Result<u64> {
    let mut dropped = 0;
    for table in ["resources", "images"] {
        let filter = if table == "resources" {
            "purpose = 'image' AND "
        } else {
            ""
        };
        let sql = format!("DELETE FROM {table} WHERE {filter}url IN ({select})");
        let query = sqlx::query(sqlx::AssertSqlSafe(sql));
        let query = match bound {
            Bound::At(at) => query.bind(at),
            Bound::Bytes(b) => query.bind(b),
        };
        dropped = query.execute(&mut **tx).await?.rows_affected();
    }
    if dropped > 0 {
        sqlx::query(sql::COUNT_EVICTIONS)
            .bind(reason)
            .bind(i64::try_from(dropped).unwrap_or(i64::MAX))
            .execute(&mut **tx)
            .await?;
    }
    Ok(dropped)
}
