//! The page queue on SQLite: article pages, icon candidates and images read for feeds (SR1,
//! SR4, SR6, SR7, FF9), and the icons kept per site.

use super::SqliteStore;
use super::apply::{insert_log, raise_host_floor};
use super::rows::resource_from_row;
use crate::codec::{self, RESOURCE_COLUMNS, micros};
use crate::{
    NewPage, QueueState, ResourceApply, ResourceFound, ResourceRecord, Result, StoredIcon,
};
use chrono::{DateTime, Utc};
use sqlx::Row;
use tidings_model::{FeedId, RequestPurpose};

/// The condition that a resource's feed (if it has one) is still read: a feed removed on
/// request, paused or off asks for nothing more (WFM10).
const FEED_READ: &str =
    "(feed_id IS NULL OR feed_id IN (SELECT id FROM feeds WHERE state = 'active'))";

impl SqliteStore {
    pub(super) async fn queue_pages_in(
        &self,
        feed: FeedId,
        pages: &[NewPage],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        let (_turn, mut tx) = self.write().await?;
        let mut new = 0;
        for page in pages {
            new += sqlx::query(
                "INSERT INTO resources (purpose, url, feed_id, state, due_at, reason, created_at) \
                 VALUES ('article_page', ?1, ?2, 'due', ?3, ?4, ?3) \
                 ON CONFLICT (purpose, url) DO NOTHING",
            )
            .bind(&page.url)
            .bind(feed.0)
            .bind(micros(due_at))
            .bind(reason)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query(
                "UPDATE entries SET page_id = (SELECT id FROM resources \
                 WHERE purpose = 'article_page' AND url = ?1) \
                 WHERE feed_id = ?2 AND entry_key = ?3 AND page_id IS NULL",
            )
            .bind(&page.url)
            .bind(feed.0)
            .bind(&page.entry_key)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(new)
    }

    pub(super) async fn queue_icons_in(
        &self,
        feed: FeedId,
        site: &str,
        candidates: &[String],
        first_add: bool,
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<bool> {
        let (_turn, mut tx) = self.write().await?;
        sqlx::query("UPDATE feeds SET site = ?1 WHERE id = ?2")
            .bind(site)
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        let known: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM resources WHERE purpose = 'icon' AND site = ?1 LIMIT 1",
        )
        .bind(site)
        .fetch_optional(&mut *tx)
        .await?;
        if known.is_some() {
            tx.commit().await?;
            return Ok(false);
        }
        let mut queued = false;
        for (rank, url) in candidates.iter().enumerate() {
            // The first candidate not queued before (a URL is one row) is the one due.
            let (state, due) = if queued {
                (QueueState::Waiting, None)
            } else {
                (QueueState::Due, Some(micros(due_at)))
            };
            let added = sqlx::query(
                "INSERT INTO resources (purpose, url, feed_id, site, rank, first_add, state, \
                 due_at, reason, created_at) VALUES ('icon', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (purpose, url) DO NOTHING",
            )
            .bind(url)
            .bind(feed.0)
            .bind(site)
            .bind(i64::try_from(rank).unwrap_or(i64::MAX))
            .bind(first_add && !queued)
            .bind(state.as_str())
            .bind(due)
            .bind(reason)
            .bind(micros(due_at))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            queued |= added > 0;
        }
        tx.commit().await?;
        Ok(queued)
    }

    pub(super) async fn due_resources_in(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ResourceRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{RESOURCE_COLUMNS} WHERE due_at IS NOT NULL AND due_at <= ?1 \
             AND state <> 'waiting' AND {FEED_READ} ORDER BY due_at, id LIMIT ?2"
        )))
        .bind(micros(now))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(resource_from_row).collect()
    }

    pub(super) async fn next_resource_due_in(
        &self,
        after: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>> {
        let next: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT MIN(due_at) FROM resources WHERE due_at > ?1 AND state <> 'waiting' \
             AND {FEED_READ}"
        )))
        .bind(micros(after))
        .fetch_one(&self.pool)
        .await?;
        codec::from_micros_opt(next)
    }

    pub(super) async fn apply_resource_in(&self, apply: &ResourceApply) -> Result<()> {
        let (_turn, mut tx) = self.write().await?;
        sqlx::query(
            "UPDATE resources SET state = ?2, due_at = ?3, reason = ?4, retries = ?5 WHERE id = ?1",
        )
        .bind(apply.id)
        .bind(apply.state.as_str())
        .bind(apply.due_at.map(micros))
        .bind(&apply.reason)
        .bind(i64::from(apply.retries))
        .execute(&mut *tx)
        .await?;
        if let Some(read) = &apply.read {
            sqlx::query(
                "UPDATE resources SET read_at = ?2, last_status = ?3, last_outcome = ?4, \
                 last_error = ?5 WHERE id = ?1",
            )
            .bind(apply.id)
            .bind(micros(apply.at))
            .bind(read.status)
            .bind(read.outcome.as_str())
            .bind(read.error.as_deref())
            .execute(&mut *tx)
            .await?;
        }
        match &apply.found {
            ResourceFound::Nothing => {}
            ResourceFound::Page { preview, record } => {
                let json = preview.as_ref().map(codec::encode_thumbnail).transpose()?;
                sqlx::query("UPDATE resources SET preview = ?2, page = ?3 WHERE id = ?1")
                    .bind(apply.id)
                    .bind(json)
                    .bind(codec::encode_page(record)?)
                    .execute(&mut *tx)
                    .await?;
            }
            ResourceFound::Icon {
                site,
                media_type,
                body,
            } => {
                sqlx::query(
                    "INSERT INTO icons (site, url, media_type, body, fetched_at) \
                     SELECT ?1, url, ?2, ?3, ?4 FROM resources WHERE id = ?5 \
                     ON CONFLICT (site) DO UPDATE SET url = excluded.url, \
                     media_type = excluded.media_type, body = excluded.body, \
                     fetched_at = excluded.fetched_at",
                )
                .bind(site)
                .bind(media_type)
                .bind(body.as_slice())
                .bind(micros(apply.at))
                .bind(apply.id)
                .execute(&mut *tx)
                .await?;
            }
            ResourceFound::Image { media_type, body } => {
                sqlx::query(
                    "INSERT INTO images (url, media_type, body, bytes, fetched_at, used_at) \
                     SELECT url, ?1, ?2, ?3, ?4, ?4 FROM resources WHERE id = ?5 \
                     ON CONFLICT (url) DO UPDATE SET media_type = excluded.media_type, \
                     body = excluded.body, bytes = excluded.bytes, \
                     fetched_at = excluded.fetched_at, used_at = excluded.used_at",
                )
                .bind(media_type)
                .bind(body.as_slice())
                .bind(i64::try_from(body.len()).unwrap_or(i64::MAX))
                .bind(micros(apply.at))
                .bind(apply.id)
                .execute(&mut *tx)
                .await?;
            }
        }
        if let Some(at) = apply.next_candidate_at {
            sqlx::query(
                "UPDATE resources SET state = 'due', due_at = ?2 WHERE id = (\
                 SELECT w.id FROM resources w, resources r WHERE r.id = ?1 \
                 AND w.purpose = 'icon' AND w.site = r.site AND w.state = 'waiting' \
                 ORDER BY w.rank LIMIT 1)",
            )
            .bind(apply.id)
            .bind(micros(at))
            .execute(&mut *tx)
            .await?;
        }
        for row in &apply.log {
            insert_log(&mut tx, row).await?;
        }
        if let Some((host, until)) = &apply.host_floor {
            raise_host_floor(&mut tx, host, micros(apply.at), micros(*until)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub(super) async fn resources_in(
        &self,
        purpose: Option<RequestPurpose>,
        limit: u32,
    ) -> Result<Vec<ResourceRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{RESOURCE_COLUMNS} WHERE ?1 IS NULL OR purpose = ?1 \
             ORDER BY COALESCE(read_at, created_at) DESC, id DESC LIMIT ?2"
        )))
        .bind(purpose.map(RequestPurpose::as_str))
        .bind(i64::from(limit.clamp(1, 1000)))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(resource_from_row).collect()
    }

    pub(super) async fn icon_in(&self, site: &str) -> Result<Option<StoredIcon>> {
        let row = sqlx::query(
            "SELECT site, url, media_type, body, fetched_at FROM icons WHERE site = ?1",
        )
        .bind(site)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(StoredIcon {
                site: row.try_get("site")?,
                url: row.try_get("url")?,
                media_type: row.try_get("media_type")?,
                body: row.try_get("body")?,
                fetched_at: codec::from_micros(row.try_get("fetched_at")?)?,
            })
        })
        .transpose()
    }
}
