//! API keys on PostgreSQL: the token's hash and prefix, never the token.

use super::PgStore;
use crate::codec::{without_nul, without_nul_opt};
use crate::keys::pg::{
    ADD_BOT_KEY, ADD_KEY, KEY_BY_HASH, KEY_USED, LIST_BOT_KEYS, LIST_KEYS, REMOVE_BOT_KEY,
    REVOKE_KEY,
};
use crate::{ApiKey, NewKey, Result};
use chrono::{DateTime, Utc};

type KeyTuple = (
    i64,
    Option<String>,
    String,
    String,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<i64>,
);

fn key_from_row(
    (id, name, role, prefix, created_at, revoked_at, last_used_at, account_id): KeyTuple,
) -> ApiKey {
    ApiKey {
        id,
        name,
        role,
        prefix,
        created_at,
        revoked_at,
        last_used_at,
        account_id,
    }
}

pub async fn create(store: &PgStore, key: &NewKey) -> Result<ApiKey> {
    let row: KeyTuple = sqlx::query_as(ADD_KEY)
        .bind(without_nul_opt(key.name.as_deref()))
        .bind(without_nul(&key.role).as_ref())
        .bind(without_nul(&key.hash).as_ref())
        .bind(without_nul(&key.prefix).as_ref())
        .bind(key.created_at)
        .bind(key.account_id)
        .fetch_one(&store.pool)
        .await?;
    Ok(key_from_row(row))
}

pub async fn by_hash(store: &PgStore, hash: &str) -> Result<Option<ApiKey>> {
    let row: Option<KeyTuple> = sqlx::query_as(KEY_BY_HASH)
        .bind(without_nul(hash).as_ref())
        .fetch_optional(&store.pool)
        .await?;
    Ok(row.map(key_from_row))
}

pub async fn list(store: &PgStore) -> Result<Vec<ApiKey>> {
    let rows: Vec<KeyTuple> = sqlx::query_as(LIST_KEYS).fetch_all(&store.pool).await?;
    Ok(rows.into_iter().map(key_from_row).collect())
}

pub async fn revoke(store: &PgStore, id: i64, at: DateTime<Utc>) -> Result<bool> {
    let done = sqlx::query(REVOKE_KEY)
        .bind(at)
        .bind(id)
        .execute(&store.pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

pub async fn touch(store: &PgStore, id: i64, at: DateTime<Utc>) -> Result<()> {
    sqlx::query(KEY_USED)
        .bind(at)
        .bind(id)
        .execute(&store.pool)
        .await?;
    Ok(())
}

type BotKeyTuple = (
    String,
    String,
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    DateTime<Utc>,
);

/// Store a Web Bot Auth key; false when its keyid exists already.
pub async fn add_bot_key(store: &PgStore, key: &crate::BotKeyRow) -> Result<bool> {
    let done = sqlx::query(ADD_BOT_KEY)
        .bind(without_nul(&key.keyid).as_ref())
        .bind(without_nul(&key.public_key).as_ref())
        .bind(without_nul(&key.secret).as_ref())
        .bind(key.created_at)
        .bind(key.not_before)
        .bind(key.expires_at)
        .execute(&store.pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Every Web Bot Auth key, by `not_before`, then in the order they were made.
pub async fn bot_keys(store: &PgStore) -> Result<Vec<crate::BotKeyRow>> {
    let rows: Vec<BotKeyTuple> = sqlx::query_as(LIST_BOT_KEYS).fetch_all(&store.pool).await?;
    Ok(rows
        .into_iter()
        .map(
            |(keyid, public_key, secret, created_at, not_before, expires_at)| crate::BotKeyRow {
                keyid,
                public_key,
                secret,
                created_at,
                not_before,
                expires_at,
            },
        )
        .collect())
}

/// Delete the Web Bot Auth key `keyid`; false when there is none.
pub async fn remove_bot_key(store: &PgStore, keyid: &str) -> Result<bool> {
    let done = sqlx::query(REMOVE_BOT_KEY)
        .bind(without_nul(keyid).as_ref())
        .execute(&store.pool)
        .await?;
    Ok(done.rows_affected() > 0)
}
