//! WebSub subscriptions on SQLite: one row per feed (`websub`); pushed content goes through
//! the fetch writer (`group`) like a read's entries.

use super::SqliteStore;
use crate::codec::{self, micros};
use crate::{ApplyReport, PushRecord, RequestLogRow, Result, StoreError, WebSubRecord};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use tidings_model::{FeedId, SubscriptionState};

use crate::websub::lite::{BY_FEED, BY_TOKEN, SAVE};

impl SqliteStore {
    pub(super) async fn apply_push_in(&self, push: PushRecord) -> Result<ApplyReport> {
        self.apply_grouped(super::apply::Prepared::of_push(push)?)
            .await
    }

    pub(super) async fn websub_in(&self, feed: FeedId) -> Result<Option<WebSubRecord>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(BY_FEED.as_str()))
            .bind(feed.0)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    pub(super) async fn websub_by_token_in(&self, token: &str) -> Result<Option<WebSubRecord>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(BY_TOKEN.as_str()))
            .bind(token)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    pub(super) async fn save_websub_in(
        &self,
        r: &WebSubRecord,
        log: &[RequestLogRow],
    ) -> Result<()> {
        let (_turn, mut tx) = self.write().await?;
        sqlx::query(sqlx::AssertSqlSafe(SAVE.as_str()))
            .bind(r.feed_id.0)
            .bind(&r.token)
            .bind(&r.hub)
            .bind(&r.topic)
            .bind(&r.secret)
            .bind(r.state.as_str())
            .bind(micros(r.requested_at))
            .bind(r.lease_until.map(micros))
            .bind(r.reason.as_deref())
            .execute(&mut *tx)
            .await?;
        for row in log {
            super::apply::insert_log(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

fn from_row(row: &SqliteRow) -> Result<WebSubRecord> {
    let state: String = row.try_get("state")?;
    Ok(WebSubRecord {
        feed_id: FeedId(row.try_get("feed_id")?),
        token: row.try_get("token")?,
        hub: row.try_get("hub")?,
        topic: row.try_get("topic")?,
        secret: row.try_get("secret")?,
        state: SubscriptionState::from_name(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown WebSub state {state:?}")))?,
        requested_at: codec::from_micros(row.try_get("requested_at")?)?,
        lease_until: row
            .try_get::<Option<i64>, _>("lease_until")?
            .map(codec::from_micros)
            .transpose()?,
        reason: row.try_get("reason")?,
        pushes: row.try_get("pushes")?,
        last_push_at: row
            .try_get::<Option<i64>, _>("last_push_at")?
            .map(codec::from_micros)
            .transpose()?,
    })
}
