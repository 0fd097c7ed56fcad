//! Host leases: one holder per host across every process that shares the store (C3).
//!
//! The [`gate`](crate::gate) keeps one request in flight per host inside this process; a
//! lease in the store (`Store::claim_host`) keeps it across processes: `serve` crawling, an
//! `add` or a `fetch` beside it, several `crawl`s on one PostgreSQL. The process claims a
//! host's lease in the host's turn, before its request, and holds it while it has more to send
//! there (a lane of the host's due feeds, or another request of its own waiting for the turn);
//! then it gives the host back with the end of its last request, which the next holder's first
//! request is spaced from.
//!
//! A lease expires ([`Leases::ttl`]), so the host of a holder that died is free again; a
//! holder never starts a request its lease would not outlive: with less than the request's
//! hard time-out plus [`MARGIN`] left, it renews first. Leases are kept in real (wall-clock)
//! time, whatever the crawler's clock, since they are shared with other processes.

use crate::CrawlError;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tidings_store::{Fence, HostClaim, Release, Store};

/// What a request's time-out is topped up by before its lease must still run.
pub const MARGIN: Duration = Duration::from_secs(5);
/// How often a host another process holds is asked for again.
const POLL: Duration = Duration::from_millis(100);

/// This process's leases.
pub struct Leases {
    /// Who this process is, in the store: unique per process and start.
    holder: String,
    /// How long a claim runs.
    ttl: Duration,
    held: Mutex<HashMap<String, Held>>,
}

#[derive(Debug, Clone, Copy)]
struct Held {
    token: i64,
    expires_at: DateTime<Utc>,
    /// Lanes of this process that keep the host between their requests.
    lanes: usize,
    /// The host's last end as the claim found it, not yet handed to a request.
    unseen_end: Option<DateTime<Utc>>,
}

/// A claim that went through: when the host's last request ended, as its last holder gave it
/// back (another process, or this one after a release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claimed {
    pub last_end: Option<DateTime<Utc>>,
}

impl Leases {
    /// Leases that run `ttl` from each claim; at least twice the longest request (`longest`)
    /// plus the margin, so a renewal before each request is rare.
    pub fn new(longest: Duration) -> Leases {
        Leases {
            holder: holder_id(),
            ttl: longest.saturating_mul(2).saturating_add(MARGIN),
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Hold `host` for a request that may take up to `budget`: a lease held that outlives it
    /// plus the margin is kept; else the host is claimed (or the lease renewed), waiting while
    /// another process holds it. `None` when the lease was already held.
    pub async fn hold(
        &self,
        store: &dyn Store,
        host: &str,
        budget: Duration,
    ) -> Result<Option<Claimed>, CrawlError> {
        let needed = chrono::Duration::from_std(budget.saturating_add(MARGIN))
            .unwrap_or(chrono::Duration::MAX);
        loop {
            let now = Utc::now();
            {
                let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(h) = held.get_mut(host)
                    && h.expires_at > now.checked_add_signed(needed).unwrap_or(now)
                {
                    return Ok(h.unseen_end.take().map(|end| Claimed {
                        last_end: Some(end),
                    }));
                }
            }
            let until = now
                .checked_add_signed(chrono::Duration::from_std(self.ttl).unwrap_or_default())
                .unwrap_or(now);
            match store.claim_host(host, &self.holder, now, until).await? {
                HostClaim::Held(lease) => {
                    let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
                    let lanes = held.get(host).map_or(0, |h| h.lanes);
                    held.insert(
                        host.to_owned(),
                        Held {
                            token: lease.token,
                            expires_at: lease.expires_at,
                            lanes,
                            unseen_end: None,
                        },
                    );
                    return Ok(Some(Claimed {
                        last_end: lease.last_end,
                    }));
                }
                HostClaim::Busy { until } => {
                    let left = (until - now).to_std().unwrap_or_default();
                    tokio::time::sleep(left.clamp(Duration::from_millis(1), POLL)).await;
                }
            }
        }
    }

    /// A lane of this process starts working `host`: the lease is kept between its requests.
    pub fn keep(&self, host: &str) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.entry(host.to_owned())
            .or_insert(Held {
                token: 0,
                expires_at: DateTime::<Utc>::MIN_UTC,
                lanes: 0,
                unseen_end: None,
            })
            .lanes += 1;
    }

    /// Give back, in one go, the leases of `hosts` no lane keeps, each with its last
    /// request's end (real time).
    pub async fn release_many(
        &self,
        store: &dyn Store,
        hosts: &[(String, Option<DateTime<Utc>>)],
    ) -> Result<(), CrawlError> {
        let releases: Vec<Release> = {
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            hosts
                .iter()
                .filter_map(|(host, last_end)| match held.get(host).copied() {
                    Some(h) if h.lanes == 0 => {
                        held.remove(host);
                        (h.token != 0).then(|| Release {
                            host: host.clone(),
                            token: h.token,
                            last_end: *last_end,
                        })
                    }
                    _ => None,
                })
                .collect()
        };
        store
            .release_hosts(&self.holder, &releases, Utc::now())
            .await?;
        Ok(())
    }

    /// A lane of `host` ends.
    pub fn unkeep(&self, host: &str) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = held.get_mut(host) {
            h.lanes = h.lanes.saturating_sub(1);
        }
    }

    /// Hosts whose lease this process holds and no lane keeps.
    pub fn unkept(&self) -> Vec<String> {
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.iter()
            .filter(|(_, h)| h.lanes == 0 && h.token != 0)
            .map(|(host, _)| host.clone())
            .collect()
    }

    /// The fencing token of this process's lease on `host`, for a write made under it: the
    /// store writes it only while no other holder has claimed the host since.
    pub fn fence(&self, host: &str) -> Option<Fence> {
        self.get(host).filter(|h| h.token != 0).map(|h| Fence {
            host: host.to_owned(),
            token: h.token,
        })
    }

    /// Whether a lane keeps `host`.
    pub fn kept(&self, host: &str) -> bool {
        self.get(host).is_some_and(|h| h.lanes > 0)
    }

    fn get(&self, host: &str) -> Option<Held> {
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.get(host).copied()
    }
}

/// A holder id unique to this process and start: the process id and random bits (the start
/// time when the system has no randomness to give).
fn holder_id() -> String {
    let mut bytes = [0u8; 8];
    let random = match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => Utc::now().timestamp_nanos_opt().unwrap_or_default() as u64,
    };
    format!("pid{}-{random:016x}", std::process::id())
}
