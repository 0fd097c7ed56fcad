//! A raw HTTP/1.1 client for testing the simulated web: it sends exactly the bytes it is given,
//! so tests control every header byte, and it can bind to a chosen loopback source address.

#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tidings_sim::{Exchange, Recorder, RunningWeb};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

pub const UA: &str = "sim-test/1";

/// A response as read off the wire.
#[derive(Debug)]
pub struct Raw {
    pub status: u16,
    /// Names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Raw {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Connect to `addr`, from `from` when given.
pub async fn connect(addr: SocketAddr, from: Option<Ipv4Addr>) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    if let Some(ip) = from {
        socket
            .bind(SocketAddr::new(IpAddr::V4(ip), 0))
            .expect("bind source");
    }
    socket.connect(addr).await.expect("connect")
}

/// The request head for GET `path` on `host` with extra header lines.
pub fn request(web: &RunningWeb, host: &str, path: &str, extra: &[(&str, &str)]) -> Vec<u8> {
    let port = web.addr(host).expect("host").port();
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: {UA}\r\n");
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    head.into_bytes()
}

/// GET `path` on `host` and read the whole response (the server closes after it).
pub async fn get(web: &RunningWeb, host: &str, path: &str, extra: &[(&str, &str)]) -> Raw {
    send(web, host, None, &request(web, host, path, extra)).await
}

/// Send `bytes` to `host` (from `from`) and read the whole response.
pub async fn send(web: &RunningWeb, host: &str, from: Option<Ipv4Addr>, bytes: &[u8]) -> Raw {
    let mut stream = connect(web.addr(host).expect("host"), from).await;
    stream.write_all(bytes).await.expect("write");
    let mut all = Vec::new();
    stream.read_to_end(&mut all).await.expect("read");
    parse(&all)
}

/// Parse a response with a `content-length` or no body (not chunked).
pub fn parse(all: &[u8]) -> Raw {
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("complete head");
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Raw {
        status,
        headers,
        body: all[split + 4..].to_vec(),
    }
}

/// Wait (without a deadline of our own) until `pred` holds for the recording.
pub async fn until(recorder: &Recorder, pred: impl Fn(&[Exchange]) -> bool) -> Vec<Exchange> {
    loop {
        let all = recorder.exchanges();
        if pred(&all) {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Wait until exchange `id` has ended, and return it.
pub async fn ended(recorder: &Recorder, id: u64) -> Exchange {
    let all = until(recorder, |all| {
        all.iter().any(|e| e.id == id && e.ended.is_some())
    })
    .await;
    all.into_iter().find(|e| e.id == id).expect("recorded")
}
