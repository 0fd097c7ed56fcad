//! The async engine: due work → fetch → parse → decide → store.
//!
//! The [`Crawler`] asks the store for due feeds, reads each one with the fetcher (one request
//! per feed, whoever subscribes: C2; one request in flight per host and the profile's gap
//! between two: C3), parses a changed body, asks `tidings-policy` what follows, and hands the
//! whole result to the store in one transaction. It holds no policy numbers of its own.
//!
//! Reading order: [`gate`] (per-host spacing), [`lease`] (one holder per host across
//! processes), [`blocks`] (do-not-crawl rules before every
//! request, FF13), [`refresh`] (one feed, its redirects followed hop by hop), [`run`]
//! (everything due, once or continuously), [`live`] (what it sent and its gate, for
//! `/metrics` and the API), [`keys`] (the Web Bot Auth keys the fetcher signs with, SR11).

mod backoff;
pub mod blocks;
pub mod clock;
mod copies;
pub mod discover;
mod drive;
pub mod enrich;
pub mod gate;
pub mod jobs;
pub mod keys;
pub mod lease;
pub mod live;
pub mod operator;
pub mod refresh;
pub mod run;
pub mod search;
pub mod spider;
pub mod websub;

pub use clock::Clock;
pub use live::{GateView, Live};
pub use refresh::{FeedReport, Purpose};
pub use run::{CrawlState, CrawlUntil, NoProgress, Progress, RunSummary};

use std::sync::Arc;
use tidings_fetch::Fetcher;
use tidings_policy::Profile;
use tidings_store::Store;

/// One request's turn at its host, in this process and across processes.
pub(crate) struct HostTurn {
    permit: gate::Permit,
    host: String,
    /// The gap in real time and the longest the request may take: what its lease must
    /// outlive (C3).
    gap: std::time::Duration,
    budget: std::time::Duration,
}

impl HostTurn {
    /// The request ended: the gate records its end, and the host's lease is given back
    /// unless this process has more to send there.
    pub(crate) async fn end(self, crawler: &Crawler) {
        let HostTurn { permit, host, .. } = self;
        drop(permit);
        crawler.give_back(&host).await;
    }
}

/// The longest a request with `patience` (1, or WFM5's for the one second attempt after no
/// answer) may take: the fetcher's hard time-out that many times over.
fn time_limit(fetcher: &Fetcher, patience: u32) -> std::time::Duration {
    fetcher
        .config()
        .total_timeout
        .saturating_mul(patience.max(1))
}

/// Errors that stop a crawl (a single feed's failure is a [`FeedReport`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    #[error(transparent)]
    Store(#[from] tidings_store::StoreError),
    /// A do-not-crawl rule forbids the URL (FF13, WFM10).
    #[error("{url} cannot be added: {reason}")]
    Blocked { url: String, reason: String },
    /// The address guard would refuse every read of the URL (an IP literal outside the public
    /// address space, private networks not allowed): refused before it is stored.
    #[error("{url} cannot be added: {reason}")]
    Unreachable { url: String, reason: String },
    /// The request cannot be done as asked (a spider run past its profile's ceilings, or
    /// under a profile that does not discover).
    #[error("{0}")]
    Refused(String),
    /// The crawler could not finish a step (a background task was cancelled).
    #[error("internal error: {0}")]
    Internal(String),
}

/// A subscription refused before anything was stored or sent, as the crawler's error.
fn refused(refusal: operator::Refusal) -> CrawlError {
    let reason = refusal.to_string();
    match refusal {
        operator::Refusal::Blocked { url, .. } => CrawlError::Blocked { url, reason },
        operator::Refusal::Unreachable { url, .. } | operator::Refusal::NoHost { url } => {
            CrawlError::Unreachable { url, reason }
        }
    }
}

/// How many hosts are worked at once, by default.
pub const DEFAULT_HOST_CONCURRENCY: usize = 512;

/// Settings of the engine itself (the politeness numbers come from the profile).
#[derive(Debug, Clone)]
pub struct CrawlerConfig {
    /// Hosts worked concurrently; each host still has one request in flight at most.
    pub host_concurrency: usize,
    /// The time the policy reads (real, or sped up by `--time-scale`).
    pub clock: Clock,
    /// The public URL hubs reach this instance's `serve` at (`--websub-callback`): with one,
    /// a feed that names a WebSub hub is subscribed to there (under a profile that lists the
    /// `websub` purpose); without one, no hub is asked.
    pub websub_callback: Option<url::Url>,
}

impl Default for CrawlerConfig {
    fn default() -> Self {
        CrawlerConfig {
            host_concurrency: DEFAULT_HOST_CONCURRENCY,
            clock: Clock::real(),
            websub_callback: None,
        }
    }
}

/// The engine. Cheap to clone.
#[derive(Clone)]
pub struct Crawler {
    store: Arc<dyn Store>,
    fetcher: Arc<Fetcher>,
    profile: Arc<Profile>,
    config: CrawlerConfig,
    gate: Arc<gate::HostGate>,
    /// This process's host leases in the store (C3 across processes).
    leases: Arc<lease::Leases>,
    /// The robots.txt copies read, by host: each parsed once (`copies`).
    copies: Arc<std::sync::Mutex<copies::Copies>>,
    /// The do-not-crawl rules and the store's version of them (`blocks`).
    blocks: Arc<std::sync::Mutex<Option<blocks::Kept>>>,
    /// What it sent and its gate, for `/metrics` and the API.
    live: live::Live,
    /// When the bot keys were last looked at (`keys`).
    key_checked: Arc<tokio::sync::Mutex<Option<chrono::DateTime<chrono::Utc>>>>,
    /// Give-backs of ended lanes still being written ([`Crawler::end_lane`]).
    giving_back: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// WebSub subscription requests under way ([`Crawler::websub_after`]).
    websub_tasks: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// The search providers connected (FF18): none unless a caller connects one.
    providers: Arc<[Arc<dyn search::SearchProvider>]>,
}

impl Crawler {
    pub fn new(
        store: Arc<dyn Store>,
        fetcher: Arc<Fetcher>,
        profile: Arc<Profile>,
        config: CrawlerConfig,
    ) -> Crawler {
        let gate = Arc::new(gate::HostGate::new());
        let live = live::Live::new(gate.clone(), config.clock);
        let longest = time_limit(&fetcher, profile.retry.no_answer_patience);
        let leases = Arc::new(lease::Leases::new(longest));
        Crawler {
            store,
            fetcher,
            profile,
            config,
            gate,
            leases,
            copies: Arc::default(),
            blocks: Arc::default(),
            live,
            key_checked: Arc::default(),
            giving_back: Arc::default(),
            websub_tasks: Arc::default(),
            providers: Arc::new([]),
        }
    }

    /// Subscribe `who` to `url`; a new feed gets the schedule the policy gives a first
    /// read (C2: an existing feed is shared, not added again). A URL a do-not-crawl rule
    /// forbids is refused (FF13), and so is a feed removed on request (WFM10, by the store),
    /// and one the address guard would refuse at every read (`tidings_fetch::reachable`).
    pub async fn subscribe<'a>(
        &self,
        url: &tidings_model::FeedUrl,
        who: impl Into<tidings_store::Subscriber<'a>>,
    ) -> Result<tidings_store::Subscribed, CrawlError> {
        let who = who.into();
        let allow_private = self.fetcher.config().allow_private_networks;
        let now = self.config.clock.now();
        let subscribed =
            operator::subscribe(&*self.store, &self.profile, url, who, allow_private, now)
                .await
                .map_err(|e| match e {
                    operator::SubscribeError::Store(e) => CrawlError::Store(e),
                    operator::SubscribeError::Refused(refusal) => refused(refusal),
                })?;
        // A crawl of this crawler reads the new feed now, not at its next look.
        self.live.wake();
        Ok(subscribed)
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The live state this crawler updates: share it with the API (`tidings serve`).
    pub fn live(&self) -> live::Live {
        self.live.clone()
    }

    /// Crawler time now.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.config.clock.now()
    }

    /// Wait for `url`'s host under the gap `gap` (crawler time).
    ///
    /// The turn is this process's (the gate) and the host's across processes (its lease): a
    /// request that may take `budget` starts only under a lease that outlives it, and spaced
    /// from the last request another process sent there. End it with [`HostTurn::end`].
    pub(crate) async fn host_turn(
        &self,
        url: &url::Url,
        gap: std::time::Duration,
        budget: std::time::Duration,
    ) -> Result<HostTurn, CrawlError> {
        if !self.gate.knows(url) {
            self.seed_gate(url).await;
        }
        let gap = self.config.clock.real_wait(gap);
        let permit = self.gate.acquire(url, gap).await;
        let turn = HostTurn {
            permit,
            host: gate::host_of(url),
            gap,
            budget,
        };
        self.hold_lease(&turn).await?;
        Ok(turn)
    }

    /// Hold the turn's host lease for its request (claimed, renewed, or kept when it outlives
    /// the request plus the margin) and, after a claim, keep the gap from the last request
    /// any holder sent there.
    async fn hold_lease(&self, turn: &HostTurn) -> Result<(), CrawlError> {
        let claimed = self
            .leases
            .hold(&*self.store, &turn.host, turn.budget)
            .await?;
        if let Some(ended) = claimed.and_then(|c| c.last_end) {
            let ago = (chrono::Utc::now() - ended).to_std().unwrap_or_default();
            if let Some(at) = tokio::time::Instant::now().checked_sub(ago) {
                turn.permit.wait_after(at, turn.gap).await;
            }
        }
        Ok(())
    }

    /// A lane of this process works `host` (a gate key): its lease is kept between the
    /// lane's requests, until [`Crawler::end_lane`].
    pub(crate) fn start_lane(&self, host: &str) {
        self.leases.keep(host);
    }

    /// The lane of `host` ends: the host is given back unless another request of this
    /// process waits for it. (Kept longer, it would starve another process that wants it.)
    ///
    /// The give-back is written while the lane's slot goes to the next host: waiting for it
    /// cost each lane one more store write of latency. A lane of this process that claims
    /// the host again meanwhile is not hurt: its claim either comes first, and the give-back's
    /// older fencing token then matches nothing, or after, and claims a free host. The run
    /// waits for every give-back before it ends ([`Crawler::give_back_unkept`]).
    pub(crate) fn end_lane(&self, host: &str) {
        self.leases.unkeep(host);
        if self.leases.kept(host) {
            return;
        }
        let crawler = self.clone();
        let host = host.to_owned();
        let task = tokio::spawn(async move { crawler.give_back_all(vec![host]).await });
        let mut pending = self.giving_back.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|t| !t.is_finished());
        pending.push(task);
    }

    /// Give back every host lease no lane keeps and no request of this process waits for
    /// (at the end of a run: one whose lane ended while a request waited is left to it),
    /// once the give-backs of ended lanes are written.
    pub async fn give_back_unkept(&self) {
        // A subscription request holds its hub's lease until it is answered.
        self.websub_settle().await;
        let pending =
            std::mem::take(&mut *self.giving_back.lock().unwrap_or_else(|e| e.into_inner()));
        for task in pending {
            // A give-back that failed left its lease to expire (and said so).
            let _ = task.await;
        }
        self.give_back_all(self.leases.unkept()).await;
    }

    /// Give `hosts`' leases back, each with the end of its last request, except those a
    /// request of this process waits for. A store error leaves the leases to expire.
    async fn give_back_all(&self, hosts: Vec<String>) {
        let hosts: Vec<(String, Option<chrono::DateTime<chrono::Utc>>)> = hosts
            .into_iter()
            .filter(|host| self.gate.waiting(host) == 0)
            .map(|host| {
                let end = self.last_end(&host);
                (host, end)
            })
            .collect();
        if hosts.is_empty() {
            return;
        }
        if let Err(e) = self.leases.release_many(&*self.store, &hosts).await {
            tracing::warn!(error = %e, "host leases not given back; they expire");
        }
    }

    /// When the last request to `host` ended, by this process's gate, in real time.
    fn last_end(&self, host: &str) -> Option<chrono::DateTime<chrono::Utc>> {
        self.gate.state(host).and_then(|s| s.last_ended).map(|at| {
            chrono::Utc::now() - chrono::Duration::from_std(at.elapsed()).unwrap_or_default()
        })
    }

    /// Give `host`'s lease back with the end of its last request, unless a lane keeps it or
    /// a request waits for its turn.
    async fn give_back(&self, host: &str) {
        if !self.leases.kept(host) {
            self.give_back_all(vec![host.to_owned()]).await;
        }
    }

    /// Send one request for `purpose` (the request log's) and count it in [`Crawler::live`].
    /// The User-Agent of `feed`'s requests when the profile counts subscribers (PF10); `None`
    /// sends the fetcher's own. One per read: every hop and its robots.txt carry the same.
    pub(crate) fn user_agent_of(&self, subscribers: i64) -> Option<String> {
        self.profile
            .counts_subscribers()
            .then(|| Profile::user_agent_of_feed(&self.fetcher.config().user_agent, subscribers))
    }

    /// Send one request in `turn`, once its row `ahead` is written to the request log (C7),
    /// and count it in [`Crawler::live`]. Nothing is sent when the row cannot be written. The
    /// ticket goes into the request's own row, which closes the one written ahead. Writing
    /// the row may take long (a store coming back), so the lease is held again before the
    /// request starts: it still outlives the request plus the margin (C3).
    pub(crate) async fn send(
        &self,
        turn: &HostTurn,
        request: &tidings_fetch::FetchRequest,
        purpose: &'static str,
        ahead: &tidings_store::RequestLogRow,
    ) -> Result<(tidings_fetch::FetchResponse, tidings_model::RequestTicket), CrawlError> {
        let ticket = self.store.open_request(ahead).await?;
        if let Err(lost) = self.hold_lease(turn).await {
            // Nothing is sent: the row written ahead goes, so the log keeps only requests
            // that left (C7).
            if let Err(e) = self.store.withdraw_request(ticket).await {
                tracing::warn!(error = %e, "a request not sent stays in the log as in flight");
            }
            return Err(lost);
        }
        let response = self.fetcher.fetch(request).await;
        self.live.record(purpose, &response);
        Ok((response, ticket))
    }

    /// The first request of this process to a host is spaced from the last one the request
    /// log holds for the URL's origin (an earlier run's), not sent at once after a restart
    /// (C3). The exact origin is asked, which the log's index answers at once; another
    /// scheme or port of the same name is not looked up.
    async fn seed_gate(&self, url: &url::Url) {
        let query = tidings_store::LogQuery {
            host: Some(tidings_model::HostKey::of(url).to_string()),
            feed: None,
            limit: 1,
        };
        let last = match self.store.request_log(&query).await {
            Ok(rows) => rows.into_iter().next(),
            Err(e) => {
                tracing::warn!(error = %e, "request log unreadable; host gate not seeded");
                return;
            }
        };
        let Some(row) = last else {
            return;
        };
        // The row's time is crawler time; its duration was measured in real time. A request
        // whose answer was never stored (its process stopped) may have lasted as long as any
        // request may.
        let scale = i64::from(self.config.clock.scale());
        let took_ms = if row.outcome == tidings_model::Label::InFlight {
            let longest = time_limit(&self.fetcher, self.profile.retry.no_answer_patience);
            i64::try_from(longest.as_millis()).unwrap_or(i64::MAX)
        } else {
            row.duration_ms
        };
        let ended = chrono::Duration::try_milliseconds(took_ms.saturating_mul(scale))
            .and_then(|took| row.at.checked_add_signed(took))
            .unwrap_or(row.at);
        let ago = (self.now() - ended).to_std().unwrap_or_default();
        if let Some(at) = tokio::time::Instant::now().checked_sub(self.config.clock.real_wait(ago))
        {
            self.gate.seed(url, at);
        }
    }
}
