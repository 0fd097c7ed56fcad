-- tidings store, PostgreSQL: sessions of an account (issue 15): a sync client's token after a
-- login (the Google Reader API's ClientLogin), later the web UI's. Only the SHA-256 of a token
-- is kept. A new password ends the sessions it opened (see `Store::set_api_password`).
CREATE TABLE sessions (
    token_hash TEXT        PRIMARY KEY,
    account_id BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind       TEXT        NOT NULL CHECK (kind IN ('sync', 'web')),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id, kind);
