//! The page queue on SQLite (FF1, FF4): jobs, their frontier, what they found.

use super::SqliteStore;
use crate::codec::{self, JOB_COLUMNS, JobTimes, as_column, micros};
use crate::jobs::lite as sql;
use crate::{
    CatalogueEntry, JobFeed, JobFrontier, JobStep, NewPageJob, PageJob, QueuedPage, Result,
};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use tidings_model::{FeedId, PageJobState};

fn job_from_row(row: &SqliteRow) -> Result<PageJob> {
    let times = JobTimes {
        created_at: codec::from_micros(row.try_get("created_at")?)?,
        started_at: codec::from_micros_opt(row.try_get("started_at")?)?,
        updated_at: codec::from_micros(row.try_get("updated_at")?)?,
        finished_at: codec::from_micros_opt(row.try_get("finished_at")?)?,
    };
    codec::page_job(row, times)
}

impl SqliteStore {
    pub(super) async fn submit_page_job_in(&self, job: &NewPageJob) -> Result<PageJob> {
        let (_turn, mut tx) = self.write().await?;
        let limits = job.limits.as_ref();
        let id: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql::SUBMIT.as_str()))
            .bind(job.kind.as_str())
            .bind(&job.url)
            .bind(&job.requested_by)
            .bind(micros(job.at))
            .bind(limits.map(|l| i64::from(l.depth)))
            .bind(limits.map(|l| i64::from(l.max_urls)))
            .bind(limits.map(|l| i64::from(l.max_requests)))
            .bind(limits.map(|l| as_column(l.max_bytes)))
            .bind(limits.map(|l| as_column(l.max_time.as_millis())))
            .bind(limits.map(|l| l.linked_sites))
            .bind(if job.running { "running" } else { "queued" })
            .bind(job.running.then_some(micros(job.at)))
            .fetch_one(&mut *tx)
            .await?;
        sqlx::query(sqlx::AssertSqlSafe(sql::FIRST_PAGE.as_str()))
            .bind(id)
            .bind(&job.url)
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(sqlx::AssertSqlSafe(sql::BY_ID.as_str()))
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        job_from_row(&row)
    }

    pub(super) async fn page_job_in(&self, id: i64) -> Result<Option<PageJob>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(sql::BY_ID.as_str()))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(job_from_row).transpose()
    }

    pub(super) async fn page_jobs_in(&self, limit: u32) -> Result<Vec<PageJob>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::NEWEST.as_str()))
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
        let (_turn, mut tx) = self.write().await?;
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE page_jobs SET state = 'running', updated_at = ?1, \
             started_at = COALESCE(started_at, ?1) WHERE id = (SELECT id FROM page_jobs \
             WHERE (state = 'queued' OR (state = 'running' AND updated_at < ?2)) \
             AND (?3 IS NULL OR id = ?3) ORDER BY id LIMIT 1) RETURNING created_at, started_at, updated_at, finished_at, \
             {JOB_COLUMNS}"
        )))
        .bind(micros(at))
        .bind(micros(stale_before))
        .bind(only)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        row.as_ref().map(job_from_row).transpose()
    }

    pub(super) async fn release_page_job_in(&self, id: i64, at: DateTime<Utc>) -> Result<bool> {
        let (_turn, mut tx) = self.write().await?;
        let released = sqlx::query(sqlx::AssertSqlSafe(sql::GIVE_BACK.as_str()))
            .bind(id)
            .bind(micros(at))
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(released)
    }

    pub(super) async fn page_job_frontier_in(&self, id: i64) -> Result<JobFrontier> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::FRONTIER.as_str()))
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
        let (_turn, mut tx) = self.write().await?;
        if let Some(url) = &step.done {
            sqlx::query(sqlx::AssertSqlSafe(sql::PAGE_DONE.as_str()))
                .bind(id)
                .bind(url)
                .execute(&mut *tx)
                .await?;
        }
        for page in &step.queued {
            sqlx::query(sqlx::AssertSqlSafe(sql::QUEUE_PAGE.as_str()))
                .bind(id)
                .bind(&page.url)
                .bind(i64::from(page.depth))
                .bind(page.found_on.as_deref())
                .execute(&mut *tx)
                .await?;
        }
        for feed in &step.found {
            sqlx::query(sqlx::AssertSqlSafe(sql::FOUND.as_str()))
                .bind(id)
                .bind(&feed.url)
                .bind(feed.title.as_deref())
                .bind(feed.feed_id.map(|f| f.0))
                .bind(feed.held)
                .bind(feed.note.as_deref())
                .execute(&mut *tx)
                .await?;
        }
        let s = &step.spent;
        sqlx::query(sqlx::AssertSqlSafe(sql::SPENT.as_str()))
            .bind(id)
            .bind(micros(at))
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
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::FINDS.as_str()))
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
        let (_turn, mut tx) = self.write().await?;
        let ended = sqlx::query(sqlx::AssertSqlSafe(sql::FINISH.as_str()))
            .bind(id)
            .bind(state.as_str())
            .bind(stopped_by)
            .bind(error)
            .bind(micros(at))
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if ended {
            sqlx::query(sqlx::AssertSqlSafe(sql::DROP_FRONTIER.as_str()))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(ended)
    }

    pub(super) async fn prune_page_jobs_in(&self, before: DateTime<Utc>) -> Result<u64> {
        let (_turn, mut tx) = self.write().await?;
        let done = sqlx::query(sqlx::AssertSqlSafe(sql::PRUNE.as_str()))
            .bind(micros(before))
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
        let (_turn, mut tx) = self.write().await?;
        let added = sqlx::query(sqlx::AssertSqlSafe(sql::CATALOGUE_ADD.as_str()))
            .bind(feed.0)
            .bind(added_by)
            .bind(micros(at))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(added.rows_affected() == 1)
    }

    pub(super) async fn catalogue_in(&self) -> Result<Vec<CatalogueEntry>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql::CATALOGUE.as_str()))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(CatalogueEntry {
                    feed_id: FeedId(row.try_get("feed_id")?),
                    added_by: row.try_get("added_by")?,
                    added_at: codec::from_micros(row.try_get("added_at")?)?,
                })
            })
            .collect()
    }

    pub(super) async fn remove_from_catalogue_in(&self, feed: FeedId) -> Result<bool> {
        let (_turn, mut tx) = self.write().await?;
        let removed = sqlx::query(sqlx::AssertSqlSafe(sql::CATALOGUE_REMOVE.as_str()))
            .bind(feed.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(removed.rows_affected() == 1)
    }
}
