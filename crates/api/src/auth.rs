//! API keys: issuing tokens, checking `Authorization: Bearer TOKEN` (the API) or the web UI's
//! login cookie ([`COOKIE`], the UI's pages only), and a rate per key.
//!
//! A token is `tdg_` and 64 hex digits (32 random bytes). The store keeps only its SHA-256
//! (looked up on every keyed request) and its first characters ([`PREFIX_LEN`], to tell keys
//! apart in `tidings keys list`); the token is shown once, when it is made, and never logged
//! nor echoed in a problem. A browser cannot send a Bearer header, so `/login` puts the token
//! in an HttpOnly, SameSite=Strict cookie; a request with both uses the header.
//!
//! `/v1` never takes the cookie: its extractors read only the Bearer header ([`bearer`]). A
//! browser attaches cookies to a cross-site request it sends without asking (a `text/plain`
//! POST needs no preflight), but it never adds an `Authorization` header the page did not set,
//! and no other site can set one for us; so a write to the API cannot be forged from another
//! site. The UI's own forms are checked against cross-site requests instead (`ui::access`).
//!
//! Every `/v1` handler takes [`ReadAccess`] or [`WriteAccess`]: writes need an admin key;
//! reads need a key unless [`AuthConfig::public_reads`], and a key sent with a read is checked. A missing, unknown or
//! revoked key is a 401 problem with `WWW-Authenticate: Bearer`, a reader key on a write a 403,
//! and a key past its rate a 429 with `Retry-After`. The rate is a token bucket per key, in
//! memory ([`RateLimit`]). Failed checks are also counted per client address
//! (`crate::throttle`): past [`AuthConfig::failures`], that address's key checks are 429s.
//! The client's address is the `ConnectInfo` that `crate::server::serve` puts on every
//! request; a request without one (a router served some other way) is not throttled.

use crate::AppState;
use crate::problem::{Problem, ProblemKind};
use crate::throttle::{self, ClientKey, Throttle};
use axum::extract::ConnectInfo;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tidings_store::{AccountRole, NewKey, NewSession, SessionKind};

/// What every token starts with, so a leaked one is easy to recognise.
pub const TOKEN_PREFIX: &str = "tdg_";
/// Random bytes in a token.
pub const TOKEN_BYTES: usize = 32;
/// Characters of the token kept in the store for display (`tdg_` and 8 hex digits: 32 bits
/// of the 256, useless to a guesser).
pub const PREFIX_LEN: usize = 12;
/// The cookie the web UI's `/login` sets for an API key, holding the token.
pub const COOKIE: &str = "tidings_key";
/// The cookie the web UI's `/login` sets for an account's password, holding the web
/// session's token (the store keeps only its SHA-256).
pub const SESSION_COOKIE: &str = "tidings_session";
/// What every web session's token starts with.
pub const SESSION_PREFIX: &str = "tds_";
/// How long a web session lasts (a new password ends it sooner).
pub const WEB_SESSION_DAYS: i64 = 30;
/// Requests per second a key may make, on average.
pub const RATE_PER_SECOND: u32 = 20;
/// Requests a key may make at once before the rate applies.
pub const BURST: u32 = 40;
/// A key's `last_used_at` is written at most this often (seconds), not on every request.
pub const LAST_USED_EVERY_SECS: i64 = 60;

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Reads only.
    Reader,
    /// Reads and writes.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Admin => "admin",
        }
    }

    /// `reader` or `admin`.
    pub fn parse(text: &str) -> Result<Role, AuthError> {
        match text {
            "reader" => Ok(Role::Reader),
            "admin" => Ok(Role::Admin),
            other => Err(AuthError::Role(other.to_owned())),
        }
    }
}

/// What can go wrong making a key.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("unknown role {0:?}: use reader or admin")]
    Role(String),
    #[error("the system gave no random bytes: {0}")]
    Random(getrandom::Error),
}

/// A fresh token and the key to store for it (its hash and prefix, never the token); an
/// operator's key until `account_id` is set on it.
pub fn issue(
    name: Option<String>,
    role: Role,
    now: DateTime<Utc>,
) -> Result<(String, NewKey), AuthError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(AuthError::Random)?;
    let token = format!("{TOKEN_PREFIX}{}", hex::encode(bytes));
    let key = NewKey {
        name,
        role: role.as_str().to_owned(),
        hash: hash_token(&token),
        prefix: token.chars().take(PREFIX_LEN).collect(),
        created_at: now,
        account_id: None,
    };
    Ok((token, key))
}

/// The hex SHA-256 of a token: what the store looks keys up by.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// How fast one key may send requests: a bucket of `burst` requests, one more every
/// `refill_every`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub burst: u32,
    pub refill_every: Duration,
}

impl Default for RateLimit {
    /// [`RATE_PER_SECOND`] with bursts of [`BURST`].
    fn default() -> RateLimit {
        RateLimit {
            burst: BURST,
            refill_every: Duration::from_secs(1) / RATE_PER_SECOND,
        }
    }
}

/// The API's access rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthConfig {
    /// Anyone may read without a key or a login (`tidings serve --public-reads`); by default
    /// reads need one.
    pub public_reads: bool,
    /// Requests per key.
    pub rate: RateLimit,
    /// Failed key checks per client address (`crate::throttle`; `tidings serve
    /// --max-auth-failures`, `--auth-failure-refill-secs`).
    pub failures: RateLimit,
}

impl Default for AuthConfig {
    /// Reads need a key, [`RateLimit::default`] per key, [`throttle::default_failures`] per
    /// address.
    fn default() -> AuthConfig {
        AuthConfig {
            public_reads: false,
            rate: RateLimit::default(),
            failures: throttle::default_failures(),
        }
    }
}

/// The access rules, the buckets of the keys seen so far and the failures per address.
#[derive(Debug)]
pub struct Auth {
    config: AuthConfig,
    buckets: Mutex<HashMap<Via, Bucket>>,
    failures: Mutex<Throttle>,
    /// Sync-client logins checked recently (see [`crate::compat::login`]).
    pub(crate) logins: crate::compat::Logins,
}

impl Default for Auth {
    fn default() -> Auth {
        Auth::new(AuthConfig::default())
    }
}

impl Auth {
    pub fn new(config: AuthConfig) -> Auth {
        Auth {
            config,
            buckets: Mutex::default(),
            failures: Mutex::new(Throttle::new(config.failures, throttle::MAX_TRACKED)),
            logins: crate::compat::Logins::default(),
        }
    }

    pub fn config(&self) -> AuthConfig {
        self.config
    }

    /// Whether `client` may have a key checked now, or how long it must wait.
    pub(crate) fn may_try(&self, client: Option<IpAddr>) -> Result<(), Duration> {
        let Some(ip) = client else { return Ok(()) };
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.check(ClientKey::of(ip), Instant::now())
    }

    /// Count a failed key check by `client`.
    pub(crate) fn failed(&self, client: Option<IpAddr>) {
        let Some(ip) = client else { return };
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.failed(ClientKey::of(ip), Instant::now());
        tracing::info!(client = %ip, "failed api key check");
    }

    /// Take one request from the bucket of `via` (a key or a session's account) at `now`, or
    /// say how long to wait.
    fn take(&self, via: Via, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let rate = self.config.rate;
        buckets
            .entry(via)
            .or_insert_with(|| Bucket::full(rate, now))
            .take(rate, now)
    }
}

/// A token bucket: `tokens` requests left as of `at`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bucket {
    tokens: u32,
    at: Instant,
}

impl Bucket {
    pub(crate) fn full(rate: RateLimit, now: Instant) -> Bucket {
        Bucket {
            tokens: rate.burst,
            at: now,
        }
    }

    /// Refill for the time since `at` (whole requests; the remainder carries over); returns
    /// the refill interval.
    fn refill(&mut self, rate: RateLimit, now: Instant) -> Duration {
        let every = rate.refill_every.max(Duration::from_nanos(1));
        let elapsed = now.saturating_duration_since(self.at);
        let earned = elapsed.as_nanos() / every.as_nanos();
        if earned > 0 {
            let earned = u32::try_from(earned).unwrap_or(u32::MAX);
            self.tokens = self.tokens.saturating_add(earned).min(rate.burst);
            self.at = if self.tokens == rate.burst {
                now
            } else {
                self.at + every * earned
            };
        }
        every
    }

    /// Whether one request is left at `now` (without taking it), or how long until one is.
    pub(crate) fn check(&mut self, rate: RateLimit, now: Instant) -> Result<(), Duration> {
        let every = self.refill(rate, now);
        if self.tokens > 0 {
            Ok(())
        } else {
            Err((self.at + every).saturating_duration_since(now))
        }
    }

    /// Whether the bucket is full again at `now`, so forgetting it changes nothing.
    pub(crate) fn full_at(&mut self, rate: RateLimit, now: Instant) -> bool {
        self.refill(rate, now);
        self.tokens >= rate.burst
    }

    /// Refill, then take one request, or say how long until one is back.
    pub(crate) fn take(&mut self, rate: RateLimit, now: Instant) -> Result<(), Duration> {
        let every = self.refill(rate, now);
        if self.tokens > 0 {
            self.tokens -= 1;
            if self.tokens + 1 == rate.burst {
                // The bucket was full: refilling counts from now.
                self.at = now;
            }
            Ok(())
        } else {
            Err((self.at + every).saturating_duration_since(now))
        }
    }
}

/// What a request was made with: an API key, or a web session opened with an account's
/// password (`/login`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Via {
    /// An API key; `account`: the account it acts as (`None`: an operator's key).
    Key { id: i64, account: Option<i64> },
    /// A web session of this account.
    Session { account: i64 },
}

/// Who made a request: the key or session, and what it may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub via: Via,
    pub role: Role,
}

impl std::fmt::Display for Caller {
    /// `key 5` or `account 3`, for the log and the page's top bar (never a secret).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.via {
            Via::Key { id, .. } => write!(f, "key {id}"),
            Via::Session { account } => write!(f, "account {account}"),
        }
    }
}

impl Caller {
    /// The account this caller acts as (`None`: an operator's key).
    pub fn account(&self) -> Option<i64> {
        match self.via {
            Via::Key { account, .. } => account,
            Via::Session { account } => Some(account),
        }
    }

    /// Whose subscriptions this caller's are, by subscriber name: its account's, else its
    /// key's own (`key:ID`).
    pub fn subscriber(&self) -> String {
        match self.via {
            Via::Key { account: None, id } => format!("key:{id}"),
            Via::Key {
                account: Some(account),
                ..
            }
            | Via::Session { account } => tidings_store::account_subscriber(account),
        }
    }

    /// Who subscribes when this caller subscribes (`name` is [`Caller::subscriber`]'s): its
    /// account, filed as `placement` says, else the key by name.
    pub fn subscribing<'a>(
        &self,
        name: &'a str,
        placement: &'a tidings_store::Placement,
    ) -> tidings_store::Subscriber<'a> {
        match self.account() {
            Some(id) => tidings_store::Subscriber::Account { id, placement },
            None => tidings_store::Subscriber::Named(name),
        }
    }

    /// End this caller's subscription to `feed` (its account's, with its reading state of the
    /// feed, when it has one); false when there was none.
    pub async fn unsubscribe(
        &self,
        store: &dyn tidings_store::Store,
        feed: tidings_model::FeedId,
    ) -> Result<bool, tidings_store::StoreError> {
        match self.account() {
            Some(id) => store.unsubscribe_account(id, feed).await,
            None => store.unsubscribe(feed, &self.subscriber()).await,
        }
    }
}

/// A read of `/v1`: needs a key unless [`AuthConfig::public_reads`] (then without one it is
/// `None`); a key that is sent is checked either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAccess(pub Option<Caller>);

/// A write to `/v1`: needs an admin key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteAccess(pub Caller);

impl FromRequestParts<AppState> for ReadAccess {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let required = !state.auth.config.public_reads;
        check(parts, state, required).await.map(ReadAccess)
    }
}

/// A request about an account's own reading (`/v1/subscriptions`, `/v1/reading`): needs a key
/// that belongs to an account, reader or admin; it reads and writes that account's state only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountAccess {
    pub caller: Caller,
    pub account: i64,
}

impl FromRequestParts<AppState> for AccountAccess {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let Some(caller) = check(parts, state, true).await? else {
            return Err(unauthorized(NO_KEY));
        };
        match caller.account() {
            Some(account) => Ok(AccountAccess { caller, account }),
            None => Err(Problem::new(
                ProblemKind::Forbidden,
                "this key belongs to no account, so it has no reading state: make one with \
                 `tidings keys create --user NAME`",
            )
            .into_response()),
        }
    }
}

/// An operator's read of `/v1` (the request log, hosts): needs an admin key, like a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdminAccess(pub Caller);

impl FromRequestParts<AppState> for WriteAccess {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        admin(
            parts,
            state,
            "this key may only read: writing needs an admin key",
        )
        .await
        .map(WriteAccess)
    }
}

impl FromRequestParts<AppState> for AdminAccess {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        admin(
            parts,
            state,
            "this key may not read the request log or hosts: that needs an admin key",
        )
        .await
        .map(AdminAccess)
    }
}

/// The caller of a request that needs an admin key; `refusal` is the 403's detail.
async fn admin(parts: &Parts, state: &AppState, refusal: &str) -> Result<Caller, Response> {
    let Some(caller) = check(parts, state, true).await? else {
        return Err(unauthorized(NO_KEY));
    };
    if caller.role != Role::Admin {
        return Err(Problem::new(ProblemKind::Forbidden, refusal).into_response());
    }
    Ok(caller)
}

const NO_KEY: &str =
    "this request needs an API key: send Authorization: Bearer followed by the token";

/// Why a request's key was not taken.
#[derive(Debug)]
pub(crate) enum Denied {
    /// The `Authorization` header is not `Bearer TOKEN`.
    Malformed,
    /// No key with that token, or it was revoked.
    Unknown,
    /// The key is past its rate: wait this long.
    TooMany(Duration),
    /// The client's address failed too many key checks: wait this long (`crate::throttle`).
    Throttled(Duration),
    /// The store could not be asked (the cause, for the log only).
    Failed(tidings_store::StoreError),
}

impl Denied {
    /// The API's answer: a problem, never the cause of a failure.
    fn into_problem_response(self) -> Response {
        match self {
            Denied::Malformed => {
                unauthorized("the Authorization header is not Bearer followed by an API token")
            }
            Denied::Unknown => unauthorized("the API key is unknown or revoked"),
            Denied::TooMany(wait) => too_many(wait, TOO_MANY_FOR_KEY),
            Denied::Throttled(wait) => too_many(wait, TOO_MANY_FAILURES),
            Denied::Failed(e) => Problem::internal(&e).into_response(),
        }
    }
}

/// The 429's detail past a key's rate.
pub(crate) const TOO_MANY_FOR_KEY: &str = "this key sent too many requests";
/// The 429's detail past an address's failed key checks.
pub(crate) const TOO_MANY_FAILURES: &str = "too many failed key checks came from this address";

/// Whether a failed check of a token counts against the client's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counted {
    /// A token the client chose for this request: a Bearer header, a `/login` form.
    Yes,
    /// The login cookie: a revoked key's cookie comes with every page a browser opens, and
    /// must not lock its owner out of `/login`. It is still refused while the address is
    /// throttled.
    No,
}

/// The client's address, as `crate::server::serve` records it on every request.
pub(crate) fn client_ip(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip())
}

/// The API's caller: the Bearer key in `parts`, checked (known, not revoked, within its
/// rate, its address not throttled); `None` when none was sent and none is `required`. The
/// login cookie is ignored here (see the module's doc: it would let another site write through
/// a logged-in browser).
async fn check(
    parts: &Parts,
    state: &AppState,
    required: bool,
) -> Result<Option<Caller>, Response> {
    let client = client_ip(parts);
    let caller = match bearer(&parts.headers) {
        Ok(Some(token)) => verify(&token, state, client, Counted::Yes).await.map(Some),
        Ok(None) => Ok(None),
        Err(()) => Err(malformed(state, client)),
    };
    match caller {
        Ok(None) if required => Err(unauthorized(NO_KEY)),
        Ok(caller) => Ok(caller),
        Err(denied) => Err(denied.into_problem_response()),
    }
}

/// A malformed `Authorization` header from `client`: a failed check, or a throttled one.
fn malformed(state: &AppState, client: Option<IpAddr>) -> Denied {
    if let Err(wait) = state.auth.may_try(client) {
        return Denied::Throttled(wait);
    }
    state.auth.failed(client);
    Denied::Malformed
}

/// The caller of a UI page: the Bearer token, else the key cookie, else the web session
/// cookie; `None` when none was sent. Only the UI asks this; its forms pass
/// `ui::access::SameOrigin` first.
pub(crate) async fn identify(parts: &Parts, state: &AppState) -> Result<Option<Caller>, Denied> {
    let client = client_ip(parts);
    let (token, counted) = match bearer(&parts.headers) {
        Ok(Some(token)) => (token, Counted::Yes),
        Ok(None) => match cookie(&parts.headers, COOKIE) {
            Some(token) => (token, Counted::No),
            None => match cookie(&parts.headers, SESSION_COOKIE) {
                Some(token) => return session(&token, state, client).await.map(Some),
                None => return Ok(None),
            },
        },
        Err(()) => return Err(malformed(state, client)),
    };
    verify(&token, state, client, counted).await.map(Some)
}

/// The account of a web session's token from `client`: its address not throttled, the
/// session open and not expired, within the account's rate. An unknown session is not a
/// failure of the address (like the key cookie, it comes with every page).
async fn session(token: &str, state: &AppState, client: Option<IpAddr>) -> Result<Caller, Denied> {
    if let Err(wait) = state.auth.may_try(client) {
        return Err(Denied::Throttled(wait));
    }
    let account = state
        .store
        .session_account(&hash_token(token), SessionKind::Web, Utc::now())
        .await
        .map_err(Denied::Failed)?
        .ok_or(Denied::Unknown)?;
    let via = Via::Session {
        account: account.id,
    };
    if let Err(wait) = state.auth.take(via, Instant::now()) {
        return Err(Denied::TooMany(wait));
    }
    let role = match account.role {
        AccountRole::Admin => Role::Admin,
        AccountRole::Reader => Role::Reader,
    };
    Ok(Caller { via, role })
}

/// Why a web session could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoSession {
    #[error("the system gave no random bytes: {0}")]
    Random(getrandom::Error),
    #[error(transparent)]
    Store(#[from] tidings_store::StoreError),
}

/// Open a web session for `account`: its token (for the cookie only; the store keeps its
/// hash), or why none could be opened.
pub(crate) async fn open_session(state: &AppState, account: i64) -> Result<String, NoSession> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(NoSession::Random)?;
    let token = format!("{SESSION_PREFIX}{}", hex::encode(bytes));
    let now = Utc::now();
    state
        .store
        .create_session(&NewSession {
            token_hash: hash_token(&token),
            account_id: account,
            kind: SessionKind::Web,
            created_at: now,
            expires_at: now + chrono::Duration::days(WEB_SESSION_DAYS),
        })
        .await?;
    Ok(token)
}

/// End the web session of `token`, if it is open.
pub(crate) async fn close_session(state: &AppState, token: &str) {
    if let Err(e) = state.store.end_session(&hash_token(token)).await {
        tracing::warn!(error = %e, "a web session could not be ended");
    }
}

/// Check one token from `client`: its address not throttled, the key known, not revoked,
/// within its rate. Its last use is recorded; an unknown token is a failure of `client`'s
/// when `counted`.
pub(crate) async fn verify(
    token: &str,
    state: &AppState,
    client: Option<IpAddr>,
    counted: Counted,
) -> Result<Caller, Denied> {
    if let Err(wait) = state.auth.may_try(client) {
        return Err(Denied::Throttled(wait));
    }
    let result = lookup(token, state).await;
    if matches!(result, Err(Denied::Unknown)) && counted == Counted::Yes {
        state.auth.failed(client);
    }
    result
}

/// The key of one token: known, not revoked, within its rate. Its last use is recorded.
async fn lookup(token: &str, state: &AppState) -> Result<Caller, Denied> {
    let key = state
        .store
        .key_by_hash(&hash_token(token))
        .await
        .map_err(Denied::Failed)?;
    let Some(key) = key.filter(|k| k.revoked_at.is_none()) else {
        return Err(Denied::Unknown);
    };
    let Ok(role) = Role::parse(&key.role) else {
        tracing::warn!(key_id = key.id, "api key with an unknown role refused");
        return Err(Denied::Unknown);
    };
    let via = Via::Key {
        id: key.id,
        account: key.account_id,
    };
    if let Err(wait) = state.auth.take(via, Instant::now()) {
        return Err(Denied::TooMany(wait));
    }
    let now = Utc::now();
    if key
        .last_used_at
        .is_none_or(|last| now - last >= chrono::Duration::seconds(LAST_USED_EVERY_SECS))
        && let Err(e) = state.store.touch_key(key.id, now).await
    {
        // Only bookkeeping: the request goes on.
        tracing::warn!(key_id = key.id, error = %e, "cannot record the key's last use");
    }
    Ok(Caller { via, role })
}

/// The token of `Authorization: Bearer TOKEN`: `Ok(None)` without the header, `Err` when it is
/// something else.
fn bearer(headers: &HeaderMap) -> Result<Option<String>, ()> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| ())?;
    let (scheme, token) = text.trim().split_once(' ').ok_or(())?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(());
    }
    Ok(Some(token.to_owned()))
}

/// The value of cookie `name` ([`COOKIE`], [`SESSION_COOKIE`]), if one was sent and is not
/// empty (logging out leaves it empty).
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.trim().trim_matches('"').to_owned())
        .filter(|token| !token.is_empty())
}

/// A 401 problem; the problem itself adds `WWW-Authenticate`.
fn unauthorized(detail: &str) -> Response {
    Problem::new(ProblemKind::Unauthorized, detail).into_response()
}

/// A 429 problem saying `why`, with `Retry-After`.
fn too_many(wait: Duration, why: &str) -> Response {
    let seconds = retry_after_secs(wait);
    let mut response = Problem::new(
        ProblemKind::TooManyRequests,
        format!("{why}; try again in {seconds} s"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// A wait as `Retry-After` says it: whole seconds, rounded up, at least one.
pub(crate) fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_only_their_hash_and_prefix_are_kept() {
        let (a, key_a) = issue(Some("ops".into()), Role::Admin, DateTime::UNIX_EPOCH).unwrap();
        let (b, key_b) = issue(None, Role::Reader, DateTime::UNIX_EPOCH).unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(TOKEN_PREFIX));
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 2 * TOKEN_BYTES);
        assert_eq!(key_a.hash, hash_token(&a));
        assert_eq!(key_a.hash.len(), 64);
        assert_eq!(key_a.prefix, a[..PREFIX_LEN]);
        assert_eq!(key_a.role, "admin");
        assert_eq!(key_b.role, "reader");
        assert!(!format!("{key_a:?}").contains(&a[PREFIX_LEN..]));
    }

    #[test]
    fn bearer_headers_are_read_strictly() {
        let check = |value: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(v) = value {
                headers.insert(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
            }
            bearer(&headers)
        };
        assert_eq!(check(None), Ok(None));
        assert_eq!(check(Some("Bearer tdg_x")), Ok(Some("tdg_x".into())));
        assert_eq!(check(Some("bearer  tdg_x ")), Ok(Some("tdg_x".into())));
        assert_eq!(check(Some("Basic dXNlcjpwYXNz")), Err(()));
        assert_eq!(check(Some("Bearer")), Err(()));
        assert_eq!(check(Some("Bearer ")), Err(()));
    }

    #[test]
    fn the_login_cookie_is_found_among_others() {
        let check = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for v in values {
                headers.append(header::COOKIE, HeaderValue::from_str(v).unwrap());
            }
            cookie(&headers, COOKIE)
        };
        assert_eq!(check(&[]), None);
        assert_eq!(check(&["tidings_key=tdg_x"]), Some("tdg_x".into()));
        assert_eq!(
            check(&["a=1; tidings_key=tdg_y; b=2"]),
            Some("tdg_y".into())
        );
        assert_eq!(
            check(&["a=1", "tidings_key=\"tdg_z\""]),
            Some("tdg_z".into())
        );
        assert_eq!(check(&["tidings_key="]), None, "logged out");
        assert_eq!(check(&["other_tidings_key=tdg_x"]), None);
    }

    #[test]
    fn the_bucket_allows_a_burst_then_one_per_interval() {
        let rate = RateLimit {
            burst: 3,
            refill_every: Duration::from_secs(10),
        };
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let mut bucket = Bucket::full(rate, at(0));
        for _ in 0..3 {
            assert_eq!(bucket.take(rate, at(0)), Ok(()));
        }
        assert_eq!(bucket.take(rate, at(0)), Err(Duration::from_secs(10)));
        assert_eq!(bucket.take(rate, at(4)), Err(Duration::from_secs(6)));
        assert_eq!(bucket.take(rate, at(10)), Ok(()));
        assert_eq!(bucket.take(rate, at(12)), Err(Duration::from_secs(8)));
        // A long pause refills to the burst, never past it.
        for _ in 0..3 {
            assert_eq!(bucket.take(rate, at(1000)), Ok(()));
        }
        assert!(bucket.take(rate, at(1000)).is_err());
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up() {
        let response = too_many(Duration::from_millis(1500), TOO_MANY_FOR_KEY);
        assert_eq!(response.status(), 429);
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
        let response = too_many(Duration::ZERO, TOO_MANY_FOR_KEY);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
    }
}
