//! The WebSub aggregate's SQL, written once for both backends (they differ only in how they
//! number parameters and store times, which each backend's binding and row decoding handle).
//! Written in PostgreSQL's `$N`; [`for_sqlite`] gives SQLite's `?N`.

/// The columns of a [`WebSubRecord`](crate::WebSubRecord).
pub(crate) const SELECT: &str = "SELECT feed_id, token, hub, topic, secret, state, \
     requested_at, lease_until, reason, pushes, last_push_at FROM websub";

/// Make or replace a feed's subscription whole, keeping the store's push count; parameters:
/// feed id, token, hub, topic, secret, state, requested at, lease until, reason.
pub(crate) const SAVE: &str = "INSERT INTO websub (feed_id, token, hub, topic, secret, state, \
     requested_at, lease_until, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
     ON CONFLICT (feed_id) DO UPDATE SET token = excluded.token, hub = excluded.hub, \
     topic = excluded.topic, secret = excluded.secret, state = excluded.state, \
     requested_at = excluded.requested_at, lease_until = excluded.lease_until, \
     reason = excluded.reason";

/// Count one push on the feed's subscription; parameters: feed id, when.
pub(crate) const COUNT_PUSH: &str =
    "UPDATE websub SET pushes = pushes + 1, last_push_at = $2 WHERE feed_id = $1";

/// `sql` with SQLite's parameter marks (`?N` for `$N`); the statements here hold no `$`
/// anywhere else.
pub(crate) fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_statements_number_their_parameters_alike() {
        assert_eq!(
            for_sqlite(COUNT_PUSH),
            "UPDATE websub SET pushes = pushes + 1, last_push_at = ?2 WHERE feed_id = ?1"
        );
        for sql in [SELECT, SAVE, COUNT_PUSH] {
            assert!(!for_sqlite(sql).contains('$'));
        }
    }
}
