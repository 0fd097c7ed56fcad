//! What a crawler shows while it runs, for `/metrics` and the API of `tidings serve`: the
//! requests it sent by outcome and purpose, how long they took, and the host gate's state.
//!
//! A [`Live`] is cheap to clone (the clones share their counters) and cheap to update: one
//! atomic add per counter, the labelled counter found under an uncontended read lock. The
//! gate is read as it is, never copied: see [`HostGate::state`]. Nothing here decides anything
//! and nothing is stored; a new process starts from zero, as Prometheus counters do.

use crate::clock::Clock;
use crate::gate::HostGate;
use chrono::{DateTime, Utc};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use std::sync::Arc;
use std::time::Duration;
use tidings_fetch::FetchResponse;
use tidings_model::FetchOutcome;

/// Upper bounds of the fetch latency histogram's buckets, in seconds: 5 ms to 30 s.
pub const LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The labels of one fetch counter: `FetchOutcome::label` and the request log's purpose.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FetchLabels {
    outcome: &'static str,
    purpose: &'static str,
}

/// The crawler's live state, shared with whoever shows it.
#[derive(Clone)]
pub struct Live {
    fetches: Family<FetchLabels, Counter>,
    durations: Histogram,
    gate: Arc<HostGate>,
    clock: Clock,
    /// Wakes a sleeping crawl to look for due work now ([`Live::wake`]).
    wake: Arc<tokio::sync::Notify>,
    /// The page queue's worker is woken apart: each wake reaches both.
    jobs: Arc<tokio::sync::Notify>,
}

/// A host's gate as the API shows it, in crawler time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateView {
    /// A request to the host is being sent or answered now.
    pub in_flight: bool,
    /// The earliest the next request may start (in the past when the host is free now);
    /// `None` while one is in flight, or before this process sent the host anything.
    pub next_allowed_at: Option<DateTime<Utc>>,
    /// The gap the last request to the host was spaced by (the profile's gap, or the host's
    /// crawl-delay); `None` before this process sent the host anything.
    pub gap: Option<Duration>,
}

impl Live {
    /// A live state over `gate`, whose real times are shown in `clock`'s time (each
    /// [`Crawler`](crate::Crawler) makes its own: [`Crawler::live`](crate::Crawler::live)).
    pub fn new(gate: Arc<HostGate>, clock: Clock) -> Live {
        Live {
            fetches: Family::default(),
            durations: Histogram::new(LATENCY_BUCKETS),
            gate,
            clock,
            wake: Arc::default(),
            jobs: Arc::default(),
        }
    }

    /// Tell the crawl there may be work due now (a feed was subscribed to, resumed or
    /// rescheduled elsewhere in the process), so it looks at once instead of at its next wake.
    /// A wake while it is busy is kept for its next sleep.
    pub fn wake(&self) {
        self.wake.notify_one();
        self.jobs.notify_one();
    }

    /// Wait until every request this crawler decided before now has ended (see
    /// [`HostGate::settle`]).
    pub async fn settle(&self) {
        self.gate.settle().await;
    }

    /// Resolves at the next [`Live::wake`] (at once when one came since the last).
    pub(crate) async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Resolves at the next [`Live::wake`] for the page queue's worker.
    pub(crate) async fn jobs_woken(&self) {
        self.jobs.notified().await;
    }

    /// Count one request of `purpose` (the request log's: `feed`, `first_add`, `robots`)
    /// and its latency. A request the fetcher refused to send (`blocked`) is not counted.
    pub fn record(&self, purpose: &'static str, response: &FetchResponse) {
        if matches!(response.outcome, FetchOutcome::Blocked { .. }) {
            return;
        }
        let labels = FetchLabels {
            outcome: response.outcome.label().as_str(),
            purpose,
        };
        self.fetches.get_or_create(&labels).inc();
        self.durations.observe(response.duration.as_secs_f64());
    }

    /// Crawler time now (the due queue is counted at it).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// A host's gate now (`host` as `gate::host_of` gives it: lower case, no trailing dot);
    /// the default view for a host this process never sent anything.
    pub fn gate(&self, host: &str) -> GateView {
        let Some(state) = self.gate.state(host) else {
            return GateView::default();
        };
        GateView {
            in_flight: state.in_flight,
            next_allowed_at: state.next_allowed().map(|at| self.crawler_time(at)),
            gap: state.gap.map(|gap| gap.saturating_mul(self.clock.scale())),
        }
    }

    /// Add the crawler's series to `registry`: `tidings_fetches_total{outcome,purpose}`,
    /// `tidings_fetch_duration_seconds` and `tidings_hosts_in_flight` (read when encoded).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "tidings_fetches",
            "Requests sent to publishers, by outcome and by purpose (feed, first_add, robots)",
            self.fetches.clone(),
        );
        registry.register_with_unit(
            "tidings_fetch_duration",
            "How long a request to a publisher took, from sending to the end of the body",
            Unit::Seconds,
            self.durations.clone(),
        );
        registry.register_collector(Box::new(InFlight(self.gate.clone())));
    }

    /// The crawler time of a real instant of the gate.
    fn crawler_time(&self, at: tokio::time::Instant) -> DateTime<Utc> {
        let now = tokio::time::Instant::now();
        let scale = self.clock.scale();
        let later = |d: Duration| chrono::Duration::from_std(d.saturating_mul(scale)).ok();
        let shown = if at >= now {
            later(at - now).and_then(|d| self.clock.now().checked_add_signed(d))
        } else {
            later(now - at).and_then(|d| self.clock.now().checked_sub_signed(d))
        };
        shown.unwrap_or_else(|| self.clock.now())
    }
}

/// `tidings_hosts_in_flight`, counted from the gate at each scrape.
struct InFlight(Arc<HostGate>);

impl std::fmt::Debug for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InFlight")
    }
}

impl Collector for InFlight {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let gauge = ConstGauge::new(i64::try_from(self.0.in_flight()).unwrap_or(i64::MAX));
        let metric = encoder.encode_descriptor(
            "tidings_hosts_in_flight",
            "Hosts with a request in flight now (at most one each, C3)",
            None,
            gauge.metric_type(),
        )?;
        gauge.encode(metric)
    }
}
