//! Failed key checks per client address: a guesser is slowed down, however many keys it tries.
//!
//! Every failed check of a token a client chose (an unknown or malformed `Authorization: Bearer`
//! header, a failed `POST /login`) takes one request from its address's bucket
//! ([`crate::auth::AuthConfig::failures`]: a burst of [`FAILURE_BURST`], one more every
//! [`FAILURE_REFILL`]). While the bucket is empty, every key check from that address is
//! refused with a 429 and `Retry-After` before the store is asked, a correct key included.
//! Successful checks cost nothing here; the per-key rate (`crate::auth::RateLimit`) governs
//! them.
//!
//! Addresses are grouped as [`ClientKey`]s (an IPv6 client by its /64, which one host usually
//! holds whole). The table holds at most [`MAX_TRACKED`] addresses: when it is full, buckets
//! that have refilled are forgotten, and if none has, the new address shares one overflow
//! bucket, so a flood of addresses cannot grow memory without bound (it only slows down
//! other new addresses while it lasts).
//!
//! Pure: the caller passes `now`.

use crate::auth::{Bucket, RateLimit};
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Failed key checks an address may make in a row: ten is more than a person pasting the wrong
/// key makes, and few enough that a guesser learns nothing.
pub const FAILURE_BURST: u32 = 10;
/// One more failed check is allowed this often once the burst is spent: a person waits half a
/// minute; a guesser makes 2,880 guesses a day at most.
pub const FAILURE_REFILL: Duration = Duration::from_secs(30);
/// Client addresses whose failures are remembered at once (about 100 KiB of buckets).
pub const MAX_TRACKED: usize = 4096;

/// The default limit on failed key checks per address.
pub fn default_failures() -> RateLimit {
    RateLimit {
        burst: FAILURE_BURST,
        refill_every: FAILURE_REFILL,
    }
}

/// A client's address as limits count it: an IPv4 address, or an IPv6 address's /64
/// (an IPv4-mapped IPv6 address is its IPv4 address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None => {
                    let bits = u128::from(v6) & !((1u128 << 64) - 1);
                    ClientKey(IpAddr::V6(bits.into()))
                }
            },
        }
    }
}

/// The buckets of the addresses that failed lately.
#[derive(Debug)]
pub struct Throttle {
    rate: RateLimit,
    capacity: usize,
    buckets: HashMap<ClientKey, Bucket>,
    /// Shared by new addresses while the table is full of addresses still being limited.
    overflow: Option<Bucket>,
}

impl Throttle {
    pub fn new(rate: RateLimit, capacity: usize) -> Throttle {
        Throttle {
            rate,
            capacity: capacity.max(1),
            buckets: HashMap::new(),
            overflow: None,
        }
    }

    /// Whether `client` may have a key checked at `now`, or how long it must wait.
    pub fn check(&mut self, client: ClientKey, now: Instant) -> Result<(), Duration> {
        let rate = self.rate;
        let full = self.buckets.len() >= self.capacity;
        match self.buckets.get_mut(&client) {
            Some(bucket) => bucket.check(rate, now),
            None if full => match &mut self.overflow {
                Some(bucket) => bucket.check(rate, now),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// Count one failed check by `client` at `now`.
    pub fn failed(&mut self, client: ClientKey, now: Instant) {
        let rate = self.rate;
        if !self.buckets.contains_key(&client) && self.buckets.len() >= self.capacity {
            self.buckets.retain(|_, bucket| !bucket.full_at(rate, now));
        }
        let bucket = if self.buckets.contains_key(&client) || self.buckets.len() < self.capacity {
            self.buckets
                .entry(client)
                .or_insert_with(|| Bucket::full(rate, now))
        } else {
            self.overflow.get_or_insert_with(|| Bucket::full(rate, now))
        };
        // An empty bucket stays empty; the wait is what `check` reports.
        let _ = bucket.take(rate, now);
    }

    /// Addresses remembered now (for tests and the bound).
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> ClientKey {
        ClientKey::of(text.parse().unwrap())
    }

    #[test]
    fn ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(ip("2001:db8:1:2:aaaa::1"), ip("2001:db8:1:2:bbbb::2"));
        assert_ne!(ip("2001:db8:1:2::1"), ip("2001:db8:1:3::1"));
        assert_eq!(ip("::ffff:192.0.2.7"), ip("192.0.2.7"));
        assert_ne!(ip("192.0.2.7"), ip("192.0.2.8"));
    }

    #[test]
    fn an_address_past_its_failures_waits_and_others_do_not() {
        let rate = RateLimit {
            burst: 3,
            refill_every: Duration::from_secs(30),
        };
        let mut throttle = Throttle::new(rate, 16);
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let (a, b) = (ip("192.0.2.1"), ip("192.0.2.2"));
        for _ in 0..3 {
            assert_eq!(throttle.check(a, at(0)), Ok(()));
            throttle.failed(a, at(0));
        }
        assert_eq!(throttle.check(a, at(0)), Err(Duration::from_secs(30)));
        assert_eq!(throttle.check(a, at(10)), Err(Duration::from_secs(20)));
        assert_eq!(throttle.check(b, at(10)), Ok(()), "another address");
        assert_eq!(throttle.check(a, at(30)), Ok(()), "one refilled");
        throttle.failed(a, at(30));
        assert!(throttle.check(a, at(31)).is_err());
    }

    #[test]
    fn a_flood_of_addresses_never_grows_the_table_past_its_bound() {
        let rate = RateLimit {
            burst: 1,
            refill_every: Duration::from_secs(60),
        };
        let mut throttle = Throttle::new(rate, 4);
        let now = Instant::now();
        for n in 0..100u32 {
            let client = ClientKey::of(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + n)));
            throttle.failed(client, now);
            assert!(throttle.tracked() <= 4);
        }
        // Every newcomer shares the spent overflow bucket while the flood's buckets are empty.
        assert!(throttle.check(ip("192.0.2.99"), now).is_err());
        // Once they refill they are forgotten and room is made.
        let later = now + Duration::from_secs(60);
        throttle.failed(ip("192.0.2.99"), later);
        assert_eq!(throttle.tracked(), 1);
        assert_eq!(throttle.check(ip("192.0.2.100"), later), Ok(()));
    }
}
