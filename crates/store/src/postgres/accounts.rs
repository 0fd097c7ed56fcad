//! Accounts on PostgreSQL: names unique ignoring case, argon2id hashes, never a password.

use super::PgStore;
use crate::accounts::pg::{
    ADD, ADD_SESSION, BY_FEVER_KEY, BY_NAME, DROP_EXPIRED_SESSIONS, END_SESSION, END_SESSIONS_OF,
    LIST, REMOVE, SESSION_ACCOUNT, SET_API_PASSWORD, SET_PASSWORD,
};
use crate::codec::{self, without_nul};
use crate::{Account, AccountSecrets, ApiPassword, NewAccount, NewSession, Result, SessionKind};
use chrono::{DateTime, Utc};

type AccountTuple = (
    i64,
    String,
    String,
    bool,
    DateTime<Utc>,
    DateTime<Utc>,
    String,
    Option<String>,
);

fn from_row(
    (id, name, role, api_password, created_at, updated_at, password_hash, api_password_hash): AccountTuple,
) -> Result<AccountSecrets> {
    Ok(AccountSecrets {
        account: Account {
            id,
            name,
            role: codec::decode_account_role(&role)?,
            api_password,
            created_at,
            updated_at,
        },
        password_hash,
        api_password_hash,
    })
}

pub async fn add(store: &PgStore, account: &NewAccount) -> Result<Option<Account>> {
    let row: Option<AccountTuple> = sqlx::query_as(ADD)
        .bind(without_nul(&account.name).as_ref())
        .bind(without_nul(&codec::account_key(&account.name)).as_ref())
        .bind(account.role.as_str())
        .bind(without_nul(&account.password_hash).as_ref())
        .bind(account.created_at)
        .fetch_optional(&store.pool)
        .await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn list(store: &PgStore) -> Result<Vec<Account>> {
    let rows: Vec<AccountTuple> = sqlx::query_as(LIST).fetch_all(&store.pool).await?;
    rows.into_iter()
        .map(|r| from_row(r).map(|s| s.account))
        .collect()
}

pub async fn secrets(store: &PgStore, name: &str) -> Result<Option<AccountSecrets>> {
    let row: Option<AccountTuple> = sqlx::query_as(BY_NAME)
        .bind(without_nul(&codec::account_key(name)).as_ref())
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
async fn set(store: &PgStore, name: &str, change: Change<'_>, at: DateTime<Utc>) -> Result<bool> {
    let mut tx = store.pool.begin().await?;
    let key = without_nul(&codec::account_key(name)).into_owned();
    let (query, ended) = match change {
        Change::Login(hash) => (
            sqlx::query(SET_PASSWORD).bind(hash.to_owned()),
            SessionKind::Web,
        ),
        Change::Api(password) => (
            sqlx::query(SET_API_PASSWORD).bind(password.map(|p| p.hash.clone())),
            SessionKind::Sync,
        ),
    };
    let query = query.bind(at).bind(key.clone());
    let query = match change {
        Change::Api(password) => query.bind(password.map(|p| p.fever_key_hash.clone())),
        Change::Login(_) => query,
    };
    let done = query.execute(&mut *tx).await?;
    sqlx::query(END_SESSIONS_OF)
        .bind(ended.as_str())
        .bind(&key)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub async fn set_password(
    store: &PgStore,
    name: &str,
    hash: &str,
    at: DateTime<Utc>,
) -> Result<bool> {
    set(store, name, Change::Login(hash), at).await
}

pub async fn set_api_password(
    store: &PgStore,
    name: &str,
    password: Option<&ApiPassword>,
    at: DateTime<Utc>,
) -> Result<bool> {
    set(store, name, Change::Api(password), at).await
}

pub async fn by_fever_key(store: &PgStore, fever_key_hash: &str) -> Result<Option<Account>> {
    let row: Option<AccountTuple> = sqlx::query_as(BY_FEVER_KEY)
        .bind(without_nul(fever_key_hash).as_ref())
        .fetch_optional(&store.pool)
        .await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn remove(store: &PgStore, name: &str) -> Result<bool> {
    let done = sqlx::query(REMOVE)
        .bind(without_nul(&codec::account_key(name)).as_ref())
        .execute(&store.pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

pub async fn create_session(store: &PgStore, session: &NewSession) -> Result<()> {
    let mut tx = store.pool.begin().await?;
    // Expired sessions go as new ones come: the table holds the live ones and a few more.
    sqlx::query(DROP_EXPIRED_SESSIONS)
        .bind(session.account_id)
        .bind(session.created_at)
        .execute(&mut *tx)
        .await?;
    sqlx::query(ADD_SESSION)
        .bind(&session.token_hash)
        .bind(session.account_id)
        .bind(session.kind.as_str())
        .bind(session.created_at)
        .bind(session.expires_at)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

pub async fn session_account(
    store: &PgStore,
    token_hash: &str,
    kind: SessionKind,
    now: DateTime<Utc>,
) -> Result<Option<Account>> {
    let row: Option<AccountTuple> = sqlx::query_as(SESSION_ACCOUNT)
        .bind(without_nul(token_hash).as_ref())
        .bind(kind.as_str())
        .bind(now)
        .fetch_optional(&store.pool)
        .await?;
    row.map(|r| from_row(r).map(|s| s.account)).transpose()
}

pub async fn end_session(store: &PgStore, token_hash: &str) -> Result<bool> {
    let mut tx = store.pool.begin().await?;
    let done = sqlx::query(END_SESSION)
        .bind(without_nul(token_hash).as_ref())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}
