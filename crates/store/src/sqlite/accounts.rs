//! Accounts on SQLite: names unique ignoring case, argon2id hashes, never a password.

use super::SqliteStore;
use crate::accounts::lite::{
    ADD, ADD_SESSION, BY_FEVER_KEY, BY_NAME, DROP_EXPIRED_SESSIONS, END_SESSION, END_SESSIONS_OF,
    LIST, REMOVE, SESSION_ACCOUNT, SET_API_PASSWORD, SET_PASSWORD,
};
use crate::codec::{self, micros};
use crate::{Account, AccountSecrets, ApiPassword, NewAccount, NewSession, Result, SessionKind};
use chrono::{DateTime, Utc};

type AccountTuple = (i64, String, String, bool, i64, i64, String, Option<String>);

fn from_row(
    (id, name, role, api_password, created_at, updated_at, password_hash, api_password_hash): AccountTuple,
) -> Result<AccountSecrets> {
    Ok(AccountSecrets {
        account: Account {
            id,
            name,
            role: codec::decode_account_role(&role)?,
            api_password,
            created_at: codec::from_micros(created_at)?,
            updated_at: codec::from_micros(updated_at)?,
        },
        password_hash,
        api_password_hash,
    })
}

pub async fn add(store: &SqliteStore, account: &NewAccount) -> Result<Option<Account>> {
    let (_turn, mut tx) = store.write().await?;
    let row: Option<AccountTuple> = sqlx::query_as(sqlx::AssertSqlSafe(ADD.as_str()))
        .bind(&account.name)
        .bind(codec::account_key(&account.name))
        .bind(account.role.as_str())
        .bind(&account.password_hash)
        .bind(micros(account.created_at))
        .fetch_optional(&mut *tx)
        .await?;
    tx.commit().await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn list(store: &SqliteStore) -> Result<Vec<Account>> {
    let rows: Vec<AccountTuple> = sqlx::query_as(sqlx::AssertSqlSafe(LIST.as_str()))
        .fetch_all(&store.pool)
        .await?;
    rows.into_iter()
        .map(|r| from_row(r).map(|s| s.account))
        .collect()
}

pub async fn secrets(store: &SqliteStore, name: &str) -> Result<Option<AccountSecrets>> {
    let row: Option<AccountTuple> = sqlx::query_as(sqlx::AssertSqlSafe(BY_NAME.as_str()))
        .bind(codec::account_key(name))
        .fetch_optional(&store.pool)
        .await?;
    row.map(from_row).transpose()
}

/// Run `sql`, an update of one of account `name`'s hash columns, with `hash` and `at`.
/// A password change of an account: its login password, or its API password (with the Fever
/// key derived from it; `None` removes both).
enum Change<'a> {
    Login(&'a str),
    Api(Option<&'a ApiPassword>),
}

/// Apply `change` to account `name`, and end the sessions the old password opened.
async fn set(
    store: &SqliteStore,
    name: &str,
    change: Change<'_>,
    at: DateTime<Utc>,
) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let key = codec::account_key(name);
    let (query, ended) = match change {
        Change::Login(hash) => (
            sqlx::query(sqlx::AssertSqlSafe(SET_PASSWORD.as_str())).bind(hash.to_owned()),
            SessionKind::Web,
        ),
        Change::Api(password) => (
            sqlx::query(sqlx::AssertSqlSafe(SET_API_PASSWORD.as_str()))
                .bind(password.map(|p| p.hash.clone())),
            SessionKind::Sync,
        ),
    };
    let query = query.bind(micros(at)).bind(key.clone());
    let query = match change {
        Change::Api(password) => query.bind(password.map(|p| p.fever_key_hash.clone())),
        Change::Login(_) => query,
    };
    let done = query.execute(&mut *tx).await?;
    sqlx::query(sqlx::AssertSqlSafe(END_SESSIONS_OF.as_str()))
        .bind(ended.as_str())
        .bind(&key)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub async fn set_password(
    store: &SqliteStore,
    name: &str,
    hash: &str,
    at: DateTime<Utc>,
) -> Result<bool> {
    set(store, name, Change::Login(hash), at).await
}

pub async fn set_api_password(
    store: &SqliteStore,
    name: &str,
    password: Option<&ApiPassword>,
    at: DateTime<Utc>,
) -> Result<bool> {
    set(store, name, Change::Api(password), at).await
}

pub async fn by_fever_key(store: &SqliteStore, fever_key_hash: &str) -> Result<Option<Account>> {
    let row: Option<AccountTuple> = sqlx::query_as(sqlx::AssertSqlSafe(BY_FEVER_KEY.as_str()))
        .bind(fever_key_hash)
        .fetch_optional(&store.pool)
        .await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn remove(store: &SqliteStore, name: &str) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(REMOVE.as_str()))
        .bind(codec::account_key(name))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub async fn create_session(store: &SqliteStore, session: &NewSession) -> Result<()> {
    let (_turn, mut tx) = store.write().await?;
    // Expired sessions go as new ones come: the table holds the live ones and a few more.
    sqlx::query(sqlx::AssertSqlSafe(DROP_EXPIRED_SESSIONS.as_str()))
        .bind(session.account_id)
        .bind(micros(session.created_at))
        .execute(&mut *tx)
        .await?;
    sqlx::query(sqlx::AssertSqlSafe(ADD_SESSION.as_str()))
        .bind(&session.token_hash)
        .bind(session.account_id)
        .bind(session.kind.as_str())
        .bind(micros(session.created_at))
        .bind(micros(session.expires_at))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

pub async fn session_account(
    store: &SqliteStore,
    token_hash: &str,
    kind: SessionKind,
    now: DateTime<Utc>,
) -> Result<Option<Account>> {
    let row: Option<AccountTuple> = sqlx::query_as(sqlx::AssertSqlSafe(SESSION_ACCOUNT.as_str()))
        .bind(token_hash)
        .bind(kind.as_str())
        .bind(micros(now))
        .fetch_optional(&store.pool)
        .await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn end_session(store: &SqliteStore, token_hash: &str) -> Result<bool> {
    let (_turn, mut tx) = store.write().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(END_SESSION.as_str()))
        .bind(token_hash)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}
