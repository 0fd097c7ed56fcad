-- tidings store, SQLite: the first schema.
-- Times are INTEGER microseconds since the Unix epoch (UTC), the same precision as PostgreSQL's
-- TIMESTAMPTZ, so both backends round-trip the same values and integers sort in time order.

CREATE TABLE hosts (
    id                 INTEGER PRIMARY KEY,
    host               TEXT    NOT NULL UNIQUE,          -- scheme://host:port
    robots_fetched_at  INTEGER,
    robots_status      INTEGER,
    robots_body        TEXT,
    robots_expires_at  INTEGER,
    crawl_delay_ms     INTEGER,
    next_request_at    INTEGER,
    retry_after_until  INTEGER,
    lease_owner        TEXT,
    lease_until        INTEGER,
    created_at         INTEGER NOT NULL
);

CREATE TABLE feeds (
    id                   INTEGER PRIMARY KEY,
    url                  TEXT    NOT NULL UNIQUE,
    original_url         TEXT    NOT NULL,
    host                 TEXT    NOT NULL REFERENCES hosts (host),
    title                TEXT,
    site_link            TEXT,
    state                TEXT    NOT NULL DEFAULT 'active'
                         CHECK (state IN ('active', 'paused', 'off', 'removed')),
    state_reason         TEXT,
    etag                 TEXT,
    last_modified        TEXT,
    content_hash         TEXT,
    next_fetch_at        INTEGER NOT NULL,
    next_fetch_reason    TEXT    NOT NULL,
    interval_secs        INTEGER NOT NULL DEFAULT 3600,
    last_fetch_at        INTEGER,
    last_status          INTEGER,
    last_outcome         TEXT,
    last_error           TEXT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    fetches              INTEGER NOT NULL DEFAULT 0,
    ok                   INTEGER NOT NULL DEFAULT 0,
    not_modified         INTEGER NOT NULL DEFAULT 0,
    errors               INTEGER NOT NULL DEFAULT 0,
    egress               TEXT,                           -- JSON, for later issues
    profile_overrides    TEXT,                           -- JSON, for later issues
    created_at           INTEGER NOT NULL
);

CREATE INDEX feeds_due ON feeds (state, next_fetch_at, id);
CREATE INDEX feeds_original_url ON feeds (original_url);
CREATE INDEX feeds_host ON feeds (host);

CREATE TABLE subscriptions (
    id         INTEGER PRIMARY KEY,
    feed_id    INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    subscriber TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (feed_id, subscriber)
);

CREATE TABLE entries (
    id            INTEGER PRIMARY KEY,
    feed_id       INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    entry_key     TEXT    NOT NULL,                     -- Entry.id, the stable identity
    guid          TEXT,
    title         TEXT,
    link          TEXT,
    summary       TEXT,
    published     INTEGER,
    updated       INTEGER,
    expires       INTEGER,
    sort_at       INTEGER NOT NULL,                     -- published, else updated, else first_seen_at; never after first_seen_at
    first_seen_at INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    content_hash  TEXT    NOT NULL,                     -- SHA-256 of `data`
    data          TEXT    NOT NULL,                     -- the whole Entry as JSON
    UNIQUE (feed_id, entry_key)
);

CREATE INDEX entries_listing ON entries (sort_at DESC, id DESC);
CREATE INDEX entries_feed_listing ON entries (feed_id, sort_at DESC, id DESC);

-- Full-text index over title and summary, kept in step with `entries` by triggers.
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, summary,
    content = 'entries', content_rowid = 'id',
    tokenize = 'unicode61'
);

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, summary)
    VALUES ('delete', old.id, old.title, old.summary);
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, summary ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, summary)
    VALUES ('delete', old.id, old.title, old.summary);
    INSERT INTO entries_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;

CREATE TABLE request_log (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    feed_id     INTEGER REFERENCES feeds (id) ON DELETE SET NULL,
    host        TEXT    NOT NULL,
    purpose     TEXT    NOT NULL,
    url         TEXT    NOT NULL,
    egress      TEXT,
    status      INTEGER,
    outcome     TEXT    NOT NULL,
    bytes       INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    rule        TEXT    NOT NULL
);

CREATE INDEX request_log_at ON request_log (at DESC, id DESC);
CREATE INDEX request_log_host ON request_log (host, at DESC, id DESC);
CREATE INDEX request_log_feed ON request_log (feed_id, at DESC, id DESC);
