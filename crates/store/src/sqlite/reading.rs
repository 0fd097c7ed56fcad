//! Reading state per account on SQLite (see [`crate::reading`] for the model: a read floor
//! per subscription, an override row per entry marked against it, a kept unread count).

use super::{SqliteStore, apply::json, feed_for, rows};
use crate::codec::{self, from_micros, micros};
use crate::reading::{self, Current};
use crate::{
    EntryState, FeedId, NEW_SUBSCRIPTION_UNREAD, NewFeed, Placement, ReadEntry, ReadScope,
    ReadStatus, ReadingOrder, ReadingQuery, Result, StateChange, Subscribed, Subscription,
    SubscriptionEdit,
};
use chrono::{DateTime, Utc};
use sqlx::{QueryBuilder, Row, Sqlite, Transaction};
use std::collections::BTreeMap;
use tidings_model::FeedUrl;

/// The unread entries of a subscription `s` counted one by one: those above its floor
/// without a read override, and those at or under it kept unread.
const UNREAD_OF_S: &str = "(SELECT count(*) FROM entries e \
     LEFT JOIN entry_states st ON st.account_id = s.account_id AND st.entry_id = e.id \
     WHERE e.feed_id = s.feed_id AND e.first_seen_at > s.read_floor \
     AND (st.read IS NULL OR st.read = 0)) \
     + (SELECT count(*) FROM entry_states st WHERE st.account_id = s.account_id \
     AND st.feed_id = s.feed_id AND st.read = 0 AND st.first_seen_at <= s.read_floor)";

/// The subscriptions of `?1` a scope covers: `?2` a feed id or NULL, `?3` a folder or NULL.
const IN_SCOPE: &str = "account_id = ?1 AND (?2 IS NULL OR feed_id = ?2) \
     AND (?3 IS NULL OR folder = ?3)";

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
    let new_subscription = sqlx::query(
        "INSERT INTO subscriptions (feed_id, subscriber, created_at, account_id, title, folder, \
         read_floor, floor_moved_at, unread, awaiting_entries) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?3, 0, 1) \
         ON CONFLICT (feed_id, subscriber) DO NOTHING",
    )
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

/// The subscriptions of feed `?1` whose reading state starts now: account `?2`'s, or when
/// it is NULL every one waiting for the feed's first entries.
const STARTING: &str = "s.feed_id = ?1 AND s.account_id IS NOT NULL \
     AND (s.account_id = ?2 OR (?2 IS NULL AND s.awaiting_entries = 1))";

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
        let waiting: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT EXISTS (SELECT 1 FROM subscriptions s WHERE {STARTING})"
        )))
        .bind(feed)
        .bind(account)
        .fetch_one(&mut **tx)
        .await?;
        if !waiting {
            return Ok(());
        }
    }
    let has_entries: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1 AND first_seen_at <= ?2)",
    )
    .bind(feed)
    .bind(floor)
    .fetch_one(&mut **tx)
    .await?;
    if !has_entries {
        return Ok(());
    }
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO entry_states (account_id, entry_id, feed_id, first_seen_at, read, \
         starred, changed_at) SELECT s.account_id, e.id, e.feed_id, e.first_seen_at, 0, \
         0, ?4 FROM subscriptions s, (SELECT id, feed_id, first_seen_at FROM entries \
         WHERE feed_id = ?1 AND first_seen_at <= ?3 ORDER BY sort_at DESC, id DESC \
         LIMIT ?5) AS e WHERE {STARTING} ON CONFLICT (account_id, entry_id) DO NOTHING"
    )))
    .bind(feed)
    .bind(account)
    .bind(floor)
    .bind(now)
    .bind(i64::from(NEW_SUBSCRIPTION_UNREAD))
    .execute(&mut **tx)
    .await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE subscriptions AS s SET read_floor = ?3, floor_moved_at = ?4 WHERE {STARTING}"
    )))
    .bind(feed)
    .bind(account)
    .bind(floor)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE subscriptions AS s SET unread = {UNREAD_OF_S}, awaiting_entries = 0 \
         WHERE {STARTING}"
    )))
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
    in_scope(
        &format!("UPDATE subscriptions AS s SET unread = {UNREAD_OF_S} WHERE {IN_SCOPE}"),
        account,
        scope,
    )
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
    let moved = sqlx::query(
        "UPDATE subscriptions SET feed_id = ?2, read_floor = ?3, floor_moved_at = ?4, \
         unread = 0, awaiting_entries = 1 WHERE feed_id = ?1 AND ?1 <> ?2 \
         AND NOT EXISTS (SELECT 1 FROM subscriptions t WHERE t.feed_id = ?2 \
         AND t.subscriber = subscriptions.subscriber)",
    )
    .bind(from.0)
    .bind(feed_id)
    .bind(floor)
    .bind(micros(now))
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if from.0 != feed_id {
        sqlx::query("DELETE FROM entry_states WHERE feed_id = ?1")
            .bind(from.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM subscriptions WHERE feed_id = ?1")
            .bind(from.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "DELETE FROM feeds WHERE id = ?1 AND state <> 'removed' \
             AND NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1)",
        )
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
    let gone = sqlx::query("DELETE FROM subscriptions WHERE account_id = ?1 AND feed_id = ?2")
        .bind(account)
        .bind(feed.0)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    sqlx::query("DELETE FROM entry_states WHERE account_id = ?1 AND feed_id = ?2")
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
    let rows: Vec<SubscriptionRow> = sqlx::query_as(
        "SELECT feed_id, title, folder, unread, created_at FROM subscriptions \
         WHERE account_id = ?1 ORDER BY feed_id",
    )
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
    Ok(sqlx::query(
        "UPDATE subscriptions SET title = CASE WHEN ?3 THEN ?4 ELSE title END, \
         folder = CASE WHEN ?5 THEN ?6 ELSE folder END WHERE account_id = ?1 AND feed_id = ?2",
    )
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
    let moved =
        sqlx::query("UPDATE subscriptions SET folder = ?3 WHERE account_id = ?1 AND folder = ?2")
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
    let rows = sqlx::query(
        "SELECT e.id, e.feed_id, e.first_seen_at, s.read_floor, st.read, \
         COALESCE(st.starred, 0) AS starred FROM entries e \
         JOIN subscriptions s ON s.feed_id = e.feed_id AND s.account_id = ?1 \
         LEFT JOIN entry_states st ON st.account_id = ?1 AND st.entry_id = e.id \
         WHERE e.id IN (SELECT value FROM json_each(?2))",
    )
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
        sqlx::query(
            "UPDATE subscriptions SET unread = max(unread + ?3, 0) \
             WHERE account_id = ?1 AND feed_id = ?2",
        )
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
    let feeds_in_scope = format!("SELECT feed_id FROM subscriptions WHERE {IN_SCOPE}");
    // Overrides under the new floor say nothing the floor does not: kept-unread entries
    // become read (changed now), read ones stay read; rows left with no star go.
    in_scope(
        &format!(
            "UPDATE entry_states SET changed_at = CASE WHEN read = 0 THEN ?5 ELSE changed_at \
             END, read = NULL WHERE account_id = ?1 AND read IS NOT NULL \
             AND first_seen_at <= ?4 AND feed_id IN ({feeds_in_scope})"
        ),
        account,
        scope,
    )
    .bind(up_to)
    .bind(micros(now))
    .execute(&mut *tx)
    .await?;
    in_scope(
        &format!(
            "DELETE FROM entry_states WHERE account_id = ?1 AND read IS NULL AND starred = 0 \
             AND feed_id IN ({feeds_in_scope})"
        ),
        account,
        scope,
    )
    .execute(&mut *tx)
    .await?;
    in_scope(
        &format!(
            "UPDATE subscriptions SET floor_moved_at = ?5, read_floor = ?4 \
             WHERE {IN_SCOPE} AND read_floor < ?4"
        ),
        account,
        scope,
    )
    .bind(up_to)
    .bind(micros(now))
    .execute(&mut *tx)
    .await?;
    recount(&mut tx, account, scope).await?;
    let after = unread_sum(&mut tx, account, scope).await?;
    tx.commit().await?;
    Ok(u64::try_from(before - after).unwrap_or(0))
}

/// `sql`, written over [`IN_SCOPE`]'s parameters, with the account and scope bound.
fn in_scope<'q>(
    sql: &'q str,
    account: i64,
    (feed, folder): (Option<i64>, Option<&'q str>),
) -> sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments> {
    sqlx::query(sqlx::AssertSqlSafe(sql))
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
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COALESCE(sum(unread), 0) FROM subscriptions WHERE {IN_SCOPE}"
    )))
    .bind(account)
    .bind(feed)
    .bind(folder)
    .fetch_one(&mut **tx)
    .await?)
}

/// The state columns of an entry `e` of subscription `s` with its override `st`.
const STATE_COLUMNS: &str = "COALESCE(st.read, e.first_seen_at <= s.read_floor) AS state_read, \
     COALESCE(st.starred, 0) AS state_starred, \
     max(COALESCE(st.changed_at, 0), CASE WHEN e.first_seen_at <= s.read_floor \
     THEN max(s.floor_moved_at, e.first_seen_at) ELSE e.first_seen_at END) AS state_changed_at";

/// `query`'s FROM and WHERE clauses.
fn push_selection(sql: &mut QueryBuilder<Sqlite>, query: &ReadingQuery) -> Result<()> {
    sql.push(" FROM entries e JOIN subscriptions s ON s.feed_id = e.feed_id AND s.account_id = ")
        .push_bind(query.account)
        .push(
            " LEFT JOIN entry_states st ON st.account_id = s.account_id AND st.entry_id = e.id \
         LEFT JOIN resources r ON r.id = e.page_id WHERE 1 = 1",
        );
    if let Some(feed) = query.feed {
        sql.push(" AND e.feed_id = ").push_bind(feed.0);
    }
    if let Some(folder) = &query.folder {
        sql.push(" AND s.folder = ").push_bind(folder.clone());
    }
    if query.unfiled {
        sql.push(" AND s.folder IS NULL");
    }
    match query.status {
        Some(ReadStatus::Unread) => {
            sql.push(" AND COALESCE(st.read, e.first_seen_at <= s.read_floor) = 0");
        }
        Some(ReadStatus::Read) => {
            sql.push(" AND COALESCE(st.read, e.first_seen_at <= s.read_floor) = 1");
        }
        None => {}
    }
    if let Some(starred) = query.starred {
        sql.push(" AND COALESCE(st.starred, 0) = ")
            .push_bind(starred);
    }
    if let Some(ids) = &query.ids {
        sql.push(" AND e.id IN (SELECT value FROM json_each(")
            .push_bind(json(ids)?)
            .push("))");
    }
    if let Some(id) = query.id_above {
        sql.push(" AND e.id > ").push_bind(id);
    }
    if let Some(id) = query.id_below {
        sql.push(" AND e.id < ").push_bind(id);
    }
    if let Some(since) = query.since {
        sql.push(" AND e.sort_at >= ").push_bind(micros(since));
    }
    if let Some(until) = query.until {
        sql.push(" AND e.sort_at < ").push_bind(micros(until));
    }
    if let Some(at) = query.changed_after {
        sql.push(
            " AND max(COALESCE(st.changed_at, 0), CASE WHEN e.first_seen_at <= s.read_floor \
             THEN max(s.floor_moved_at, e.first_seen_at) ELSE e.first_seen_at END) > ",
        )
        .push_bind(micros(at));
    }
    if let Some(now) = query.current_at {
        // FF16: an expired entry, or an entry of an expired feed, is not shown.
        sql.push(" AND (e.expires IS NULL OR e.expires > ")
            .push_bind(micros(now))
            .push(") AND e.feed_id NOT IN (SELECT id FROM feeds WHERE expires <= ")
            .push_bind(micros(now))
            .push(")");
    }
    Ok(())
}

pub async fn reading(store: &SqliteStore, query: &ReadingQuery) -> Result<Vec<ReadEntry>> {
    let mut sql = QueryBuilder::<Sqlite>::new(
        "SELECT e.id, e.feed_id, e.sort_at, e.first_seen_at, e.updated_at, e.content_hash, \
         e.data, e.summary, r.preview, r.page, ",
    );
    sql.push(STATE_COLUMNS);
    push_selection(&mut sql, query)?;
    sql.push(match query.order {
        ReadingOrder::NewestFirst => " ORDER BY e.sort_at DESC, e.id DESC",
        ReadingOrder::OldestFirst => " ORDER BY e.sort_at, e.id",
        ReadingOrder::IdAscending => " ORDER BY e.id",
        ReadingOrder::IdDescending => " ORDER BY e.id DESC",
    });
    sql.push(" LIMIT ")
        .push_bind(codec::limit(
            query.limit,
            reading::DEFAULT_READING_LIMIT,
            reading::MAX_READING_LIMIT,
        ))
        .push(" OFFSET ")
        .push_bind(i64::from(query.offset));
    sql.build()
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
    let mut sql = QueryBuilder::<Sqlite>::new("SELECT count(*)");
    push_selection(&mut sql, query)?;
    let n: i64 = sql.build_query_scalar().fetch_one(&store.pool).await?;
    Ok(u64::try_from(n).unwrap_or(0))
}

pub async fn recount_unread(store: &SqliteStore, account: i64) -> Result<Vec<(FeedId, u64)>> {
    let rows: Vec<(i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT s.feed_id, {UNREAD_OF_S} FROM subscriptions s WHERE s.account_id = ?1 \
         ORDER BY s.feed_id"
    )))
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
    sqlx::query(
        "UPDATE subscriptions SET unread = unread + ?2 \
         WHERE feed_id = ?1 AND account_id IS NOT NULL AND read_floor < ?3 \
         AND awaiting_entries = 0",
    )
    .bind(feed)
    .bind(i64::try_from(n).unwrap_or(i64::MAX))
    .bind(at)
    .execute(&mut **tx)
    .await?;
    // Subscriptions made before the feed had entries start with these.
    start_reading(tx, feed, None, at, at).await?;
    Ok(())
}
