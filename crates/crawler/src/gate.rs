//! Per-host gate: one request in flight per host, and a minimum gap between two (C3).
//!
//! A [`HostGate`] hands out one [`Permit`] per host at a time; taking a permit waits until the
//! previous request to that host ended at least `gap` ago. A host is its lower-cased name
//! without a trailing dot ([`host_of`]): `http://`, `https://` and every port of one name share
//! one gate, since they are one server to its operator. The gap is measured from the end of
//! the previous request, so a slow server is never asked faster than it answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};
use tokio::time::Instant;
use url::Url;

/// The gate for all hosts.
pub struct HostGate {
    hosts: Mutex<HashMap<String, Arc<Slot>>>,
    /// The instant the slots' times count from.
    epoch: Instant,
}

/// One host's turn and what a reader of [`HostGate::state`] sees of it. The times are atomics
/// written only by the holder of `turn`, so reading them takes no lock.
struct Slot {
    /// Held by the request in flight, and by the next one while it waits out the gap.
    turn: Arc<AsyncMutex<()>>,
    /// When the last request ended, in nanoseconds from the gate's epoch (negative for a
    /// seed from before it); [`NEVER`] when none did.
    ended: AtomicI64,
    /// The gap the last (or current) request was spaced by, in nanoseconds; [`NEVER`] as
    /// `u64` when no request of this gate had one yet.
    gap: AtomicU64,
    in_flight: AtomicBool,
    /// Requests waiting for the turn.
    waiting: AtomicUsize,
}

const NEVER: i64 = i64::MIN;

impl Slot {
    fn new(ended: i64) -> Slot {
        Slot {
            turn: Arc::default(),
            ended: AtomicI64::new(ended),
            gap: AtomicU64::new(u64::MAX),
            in_flight: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
        }
    }
}

/// The right to send one request to one host. Dropping it records the end of the request.
pub struct Permit {
    slot: Arc<Slot>,
    epoch: Instant,
    _turn: OwnedMutexGuard<()>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.slot
            .ended
            .store(offset(self.epoch, Instant::now()), Ordering::Release);
        self.slot.in_flight.store(false, Ordering::Release);
    }
}

/// What the gate holds for one host at a moment ([`HostGate::state`]), in real time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateState {
    /// A request to the host is being sent or answered now.
    pub in_flight: bool,
    /// When the last request ended (or an earlier process's, from the request log).
    pub last_ended: Option<Instant>,
    /// The gap the last request was spaced by; `None` before this gate sent one.
    pub gap: Option<Duration>,
}

impl GateState {
    /// The earliest the next request may start: the last end plus the gap; `None` while one
    /// is in flight (its end is not known yet) or when either is unknown. In the past when
    /// the host is free.
    pub fn next_allowed(&self) -> Option<Instant> {
        if self.in_flight {
            return None;
        }
        Some(self.last_ended? + self.gap?)
    }
}

impl Default for HostGate {
    fn default() -> Self {
        HostGate::new()
    }
}

impl HostGate {
    pub fn new() -> HostGate {
        HostGate {
            hosts: Mutex::new(HashMap::new()),
            epoch: Instant::now(),
        }
    }

    /// Wait for the turn of `url`'s host: until no other request to it is in flight and the
    /// last one ended at least `gap` ago (the profile's gap or the host's crawl-delay).
    pub async fn acquire(&self, url: &Url, gap: Duration) -> Permit {
        let slot = {
            let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts
                .entry(host_of(url))
                .or_insert_with(|| Arc::new(Slot::new(NEVER)))
                .clone()
        };
        slot.waiting.fetch_add(1, Ordering::AcqRel);
        let turn = slot.turn.clone().lock_owned().await;
        slot.waiting.fetch_sub(1, Ordering::AcqRel);
        slot.gap.store(
            u64::try_from(gap.as_nanos()).unwrap_or(u64::MAX - 1),
            Ordering::Release,
        );
        if let Some(last) = instant(self.epoch, slot.ended.load(Ordering::Acquire)) {
            tokio::time::sleep_until(last + gap).await;
        }
        slot.in_flight.store(true, Ordering::Release);
        Permit {
            slot,
            epoch: self.epoch,
            _turn: turn,
        }
    }
}

impl Permit {
    /// Another process's request to this host ended at `ended` (from its host lease): if that
    /// is later than what this gate knows, the turn waits until `gap` after it (C3 across
    /// processes).
    pub async fn wait_after(&self, ended: Instant, gap: Duration) {
        let known = instant(self.epoch, self.slot.ended.load(Ordering::Acquire));
        if known.is_none_or(|k| ended > k) {
            self.slot
                .ended
                .store(offset(self.epoch, ended), Ordering::Release);
            tokio::time::sleep_until(ended + gap).await;
        }
    }
}

impl HostGate {
    /// How many requests to `host` (a name as [`host_of`] gives it) wait for its turn.
    pub fn waiting(&self, host: &str) -> usize {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .get(host)
            .map_or(0, |slot| slot.waiting.load(Ordering::Acquire))
    }

    /// Whether this gate has a record of `url`'s host (a request sent, or a seed).
    pub fn knows(&self, url: &Url) -> bool {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts.contains_key(&host_of(url))
    }

    /// Record that the last request to `url`'s host ended at `ended`, before this gate saw
    /// any (an earlier process's request, from the request log), unless it knows the host.
    pub fn seed(&self, url: &Url, ended: Instant) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .entry(host_of(url))
            .or_insert_with(|| Arc::new(Slot::new(offset(self.epoch, ended))));
    }

    /// How long `url`'s host has been quiet: since its last request ended (zero while one is
    /// in flight or waiting for its turn; `None` when nothing was sent to it by this gate).
    pub fn quiet_for(&self, url: &Url) -> Option<Duration> {
        let slot = {
            let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts.get(&host_of(url))?.clone()
        };
        if slot.turn.try_lock().is_err() {
            return Some(Duration::ZERO);
        }
        instant(self.epoch, slot.ended.load(Ordering::Acquire)).map(|t| t.elapsed())
    }

    /// What the gate holds for `host` (a name as [`host_of`] gives it), without waiting for
    /// its turn; `None` when the gate never saw the host.
    pub fn state(&self, host: &str) -> Option<GateState> {
        let slot = {
            let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts.get(host)?.clone()
        };
        let gap = slot.gap.load(Ordering::Acquire);
        Some(GateState {
            in_flight: slot.in_flight.load(Ordering::Acquire),
            last_ended: instant(self.epoch, slot.ended.load(Ordering::Acquire)),
            gap: (gap != u64::MAX).then(|| Duration::from_nanos(gap)),
        })
    }

    /// Wait until every request decided before now has ended: each host with a request in
    /// flight or waiting for its turn is taken in turn once, after them. A request is checked
    /// against the rules once its turn is taken, so the ones after this see every rule added
    /// before it (FF13). Nothing is recorded: no gap follows.
    pub async fn settle(&self) {
        let busy: Vec<Arc<Slot>> = {
            let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts
                .values()
                .filter(|slot| {
                    slot.in_flight.load(Ordering::Acquire)
                        || slot.waiting.load(Ordering::Acquire) > 0
                        || slot.turn.try_lock().is_err()
                })
                .cloned()
                .collect()
        };
        for slot in busy {
            drop(slot.turn.clone().lock_owned().await);
        }
    }

    /// How many hosts have a request in flight now.
    pub fn in_flight(&self) -> usize {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .values()
            .filter(|slot| slot.in_flight.load(Ordering::Acquire))
            .count()
    }
}

/// `t` as signed nanoseconds from `epoch` (saturating).
fn offset(epoch: Instant, t: Instant) -> i64 {
    let nanos = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    if t >= epoch {
        nanos(t - epoch)
    } else {
        // Never NEVER: i64::MIN + 1 at the most negative.
        -nanos(epoch - t)
    }
}

/// The instant `offset` nanoseconds from `epoch`; `None` for [`NEVER`].
fn instant(epoch: Instant, offset: i64) -> Option<Instant> {
    if offset == NEVER {
        return None;
    }
    let d = Duration::from_nanos(offset.unsigned_abs());
    if offset >= 0 {
        Some(epoch + d)
    } else {
        Some(epoch.checked_sub(d).unwrap_or(epoch))
    }
}

/// The gate key of a URL: its host name, lower-cased, without a trailing dot.
pub fn host_of(url: &Url) -> String {
    url.host_str()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use url::Url;

    fn host(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn c3_one_request_at_a_time_per_host_with_the_gap_between() {
        let gate = Arc::new(HostGate::new());
        let gap = Duration::from_secs(2);
        let t0 = Instant::now();
        let first = gate.acquire(&host("http://a.test/"), gap).await;
        // Another host is not held up.
        let other = gate.acquire(&host("http://b.test/"), gap).await;
        assert_eq!(Instant::now(), t0);
        drop(other);
        let g = gate.clone();
        let second = tokio::spawn(async move {
            // Another scheme and port of the same name wait for the same gate.
            let _p = g.acquire(&host("https://A.test.:8443/x"), gap).await;
            Instant::now()
        });
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(first); // ends at t0 + 5s
        let started = second.await.unwrap();
        assert_eq!(started - t0, Duration::from_secs(7));
    }

    #[tokio::test(start_paused = true)]
    async fn c3_a_seeded_end_spaces_the_first_request_and_never_overrides_a_known_host() {
        let gate = HostGate::new();
        let gap = Duration::from_secs(10);
        let t0 = Instant::now();
        let url = host("http://a.test/");
        assert!(!gate.knows(&url));
        gate.seed(&url, t0 - Duration::from_secs(4));
        assert!(gate.knows(&url));
        drop(gate.acquire(&url, gap).await);
        assert_eq!(Instant::now() - t0, Duration::from_secs(6));
        // The gate's own record wins over a later seed.
        let ended = Instant::now();
        gate.seed(&url, ended - Duration::from_secs(60));
        drop(gate.acquire(&url, gap).await);
        assert_eq!(Instant::now() - ended, Duration::from_secs(10));
    }

    /// FF13: settling waits for the request in flight and the one waiting for its turn, and
    /// then for nothing: a rule added before it governs every request decided after.
    #[tokio::test(start_paused = true)]
    async fn ff13_settling_waits_for_the_requests_decided_before_it() {
        let gate = Arc::new(HostGate::new());
        let url = host("http://a.test/");
        let first = gate.acquire(&url, Duration::ZERO).await;
        let g = gate.clone();
        let u = url.clone();
        let second = tokio::spawn(async move {
            let p = g.acquire(&u, Duration::from_secs(1)).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            drop(p);
            Instant::now()
        });
        tokio::task::yield_now().await;
        let t0 = Instant::now();
        let g = gate.clone();
        let settled = tokio::spawn(async move {
            g.settle().await;
            Instant::now()
        });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!settled.is_finished(), "the request in flight is not over");
        drop(first); // ends at t0 + 5 s; the waiting one goes at 6 s and ends at 8 s
        let second_ended = second.await.unwrap();
        let settled_at = settled.await.unwrap();
        assert_eq!(second_ended - t0, Duration::from_secs(8));
        assert!(settled_at >= second_ended, "after the one that waited");
        // Nothing in flight: settling is immediate.
        let t1 = Instant::now();
        gate.settle().await;
        assert_eq!(Instant::now(), t1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_state_shows_a_request_in_flight_then_when_the_next_may_start() {
        let gate = HostGate::new();
        let url = host("http://A.test./feed");
        assert_eq!(gate.state("a.test"), None);
        let t0 = Instant::now();
        gate.seed(&url, t0 - Duration::from_secs(4));
        let seeded = gate.state("a.test").unwrap();
        assert_eq!(
            seeded,
            GateState {
                in_flight: false,
                last_ended: Some(t0 - Duration::from_secs(4)),
                gap: None,
            }
        );
        assert_eq!(seeded.next_allowed(), None, "no gap known yet");
        let gap = Duration::from_secs(10);
        let permit = gate.acquire(&url, gap).await;
        let started = Instant::now();
        assert_eq!(started - t0, Duration::from_secs(6));
        let busy = gate.state("a.test").unwrap();
        assert!(busy.in_flight);
        assert_eq!(busy.gap, Some(gap));
        assert_eq!(busy.next_allowed(), None, "its end is not known yet");
        assert_eq!(gate.in_flight(), 1);
        tokio::time::sleep(Duration::from_secs(3)).await;
        drop(permit);
        let free = gate.state("a.test").unwrap();
        assert!(!free.in_flight);
        assert_eq!(gate.in_flight(), 0);
        assert_eq!(free.last_ended, Some(started + Duration::from_secs(3)));
        assert_eq!(free.next_allowed(), Some(started + Duration::from_secs(13)));
    }
}
