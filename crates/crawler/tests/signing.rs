//! SR11 on the simulated web: under SereneReader's profile every request the crawler sends
//! (robots.txt, each redirect hop to another host, refused reads) carries a Web Bot Auth
//! signature that the web verifies with an independent implementation (Cloudflare's
//! `web-bot-auth`) against the keys the store publishes; the crawl makes its first key and the
//! next one before the first ends. Without signing, the same audit fails on every request.

mod sim_support;

use sim_support::{Sim, assert_clean, start};
use std::collections::BTreeSet;
use std::time::Duration;
use tidings_sim::{FeedSpec, HostSpec, Resource, Rule, Target};

const HOUR: Duration = Duration::from_secs(3600);

fn host(name: &str, resources: Vec<(&str, Resource)>) -> HostSpec {
    let mut h =
        HostSpec::new(name).at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"));
    for (path, r) in resources {
        h = h.at(path, r);
    }
    h
}

fn web() -> Vec<HostSpec> {
    vec![
        host(
            "a.test",
            vec![
                ("/feed.xml", Resource::feed(FeedSpec::changing("a", HOUR))),
                (
                    "/old.xml",
                    Resource::new(tidings_sim::Behaviour::Redirect {
                        status: 302,
                        to: Target::Host {
                            host: "b.test".into(),
                            path: "/feed.xml".into(),
                        },
                    }),
                ),
            ],
        ),
        host(
            "b.test",
            // No validators: a read through the temporary redirect sends the target's ones to
            // the redirecting URL, which the auditor's C4 check reads as not echoed.
            vec![(
                "/feed.xml",
                Resource::bare_feed(FeedSpec::changing("b", HOUR)),
            )],
        ),
        host("c.test", vec![("/refused.xml", Resource::status(403))]),
    ]
}

async fn subscribe_all(sim: &Sim) {
    for (host, path) in [
        ("a.test", "/feed.xml"),
        ("a.test", "/old.xml"),
        ("c.test", "/refused.xml"),
    ] {
        sim.subscribe(host, path).await;
    }
}

/// The clock allowance of the check: the crawler's clock starts a few real milliseconds after
/// the web's and a request takes real time to arrive, each millisecond 3.6 s here.
const SKEW: Duration = Duration::from_secs(600);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr11_every_request_is_signed_and_verifies_independently_across_a_key_rotation() {
    let sim = start(web(), |p| {
        *p = tidings_policy::Profile::embedded("serenereader").unwrap();
        p.hints.adaptive = false;
        p.hints.jitter = 0.0;
        // A day's key, the next made 6 hours before its end: a rotation within the run.
        p.signing.key_lifetime = 86_400;
        p.signing.rotate_before = 6 * 3600;
        // An hour of scenario time is one real second here.
        p.signing.signature_validity = 3600;
    })
    .await;
    assert!(
        sim.store.bot_keys().await.unwrap().is_empty(),
        "no key before the crawl"
    );
    subscribe_all(&sim).await;
    sim.crawl_hours(21.0).await;

    let keys = sim.store.bot_keys().await.unwrap();
    assert_eq!(
        keys.len(),
        2,
        "the first key and the one made before it ended"
    );
    let made_after = keys[1].created_at - keys[0].created_at;
    assert!(
        made_after >= chrono::Duration::hours(18) && made_after <= chrono::Duration::hours(19),
        "the next key is made 6 h before the first ends: after {made_after}"
    );
    assert_eq!(
        keys[1].not_before.timestamp() - keys[1].created_at.timestamp(),
        3600,
        "and published an hour before it signs"
    );

    let check = sim.signature_check(SKEW).await;
    let exchanges = sim.exchanges().await;
    let mut used = BTreeSet::new();
    let mut robots = 0;
    for e in &exchanges {
        let verified = tidings_sim::verify_request(e, &check.directory, e.started.sim, SKEW)
            .unwrap_or_else(|p| panic!("{} {} on {}: {p}", e.method, e.target, e.host));
        assert_eq!(verified.signature_agent, "https://serenereader.com");
        used.insert(verified.keyid);
        robots += usize::from(e.target == "/robots.txt");
    }
    assert!(robots >= 3, "robots.txt of each host is signed too");
    assert!(
        exchanges
            .iter()
            .any(|e| e.host == "b.test" && e.target == "/feed.xml"),
        "the redirect's hop to another host was read"
    );
    let stored: BTreeSet<String> = keys.iter().map(|k| k.keyid.clone()).collect();
    assert_eq!(used, stored, "requests were signed with both keys in turn");

    let expect = tidings_sim::Expectations {
        signatures: Some(check),
        ..sim.expectations()
    };
    assert_clean(&sim.audit(&expect).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr11_an_unsigned_crawl_fails_the_signature_audit_on_every_request() {
    let sim = start(web(), |_| {}).await;
    assert!(!sim.profile.signing.enabled);
    // A published key the crawler does not sign with.
    tidings_crawler::keys::make(sim.store.as_ref(), sim.start, 86_400)
        .await
        .unwrap();
    subscribe_all(&sim).await;
    sim.crawl_hours(2.0).await;

    let exchanges = sim.exchanges().await;
    assert!(exchanges.len() >= 5, "{} requests", exchanges.len());
    let expect = tidings_sim::Expectations {
        signatures: Some(sim.signature_check(SKEW).await),
        ..sim.expectations()
    };
    let violations = sim.audit(&expect).await;
    let unsigned = violations
        .iter()
        .filter(|v| v.rule == Rule::Signature)
        .count();
    assert_eq!(unsigned, exchanges.len(), "{violations:?}");
    assert!(
        violations.iter().all(|v| v.rule == Rule::Signature),
        "{violations:?}"
    );
}

#[tokio::test]
async fn sr11_an_unreadable_stored_key_is_left_out_and_the_others_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let store = tidings_store::open(dir.path().join("k.db").to_str().unwrap())
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let good = tidings_crawler::keys::make(store.as_ref(), now, 86_400)
        .await
        .unwrap();
    let corrupt = tidings_store::BotKeyRow {
        keyid: "not-the-thumbprint-of-this-secret".into(),
        public_key: good.public(),
        secret: good.secret(),
        created_at: now,
        not_before: now,
        expires_at: now + chrono::Duration::days(1),
    };
    assert!(store.add_bot_key(&corrupt).await.unwrap());
    let loaded = tidings_crawler::keys::load(store.as_ref()).await.unwrap();
    let ids: Vec<String> = loaded.iter().map(|k| k.key.keyid()).collect();
    assert_eq!(ids, [good.key.keyid()]);
}
