//! A small publisher for end-to-end tests: an HTTP/1.1 server on 127.0.0.1, port 0, serving
//! scripted feeds with ETag / Last-Modified and 304s, recording every request it receives.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One served resource.
#[derive(Debug, Clone)]
pub struct Resource {
    pub body: Vec<u8>,
    pub content_type: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Answer 429 Too Many Requests with this `Retry-After` instead of the resource.
    pub retry_after: Option<String>,
}

impl Resource {
    pub fn feed(body: impl Into<Vec<u8>>, etag: &str) -> Resource {
        Resource {
            body: body.into(),
            content_type: "application/rss+xml; charset=utf-8".into(),
            etag: Some(etag.into()),
            last_modified: Some("Tue, 03 Nov 2026 10:00:00 GMT".into()),
            delay: Duration::ZERO,
            retry_after: None,
        }
    }

    /// A 429 asking to wait `retry_after` (seconds or an HTTP date).
    pub fn busy(retry_after: &str) -> Resource {
        Resource {
            retry_after: Some(retry_after.into()),
            ..Resource::feed("", "\"busy\"")
        }
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Header names lower-cased, values as sent.
    pub headers: HashMap<String, String>,
    pub status: u16,
}

#[derive(Default)]
struct State {
    resources: HashMap<String, Resource>,
    seen: Vec<Seen>,
}

/// The running server.
#[derive(Clone)]
pub struct Publisher {
    pub port: u16,
    state: Arc<Mutex<State>>,
}

impl Publisher {
    /// Start serving on 127.0.0.1, port 0, in the background of the current runtime.
    pub async fn start() -> Publisher {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local addr").port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, shared.clone()));
            }
        });
        Publisher { port, state }
    }

    pub fn set(&self, path: &str, resource: Resource) {
        self.state
            .lock()
            .unwrap()
            .resources
            .insert(path.into(), resource);
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.port, path)
    }
}

async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 64 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_string();
    let path = request_line.next().unwrap_or_default().to_string();
    let headers: HashMap<String, String> = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let resource = state.lock().unwrap().resources.get(&path).cloned();
    let (status, response) = match &resource {
        None => (
            404,
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec(),
        ),
        Some(Resource {
            retry_after: Some(wait),
            ..
        }) => (
            429,
            format!(
                "HTTP/1.1 429 Too Many Requests\r\nretry-after: {wait}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
            .into_bytes(),
        ),
        Some(r) => {
            let fresh = match (&r.etag, headers.get("if-none-match")) {
                (Some(etag), Some(sent)) => etag == sent,
                _ => false,
            };
            let mut head = String::new();
            let status = if fresh { 304 } else { 200 };
            head.push_str(if fresh {
                "HTTP/1.1 304 Not Modified\r\n"
            } else {
                "HTTP/1.1 200 OK\r\n"
            });
            if let Some(etag) = &r.etag {
                head.push_str(&format!("etag: {etag}\r\n"));
            }
            if let Some(lm) = &r.last_modified {
                head.push_str(&format!("last-modified: {lm}\r\n"));
            }
            let body: &[u8] = if fresh { b"" } else { &r.body };
            head.push_str(&format!(
                "content-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                r.content_type,
                body.len()
            ));
            let mut bytes = head.into_bytes();
            bytes.extend_from_slice(body);
            (status, bytes)
        }
    };
    if let Some(r) = &resource {
        tokio::time::sleep(r.delay).await;
    }
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
    state.lock().unwrap().seen.push(Seen {
        method,
        path,
        headers,
        status,
    });
}

/// An RSS 2.0 feed with `n` items numbered from `first`.
pub fn rss(title: &str, first: usize, n: usize) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>{title}</title><link>https://example.test/</link><description>test feed</description>\n"
    );
    for i in first..first + n {
        s.push_str(&format!(
            "<item><title>{title} story {i}</title><link>https://example.test/{title}/{i}</link><guid>{title}-{i}</guid><description>Body of story {i} about harbours</description><pubDate>Mon, 02 Nov 2026 {:02}:00:00 GMT</pubDate></item>\n",
            i % 24
        ));
    }
    s.push_str("</channel></rss>\n");
    s
}

/// The tidings binary with the test's database, ready for more arguments.
pub fn command(db: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tidings"));
    cmd.arg("--db").arg(db);
    for var in [
        "TIDINGS_CONFIG",
        "TIDINGS_PROFILE",
        "TIDINGS_DB",
        "TIDINGS_LOG",
        "TIDINGS_WEBSUB_CALLBACK",
    ] {
        cmd.env_remove(var);
    }
    cmd.kill_on_drop(true);
    cmd
}

/// Run the tidings binary with `args` and the test's database, and wait for it.
pub async fn tidings(db: &Path, args: &[&str]) -> Output {
    command(db).args(args).output().await.expect("run tidings")
}

/// A profile for tests: 1-second intervals, no gap between requests to a host.
pub const FAST_PROFILE: &str = r#"
name = "test"
user_agent = "tidings-test/{version}"
[schedule]
default_interval = 1
min_interval = 1
max_interval = 60
[backoff]
first = 1
max = 60
[pacing]
host_gap = 0
[hints]
adaptive = false
jitter = 0.0
"#;

/// Write [`FAST_PROFILE`] into `dir` and return its path as a string.
pub fn fast_profile(dir: &Path) -> String {
    let path = dir.join("test-profile.toml");
    std::fs::write(&path, FAST_PROFILE).expect("write profile");
    path.to_string_lossy().into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A program on PATH.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// Read `serve`'s stdout until it says where it listens; keep reading it afterwards so the
/// pipe never fills.
pub async fn listening_address(child: &mut tokio::process::Child) -> std::net::SocketAddr {
    let out = child.stdout.take().expect("stdout");
    let mut lines = tokio::io::BufReader::new(out).lines();
    let addr = loop {
        let line = lines
            .next_line()
            .await
            .expect("read stdout")
            .expect("serve printed where it listens");
        if let Some(rest) = line.strip_prefix("listening on http://") {
            break rest
                .parse::<std::net::SocketAddr>()
                .expect("a socket address");
        }
    };
    let mut rest = lines.into_inner();
    tokio::spawn(async move {
        let mut sink = Vec::new();
        let _ = rest.read_to_end(&mut sink).await;
    });
    addr
}

/// Run `tidings ARGS` on `db` with `input` on standard input (a password, say).
pub async fn with_stdin(db: &Path, args: &[&str], input: &str) -> Output {
    let mut child = command(db)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tidings");
    let mut stdin = child.stdin.take().expect("stdin");
    // A command refused before it reads (a bad name, say) may have exited already: its
    // answer is what the test checks, not the write.
    match stdin.write_all(input.as_bytes()).await {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write: {e}"),
        _ => {}
    }
    drop(stdin);
    child.wait_with_output().await.expect("wait")
}

/// C3 from the publisher's own record: no host saw two requests in flight, none a gap shorter
/// than `gap` (measured on the monotonic clock). Panics with every violation found.
#[allow(dead_code)]
pub fn assert_one_in_flight_and_gaps(
    exchanges: &[tidings_sim::Exchange],
    gap: std::time::Duration,
) {
    use tidings_sim::{Expectations, Rule, TimeBase, audit};
    let expect = Expectations {
        default_gap: gap,
        gap_clock: TimeBase::Monotonic,
        ..Expectations::default()
    };
    let violations: Vec<String> = audit(exchanges, &expect)
        .into_iter()
        .filter(|v| matches!(v.rule, Rule::InFlight | Rule::Gap))
        .map(|v| v.to_string())
        .collect();
    assert!(violations.is_empty(), "{violations:#?}");
}
