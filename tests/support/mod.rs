//! What the end-to-end tests share: a publisher (the simulated web, `tidings_sim`, serving one
//! host on 127.0.0.1 with resources the test sets and changes, validators as written and 304s),
//! the tidings binary with the test's database, and helpers to read its output.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tidings_sim::{Behaviour, HostSpec, RetryAfter, RunningWeb, SimClock, Web, When};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// The publisher's one host: its address, so URLs need no `--resolve`.
const HOST: &str = "127.0.0.1";

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

    /// The same resource as the simulated web's script.
    fn scripted(self) -> tidings_sim::Resource {
        let mut served = tidings_sim::Resource::new(Behaviour::Body {
            content_type: self.content_type,
            body: self.body.into(),
        })
        .with(Behaviour::FixedValidators {
            etag: self.etag,
            last_modified: self.last_modified,
        });
        if let Some(wait) = self.retry_after {
            served = served.with(Behaviour::Throttle {
                status: 429,
                retry_after: Some(RetryAfter::Raw(wait)),
                when: When::Always,
            });
        }
        if !self.delay.is_zero() {
            served = served.with(Behaviour::Delay(self.delay));
        }
        served
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Header names lower-cased, values as sent.
    pub headers: HashMap<String, String>,
    /// The status answered (0 while none was).
    pub status: u16,
}

/// The running publisher.
#[derive(Clone)]
pub struct Publisher {
    pub port: u16,
    web: Arc<RunningWeb>,
}

impl Publisher {
    /// Start serving on 127.0.0.1, port 0, in the background of the current runtime; its
    /// `Date` and other instants are real time.
    pub async fn start() -> Publisher {
        let host = HostSpec::new(HOST).on(Ipv4Addr::LOCALHOST);
        let web = Web::start_with(vec![host], SimClock::scaled(SystemTime::now(), 1))
            .await
            .expect("start the publisher on 127.0.0.1");
        let port = web.addr(HOST).expect("the publisher's address").port();
        Publisher {
            port,
            web: Arc::new(web),
        }
    }

    pub fn set(&self, path: &str, resource: Resource) {
        assert!(self.web.set(HOST, path, resource.scripted()));
    }

    /// Every request received, in arrival order.
    pub fn seen(&self) -> Vec<Seen> {
        self.web
            .recorder()
            .to_host(HOST)
            .into_iter()
            .map(|exchange| Seen {
                method: exchange.method.clone(),
                path: exchange.target.clone(),
                headers: exchange
                    .headers
                    .iter()
                    .map(|h| (h.name.to_ascii_lowercase(), h.value_str()))
                    .collect(),
                status: exchange.status.unwrap_or(0),
            })
            .collect()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{HOST}:{}{}", self.port, path)
    }
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

/// Start `tidings GLOBAL serve SERVE` with the test's database (on `127.0.0.1:0` unless
/// `SERVE` names an `--addr`), its stdout read for the address it prints and its stderr sent
/// to `stderr`; the child and that address.
pub async fn spawn_serve<G, S>(
    db: &Path,
    global: &[G],
    serve: &[S],
    stderr: std::process::Stdio,
) -> (tokio::process::Child, std::net::SocketAddr)
where
    G: AsRef<std::ffi::OsStr>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = command(db);
    cmd.args(global).arg("serve").args(serve);
    if !serve.iter().any(|a| a.as_ref() == "--addr") {
        cmd.args(["--addr", "127.0.0.1:0"]);
    }
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("start tidings serve");
    let addr = listening_address(&mut child).await;
    (child, addr)
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
