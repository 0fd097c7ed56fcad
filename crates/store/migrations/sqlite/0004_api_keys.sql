-- tidings store, SQLite: API keys (issue 4). Only the SHA-256 of a token is kept, with a
-- short non-secret prefix to tell keys apart; the token itself is shown once and never stored.

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    name         TEXT,
    role         TEXT    NOT NULL CHECK (role IN ('reader', 'admin')),
    key_hash     TEXT    NOT NULL UNIQUE,
    prefix       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    revoked_at   INTEGER,
    last_used_at INTEGER
);
