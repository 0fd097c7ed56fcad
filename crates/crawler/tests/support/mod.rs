//! A scripted publisher on 127.0.0.1 for crawler tests, and a crawler wired to a fresh store.

#![allow(dead_code)]

use chrono::Utc;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tidings_crawler::{Crawler, CrawlerConfig};
use tidings_fetch::{FetchConfig, Fetcher};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tidings_store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One scripted answer.
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn ok(body: &str) -> Answer {
        Answer {
            status: 200,
            headers: vec![("content-type".into(), "application/rss+xml".into())],
            body: body.into(),
        }
    }

    /// `status` with no headers and an empty body.
    pub fn status(status: u16) -> Answer {
        Answer {
            status,
            headers: vec![],
            body: String::new(),
        }
    }

    /// Hang up without answering: no status line at all.
    pub fn hang_up() -> Answer {
        Answer::status(0)
    }

    pub fn header(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Answers per path, in order; the last answer repeats. Counts requests per path.
#[derive(Clone, Default)]
pub struct Script {
    answers: Arc<Mutex<HashMap<String, Vec<Answer>>>>,
    pub requests: Arc<Mutex<Vec<String>>>,
    /// When each request arrived, by path.
    pub arrivals: Arc<Mutex<Vec<(String, std::time::Instant)>>>,
    /// Where each request came from, by path.
    pub sources: Arc<Mutex<Vec<(String, std::net::IpAddr)>>>,
    /// The User-Agent of each request, by path.
    pub user_agents: Arc<Mutex<Vec<(String, String)>>>,
    /// Feed requests from these addresses get a 403 (robots.txt is still served).
    pub refused_sources: Arc<Mutex<Vec<std::net::IpAddr>>>,
    /// Requests for these paths are answered only once their gate is opened.
    held: Arc<Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>>,
}

impl Script {
    pub fn push(&self, path: &str, answer: Answer) {
        self.answers
            .lock()
            .unwrap()
            .entry(path.into())
            .or_default()
            .push(answer);
    }

    /// Hold every request for `path` unanswered until the returned gate is opened
    /// (`add_permits(1)` lets one through).
    pub fn hold(&self, path: &str) -> Arc<tokio::sync::Semaphore> {
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        self.held.lock().unwrap().insert(path.into(), gate.clone());
        gate
    }

    pub fn count(&self, path: &str) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == path)
            .count()
    }

    fn next(&self, path: &str) -> Option<Answer> {
        let mut answers = self.answers.lock().unwrap();
        let queue = answers.get_mut(path)?;
        if queue.len() > 1 {
            Some(queue.remove(0))
        } else {
            queue.first().cloned()
        }
    }
}

/// Serve `script` on 127.0.0.1, port 0; returns the port.
pub async fn serve(script: Script) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, peer)) = listener.accept().await {
            let script = script.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = stream.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                script.requests.lock().unwrap().push(path.clone());
                script
                    .sources
                    .lock()
                    .unwrap()
                    .push((path.clone(), peer.ip()));
                let agent = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("user-agent")
                            .then(|| value.trim().to_string())
                    })
                    .unwrap_or_default();
                script
                    .user_agents
                    .lock()
                    .unwrap()
                    .push((path.clone(), agent));
                script
                    .arrivals
                    .lock()
                    .unwrap()
                    .push((path.clone(), std::time::Instant::now()));
                let held = script.held.lock().unwrap().get(&path).cloned();
                if let Some(gate) = held {
                    let _ = gate.acquire().await.map(|permit| permit.forget());
                }
                let refused = path != "/robots.txt"
                    && script.refused_sources.lock().unwrap().contains(&peer.ip());
                let answer = if refused {
                    Answer {
                        status: 403,
                        headers: vec![],
                        body: String::new(),
                    }
                } else {
                    script.next(&path).unwrap_or(Answer {
                        status: 404,
                        headers: vec![],
                        body: String::new(),
                    })
                };
                if answer.status == 0 {
                    return; // dropping the stream closes it unanswered
                }
                let mut out = format!("HTTP/1.1 {} X\r\n", answer.status);
                for (k, v) in &answer.headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str(&format!(
                    "content-length: {}\r\nconnection: close\r\n\r\n{}",
                    answer.body.len(),
                    answer.body
                ));
                let _ = stream.write_all(out.as_bytes()).await;
            });
        }
    });
    port
}

/// A profile tuner for [`crawler_with`]: the embedded profile `name`, with no host gap and no
/// jitter, so tests run at once and their waits are exact.
pub fn as_profile(name: &'static str) -> impl Fn(&mut Profile) + Copy {
    move |p: &mut Profile| {
        *p = Profile::embedded(name).unwrap();
        p.pacing.host_gap = 0.0;
        p.hints.jitter = 0.0;
    }
}

/// A fresh SQLite store in `dir`, a crawler on it allowed to reach loopback, with a profile
/// whose host gap is zero.
pub async fn crawler(dir: &std::path::Path) -> (Crawler, Arc<dyn Store>) {
    crawler_with(dir, |_| {}).await
}

/// Like [`crawler`], with a profile changed by `tune`.
pub async fn crawler_with(
    dir: &std::path::Path,
    tune: impl FnOnce(&mut Profile),
) -> (Crawler, Arc<dyn Store>) {
    crawler_configured(dir, tune, |_| {}).await
}

/// Like [`crawler_with`], with the fetcher's configuration changed by `configure` too.
pub async fn crawler_configured(
    dir: &std::path::Path,
    tune: impl FnOnce(&mut Profile),
    configure: impl FnOnce(&mut FetchConfig),
) -> (Crawler, Arc<dyn Store>) {
    let store = tidings_store::open(dir.join("t.db").to_str().unwrap())
        .await
        .unwrap();
    let mut config = FetchConfig::new("tidings-test/1");
    config.allow_private_networks = true;
    configure(&mut config);
    let mut profile = Profile::embedded("default").unwrap();
    profile.pacing.host_gap = 0.0;
    tune(&mut profile);
    let crawler = Crawler::new(
        store.clone(),
        Arc::new(Fetcher::new(config).unwrap()),
        Arc::new(profile),
        CrawlerConfig::default(),
    );
    (crawler, store)
}

/// The schedule of a feed added now: due at once.
pub fn new_feed() -> tidings_store::NewFeed {
    tidings_store::NewFeed {
        next_fetch_at: Utc::now(),
        next_fetch_reason: "first add".into(),
        interval_secs: 3600,
    }
}

/// Subscribe to `url` and return its stored record.
pub async fn subscribe(store: &Arc<dyn Store>, url: &str) -> tidings_store::FeedRecord {
    let url = FeedUrl::parse(url).unwrap();
    let sub = store
        .subscribe(&url, "tester", Utc::now(), &new_feed())
        .await
        .unwrap();
    store.feed(sub.feed_id).await.unwrap().unwrap()
}

pub const FEED: &str = r#"<rss version="2.0"><channel><title>Known title</title><link>https://site.test/</link>
<item><guid>one</guid><title>One</title></item><item><guid>two</guid><title>Two</title></item></channel></rss>"#;
