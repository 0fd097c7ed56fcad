//! Web Bot Auth keys over time (SR11): which key signs now, which are published, when the next
//! one is due, the key directory and its signatures, and the signer a [`Fetcher`](crate::Fetcher)
//! puts on every request.
//!
//! A key signs from `not_before` and is published until `expires`. The newest key that has
//! started signs; an older one stays in the directory until it expires, so a verifier that
//! cached the directory before a rotation still finds the key of a signature made just before
//! it (the directory drafts' advice on rotation).
//!
//! Everything here but [`DatedKey::generate`] and [`RequestSigner`]'s nonce is pure: times are
//! Unix seconds given by the caller.

use crate::signing::{
    BotKey, ComponentId, ED25519_ALG, SignatureParams, SigningError, WebBotAuthHeaders,
    WebBotAuthRequest, jwk_thumbprint,
};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest as _, Sha256};
use std::sync::{Arc, PoisonError, RwLock};
use url::Url;

/// The directory's path on the agent's origin.
pub const DIRECTORY_PATH: &str = "/.well-known/http-message-signatures-directory";

/// The directory's media type.
pub const DIRECTORY_MEDIA_TYPE: &str = "application/http-message-signatures-directory+json";

/// The `tag` of the directory's own signatures.
pub const DIRECTORY_TAG: &str = "http-message-signatures-directory";

/// One key and the time it is valid in.
#[derive(Debug)]
pub struct DatedKey {
    pub key: BotKey,
    /// Signs from this moment on (Unix seconds).
    pub not_before: i64,
    /// Neither signs nor is published from this moment on (Unix seconds).
    pub expires: i64,
}

/// Where a key stands at a given moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// The key requests are signed with now.
    Signing,
    /// Published, but a newer key signs (rotated out; kept until it expires).
    Retired,
    /// Published, not signing yet.
    Pending,
    /// Past its expiry: neither signs nor is published.
    Expired,
}

impl KeyState {
    pub fn label(self) -> &'static str {
        match self {
            KeyState::Signing => "signing",
            KeyState::Retired => "retired",
            KeyState::Pending => "pending",
            KeyState::Expired => "expired",
        }
    }
}

/// Why a key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("no randomness for a new key: {0}")]
    Random(String),
    #[error("stored bot key {keyid} is unreadable: {reason}")]
    Unreadable { keyid: String, reason: String },
}

impl DatedKey {
    /// A new key from fresh randomness that signs from `not_before` and is valid for
    /// `lifetime` seconds from then.
    pub fn generate(not_before: i64, lifetime: u64) -> Result<DatedKey, KeyError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(DatedKey {
            key: BotKey::from_seed(&seed),
            not_before,
            expires: not_before.saturating_add(i64::try_from(lifetime).unwrap_or(i64::MAX)),
        })
    }

    /// A key from its stored seed (base64url), checked against the keyid it was stored under.
    pub fn from_stored(
        keyid: &str,
        secret: &str,
        not_before: i64,
        expires: i64,
    ) -> Result<DatedKey, KeyError> {
        let unreadable = |reason: &str| KeyError::Unreadable {
            keyid: keyid.to_owned(),
            reason: reason.to_owned(),
        };
        let seed = URL_SAFE_NO_PAD
            .decode(secret)
            .map_err(|_| unreadable("the secret is not base64url"))?;
        let seed: [u8; 32] = seed
            .try_into()
            .map_err(|_| unreadable("the secret is not 32 bytes"))?;
        let key = BotKey::from_seed(&seed);
        if key.keyid() != keyid {
            return Err(unreadable("the secret does not match the keyid"));
        }
        Ok(DatedKey {
            key,
            not_before,
            expires,
        })
    }

    /// The secret seed, base64url, for the store.
    pub fn secret(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.seed())
    }

    /// The public key, base64url (the JWK `x`).
    pub fn public(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.public_key())
    }

    /// Where this key stands at `now` among `keys` (which holds it).
    pub fn state(&self, keys: &[DatedKey], now: i64) -> KeyState {
        if now >= self.expires {
            KeyState::Expired
        } else if now < self.not_before {
            KeyState::Pending
        } else if signing_key(keys, now).is_some_and(|k| k.key.keyid() == self.key.keyid()) {
            KeyState::Signing
        } else {
            KeyState::Retired
        }
    }
}

/// The key that signs at `now`: of those that have started and not expired, the one that
/// started last; of two that started in the same second, the one later in `keys` (which lists
/// keys in the order they were made).
pub fn signing_key(keys: &[DatedKey], now: i64) -> Option<&DatedKey> {
    keys.iter()
        .filter(|k| k.not_before <= now && now < k.expires)
        .max_by_key(|k| k.not_before)
}

/// The keys in the directory at `now`: every one not expired, by start.
pub fn published(keys: &[DatedKey], now: i64) -> Vec<&DatedKey> {
    let mut out: Vec<&DatedKey> = keys.iter().filter(|k| now < k.expires).collect();
    out.sort_by_key(|k| (k.not_before, k.expires));
    out
}

/// Whether a new key must be made at `now`: no key signs, or every key ends within
/// `rotate_before` seconds (a key published ahead of its start counts: it is the next one).
pub fn needs_new_key(keys: &[DatedKey], now: i64, rotate_before: u64) -> bool {
    let margin = i64::try_from(rotate_before).unwrap_or(i64::MAX);
    signing_key(keys, now).is_none() || !keys.iter().any(|k| k.expires.saturating_sub(now) > margin)
}

/// When the next key of a rotation starts signing, made at `now`: once a verifier's cached
/// copy of the directory without it has expired (`max_age` seconds), but never later than
/// halfway through the margin left before the signing key ends. With no key signing now, at
/// once.
pub fn next_key_start(keys: &[DatedKey], now: i64, rotate_before: u64, max_age: u64) -> i64 {
    if signing_key(keys, now).is_none() {
        return now;
    }
    let ahead = max_age.min(rotate_before / 2);
    now.saturating_add(i64::try_from(ahead).unwrap_or(i64::MAX))
}

/// The key directory at `now` (a JWK Set): each published key as an Ed25519 JWK with its
/// thumbprint as `kid`, `use` = `sig`, and its validity as `nbf` and `exp`.
pub fn directory_json(keys: &[DatedKey], now: i64) -> String {
    let keys: Vec<serde_json::Value> = published(keys, now)
        .into_iter()
        .map(|k| {
            serde_json::json!({
                "kty": "OKP",
                "crv": "Ed25519",
                "kid": k.key.keyid(),
                "x": k.public(),
                "use": "sig",
                "nbf": k.not_before,
                "exp": k.expires,
            })
        })
        .collect();
    serde_json::json!({ "keys": keys }).to_string()
}

/// The headers that sign a directory response: one signature per published key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectorySignatures {
    /// `sha-256=:…:` of the body (RFC 9530).
    pub content_digest: String,
    pub signature_input: String,
    pub signature: String,
}

/// Sign the directory `body` as served to a request for `authority` at `now`: each published
/// key signs `"@authority";req` and `content-digest`, tagged [`DIRECTORY_TAG`], labelled
/// `sig0`, `sig1`, … in directory order, valid for `validity` seconds (as long as the answer
/// may be cached) and never past its key's expiry. `None` when no key is published.
pub fn sign_directory(
    keys: &[DatedKey],
    authority: &str,
    body: &[u8],
    now: i64,
    validity: u64,
) -> Result<Option<DirectorySignatures>, SigningError> {
    let validity = i64::try_from(validity).unwrap_or(i64::MAX);
    let content_digest = format!("sha-256=:{}:", STANDARD.encode(Sha256::digest(body)));
    let components = [
        (ComponentId::of_request("@authority"), authority),
        (ComponentId::new("content-digest"), content_digest.as_str()),
    ];
    let mut inputs = Vec::new();
    let mut signatures = Vec::new();
    for (i, k) in published(keys, now).into_iter().enumerate() {
        let params = SignatureParams {
            created: now,
            keyid: k.key.keyid(),
            alg: Some(ED25519_ALG.to_owned()),
            expires: Some(now.saturating_add(validity).min(k.expires)),
            nonce: None,
            tag: Some(DIRECTORY_TAG.to_owned()),
        };
        let signed = k
            .key
            .sign_message(&format!("sig{i}"), &components, &params)?;
        inputs.push(signed.signature_input);
        signatures.push(signed.signature);
    }
    if inputs.is_empty() {
        return Ok(None);
    }
    Ok(Some(DirectorySignatures {
        content_digest,
        signature_input: inputs.join(", "),
        signature: signatures.join(", "),
    }))
}

/// What reads the time a signature is made at: Unix seconds on the crawler's clock.
pub type UnixNow = Arc<dyn Fn() -> i64 + Send + Sync>;

/// Signs every request a [`Fetcher`](crate::Fetcher) sends (SR11). The key is swapped when the
/// crawler rotates it; until one is set, requests are not sent at all rather than sent
/// unsigned.
pub struct RequestSigner {
    agent: String,
    validity: i64,
    now: UnixNow,
    /// The key and when it expires.
    key: RwLock<Option<(Arc<BotKey>, i64)>>,
}

impl std::fmt::Debug for RequestSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestSigner")
            .field("agent", &self.agent)
            .field("validity", &self.validity)
            .field("keyid", &self.keyid())
            .finish_non_exhaustive()
    }
}

impl RequestSigner {
    /// A signer naming `agent` (an origin) in `Signature-Agent`, whose signatures are valid
    /// for `validity` seconds from the time `now` reads. It has no key yet.
    pub fn new(agent: &str, validity: u64, now: UnixNow) -> RequestSigner {
        RequestSigner {
            agent: agent.to_owned(),
            validity: i64::try_from(validity).unwrap_or(i64::MAX),
            now,
            key: RwLock::new(None),
        }
    }

    /// Sign with `key` from now on, until `expires` (Unix seconds) at most.
    pub fn set_key(&self, key: BotKey, expires: i64) {
        *self.key.write().unwrap_or_else(PoisonError::into_inner) = Some((Arc::new(key), expires));
    }

    /// The keyid requests are signed with, if a key is set and has not expired.
    pub fn keyid(&self) -> Option<String> {
        let now = (self.now)();
        self.key
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|(_, expires)| now < *expires)
            .map(|(k, _)| k.keyid())
    }

    /// The origin named in `Signature-Agent`.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The headers for one request to `target`, signed now with a fresh nonce.
    pub fn sign(&self, target: &Url) -> Result<WebBotAuthHeaders, String> {
        let (key, key_expires) = self
            .key
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| {
                "requests are signed (SR11) but no bot key is set; `tidings keys bot generate` \
                 makes one"
                    .to_owned()
            })?;
        let created = (self.now)();
        if created >= key_expires {
            return Err(format!(
                "requests are signed (SR11) but bot key {} has expired; `tidings keys bot \
                 rotate` makes a new one",
                key.keyid()
            ));
        }
        let mut nonce = [0u8; 32];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a nonce: {e}"))?;
        let nonce = STANDARD.encode(nonce);
        key.sign_web_bot_auth(&WebBotAuthRequest {
            target,
            signature_agent: &self.agent,
            created,
            expires: created.saturating_add(self.validity),
            nonce: Some(&nonce),
        })
        .map_err(|e| format!("cannot sign the request: {e}"))
        .and_then(|headers| {
            let printable = |v: &str| v.bytes().all(|b| (0x20..0x7f).contains(&b));
            if printable(&headers.signature_agent) {
                Ok(headers)
            } else {
                Err(format!(
                    "the signature agent {:?} is no header value",
                    self.agent
                ))
            }
        })
    }
}

/// The thumbprint of a stored public key (base64url `x`), or `None` when it is no Ed25519 key.
pub fn thumbprint_of(public_key: &str) -> Option<String> {
    let bytes: [u8; 32] = URL_SAFE_NO_PAD.decode(public_key).ok()?.try_into().ok()?;
    Some(jwk_thumbprint(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u8, not_before: i64, expires: i64) -> DatedKey {
        DatedKey {
            key: BotKey::from_seed(&[seed; 32]),
            not_before,
            expires,
        }
    }

    fn id(k: Option<&DatedKey>) -> Option<String> {
        k.map(|k| k.key.keyid())
    }

    #[test]
    fn the_newest_started_key_signs_and_older_ones_stay_published_until_they_expire() {
        let keys = vec![key(1, 0, 100), key(2, 50, 150), key(3, 120, 200)];
        let kid = |i: usize| Some(keys[i].key.keyid());
        assert_eq!(id(signing_key(&keys, -1)), None, "nothing has started");
        assert_eq!(id(signing_key(&keys, 0)), kid(0));
        assert_eq!(id(signing_key(&keys, 49)), kid(0));
        assert_eq!(id(signing_key(&keys, 50)), kid(1), "rotated at 50");
        assert_eq!(id(signing_key(&keys, 130)), kid(2));
        assert_eq!(id(signing_key(&keys, 200)), None, "all expired");
        let same_second = vec![key(4, 10, 500), key(5, 10, 100)];
        assert_eq!(
            id(signing_key(&same_second, 20)),
            Some(same_second[1].key.keyid()),
            "made in the same second: the later made signs"
        );

        let at = |now: i64| -> Vec<KeyState> { keys.iter().map(|k| k.state(&keys, now)).collect() };
        use KeyState::*;
        assert_eq!(at(10), vec![Signing, Pending, Pending]);
        assert_eq!(at(60), vec![Retired, Signing, Pending]);
        assert_eq!(at(100), vec![Expired, Signing, Pending]);
        assert_eq!(at(130), vec![Expired, Retired, Signing]);

        let published_at = |now: i64| -> usize { published(&keys, now).len() };
        assert_eq!(published_at(60), 3, "pending keys are published ahead");
        assert_eq!(published_at(100), 2, "an expired key leaves the directory");
        assert_eq!(published_at(200), 0);
    }

    #[test]
    fn a_new_key_is_due_when_none_signs_or_the_signing_one_ends_within_the_margin() {
        assert!(needs_new_key(&[], 0, 10));
        let keys = vec![key(1, 0, 100)];
        assert!(!needs_new_key(&keys, 0, 10));
        assert!(!needs_new_key(&keys, 89, 10));
        assert!(
            needs_new_key(&keys, 90, 10),
            "10 s left is within the margin"
        );
        assert!(needs_new_key(&keys, 100, 10), "expired");
        let rotated = vec![key(1, 0, 100), key(2, 90, 190)];
        assert!(!needs_new_key(&rotated, 95, 10), "the next one exists");
        let ahead = vec![key(1, 0, 100), key(2, 95, 195)];
        assert!(
            !needs_new_key(&ahead, 91, 10),
            "the next one is published ahead of its start"
        );
        let future_only = vec![key(1, 50, 150)];
        assert!(
            needs_new_key(&future_only, 10, 10),
            "a key that has not started signs nothing now"
        );
    }

    #[test]
    fn a_rotated_key_starts_after_cached_directories_expire_but_within_the_margin() {
        assert_eq!(
            next_key_start(&[], 1000, 600_000, 3600),
            1000,
            "the first at once"
        );
        let keys = vec![key(1, 0, 1_000_000)];
        assert_eq!(
            next_key_start(&keys, 500, 600_000, 3600),
            500 + 3600,
            "published as long ahead as the directory may be cached"
        );
        assert_eq!(
            next_key_start(&keys, 500, 1000, 3600),
            1000,
            "never later than halfway through a short margin"
        );
        let expired = vec![key(1, 0, 100)];
        assert_eq!(
            next_key_start(&expired, 200, 600_000, 3600),
            200,
            "nothing signs: at once"
        );
    }

    #[test]
    fn stored_keys_round_trip_and_a_mismatched_secret_is_refused() {
        let k = key(9, 5, 10);
        let back = DatedKey::from_stored(&k.key.keyid(), &k.secret(), 5, 10).unwrap();
        assert_eq!(back.key.keyid(), k.key.keyid());
        assert_eq!(back.public(), k.public());
        assert_eq!(thumbprint_of(&k.public()), Some(k.key.keyid()));
        let other = key(8, 5, 10);
        assert!(DatedKey::from_stored(&other.key.keyid(), &k.secret(), 5, 10).is_err());
        assert!(DatedKey::from_stored(&k.key.keyid(), "***", 5, 10).is_err());
        assert!(DatedKey::from_stored(&k.key.keyid(), "AAAA", 5, 10).is_err());
        assert_eq!(thumbprint_of("AAAA"), None);
    }

    #[test]
    fn generated_keys_differ_and_last_their_lifetime() {
        let a = DatedKey::generate(1000, 60).unwrap();
        let b = DatedKey::generate(1000, 60).unwrap();
        assert_ne!(a.key.keyid(), b.key.keyid());
        assert_eq!((a.not_before, a.expires), (1000, 1060));
    }

    #[test]
    fn the_directory_lists_published_keys_as_jwks() {
        let keys = vec![key(1, 0, 100), key(2, 50, 150)];
        let json: serde_json::Value = serde_json::from_str(&directory_json(&keys, 120)).unwrap();
        let listed = json["keys"].as_array().unwrap();
        assert_eq!(listed.len(), 1, "the expired key is gone");
        let jwk = &listed[0];
        assert_eq!(jwk["kty"], "OKP");
        assert_eq!(jwk["crv"], "Ed25519");
        assert_eq!(jwk["use"], "sig");
        assert_eq!(jwk["kid"], keys[1].key.keyid());
        assert_eq!(jwk["x"], keys[1].public());
        assert_eq!(
            (jwk["nbf"].as_i64(), jwk["exp"].as_i64()),
            (Some(50), Some(150))
        );
        assert!(jwk.get("d").is_none(), "never the secret");
    }

    #[test]
    fn each_published_key_signs_the_directory_response() {
        let keys = vec![key(1, 0, 100), key(2, 50, 150)];
        let body = directory_json(&keys, 60);
        let signed = sign_directory(&keys, "bot.example", body.as_bytes(), 60, 3600)
            .unwrap()
            .unwrap();
        assert_eq!(
            signed.content_digest,
            format!(
                "sha-256=:{}:",
                STANDARD.encode(Sha256::digest(body.as_bytes()))
            )
        );
        let k0 = keys[0].key.keyid();
        let k1 = keys[1].key.keyid();
        assert_eq!(
            signed.signature_input,
            format!(
                "sig0=(\"@authority\";req \"content-digest\");created=60;keyid=\"{k0}\";\
                 alg=\"ed25519\";expires=100;tag=\"http-message-signatures-directory\", \
                 sig1=(\"@authority\";req \"content-digest\");created=60;keyid=\"{k1}\";\
                 alg=\"ed25519\";expires=150;tag=\"http-message-signatures-directory\""
            ),
            "a signature never outlives its key"
        );
        assert!(signed.signature.starts_with("sig0=:") && signed.signature.contains(", sig1=:"));
        assert_eq!(
            sign_directory(&[], "bot.example", b"{}", 60, 3600).unwrap(),
            None
        );
    }

    #[test]
    fn the_request_signer_refuses_without_a_key_and_signs_with_the_one_set() {
        let signer = RequestSigner::new("https://bot.example", 300, Arc::new(|| 1000));
        let target = Url::parse("http://news.test:8080/feed.xml").unwrap();
        assert!(signer.sign(&target).unwrap_err().contains("no bot key"));
        let k = BotKey::from_seed(&[4; 32]);
        let keyid = k.keyid();
        signer.set_key(k.clone(), 1000);
        assert!(signer.sign(&target).unwrap_err().contains("expired"));
        assert_eq!(signer.keyid(), None, "an expired key signs nothing");
        signer.set_key(k, 2000);
        assert_eq!(signer.keyid(), Some(keyid.clone()));
        let headers = signer.sign(&target).unwrap();
        assert_eq!(headers.signature_agent, "sig1=\"https://bot.example\"");
        assert!(
            headers.signature_input.starts_with(&format!(
                "sig1=(\"@authority\" \"signature-agent\";key=\"sig1\");created=1000;\
                 keyid=\"{keyid}\";alg=\"ed25519\";expires=1300;nonce=\""
            )),
            "{}",
            headers.signature_input
        );
        let again = signer.sign(&target).unwrap();
        assert_ne!(
            headers.signature_input, again.signature_input,
            "each request has its own nonce"
        );
    }
}
