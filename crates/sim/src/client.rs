//! A small HTTP/1.1 client for tests: one request per connection (`Connection: close`), the
//! answer read to the end it announces (`Content-Length`, the last chunk) or to the close, and
//! parsed (status, headers, body). For talking to `tidings serve`, to chromedriver (which keeps
//! a connection open whatever the request says) and, from the simulated hub, to its callbacks;
//! never for anything but loopback test servers. [`send_raw`] sends a request written by hand
//! (one without a `Host`, one malformed on purpose).

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A parsed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// Header names lower-cased, values as sent, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// What went wrong talking to a test server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("malformed answer: {0}")]
    Malformed(String),
}

/// Send `method target` to `addr` with `headers` (a `Host` is added when absent) and `body`,
/// and read the answer, all within `within`.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    within: Duration,
) -> Result<Answer, ClientError> {
    tokio::time::timeout(within, exchange(addr, method, target, headers, body))
        .await
        .map_err(|_| ClientError::Timeout(within))?
}

/// Send `raw`, a whole request as written (nothing added), to `addr` and read the answer,
/// all within `within`.
pub async fn send_raw(
    addr: SocketAddr,
    raw: &[u8],
    within: Duration,
) -> Result<Answer, ClientError> {
    tokio::time::timeout(within, async {
        let mut stream = TcpStream::connect(addr).await?;
        stream.write_all(raw).await?;
        read_answer(&mut stream).await
    })
    .await
    .map_err(|_| ClientError::Timeout(within))?
}

async fn exchange(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Answer, ClientError> {
    let mut stream = TcpStream::connect(addr).await?;
    let mut head = format!("{method} {target} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    read_answer(&mut stream).await
}

/// Read one answer from `stream`: its head, then the body to the length it announces, to its
/// last chunk, or (announcing neither) to the close.
async fn read_answer(stream: &mut TcpStream) -> Result<Answer, ClientError> {
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if answer_is_whole(&raw) {
            break;
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    parse(&raw)
}

/// Whether `raw` holds a whole answer that announced where it ends.
fn answer_is_whole(raw: &[u8]) -> bool {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let value = |name: &str| {
        head.split("\r\n")
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.trim() == name)
            .map(|(_, v)| v.trim().to_owned())
    };
    let rest = &raw[end + 4..];
    if value("transfer-encoding").is_some_and(|v| v == "chunked") {
        dechunk(rest).is_ok()
    } else if let Some(length) = value("content-length").and_then(|v| v.parse::<usize>().ok()) {
        rest.len() >= length
    } else {
        false
    }
}

/// Parse a whole HTTP/1.1 answer.
pub fn parse(raw: &[u8]) -> Result<Answer, ClientError> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| ClientError::Malformed("no end of head".into()))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ClientError::Malformed(format!("status line of {head:?}")))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let rest = &raw[end + 4..];
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let body = if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(length) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        rest.get(..length)
            .ok_or_else(|| ClientError::Malformed("body shorter than its length".into()))?
            .to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Answer {
        status,
        headers,
        body,
    })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| ClientError::Malformed("chunk size line".into()))?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| ClientError::Malformed(format!("chunk size {size_text:?}")))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest
            .get(..size)
            .ok_or_else(|| ClientError::Malformed("chunk shorter than its size".into()))?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_length_by_chunks_or_to_the_close() {
        let by_length = parse(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: b\r\n\r\nhi").unwrap();
        assert_eq!((by_length.status, by_length.text().as_str()), (200, "hi"));
        assert_eq!(by_length.header("x-a"), Some("b"));
        let chunked = parse(
            b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((chunked.status, chunked.text().as_str()), (202, "abcde"));
        let closed = parse(b"HTTP/1.1 410 Gone\r\n\r\nbye").unwrap();
        assert_eq!((closed.status, closed.text().as_str()), (410, "bye"));
        assert!(parse(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(parse(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhi").is_err());
    }

    /// An answer that says where it ends is whole there, so a server that keeps the
    /// connection open (chromedriver) is not waited on; one that says nothing ends at the close.
    #[test]
    fn an_answer_is_whole_where_it_says_it_ends() {
        assert!(!answer_is_whole(
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
        ));
        assert!(!answer_is_whole(
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nh"
        ));
        assert!(answer_is_whole(
            b"HTTP/1.1 200 OK\r\ncontent-length:2\r\n\r\nhi"
        ));
        assert!(!answer_is_whole(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"
        ));
        assert!(answer_is_whole(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        ));
        assert!(!answer_is_whole(b"HTTP/1.1 410 Gone\r\n\r\nbye"));
    }
}
