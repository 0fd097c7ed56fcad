//! The keys aggregate's SQL (API keys, stored hashed, and the bot's signing keys), written once
//! for both backends (`crate::sql`).

/// An API key's columns, in the order both backends read them.
macro_rules! columns {
    () => {
        "id, name, role, prefix, created_at, revoked_at, last_used_at, account_id"
    };
}

crate::sql::statements! {
    /// Parameters: name, role, key hash, prefix, created at, account id.
    ADD_KEY = concat!(
        "INSERT INTO api_keys (name, role, key_hash, prefix, created_at, account_id) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ",
        columns!()
    );
    /// Parameter: the key hash.
    KEY_BY_HASH = concat!("SELECT ", columns!(), " FROM api_keys WHERE key_hash = $1");
    LIST_KEYS = concat!("SELECT ", columns!(), " FROM api_keys ORDER BY id");
    /// Parameters: when, id.
    REVOKE_KEY = "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL";
    /// Parameters: when, id; a use never moves the time back.
    KEY_USED = "UPDATE api_keys SET last_used_at = $1 \
                WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)";
    /// Parameters: key id, public key, secret, created at, not before, expires at.
    ADD_BOT_KEY = "INSERT INTO bot_keys (keyid, public_key, secret, created_at, not_before, \
                   expires_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (keyid) DO NOTHING";
    LIST_BOT_KEYS = "SELECT keyid, public_key, secret, created_at, not_before, expires_at \
                     FROM bot_keys ORDER BY not_before, created_at, keyid";
    /// Parameter: the key id.
    REMOVE_BOT_KEY = "DELETE FROM bot_keys WHERE keyid = $1";
}
