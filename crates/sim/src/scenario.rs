//! Seeded mixed webs for soak tests: many hosts, each with a robots.txt variant and feeds of
//! mixed behaviours, reproducible from a seed.
//!
//! The generator only builds [`HostSpec`]s and says what it built (feed URLs, robots texts);
//! the test decides what the crawler is expected to honour and builds the auditor's
//! [`Expectations`](crate::Expectations) from it (see [`Scenario::robots_rules`]).

use std::collections::HashMap;
use std::time::Duration;

use crate::auditor::RobotsRules;
use crate::behaviour::{Behaviour, EtagStyle, FeedSpec, Resource, RetryAfter, When};
use crate::content::Malformed;
use crate::web::HostSpec;

/// A generated web.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub hosts: Vec<HostSpec>,
    /// Every feed: host name and path.
    pub feeds: Vec<(String, String)>,
    /// The robots.txt text of each host that serves one with 200.
    pub robots: HashMap<String, String>,
}

/// The robots.txt variants hosts get, in turn of the seed.
const ROBOTS: [Option<&str>; 6] = [
    None, // 404
    Some("User-agent: *\nAllow: /\n"),
    Some("User-agent: *\nDisallow: /private/\n"),
    Some("User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n"),
    Some("User-agent: {agent}\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n"),
    Some("User-agent: {agent}\nCrawl-delay: 1\n\nUser-agent: *\nAllow: /\n"),
];

impl Scenario {
    /// `hosts` hosts named `h{i}.sim` with `feeds_per_host` feeds each, behaviours drawn from
    /// `seed`. `agent` is the product token written into robots.txt own groups. About one feed
    /// in ten lives under `/private/`, where some robots variants disallow it.
    pub fn mixed(seed: u64, hosts: usize, feeds_per_host: usize, agent: &str) -> Scenario {
        let mut rng = SplitMix(seed);
        let mut out = Scenario {
            hosts: Vec::with_capacity(hosts),
            feeds: Vec::with_capacity(hosts * feeds_per_host),
            robots: HashMap::new(),
        };
        for h in 0..hosts {
            let name = format!("h{h}.sim");
            let mut host = HostSpec::new(&name);
            let variant = ROBOTS
                .get(rng.below(ROBOTS.len() as u64) as usize)
                .copied()
                .flatten();
            match (variant, rng.below(20)) {
                // Now and then robots.txt itself fails.
                (_, 0) => host = host.at("/robots.txt", Resource::status(503)),
                (Some(text), _) => {
                    let text = text.replace("{agent}", agent);
                    host = host.at("/robots.txt", Resource::robots(&text));
                    out.robots.insert(name.clone(), text);
                }
                (None, _) => {}
            }
            for f in 0..feeds_per_host {
                let dir = if rng.below(10) == 0 {
                    "private"
                } else {
                    "feeds"
                };
                let path = format!("/{dir}/{f}.xml");
                host = host.at(&path, feed(&mut rng, &format!("h{h}f{f}")));
                out.feeds.push((name.clone(), path));
            }
            out.hosts.push(host);
        }
        out
    }

    /// The robots rules for `agent` on every host that serves a robots.txt.
    pub fn robots_rules(&self, agent: &str) -> HashMap<String, RobotsRules> {
        self.robots
            .iter()
            .map(|(host, text)| (host.clone(), RobotsRules::from_robots_txt(text, agent)))
            .collect()
    }
}

/// One feed resource of a mixed kind.
fn feed(rng: &mut SplitMix, title: &str) -> Resource {
    let every = Duration::from_secs(600 * (1 + rng.below(36)));
    let spec = FeedSpec::changing(title, every);
    let validators = |etag, last_modified| Behaviour::Validators {
        etag,
        last_modified,
    };
    match rng.below(100) {
        0..40 => Resource::feed(spec),
        40..48 => Resource::new(Behaviour::Feed(spec)).with(validators(None, true)),
        48..56 => {
            Resource::new(Behaviour::Feed(spec)).with(validators(Some(EtagStyle::Weak), false))
        }
        56..64 => Resource::bare_feed(spec),
        64..70 => Resource::feed(spec).with(Behaviour::Throttle {
            status: 429,
            retry_after: Some(RetryAfter::Seconds(3600)),
            when: When::FirstRequests(1 + rng.below(3)),
        }),
        70..75 => Resource::feed(spec).with(Behaviour::Throttle {
            status: 503,
            retry_after: Some(RetryAfter::Date(Duration::from_secs(7200))),
            when: When::Until(Duration::from_secs(6 * 3600)),
        }),
        75..78 => Resource::feed(spec).with(Behaviour::CacheControl { max_age: 86_400 }),
        78..81 => Resource::status(404),
        81..83 => Resource::status(410),
        83..86 => Resource::status(500),
        86..88 => Resource::new(Behaviour::Challenge(403)),
        88..91 => Resource::new(Behaviour::Malformed(
            Malformed::ALL
                .get(rng.below(Malformed::ALL.len() as u64) as usize)
                .copied()
                .unwrap_or(Malformed::NotXml),
        )),
        91..94 => Resource::feed(spec).with(Behaviour::Delay(Duration::from_millis(50))),
        94..96 => Resource::new(Behaviour::Huge(2 * 1024 * 1024)),
        96..97 => Resource::new(Behaviour::GzipBomb(64 * 1024 * 1024)),
        97..98 => Resource::new(Behaviour::Silent),
        _ => Resource::feed(spec).with(Behaviour::Expires(Duration::from_secs(12 * 3600))),
    }
}

/// SplitMix64: a small, fast, seeded generator (enough for picking behaviours).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_builds_the_same_web_and_another_seed_another() {
        let a = Scenario::mixed(7, 20, 10, "tidings");
        let b = Scenario::mixed(7, 20, 10, "tidings");
        let c = Scenario::mixed(8, 20, 10, "tidings");
        let shape = |s: &Scenario| {
            s.hosts
                .iter()
                .map(|h| {
                    let mut r: Vec<_> = h
                        .resources
                        .iter()
                        .map(|(p, r)| format!("{p}{r:?}"))
                        .collect();
                    r.sort();
                    r
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&a), shape(&b));
        assert_ne!(shape(&a), shape(&c));
        assert_eq!(a.feeds.len(), 200);
        assert_eq!(a.robots, b.robots);
    }

    #[test]
    fn a_large_mix_uses_every_kind_of_behaviour() {
        let s = Scenario::mixed(1, 200, 10, "tidings");
        let all = format!("{:?}", s.hosts);
        for kind in [
            "Throttle",
            "Challenge",
            "Malformed",
            "Huge",
            "GzipBomb",
            "Silent",
            "Status(404)",
            "Status(410)",
            "Status(500)",
            "Weak",
            "CacheControl",
            "Expires",
            "Delay",
        ] {
            assert!(all.contains(kind), "{kind} missing");
        }
        let rules = s.robots_rules("tidings");
        assert!(
            rules
                .values()
                .any(|r| r.disallowing("/private/1.xml").is_some())
        );
        assert!(rules.values().any(|r| r.crawl_delay.is_some()));
        assert!(s.robots.values().any(|t| t.contains("User-agent: tidings")));
    }
}
