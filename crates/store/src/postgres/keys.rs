//! API keys on PostgreSQL: the token's hash and prefix, never the token.

use super::PgStore;
use crate::codec::{without_nul, without_nul_opt};
use crate::{ApiKey, NewKey, Result};
use chrono::{DateTime, Utc};

macro_rules! columns {
    () => {
        "id, name, role, prefix, created_at, revoked_at, last_used_at, account_id"
    };
}

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
    let row: KeyTuple = sqlx::query_as(concat!(
        "INSERT INTO api_keys (name, role, key_hash, prefix, created_at, account_id) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ",
        columns!(),
        ""
    ))
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
    let row: Option<KeyTuple> = sqlx::query_as(concat!(
        "SELECT ",
        columns!(),
        " FROM api_keys WHERE key_hash = $1"
    ))
    .bind(without_nul(hash).as_ref())
    .fetch_optional(&store.pool)
    .await?;
    Ok(row.map(key_from_row))
}

pub async fn list(store: &PgStore) -> Result<Vec<ApiKey>> {
    let rows: Vec<KeyTuple> =
        sqlx::query_as(concat!("SELECT ", columns!(), " FROM api_keys ORDER BY id"))
            .fetch_all(&store.pool)
            .await?;
    Ok(rows.into_iter().map(key_from_row).collect())
}

pub async fn revoke(store: &PgStore, id: i64, at: DateTime<Utc>) -> Result<bool> {
    let done =
        sqlx::query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(at)
            .bind(id)
            .execute(&store.pool)
            .await?;
    Ok(done.rows_affected() > 0)
}

pub async fn touch(store: &PgStore, id: i64, at: DateTime<Utc>) -> Result<()> {
    sqlx::query(
        "UPDATE api_keys SET last_used_at = $1 \
         WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)",
    )
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
    let done = sqlx::query(
        "INSERT INTO bot_keys (keyid, public_key, secret, created_at, not_before, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (keyid) DO NOTHING",
    )
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
    let rows: Vec<BotKeyTuple> = sqlx::query_as(
        "SELECT keyid, public_key, secret, created_at, not_before, expires_at \
         FROM bot_keys ORDER BY not_before, created_at, keyid",
    )
    .fetch_all(&store.pool)
    .await?;
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
    let done = sqlx::query("DELETE FROM bot_keys WHERE keyid = $1")
        .bind(without_nul(keyid).as_ref())
        .execute(&store.pool)
        .await?;
    Ok(done.rows_affected() > 0)
}
