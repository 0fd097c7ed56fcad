//! The APIs existing sync clients speak, over the accounts' reading state: a
//! Miniflux-compatible subset under [`miniflux::PREFIX`] (newsboat's `miniflux` backend and
//! scripts), the Google Reader API under [`greader::PREFIX`] (NetNewsWire, Reeder, Read You
//! and their kin) and the Fever API at `/fever/` and `/api/fever.php` (its older clients).
//!
//! Sync clients log in with an account's name and its **API password** (`tidings users passwd
//! NAME --api`), never the login password: clients store it, so it is kept apart and can be
//! replaced alone. A checked login is remembered (by a hash of the stored password hash and
//! the password sent, so a changed password is never taken from memory) for
//! [`LOGIN_KEPT_FOR`]: argon2id takes tens of milliseconds, and a client sends its password
//! with every request. Failed logins count against the client's address like failed keys.

pub mod fever;
pub mod greader;
pub mod miniflux;

use crate::AppState;
use axum::Router;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a checked login is taken without checking its password again.
pub const LOGIN_KEPT_FOR: Duration = Duration::from_secs(300);
/// Logins remembered at most (then the memory starts again).
const LOGINS_KEPT: usize = 4096;

/// The routes of every sync API.
pub fn routes() -> Router<AppState> {
    miniflux::routes()
        .merge(greader::routes())
        .merge(fever::routes())
}

/// An account a sync client logged in as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncAccount {
    pub id: i64,
    pub name: String,
    pub admin: bool,
}

/// Why a login was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Unknown name, no API password, or the wrong one (which one is not said).
    Unauthorized,
    /// Too many failures from this address: try again after this long.
    Throttled(Duration),
    /// The store failed.
    Unavailable,
}

/// Recently checked logins: a hash of (stored hash, password) → account and when checked.
#[derive(Debug, Default)]
pub struct Logins {
    checked: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Logins {
    fn key(stored_hash: &str, password: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(stored_hash.as_bytes());
        hasher.update([0]);
        hasher.update(password.as_bytes());
        hasher.finalize().into()
    }

    fn fresh(&self, key: &[u8; 32], now: Instant) -> bool {
        let checked = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        checked
            .get(key)
            .is_some_and(|at| now.saturating_duration_since(*at) < LOGIN_KEPT_FOR)
    }

    fn remember(&self, key: [u8; 32], now: Instant) {
        let mut checked = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        if checked.len() >= LOGINS_KEPT {
            checked.clear();
        }
        checked.insert(key, now);
    }
}

/// Check `name` and API password `password` sent by `client`.
pub async fn login(
    state: &AppState,
    name: &str,
    password: &str,
    client: Option<IpAddr>,
) -> Result<SyncAccount, Refused> {
    state.auth.may_try(client).map_err(Refused::Throttled)?;
    let secrets = match state.store.account_secrets(name).await {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(error = %e, "sync login: the store failed");
            return Err(Refused::Unavailable);
        }
    };
    let refuse = || {
        state.auth.failed(client);
        Err(Refused::Unauthorized)
    };
    let stored = secrets.as_ref().and_then(|s| s.api_password_hash.clone());
    let (Some(secrets), Some(stored)) = (secrets, stored) else {
        // As long as a check of a wrong password: a refusal does not tell what exists.
        let password = password.to_owned();
        let _ = tokio::task::spawn_blocking(move || crate::accounts::verify_login(None, &password))
            .await;
        return refuse();
    };
    let key = Logins::key(&stored, password);
    let now = Instant::now();
    let logins = &state.auth.logins;
    if !logins.fresh(&key, now) {
        let password = password.to_owned();
        let verified = tokio::task::spawn_blocking(move || {
            crate::accounts::verify_password(&stored, &password)
        })
        .await
        .unwrap_or(false);
        if !verified {
            return refuse();
        }
        logins.remember(key, now);
    }
    Ok(SyncAccount {
        id: secrets.account.id,
        name: secrets.account.name,
        admin: secrets.account.role == tidings_store::AccountRole::Admin,
    })
}

/// The names of account `account`'s folders, in order.
pub async fn folders(
    state: &AppState,
    account: i64,
) -> Result<std::collections::BTreeSet<String>, tidings_store::StoreError> {
    Ok(state
        .store
        .subscriptions(account)
        .await?
        .into_iter()
        .filter_map(|s| s.folder)
        .collect())
}

/// The status and message a sync API answers when the store failed (the cause goes to the
/// log only).
pub fn store_failed(api: &str, e: &tidings_store::StoreError) -> (axum::http::StatusCode, String) {
    tracing::warn!(error = %e, "{api}: the store failed");
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        "the store is unavailable".into(),
    )
}

/// An id as the sync APIs send it: below 2³¹ (newsboat reads ids as 32-bit integers and
/// breaks on larger ones); `None` for a row id beyond that.
pub fn small_id(id: i64) -> Option<i32> {
    i32::try_from(id).ok().filter(|id| *id > 0)
}

/// A folder's id on the sync APIs: stable for its name, in 2..2³¹ (1 is "no folder").
pub fn folder_id(name: &str) -> i32 {
    let digest = Sha256::digest(name.as_bytes());
    let n = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]) & 0x7fff_ffff;
    i32::try_from(n.max(2)).unwrap_or(2)
}

/// The folder id of feeds filed under no folder.
pub const NO_FOLDER_ID: i32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_below_two_to_the_31() {
        assert_eq!(small_id(7), Some(7));
        assert_eq!(small_id(i64::from(i32::MAX)), Some(i32::MAX));
        assert_eq!(small_id(1 << 31), None);
        assert_eq!(small_id(5_000_000_001), None);
        assert_eq!(small_id(0), None);
        for name in ["", "News", "Tech", "日本", "a very long folder name indeed"] {
            let id = folder_id(name);
            assert!(id >= 2, "{name}: {id}");
            assert_eq!(id, folder_id(name), "stable");
        }
        assert_ne!(folder_id("News"), folder_id("news"));
    }
}
