//! The page queue on PostgreSQL (FF1, FF4): jobs, their frontier, what they found.

use super::PgStore;
use crate::codec::{self, JOB_COLUMNS, JobTimes, as_column};
use crate::jobs::pg as sql;
use crate::{
    CatalogueEntry, JobFeed, JobFrontier, JobStep, NewPageJob, PageJob, QueuedPage, Result,
};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgRow;
use tidings_model::{FeedId, PageJobState};

fn job_from_row(row: &PgRow) -> Result<PageJob> {
    let times = JobTimes {
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        updated_at: row.try_get("updated_at")?,
        finished_at: row.try_get("finished_at")?,
    };
    codec::page_job(row, times)
}

impl PgStore {
    pub(super) async fn submit_page_job_in(&self, job: &NewPageJob) -> Result<PageJob> {
        let mut tx = self.pool.begin().await?;
        let limits = job.limits.as_ref();
        let id: i64 = sqlx::query_scalar(sql::SUBMIT)
            .bind(job.kind.as_str())
            .bind(codec::without_nul(&job.url))
            .bind(codec::without_nul(&job.requested_by))
            .bind(job.at)
            .bind(limits.map(|l| i64::from(l.depth)))
            .bind(limits.map(|l| i64::from(l.max_urls)))
            .bind(limits.map(|l| i64::from(l.max_requests)))
            .bind(limits.map(|l| as_column(l.max_bytes)))
            .bind(limits.map(|l| as_column(l.max_time.as_millis())))
            .bind(limits.map(|l| l.linked_sites))
            .bind(if job.running { "running" } else { "queued" })
            .bind(job.running.then_some(job.at))
            .fetch_one(&mut *tx)
            .await?;
        sqlx::query(sql::FIRST_PAGE)
            .bind(id)
            .bind(codec::without_nul(&job.url))
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(sql::BY_ID).bind(id).fetch_one(&mut *tx).await?;
        tx.commit().await?;
        job_from_row(&row)
    }

    pub(super) async fn page_job_in(&self, id: i64) -> Result<Option<PageJob>> {
        let row = sqlx::query(sql::BY_ID)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(job_from_row).transpose()
    }

    pub(super) async fn page_jobs_in(&self, limit: u32) -> Result<Vec<PageJob>> {
        let rows = sqlx::query(sql::NEWEST)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(job_from_row).collect()
    }

    pub(super) async fn claim_page_job_in(
        &self,
        only: Option<i64>,
        at: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<PageJob>> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE page_jobs SET state = 'running', updated_at = $1, \
             started_at = COALESCE(started_at, $1) WHERE id = (SELECT id FROM page_jobs \
             WHERE (state = 'queued' OR (state = 'running' AND updated_at < $2)) \
             AND ($3 IS NULL OR id = $3) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING created_at, started_at, updated_at, finished_at, \
             {JOB_COLUMNS}"
        )))
        .bind(at)
        .bind(stale_before)
        .bind(only)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        row.as_ref().map(job_from_row).transpose()
    }

    pub(super) async fn release_page_job_in(&self, id: i64, at: DateTime<Utc>) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let released = sqlx::query(sql::GIVE_BACK)
            .bind(id)
            .bind(at)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(released)
    }

    pub(super) async fn page_job_frontier_in(&self, id: i64) -> Result<JobFrontier> {
        let rows = sqlx::query(sql::FRONTIER)
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        let mut frontier = JobFrontier::default();
        for row in &rows {
            let url: String = row.try_get("url")?;
            if !row.try_get::<bool, _>("done")? {
                frontier.pending.push(QueuedPage {
                    url: url.clone(),
                    depth: u32::try_from(row.try_get::<i64, _>("depth")?).unwrap_or(u32::MAX),
                    found_on: row.try_get("found_on")?,
                });
            }
            frontier.seen.push(url);
        }
        Ok(frontier)
    }

    pub(super) async fn page_job_step_in(
        &self,
        id: i64,
        step: &JobStep,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        if let Some(url) = &step.done {
            sqlx::query(sql::PAGE_DONE)
                .bind(id)
                .bind(url)
                .execute(&mut *tx)
                .await?;
        }
        for page in &step.queued {
            sqlx::query(sql::QUEUE_PAGE)
                .bind(id)
                .bind(codec::without_nul(&page.url))
                .bind(i64::from(page.depth))
                .bind(page.found_on.as_deref().map(codec::without_nul))
                .execute(&mut *tx)
                .await?;
        }
        for feed in &step.found {
            sqlx::query(sql::FOUND)
                .bind(id)
                .bind(codec::without_nul(&feed.url))
                .bind(feed.title.as_deref().map(codec::without_nul))
                .bind(feed.feed_id.map(|f| f.0))
                .bind(feed.held)
                .bind(feed.note.as_deref().map(codec::without_nul))
                .execute(&mut *tx)
                .await?;
        }
        let s = &step.spent;
        sqlx::query(sql::SPENT)
            .bind(id)
            .bind(at)
            .bind(i64::from(s.requests))
            .bind(as_column(s.bytes))
            .bind(i64::from(s.urls))
            .bind(i64::from(s.pages))
            .bind(as_column(s.elapsed.as_millis()))
            .bind(i64::from(s.feeds))
            .bind(i64::from(s.duplicates))
            .bind(i64::from(s.refused))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub(super) async fn page_job_feeds_in(&self, id: i64) -> Result<Vec<JobFeed>> {
        let rows = sqlx::query(sql::FINDS)
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(JobFeed {
                    url: row.try_get("url")?,
                    title: row.try_get("title")?,
                    feed_id: row.try_get::<Option<i64>, _>("feed_id")?.map(FeedId),
                    held: row.try_get("held")?,
                    note: row.try_get("note")?,
                })
            })
            .collect()
    }

    pub(super) async fn finish_page_job_in(
        &self,
        id: i64,
        state: PageJobState,
        stopped_by: Option<&str>,
        error: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let ended = sqlx::query(sql::FINISH)
            .bind(id)
            .bind(state.as_str())
            .bind(stopped_by.map(codec::without_nul))
            .bind(error.map(codec::without_nul))
            .bind(at)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if ended {
            sqlx::query(sql::DROP_FRONTIER)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(ended)
    }

    pub(super) async fn prune_page_jobs_in(&self, before: DateTime<Utc>) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(sql::PRUNE)
            .bind(before)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    pub(super) async fn add_to_catalogue_in(
        &self,
        feed: FeedId,
        added_by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let added = sqlx::query(sql::CATALOGUE_ADD)
            .bind(feed.0)
            .bind(added_by)
            .bind(at)
            .execute(&self.pool)
            .await?;
        Ok(added.rows_affected() == 1)
    }

    pub(super) async fn catalogue_in(&self) -> Result<Vec<CatalogueEntry>> {
        let rows = sqlx::query(sql::CATALOGUE).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| {
                Ok(CatalogueEntry {
                    feed_id: FeedId(row.try_get("feed_id")?),
                    added_by: row.try_get("added_by")?,
                    added_at: row.try_get("added_at")?,
                })
            })
            .collect()
    }

    pub(super) async fn remove_from_catalogue_in(&self, feed: FeedId) -> Result<bool> {
        let removed = sqlx::query(sql::CATALOGUE_REMOVE)
            .bind(feed.0)
            .execute(&self.pool)
            .await?;
        Ok(removed.rows_affected() == 1)
    }
}
