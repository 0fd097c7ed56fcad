//! The WebSub aggregate's SQL, written once for both backends (`crate::sql`).

crate::sql::statements! {
    /// The columns of a [`WebSubRecord`](crate::WebSubRecord), by feed.
    BY_FEED = "SELECT feed_id, token, hub, topic, secret, state, requested_at, lease_until, \
               reason, pushes, last_push_at FROM websub WHERE feed_id = $1";
    /// The same, by the callback's token.
    BY_TOKEN = "SELECT feed_id, token, hub, topic, secret, state, requested_at, lease_until, \
                reason, pushes, last_push_at FROM websub WHERE token = $1";
    /// Make or replace a feed's subscription whole, keeping the store's push count; parameters:
    /// feed id, token, hub, topic, secret, state, requested at, lease until, reason.
    SAVE = "INSERT INTO websub (feed_id, token, hub, topic, secret, state, requested_at, \
            lease_until, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
            ON CONFLICT (feed_id) DO UPDATE SET token = excluded.token, hub = excluded.hub, \
            topic = excluded.topic, secret = excluded.secret, state = excluded.state, \
            requested_at = excluded.requested_at, lease_until = excluded.lease_until, \
            reason = excluded.reason";
    /// Count one push on the feed's subscription; parameters: feed id, when.
    COUNT_PUSH = "UPDATE websub SET pushes = pushes + 1, last_push_at = $2 WHERE feed_id = $1";
}
