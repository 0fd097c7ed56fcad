-- tidings store: accounts (issue 15). A person's login: a name unique ignoring case, a role,
-- the argon2id hash of the login password and, for sync clients, of a separate API password.
-- Neither password is ever stored.
CREATE TABLE accounts (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name              TEXT    NOT NULL,
    name_key          TEXT    NOT NULL UNIQUE,  -- the name lower-cased (by tidings, every letter)
    role              TEXT    NOT NULL CHECK (role IN ('reader', 'admin')),
    password_hash     TEXT    NOT NULL,
    api_password_hash TEXT,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL
);
