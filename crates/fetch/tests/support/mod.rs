//! A tiny HTTP/1.1 publisher on 127.0.0.1 for the fetcher's tests: it records every request's
//! raw header bytes and answers with canned bytes, including the malformed, slow and endless
//! answers a real server would never send on purpose. One request per connection.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tidings_fetch::{FetchConfig, FetchOutcome, FetchRequest, FetchResponse, Fetcher};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

/// The User-Agent every test fetcher sends.
pub const UA: &str = "tidings-test/0.1 (+http://tidings.example.test/bot)";

/// One request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub target: String,
    /// Header names lowercased, values exactly as received.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The address the request came from.
    pub peer: Option<SocketAddr>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    pub fn path(&self) -> &str {
        &self.target
    }
}

/// What the server does after reading a request.
pub enum Reply {
    /// Write these bytes, then close.
    Raw(Vec<u8>),
    /// Write the head, then chunks of zeros for as long as the client reads.
    Endless { head: Vec<u8> },
    /// Write the head (maybe part of a body), then hold the connection open and send nothing.
    Stall { head: Vec<u8> },
    /// Read the request and close without a byte of answer.
    Hangup,
}

type Handler = dyn Fn(&Recorded, SocketAddr) -> Reply + Send + Sync;

/// A running test server.
pub struct Server {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    pub async fn start(
        handler: impl Fn(&Recorded, SocketAddr) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = match TcpListener::bind("127.0.0.1:0").await {
            Ok(l) => l,
            Err(e) => panic!("cannot bind a test server: {e}"),
        };
        let addr = match listener.local_addr() {
            Ok(a) => a,
            Err(e) => panic!("no local address: {e}"),
        };
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let recorded = requests.clone();
        tokio::spawn(async move {
            while let Ok((stream, peer)) = listener.accept().await {
                let handler = handler.clone();
                let recorded = recorded.clone();
                tokio::spawn(async move { serve(stream, addr, peer, handler, recorded).await });
            }
        });
        Server { addr, requests }
    }

    pub fn url(&self, path: &str) -> Url {
        parse(&format!("http://{}{path}", self.addr))
    }

    pub fn requests(&self) -> Vec<Recorded> {
        match self.requests.lock() {
            Ok(r) => r.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

async fn serve(
    mut stream: TcpStream,
    addr: SocketAddr,
    peer: SocketAddr,
    handler: Arc<Handler>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
) {
    let Some(mut request) = read_request(&mut stream).await else {
        return;
    };
    request.peer = Some(peer);
    let reply = handler(&request, addr);
    match recorded.lock() {
        Ok(mut r) => r.push(request),
        Err(p) => p.into_inner().push(request),
    }
    match reply {
        Reply::Raw(bytes) => {
            let _ = stream.write_all(&bytes).await;
            let _ = stream.shutdown().await;
        }
        Reply::Endless { head } => {
            if stream.write_all(&head).await.is_err() {
                return;
            }
            let chunk = vec![b'0'; 64 * 1024];
            let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
            framed.extend_from_slice(&chunk);
            framed.extend_from_slice(b"\r\n");
            while stream.write_all(&framed).await.is_ok() {}
        }
        Reply::Stall { head } => {
            let _ = stream.write_all(&head).await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Reply::Hangup => {}
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.ok()?;
        if n == 0 || buf.len() > 64 * 1024 {
            return None;
        }
        buf.extend_from_slice(byte.get(..n)?);
    }
    let mut lines = buf
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let request_line = String::from_utf8_lossy(lines.next()?).into_owned();
    let mut parts = request_line.split(' ');
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            let colon = l.iter().position(|&b| b == b':')?;
            let (name, value) = l.split_at(colon);
            let value = value.get(1..)?.trim_ascii();
            Some((
                String::from_utf8_lossy(name).to_ascii_lowercase(),
                value.to_vec(),
            ))
        })
        .collect();
    Some(Recorded {
        method,
        target,
        headers,
        peer: None,
    })
}

/// A complete answer with Content-Length and `Connection: close`.
pub fn response(status: u16, headers: &[(&str, &[u8])], body: &[u8]) -> Vec<u8> {
    let mut out = head(status, headers);
    // `head` ends with the blank line; insert Content-Length before it.
    out.truncate(out.len() - 2);
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// A status line and headers (plus `Connection: close`), ending with the blank line.
pub fn head(status: u16, headers: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} Status\r\nconnection: close\r\n").into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

pub fn parse(url: &str) -> Url {
    match Url::parse(url) {
        Ok(u) => u,
        Err(e) => panic!("bad test url {url}: {e}"),
    }
}

/// The test configuration: private networks allowed, generous timeouts.
pub fn config() -> FetchConfig {
    let mut config = FetchConfig::new(UA);
    config.allow_private_networks = true;
    config.total_timeout = Duration::from_secs(20);
    config.connect_timeout = Duration::from_secs(5);
    config
}

pub fn fetcher(config: FetchConfig) -> Fetcher {
    match Fetcher::new(config) {
        Ok(f) => f,
        Err(e) => panic!("cannot build the fetcher: {e}"),
    }
}

pub async fn get(fetcher: &Fetcher, url: Url) -> FetchResponse {
    fetcher.fetch(&FetchRequest::new(url)).await
}

/// The body of a `Fetched` outcome, or a panic naming what came instead.
pub fn body(outcome: &FetchOutcome) -> &[u8] {
    match outcome {
        FetchOutcome::Fetched(f) => &f.body,
        other => panic!("expected a fetched body, got {other:?}"),
    }
}
