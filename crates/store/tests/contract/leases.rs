//! Host leases (C3): one holder per host across every process sharing the store, a fencing
//! token that moves with every claim, expiry for a holder that died, and the last request's
//! end handed to the next holder.

use crate::support::t;
use std::sync::Arc;
use tidings_store::{HostClaim, HostLease, Store};

fn held(claim: HostClaim) -> HostLease {
    match claim {
        HostClaim::Held(lease) => lease,
        HostClaim::Busy { until } => panic!("busy until {until}"),
    }
}

pub async fn c3_a_host_has_one_holder_until_it_is_released_or_expires(store: Arc<dyn Store>) {
    let host = "a.example";
    let first = held(store.claim_host(host, "p1", t(0), t(60)).await.unwrap());
    assert_eq!(first.expires_at, t(60));
    assert_eq!(first.last_end, None);
    // Another holder waits for the expiry; a second host is not held up.
    assert_eq!(
        store.claim_host(host, "p2", t(10), t(70)).await.unwrap(),
        HostClaim::Busy { until: t(60) }
    );
    held(
        store
            .claim_host("b.example", "p2", t(10), t(70))
            .await
            .unwrap(),
    );
    // The holder renews its own lease: a new token.
    let renewed = held(store.claim_host(host, "p1", t(20), t(80)).await.unwrap());
    assert!(renewed.token > first.token);
    // A release by a stale token does nothing; by the live one it frees the host and hands
    // over when the last request ended.
    assert!(
        !store
            .release_host(host, "p1", first.token, t(25), Some(t(24)))
            .await
            .unwrap()
    );
    assert!(
        store
            .release_host(host, "p1", renewed.token, t(30), Some(t(29)))
            .await
            .unwrap()
    );
    let next = held(store.claim_host(host, "p2", t(31), t(91)).await.unwrap());
    assert!(next.token > renewed.token);
    assert_eq!(next.last_end, Some(t(29)));
    // p1 lost the host: its release is refused (fencing), and p2 keeps it.
    assert!(
        !store
            .release_host(host, "p1", renewed.token, t(32), None)
            .await
            .unwrap()
    );
    assert!(matches!(
        store.claim_host(host, "p1", t(33), t(93)).await.unwrap(),
        HostClaim::Busy { .. }
    ));
    // A holder that died: its lease expires and another takes the host; an earlier end
    // recorded later never moves the last end back.
    let taken = held(store.claim_host(host, "p3", t(91), t(151)).await.unwrap());
    assert_eq!(taken.last_end, Some(t(29)));
    assert!(
        store
            .release_host(host, "p3", taken.token, t(100), Some(t(20)))
            .await
            .unwrap()
    );
    let after = held(store.claim_host(host, "p1", t(101), t(161)).await.unwrap());
    assert_eq!(after.last_end, Some(t(29)));
}

/// Claimers racing for one host: exactly one holds it.
pub async fn c3_racing_claimers_get_one_lease(store: Arc<dyn Store>) {
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .claim_host("race.example", &format!("p{i}"), t(0), t(60))
                .await
                .unwrap()
        }));
    }
    let mut holders = 0;
    for task in tasks {
        if matches!(task.await.unwrap(), HostClaim::Held(_)) {
            holders += 1;
        }
    }
    assert_eq!(holders, 1);
}

/// Hosts claimed and given back together: one answer per host in order, another holder's
/// host busy, and only the live leases given back.
pub async fn c3_hosts_are_claimed_and_given_back_in_one_go(store: Arc<dyn Store>) {
    held(
        store
            .claim_host("b.example", "other", t(0), t(60))
            .await
            .unwrap(),
    );
    let hosts: Vec<String> = ["a.example", "b.example", "c.example"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let claims = store.claim_hosts(&hosts, "me", t(1), t(61)).await.unwrap();
    assert_eq!(claims.len(), 3);
    assert_eq!(claims[1], HostClaim::Busy { until: t(60) });
    let (a, c) = (held(claims[0]), held(claims[2]));
    let releases = vec![
        tidings_store::Release {
            host: "a.example".into(),
            token: a.token,
            last_end: Some(t(5)),
        },
        tidings_store::Release {
            host: "c.example".into(),
            token: c.token + 1,
            last_end: Some(t(5)),
        },
    ];
    assert_eq!(store.release_hosts("me", &releases, t(6)).await.unwrap(), 1);
    let again = held(
        store
            .claim_host("a.example", "other", t(7), t(67))
            .await
            .unwrap(),
    );
    assert_eq!(again.last_end, Some(t(5)));
    assert!(matches!(
        store
            .claim_host("c.example", "other", t(7), t(67))
            .await
            .unwrap(),
        HostClaim::Busy { .. }
    ));
}

/// A host given back goes to the first who found it busy, not straight back to its last
/// holder, while that want is fresh.
pub async fn c3_a_host_given_back_goes_to_the_one_waiting(store: Arc<dyn Store>) {
    let host = "shared.example";
    let mine = held(store.claim_host(host, "serve", t(0), t(60)).await.unwrap());
    assert!(matches!(
        store.claim_host(host, "fetch", t(1), t(61)).await.unwrap(),
        HostClaim::Busy { .. }
    ));
    assert!(
        store
            .release_host(host, "serve", mine.token, t(1), Some(t(1)))
            .await
            .unwrap()
    );
    // The last holder's next lane must let the waiting one go first...
    assert!(matches!(
        store.claim_host(host, "serve", t(1), t(61)).await.unwrap(),
        HostClaim::Busy { .. }
    ));
    // ...which gets it.
    let theirs = held(store.claim_host(host, "fetch", t(1), t(61)).await.unwrap());
    assert!(
        store
            .release_host(host, "fetch", theirs.token, t(1), Some(t(1)))
            .await
            .unwrap()
    );
    // A want nobody renews goes stale.
    held(store.claim_host(host, "serve", t(30), t(90)).await.unwrap());
}

/// A read made under a lease that moved to another holder since (its holder was paused past
/// the lease and another claimed the host) writes only what it sent (C7): never over the new
/// holder's feed state or entries. A read under the lease still held is written whole, and so
/// is one whose lease merely expired with nobody claiming the host since.
pub async fn c3_a_write_under_a_lost_lease_keeps_only_its_log(store: Arc<dyn Store>) {
    use crate::support::{all_entries, entry, feed, ok};
    use tidings_store::{Fence, LogQuery};
    let host = "fenced.example";
    let a = feed(&store, "https://fenced.example/a.xml").await;
    let first = held(store.claim_host(host, "p1", t(0), t(60)).await.unwrap());
    let fence = |token| {
        Some(Fence {
            host: host.to_owned(),
            token,
        })
    };
    let mut kept = ok(a, t(10), vec![entry("e1", "One", "")]);
    kept.fence = fence(first.token);
    let report = store.apply_fetch(kept).await.unwrap();
    assert!(!report.fenced_out);
    assert_eq!(report.new_entries, 1);
    // The lease runs out unclaimed: the holder's late write still stands.
    let mut late = ok(a, t(70), vec![entry("e2", "Two", "")]);
    late.fence = fence(first.token);
    assert!(!store.apply_fetch(late).await.unwrap().fenced_out);
    // p2 claims the host and reads the feed; p1, resumed, writes what it read before.
    let second = held(store.claim_host(host, "p2", t(80), t(140)).await.unwrap());
    let mut current = ok(a, t(90), vec![entry("e3", "Three", "")]);
    current.fence = fence(second.token);
    assert!(!store.apply_fetch(current).await.unwrap().fenced_out);
    let mut stale = ok(a, t(95), vec![entry("e4", "Four", "")]);
    stale.fence = fence(first.token);
    stale.update.next_fetch_reason = "stale".to_owned();
    let report = store.apply_fetch(stale).await.unwrap();
    assert!(report.fenced_out);
    assert_eq!(report.new_entries, 0);
    let record = store.feed(a).await.unwrap().unwrap();
    assert_eq!(record.next_fetch_at, t(90) + chrono::Duration::hours(1));
    assert_ne!(record.next_fetch_reason, "stale");
    let mut ids: Vec<String> = all_entries(&store)
        .await
        .into_iter()
        .map(|e| e.entry.identity)
        .collect();
    ids.sort();
    assert_eq!(ids, ["e1", "e2", "e3"]);
    // Its request is logged all the same: it was sent.
    let log = store
        .request_log(&LogQuery {
            feed: Some(a),
            ..LogQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(log.iter().any(|row| row.at == t(95)));
}
