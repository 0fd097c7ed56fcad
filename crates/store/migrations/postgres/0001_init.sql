-- tidings store, PostgreSQL: the first schema.

CREATE TABLE hosts (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host               TEXT        NOT NULL UNIQUE,      -- scheme://host:port
    robots_fetched_at  TIMESTAMPTZ,
    robots_status      INTEGER,
    robots_body        TEXT,
    robots_expires_at  TIMESTAMPTZ,
    crawl_delay_ms     BIGINT,
    next_request_at    TIMESTAMPTZ,
    retry_after_until  TIMESTAMPTZ,
    lease_owner        TEXT,
    lease_until        TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE feeds (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url                  TEXT        NOT NULL UNIQUE,
    original_url         TEXT        NOT NULL,
    host                 TEXT        NOT NULL REFERENCES hosts (host),
    title                TEXT,
    site_link            TEXT,
    state                TEXT        NOT NULL DEFAULT 'active'
                         CHECK (state IN ('active', 'paused', 'off', 'removed')),
    state_reason         TEXT,
    etag                 TEXT,
    last_modified        TEXT,
    content_hash         TEXT,
    next_fetch_at        TIMESTAMPTZ NOT NULL,
    next_fetch_reason    TEXT        NOT NULL,
    interval_secs        BIGINT      NOT NULL DEFAULT 3600,
    last_fetch_at        TIMESTAMPTZ,
    last_status          INTEGER,
    last_outcome         TEXT,
    last_error           TEXT,
    consecutive_failures INTEGER     NOT NULL DEFAULT 0,
    fetches              BIGINT      NOT NULL DEFAULT 0,
    ok                   BIGINT      NOT NULL DEFAULT 0,
    not_modified         BIGINT      NOT NULL DEFAULT 0,
    errors               BIGINT      NOT NULL DEFAULT 0,
    egress               TEXT,                           -- JSON, for later issues
    profile_overrides    TEXT,                           -- JSON, for later issues
    created_at           TIMESTAMPTZ NOT NULL
);

CREATE INDEX feeds_due ON feeds (state, next_fetch_at, id);
CREATE INDEX feeds_original_url ON feeds (original_url);
CREATE INDEX feeds_host ON feeds (host);

CREATE TABLE subscriptions (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feed_id    BIGINT      NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    subscriber TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (feed_id, subscriber)
);

CREATE TABLE entries (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feed_id       BIGINT      NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    entry_key     TEXT        NOT NULL,                  -- Entry.id, the stable identity
    guid          TEXT,
    title         TEXT,
    link          TEXT,
    summary       TEXT,
    published     TIMESTAMPTZ,
    updated       TIMESTAMPTZ,
    expires       TIMESTAMPTZ,
    sort_at       TIMESTAMPTZ NOT NULL,                  -- published, else updated, else first_seen_at; never after first_seen_at
    first_seen_at TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    content_hash  TEXT        NOT NULL,                  -- SHA-256 of `data`
    data          TEXT        NOT NULL,                  -- the whole Entry as JSON
    search        TSVECTOR    GENERATED ALWAYS AS (
                      to_tsvector('simple', left(coalesce(title, '') || ' ' || coalesce(summary, ''), 100000))
                  ) STORED,
    UNIQUE (feed_id, entry_key)
);

CREATE INDEX entries_listing ON entries (sort_at DESC, id DESC);
CREATE INDEX entries_feed_listing ON entries (feed_id, sort_at DESC, id DESC);
CREATE INDEX entries_search ON entries USING GIN (search);

CREATE TABLE request_log (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          TIMESTAMPTZ NOT NULL,
    feed_id     BIGINT REFERENCES feeds (id) ON DELETE SET NULL,
    host        TEXT        NOT NULL,
    purpose     TEXT        NOT NULL,
    url         TEXT        NOT NULL,
    egress      TEXT,
    status      INTEGER,
    outcome     TEXT        NOT NULL,
    bytes       BIGINT      NOT NULL,
    duration_ms BIGINT      NOT NULL,
    rule        TEXT        NOT NULL
);

CREATE INDEX request_log_at ON request_log (at DESC, id DESC);
CREATE INDEX request_log_host ON request_log (host, at DESC, id DESC);
CREATE INDEX request_log_feed ON request_log (feed_id, at DESC, id DESC);
