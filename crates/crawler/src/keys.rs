//! Web Bot Auth keys in the store (SR11): reading them, making the next one, and keeping the
//! fetcher's signer on the key that signs now.
//!
//! A crawl whose profile signs checks its keys before it reads (at most once a minute): when no
//! key signs now it makes one that signs at once; when the signing one ends within the
//! profile's `rotate_before`, it makes the next one, published at once and signing an hour
//! later (when verifiers' cached copies of the directory have expired); the older key stays
//! published until it expires. An operator does the same by hand with `tidings keys bot
//! generate` or `rotate`.

use crate::{CrawlError, Crawler};
use chrono::{DateTime, TimeZone as _, Utc};
use tidings_fetch::botkeys::{self, DatedKey};
use tidings_policy::SigningSettings;
use tidings_store::{BotKeyRow, Store};

/// How often, in crawler time, a crawl looks at its keys (and whenever the signer has no
/// key that is still valid).
pub const KEY_CHECK_EVERY: chrono::Duration = chrono::Duration::seconds(60);

/// Every stored key that can be read, in the store's order. An unreadable one (a secret that
/// is no seed, or not the keyid's) is logged and left out: it neither signs nor is published,
/// and the others still work.
pub async fn load(store: &dyn Store) -> Result<Vec<DatedKey>, CrawlError> {
    Ok(store
        .bot_keys()
        .await?
        .iter()
        .filter_map(|row| {
            DatedKey::from_stored(
                &row.keyid,
                &row.secret,
                row.not_before.timestamp(),
                row.expires_at.timestamp(),
            )
            .inspect_err(|e| tracing::warn!(error = %e, "bot key left out"))
            .ok()
        })
        .collect())
}

/// Make a new key valid for `lifetime` seconds from `now` and store it. It signs from `now`
/// on; older keys stay published until they expire.
pub async fn make(
    store: &dyn Store,
    now: DateTime<Utc>,
    lifetime: u64,
) -> Result<DatedKey, CrawlError> {
    make_starting(store, now, now.timestamp(), lifetime).await
}

/// Make a new key at `now` that signs from `not_before` (Unix seconds; published from now, so
/// verifiers can learn it first) for `lifetime` seconds, and store it.
pub async fn make_starting(
    store: &dyn Store,
    now: DateTime<Utc>,
    not_before: i64,
    lifetime: u64,
) -> Result<DatedKey, CrawlError> {
    let key = DatedKey::generate(not_before, lifetime)
        .map_err(|e| CrawlError::Internal(e.to_string()))?;
    let row = BotKeyRow {
        keyid: key.key.keyid(),
        public_key: key.public(),
        secret: key.secret(),
        created_at: now,
        not_before: at(key.not_before),
        expires_at: at(key.expires),
    };
    if !store.add_bot_key(&row).await? {
        return Err(CrawlError::Internal(format!(
            "a bot key with keyid {} exists already",
            row.keyid
        )));
    }
    Ok(key)
}

/// The keys and, when the profile's margin calls for one, a new key made first. Returns the
/// keys and the new key's keyid.
pub async fn ensure(
    store: &dyn Store,
    now: DateTime<Utc>,
    settings: &SigningSettings,
) -> Result<(Vec<DatedKey>, Option<String>), CrawlError> {
    let mut keys = load(store).await?;
    let mut made = None;
    let at = now.timestamp();
    if botkeys::needs_new_key(&keys, at, settings.rotate_before) {
        let starts = botkeys::next_key_start(
            &keys,
            at,
            settings.rotate_before,
            settings.directory_max_age,
        );
        let key = make_starting(store, now, starts, settings.key_lifetime).await?;
        made = Some(key.key.keyid());
        keys.push(key);
    }
    Ok((keys, made))
}

/// Unix seconds as a time (out of range reads as the latest time there is).
pub fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(seconds, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl Crawler {
    /// When requests are signed, make sure the signer holds the key that signs now, making
    /// the next key when one is due (checked at most once per [`KEY_CHECK_EVERY`]). A failure
    /// is logged: the signer keeps its key, and with none the fetcher sends nothing.
    pub(crate) async fn keep_signing_key(&self) {
        let Some(signer) = self.fetcher.config().signer.clone() else {
            return;
        };
        // Held through the check, so that concurrent reads make one key, not one each.
        let mut last = self.key_checked.lock().await;
        let now = self.now();
        if last.is_some_and(|t: DateTime<Utc>| now < t + KEY_CHECK_EVERY)
            && signer.keyid().is_some()
        {
            return;
        }
        *last = Some(now);
        match ensure(self.store.as_ref(), now, &self.profile.signing).await {
            Ok((keys, made)) => {
                if let Some(keyid) = made {
                    tracing::info!(%keyid, "made a new bot signing key (SR11)");
                }
                match botkeys::signing_key(&keys, now.timestamp()) {
                    Some(key) if signer.keyid().as_deref() != Some(&key.key.keyid()) => {
                        signer.set_key(key.key.clone(), key.expires);
                    }
                    Some(_) => {}
                    None => tracing::error!("no bot key signs now; requests are not sent"),
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot read or make the bot signing keys"),
        }
    }
}
