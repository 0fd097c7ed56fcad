//! Per-host gate: one request in flight per host, and a minimum gap between two (C3).
//!
//! A [`HostGate`] hands out one [`Permit`] per host at a time; taking a permit waits until the
//! previous request to that host ended at least `gap` ago. A host is its lower-cased name
//! without a trailing dot ([`host_of`]): `http://`, `https://` and every port of one name share
//! one gate, since they are one server to its operator. The gap is measured from the end of
//! the previous request, so a slow server is never asked faster than it answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};
use tokio::time::Instant;
use url::Url;

/// The gate for all hosts.
pub struct HostGate {
    hosts: Mutex<HashMap<String, Arc<AsyncMutex<Option<Instant>>>>>,
}

/// The right to send one request to one host. Dropping it records the end of the request.
pub struct Permit {
    guard: OwnedMutexGuard<Option<Instant>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        *self.guard = Some(Instant::now());
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
        }
    }

    /// Wait for the turn of `url`'s host: until no other request to it is in flight and the
    /// last one ended at least `gap` ago (the profile's gap or the host's crawl-delay).
    pub async fn acquire(&self, url: &Url, gap: Duration) -> Permit {
        let slot = {
            let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts.entry(host_of(url)).or_default().clone()
        };
        let guard = slot.lock_owned().await;
        if let Some(last) = *guard {
            tokio::time::sleep_until(last + gap).await;
        }
        Permit { guard }
    }
}

impl HostGate {
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
            .or_insert_with(|| Arc::new(AsyncMutex::new(Some(ended))));
    }

    /// How long `url`'s host has been quiet: since its last request ended (zero while one is
    /// in flight; `None` when nothing was sent to it by this gate).
    pub fn quiet_for(&self, url: &Url) -> Option<Duration> {
        let slot = {
            let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
            hosts.get(&host_of(url))?.clone()
        };
        match slot.try_lock() {
            Ok(last) => last.map(|t| t.elapsed()),
            Err(_) => Some(Duration::ZERO),
        }
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
}
