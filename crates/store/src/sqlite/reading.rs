//! Reading state per account on SQLite (see [`crate::reading`] for the model: a read floor
//! per subscription, an override row per entry marked against it, a kept unread count).

use super::{SqliteStore, apply::json, feed_for, rows};
use crate::codec::{from_micros, micros};
use crate::reading::sql::{lite as sql, push_page, push_selection};
use crate::reading::{self, Current};
use crate::{
    EntryState, FeedId, NEW_SUBSCRIPTION_UNREAD, NewFeed, Placement, ReadEntry, ReadScope,
    ReadingQuery, Result, StateChange, Subscribed, Subscription, SubscriptionEdit,
};
use chrono::{DateTime, Utc};
use sqlx::{AssertSqlSafe, QueryBuilder, Row, Sqlite, Transaction};
use std::collections::BTreeMap;
use tidings_model::FeedUrl;

pub async fn subscribe(
    store: &SqliteStore,
    url: &FeedUrl,
    account: i64,
    placement: &Placement,
    now: DateTime<Utc>,
    new: &NewFeed,
) -> Result<Subscribed> {
    let (_turn, mut tx) = store.write().await?;
    let (feed_id, new_feed) = feed_for(&mut tx, url, now, new).await?;
    let title = placement.title.as_deref().and_then(reading::clean_label);
    let folder = placement.folder.as_deref().and_then(reading::clean_label);
    // The floor is a microsecond before now, so entries stored in this same instant (a first
    // read right after subscribing) count as arriving after it.
    let floor = micros(now) - 1;
    let new_subscription = sqlx::query(AssertSqlSafe(sql::SUBSCRIBE.as_str()))
        .bind(feed_id)
        .bind(reading::account_subscriber(account))
        .bind(micros(now))
        .bind(account)
        .bind(&title)
        .bind(&folder)
        .bind(floor)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    if new_subscription {
        start_reading(&mut tx, feed_id, Some(account), floor, micros(now)).await?;
    } else {
        let edit = SubscriptionEdit {
            title: title.map(Some),
            folder: folder.map(Some),
        };
        edit_in(&mut tx, account, FeedId(feed_id), &edit).await?;
    }
    tx.commit().await?;
    Ok(Subscribed {
        feed_id: FeedId(feed_id),
        new_feed,
        new_subscription,
    })
}

/// Start the reading state of `feed`'s subscriptions (`account`'s; `None`: those waiting for
/// the feed's first entries) at `floor`: its entries first seen at or before the floor are
/// read but the newest [`NEW_SUBSCRIPTION_UNREAD`], which start unread. With no such entry
/// yet, the subscription waits for the first ones.
async fn start_reading(
    tx: &mut Transaction<'static, Sqlite>,
    feed: i64,
    account: Option<i64>,
    floor: i64,
    now: i64,
) -> Result<()> {
    if account.is_none() {
        // The common case on every stored batch: nobody waits for this feed.
        let waiting: bool = sqlx::query_scalar(AssertSqlSafe(sql::ANY_STARTING.as_str()))
            .bind(feed)
            .bind(account)
            .fetch_one(&mut **tx)
            .await?;
        if !waiting {
            return Ok(());
        }
    }
    let has_entries: bool = sqlx::query_scalar(AssertSqlSafe(sql::HAS_ENTRIES_BY.as_str()))
        .bind(feed)
        .bind(floor)
        .fetch_one(&mut **tx)
        .await?;
    if !has_entries {
        return Ok(());
    }
    sqlx::query(AssertSqlSafe(sql::START_UNREAD.as_str()))
        .bind(feed)
        .bind(account)
        .bind(floor)
        .bind(now)
        .bind(i64::from(NEW_SUBSCRIPTION_UNREAD))
        .execute(&mut **tx)
        .await?;
    sqlx::query(AssertSqlSafe(sql::START_FLOOR.as_str()))
        .bind(feed)
        .bind(account)
        .bind(floor)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    sqlx::query(AssertSqlSafe(sql::START_COUNT.as_str()))
        .bind(feed)
        .bind(account)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Set the kept unread count of `account`'s subscriptions in a scope to what they hold.
async fn recount(
    tx: &mut Transaction<'static, Sqlite>,
    account: i64,
    scope: (Option<i64>, Option<&str>),
) -> Result<()> {
    in_scope(&sql::RECOUNT, account, scope)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Move every subscription of `from` (an HTML page subscribed to by its URL) to the feed at
/// `to` (stored with `new` when new), keeping each subscriber's title and folder; a
/// subscriber that already has `to` keeps that one. An account's reading state starts
/// afresh on the feed. `from` is then dropped when it holds no entries. One transaction.
pub async fn move_subscriptions(
    store: &SqliteStore,
    from: FeedId,
    to: &FeedUrl,
    now: DateTime<Utc>,
    new: &NewFeed,
) -> Result<Subscribed> {
    let (_turn, mut tx) = store.write().await?;
    let (feed_id, new_feed) = feed_for(&mut tx, to, now, new).await?;
    let floor = micros(now) - 1;
    let moved = sqlx::query(AssertSqlSafe(sql::MOVE.as_str()))
        .bind(from.0)
        .bind(feed_id)
        .bind(floor)
        .bind(micros(now))
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if from.0 != feed_id {
        sqlx::query(AssertSqlSafe(sql::DROP_FEED_STATES.as_str()))
            .bind(from.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query(AssertSqlSafe(
            crate::feeds::lite::DROP_SUBSCRIPTIONS.as_str(),
        ))
        .bind(from.0)
        .execute(&mut *tx)
        .await?;
        sqlx::query(AssertSqlSafe(sql::DROP_EMPTY_FEED.as_str()))
            .bind(from.0)
            .execute(&mut *tx)
            .await?;
    }
    start_reading(&mut tx, feed_id, None, floor, micros(now)).await?;
    tx.commit().await?;
    Ok(Subscribed {
        feed_id: FeedId(feed_id),
        new_feed,
        new_subscription: moved > 0,
    })
}

pub async fn unsubscribe(store: &SqliteStore, account: i64, feed: FeedId) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let gone = sqlx::query(AssertSqlSafe(sql::UNSUBSCRIBE.as_str()))
        .bind(account)
        .bind(feed.0)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    sqlx::query(AssertSqlSafe(sql::DROP_SUBSCRIPTION_STATES.as_str()))
        .bind(account)
        .bind(feed.0)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(gone)
}

/// feed_id, title, folder, unread, created_at.
type SubscriptionRow = (i64, Option<String>, Option<String>, i64, i64);

pub async fn subscriptions(store: &SqliteStore, account: i64) -> Result<Vec<Subscription>> {
    let rows: Vec<SubscriptionRow> = sqlx::query_as(AssertSqlSafe(sql::SUBSCRIPTIONS.as_str()))
        .bind(account)
        .fetch_all(&store.pool)
        .await?;
    rows.into_iter()
        .map(|(feed, title, folder, unread, at)| {
            Ok(Subscription {
                feed_id: FeedId(feed),
                title,
                folder,
                unread: u64::try_from(unread).unwrap_or(0),
                subscribed_at: from_micros(at)?,
            })
        })
        .collect()
}

pub async fn edit(
    store: &SqliteStore,
    account: i64,
    feed: FeedId,
    edit: &SubscriptionEdit,
) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let found = edit_in(&mut tx, account, feed, edit).await?;
    tx.commit().await?;
    Ok(found)
}

async fn edit_in(
    tx: &mut Transaction<'static, Sqlite>,
    account: i64,
    feed: FeedId,
    edit: &SubscriptionEdit,
) -> Result<bool> {
    let clean = |field: &Option<Option<String>>| {
        field
            .as_ref()
            .map(|v| v.as_deref().and_then(reading::clean_label))
    };
    let (title, folder) = (clean(&edit.title), clean(&edit.folder));
    Ok(sqlx::query(AssertSqlSafe(sql::EDIT.as_str()))
        .bind(account)
        .bind(feed.0)
        .bind(title.is_some())
        .bind(title.flatten())
        .bind(folder.is_some())
        .bind(folder.flatten())
        .execute(&mut **tx)
        .await?
        .rows_affected()
        > 0)
}

pub async fn rename_folder(
    store: &SqliteStore,
    account: i64,
    from: &str,
    to: Option<&str>,
) -> Result<u64> {
    let (_turn, mut tx) = store.write().await?;
    let moved = sqlx::query(AssertSqlSafe(sql::RENAME_FOLDER.as_str()))
        .bind(account)
        .bind(from)
        .bind(to.and_then(reading::clean_label))
        .execute(&mut *tx)
        .await?
        .rows_affected();
    tx.commit().await?;
    Ok(moved)
}

pub async fn set_states(
    store: &SqliteStore,
    account: i64,
    ids: &[i64],
    change: StateChange,
    now: DateTime<Utc>,
) -> Result<u64> {
    if ids.is_empty() || (change.read.is_none() && change.starred.is_none()) {
        return Ok(0);
    }
    let (_turn, mut tx) = store.write().await?;
    let rows = sqlx::query(AssertSqlSafe(format!(
        "{} AND e.id IN (SELECT value FROM json_each(?2))",
        *sql::CURRENT_STATES
    )))
    .bind(account)
    .bind(json(&ids)?)
    .fetch_all(&mut *tx)
    .await?;
    let mut writes = Vec::new();
    let mut deltas: BTreeMap<i64, i64> = BTreeMap::new();
    for row in &rows {
        let (id, feed, first_seen_at): (i64, i64, i64) = (
            row.try_get("id")?,
            row.try_get("feed_id")?,
            row.try_get("first_seen_at")?,
        );
        let current = Current {
            first_seen_at,
            floor: row.try_get::<i64, _>("read_floor")?,
            read: row.try_get::<Option<bool>, _>("read")?,
            starred: row.try_get::<bool, _>("starred")?,
        };
        let Some(plan) = reading::plan(&current, change) else {
            continue;
        };
        *deltas.entry(feed).or_default() += plan.unread_delta;
        writes.push((id, feed, first_seen_at, plan.read, plan.starred));
    }
    let changed = writes.len() as u64;
    if !writes.is_empty() {
        sqlx::query(
            "INSERT INTO entry_states (account_id, entry_id, feed_id, first_seen_at, read, \
             starred, changed_at) SELECT ?1, value ->> 0, value ->> 1, value ->> 2, \
             value ->> 3, value ->> 4, ?3 FROM json_each(?2) WHERE true \
             ON CONFLICT (account_id, entry_id) DO UPDATE SET read = excluded.read, \
             starred = excluded.starred, changed_at = excluded.changed_at",
        )
        .bind(account)
        .bind(json(&writes)?)
        .bind(micros(now))
        .execute(&mut *tx)
        .await?;
    }
    for (feed, delta) in deltas.into_iter().filter(|(_, d)| *d != 0) {
        sqlx::query(AssertSqlSafe(sql::ADD_UNREAD.as_str()))
            .bind(account)
            .bind(feed)
            .bind(delta)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(changed)
}

pub async fn mark_all_read(
    store: &SqliteStore,
    account: i64,
    scope: &ReadScope,
    up_to: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<u64> {
    let scope = scope.parts();
    let up_to = micros(up_to.min(now));
    let (_turn, mut tx) = store.write().await?;
    let before = unread_sum(&mut tx, account, scope).await?;
    // Overrides under the new floor say nothing the floor does not: kept-unread entries
    // become read (changed now), read ones stay read; rows left with no star go.
    in_scope(&sql::FLOOR_OVERRIDES, account, scope)
        .bind(up_to)
        .bind(micros(now))
        .execute(&mut *tx)
        .await?;
    in_scope(&sql::DROP_EMPTY_OVERRIDES, account, scope)
        .execute(&mut *tx)
        .await?;
    in_scope(&sql::RAISE_FLOORS, account, scope)
        .bind(up_to)
        .bind(micros(now))
        .execute(&mut *tx)
        .await?;
    recount(&mut tx, account, scope).await?;
    let after = unread_sum(&mut tx, account, scope).await?;
    tx.commit().await?;
    Ok(u64::try_from(before - after).unwrap_or(0))
}

/// `sql`, written over `in_scope!`'s parameters, with the account and scope bound.
fn in_scope<'q>(
    sql: &'q str,
    account: i64,
    (feed, folder): (Option<i64>, Option<&'q str>),
) -> sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments> {
    sqlx::query(AssertSqlSafe(sql))
        .bind(account)
        .bind(feed)
        .bind(folder)
}

/// The kept unread count of `account`'s subscriptions in a scope, summed.
async fn unread_sum(
    tx: &mut Transaction<'static, Sqlite>,
    account: i64,
    (feed, folder): (Option<i64>, Option<&str>),
) -> Result<i64> {
    Ok(sqlx::query_scalar(AssertSqlSafe(sql::UNREAD_SUM.as_str()))
        .bind(account)
        .bind(feed)
        .bind(folder)
        .fetch_one(&mut **tx)
        .await?)
}

pub async fn reading(store: &SqliteStore, query: &ReadingQuery) -> Result<Vec<ReadEntry>> {
    let mut listing = QueryBuilder::<Sqlite>::new(sql::LISTING.as_str());
    push_selection(&mut listing, query)?;
    push_page(&mut listing, query);
    listing
        .build()
        .fetch_all(&store.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(ReadEntry {
                entry: rows::entry_from_row(row)?,
                state: EntryState {
                    read: row.try_get("state_read")?,
                    starred: row.try_get("state_starred")?,
                    changed_at: from_micros(row.try_get("state_changed_at")?)?,
                },
            })
        })
        .collect()
}

pub async fn count(store: &SqliteStore, query: &ReadingQuery) -> Result<u64> {
    let mut counting = QueryBuilder::<Sqlite>::new("SELECT count(*)");
    push_selection(&mut counting, query)?;
    let n: i64 = counting.build_query_scalar().fetch_one(&store.pool).await?;
    Ok(u64::try_from(n).unwrap_or(0))
}

pub async fn recount_unread(store: &SqliteStore, account: i64) -> Result<Vec<(FeedId, u64)>> {
    let rows: Vec<(i64, i64)> = sqlx::query_as(AssertSqlSafe(sql::COUNT_UNREAD.as_str()))
        .bind(account)
        .fetch_all(&store.pool)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(feed, n)| (FeedId(feed), u64::try_from(n).unwrap_or(0)))
        .collect())
}

/// New entries of a feed were stored at `at`: each account subscribed with its floor before
/// then has `n` more unread, and a subscription waiting for the feed's first entries starts
/// its reading state with them.
pub(super) async fn count_new(
    tx: &mut Transaction<'static, Sqlite>,
    feed: i64,
    n: u64,
    at: i64,
) -> Result<()> {
    sqlx::query(AssertSqlSafe(sql::COUNT_NEW.as_str()))
        .bind(feed)
        .bind(i64::try_from(n).unwrap_or(i64::MAX))
        .bind(at)
        .execute(&mut **tx)
        .await?;
    // Subscriptions made before the feed had entries start with these.
    start_reading(tx, feed, None, at, at).await?;
    Ok(())
}
