//! A small soak: a seeded mixed web, a polite reference client (one request at a time per host,
//! robots.txt first and obeyed, validators echoed, Retry-After waited out), several rounds of
//! scenario time, and the auditor finding nothing. A careless client on the same web is caught.

mod support;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use support::{connect, parse};
use tidings_sim::auditor::Block;
use tidings_sim::{Expectations, RobotsRules, Rule, RunningWeb, Scenario, Web, audit};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const AGENT: &str = "tidings";

/// How careful the reference client is.
#[derive(Clone, Copy, PartialEq)]
enum Manners {
    Polite,
    /// Ignores Retry-After and never sends validators.
    Careless,
}

#[derive(Default)]
struct Memory {
    etag: Option<String>,
    last_modified: Option<String>,
    not_before: Option<SystemTime>,
}

/// Fetch every feed of `host` once, in order, honouring what `manners` says.
async fn round(
    web: &RunningWeb,
    host: &str,
    feeds: &[String],
    memory: &mut HashMap<String, Memory>,
    robots: &mut Option<RobotsRules>,
    manners: Manners,
) {
    let now = web.clock().now();
    if robots.is_none() {
        let (status, _, body) = fetch(web, host, "/robots.txt", &[]).await;
        *robots = Some(match status {
            Some(200) => RobotsRules::from_robots_txt(&String::from_utf8_lossy(&body), AGENT),
            Some(s) if (400..500).contains(&s) => RobotsRules::default(),
            // 5xx or no answer: stay away this round, ask again next time.
            _ => return,
        });
    }
    for path in feeds {
        if robots
            .as_ref()
            .is_some_and(|r| r.disallowing(path).is_some())
        {
            continue;
        }
        let mem = memory.entry(path.clone()).or_default();
        if manners == Manners::Polite && mem.not_before.is_some_and(|t| now < t) {
            continue;
        }
        let mut extra = Vec::new();
        if manners == Manners::Polite {
            if let Some(e) = &mem.etag {
                extra.push(("If-None-Match", e.clone()));
            }
            if let Some(l) = &mem.last_modified {
                extra.push(("If-Modified-Since", l.clone()));
            }
        }
        let extra: Vec<(&str, &str)> = extra.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let (status, headers, _) = fetch(web, host, path, &extra).await;
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        match status {
            Some(200) => {
                mem.etag = header("etag");
                mem.last_modified = header("last-modified");
            }
            Some(304) => {
                mem.etag = header("etag").or(mem.etag.take());
                mem.last_modified = header("last-modified").or(mem.last_modified.take());
            }
            Some(429 | 503) => {
                mem.not_before = header("retry-after").and_then(|v| match v.parse::<u64>() {
                    Ok(secs) => Some(now + Duration::from_secs(secs)),
                    Err(_) => httpdate::parse_http_date(&v).ok(),
                });
            }
            _ => {}
        }
    }
}

/// One request; waits for the web to record its end before returning, so the next request to
/// the host never overlaps it, even after giving up on a silent server.
async fn fetch(
    web: &RunningWeb,
    host: &str,
    path: &str,
    extra: &[(&str, &str)],
) -> (Option<u16>, Vec<(String, String)>, Vec<u8>) {
    let before = web.recorder().len();
    let mut headers = vec![("User-Agent", "tidings-soak/1")];
    headers.extend_from_slice(extra);
    let mut stream = connect(web.addr(host).unwrap(), None).await;
    let port = web.addr(host).unwrap().port();
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(1), stream.read_to_end(&mut all)).await;
    drop(stream);
    support::until(web.recorder(), |e| {
        e.len() > before && e.get(before).is_some_and(|x| x.ended.is_some())
    })
    .await;
    match read {
        Ok(Ok(_)) if !all.is_empty() => {
            let r = parse(&all);
            (Some(r.status), r.headers, r.body)
        }
        _ => (None, Vec::new(), Vec::new()),
    }
}

async fn run(manners: Manners) -> (Vec<tidings_sim::Violation>, usize) {
    let scenario = Scenario::mixed(42, 12, 6, AGENT);
    let web = Web::start(scenario.hosts.clone()).await.unwrap();
    let mut by_host: HashMap<String, Vec<String>> = HashMap::new();
    for (host, path) in &scenario.feeds {
        by_host.entry(host.clone()).or_default().push(path.clone());
    }
    let mut memory: HashMap<String, HashMap<String, Memory>> = HashMap::new();
    let mut robots: HashMap<String, Option<RobotsRules>> = HashMap::new();
    for _ in 0..4 {
        for (host, feeds) in &by_host {
            round(
                &web,
                host,
                feeds,
                memory.entry(host.clone()).or_default(),
                robots.entry(host.clone()).or_default(),
                manners,
            )
            .await;
        }
        web.clock().advance(Duration::from_secs(3600));
    }
    let expect = Expectations {
        robots: scenario.robots_rules(AGENT),
        blocked: vec![Block::Host("nowhere.sim".into())],
        ..Expectations::default()
    };
    let exchanges = web.recorder().exchanges();
    (audit(&exchanges, &expect), exchanges.len())
}

#[tokio::test]
async fn a_polite_client_on_a_mixed_web_shows_no_violation() {
    let (violations, requests) = run(Manners::Polite).await;
    assert!(requests > 150, "{requests} requests");
    assert!(violations.is_empty(), "{:#?}", violations);
}

#[tokio::test]
async fn a_careless_client_on_the_same_web_is_caught() {
    let (violations, _) = run(Manners::Careless).await;
    let rules: std::collections::BTreeSet<Rule> = violations.iter().map(|v| v.rule).collect();
    assert!(rules.contains(&Rule::RetryAfter), "{rules:?}");
    assert!(rules.contains(&Rule::Unconditional), "{rules:?}");
    assert!(
        !rules.contains(&Rule::InFlight) && !rules.contains(&Rule::Robots),
        "{rules:?}"
    );
}
