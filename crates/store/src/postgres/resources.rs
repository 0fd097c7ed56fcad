//! The page queue on PostgreSQL: article pages, icon candidates and images read for feeds (SR1,
//! SR4, SR6, SR7, FF9), and the icons kept per site.

use super::PgStore;
use super::apply::{insert_log, lease_moved, raise_host_floor};
use super::rows::resource_from_row;
use crate::codec;
use crate::resources::pg as sql;
use crate::{
    ApplyReport, NewPage, QueueState, ResourceApply, ResourceFound, ResourceRecord, Result,
    StoredIcon,
};
use chrono::{DateTime, Utc};
use sqlx::{Postgres, Row, Transaction};
use tidings_model::{FeedId, RequestPurpose};

impl PgStore {
    pub(super) async fn queue_pages_in(
        &self,
        feed: FeedId,
        pages: &[NewPage],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        let mut new = 0;
        for page in pages {
            new += sqlx::query(sql::QUEUE_PAGE)
                .bind(&page.url)
                .bind(feed.0)
                .bind(due_at)
                .bind(reason)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            sqlx::query(sql::LINK_PAGE)
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
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::SET_SITE)
            .bind(site)
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        let known: Option<i64> = sqlx::query_scalar(sql::SITE_QUEUED)
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
                (QueueState::Due, Some(due_at))
            };
            let added = sqlx::query(sql::QUEUE_ICON)
                .bind(url)
                .bind(feed.0)
                .bind(site)
                .bind(i32::try_from(rank).unwrap_or(i32::MAX))
                .bind(first_add && !queued)
                .bind(state.as_str())
                .bind(due)
                .bind(reason)
                .bind(due_at)
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
        let rows = sqlx::query(sql::DUE)
            .bind(now)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(resource_from_row).collect()
    }

    pub(super) async fn next_resource_due_in(
        &self,
        after: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>> {
        let next: Option<DateTime<Utc>> = sqlx::query_scalar(sql::NEXT_DUE)
            .bind(after)
            .fetch_one(&self.pool)
            .await?;
        Ok(next)
    }

    pub(super) async fn apply_resource_in(&self, apply: &ResourceApply) -> Result<ApplyReport> {
        let mut tx = self.pool.begin().await?;
        // Under a lease another holder has claimed since, only what was sent is written.
        let moved = lease_moved(&mut tx, apply.fence.as_ref()).await?;
        if !moved {
            write_resource(&mut tx, apply).await?;
        }
        for row in &apply.log {
            insert_log(&mut tx, row).await?;
        }
        if let Some((host, until)) = &apply.host_floor {
            raise_host_floor(&mut tx, host, apply.at, *until).await?;
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
        let rows = sqlx::query(sql::LIST)
            .bind(purpose.map(RequestPurpose::as_str))
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(resource_from_row).collect()
    }

    pub(super) async fn icon_in(&self, site: &str) -> Result<Option<StoredIcon>> {
        let row = sqlx::query(sql::ICON)
            .bind(site)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(StoredIcon {
                site: row.try_get("site")?,
                url: row.try_get("url")?,
                media_type: row.try_get("media_type")?,
                body: row.try_get("body")?,
                fetched_at: row.try_get("fetched_at")?,
            })
        })
        .transpose()
    }
}

/// What one read of a queued resource changes of its row, its page, icon or image, and the
/// site's next icon candidate.
async fn write_resource(
    tx: &mut Transaction<'static, Postgres>,
    apply: &ResourceApply,
) -> Result<()> {
    sqlx::query(sql::SET_STATE)
        .bind(apply.id)
        .bind(apply.state.as_str())
        .bind(apply.due_at)
        .bind(codec::without_nul(&apply.reason))
        .bind(i32::try_from(apply.retries).unwrap_or(i32::MAX))
        .execute(&mut **tx)
        .await?;
    if let Some(read) = &apply.read {
        sqlx::query(sql::SET_READ)
            .bind(apply.id)
            .bind(apply.at)
            .bind(read.status)
            .bind(read.outcome.as_str())
            .bind(codec::without_nul_opt(read.error.as_deref()))
            .execute(&mut **tx)
            .await?;
    }
    match &apply.found {
        ResourceFound::Nothing => {}
        ResourceFound::Page { preview, record } => {
            let json = preview.as_ref().map(codec::encode_thumbnail).transpose()?;
            sqlx::query(sql::SET_PAGE)
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
            sqlx::query(sql::KEEP_ICON)
                .bind(site)
                .bind(media_type)
                .bind(body.as_slice())
                .bind(apply.at)
                .bind(apply.id)
                .execute(&mut **tx)
                .await?;
        }
        ResourceFound::Image { media_type, body } => {
            sqlx::query(sql::KEEP_IMAGE)
                .bind(media_type)
                .bind(body.as_slice())
                .bind(i64::try_from(body.len()).unwrap_or(i64::MAX))
                .bind(apply.at)
                .bind(apply.id)
                .execute(&mut **tx)
                .await?;
        }
    }
    if let Some(at) = apply.next_candidate_at {
        sqlx::query(sql::NEXT_CANDIDATE)
            .bind(apply.id)
            .bind(at)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
