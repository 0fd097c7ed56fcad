-- tidings store: Web Bot Auth signing keys (SR11). Ed25519; the secret is the 32-byte seed,
-- base64url. A key signs from not_before and is published in the key directory until expires_at.
CREATE TABLE bot_keys (
    keyid       TEXT        PRIMARY KEY,
    public_key  TEXT        NOT NULL,
    secret      TEXT        NOT NULL,
    created_at  INTEGER     NOT NULL,
    not_before  INTEGER     NOT NULL,
    expires_at  INTEGER     NOT NULL,
    CHECK (not_before < expires_at)
);
