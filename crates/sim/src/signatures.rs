//! Web Bot Auth on the publisher's side (SR11): an independent check of the signatures tidings
//! puts on its requests and on its key directory.
//!
//! Independent means none of tidings' own signing code: the signature base, the structured
//! fields and the Ed25519 verification are Cloudflare's `web-bot-auth` crate, the JWK
//! thumbprints that name the keys are the ones it computes. What this module adds is the
//! publisher's reading of a recorded [`Exchange`] (its headers, `@authority` from `Host`) and
//! the checks `web-bot-auth` leaves to its caller: the `Signature-Agent`, the signature's time
//! window and the key's.
//!
//! - [`KeyDirectory`]: the keys a `/.well-known/http-message-signatures-directory` serves, keyed
//!   by their RFC 7638 thumbprint, each with its `nbf` / `exp`.
//! - [`verify_request`]: one request's Web Bot Auth signature against a directory, at a moment,
//!   with a clock skew allowance; a [`SignatureProblem`] says what was wrong.
//! - [`verify_directory_response`]: the directory response itself, signed by each of its keys
//!   over `"@authority";req` and `content-digest`; a [`DirectoryProblem`] says what was wrong.
//!
//! Pure: the moment is an argument, nothing is fetched. The [`auditor`](crate::auditor) runs
//! [`verify_request`] on every exchange of a run that expects signing.
//!
//! Time semantics of a request signature, all in whole Unix seconds except `now`:
//! - `created` may be ahead of `now` by at most the skew (the signer's clock may run ahead of
//!   the web's);
//! - the signature is good while `now < expires + skew` (`expires` is the first moment it is no
//!   longer valid, as `web-bot-auth` reads it; the skew allows for the signer's clock running
//!   behind), and `expires` must be after `created`;
//! - the key's own window must hold `created`: `nbf <= created < exp`, with no skew, since both
//!   sides of that comparison come from the signer's clock.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use sfv::SerializeValue as _;
use sha2::{Digest as _, Sha256};
use web_bot_auth::components::{
    CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters,
};
use web_bot_auth::keyring::{Algorithm, JSONWebKeySet, KeyRing};
use web_bot_auth::message_signatures::{MessageVerifier, SignedMessage};
use web_bot_auth::{ImplementationError, SignatureAgentLink, WebBotAuthVerifier};

use crate::recorder::{Exchange, Header, bytes_to_string};

/// The path a signature agent serves its key directory at.
pub const DIRECTORY_PATH: &str = "/.well-known/http-message-signatures-directory";

/// The `tag` of the signatures on a key directory response.
pub const DIRECTORY_TAG: &str = "http-message-signatures-directory";

/// The clock difference allowed between the signer and the web by default: `created` is
/// whole seconds, and the two clocks are read in different processes.
pub const DEFAULT_SKEW: Duration = Duration::from_secs(5);

/// One public key of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryKey {
    /// The RFC 7638 JWK SHA-256 thumbprint `web-bot-auth` computes: the `keyid` a signature by
    /// this key must name.
    pub keyid: String,
    /// The 32-byte Ed25519 public key.
    pub public_key: Vec<u8>,
    /// Not before, Unix seconds, when the directory gives one.
    pub nbf: Option<i64>,
    /// Expiry, Unix seconds, when the directory gives one: the key is valid before it.
    pub exp: Option<i64>,
}

impl DirectoryKey {
    /// Whether a signature created at `created` falls in the key's window.
    fn covers(&self, created: i64) -> bool {
        self.nbf.is_none_or(|nbf| nbf <= created) && self.exp.is_none_or(|exp| created < exp)
    }
}

/// Why a key directory could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectoryError {
    /// Not JSON, or not a JSON Web Key Set `web-bot-auth` can read.
    #[error("key directory is not a json web key set: {0}")]
    Json(String),
    /// The directory lists no key.
    #[error("key directory has no keys")]
    Empty,
    /// A key that is not an Ed25519 public key.
    #[error("key {index} of the directory is not an ed25519 public key: {reason}")]
    NotEd25519 { index: usize, reason: String },
    /// A `kid` other than the key's RFC 7638 thumbprint.
    #[error(
        "key {index} of the directory has kid {kid:?}, but its rfc 7638 thumbprint is {thumbprint}"
    )]
    KidMismatch {
        index: usize,
        kid: String,
        thumbprint: String,
    },
    /// An `nbf` or `exp` that is not an integer.
    #[error("key {index} of the directory has a {field} that is not an integer")]
    Validity { index: usize, field: &'static str },
    /// The same key twice.
    #[error("key {thumbprint} is listed twice in the directory")]
    Duplicate { thumbprint: String },
}

/// The keys of a signature agent's directory, keyed by thumbprint.
#[derive(Debug, Clone)]
pub struct KeyDirectory {
    keys: BTreeMap<String, DirectoryKey>,
    ring: KeyRing,
}

impl KeyDirectory {
    /// The directory a JSON body (`{"keys":[{"kty":"OKP","crv":"Ed25519","x":…}, …]}`) lists.
    /// Each key is named by the thumbprint `web-bot-auth` computes; a `kid`, when given, must be
    /// that thumbprint. `nbf` and `exp`, when given, are kept.
    pub fn from_json(body: &[u8]) -> Result<KeyDirectory, DirectoryError> {
        let set: JSONWebKeySet =
            serde_json::from_slice(body).map_err(|e| DirectoryError::Json(e.to_string()))?;
        let raw: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| DirectoryError::Json(e.to_string()))?;
        let extras = raw
            .get("keys")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| DirectoryError::Json("no keys array".into()))?;
        if set.keys.is_empty() {
            return Err(DirectoryError::Empty);
        }
        let mut directory = KeyDirectory {
            keys: BTreeMap::new(),
            ring: KeyRing::default(),
        };
        for (index, (jwk, extra)) in set.keys.iter().zip(extras).enumerate() {
            let not_ed25519 = |reason: String| DirectoryError::NotEd25519 { index, reason };
            match jwk.algorithm() {
                Ok(Algorithm::Ed25519) => {}
                other => return Err(not_ed25519(format!("{other:?}"))),
            }
            let public_key = jwk
                .public_key()
                .map_err(|e| not_ed25519(format!("{e:?}")))?;
            let thumbprint = jwk.b64_thumbprint();
            if let Some(kid) = extra.get("kid") {
                let kid = kid.as_str().map_or_else(|| kid.to_string(), str::to_owned);
                if kid != thumbprint {
                    return Err(DirectoryError::KidMismatch {
                        index,
                        kid,
                        thumbprint,
                    });
                }
            }
            let time = |field: &'static str| match extra.get(field) {
                None => Ok(None),
                Some(v) => v
                    .as_i64()
                    .map(Some)
                    .ok_or(DirectoryError::Validity { index, field }),
            };
            let key = DirectoryKey {
                keyid: thumbprint.clone(),
                public_key: public_key.clone(),
                nbf: time("nbf")?,
                exp: time("exp")?,
            };
            if !directory
                .ring
                .import_raw(thumbprint.clone(), Algorithm::Ed25519, public_key)
            {
                return Err(DirectoryError::Duplicate { thumbprint });
            }
            directory.keys.insert(thumbprint, key);
        }
        Ok(directory)
    }

    /// The key named `keyid` (a thumbprint).
    pub fn get(&self, keyid: &str) -> Option<&DirectoryKey> {
        self.keys.get(keyid)
    }

    /// The keys, by thumbprint.
    pub fn keys(&self) -> impl Iterator<Item = &DirectoryKey> {
        self.keys.values()
    }

    /// How many keys the directory lists (at least one).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: a directory without keys is refused.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// What a verified request signature said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The signature's label in `Signature-Input` and `Signature`.
    pub label: String,
    /// The key that signed, a thumbprint in the directory.
    pub keyid: String,
    /// Unix seconds.
    pub created: i64,
    /// Unix seconds.
    pub expires: i64,
    pub nonce: Option<String>,
    /// The `Signature-Agent` URL the signature covers.
    pub signature_agent: String,
    /// The `@authority` it covers.
    pub authority: String,
}

/// Why a request's Web Bot Auth signature is not good.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureProblem {
    /// A header Web Bot Auth needs (`signature`, `signature-input`, `signature-agent`) or the
    /// `host` that gives `@authority` is absent.
    #[error("no {0} header")]
    MissingHeader(&'static str),
    /// The headers are there but hold no Web Bot Auth signature `web-bot-auth` can read.
    #[error("unparsable signature: {0}")]
    Unparsable(String),
    /// The covered `Signature-Agent` member is not an http(s) URL.
    #[error("signature-agent {0:?} names no http or https url")]
    AgentNotUrl(String),
    /// The `keyid` is no key of the directory.
    #[error("keyid {0:?} is not in the key directory")]
    UnknownKey(String),
    /// The signature does not verify with the key it names over the request as received.
    #[error("signature by key {keyid} does not verify: {reason}")]
    BadSignature { keyid: String, reason: String },
    /// `expires` is not after `created`.
    #[error("signature expires at {expires}, not after it was created at {created}")]
    Window { created: i64, expires: i64 },
    /// `created` is ahead of the web's clock by more than the skew.
    #[error("signature created at {created}, more than the skew after now ({now})")]
    NotYetValid { created: i64, now: i64 },
    /// The web's clock is past `expires` by the skew or more.
    #[error("signature expired at {expires}, and now is {now}")]
    Expired { expires: i64, now: i64 },
    /// `created` is outside the key's `nbf` / `exp`.
    #[error(
        "key {keyid} (nbf {nbf:?}, exp {exp:?}) was not valid when the signature was created at {created}"
    )]
    KeyOutsideValidity {
        keyid: String,
        created: i64,
        nbf: Option<i64>,
        exp: Option<i64>,
    },
}

/// Verify the Web Bot Auth signature of a recorded request against `directory`, at `now` (the
/// web's clock) with `skew` allowed either way (see the module docs for what is compared).
pub fn verify_request(
    exchange: &Exchange,
    directory: &KeyDirectory,
    now: SystemTime,
    skew: Duration,
) -> Result<Verified, SignatureProblem> {
    for name in ["signature", "signature-input", "signature-agent", "host"] {
        if values(&exchange.headers, name).is_empty() {
            return Err(SignatureProblem::MissingHeader(name));
        }
    }
    let message = Message::request(&exchange.headers);
    let verifier = WebBotAuthVerifier::parse(&message).map_err(|e| unparsable(&e))?;
    let agent = verifier
        .get_signature_agents()
        .iter()
        .find_map(|link| match link {
            SignatureAgentLink::External(url) if has_host(url) => Some(url.clone()),
            _ => None,
        })
        .ok_or_else(|| {
            SignatureProblem::AgentNotUrl(values(&exchange.headers, "signature-agent").join(", "))
        })?;
    let parsed = verifier.get_parsed_label();
    let details = &parsed.base.parameters.details;
    let label = parsed.label.as_str().to_owned();
    if let Some(alg) = parsed.base.parameters.raw.get("alg") {
        let named = alg.as_string().map(|s| s.as_str());
        if named != Some("ed25519") {
            let shown = named.map_or_else(|| format!("{alg:?}"), |n| format!("{n:?}"));
            return Err(SignatureProblem::Unparsable(format!(
                "alg {shown} is not ed25519"
            )));
        }
    }
    // `WebBotAuthVerifier::parse` picks only a label that has all four.
    let (Some(keyid), Some(created), Some(expires)) =
        (details.keyid.clone(), details.created, details.expires)
    else {
        return Err(SignatureProblem::Unparsable(
            "keyid, created or expires missing".into(),
        ));
    };
    let nonce = details.nonce.clone();
    let key = directory
        .get(&keyid)
        .ok_or_else(|| SignatureProblem::UnknownKey(keyid.clone()))?
        .clone();
    verifier
        .verify(&directory.ring, Some(keyid.clone()))
        .map_err(|e| SignatureProblem::BadSignature {
            keyid: keyid.clone(),
            reason: e.to_string(),
        })?;

    if expires <= created {
        return Err(SignatureProblem::Window { created, expires });
    }
    let now_secs = unix_secs(now);
    let at = |secs: i64| Duration::from_secs(secs.max(0).unsigned_abs());
    let since_epoch = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    if at(created) > since_epoch + skew {
        return Err(SignatureProblem::NotYetValid {
            created,
            now: now_secs,
        });
    }
    if since_epoch >= at(expires) + skew {
        return Err(SignatureProblem::Expired {
            expires,
            now: now_secs,
        });
    }
    if !key.covers(created) {
        return Err(SignatureProblem::KeyOutsideValidity {
            keyid,
            created,
            nbf: key.nbf,
            exp: key.exp,
        });
    }
    Ok(Verified {
        label,
        keyid,
        created,
        expires,
        nonce,
        signature_agent: agent,
        authority: message.authority.unwrap_or_default(),
    })
}

/// Why a key directory response is not good.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectoryProblem {
    /// The body is no valid directory.
    #[error(transparent)]
    Directory(#[from] DirectoryError),
    /// `content-digest`, `signature-input` or `signature` is absent.
    #[error("no {0} header")]
    MissingHeader(&'static str),
    /// `Content-Digest` is unreadable, has no `sha-256`, or it is not the body's.
    #[error("content-digest {0}")]
    ContentDigest(String),
    /// No signature names this key of the directory.
    #[error("no signature by directory key {0}")]
    Unsigned(String),
    /// The key's signatures carry another tag than `http-message-signatures-directory`.
    #[error("signature by key {keyid} has tag {tag:?}, not {DIRECTORY_TAG:?}")]
    WrongTag { keyid: String, tag: Option<String> },
    /// The key's signatures do not cover a component they must.
    #[error("signature by key {keyid} does not cover {component}")]
    NotCovered {
        keyid: String,
        component: &'static str,
    },
    /// The key's signature does not verify over the response as received.
    #[error("signature by key {keyid} does not verify: {reason}")]
    BadSignature { keyid: String, reason: String },
}

/// Verify a key directory response: the body is a [`KeyDirectory`], `Content-Digest` is its
/// SHA-256, and every key in it signed the response (tag `http-message-signatures-directory`,
/// covering `"@authority";req` and `content-digest`). `authority` is the `@authority` of the
/// request that fetched it. No clock: the signatures' times are not checked.
pub fn verify_directory_response(
    headers: &[Header],
    body: &[u8],
    authority: &str,
) -> Result<KeyDirectory, DirectoryProblem> {
    for name in ["content-digest", "signature-input", "signature"] {
        if values(headers, name).is_empty() {
            return Err(DirectoryProblem::MissingHeader(name));
        }
    }
    check_content_digest(&values(headers, "content-digest").join(", "), body)?;
    let directory = KeyDirectory::from_json(body)?;
    let message = Message::response(headers, authority);
    for key in directory.keys() {
        let keyid = key.keyid.as_str();
        let verifier = MessageVerifier::parse(&message, |(_, list)| {
            names_key(list, keyid) && has_directory_tag(list) && covers_directory(list).is_ok()
        })
        .map_err(|_| diagnose_directory_signature(headers, keyid))?;
        verifier
            .verify(&directory.ring, Some(keyid.to_owned()))
            .map_err(|e| DirectoryProblem::BadSignature {
                keyid: keyid.to_owned(),
                reason: e.to_string(),
            })?;
    }
    Ok(directory)
}

fn check_content_digest(value: &str, body: &[u8]) -> Result<(), DirectoryProblem> {
    let problem = |m: &str| DirectoryProblem::ContentDigest(m.to_owned());
    let dict = sfv::Parser::new(value)
        .parse_dictionary()
        .map_err(|e| problem(&format!("is not a dictionary: {e}")))?;
    let digest = match dict.get("sha-256") {
        Some(sfv::ListEntry::Item(item)) => item.bare_item.as_byte_sequence(),
        _ => None,
    }
    .ok_or_else(|| problem("has no sha-256 byte sequence"))?;
    if digest[..] != Sha256::digest(body)[..] {
        return Err(problem("sha-256 is not the digest of the body"));
    }
    Ok(())
}

/// Why no signature of `headers` passed for `keyid`: none names it, or those that do have the
/// wrong tag, or cover too little.
fn diagnose_directory_signature(headers: &[Header], keyid: &str) -> DirectoryProblem {
    let lists: Vec<sfv::InnerList> = values(headers, "signature-input")
        .iter()
        .filter_map(|v| sfv::Parser::new(v).parse_dictionary().ok())
        .flatten()
        .filter_map(|(_, entry)| match entry {
            sfv::ListEntry::InnerList(list) => Some(list),
            sfv::ListEntry::Item(_) => None,
        })
        .filter(|list| names_key(list, keyid))
        .collect();
    let Some(first) = lists.first() else {
        return DirectoryProblem::Unsigned(keyid.to_owned());
    };
    let Some(tagged) = lists.iter().find(|l| has_directory_tag(l)) else {
        return DirectoryProblem::WrongTag {
            keyid: keyid.to_owned(),
            tag: string_param(first, "tag"),
        };
    };
    match covers_directory(tagged) {
        Err(component) => DirectoryProblem::NotCovered {
            keyid: keyid.to_owned(),
            component,
        },
        // Parsing failed on something else: the Signature header, or a component lookup.
        Ok(()) => DirectoryProblem::BadSignature {
            keyid: keyid.to_owned(),
            reason: "its signature or covered components are unreadable".into(),
        },
    }
}

fn string_param(list: &sfv::InnerList, name: &str) -> Option<String> {
    list.params
        .get(name)
        .and_then(|v| v.as_string())
        .map(|s| s.as_str().to_owned())
}

fn names_key(list: &sfv::InnerList, keyid: &str) -> bool {
    string_param(list, "keyid").as_deref() == Some(keyid)
}

fn has_directory_tag(list: &sfv::InnerList) -> bool {
    string_param(list, "tag").as_deref() == Some(DIRECTORY_TAG)
}

/// `Ok` when the list covers `"@authority";req` and `"content-digest"`, else the first missing.
fn covers_directory(list: &sfv::InnerList) -> Result<(), &'static str> {
    let covers = |name: &str, req: bool| {
        list.items.iter().any(|item| {
            item.bare_item.as_string().map(|s| s.as_str()) == Some(name)
                && item
                    .params
                    .get("req")
                    .and_then(|v| v.as_boolean())
                    .unwrap_or(false)
                    == req
                && item.params.len() == usize::from(req)
        })
    };
    if !covers("@authority", true) {
        return Err("\"@authority\";req");
    }
    if !covers("content-digest", false) {
        return Err("\"content-digest\"");
    }
    Ok(())
}

fn unparsable(e: &ImplementationError) -> SignatureProblem {
    SignatureProblem::Unparsable(match e {
        ImplementationError::ParsingError(_) => format!(
            "{e} (web bot auth wants a signature-input member with keyid, created, expires and \
             tag=\"web-bot-auth\", covering @authority and, when sent, the signature-agent)"
        ),
        ImplementationError::LookupError(component) => {
            format!("covered component {component:?} is not in the request")
        }
        _ => e.to_string(),
    })
}

/// Whether `url` is `http://` or `https://` followed by something.
fn has_host(url: &str) -> bool {
    ["https://", "http://"].iter().any(|scheme| {
        url.strip_prefix(scheme)
            .is_some_and(|rest| !rest.is_empty())
    })
}

fn unix_secs(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// Every value of header `name` (case-insensitive), as text, trimmed (RFC 9421 §2.1).
fn values(headers: &[Header], name: &str) -> Vec<String> {
    headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| bytes_to_string(&h.value).trim().to_owned())
        .collect()
}

/// A recorded message as `web-bot-auth` looks components up in it.
struct Message<'a> {
    headers: &'a [Header],
    /// `@authority`: a request's, from its `Host`, lower-cased.
    authority: Option<String>,
    /// `"@authority";req`: for a response, its request's.
    request_authority: Option<&'a str>,
}

impl<'a> Message<'a> {
    fn request(headers: &'a [Header]) -> Message<'a> {
        let host = values(headers, "host");
        Message {
            headers,
            // Two Host headers make no authority (RFC 9112 §3.2: such a request is invalid).
            authority: match host.as_slice() {
                [one] => Some(one.to_ascii_lowercase()),
                _ => None,
            },
            request_authority: None,
        }
    }

    fn response(headers: &'a [Header], request_authority: &'a str) -> Message<'a> {
        Message {
            headers,
            authority: None,
            request_authority: Some(request_authority),
        }
    }

    /// The canonical value of member `key` of Dictionary field `name` (RFC 9421 §2.1.2): the
    /// member re-serialized, parameters included.
    fn member(&self, name: &str, key: &str) -> Option<String> {
        let combined = values(self.headers, name).join(", ");
        let dict = sfv::Parser::new(&combined).parse_dictionary().ok()?;
        match dict.get(key)? {
            sfv::ListEntry::Item(item) => Some(item.serialize_value()),
            list @ sfv::ListEntry::InnerList(_) => vec![list.clone()].serialize_value(),
        }
    }
}

impl SignedMessage for Message<'_> {
    fn lookup_component(&self, name: &CoveredComponent) -> Vec<String> {
        match name {
            CoveredComponent::Derived(DerivedComponent::Authority { req: false }) => {
                self.authority.iter().cloned().collect()
            }
            CoveredComponent::Derived(DerivedComponent::Authority { req: true }) => self
                .request_authority
                .iter()
                .map(|a| (*a).to_owned())
                .collect(),
            CoveredComponent::Derived(_) => Vec::new(),
            CoveredComponent::HTTP(HTTPField { name, parameters }) => {
                match parameters.0.as_slice() {
                    [] => values(self.headers, name),
                    [HTTPFieldParameters::Key(key)] => self.member(name, key).into_iter().collect(),
                    _ => Vec::new(),
                }
            }
        }
    }
}
