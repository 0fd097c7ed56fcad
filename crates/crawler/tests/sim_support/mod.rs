//! The real crawler on the simulated web: a [`Sim`] serves virtual hosts on 127.0.0.x in
//! scenario time running `SCALE` times faster than real time, and runs `Crawler::crawl` with a
//! crawler clock of the same scale, so hours of crawler time pass in seconds. The crawler's
//! clock is started after the web's, so it is never ahead of the publishers' time.

#![allow(dead_code)]

use chrono::{DateTime, Utc};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tidings_crawler::{
    Clock, CrawlUntil, Crawler, CrawlerConfig, FeedReport, Progress, RunSummary,
};
use tidings_fetch::{FetchConfig, Fetcher, RequestSigner};
use tidings_model::FeedUrl;
use tidings_policy::Profile;
use tidings_sim::clock::SCENARIO_START_UNIX_SECS;
use tidings_sim::{
    Exchange, Expectations, HostSpec, RunningWeb, SimClock, TimeBase, Violation, Web,
};
use tidings_store::Store;

/// Crawler seconds per real second: one real second is an hour.
pub const SCALE: u32 = 3600;

/// The `Signature-Agent` origin of a signing profile that names none.
pub const AGENT: &str = "https://tidings.example";

/// The User-Agent of every test run.
pub const UA: &str = "tidings-test/1 (+https://tidings.example/bot)";

/// How long (real time) the web may take to notice that the crawler hung up on a request that
/// got no answer (a time-out), for [`Expectations::hang_up_notice`]: its connection task must
/// run first, on a runtime it shares with the crawler (64 hosts at once in the big soak), on a
/// 2-core machine other jobs load too. Measured in the big soak: the request after a time-out
/// came as much as 10.3 ms before the web noticed the hang-up (load 9.7), so the web noticed
/// at least 12 ms late (the crawler waits 1.7 ms: its 1 s gap at scale 600). At scale 600 this
/// allowance is 12 s of scenario time, so the soak does not resolve the gap after a time-out;
/// `wfm5_…` in scenarios.rs checks it with a gap of 120 s. Answers the crawler stopped
/// reading need no allowance: the auditor measures them from their head.
pub const HANG_UP_NOTICE: Duration = Duration::from_millis(20);

/// A running web and a crawler pointed at it.
pub struct Sim {
    pub web: RunningWeb,
    pub crawler: Crawler,
    pub store: Arc<dyn Store>,
    pub profile: Profile,
    pub start: DateTime<Utc>,
    pub reports: Arc<Collect>,
    /// The fetcher's body cap.
    pub max_body_bytes: u64,
    /// Every feed subscribed through [`Sim::subscribe_as`], as (host, path): what the
    /// auditor counts as feeds (WFM1, DFB1, PF13).
    pub subscribed: Mutex<Vec<(String, String)>>,
    _dir: tempfile::TempDir,
}

/// How a [`Sim`] is built.
pub struct Setup {
    pub scale: u32,
    /// Network timeout of one read (real time: not scaled).
    pub timeout: Duration,
    pub host_concurrency: usize,
    /// The fetcher's body cap.
    pub max_body_bytes: u64,
    /// The fetcher's User-Agent, when not [`UA`] (a profile's template, PF10).
    pub user_agent: Option<String>,
    /// The public callback URL WebSub hubs are given (`--websub-callback`); none by default.
    pub websub_callback: Option<url::Url>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            scale: SCALE,
            timeout: Duration::from_secs(5),
            host_concurrency: 16,
            max_body_bytes: tidings_policy::profile::FetchLimits::default().max_body_bytes,
            user_agent: None,
            websub_callback: None,
        }
    }
}

/// Every report of a crawl, in order: the feeds', and the resources' read for them.
#[derive(Default)]
pub struct Collect(
    pub Mutex<Vec<FeedReport>>,
    pub Mutex<Vec<tidings_crawler::enrich::ResourceReport>>,
);

impl Progress for Collect {
    fn found(&self, _total: usize) {}
    fn done(&self, report: &FeedReport) {
        self.0.lock().unwrap().push(report.clone());
    }
    fn resource_done(&self, report: &tidings_crawler::enrich::ResourceReport) {
        self.1.lock().unwrap().push(report.clone());
    }
}

impl Collect {
    pub fn of(&self, url: &str) -> Vec<FeedReport> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.url == url)
            .cloned()
            .collect()
    }
}

/// Serve `hosts` and build a crawler on the default profile changed by `tune`.
pub async fn start(hosts: Vec<HostSpec>, tune: impl FnOnce(&mut Profile)) -> Sim {
    start_with(hosts, tune, Setup::default()).await
}

pub async fn start_with(
    hosts: Vec<HostSpec>,
    tune: impl FnOnce(&mut Profile),
    setup: Setup,
) -> Sim {
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(SCENARIO_START_UNIX_SECS);
    let web = Web::start_with(hosts, SimClock::scaled(base, setup.scale))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = tidings_store::open(dir.path().join("sim.db").to_str().unwrap())
        .await
        .unwrap();
    let mut fetch = FetchConfig::new(setup.user_agent.as_deref().unwrap_or(UA));
    fetch.connect_timeout = setup.timeout;
    fetch.total_timeout = setup.timeout;
    fetch.max_body_bytes = setup.max_body_bytes;
    for name in web.host_names() {
        let addr = web.addr(&name).unwrap();
        fetch.resolve.push((name, addr.port(), addr));
    }
    let mut profile = Profile::embedded("default").unwrap();
    // Reads at the interval exactly: the feed's own rhythm (PF8) and jitter would move the
    // reads the scenarios count; tests of those turn them back on.
    profile.hints.adaptive = false;
    profile.hints.jitter = 0.0;
    tune(&mut profile);
    let start = DateTime::<Utc>::from(base);
    // After the web's clock: the crawler is never ahead of the publishers.
    let clock = Clock::scaled(start, setup.scale);
    // SR11: a profile that signs gets a signer on the crawler's clock, as `tidings` builds it.
    if profile.signing.enabled {
        let agent = profile.signing.agent.as_deref().unwrap_or(AGENT);
        fetch.signer = Some(Arc::new(RequestSigner::new(
            agent,
            profile.signing.signature_validity,
            Arc::new(move || clock.now().timestamp()),
        )));
    }
    let crawler = Crawler::new(
        store.clone(),
        Arc::new(Fetcher::new(fetch).unwrap()),
        Arc::new(profile.clone()),
        CrawlerConfig {
            host_concurrency: setup.host_concurrency,
            clock,
            websub_callback: setup.websub_callback.clone(),
        },
    );
    Sim {
        web,
        crawler,
        store,
        profile,
        start,
        reports: Arc::new(Collect::default()),
        max_body_bytes: setup.max_body_bytes,
        subscribed: Mutex::new(Vec::new()),
        _dir: dir,
    }
}

impl Sim {
    /// Subscribe `subscriber` to `path` on `host`; returns the URL.
    pub async fn subscribe_as(&self, host: &str, path: &str, subscriber: &str) -> String {
        let url = self.web.url(host, path).unwrap();
        self.subscribed
            .lock()
            .unwrap()
            .push((host.to_owned(), path.to_owned()));
        self.crawler
            .subscribe(&FeedUrl::parse(&url).unwrap(), subscriber)
            .await
            .unwrap();
        url
    }

    pub async fn subscribe(&self, host: &str, path: &str) -> String {
        self.subscribe_as(host, path, "alice").await
    }

    /// Crawl for `hours` of crawler time from now.
    pub async fn crawl_hours(&self, hours: f64) -> RunSummary {
        let (_stop, rx) = tokio::sync::watch::channel(false);
        let deadline =
            self.crawler.now() + chrono::Duration::milliseconds((hours * 3_600_000.0) as i64);
        self.crawler
            .crawl(
                CrawlUntil {
                    stop: rx,
                    deadline: Some(deadline),
                },
                self.reports.clone(),
            )
            .await
            .unwrap()
    }

    /// Every exchange, once every request has ended.
    pub async fn exchanges(&self) -> Vec<Exchange> {
        for _ in 0..200 {
            let all = self.web.recorder().exchanges();
            if all.iter().all(|e| e.ended.is_some()) {
                return all;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.web.recorder().exchanges()
    }

    /// Exchanges with `path` on `host`, in arrival order.
    pub async fn requests(&self, host: &str, path: &str) -> Vec<Exchange> {
        let mut all: Vec<Exchange> = self
            .exchanges()
            .await
            .into_iter()
            .filter(|e| e.host == host && e.target == path)
            .collect();
        all.sort_by_key(|e| e.id);
        all
    }

    /// What the run promised, before per-test robots rules and gaps: our User-Agent, the
    /// profile's gap on scenario time, robots.txt first on every host; bodies over the cap are
    /// read no further than the cap.
    pub fn expectations(&self) -> Expectations {
        Expectations {
            user_agent: Some(UA.as_bytes().to_vec()),
            default_gap: Duration::from_secs_f64(self.profile.pacing.host_gap),
            gap_clock: TimeBase::Scenario,
            robots_first: self.web.host_names(),
            body_cap: Some(self.max_body_bytes),
            dates_on_wall: self.web.clock().follows_real_time(),
            purposes: Some(self.purpose_check()),
            pages: Some(self.page_budget()),
            ..Expectations::default()
        }
    }

    /// SR1, SR4, SR6: what the profile may ask of each article page and icon.
    pub fn page_budget(&self) -> tidings_sim::budget::PageBudget {
        let pages = &self.profile.pages;
        let secs = Duration::from_secs;
        tidings_sim::budget::PageBudget {
            retry_steps: pages.retry_steps.iter().map(|&s| secs(s)).collect(),
            hold_after_retries: secs(pages.hold_after_retries),
            throttle_steps: pages.throttle_steps.iter().map(|&s| secs(s)).collect(),
            throttle_hold_max: secs(pages.throttle_hold_max),
            remember_failure: secs(pages.remember_failure),
            icon_refresh: secs(pages.icon_refresh),
            icon_spacing: secs(pages.icon_spacing),
        }
    }

    /// WFM1, DFB1, PF13: what the profile may request, and the feeds subscribed.
    pub fn purpose_check(&self) -> tidings_sim::PurposeCheck {
        use tidings_model::RequestPurpose as P;
        use tidings_sim::Requested;
        let allowed = self
            .profile
            .requests
            .purposes
            .iter()
            .map(|p| match p {
                P::Feed => Requested::Feed,
                P::Robots => Requested::Robots,
                P::ArticlePage | P::Discovery => Requested::Page,
                P::Icon => Requested::Icon,
                P::Image => Requested::Image,
                P::WebSub => Requested::Hub,
            })
            .collect();
        tidings_sim::PurposeCheck {
            allowed,
            feeds: self.subscribed.lock().unwrap().clone(),
        }
    }

    /// SR11: the check of every request's signature against every key the store holds (as
    /// the key directory listed each while it was valid), verified by the web's independent
    /// implementation. The signer's clock is the crawler's, which starts a few real
    /// milliseconds after the web's, each worth an hour here: `skew` allows for that and
    /// for the real time a request takes to arrive.
    pub async fn signature_check(&self, skew: Duration) -> tidings_sim::SignatureCheck {
        let keys = tidings_crawler::keys::load(self.store.as_ref())
            .await
            .unwrap();
        let json = tidings_fetch::botkeys::directory_json(&keys, i64::MIN);
        tidings_sim::SignatureCheck {
            skew,
            ..tidings_sim::SignatureCheck::new(
                tidings_sim::KeyDirectory::from_json(json.as_bytes()).unwrap(),
            )
        }
    }

    /// The auditor's findings under `expect`.
    pub async fn audit(&self, expect: &Expectations) -> Vec<Violation> {
        tidings_sim::audit(&self.exchanges().await, expect)
    }
}

/// Scenario seconds from `a`'s end to `b`'s start.
pub fn gap(a: &Exchange, b: &Exchange) -> Duration {
    b.started
        .sim
        .duration_since(a.ended.unwrap().sim)
        .unwrap_or_default()
}

/// A violation in full, for a failing test to explain itself: the rule and its detail, every
/// exchange involved (connection, status, whether the body was all sent, bytes, and its start,
/// response and end on the scenario and monotonic clocks), the gap between two exchanges on
/// both clocks with the minimum expected, and the crawler's own request-log rows for the host
/// around that time (crawler time, which runs a little behind scenario time).
pub async fn explain(
    sim: &Sim,
    v: &Violation,
    exchanges: &[Exchange],
    expect: &Expectations,
) -> String {
    use std::fmt::Write as _;
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(SCENARIO_START_UNIX_SECS);
    let at = |t: SystemTime| {
        t.duration_since(start).map_or_else(
            |_| "before start".into(),
            |d| format!("+{:.3}s", d.as_secs_f64()),
        )
    };
    let mono = |d: Duration| format!("{:.3}ms", d.as_secs_f64() * 1000.0);
    let mut out = format!("{v}\n");
    let involved: Vec<&Exchange> = v
        .exchanges
        .iter()
        .filter_map(|id| exchanges.iter().find(|e| e.id == *id))
        .collect();
    for e in &involved {
        let _ = writeln!(
            out,
            "  #{} {} {} {} from {} status {:?} completed {} body {} B\n    \
             started {} ({}) responded {} ended {}",
            e.id,
            e.host,
            e.method,
            e.target,
            e.peer,
            e.status,
            e.completed,
            e.body_bytes,
            at(e.started.sim),
            mono(e.started.mono),
            e.responded.map_or_else(
                || "never".into(),
                |s| format!("{} ({})", at(s.sim), mono(s.mono))
            ),
            e.ended.map_or_else(
                || "never".into(),
                |s| format!("{} ({})", at(s.sim), mono(s.mono))
            ),
        );
        let sent: Vec<String> = e
            .headers
            .iter()
            .filter(|h| h.name.starts_with("if-"))
            .chain(e.response_headers.iter())
            .map(|h| format!("{}: {}", h.name, h.value_str()))
            .collect();
        if !sent.is_empty() {
            let _ = writeln!(out, "    headers {}", sent.join("; "));
        }
    }
    if let [a, b] = involved[..]
        && let Some(end) = a.ended
    {
        let sim_gap = b.started.sim.duration_since(end.sim);
        let mono_gap = b.started.mono.checked_sub(end.mono);
        let min = expect
            .gaps
            .get(&b.host)
            .copied()
            .unwrap_or(expect.default_gap);
        let _ = writeln!(
            out,
            "  end of #{} to start of #{}: {:?} scenario, {:?} monotonic (negative: None); \
             minimum {min:?} scenario",
            a.id,
            b.id,
            sim_gap.ok(),
            mono_gap
        );
    }
    if let (Some(first), Some(last)) = (involved.first(), involved.last()) {
        let query = tidings_store::LogQuery {
            host: Some(first.host.clone()),
            feed: None,
            limit: 10_000,
        };
        let from = DateTime::<Utc>::from(first.started.sim) - chrono::Duration::minutes(30);
        let to = DateTime::<Utc>::from(last.ended.unwrap_or(last.started).sim)
            + chrono::Duration::minutes(30);
        if let Ok(mut rows) = sim.store.request_log(&query).await {
            rows.retain(|r| r.at >= from && r.at <= to);
            rows.sort_by_key(|r| r.at);
            let _ = writeln!(
                out,
                "  crawler's request log for {} around then:",
                first.host
            );
            for r in rows {
                let _ = writeln!(
                    out,
                    "    {} {} {} status {:?} {} {} ms, {} B: {}",
                    at(r.at.into()),
                    r.purpose,
                    r.url,
                    r.status,
                    r.outcome,
                    r.duration_ms,
                    r.bytes,
                    r.rule
                );
            }
        }
    }
    out
}

/// Assert zero violations, printing them otherwise.
pub fn assert_clean(violations: &[Violation]) {
    let shown: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        shown.is_empty(),
        "{} violations:\n{}",
        shown.len(),
        shown.join("\n")
    );
}
