//! The [`Fetcher`]: one reqwest client, one logical read per call.
//!
//! reqwest's own redirects, retries and proxies are off: one read is one request per hop, and
//! every hop is checked by the address guard before it is sent (C1, C8, WFM4). The whole read,
//! hops and body included, runs under one deadline.
//!
//! When the deadline cuts a read short after a response head arrived, the outcome is a failed
//! answer (`FailedAnswer { Stalled }`), not silence: only silence may be tried again early.
//!
//! A read that ends far past its own deadline was not timed out by the publisher: the process
//! was not running (SIGSTOP, a suspended machine, a starved runtime), so the timer could not
//! fire. [`overran`] says so when the read took longer than its time-out plus a margin of one
//! more time-out (at least [`PAUSE_MARGIN_FLOOR`]), by the monotonic clock or the wall clock,
//! whichever ran more (the monotonic one may stand still while a machine sleeps). A time-out,
//! a broken connection or a failed answer such a read ended in becomes `CrawlerPaused`, which
//! blames nobody; a status that did arrive is kept. A wall clock stepped forward mid-read can
//! pass for a pause too: then a read is simply repeated soon, unblamed.

use crate::body::read_capped;
use crate::classify::classify;
use crate::config::{ACCEPT, FetchConfig, FetchRequest};
use crate::guard::{GuardedResolver, check_target};
use crate::signing::WebBotAuthHeaders;
use crate::transport::no_answer;
use chrono::{DateTime, Utc};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Client, StatusCode};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tidings_model::{AnswerFailure, FetchOutcome, TransportError};
use url::Url;

/// One hop of a redirect chain that was followed.
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
    /// The last URL asked: the one that gave the final answer, or the one that was refused
    /// (`Blocked`) or gave no answer (`Transport`).
    pub final_url: Url,
    /// Redirect hops followed, in order (a refused redirect target is included).
    pub redirects: Vec<Hop>,
    /// Body bytes received (after decompression); 0 when no body was read.
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

/// Sends requests. Cheap to share behind an `Arc`; holds one connection pool per local
/// address (reqwest binds a client, not a request, to an address).
pub struct Fetcher {
    config: FetchConfig,
    client: Client,
    /// One client per configured egress address.
    bound: HashMap<IpAddr, Client>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What a read accumulates while it runs, kept when the deadline cuts it short.
struct Trace {
    final_url: Url,
    redirects: Vec<Hop>,
    bytes: u64,
    /// The status of the final answer once its head arrived (its body may still be coming).
    answered: Option<u16>,
}

/// The least lateness past a read's deadline that means the process was not running: far
/// more than any timer's delay on a busy machine.
pub const PAUSE_MARGIN_FLOOR: Duration = Duration::from_secs(2);

/// How far past its deadline `limit` a read that took `elapsed` ended, when that is more than
/// a timer on a running process is ever late (one more `limit`, at least
/// [`PAUSE_MARGIN_FLOOR`]): the process was paused. `None` for an ordinary read (pure).
pub fn overran(limit: Duration, elapsed: Duration) -> Option<Duration> {
    let margin = limit.max(PAUSE_MARGIN_FLOOR);
    let late = elapsed.checked_sub(limit)?;
    (late > margin).then_some(late)
}

/// Whether `outcome` is one a stopped process could have caused by not reading in time: a
/// time-out, a connection the server gave up on, a body that did not arrive.
fn spoiled_by_time(outcome: &FetchOutcome) -> bool {
    matches!(
        outcome,
        FetchOutcome::Transport(_)
            | FetchOutcome::FailedAnswer {
                failure: AnswerFailure::Stalled,
                ..
            }
            | FetchOutcome::BadBody { .. }
    )
}

impl Fetcher {
    /// Build the client: fixed User-Agent and Accept, no redirects, retries or proxies,
    /// rustls with the ring provider, the guarded resolver.
    pub fn new(config: FetchConfig) -> Result<Fetcher, FetchError> {
        let client = build_client(&config, None)?;
        let bound = config
            .egress
            .iter()
            .map(|&ip| Ok((ip, build_client(&config, Some(ip))?)))
            .collect::<Result<_, FetchError>>()?;
        Ok(Fetcher {
            config,
            client,
            bound,
        })
    }

    /// The configuration this fetcher was built with.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Read `request.url` once: follow redirects hop by hop, read a 2xx body under the cap,
    /// classify the answer. Never fails: every failure is an outcome.
    pub async fn fetch(&self, request: &FetchRequest) -> FetchResponse {
        let started_at = Utc::now();
        let clock = Instant::now();
        let mut trace = Trace {
            final_url: request.url.clone(),
            redirects: Vec::new(),
            bytes: 0,
            answered: None,
        };
        let limit = request.timeout.unwrap_or(self.config.total_timeout);
        let outcome = match tokio::time::timeout(limit, self.follow(request, &mut trace)).await {
            Ok(outcome) => outcome,
            Err(_) => match trace.answered {
                Some(status) => FetchOutcome::FailedAnswer {
                    status: Some(status),
                    failure: AnswerFailure::Stalled,
                },
                None => FetchOutcome::Transport(TransportError::Timeout),
            },
        };
        let wall = (Utc::now() - started_at).to_std().unwrap_or(Duration::ZERO);
        let outcome = match overran(limit, clock.elapsed().max(wall)) {
            Some(late) if spoiled_by_time(&outcome) => {
                tracing::warn!(
                    feed_url = %request.url,
                    outcome = outcome.label().as_str(),
                    late_secs = late.as_secs(),
                    "the read ended far past its time-out: the crawler was paused"
                );
                FetchOutcome::CrawlerPaused {
                    overran_secs: late.as_secs(),
                }
            }
            _ => outcome,
        };
        let response = FetchResponse {
            outcome,
            final_url: trace.final_url,
            redirects: trace.redirects,
            bytes: trace.bytes,
            started_at,
            duration: clock.elapsed(),
        };
        tracing::debug!(
            feed_url = %request.url,
            final_url = %response.final_url,
            outcome = response.outcome.label().as_str(),
            status = response.outcome.status(),
            bytes = response.bytes,
            hops = response.redirects.len(),
            "fetched"
        );
        response
    }

    async fn follow(&self, request: &FetchRequest, trace: &mut Trace) -> FetchOutcome {
        let mut url = request.url.clone();
        loop {
            trace.final_url = url.clone();
            if let Some(check) = &request.check
                && let Err(reason) = check(&url)
            {
                return FetchOutcome::Blocked { reason };
            }
            if let Err(refusal) = check_target(&url, self.config.allow_private_networks) {
                return FetchOutcome::Blocked { reason: refusal.0 };
            }
            let client = match request.egress {
                None => &self.client,
                Some(ip) => match self.bound.get(&ip) {
                    Some(client) => client,
                    None => {
                        return FetchOutcome::Blocked {
                            reason: format!("egress {ip} is not one of the configured addresses"),
                        };
                    }
                },
            };
            let signature = match &self.config.signer {
                None => None,
                Some(signer) => match signer.sign(&url) {
                    Ok(headers) => Some(headers),
                    Err(reason) => return FetchOutcome::Blocked { reason },
                },
            };
            let response = match self.send(client, &url, request, signature).await {
                Ok(response) => response,
                Err(e) => return no_answer(&e),
            };
            let status = response.status();
            if request.follow_redirects
                && let Some(next) = redirect_target(status, response.headers(), &url)
            {
                let seen = next == request.url || trace.redirects.iter().any(|hop| hop.to == next);
                if !seen && trace.redirects.len() < usize::from(self.config.max_redirects) {
                    trace.redirects.push(Hop {
                        status: status.as_u16(),
                        from: url,
                        to: next.clone(),
                    });
                    url = next;
                    continue;
                }
            }
            let headers = response.headers().clone();
            trace.answered = Some(status.as_u16());
            let body = if status.is_success() {
                let cap = request
                    .max_body_bytes
                    .map_or(self.config.max_body_bytes, |m| {
                        m.min(self.config.max_body_bytes)
                    });
                read_capped(response, cap, request.keep_prefix, &mut trace.bytes).await
            } else {
                Ok(Vec::new())
            };
            return classify(status.as_u16(), &headers, body);
        }
    }

    async fn send(
        &self,
        client: &Client,
        url: &Url,
        request: &FetchRequest,
        signature: Option<WebBotAuthHeaders>,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let validators = &request.validators;
        let mut builder = match &request.form {
            None => client.get(url.clone()),
            Some(form) => {
                let body = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(form)
                    .finish();
                client
                    .post(url.clone())
                    .header(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/x-www-form-urlencoded"),
                    )
                    .body(body)
            }
        };
        // Web Bot Auth (SR11): the values are ASCII built here, so each is a valid header.
        if let Some(signed) = signature {
            for (name, value) in [
                ("signature-agent", signed.signature_agent),
                ("signature-input", signed.signature_input),
                ("signature", signed.signature),
            ] {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    builder = builder.header(name, value);
                }
            }
        }
        if let Some(agent) = request
            .user_agent
            .as_deref()
            .and_then(|ua| HeaderValue::from_str(ua).ok())
        {
            builder = builder.header(header::USER_AGENT, agent);
        }
        if let Some(timeout) = request.timeout {
            builder = builder.timeout(timeout);
        }
        // Byte for byte as stored (C4); a stored value that is not a valid header is not sent.
        if let Some(etag) = validators
            .etag
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            builder = builder.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(date) = validators
            .last_modified
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            builder = builder.header(header::IF_MODIFIED_SINCE, date);
        }
        builder.send().await
    }
}

/// A client with the fixed headers and bounds of `config`, sending from `local` when given.
fn build_client(config: &FetchConfig, local: Option<IpAddr>) -> Result<Client, FetchError> {
    let user_agent = HeaderValue::from_str(&config.user_agent)
        .map_err(|_| FetchError::Client("the user agent is not a valid header value".to_owned()))?;
    let mut headers = HeaderMap::new();
    headers.insert(header::USER_AGENT, user_agent);
    headers.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT));
    Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .retry(reqwest::retry::never())
        .no_proxy()
        .connect_timeout(config.connect_timeout)
        .timeout(config.total_timeout)
        .dns_resolver(GuardedResolver::new(
            &config.resolve,
            config.allow_private_networks,
        ))
        .local_address(local)
        .tls_backend_preconfigured(tls_config()?)
        .build()
        .map_err(|e| FetchError::Client(crate::transport::error_text(&e)))
}

impl FetchResponse {
    /// Where this answer redirects to, when it is a followable redirect (301, 302, 303, 307,
    /// 308 with a usable Location) that was not followed: for a caller that follows redirects
    /// itself (`FetchRequest::follow_redirects` off).
    pub fn redirect_target(&self) -> Option<Url> {
        match &self.outcome {
            // `classify` keeps the header lossily: a replacement character means it was not
            // UTF-8, which is no usable Location.
            FetchOutcome::Redirect {
                status,
                location: Some(location),
            } if !location.contains('\u{fffd}') => resolve(*status, location, &self.final_url),
            _ => None,
        }
    }
}

/// The URL a followable redirect (301, 302, 303, 307, 308 with a usable Location) points to.
fn redirect_target(status: StatusCode, headers: &HeaderMap, current: &Url) -> Option<Url> {
    let location = headers.get(header::LOCATION)?;
    let location = std::str::from_utf8(location.as_bytes()).ok()?;
    resolve(status.as_u16(), location, current)
}

fn resolve(status: u16, location: &str, current: &Url) -> Option<Url> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let mut next = current.join(location.trim()).ok()?;
    next.set_fragment(None);
    Some(next)
}

/// rustls with the ring provider and the platform's roots; HTTP/2 offered by ALPN.
fn tls_config() -> Result<rustls::ClientConfig, FetchError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
        .map_err(|e| FetchError::Client(format!("tls verifier: {e}")))?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| FetchError::Client(format!("tls versions: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FetchConfig;

    fn url(s: &str) -> Url {
        match Url::parse(s) {
            Ok(u) => u,
            Err(e) => panic!("bad test url {s}: {e}"),
        }
    }

    fn location(value: &[u8]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        match HeaderValue::from_bytes(value) {
            Ok(v) => {
                headers.insert(header::LOCATION, v);
            }
            Err(e) => panic!("bad test location: {e}"),
        }
        headers
    }

    #[test]
    fn c1_a_user_agent_that_is_not_a_header_value_is_refused() {
        assert!(Fetcher::new(FetchConfig::new("bot\r\nX-Injected: 1")).is_err());
        assert!(
            Fetcher::new(FetchConfig::new(
                "tidings/0.1 (+https://tidings.example/bot)"
            ))
            .is_ok()
        );
    }

    #[test]
    fn c8_a_read_far_past_its_deadline_means_the_crawler_was_paused() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        // (row, limit, elapsed, overran)
        let cases = [
            ("on time", s(30), s(30), None),
            ("an ordinary timer delay", s(30), ms(30_250), None),
            ("a busy machine, one whole limit late", s(30), s(60), None),
            (
                "more than a limit late: stopped",
                s(30),
                ms(60_001),
                Some(ms(30_001)),
            ),
            (
                "stopped for ten minutes (SIGSTOP)",
                s(30),
                s(630),
                Some(s(600)),
            ),
            ("a short limit keeps the floor", ms(100), ms(2_100), None),
            (
                "a short limit past the floor",
                ms(100),
                ms(2_200),
                Some(ms(2_100)),
            ),
            ("the second attempt's patience", s(60), s(120), None),
            ("the second attempt, stopped", s(60), s(400), Some(s(340))),
            ("a read that ended early", s(30), s(1), None),
            ("no limit to speak of", Duration::ZERO, s(3), Some(s(3))),
            ("the largest durations", Duration::MAX, Duration::MAX, None),
        ];
        for (row, limit, elapsed, want) in cases {
            assert_eq!(overran(limit, elapsed), want, "{row}");
        }
    }

    #[test]
    fn redirect_targets() {
        let here = url("http://feeds.example.test/a/b.xml");
        let target = |status: u16, value: &[u8]| match StatusCode::from_u16(status) {
            Ok(status) => redirect_target(status, &location(value), &here).map(|u| u.to_string()),
            Err(e) => panic!("bad status: {e}"),
        };
        assert_eq!(
            target(301, b"c.xml#x"),
            Some("http://feeds.example.test/a/c.xml".to_owned())
        );
        assert_eq!(
            target(308, b"  https://other.test/f  "),
            Some("https://other.test/f".to_owned())
        );
        assert_eq!(
            target(302, "/caf\u{e9}".as_bytes()),
            Some("http://feeds.example.test/caf%C3%A9".to_owned())
        );
        assert_eq!(target(302, b"/bad\xff"), None);
        assert_eq!(target(302, b"http://[::1"), None);
        assert_eq!(target(300, b"/c"), None);
        assert_eq!(target(304, b"/c"), None);
        assert_eq!(target(200, b"/c"), None);
    }
}
