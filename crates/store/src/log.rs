//! The request log's SQL (C7), written once for both backends (`crate::sql`) where their
//! dialects agree.
//!
//! A request has two rows at most: its write-ahead row in `requests_open`, committed before
//! it is sent ([`Store::open_request`](crate::Store::open_request)), and its row in
//! `request_log`, written with its answer, which deletes the first in the same transaction.
//! The log as read is both tables: a write-ahead row not closed is shown as `in_flight`.

use std::sync::LazyLock;
use tidings_model::Label;

crate::sql::statements! {
    /// A write-ahead row; parameters: at, feed id, host, purpose, URL, egress, rule.
    OPEN = "INSERT INTO requests_open (at, feed_id, host, purpose, url, egress, rule) \
            VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
    /// Answered rows older than the retention (FF17), at most `$2` of them.
    PRUNE = "DELETE FROM request_log WHERE id IN \
             (SELECT id FROM request_log WHERE at < $1 LIMIT $2)";
    /// Write-ahead rows older than the retention: their process stopped long ago.
    PRUNE_OPEN = "DELETE FROM requests_open WHERE at < $1";
    /// The write-ahead row `$1`, of a request not sent.
    WITHDRAW = "DELETE FROM requests_open WHERE id = $1";
}

/// The answered requests, as [`RequestLogRow`](crate::RequestLogRow) columns with their id.
pub(crate) const ANSWERED: &str = "SELECT id, at, feed_id, host, purpose, url, egress, status, \
                                   outcome, bytes, duration_ms, rule FROM request_log";

/// The write-ahead rows not closed, in the same columns: no status, no bytes, no duration.
pub(crate) static UNANSWERED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT id, at, feed_id, host, purpose, url, egress, CAST(NULL AS INTEGER) AS status, \
         '{}' AS outcome, CAST(0 AS BIGINT) AS bytes, CAST(0 AS BIGINT) AS duration_ms, rule \
         FROM requests_open",
        Label::InFlight.as_str()
    )
});

/// How a listing of the log is put together: each source filtered, ordered and limited
/// alike (so each is read by its own index), then the two merged in the same order.
pub(crate) const LISTING_START: &str = "SELECT * FROM (SELECT * FROM (";
pub(crate) const LISTING_BETWEEN: &str = ") AS answered UNION ALL SELECT * FROM (";
pub(crate) const LISTING_END: &str = ") AS unanswered) AS log";
/// The order of every listing and of each source in it.
pub(crate) const NEWEST_FIRST: &str = " ORDER BY at DESC, id DESC LIMIT ";

/// The listing `query` asks for, on either backend: each source filtered, ordered and limited
/// alike, then the two merged newest first.
pub(crate) fn listing<DB>(query: &crate::LogQuery) -> sqlx::QueryBuilder<DB>
where
    DB: sqlx::Database,
    DB::Arguments: Default,
    for<'t> String: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
{
    let limit = crate::codec::limit(
        query.limit,
        crate::codec::DEFAULT_LOG_LIMIT,
        crate::codec::MAX_LOG_LIMIT,
    );
    let mut sql = sqlx::QueryBuilder::<DB>::new(LISTING_START);
    for (i, source) in [ANSWERED, UNANSWERED.as_str()].into_iter().enumerate() {
        if i > 0 {
            sql.push(LISTING_BETWEEN);
        }
        sql.push(source).push(" WHERE 1 = 1");
        if let Some(host) = &query.host {
            match crate::codec::host_name_pattern(host) {
                None => sql.push(" AND host = ").push_bind(host.clone()),
                Some(pattern) => sql
                    .push(" AND host LIKE ")
                    .push_bind(pattern)
                    .push(" ESCAPE '\\'"),
            };
        }
        if let Some(feed) = query.feed {
            sql.push(" AND feed_id = ").push_bind(feed.0);
        }
        sql.push(NEWEST_FIRST).push_bind(limit);
    }
    sql.push(LISTING_END).push(NEWEST_FIRST).push_bind(limit);
    sql
}
