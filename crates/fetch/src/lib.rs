//! The only code that sends requests to publishers (stub: being written).
//!
//! A [`Fetcher`] performs exactly one logical read of a URL (following redirects hop by hop,
//! at most [`FetchConfig::max_redirects`]) and returns a [`FetchResponse`] whose outcome is a
//! closed [`FetchOutcome`], built by the pure [`classify`] function.

use chrono::{DateTime, Utc};
use std::net::SocketAddr;
use std::time::Duration;
use tidings_model::{FetchOutcome, Validators};
use url::Url;

/// Default cap on a response body, after decompression: 10 MB.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
/// Default time to establish a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time for the whole request, body included.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(30);
/// Default limit of redirect hops followed in one read.
pub const DEFAULT_MAX_REDIRECTS: u8 = 5;

/// How the fetcher behaves. Built once from resolved settings.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// The one User-Agent sent on every request (C1).
    pub user_agent: String,
    pub connect_timeout: Duration,
    pub total_timeout: Duration,
    pub max_body_bytes: u64,
    pub max_redirects: u8,
    /// Fixed name resolutions (`host`, `port`, address), like curl's `--resolve`.
    pub resolve: Vec<(String, u16, SocketAddr)>,
    /// Allow loopback, private and link-local targets (tests, local use).
    pub allow_private_networks: bool,
}

/// One read of one URL.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    pub url: Url,
    /// Validators to echo as If-None-Match / If-Modified-Since; empty for an unconditional read.
    pub validators: Validators,
}

/// One hop of a redirect chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    pub status: u16,
    pub from: Url,
    pub to: Url,
}

/// What a read produced.
#[derive(Debug, Clone)]
pub struct FetchResponse {
    pub outcome: FetchOutcome,
    /// The URL that gave the final answer.
    pub final_url: Url,
    pub redirects: Vec<Hop>,
    /// Body bytes received (after decompression).
    pub bytes: u64,
    pub started_at: DateTime<Utc>,
    pub duration: Duration,
}

/// Building the client failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Sends requests.
pub struct Fetcher {
    _config: FetchConfig,
}

impl Fetcher {
    pub fn new(config: FetchConfig) -> Result<Fetcher, FetchError> {
        Ok(Fetcher { _config: config })
    }

    pub async fn fetch(&self, _request: &FetchRequest) -> FetchResponse {
        todo!("the fetcher is being written")
    }
}

/// Classify an answer into a [`FetchOutcome`] (pure).
pub fn classify(
    _status: u16,
    _headers: &reqwest::header::HeaderMap,
    _body: Vec<u8>,
) -> FetchOutcome {
    todo!("being written")
}
