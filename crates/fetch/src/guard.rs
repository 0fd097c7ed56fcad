//! The address guard: publishers' names and redirects must not steer requests into private
//! networks (loopback, RFC 1918, link-local metadata services, ...).
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
const V4_BLOCKED: &[(Ipv4Addr, u8, &str)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8, "\"this network\""),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private"),
    (Ipv4Addr::new(100, 64, 0, 0), 10, "shared (CGNAT)"),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private"),
    (Ipv4Addr::new(192, 0, 0, 0), 24, "protocol assignment"),
    (Ipv4Addr::new(192, 0, 2, 0), 24, "documentation"),
    (Ipv4Addr::new(192, 88, 99, 0), 24, "6to4 relay"),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking"),
    (Ipv4Addr::new(198, 51, 100, 0), 24, "documentation"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "documentation"),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved or broadcast"),
];

/// IPv6 ranges that are not public destinations (embedding prefixes are handled apart).
const V6_BLOCKED: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, "unspecified"),
    (Ipv6Addr::LOCALHOST, 128, "loopback"),
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96, "ipv4-compatible"),
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
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation",
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

/// Why `ip` is not a public destination, or `None` when it is one.
///
/// IPv6 addresses that embed an IPv4 address (mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`,
/// 6to4 `2002::/16`) are judged by the embedded address.
pub fn non_public_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return v4_reason(v4);
            }
            let bits = u128::from(v6);
            V6_BLOCKED.iter().find_map(|&(net, len, reason)| {
                prefix_match(bits, u128::from(net), len, 128).then_some(reason)
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
        let mut refusal = None;
        let allowed: Vec<SocketAddr> = found
            .into_iter()
            .filter(
                |addr| match refuse_ip(addr.ip(), self.allow_private_networks) {
                    Ok(()) => true,
                    Err(r) => {
                        refusal.get_or_insert(r);
                        false
                    }
                },
            )
            .collect();
        match refusal {
            Some(r) if allowed.is_empty() => Err(LookupError::Refused(Refusal(format!(
                "{name} resolves only to non-public addresses ({})",
                r.0
            )))),
            _ => Ok(allowed),
        }
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
