-- tidings store, SQLite: operator do-not-crawl rules (FF13, WFM10).
-- `value` is the normal form tidings-policy's `parse_rule` gives; a rule outlives feeds,
-- request logs and jobs (FF17), so nothing references or cascades into this table.

CREATE TABLE blocks (
    id         INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL
               CHECK (kind IN ('url', 'feed', 'path', 'origin', 'host', 'domain')),
    value      TEXT    NOT NULL,
    reason     TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (kind, value)
);
