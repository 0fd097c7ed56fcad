//! The accounts aggregate's SQL (accounts and their sessions), written once for both backends
//! (`crate::sql`). Names are unique ignoring case (`name_key`); only argon2id hashes and the
//! hashes of session tokens are kept, never a password or a token.

/// An account's columns, in the order both backends read them.
macro_rules! columns {
    () => {
        "id, name, role, api_password_hash IS NOT NULL, created_at, updated_at, \
         password_hash, api_password_hash"
    };
}

crate::sql::statements! {
    /// A new account unless its name is taken; parameters: name, name key, role, hash, when.
    ADD = concat!(
        "INSERT INTO accounts (name, name_key, role, password_hash, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (name_key) DO NOTHING RETURNING ",
        columns!()
    );
    LIST = concat!("SELECT ", columns!(), " FROM accounts ORDER BY name_key");
    /// Parameter: the name key.
    BY_NAME = concat!("SELECT ", columns!(), " FROM accounts WHERE name_key = $1");
    /// Parameter: the hash of a Fever key.
    BY_FEVER_KEY = concat!("SELECT ", columns!(), " FROM accounts WHERE fever_key_hash = $1");
    /// Parameters: hash, when, name key.
    SET_PASSWORD = "UPDATE accounts SET password_hash = $1, updated_at = $2 WHERE name_key = $3";
    /// Parameters: API password hash, when, name key, Fever key hash.
    SET_API_PASSWORD = "UPDATE accounts SET api_password_hash = $1, fever_key_hash = $4, \
                        updated_at = $2 WHERE name_key = $3";
    /// The sessions a changed password opened; parameters: session kind, name key.
    END_SESSIONS_OF = "DELETE FROM sessions WHERE kind = $1 \
                       AND account_id IN (SELECT id FROM accounts WHERE name_key = $2)";
    /// Parameter: the name key.
    REMOVE = "DELETE FROM accounts WHERE name_key = $1";
    /// Expired sessions go as new ones come; parameters: account id, now.
    DROP_EXPIRED_SESSIONS = "DELETE FROM sessions WHERE account_id = $1 AND expires_at <= $2";
    /// Parameters: token hash, account id, kind, created at, expires at.
    ADD_SESSION = "INSERT INTO sessions (token_hash, account_id, kind, created_at, expires_at) \
                   VALUES ($1, $2, $3, $4, $5)";
    /// The account of a live session; parameters: token hash, kind, now.
    SESSION_ACCOUNT = concat!(
        "SELECT ",
        columns!(),
        " FROM accounts WHERE id = (SELECT account_id FROM sessions \
         WHERE token_hash = $1 AND kind = $2 AND expires_at > $3)"
    );
    /// Parameter: the token hash.
    END_SESSION = "DELETE FROM sessions WHERE token_hash = $1";
}
