//! The feeds aggregate's statements that both backends write alike (`crate::sql`): a feed's
//! row, its subscribers by name, its host's stored state and the do-not-crawl rules. Kept per
//! backend: making a feed (PostgreSQL inserts first so two processes meet on the unique URL),
//! counting unseen entry keys (`json_each` against `unnest`), and the write of a read
//! (`apply`, `group`), whose batching differs.

/// Active feeds that someone subscribes to (the condition every due listing shares).
macro_rules! active_subscribed {
    () => {
        "f.state = 'active' AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = f.id)"
    };
}

crate::sql::statements! {
    /// The feed at URL `$1` (or first subscribed at it): id and state.
    AT_URL = "SELECT id, state FROM feeds WHERE url = $1 OR original_url = $1 \
         ORDER BY url = $1 DESC, id LIMIT 1";
    /// Feed `$1` subscribed to by `$2` at `$3`.
    SUBSCRIBE = "INSERT INTO subscriptions (feed_id, subscriber, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (feed_id, subscriber) DO NOTHING";
    /// `$2`'s subscription to feed `$1`.
    UNSUBSCRIBE = "DELETE FROM subscriptions WHERE feed_id = $1 AND subscriber = $2";
    /// Feed `$1`, when nothing holds it (no subscriber, no entry) and it was not removed on
    /// request.
    DISCARD = "DELETE FROM feeds WHERE id = $1 AND state <> 'removed' \
         AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE feed_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = $1)";
    /// Feed `$1` removed on request (WFM10), with reason `$2`.
    REMOVE = "UPDATE feeds SET state = 'removed', state_reason = $2, next_fetch_reason = $2 \
         WHERE id = $1";
    /// Every subscription of feed `$1`.
    DROP_SUBSCRIPTIONS = "DELETE FROM subscriptions WHERE feed_id = $1";
    /// Feed `$1`'s WebSub subscription.
    DROP_WEBSUB = "DELETE FROM websub WHERE feed_id = $1";
    /// Feed `$1`.
    BY_ID = crate::codec::select_feeds!("WHERE f.id = $1");
    /// The feed at URL `$1` (or first subscribed at it).
    BY_URL = crate::codec::select_feeds!(
        "WHERE f.url = $1 OR f.original_url = $1 ORDER BY f.url = $1 DESC, f.id LIMIT 1"
    );
    /// Every feed.
    ALL = crate::codec::select_feeds!("ORDER BY f.id");
    /// The feeds due at `$1`, at most `$2`, soonest first.
    DUE = crate::codec::select_feeds!(
        "WHERE f.next_fetch_at <= $1 AND ",
        active_subscribed!(),
        " ORDER BY f.next_fetch_at, f.id LIMIT $2"
    );
    /// The feeds due at `$1` after (`$3` time, `$4` id), at most `$2`, soonest first.
    DUE_AFTER = crate::codec::select_feeds!(
        "WHERE f.next_fetch_at <= $1 AND (f.next_fetch_at, f.id) > ($3, $4) AND ",
        active_subscribed!(),
        " ORDER BY f.next_fetch_at, f.id LIMIT $2"
    );
    /// The feeds subscriber `$1` has.
    OF_SUBSCRIBER = crate::codec::select_feeds!(
        "WHERE f.id IN (SELECT feed_id FROM subscriptions WHERE subscriber = $1) ORDER BY f.id"
    );
    /// When the next feed falls due.
    NEXT_DUE = concat!("SELECT MIN(f.next_fetch_at) FROM feeds f WHERE ", active_subscribed!());
    /// When the next feed falls due after `$1`.
    NEXT_DUE_AFTER = concat!(
        "SELECT MIN(f.next_fetch_at) FROM feeds f WHERE f.next_fetch_at > $1 AND ",
        active_subscribed!()
    );
    /// How many feeds are due at `$1`.
    COUNT_DUE = concat!(
        "SELECT COUNT(*) FROM feeds f WHERE f.next_fetch_at <= $1 AND ",
        active_subscribed!()
    );
    /// How many feeds are in each state.
    COUNT_BY_STATE = "SELECT state, COUNT(*) FROM feeds GROUP BY state";
    /// How many entries feed `$1` holds (NULL: every feed).
    COUNT_ENTRIES = "SELECT COUNT(*) FROM entries WHERE CAST($1 AS BIGINT) IS NULL \
         OR feed_id = $1";
    /// Feed `$1`'s directive history, newest first, at most `$2`.
    DIRECTIVE_HISTORY = "SELECT at, seen, current, full_response FROM feed_directives \
         WHERE feed_id = $1 ORDER BY id DESC LIMIT $2";
    /// Host `$1`'s Retry-After floor and robots.txt copy, its text left out when the copy
    /// is the one read at `$2` with status `$3` (which the reader holds; NULL: none).
    HOST_STATE = "SELECT retry_after_until, robots_fetched_at, robots_status, \
         CASE WHEN robots_fetched_at = $2 AND robots_status IS NOT DISTINCT FROM $3 \
         THEN NULL ELSE robots_body END FROM hosts WHERE host = $1";
    /// Host `$1`'s robots.txt copy read at `$2` (status `$3`, body `$4`).
    SAVE_ROBOTS = "INSERT INTO hosts (host, created_at, robots_fetched_at, robots_status, \
         robots_body) VALUES ($1, $2, $2, $3, $4) ON CONFLICT (host) DO UPDATE SET \
         robots_fetched_at = excluded.robots_fetched_at, \
         robots_status = excluded.robots_status, robots_body = excluded.robots_body";
    /// Paused or switched-off feed `$1` active again, due at `$2` for reason `$3`.
    RESUME = "UPDATE feeds SET state = 'active', state_reason = NULL, consecutive_failures = 0, \
         last_failure = NULL, failure_totals = NULL, held_by = NULL, \
         next_fetch_at = $2, next_fetch_reason = $3 \
         WHERE id = $1 AND state IN ('paused', 'off')";
    /// Feed `$1` paused by an operator for reason `$2` (held by rule `$3`).
    PAUSE = "UPDATE feeds SET state = 'paused', state_reason = $2, held_by = $3 \
         WHERE id = $1 AND state <> 'removed'";
    /// Feed `$1`'s egress address.
    SET_EGRESS = "UPDATE feeds SET egress = $2 WHERE id = $1";
    /// Feed `$1`'s profile overrides.
    SET_OVERRIDES = "UPDATE feeds SET profile_overrides = $2 WHERE id = $1";
    /// Active feed `$1` due at `$2` for reason `$3`.
    RESCHEDULE = "UPDATE feeds SET next_fetch_at = $2, next_fetch_reason = $3 \
         WHERE id = $1 AND state = 'active'";
    /// Healthy active feed `$1` due sooner, at `$2` for reason `$3`, unless it was read since
    /// `$4` (its last read when asked).
    READ_SOONER = "UPDATE feeds SET next_fetch_at = $2, next_fetch_reason = $3 \
         WHERE id = $1 AND state = 'active' AND consecutive_failures = 0 \
         AND next_fetch_at > $2 AND last_fetch_at IS NOT DISTINCT FROM $4";
    /// A do-not-crawl rule: kind, value, reason, when.
    ADD_BLOCK = "INSERT INTO blocks (kind, value, reason, created_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (kind, value) DO NOTHING";
    /// The rule of kind `$1` and value `$2`.
    BLOCK = "SELECT id, kind, value, reason, created_at FROM blocks WHERE kind = $1 AND value = $2";
    /// The rule of kind `$1` and value `$2`, removed.
    REMOVE_BLOCK = "DELETE FROM blocks WHERE kind = $1 AND value = $2";
    /// Every rule.
    BLOCKS = "SELECT id, kind, value, reason, created_at FROM blocks ORDER BY id";
    /// Host `$1` known from `$2` on.
    ENSURE_HOST = "INSERT INTO hosts (host, created_at) VALUES ($1, $2) ON CONFLICT (host) DO NOTHING";
    /// Host `$1`'s Retry-After floor raised to `$3` (a host first seen at `$2`), never lowered
    /// (C6).
    RAISE_HOST_FLOOR = "INSERT INTO hosts (host, created_at, retry_after_until) VALUES ($1, $2, $3) \
         ON CONFLICT (host) DO UPDATE SET retry_after_until = CASE \
         WHEN hosts.retry_after_until > excluded.retry_after_until \
         THEN hosts.retry_after_until ELSE excluded.retry_after_until END";
    /// The rules' version.
    BLOCKS_VERSION = "SELECT version FROM blocks_version WHERE id = 1";
}
