//! The HTTP/1.1 server `tidings serve` runs the router on, with the limits a public listener
//! needs against slow and many clients ([`ServerLimits`]).
//!
//! - A request's head must arrive within [`ServerLimits::header_read_timeout`], counted from
//!   when the server starts waiting for it (so an idle keep-alive connection is closed after
//!   as long): hyper's own timer.
//! - Its body must arrive within [`ServerLimits::body_read_timeout`] of the head: the body is
//!   wrapped in a deadline; past it the handler's read fails, the answer becomes a 408 problem
//!   and the connection is closed.
//! - At most [`ServerLimits::max_connections`] connections are open at once, and at most
//!   [`ServerLimits::max_connections_per_address`] from one client address (an IPv6 client by
//!   its /64, `crate::throttle::ClientKey`). A connection past either limit is answered a
//!   bare 503 (best effort, without reading it) and closed at once.
//!
//! Every request carries the client's address as axum's `ConnectInfo<SocketAddr>`; the limit
//! on failed key checks (`crate::throttle`) reads it. On shutdown the server stops accepting,
//! lets each connection finish the request it is answering, and returns once all are closed.

use crate::problem::{Problem, ProblemKind};
use crate::throttle::ClientKey;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, header};
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower_service::Service;

/// How long a client may take to send a request's head: 10 s is ages for a real client (a
/// head is one packet), and bounds what a slowloris connection holds.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's body after its head: the largest body the
/// API takes is an OPML import of 2 MiB, which 60 s carries over a slow mobile link.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Connections open at once: far above what one operator's readers and scrapers need, and far
/// below the 65,536 descriptors a default systemd unit allows.
pub const MAX_CONNECTIONS: usize = 1024;
/// Connections open at once from one address: a browser opens 6 per origin, a feed reader a
/// few; 64 leaves room for several people behind one NAT, yet one client takes a 16th of the
/// server at most.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 64;
/// After a failed `accept` (out of descriptors), wait this long before the next, rather than
/// spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// What a connection past a limit is told before it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
Connection: close\r\nContent-Length: 0\r\n\r\n";

/// The server's limits (`tidings serve --header-timeout-secs`, `--body-timeout-secs`,
/// `--max-connections`, `--max-connections-per-address`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    /// At least 1; at most `u32::MAX`.
    pub max_connections: usize,
    /// At least 1.
    pub max_connections_per_address: usize,
}

impl Default for ServerLimits {
    /// [`HEADER_READ_TIMEOUT`], [`BODY_READ_TIMEOUT`], [`MAX_CONNECTIONS`],
    /// [`MAX_CONNECTIONS_PER_ADDRESS`].
    fn default() -> ServerLimits {
        ServerLimits {
            header_read_timeout: HEADER_READ_TIMEOUT,
            body_read_timeout: BODY_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            max_connections_per_address: MAX_CONNECTIONS_PER_ADDRESS,
        }
    }
}

/// Serve `app` on `listener` within `limits` until `shutdown` completes, then finish the
/// requests in flight and return.
pub async fn serve<F>(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send,
{
    let max = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    let slots = Arc::new(Semaphore::new(max as usize));
    let addresses = Arc::new(Addresses::default());
    let (stop, stopped) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                    continue;
                }
            },
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(&stream, peer, "the server's connection limit");
            continue;
        };
        let Some(seat) = Seat::take(&addresses, peer, limits.max_connections_per_address) else {
            refuse(&stream, peer, "the connection limit per address");
            continue;
        };
        let app = app.clone();
        let stopped = stopped.clone();
        tokio::spawn(async move {
            connection(stream, peer, app, limits, stopped).await;
            drop(seat);
            drop(slot);
        });
    }
    let _ = stop.send(true);
    // Every connection holds a slot until it is closed.
    let _ = slots.acquire_many(max).await;
    Ok(())
}

/// Tell a connection past a limit so, without waiting for it, and close it.
fn refuse(stream: &TcpStream, peer: SocketAddr, limit: &str) {
    tracing::debug!(client = %peer.ip(), limit, "connection refused");
    let _ = stream.try_write(REFUSAL);
}

/// Open connections per client address.
#[derive(Debug, Default)]
struct Addresses(Mutex<HashMap<ClientKey, usize>>);

/// One open connection of an address, given back when dropped.
struct Seat {
    addresses: Arc<Addresses>,
    key: ClientKey,
}

impl Seat {
    /// A seat for `peer`'s address, unless it holds `limit` already.
    fn take(addresses: &Arc<Addresses>, peer: SocketAddr, limit: usize) -> Option<Seat> {
        let key = ClientKey::of(peer.ip());
        let mut open = addresses.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key).or_insert(0);
        if *count >= limit.max(1) {
            return None;
        }
        *count += 1;
        Some(Seat {
            addresses: addresses.clone(),
            key,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut open = self.addresses.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// Serve one connection until it closes, or until `stopped`, then let it finish its request.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    limits: ServerLimits,
    mut stopped: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let app = app.clone();
        async move {
            Ok::<_, std::convert::Infallible>(
                answer(app, request, peer, limits.body_read_timeout).await,
            )
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        () = async { let _ = stopped.wait_for(|stop| *stop).await; } => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        // A client that timed out or went away: nothing an operator must act on.
        tracing::debug!(client = %peer.ip(), error = %e, "connection ended");
    }
}

/// One request through the router, its body under a deadline and its client's address
/// attached.
async fn answer(
    mut app: Router,
    request: Request<Incoming>,
    peer: SocketAddr,
    body_timeout: Duration,
) -> Response {
    let expired = Arc::new(AtomicBool::new(false));
    let (mut parts, body) = request.into_parts();
    parts.extensions.insert(ConnectInfo(peer));
    let body = Body::new(Deadline {
        inner: body,
        sleep: Box::pin(tokio::time::sleep(body_timeout)),
        expired: expired.clone(),
        timeout: body_timeout,
    });
    let response = match app.call(Request::from_parts(parts, body)).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if !expired.load(Ordering::Relaxed) {
        return response;
    }
    tracing::info!(client = %peer.ip(), "request body too slow: connection closed");
    let mut response = Problem::new(
        ProblemKind::RequestTimeout,
        format!(
            "the request body did not arrive within {} s",
            body_timeout.as_secs_f64()
        ),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A request body that fails once its deadline has passed.
struct Deadline {
    inner: Incoming,
    sleep: Pin<Box<tokio::time::Sleep>>,
    /// Set when the deadline cut the body, so the answer becomes a 408.
    expired: Arc<AtomicBool>,
    timeout: Duration,
}

/// Why a request body could not be read.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error("the request body did not arrive within {0:?}")]
    TooSlow(Duration),
    #[error("cannot read the request body: {0}")]
    Read(#[from] hyper::Error),
}

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        // The deadline first: a body trickling in byte by byte is always ready with more.
        if this.sleep.as_mut().poll(cx).is_ready() {
            this.expired.store(true, Ordering::Relaxed);
            return Poll::Ready(Some(Err(BodyError::TooSlow(this.timeout))));
        }
        Pin::new(&mut this.inner)
            .poll_frame(cx)
            .map_err(BodyError::from)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
