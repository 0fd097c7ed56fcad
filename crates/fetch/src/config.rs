//! How a [`Fetcher`](crate::Fetcher) behaves and what one read asks for.
//!
//! The bounds of a request (timeouts, body cap, redirect hops) are a profile's
//! [`FetchLimits`] (`tidings_policy`, the home of every policy number); the configuration is
//! built once from resolved settings, and nothing here reads the environment.

use crate::botkeys::RequestSigner;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tidings_model::Validators;
use tidings_policy::profile::FetchLimits;
use url::Url;

/// The `Accept` header sent on every request: feed types first, anything else last.
pub const ACCEPT: &str = "application/rss+xml, application/atom+xml, application/feed+json, \
application/rdf+xml;q=0.9, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8";

/// How the fetcher behaves. Built once from resolved settings.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// The one User-Agent sent on every request, redirect hops included (C1).
    pub user_agent: String,
    /// Time allowed to establish one connection.
    pub connect_timeout: Duration,
    /// Time allowed for the whole read: all hops, headers and body.
    pub total_timeout: Duration,
    /// Largest body accepted, counted after decompression.
    pub max_body_bytes: u64,
    /// Redirect hops followed before the last 3xx is returned as the outcome.
    pub max_redirects: u8,
    /// Fixed name resolutions (`host`, `port`, address), like curl's `--resolve`.
    ///
    /// An override is looked up by host name alone (the resolver is not told the port) and wins
    /// over DNS, which is then never asked. The URL's explicit port is used to connect; a URL
    /// without a port connects to the override address's port (its scheme's port when that is 0).
    /// Overrides are operator configuration and are trusted: the address guard does not apply to
    /// them, which is how the simulated publishers on 127.0.0.x are reached with the guard on.
    pub resolve: Vec<(String, u16, SocketAddr)>,
    /// Allow loopback, private, link-local and other non-public targets (tests, local use).
    pub allow_private_networks: bool,
    /// Local addresses a request may be sent from besides the system's choice (WFM7, PF11);
    /// a request names one in [`FetchRequest::egress`].
    pub egress: Vec<IpAddr>,
    /// Sign every request, each redirect hop with its own authority (SR11, Web Bot Auth).
    pub signer: Option<Arc<RequestSigner>>,
}

impl FetchConfig {
    /// A configuration with the default [`FetchLimits`] and the given User-Agent.
    pub fn new(user_agent: impl Into<String>) -> FetchConfig {
        FetchConfig::with_limits(user_agent, &FetchLimits::default())
    }

    /// A configuration bounded by `limits` (a profile's `[fetch]`), with the given User-Agent
    /// and every other setting at its default.
    pub fn with_limits(user_agent: impl Into<String>, limits: &FetchLimits) -> FetchConfig {
        FetchConfig {
            user_agent: user_agent.into(),
            connect_timeout: Duration::from_secs(limits.connect_timeout),
            total_timeout: Duration::from_secs(limits.timeout),
            max_body_bytes: limits.max_body_bytes,
            max_redirects: limits.max_redirects,
            resolve: Vec::new(),
            allow_private_networks: false,
            egress: Vec::new(),
            signer: None,
        }
    }
}

/// A check run on every URL just before it is requested (the first and each redirect hop):
/// `Err(reason)` stops the read as `Blocked { reason }` and nothing is sent (FF13).
pub type HopCheck = Arc<dyn Fn(&Url) -> Result<(), String> + Send + Sync>;

/// One read of one URL.
#[derive(Clone)]
pub struct FetchRequest {
    /// The URL to read; only `http` and `https` are fetched.
    pub url: Url,
    /// Validators to echo byte for byte as If-None-Match / If-Modified-Since (C4); empty for an
    /// unconditional read. They are sent on every redirect hop too.
    pub validators: Validators,
    /// How long the whole read may take, when it must differ from the configured total
    /// timeout (the longer second attempt after no answer, WFM5).
    pub timeout: Option<Duration>,
    /// Follow redirects here, hop by hop up to the configured limit (`true`), or return the
    /// first 3xx as the outcome so that the caller follows it itself, checking each hop as a
    /// request of its own (`false`; see [`FetchResponse::redirect_target`](crate::FetchResponse::redirect_target)).
    pub follow_redirects: bool,
    /// Run before every request this read sends, redirect hops included.
    pub check: Option<HopCheck>,
    /// Send from this local address (one of [`FetchConfig::egress`]); `None`: the system's
    /// choice. Every hop of the read goes from the same address.
    pub egress: Option<IpAddr>,
    /// The User-Agent of this read, when it differs from [`FetchConfig::user_agent`] (a count
    /// of the feed's subscribers in it, PF10). Every hop of the read sends the same one (C1).
    pub user_agent: Option<String>,
    /// The most bytes of the body read, when less than [`FetchConfig::max_body_bytes`]: an
    /// article page's (SR1), an icon's or an image's. A longer body is `TooLarge`.
    pub max_body_bytes: Option<u64>,
    /// A body longer than the cap is read to the cap and kept so (its head is what is looked
    /// for: an article page's, SR1) instead of being `TooLarge`.
    pub keep_prefix: bool,
    /// Send a `POST` with this form (`application/x-www-form-urlencoded`) instead of a `GET`:
    /// a WebSub subscription asked of a hub. Its values may be secret (`hub.secret`), so its
    /// `Debug` lists only the names.
    pub form: Option<Vec<(String, String)>>,
}

impl std::fmt::Debug for FetchRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchRequest")
            .field("url", &self.url.as_str())
            .field("validators", &self.validators)
            .field("timeout", &self.timeout)
            .field("follow_redirects", &self.follow_redirects)
            .field("check", &self.check.is_some())
            .field("egress", &self.egress)
            .field("user_agent", &self.user_agent)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("keep_prefix", &self.keep_prefix)
            .field(
                "form",
                &self
                    .form
                    .as_ref()
                    .map(|f| f.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>()),
            )
            .finish()
    }
}

impl FetchRequest {
    /// An unconditional read of `url` that follows redirects, with no check of its own.
    pub fn new(url: Url) -> FetchRequest {
        FetchRequest {
            url,
            validators: Validators::default(),
            timeout: None,
            follow_redirects: true,
            check: None,
            egress: None,
            user_agent: None,
            max_body_bytes: None,
            keep_prefix: false,
            form: None,
        }
    }
}
