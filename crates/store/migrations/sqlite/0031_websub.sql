-- tidings store, SQLite: WebSub subscriptions (issue 17), one per feed. `token` names the
-- callback URL (`/websub/{token}`), `secret` is the HMAC key the hub signs pushed content with
-- (never logged, never shown); `state` is requested, live, denied or failed
-- (`tidings_policy::websub::SubscriptionState`). A feed's row goes with the feed.
CREATE TABLE websub (
    feed_id      INTEGER PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
    token        TEXT    NOT NULL UNIQUE,
    hub          TEXT    NOT NULL,
    topic        TEXT    NOT NULL,
    secret       TEXT    NOT NULL,
    state        TEXT    NOT NULL CHECK (state IN ('requested', 'live', 'denied', 'failed')),
    requested_at INTEGER NOT NULL,
    lease_until  INTEGER,
    reason       TEXT,
    pushes       INTEGER NOT NULL DEFAULT 0,
    last_push_at INTEGER
);
