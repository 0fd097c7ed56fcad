//! The address guard: publishers' names and redirects must not steer requests into private
//! networks (loopback, RFC 1918, link-local metadata services, ...). Every entry of IANA's IPv4
//! and IPv6 Special-Purpose Address Registries is refused, also the few the registries call
//! globally reachable (anycast service addresses, AS112): a feed crawler needs none of them.
//!
//! Two doors are watched. Names go through [`GuardedResolver`], the client's only resolver: it
//! applies the operator's fixed resolutions first (trusted, never guarded, DNS never asked), else
//! asks the system resolver and drops every non-public address; when none is left the connection
//! fails with a [`Refusal`] before anything is sent. IP-literal URLs never reach a resolver, so
//! the fetcher checks them with [`check_target`] before each hop, together with the scheme.
//! Checking the addresses the connection will actually use (not a separate look-up) leaves no
//! gap for DNS rebinding.

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use url::{Host, Url};

/// A target the guard refused; found in a connection error's source chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// Name resolution failed (as opposed to being refused).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DnsFailure(pub String);

/// IPv4 ranges that are not public destinations, with the reason given when refused.
///
/// Every entry of the IANA IPv4 Special-Purpose Address Registry is covered, also those the
/// registry marks globally reachable (192.0.0.9 and .10 anycast, AS112, AMT): none of them is
/// where a publisher serves a feed, so refusing them costs nothing and leaves no service
/// address to abuse. `192.0.0.0/24` covers its sub-entries (/29, .8, .9, .10, .170, .171);
/// `240.0.0.0/4` covers `255.255.255.255`.
const V4_BLOCKED: &[(Ipv4Addr, u8, &str)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8, "\"this network\""),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private"),
    (Ipv4Addr::new(100, 64, 0, 0), 10, "shared (CGNAT)"),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private"),
    (Ipv4Addr::new(192, 0, 0, 0), 24, "protocol assignment"),
    (Ipv4Addr::new(192, 0, 2, 0), 24, "documentation"),
    (Ipv4Addr::new(192, 31, 196, 0), 24, "as112 (dns sink)"),
    (Ipv4Addr::new(192, 52, 193, 0), 24, "amt relay anycast"),
    (Ipv4Addr::new(192, 88, 99, 0), 24, "6to4 relay"),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private"),
    (Ipv4Addr::new(192, 175, 48, 0), 24, "as112 (dns sink)"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking"),
    (Ipv4Addr::new(198, 51, 100, 0), 24, "documentation"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "documentation"),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved or broadcast"),
];

/// IPv6 ranges that are not public destinations (embedding prefixes are handled apart).
///
/// Every entry of the IANA IPv6 Special-Purpose Address Registry is covered. The globally
/// reachable ones inside `2001::/23` (PCP, TURN and DNS-SD anycast, AMT, AS112, ORCHIDv2, drone
/// identifiers) and `2620:4f:8000::/48` (AS112) are refused all the same: no feed lives there.
/// Rows are tried in order, so the narrower rows (Teredo, benchmarking) name their own reason
/// before `2001::/23` does. Whatever is left outside `2000::/3`, the only space IANA hands out
/// for global unicast, is refused as reserved ([`V6_GLOBAL_UNICAST`]).
const V6_BLOCKED: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, "unspecified"),
    (Ipv6Addr::LOCALHOST, 128, "loopback"),
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96, "ipv4-compatible"),
    (
        Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, 0, 0),
        96,
        "ipv4-translated",
    ),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local nat64",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0),
        64,
        "dummy prefix",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        32,
        "teredo (tunnels to an address we cannot check)",
    ),
    (
        Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        "benchmarking",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "ietf protocol assignment",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0),
        48,
        "as112 (dns sink)",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "srv6 segment identifiers",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "unique local",
    ),
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, "site-local"),
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

/// `2000::/3`: the global unicast space. An IPv6 address outside it that embeds no IPv4
/// address and is in no row of [`V6_BLOCKED`] is reserved by the IETF, never a publisher.
const V6_GLOBAL_UNICAST: (Ipv6Addr, u8) = (Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

/// Why `ip` is not a public destination, or `None` when it is one.
///
/// IPv6 addresses that embed an IPv4 address (mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`,
/// 6to4 `2002::/16`) are judged by the embedded address. The IPv4-translated form
/// `::ffff:0:0:0/96` (SIIT, RFC 2765, since withdrawn) is refused whatever it embeds: no
/// publisher is reached that way, and a translator on the path could lead it anywhere.
pub fn non_public_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return v4_reason(v4);
            }
            let bits = u128::from(v6);
            let (global, global_len) = V6_GLOBAL_UNICAST;
            V6_BLOCKED
                .iter()
                .find_map(|&(net, len, reason)| {
                    prefix_match(bits, u128::from(net), len, 128).then_some(reason)
                })
                .or_else(|| {
                    (!prefix_match(bits, u128::from(global), global_len, 128))
                        .then_some("reserved (outside 2000::/3)")
                })
        }
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let bits = u128::from(u32::from(ip));
    V4_BLOCKED.iter().find_map(|&(net, len, reason)| {
        prefix_match(bits, u128::from(u32::from(net)), len, 32).then_some(reason)
    })
}

/// True when the first `len` of the `width` low bits of `a` and `b` agree.
fn prefix_match(a: u128, b: u128, len: u8, width: u32) -> bool {
    let shift = width.saturating_sub(u32::from(len));
    a.checked_shr(shift).unwrap_or(0) == b.checked_shr(shift).unwrap_or(0)
}

fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from(u32::from(hi) << 16 | u32::from(lo));
    match ip.segments() {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(v4(hi, lo)),
        [0x2002, hi, lo, ..] => Some(v4(hi, lo)),
        _ => None,
    }
}

/// Check a URL before a request is sent to it: only `http`/`https`, a host, and (unless
/// private networks are allowed) no IP literal outside the public address space. Names are
/// checked later, by the resolver.
pub fn check_target(url: &Url, allow_private_networks: bool) -> Result<(), Refusal> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(Refusal(format!("scheme {other} is not fetched"))),
    }
    let ip = match url.host() {
        None => return Err(Refusal("the url has no host".to_owned())),
        Some(Host::Domain(_)) => return Ok(()),
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
    };
    refuse_ip(ip, allow_private_networks)
}

fn refuse_ip(ip: IpAddr, allow_private_networks: bool) -> Result<(), Refusal> {
    match non_public_reason(ip) {
        Some(reason) if !allow_private_networks => {
            Err(Refusal(format!("address {ip} is {reason}")))
        }
        _ => Ok(()),
    }
}

/// The client's resolver: fixed resolutions first, then the system resolver behind the guard.
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    overrides: Arc<HashMap<String, Vec<SocketAddr>>>,
    allow_private_networks: bool,
}

impl GuardedResolver {
    /// A resolver with `(host, port, address)` overrides, keyed by lowercase host name.
    pub fn new(resolve: &[(String, u16, SocketAddr)], allow_private_networks: bool) -> Self {
        let mut overrides: HashMap<String, Vec<SocketAddr>> = HashMap::new();
        for (host, _port, addr) in resolve {
            overrides
                .entry(normalize_name(host))
                .or_default()
                .push(*addr);
        }
        GuardedResolver {
            overrides: Arc::new(overrides),
            allow_private_networks,
        }
    }

    /// The override addresses for `name`, if the operator fixed any.
    pub fn override_for(&self, name: &str) -> Option<&[SocketAddr]> {
        self.overrides.get(&normalize_name(name)).map(Vec::as_slice)
    }

    /// Resolve `name` to the addresses a connection may use.
    pub async fn lookup(&self, name: &str) -> Result<Vec<SocketAddr>, LookupError> {
        if let Some(fixed) = self.override_for(name) {
            return Ok(fixed.to_vec());
        }
        let found: Vec<SocketAddr> = tokio::net::lookup_host((name, 0))
            .await
            .map_err(|e| LookupError::Dns(DnsFailure(format!("{name}: {e}"))))?
            .collect();
        if found.is_empty() {
            return Err(LookupError::Dns(DnsFailure(format!("{name}: no address"))));
        }
        public_only(name, found, self.allow_private_networks)
    }
}

/// The addresses of `found` a connection may use: the public ones (all when private networks
/// are allowed); refused when none is left.
fn public_only(
    name: &str,
    found: Vec<SocketAddr>,
    allow_private_networks: bool,
) -> Result<Vec<SocketAddr>, LookupError> {
    let mut refusal = None;
    let allowed: Vec<SocketAddr> = found
        .into_iter()
        .filter(|addr| match refuse_ip(addr.ip(), allow_private_networks) {
            Ok(()) => true,
            Err(r) => {
                refusal.get_or_insert(r);
                false
            }
        })
        .collect();
    match refusal {
        Some(r) if allowed.is_empty() => Err(LookupError::Refused(Refusal(format!(
            "{name} resolves only to non-public addresses ({})",
            r.0
        )))),
        _ => Ok(allowed),
    }
}

fn normalize_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Why [`GuardedResolver::lookup`] gave no address.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Dns(DnsFailure),
    #[error(transparent)]
    Refused(Refusal),
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            match this.lookup(name.as_str()).await {
                Ok(addrs) => Ok(Box::new(addrs.into_iter()) as Addrs),
                // The concrete types go in the box so the fetcher can find them in the chain.
                Err(LookupError::Dns(e)) => Err(Box::new(e) as _),
                Err(LookupError::Refused(r)) => Err(Box::new(r) as _),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(addr: &str, expected: Option<&str>) {
        let ip: IpAddr = match addr.parse() {
            Ok(ip) => ip,
            Err(e) => panic!("bad test address {addr}: {e}"),
        };
        assert_eq!(non_public_reason(ip), expected, "{addr}");
    }

    #[test]
    fn non_public_ranges_are_named() {
        check("127.0.0.1", Some("loopback"));
        check("127.255.255.254", Some("loopback"));
        check("10.0.0.1", Some("private"));
        check("172.16.0.1", Some("private"));
        check("172.31.255.255", Some("private"));
        check("192.168.1.1", Some("private"));
        check("169.254.169.254", Some("link-local"));
        check("100.64.0.1", Some("shared (CGNAT)"));
        check("100.127.255.255", Some("shared (CGNAT)"));
        check("0.0.0.0", Some("\"this network\""));
        check("255.255.255.255", Some("reserved or broadcast"));
        check("224.0.0.1", Some("multicast"));
        check("192.0.2.7", Some("documentation"));
        check("198.51.100.7", Some("documentation"));
        check("203.0.113.7", Some("documentation"));
        check("::1", Some("loopback"));
        check("::", Some("unspecified"));
        check("fc00::1", Some("unique local"));
        check("fdff::1", Some("unique local"));
        check("fe80::1", Some("link-local"));
        check("ff02::1", Some("multicast"));
        check("2001:db8::1", Some("documentation"));
        check(
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            Some("teredo (tunnels to an address we cannot check)"),
        );
        check("::ffff:127.0.0.1", Some("loopback"));
        check("::ffff:169.254.169.254", Some("link-local"));
        check("64:ff9b::10.0.0.1", Some("private"));
        check("2002:c0a8:0101::1", Some("private"));
    }

    #[test]
    fn public_addresses_pass() {
        check("93.184.216.34", None);
        check("8.8.8.8", None);
        check("172.32.0.1", None);
        check("100.128.0.1", None);
        check("169.255.0.1", None);
        check("2606:4700::1111", None);
        check("::ffff:8.8.8.8", None);
        check("64:ff9b::8.8.8.8", None);
    }

    /// One row per entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and
    /// the embedding and reserved forms beside them): the range, an address, and the reason
    /// it is refused, `None` where it is public (the first address just outside a range).
    const REGISTRY: &[(&str, &str, Option<&str>)] = &[
        // IPv4 Special-Purpose Address Registry.
        (
            "v4 0.0.0.0/8 this network",
            "0.1.2.3",
            Some("\"this network\""),
        ),
        ("v4 just past 0.0.0.0/8", "1.0.0.0", None),
        ("v4 10.0.0.0/8 private", "10.255.255.255", Some("private")),
        ("v4 just past 10.0.0.0/8", "11.0.0.0", None),
        (
            "v4 100.64.0.0/10 shared",
            "100.64.0.0",
            Some("shared (CGNAT)"),
        ),
        ("v4 just before 100.64.0.0/10", "100.63.255.255", None),
        ("v4 just past 100.64.0.0/10", "100.128.0.0", None),
        ("v4 127.0.0.0/8 loopback", "127.1.2.3", Some("loopback")),
        (
            "v4 169.254.0.0/16 link-local",
            "169.254.169.254",
            Some("link-local"),
        ),
        ("v4 just past 169.254.0.0/16", "169.255.0.0", None),
        (
            "v4 172.16.0.0/12 private",
            "172.31.255.255",
            Some("private"),
        ),
        ("v4 just past 172.16.0.0/12", "172.32.0.0", None),
        (
            "v4 192.0.0.0/24 protocol assignments",
            "192.0.0.1",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.0/29 ipv4 service continuity",
            "192.0.0.7",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.8/32 ipv4 dummy",
            "192.0.0.8",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.9/32 pcp anycast",
            "192.0.0.9",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.10/32 turn anycast",
            "192.0.0.10",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.170/32 nat64 discovery",
            "192.0.0.170",
            Some("protocol assignment"),
        ),
        (
            "v4 192.0.0.171/32 nat64 discovery",
            "192.0.0.171",
            Some("protocol assignment"),
        ),
        ("v4 just past 192.0.0.0/24", "192.0.1.0", None),
        (
            "v4 192.0.2.0/24 test-net-1",
            "192.0.2.255",
            Some("documentation"),
        ),
        ("v4 just past 192.0.2.0/24", "192.0.3.0", None),
        (
            "v4 192.31.196.0/24 as112-v4",
            "192.31.196.1",
            Some("as112 (dns sink)"),
        ),
        ("v4 just past 192.31.196.0/24", "192.31.197.0", None),
        (
            "v4 192.52.193.0/24 amt",
            "192.52.193.1",
            Some("amt relay anycast"),
        ),
        ("v4 just past 192.52.193.0/24", "192.52.194.0", None),
        (
            "v4 192.88.99.0/24 6to4 relay",
            "192.88.99.1",
            Some("6to4 relay"),
        ),
        ("v4 just past 192.88.99.0/24", "192.88.100.0", None),
        (
            "v4 192.168.0.0/16 private",
            "192.168.255.255",
            Some("private"),
        ),
        ("v4 just past 192.168.0.0/16", "192.169.0.0", None),
        (
            "v4 192.175.48.0/24 as112 direct delegation",
            "192.175.48.1",
            Some("as112 (dns sink)"),
        ),
        ("v4 just past 192.175.48.0/24", "192.175.49.0", None),
        (
            "v4 198.18.0.0/15 benchmarking",
            "198.19.255.255",
            Some("benchmarking"),
        ),
        ("v4 just past 198.18.0.0/15", "198.20.0.0", None),
        (
            "v4 198.51.100.0/24 test-net-2",
            "198.51.100.1",
            Some("documentation"),
        ),
        ("v4 just past 198.51.100.0/24", "198.51.101.0", None),
        (
            "v4 203.0.113.0/24 test-net-3",
            "203.0.113.1",
            Some("documentation"),
        ),
        ("v4 just past 203.0.113.0/24", "203.0.114.0", None),
        (
            "v4 224.0.0.0/4 multicast",
            "239.255.255.255",
            Some("multicast"),
        ),
        ("v4 just before 224.0.0.0/4", "223.255.255.255", None),
        (
            "v4 240.0.0.0/4 reserved",
            "240.0.0.1",
            Some("reserved or broadcast"),
        ),
        (
            "v4 255.255.255.255/32 limited broadcast",
            "255.255.255.255",
            Some("reserved or broadcast"),
        ),
        // IPv6 Special-Purpose Address Registry.
        ("v6 ::1/128 loopback", "::1", Some("loopback")),
        ("v6 ::/128 unspecified", "::", Some("unspecified")),
        (
            "v6 ::/96 ipv4-compatible (deprecated)",
            "::7f00:1",
            Some("ipv4-compatible"),
        ),
        (
            "v6 ::ffff:0:0/96 ipv4-mapped, private v4",
            "::ffff:10.0.0.1",
            Some("private"),
        ),
        (
            "v6 ::ffff:0:0/96 ipv4-mapped, public v4",
            "::ffff:8.8.8.8",
            None,
        ),
        (
            "v6 ::ffff:0:0:0/96 ipv4-translated (issue 12)",
            "::ffff:0:7f00:1",
            Some("ipv4-translated"),
        ),
        (
            "v6 ::ffff:0:0:0/96 ipv4-translated, public v4",
            "::ffff:0:808:808",
            Some("ipv4-translated"),
        ),
        (
            "v6 64:ff9b::/96 nat64, loopback v4",
            "64:ff9b::127.0.0.1",
            Some("loopback"),
        ),
        ("v6 64:ff9b::/96 nat64, public v4", "64:ff9b::8.8.8.8", None),
        (
            "v6 64:ff9b:1::/48 local-use nat64",
            "64:ff9b:1::808:808",
            Some("local nat64"),
        ),
        ("v6 100::/64 discard-only", "100::1", Some("discard-only")),
        (
            "v6 100:0:0:1::/64 dummy prefix",
            "100:0:0:1::1",
            Some("dummy prefix"),
        ),
        (
            "v6 2001::/23 ietf protocol assignments",
            "2001:1ff::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001::/32 teredo",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            Some("teredo (tunnels to an address we cannot check)"),
        ),
        (
            "v6 2001:1::1/128 pcp anycast",
            "2001:1::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:1::2/128 turn anycast",
            "2001:1::2",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:1::3/128 dns-sd srp anycast",
            "2001:1::3",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:2::/48 benchmarking",
            "2001:2::1",
            Some("benchmarking"),
        ),
        (
            "v6 2001:3::/32 amt",
            "2001:3::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:4:112::/48 as112-v6",
            "2001:4:112::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:10::/28 orchid (deprecated)",
            "2001:10::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:20::/28 orchidv2",
            "2001:20::1",
            Some("ietf protocol assignment"),
        ),
        (
            "v6 2001:30::/28 drone remote id",
            "2001:30::1",
            Some("ietf protocol assignment"),
        ),
        ("v6 just past 2001::/23", "2001:200::1", None),
        (
            "v6 2001:db8::/32 documentation",
            "2001:db8:ffff::1",
            Some("documentation"),
        ),
        ("v6 just past 2001:db8::/32", "2001:db9::1", None),
        (
            "v6 2002::/16 6to4, private v4",
            "2002:c0a8:0101::1",
            Some("private"),
        ),
        ("v6 2002::/16 6to4, public v4", "2002:808:808::1", None),
        (
            "v6 2620:4f:8000::/48 as112 direct delegation",
            "2620:4f:8000::1",
            Some("as112 (dns sink)"),
        ),
        ("v6 just past 2620:4f:8000::/48", "2620:4f:8001::1", None),
        (
            "v6 3fff::/20 documentation",
            "3fff:fff::1",
            Some("documentation"),
        ),
        ("v6 just past 3fff::/20", "3fff:1000::1", None),
        (
            "v6 5f00::/16 srv6 sids",
            "5f00::1",
            Some("srv6 segment identifiers"),
        ),
        ("v6 fc00::/7 unique local", "fdff::1", Some("unique local")),
        ("v6 fe80::/10 link-local", "fe80::1", Some("link-local")),
        (
            "v6 fec0::/10 site-local (deprecated)",
            "fec0::1",
            Some("site-local"),
        ),
        ("v6 ff00::/8 multicast", "ff02::1", Some("multicast")),
        // Outside 2000::/3 and in no row: reserved by the IETF.
        (
            "v6 4000::/3 reserved",
            "4000::1",
            Some("reserved (outside 2000::/3)"),
        ),
        (
            "v6 0100::/8 reserved beyond 100::/64",
            "100:1::1",
            Some("reserved (outside 2000::/3)"),
        ),
        (
            "v6 just before 2000::/3",
            "1fff:ffff::1",
            Some("reserved (outside 2000::/3)"),
        ),
        ("v6 2000::/3 global unicast", "2606:4700::1111", None),
    ];

    #[test]
    fn c8_every_iana_special_purpose_range_is_refused_by_the_address_rule() {
        for &(range, addr, want) in REGISTRY {
            let ip: IpAddr = match addr.parse() {
                Ok(ip) => ip,
                Err(e) => panic!("{range}: bad test address {addr}: {e}"),
            };
            assert_eq!(non_public_reason(ip), want, "{range}: {addr}");
        }
    }

    #[test]
    fn c8_both_doors_refuse_every_special_purpose_range() {
        for &(range, addr, want) in REGISTRY {
            let ip: IpAddr = match addr.parse() {
                Ok(ip) => ip,
                Err(e) => panic!("{range}: bad test address {addr}: {e}"),
            };
            // The IP-literal door.
            let literal = match ip {
                IpAddr::V4(v4) => format!("http://{v4}/feed"),
                IpAddr::V6(v6) => format!("http://[{v6}]/feed"),
            };
            let url = match Url::parse(&literal) {
                Ok(u) => u,
                Err(e) => panic!("{range}: bad test url {literal}: {e}"),
            };
            assert_eq!(
                check_target(&url, false).is_err(),
                want.is_some(),
                "{range}: {url}"
            );
            assert!(
                check_target(&url, true).is_ok(),
                "{range}: allowed networks"
            );
            // The resolver door: the name resolved to this address only.
            let found = vec![SocketAddr::new(ip, 80)];
            match (public_only("feeds.example.test", found, false), want) {
                (Err(LookupError::Refused(r)), Some(reason)) => {
                    assert!(r.0.contains(reason), "{range}: {}", r.0);
                }
                (Ok(addrs), None) => assert_eq!(addrs.len(), 1, "{range}"),
                (other, _) => panic!("{range}: {addr} gave {other:?}"),
            }
        }
        // A name with a public and a special-purpose address keeps only the public one.
        let mixed = vec![
            SocketAddr::from(([8, 8, 8, 8], 80)),
            SocketAddr::new(
                IpAddr::V6("::ffff:0:7f00:1".parse().unwrap_or(Ipv6Addr::LOCALHOST)),
                80,
            ),
        ];
        match public_only("feeds.example.test", mixed, false) {
            Ok(addrs) => assert_eq!(addrs, vec![SocketAddr::from(([8, 8, 8, 8], 80))]),
            Err(e) => panic!("mixed: {e}"),
        }
    }

    #[test]
    fn c8_the_reported_ipv4_translated_url_is_refused() {
        let url = match Url::parse("http://[::ffff:0:7f00:1]/") {
            Ok(u) => u,
            Err(e) => panic!("bad test url: {e}"),
        };
        assert_eq!(
            check_target(&url, false),
            Err(Refusal(
                "address ::ffff:0:7f00:1 is ipv4-translated".to_owned()
            ))
        );
    }

    #[tokio::test]
    async fn c8_the_resolver_refuses_a_name_that_is_an_ipv4_translated_literal() {
        // A numeric name is parsed locally, never sent to DNS; the resolver still filters it.
        let resolver = GuardedResolver::new(&[], false);
        match resolver.lookup("::ffff:0:7f00:1").await {
            Err(LookupError::Refused(r)) => assert!(r.0.contains("ipv4-translated"), "{}", r.0),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn targets_are_checked_by_scheme_and_literal() {
        let url = |s: &str| match Url::parse(s) {
            Ok(u) => u,
            Err(e) => panic!("bad test url {s}: {e}"),
        };
        assert!(check_target(&url("http://feeds.example.test/a"), false).is_ok());
        assert!(check_target(&url("https://93.184.216.34/a"), false).is_ok());
        assert!(check_target(&url("http://127.0.0.1:8080/a"), false).is_err());
        assert!(check_target(&url("http://[::1]/a"), false).is_err());
        assert!(check_target(&url("http://2130706433/a"), false).is_err());
        assert!(check_target(&url("http://127.0.0.1:8080/a"), true).is_ok());
        assert!(check_target(&url("file:///etc/passwd"), true).is_err());
        assert!(check_target(&url("ftp://example.test/feed"), true).is_err());
    }

    #[tokio::test]
    async fn overrides_win_without_dns_and_are_trusted() {
        let addr = SocketAddr::from(([127, 0, 0, 9], 4242));
        let resolver = GuardedResolver::new(&[("Feeds.Example.TEST".to_owned(), 80, addr)], false);
        match resolver.lookup("feeds.example.test").await {
            Ok(addrs) => assert_eq!(addrs, vec![addr]),
            Err(e) => panic!("override not applied: {e}"),
        }
    }
}
