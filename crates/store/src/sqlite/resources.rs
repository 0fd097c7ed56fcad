//! The page queue on SQLite: article pages, icon candidates and images read for feeds (SR1,
//! SR4, SR6, SR7, FF9), and the icons kept per site.

use super::SqliteStore;
use super::apply::{insert_log, lease_tokens, raise_host_floor};
use super::rows::resource_from_row;
use crate::codec::{self, micros};
use crate::resources::lite as sql;
use crate::{
    ApplyReport, NewPage, QueueState, ResourceApply, ResourceFound, ResourceRecord, Result,
    StoredIcon,
};
use chrono::{DateTime, Utc};
use sqlx::{Row, Sqlite, Transaction};
use tidings_model::{FeedId, RequestPurpose};

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
            new += sqlx::query(sqlx::AssertSqlSafe(sql::QUEUE_PAGE.as_str()))
                .bind(&page.url)
                .bind(feed.0)
                .bind(micros(due_at))
                .bind(reason)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            sqlx::query(sqlx::AssertSqlSafe(sql::LINK_PAGE.as_str()))
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
        sqlx::query(sqlx::AssertSqlSafe(sql::SET_SITE.as_str()))
            .bind(site)
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        let known: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql::SITE_QUEUED.as_str()))
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
            let added = sqlx::query(sqlx::AssertSqlSafe(sql::QUEUE_ICON.as_str()))
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
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::DUE.as_str()))
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
        let next: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql::NEXT_DUE.as_str()))
            .bind(micros(after))
            .fetch_one(&self.pool)
            .await?;
        codec::from_micros_opt(next)
    }

    pub(super) async fn apply_resource_in(&self, apply: &ResourceApply) -> Result<ApplyReport> {
        let (_turn, mut tx) = self.write().await?;
        // Under a lease another holder has claimed since, only what was sent is written.
        let moved = match &apply.fence {
            Some(fence) => {
                lease_tokens(&mut tx, &[fence]).await?.get(&fence.host) != Some(&fence.token)
            }
            None => false,
        };
        if !moved {
            write_resource(&mut tx, apply).await?;
        }
        for row in &apply.log {
            insert_log(&mut tx, row).await?;
        }
        if let Some((host, until)) = &apply.host_floor {
            raise_host_floor(&mut tx, host, micros(apply.at), micros(*until)).await?;
        }
        tx.commit().await?;
        Ok(ApplyReport {
            fenced_out: moved,
            ..ApplyReport::default()
        })
    }

    pub(super) async fn resources_in(
        &self,
        purpose: Option<RequestPurpose>,
        limit: u32,
    ) -> Result<Vec<ResourceRecord>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::LIST.as_str()))
            .bind(purpose.map(RequestPurpose::as_str))
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(resource_from_row).collect()
    }

    pub(super) async fn icon_in(&self, site: &str) -> Result<Option<StoredIcon>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(sql::ICON.as_str()))
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

/// What one read of a queued resource changes of its row, its page, icon or image, and the
/// site's next icon candidate.
async fn write_resource(
    tx: &mut Transaction<'static, Sqlite>,
    apply: &ResourceApply,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(sql::SET_STATE.as_str()))
        .bind(apply.id)
        .bind(apply.state.as_str())
        .bind(apply.due_at.map(micros))
        .bind(&apply.reason)
        .bind(i64::from(apply.retries))
        .execute(&mut **tx)
        .await?;
    if let Some(read) = &apply.read {
        sqlx::query(sqlx::AssertSqlSafe(sql::SET_READ.as_str()))
            .bind(apply.id)
            .bind(micros(apply.at))
            .bind(read.status)
            .bind(read.outcome.as_str())
            .bind(read.error.as_deref())
            .execute(&mut **tx)
            .await?;
    }
    match &apply.found {
        ResourceFound::Nothing => {}
        ResourceFound::Page { preview, record } => {
            let json = preview.as_ref().map(codec::encode_thumbnail).transpose()?;
            sqlx::query(sqlx::AssertSqlSafe(sql::SET_PAGE.as_str()))
                .bind(apply.id)
                .bind(json)
                .bind(codec::encode_page(record)?)
                .execute(&mut **tx)
                .await?;
        }
        ResourceFound::Icon {
            site,
            media_type,
            body,
        } => {
            sqlx::query(sqlx::AssertSqlSafe(sql::KEEP_ICON.as_str()))
                .bind(site)
                .bind(media_type)
                .bind(body.as_slice())
                .bind(micros(apply.at))
                .bind(apply.id)
                .execute(&mut **tx)
                .await?;
        }
        ResourceFound::Image { media_type, body } => {
            sqlx::query(sqlx::AssertSqlSafe(sql::KEEP_IMAGE.as_str()))
                .bind(media_type)
                .bind(body.as_slice())
                .bind(i64::try_from(body.len()).unwrap_or(i64::MAX))
                .bind(micros(apply.at))
                .bind(apply.id)
                .execute(&mut **tx)
                .await?;
        }
    }
    if let Some(at) = apply.next_candidate_at {
        sqlx::query(sqlx::AssertSqlSafe(sql::NEXT_CANDIDATE.as_str()))
            .bind(apply.id)
            .bind(micros(at))
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
