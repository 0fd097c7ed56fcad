//! What discovery checked (FF2): the statements of `url_checks`, written once for both
//! backends (`crate::sql`). Those that look a list up (`json_each` on SQLite, `ANY` on
//! PostgreSQL) stay in each backend.

/// The columns of a [`StoredCheck`](crate::StoredCheck).
macro_rules! check_columns {
    () => {
        "SELECT id, url, checked_at, disposition, reason, feed_id, source, found_on \
         FROM url_checks"
    };
}
pub(crate) use check_columns;

crate::sql::statements! {
    /// One check; parameters: URL, when, disposition, reason, feed id, source, found on.
    ADD = "INSERT INTO url_checks (url, checked_at, disposition, reason, feed_id, source, \
           found_on) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
    /// A check by id.
    BY_ID = concat!(check_columns!(), " WHERE id = $1");
    /// A URL's checks, newest first, at most `$2`.
    BY_URL = concat!(check_columns!(), " WHERE url = $1 ORDER BY id DESC LIMIT $2");
    /// The URLs whose last check held them (FF3), oldest first, at most `$1`.
    HELD = concat!(
        check_columns!(),
        " WHERE id IN (SELECT MAX(id) FROM url_checks WHERE url IN \
         (SELECT url FROM url_checks WHERE disposition = 'held') GROUP BY url) \
         AND disposition = 'held' ORDER BY id LIMIT $1"
    );
    /// The feeds whose last body had this hash (FF3's evidence).
    FEEDS_WITH_HASH = "SELECT id FROM feeds WHERE content_hash = $1 ORDER BY id";
}
