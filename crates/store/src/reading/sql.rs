//! The reading state's statements, written once for both backends (`crate::sql`), and the
//! reading query built at run time on either ([`push_selection`]). Kept per backend: the
//! statements that look a list of entries up or write many override rows at once (`json_each`
//! on SQLite, `ANY` and `UNNEST` on PostgreSQL) and PostgreSQL's row locks.
//!
//! Booleans are written `TRUE`, `FALSE` and `NOT x`, which SQLite reads as 1, 0 and a test of
//! its integers; a possibly NULL parameter is typed with `CAST` for PostgreSQL.

use crate::sql::Dialect;
use crate::{ReadStatus, ReadingQuery, Result};

/// The unread entries of a subscription `s` counted one by one: those above its floor
/// without a read override, and those at or under it kept unread.
macro_rules! unread_of_s {
    () => {
        "(SELECT count(*) FROM entries e \
         LEFT JOIN entry_states st ON st.account_id = s.account_id AND st.entry_id = e.id \
         WHERE e.feed_id = s.feed_id AND e.first_seen_at > s.read_floor \
         AND (st.read IS NULL OR NOT st.read)) \
         + (SELECT count(*) FROM entry_states st WHERE st.account_id = s.account_id \
         AND st.feed_id = s.feed_id AND st.read = FALSE AND st.first_seen_at <= s.read_floor)"
    };
}

/// The subscriptions of `$1` a scope covers: `$2` a feed id or NULL, `$3` a folder or NULL.
macro_rules! in_scope {
    () => {
        "account_id = $1 AND (CAST($2 AS BIGINT) IS NULL OR feed_id = $2) \
         AND (CAST($3 AS TEXT) IS NULL OR folder = $3)"
    };
}
pub(crate) use in_scope;

/// The subscriptions of feed `$1` whose reading state starts now: account `$2`'s, or when
/// it is NULL every one waiting for the feed's first entries.
macro_rules! starting {
    () => {
        "s.feed_id = $1 AND s.account_id IS NOT NULL \
         AND (s.account_id = $2 OR (CAST($2 AS BIGINT) IS NULL AND s.awaiting_entries))"
    };
}

/// When an entry `e` of subscription `s` last changed by the floor: when the floor moved over
/// it, or its arrival.
macro_rules! floor_change {
    () => {
        "(CASE WHEN e.first_seen_at <= s.read_floor THEN (CASE WHEN s.floor_moved_at > \
         e.first_seen_at THEN s.floor_moved_at ELSE e.first_seen_at END) \
         ELSE e.first_seen_at END)"
    };
}

/// An entry's change time: its override's, or [`floor_change`]'s when later (or with no
/// override).
macro_rules! changed_at {
    () => {
        concat!(
            "(CASE WHEN st.changed_at > ",
            floor_change!(),
            " THEN st.changed_at ELSE ",
            floor_change!(),
            " END)"
        )
    };
}

crate::sql::statements! {
    /// A subscription of an account; parameters: feed, subscriber, when, account, title,
    /// folder, floor.
    SUBSCRIBE = "INSERT INTO subscriptions (feed_id, subscriber, created_at, account_id, title, \
         folder, read_floor, floor_moved_at, unread, awaiting_entries) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $3, 0, TRUE) \
         ON CONFLICT (feed_id, subscriber) DO NOTHING";
    /// Whether any subscription of feed `$1` starts now ([`starting`]).
    ANY_STARTING = concat!("SELECT EXISTS (SELECT 1 FROM subscriptions s WHERE ", starting!(), ")");
    /// Whether feed `$1` has entries first seen at or before `$2`.
    HAS_ENTRIES_BY = "SELECT EXISTS (SELECT 1 FROM entries WHERE feed_id = $1 \
         AND first_seen_at <= $2)";
    /// The starting subscriptions' newest `$5` entries at or under floor `$3` start unread
    /// (changed at `$4`).
    START_UNREAD = concat!(
        "INSERT INTO entry_states (account_id, entry_id, feed_id, first_seen_at, read, \
         starred, changed_at) SELECT s.account_id, e.id, e.feed_id, e.first_seen_at, FALSE, \
         FALSE, $4 FROM subscriptions s, (SELECT id, feed_id, first_seen_at FROM entries \
         WHERE feed_id = $1 AND first_seen_at <= $3 ORDER BY sort_at DESC, id DESC \
         LIMIT $5) AS e WHERE ",
        starting!(),
        " ON CONFLICT (account_id, entry_id) DO NOTHING"
    );
    /// The starting subscriptions' floor `$3`, moved at `$4`.
    START_FLOOR = concat!(
        "UPDATE subscriptions AS s SET read_floor = $3, floor_moved_at = $4 WHERE ",
        starting!()
    );
    /// The starting subscriptions' unread counts, counted; they wait no more.
    START_COUNT = concat!(
        "UPDATE subscriptions AS s SET unread = ",
        unread_of_s!(),
        ", awaiting_entries = FALSE WHERE ",
        starting!()
    );
    /// The kept unread counts of a scope's subscriptions set to what they hold.
    RECOUNT = concat!(
        "UPDATE subscriptions AS s SET unread = ",
        unread_of_s!(),
        " WHERE ",
        in_scope!()
    );
    /// Every subscription of feed `$1` moved to feed `$2` but a subscriber's who has `$2`
    /// already, waiting for its entries from floor `$3` (moved at `$4`).
    MOVE = "UPDATE subscriptions SET feed_id = $2, read_floor = $3, floor_moved_at = $4, \
         unread = 0, awaiting_entries = TRUE WHERE feed_id = $1 AND $1 <> $2 \
         AND NOT EXISTS (SELECT 1 FROM subscriptions t WHERE t.feed_id = $2 \
         AND t.subscriber = subscriptions.subscriber)";
    /// Every override of feed `$1`.
    DROP_FEED_STATES = "DELETE FROM entry_states WHERE feed_id = $1";
    /// Feed `$1`, when it holds no entries and was not removed on request.
    DROP_EMPTY_FEED = "DELETE FROM feeds WHERE id = $1 AND state <> 'removed' \
         AND NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = $1)";
    /// Account `$1`'s subscription to feed `$2`.
    UNSUBSCRIBE = "DELETE FROM subscriptions WHERE account_id = $1 AND feed_id = $2";
    /// Account `$1`'s overrides of feed `$2`.
    DROP_SUBSCRIPTION_STATES = "DELETE FROM entry_states WHERE account_id = $1 AND feed_id = $2";
    /// Account `$1`'s subscriptions: feed, title, folder, unread, since.
    SUBSCRIPTIONS = "SELECT feed_id, title, folder, unread, created_at FROM subscriptions \
         WHERE account_id = $1 ORDER BY feed_id";
    /// Account `$1`'s subscription to feed `$2` retitled (`$3`: whether, `$4`: to) and
    /// refiled (`$5`, `$6`).
    EDIT = "UPDATE subscriptions SET title = CASE WHEN $3 THEN $4 ELSE title END, \
         folder = CASE WHEN $5 THEN $6 ELSE folder END WHERE account_id = $1 AND feed_id = $2";
    /// Account `$1`'s folder `$2` renamed to `$3` (NULL: unfiled).
    RENAME_FOLDER = "UPDATE subscriptions SET folder = $3 WHERE account_id = $1 AND folder = $2";
    /// Account `$1`'s unread count of feed `$2` moved by `$3`, never under zero.
    ADD_UNREAD = "UPDATE subscriptions SET unread = CASE WHEN unread + $3 > 0 \
         THEN unread + $3 ELSE 0 END WHERE account_id = $1 AND feed_id = $2";
    /// A scope's overrides under the new floor `$4` say nothing the floor does not:
    /// kept-unread entries become read (changed at `$5`), read ones stay read.
    FLOOR_OVERRIDES = concat!(
        "UPDATE entry_states SET changed_at = CASE WHEN read = FALSE THEN $5 ELSE changed_at \
         END, read = NULL WHERE account_id = $1 AND read IS NOT NULL \
         AND first_seen_at <= $4 AND feed_id IN (SELECT feed_id FROM subscriptions WHERE ",
        in_scope!(),
        ")"
    );
    /// A scope's overrides left with nothing to say.
    DROP_EMPTY_OVERRIDES = concat!(
        "DELETE FROM entry_states WHERE account_id = $1 AND read IS NULL AND NOT starred \
         AND feed_id IN (SELECT feed_id FROM subscriptions WHERE ",
        in_scope!(),
        ")"
    );
    /// A scope's floors raised to `$4` (moved at `$5`).
    RAISE_FLOORS = concat!(
        "UPDATE subscriptions SET floor_moved_at = $5, read_floor = $4 WHERE ",
        in_scope!(),
        " AND read_floor < $4"
    );
    /// A scope's kept unread counts, summed.
    UNREAD_SUM = concat!(
        "SELECT CAST(COALESCE(sum(unread), 0) AS BIGINT) FROM subscriptions WHERE ",
        in_scope!()
    );
    /// Account `$1`'s unread counts, counted one by one: feed, count.
    COUNT_UNREAD = concat!(
        "SELECT s.feed_id, ",
        unread_of_s!(),
        " FROM subscriptions s WHERE s.account_id = $1 ORDER BY s.feed_id"
    );
    /// `$2` new entries of feed `$1` stored at `$3`: one more unread each for every account
    /// whose floor is under that.
    COUNT_NEW = "UPDATE subscriptions SET unread = unread + $2 \
         WHERE feed_id = $1 AND account_id IS NOT NULL AND read_floor < $3 \
         AND NOT awaiting_entries";
    /// What a mark needs of each entry it names (account `$1`), before the backend's own
    /// match of the list and its locks.
    CURRENT_STATES = "SELECT e.id, e.feed_id, e.first_seen_at, s.read_floor, st.read, \
         COALESCE(st.starred, FALSE) AS starred FROM entries e \
         JOIN subscriptions s ON s.feed_id = e.feed_id AND s.account_id = $1 \
         LEFT JOIN entry_states st ON st.account_id = $1 AND st.entry_id = e.id WHERE TRUE";
    /// The start of a reading listing, before [`push_selection`]'s clauses.
    LISTING = concat!(
        "SELECT e.id, e.feed_id, e.sort_at, e.first_seen_at, e.updated_at, e.content_hash, \
         e.data, e.summary, r.preview, r.page, \
         COALESCE(st.read, e.first_seen_at <= s.read_floor) AS state_read, \
         COALESCE(st.starred, FALSE) AS state_starred, ",
        changed_at!(),
        " AS state_changed_at"
    );
}

/// `query`'s FROM and WHERE clauses, on either backend.
pub(crate) fn push_selection<DB>(
    sql: &mut sqlx::QueryBuilder<DB>,
    query: &ReadingQuery,
) -> Result<()>
where
    DB: Dialect,
    DB::Arguments: Default,
    for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> bool: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> String: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
{
    sql.push(" FROM entries e JOIN subscriptions s ON s.feed_id = e.feed_id AND s.account_id = ")
        .push_bind(query.account)
        .push(
            " LEFT JOIN entry_states st ON st.account_id = s.account_id AND st.entry_id = e.id \
             LEFT JOIN resources r ON r.id = e.page_id WHERE TRUE",
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
            sql.push(" AND NOT COALESCE(st.read, e.first_seen_at <= s.read_floor)");
        }
        Some(ReadStatus::Read) => {
            sql.push(" AND COALESCE(st.read, e.first_seen_at <= s.read_floor)");
        }
        None => {}
    }
    if let Some(starred) = query.starred {
        sql.push(" AND COALESCE(st.starred, FALSE) = ")
            .push_bind(starred);
    }
    if let Some(ids) = &query.ids {
        DB::push_in_ids(sql, "e.id", ids)?;
    }
    if let Some(id) = query.id_above {
        sql.push(" AND e.id > ").push_bind(id);
    }
    if let Some(id) = query.id_below {
        sql.push(" AND e.id < ").push_bind(id);
    }
    if let Some(since) = query.since {
        sql.push(" AND e.sort_at >= ").push_bind(DB::time(since));
    }
    if let Some(until) = query.until {
        sql.push(" AND e.sort_at < ").push_bind(DB::time(until));
    }
    if let Some(at) = query.changed_after {
        sql.push(concat!(" AND ", changed_at!(), " > "))
            .push_bind(DB::time(at));
    }
    if let Some(now) = query.current_at {
        // FF16: an expired entry, or an entry of an expired feed, is not shown.
        sql.push(" AND (e.expires IS NULL OR e.expires > ")
            .push_bind(DB::time(now))
            .push(") AND e.feed_id NOT IN (SELECT id FROM feeds WHERE expires <= ")
            .push_bind(DB::time(now))
            .push(")");
    }
    Ok(())
}

/// A reading listing's order and page, on either backend.
pub(crate) fn push_page<DB>(sql: &mut sqlx::QueryBuilder<DB>, query: &ReadingQuery)
where
    DB: sqlx::Database,
    DB::Arguments: Default,
    for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
{
    use crate::ReadingOrder;
    sql.push(match query.order {
        ReadingOrder::NewestFirst => " ORDER BY e.sort_at DESC, e.id DESC",
        ReadingOrder::OldestFirst => " ORDER BY e.sort_at, e.id",
        ReadingOrder::IdAscending => " ORDER BY e.id",
        ReadingOrder::IdDescending => " ORDER BY e.id DESC",
    });
    sql.push(" LIMIT ")
        .push_bind(crate::codec::limit(
            query.limit,
            super::DEFAULT_READING_LIMIT,
            super::MAX_READING_LIMIT,
        ))
        .push(" OFFSET ")
        .push_bind(i64::from(query.offset));
}
