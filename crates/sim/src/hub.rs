//! A WebSub hub for tests, written apart from tidings' subscriber: it takes subscription
//! requests (`POST` of a form), answers 202, then verifies each subscriber's intent with a
//! `GET` to its callback (the challenge must come back as the body), and distributes content
//! to the verified subscribers of a topic, signed with each one's secret
//! (`X-Hub-Signature: sha256=<hex HMAC>`). It records every request it was sent.

use crate::client::{self, Answer};
use hmac::{Hmac, Mac};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a callback may take to answer the hub.
const CALLBACK_PATIENCE: Duration = Duration::from_secs(10);

/// One request the hub was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubRequest {
    pub method: String,
    pub target: String,
    /// The form fields of a `POST`, in order.
    pub form: Vec<(String, String)>,
    pub user_agent: Option<String>,
    pub content_type: Option<String>,
}

impl HubRequest {
    /// The first form field named `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A subscription the hub knows, verified or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubSubscription {
    pub callback: String,
    pub topic: String,
    pub secret: Option<String>,
    pub lease_seconds: u64,
    /// The callback echoed the challenge.
    pub verified: bool,
    /// What the callback answered the verification.
    pub verification_status: Option<u16>,
}

/// What the hub does with the next subscription requests.
#[derive(Debug, Clone, Default)]
struct Conduct {
    /// Deny them (`hub.mode=denied` sent to the callback) with this reason.
    deny: Option<String>,
    /// Answer the request with this status instead of 202 (and verify nothing).
    refuse: Option<u16>,
}

#[derive(Debug, Default)]
struct State {
    requests: Vec<HubRequest>,
    subscriptions: Vec<HubSubscription>,
    conduct: Conduct,
}

/// A running hub on `ip`.
pub struct Hub {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

/// One delivery of published content to a subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub callback: String,
    /// The callback's status, or `None` when it could not be reached.
    pub status: Option<u16>,
}

impl Hub {
    /// Start a hub listening on `ip` (a free port).
    pub async fn start(ip: IpAddr) -> std::io::Result<Hub> {
        let listener = TcpListener::bind(SocketAddr::new(ip, 0)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = shared.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, state).await;
                });
            }
        });
        Ok(Hub { addr, state, task })
    }

    /// The hub's URL, as a feed names it.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Every request the hub was sent, in order.
    pub fn requests(&self) -> Vec<HubRequest> {
        self.lock().requests.clone()
    }

    /// Every subscription, verified or not.
    pub fn subscriptions(&self) -> Vec<HubSubscription> {
        self.lock().subscriptions.clone()
    }

    /// Deny the subscription requests to come, with `reason`.
    pub fn deny(&self, reason: &str) {
        self.lock().conduct.deny = Some(reason.to_owned());
    }

    /// Answer the subscription requests to come with `status`, verifying nothing.
    pub fn refuse(&self, status: u16) {
        self.lock().conduct.refuse = Some(status);
    }

    /// Send `body` to every verified subscriber of `topic`, signed with its secret.
    pub async fn publish(&self, topic: &str, content_type: &str, body: &[u8]) -> Vec<Delivery> {
        self.distribute(topic, content_type, body, |secret| {
            secret.map(|s| format!("sha256={}", sign(s, body)))
        })
        .await
    }

    /// Send `body` to every verified subscriber of `topic` with `signature` as its
    /// `X-Hub-Signature` (none when `None`): a forged or unsigned push.
    pub async fn publish_signed_as(
        &self,
        topic: &str,
        content_type: &str,
        body: &[u8],
        signature: Option<&str>,
    ) -> Vec<Delivery> {
        self.distribute(topic, content_type, body, |_| signature.map(str::to_owned))
            .await
    }

    async fn distribute(
        &self,
        topic: &str,
        content_type: &str,
        body: &[u8],
        signature: impl Fn(Option<&str>) -> Option<String>,
    ) -> Vec<Delivery> {
        let subscribers: Vec<HubSubscription> = self
            .lock()
            .subscriptions
            .iter()
            .filter(|s| s.verified && s.topic == topic)
            .cloned()
            .collect();
        let mut deliveries = Vec::new();
        for sub in subscribers {
            let signed = signature(sub.secret.as_deref());
            let link = format!("<{}>; rel=\"hub\", <{topic}>; rel=\"self\"", self.url());
            let mut headers = vec![("Content-Type", content_type), ("Link", link.as_str())];
            if let Some(s) = signed.as_deref() {
                headers.push(("X-Hub-Signature", s));
            }
            let status = call(&sub.callback, "POST", &[], &headers, body)
                .await
                .map(|a| a.status);
            deliveries.push(Delivery {
                callback: sub.callback,
                status,
            });
        }
        deliveries
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The hex HMAC-SHA256 of `body` under `secret`.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac =
        <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(body);
    hex_of(&mac.finalize().into_bytes())
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Answer one connection: one request, then close.
async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) -> std::io::Result<()> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        if raw.len() > 64 * 1024 {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let target = first.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
        .min(1 << 20);
    let mut body = raw[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    let form: Vec<(String, String)> = if method == "POST" {
        url::form_urlencoded::parse(&body).into_owned().collect()
    } else {
        Vec::new()
    };
    let request = HubRequest {
        method,
        target,
        form,
        user_agent: header("user-agent"),
        content_type: header("content-type"),
    };
    let conduct = {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        s.requests.push(request.clone());
        s.conduct.clone()
    };
    let status = match (
        request.method.as_str(),
        request.field("hub.mode"),
        request.field("hub.callback"),
        request.field("hub.topic"),
    ) {
        ("POST", Some("subscribe"), Some(callback), Some(topic)) => match conduct.refuse {
            Some(status) => status,
            None => {
                let subscription = HubSubscription {
                    callback: callback.to_owned(),
                    topic: topic.to_owned(),
                    secret: request.field("hub.secret").map(str::to_owned),
                    lease_seconds: request
                        .field("hub.lease_seconds")
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(86_400),
                    verified: false,
                    verification_status: None,
                };
                tokio::spawn(verify(subscription, conduct.deny, state.clone()));
                202
            }
        },
        _ => 400,
    };
    let reason = match status {
        202 => "Accepted",
        400 => "Bad Request",
        _ => "Refused",
    };
    stream
        .write_all(
            format!("HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await?;
    stream.shutdown().await
}

/// Verify the intent of `sub` (or deny it), after answering its request, as hubs do.
async fn verify(mut sub: HubSubscription, deny: Option<String>, state: Arc<Mutex<State>>) {
    tokio::time::sleep(Duration::from_millis(50)).await;
    static CHALLENGES: AtomicU64 = AtomicU64::new(1);
    let challenge = format!("challenge-{}", CHALLENGES.fetch_add(1, Ordering::Relaxed));
    let lease = sub.lease_seconds.to_string();
    let query: Vec<(&str, &str)> = match &deny {
        Some(reason) => vec![
            ("hub.mode", "denied"),
            ("hub.topic", &sub.topic),
            ("hub.reason", reason),
        ],
        None => vec![
            ("hub.mode", "subscribe"),
            ("hub.topic", &sub.topic),
            ("hub.challenge", &challenge),
            ("hub.lease_seconds", &lease),
        ],
    };
    let answer = call(&sub.callback, "GET", &query, &[], b"").await;
    sub.verification_status = answer.as_ref().map(|a| a.status);
    sub.verified = deny.is_none()
        && answer
            .as_ref()
            .is_some_and(|a| (200..300).contains(&a.status) && a.body == challenge.as_bytes());
    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
    s.subscriptions
        .retain(|known| !(known.callback == sub.callback && known.topic == sub.topic));
    s.subscriptions.push(sub);
}

/// `method` the callback URL with `query` added to it.
async fn call(
    callback: &str,
    method: &str,
    query: &[(&str, &str)],
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<Answer> {
    let mut url = url::Url::parse(callback).ok()?;
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    let host = url.host_str()?.trim_matches(['[', ']']).to_owned();
    let port = url.port_or_known_default()?;
    let addr = tokio::net::lookup_host((host.as_str(), port))
        .await
        .ok()?
        .next()?;
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let authority = format!("{host}:{port}");
    let mut all = vec![("Host", authority.as_str())];
    all.extend_from_slice(headers);
    client::request(addr, method, &target, &all, body, CALLBACK_PATIENCE)
        .await
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_hex_hmac_sha256() {
        // RFC 4231, test case 2.
        assert_eq!(
            sign("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
