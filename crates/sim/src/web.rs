//! The simulated web: one HTTP/1.1 listener per virtual host on loopback addresses
//! 127.0.0.2–127.0.0.254, each serving its scripted [`Resource`]s and writing every exchange to
//! the [`Recorder`].
//!
//! A crawler reaches a host by name with `--resolve NAME:PORT:ADDR` ([`RunningWeb::resolve_args`]).
//! All of 127.0.0.0/8 is loopback on Linux, so no setup is needed. Dropping the [`RunningWeb`]
//! (or [`RunningWeb::shutdown`]) closes every listener and connection.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::behaviour::{self, Answer, Behaviour, BodyPlan, Context, Resource};
use crate::clock::SimClock;
use crate::content;
use crate::recorder::{Exchange, Header, Recorder};

/// Errors starting the web.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("two virtual hosts are named {0}")]
    DuplicateHost(String),
}

/// The lowest and highest last octet given to hosts without an explicit address.
const FIRST_OCTET: u8 = 2;
const LAST_OCTET: u8 = 254;

/// A virtual host to serve.
#[derive(Debug, Clone)]
pub struct HostSpec {
    /// The name the crawler uses in URLs (`feeds.example`).
    pub name: String,
    /// The loopback address to listen on; `None` picks the next of 127.0.0.2–254 in turn.
    pub addr: Option<Ipv4Addr>,
    /// The port; 0 lets the system choose.
    pub port: u16,
    /// Resources by path (or path and query, which is tried first).
    pub resources: HashMap<String, Resource>,
    /// Behaviours put before every resource's own, unknown paths included (a host-wide refusal,
    /// throttle, delay or silence). Request counts stay per resource.
    pub everywhere: Vec<Behaviour>,
}

impl HostSpec {
    /// A host with no resources (everything 404) on a chosen address and port.
    pub fn new(name: &str) -> HostSpec {
        HostSpec {
            name: name.into(),
            addr: None,
            port: 0,
            resources: HashMap::new(),
            everywhere: Vec::new(),
        }
    }

    /// Serve `resource` at `path`.
    pub fn at(mut self, path: &str, resource: Resource) -> HostSpec {
        self.resources.insert(path.into(), resource);
        self
    }

    /// Apply `behaviour` to every path of the host, ahead of each resource's own.
    pub fn everywhere(mut self, behaviour: Behaviour) -> HostSpec {
        self.everywhere.push(behaviour);
        self
    }

    /// Listen on this address.
    pub fn on(mut self, addr: Ipv4Addr) -> HostSpec {
        self.addr = Some(addr);
        self
    }
}

/// Starts webs.
#[derive(Debug)]
pub struct Web;

impl Web {
    /// Serve `hosts` with a manual scenario clock ([`SimClock::fixed`]).
    pub async fn start(hosts: Vec<HostSpec>) -> Result<RunningWeb, SimError> {
        Web::start_with(hosts, SimClock::fixed()).await
    }

    /// Serve `hosts` in the scenario time of `clock`.
    pub async fn start_with(hosts: Vec<HostSpec>, clock: SimClock) -> Result<RunningWeb, SimError> {
        let recorder = Recorder::new(clock.clone());
        let mut listeners = Vec::with_capacity(hosts.len());
        let mut table = HashMap::new();
        let octets = LAST_OCTET - FIRST_OCTET + 1;
        for (i, spec) in hosts.into_iter().enumerate() {
            let auto = FIRST_OCTET + u8::try_from(i % usize::from(octets)).unwrap_or(0);
            let ip = spec.addr.unwrap_or(Ipv4Addr::new(127, 0, 0, auto));
            let want = SocketAddr::new(IpAddr::V4(ip), spec.port);
            let listener = TcpListener::bind(want)
                .await
                .map_err(|source| SimError::Bind { addr: want, source })?;
            let addr = listener
                .local_addr()
                .map_err(|source| SimError::Bind { addr: want, source })?;
            if table.insert(spec.name.clone(), addr).is_some() {
                return Err(SimError::DuplicateHost(spec.name));
            }
            listeners.push((spec, addr, listener));
        }
        let table = Arc::new(table);
        let mut hosts = Vec::with_capacity(listeners.len());
        let mut tasks = Vec::with_capacity(listeners.len());
        for (spec, addr, listener) in listeners {
            let host = Arc::new(HostState {
                name: spec.name.clone(),
                local: addr,
                resources: RwLock::new(
                    spec.resources
                        .into_iter()
                        .map(|(path, r)| (path, Served::new(r)))
                        .collect(),
                ),
                everywhere: spec.everywhere,
                clock: clock.clone(),
                recorder: recorder.clone(),
                table: table.clone(),
            });
            tasks.push(tokio::spawn(accept_loop(listener, host.clone())));
            hosts.push(host);
        }
        Ok(RunningWeb {
            hosts,
            recorder,
            clock,
            tasks,
        })
    }
}

/// A web being served. Dropping it stops everything.
#[derive(Debug)]
pub struct RunningWeb {
    hosts: Vec<Arc<HostState>>,
    recorder: Recorder,
    clock: SimClock,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningWeb {
    /// `NAME:PORT:ADDR` for every host, for the crawler's `--resolve`.
    pub fn resolve_args(&self) -> Vec<String> {
        self.hosts
            .iter()
            .map(|h| format!("{}:{}:{}", h.name, h.local.port(), h.local.ip()))
            .collect()
    }

    /// `http://NAME:PORT/path` on host `host`, or `None` if there is no such host.
    pub fn url(&self, host: &str, path: &str) -> Option<String> {
        let h = self.host(host)?;
        Some(format!("http://{}:{}{}", h.name, h.local.port(), path))
    }

    /// The address host `host` listens on.
    pub fn addr(&self, host: &str) -> Option<SocketAddr> {
        self.host(host).map(|h| h.local)
    }

    /// Host names in the order given.
    pub fn host_names(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.name.clone()).collect()
    }

    /// Replace (or add) the resource at `path` on `host`; false if there is no such host.
    pub fn set(&self, host: &str, path: &str, resource: Resource) -> bool {
        let Some(h) = self.host(host) else {
            return false;
        };
        h.resources
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.into(), Served::new(resource));
        true
    }

    /// Take host `host` off the network: its listener closes and its open connections drop,
    /// so new connections are refused. False if there is no such host.
    pub fn stop_host(&self, host: &str) -> bool {
        let Some(i) = self.hosts.iter().position(|h| h.name == host) else {
            return false;
        };
        if let Some(task) = self.tasks.get(i) {
            task.abort();
        }
        true
    }

    /// The recorder of this web.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The scenario clock of this web.
    pub fn clock(&self) -> &SimClock {
        &self.clock
    }

    /// Stop listening and drop every open connection.
    pub fn shutdown(self) {
        drop(self);
    }

    fn host(&self, name: &str) -> Option<&Arc<HostState>> {
        self.hosts.iter().find(|h| h.name == name)
    }
}

impl Drop for RunningWeb {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

#[derive(Debug)]
struct HostState {
    name: String,
    local: SocketAddr,
    resources: RwLock<HashMap<String, Served>>,
    everywhere: Vec<Behaviour>,
    clock: SimClock,
    recorder: Recorder,
    table: Arc<HashMap<String, SocketAddr>>,
}

/// A resource with its request counter.
#[derive(Debug, Clone)]
struct Served {
    resource: Arc<Resource>,
    hits: Arc<AtomicU64>,
}

impl Served {
    fn new(resource: Resource) -> Served {
        Served {
            resource: Arc::new(resource),
            hits: Arc::default(),
        }
    }
}

async fn accept_loop(listener: TcpListener, host: Arc<HostState>) {
    // Owned here, so aborting this task drops (and aborts) every connection.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of descriptors or similar: let connections finish before retrying.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let host = host.clone();
                connections.spawn(async move {
                    // The exchange served last on this connection.
                    let last = Arc::new(AtomicU64::new(NO_EXCHANGE));
                    let recorder = host.recorder.clone();
                    let latest = last.clone();
                    let service = service_fn(move |req| {
                        let (host, latest) = (host.clone(), latest.clone());
                        async move { Ok::<_, Infallible>(handle(host, peer, req, &latest).await) }
                    });
                    let mut builder = hyper::server::conn::http1::Builder::new();
                    builder.keep_alive(true).auto_date_header(false);
                    let (io, reset) = Watched::new(stream);
                    let _ = builder.serve_connection(TokioIo::new(io), service).await;
                    // A client that resets the connection after an answer was handed over left
                    // part of it unread (a client stopping at its body cap does): it did not
                    // take it all, and may have left long before the web finished writing.
                    let id = last.load(Ordering::Acquire);
                    if reset.load(Ordering::Acquire) && id != NO_EXCHANGE {
                        recorder.update(id, |e| e.completed = false);
                    }
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// A connection that notes whether the client reset it: hyper takes a reset while it waits for
/// the next request for a plain close, so the web watches the socket itself.
struct Watched {
    stream: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Watched {
    fn new(stream: TcpStream) -> (Watched, Arc<AtomicBool>) {
        let reset = Arc::new(AtomicBool::new(false));
        let watched = Watched {
            stream,
            reset: reset.clone(),
        };
        (watched, reset)
    }

    fn note<T>(&self, poll: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        if let Poll::Ready(Err(e)) = &poll
            && matches!(
                e.kind(),
                ErrorKind::ConnectionReset | ErrorKind::BrokenPipe | ErrorKind::ConnectionAborted
            )
        {
            self.reset.store(true, Ordering::Release);
        }
        poll
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        self.note(poll)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.note(poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.note(poll)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.note(poll)
    }
}

/// No exchange served yet on a connection.
const NO_EXCHANGE: u64 = u64::MAX;

async fn handle(
    host: Arc<HostState>,
    peer: SocketAddr,
    req: Request<Incoming>,
    latest: &AtomicU64,
) -> Response<SimBody> {
    let started = host.recorder.stamp();
    let target = req.uri().path_and_query().map_or_else(
        || req.uri().path().to_string(),
        |pq| pq.as_str().to_string(),
    );
    let headers: Vec<(String, Vec<u8>)> = req
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
        .collect();
    let id = host.recorder.begin(Exchange {
        id: 0,
        host: host.name.clone(),
        local: host.local,
        peer,
        method: req.method().as_str().to_string(),
        target: target.clone(),
        headers: headers
            .iter()
            .map(|(n, v)| Header {
                name: n.clone(),
                value: v.clone(),
            })
            .collect(),
        status: None,
        response_headers: Vec::new(),
        body_bytes: 0,
        started,
        responded: None,
        ended: None,
        completed: false,
    });
    latest.store(id, Ordering::Release);
    let guard = Finish {
        recorder: host.recorder.clone(),
        id,
        completed: false,
        bytes: 0,
    };

    let served = {
        let resources = host
            .resources
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let path = req.uri().path();
        resources
            .get(&target)
            .or_else(|| resources.get(path))
            .cloned()
    };
    let hit = served
        .as_ref()
        .map_or(1, |s| s.hits.fetch_add(1, Ordering::Relaxed) + 1);
    let plan = {
        let port_of = |name: &str| host.table.get(name).map(|a| a.port());
        let cx = Context {
            peer,
            headers: &headers,
            hit,
            elapsed: host.clock.elapsed(),
            start: host.clock.start(),
            host: &host.name,
            port_of: &port_of,
            clock: &host.clock,
        };
        let own = served.as_ref().map(|s| s.resource.as_ref());
        if host.everywhere.is_empty() {
            behaviour::plan(own, &cx)
        } else {
            let mut behaviours = host.everywhere.clone();
            behaviours.extend(
                own.map(|r| r.behaviours.iter().cloned())
                    .into_iter()
                    .flatten(),
            );
            behaviour::plan(Some(&Resource { behaviours }), &cx)
        }
    };
    if !plan.delay.is_zero() {
        tokio::time::sleep(plan.delay).await;
    }
    let (status, pairs, body) = match plan.answer {
        Answer::Silent => {
            // Until the client gives up: then hyper drops this future and `guard` records the end.
            let never = std::future::pending::<Infallible>().await;
            match never {}
        }
        Answer::Respond {
            status,
            headers,
            body,
        } => (status, headers, body),
    };
    let mut response = Response::new(SimBody::empty());
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut recorded = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            recorded.push(Header::new(n.as_str(), v.as_bytes()));
            response.headers_mut().append(n, v);
        }
    }
    let responded = host.recorder.stamp();
    host.recorder.update(id, |e| {
        e.status = Some(status);
        e.response_headers = recorded;
        e.responded = Some(responded);
    });
    // A HEAD answer has no body; sending none lets the exchange count as completed.
    let body = if req.method() == hyper::Method::HEAD {
        BodyPlan::Empty
    } else {
        body
    };
    *response.body_mut() = SimBody::new(body, plan.trickle, guard);
    response
}

/// Records the end of an exchange when dropped.
#[derive(Debug)]
struct Finish {
    recorder: Recorder,
    id: u64,
    completed: bool,
    bytes: u64,
}

impl Drop for Finish {
    fn drop(&mut self) {
        let ended = self.recorder.stamp();
        let (completed, bytes) = (self.completed, self.bytes);
        self.recorder.update(self.id, |e| {
            e.ended = Some(ended);
            e.completed = completed;
            e.body_bytes = bytes;
        });
    }
}

/// A response body that streams its plan, optionally trickled, and records when it was fully
/// handed over.
#[derive(Debug)]
pub(crate) struct SimBody {
    head: Option<Bytes>,
    /// Bytes still to send after `head`; `None` is endless.
    remaining: Option<u64>,
    /// Whether the body is filler (huge, endless) rather than `head` alone.
    filler: bool,
    /// Taken from the source but not yet sent (trickling).
    carry: Bytes,
    trickle: Option<(usize, Duration)>,
    wait: Option<Pin<Box<tokio::time::Sleep>>>,
    finish: Option<Finish>,
}

impl SimBody {
    fn empty() -> SimBody {
        SimBody {
            head: None,
            remaining: Some(0),
            filler: false,
            carry: Bytes::new(),
            trickle: None,
            wait: None,
            finish: None,
        }
    }

    fn new(plan: BodyPlan, trickle: Option<(usize, Duration)>, finish: Finish) -> SimBody {
        let (head, remaining, filler) = match plan {
            BodyPlan::Empty => (None, Some(0), false),
            BodyPlan::Full(b) => (Some(b), Some(0), false),
            BodyPlan::Huge(len) => {
                let head = content::filler_head();
                let head_len = head.len() as u64;
                if len <= head_len {
                    let cut = usize::try_from(len).unwrap_or(0);
                    (Some(head.slice(..cut)), Some(0), false)
                } else {
                    (Some(head), Some(len - head_len), true)
                }
            }
            BodyPlan::Endless => (Some(content::filler_head()), None, true),
        };
        SimBody {
            head,
            remaining,
            filler,
            carry: Bytes::new(),
            trickle,
            wait: None,
            finish: Some(finish),
        }
    }

    fn exhausted(&self) -> bool {
        self.head.is_none() && self.remaining == Some(0) && self.carry.is_empty()
    }

    /// The next piece of the source, `None` at its end.
    fn next_piece(&mut self) -> Option<Bytes> {
        if let Some(head) = self.head.take() {
            return Some(head);
        }
        if !self.filler {
            return None;
        }
        let unit = content::filler_unit();
        match self.remaining {
            Some(0) => None,
            Some(rest) => {
                let n = usize::try_from(rest).unwrap_or(usize::MAX).min(unit.len());
                self.remaining = Some(rest - n as u64);
                Some(unit.slice(..n))
            }
            None => Some(unit),
        }
    }

    fn send(&mut self, piece: Bytes) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(f) = self.finish.as_mut() {
            f.bytes = f.bytes.saturating_add(piece.len() as u64);
        }
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        if this.carry.is_empty() {
            match this.next_piece() {
                Some(piece) => this.carry = piece,
                None => return Poll::Ready(None),
            }
        }
        let Some((bytes, every)) = this.trickle else {
            let piece = std::mem::take(&mut this.carry);
            return this.send(piece);
        };
        let wait = this
            .wait
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(every)));
        if wait.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        this.wait = None;
        let piece = this.carry.split_to(bytes.min(this.carry.len()));
        this.send(piece)
    }

    fn is_end_stream(&self) -> bool {
        self.exhausted()
    }

    fn size_hint(&self) -> SizeHint {
        match self.remaining {
            Some(rest) => {
                let head = self.head.as_ref().map_or(0, |h| h.len() as u64);
                let carry = self.carry.len() as u64;
                SizeHint::with_exact(head.saturating_add(carry).saturating_add(rest))
            }
            None => SizeHint::default(),
        }
    }
}

impl Drop for SimBody {
    fn drop(&mut self) {
        let done = self.exhausted();
        if let Some(f) = self.finish.as_mut() {
            f.completed = done;
        }
    }
}
