//! API keys on SQLite: the token's hash and prefix, never the token.

use super::SqliteStore;
use crate::codec::{self, micros};
use crate::keys::lite::{
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
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

fn key_from_row(
    (id, name, role, prefix, created_at, revoked_at, last_used_at, account_id): KeyTuple,
) -> Result<ApiKey> {
    Ok(ApiKey {
        id,
        name,
        role,
        prefix,
        created_at: codec::from_micros(created_at)?,
        revoked_at: codec::from_micros_opt(revoked_at)?,
        last_used_at: codec::from_micros_opt(last_used_at)?,
        account_id,
    })
}

pub async fn create(store: &SqliteStore, key: &NewKey) -> Result<ApiKey> {
    let (_turn, mut tx) = store.write().await?;
    let row: KeyTuple = sqlx::query_as(sqlx::AssertSqlSafe(ADD_KEY.as_str()))
        .bind(key.name.as_deref())
        .bind(&key.role)
        .bind(&key.hash)
        .bind(&key.prefix)
        .bind(micros(key.created_at))
        .bind(key.account_id)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    key_from_row(row)
}

pub async fn by_hash(store: &SqliteStore, hash: &str) -> Result<Option<ApiKey>> {
    let row: Option<KeyTuple> = sqlx::query_as(sqlx::AssertSqlSafe(KEY_BY_HASH.as_str()))
        .bind(hash)
        .fetch_optional(&store.pool)
        .await?;
    row.map(key_from_row).transpose()
}

pub async fn list(store: &SqliteStore) -> Result<Vec<ApiKey>> {
    let rows: Vec<KeyTuple> = sqlx::query_as(sqlx::AssertSqlSafe(LIST_KEYS.as_str()))
        .fetch_all(&store.pool)
        .await?;
    rows.into_iter().map(key_from_row).collect()
}

pub async fn revoke(store: &SqliteStore, id: i64, at: DateTime<Utc>) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(REVOKE_KEY.as_str()))
        .bind(micros(at))
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub async fn touch(store: &SqliteStore, id: i64, at: DateTime<Utc>) -> Result<()> {
    let (_turn, mut tx) = store.write().await?;
    sqlx::query(sqlx::AssertSqlSafe(KEY_USED.as_str()))
        .bind(micros(at))
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

type BotKeyTuple = (String, String, String, i64, i64, i64);

/// Store a Web Bot Auth key; false when its keyid exists already.
pub async fn add_bot_key(store: &SqliteStore, key: &crate::BotKeyRow) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(ADD_BOT_KEY.as_str()))
        .bind(&key.keyid)
        .bind(&key.public_key)
        .bind(&key.secret)
        .bind(micros(key.created_at))
        .bind(micros(key.not_before))
        .bind(micros(key.expires_at))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

/// Every Web Bot Auth key, by `not_before`, then in the order they were made.
pub async fn bot_keys(store: &SqliteStore) -> Result<Vec<crate::BotKeyRow>> {
    let rows: Vec<BotKeyTuple> = sqlx::query_as(sqlx::AssertSqlSafe(LIST_BOT_KEYS.as_str()))
        .fetch_all(&store.pool)
        .await?;
    rows.into_iter()
        .map(
            |(keyid, public_key, secret, created_at, not_before, expires_at)| {
                Ok(crate::BotKeyRow {
                    keyid,
                    public_key,
                    secret,
                    created_at: codec::from_micros(created_at)?,
                    not_before: codec::from_micros(not_before)?,
                    expires_at: codec::from_micros(expires_at)?,
                })
            },
        )
        .collect()
}

/// Delete the Web Bot Auth key `keyid`; false when there is none.
pub async fn remove_bot_key(store: &SqliteStore, keyid: &str) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(REMOVE_BOT_KEY.as_str()))
        .bind(keyid)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}
