//! WebSub subscriptions on PostgreSQL: one row per feed (`websub`); a push's entries are
//! written in a transaction of their own (pushes are rare beside reads).

use super::PgStore;
use crate::{ApplyReport, PushRecord, RequestLogRow, Result, StoreError, WebSubRecord};
use sqlx::Row;
use sqlx::postgres::PgRow;
use tidings_model::{FeedId, SubscriptionState};

use crate::websub::pg::{BY_FEED, BY_TOKEN, SAVE};

impl PgStore {
    pub(super) async fn apply_push_in(&self, mut push: PushRecord) -> Result<ApplyReport> {
        let mut tx = self.pool.begin().await?;
        let report = super::apply::apply_push(&mut tx, &mut push).await?;
        tx.commit().await?;
        Ok(report)
    }

    pub(super) async fn websub_in(&self, feed: FeedId) -> Result<Option<WebSubRecord>> {
        let row = sqlx::query(BY_FEED)
            .bind(feed.0)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    pub(super) async fn websub_by_token_in(&self, token: &str) -> Result<Option<WebSubRecord>> {
        let row = sqlx::query(BY_TOKEN)
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
        let mut tx = self.pool.begin().await?;
        sqlx::query(SAVE)
            .bind(r.feed_id.0)
            .bind(&r.token)
            .bind(crate::codec::without_nul(&r.hub))
            .bind(crate::codec::without_nul(&r.topic))
            .bind(&r.secret)
            .bind(r.state.as_str())
            .bind(r.requested_at)
            .bind(r.lease_until)
            .bind(crate::codec::without_nul_opt(r.reason.as_deref()))
            .execute(&mut *tx)
            .await?;
        for row in log {
            super::apply::insert_log(&mut tx, row).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

fn from_row(row: &PgRow) -> Result<WebSubRecord> {
    let state: String = row.try_get("state")?;
    Ok(WebSubRecord {
        feed_id: FeedId(row.try_get("feed_id")?),
        token: row.try_get("token")?,
        hub: row.try_get("hub")?,
        topic: row.try_get("topic")?,
        secret: row.try_get("secret")?,
        state: SubscriptionState::from_name(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown WebSub state {state:?}")))?,
        requested_at: row.try_get("requested_at")?,
        lease_until: row.try_get("lease_until")?,
        reason: row.try_get("reason")?,
        pushes: row.try_get("pushes")?,
        last_push_at: row.try_get("last_push_at")?,
    })
}
