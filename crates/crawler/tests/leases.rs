//! C3 across processes: a run gives back every host it claimed before it returns, with the
//! end of its last request there, so another process may take the host at once.

mod support;

use chrono::Utc;
use std::sync::Arc;
use support::{Answer, FEED, Script, crawler, new_feed, serve};
use tidings_crawler::NoProgress;
use tidings_model::FeedUrl;
use tidings_store::HostClaim;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_a_run_gives_back_every_host_before_it_returns() {
    let script = Script::default();
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        script.push(path, Answer::ok(FEED));
    }
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler(dir.path()).await;
    for path in ["/a.xml", "/b.xml", "/c.xml"] {
        let url = FeedUrl::parse(&format!("http://127.0.0.1:{port}{path}")).unwrap();
        store
            .subscribe(&url, "ana", Utc::now(), &new_feed())
            .await
            .unwrap();
    }
    let summary = crawler
        .refresh_due(Utc::now(), Arc::new(NoProgress))
        .await
        .unwrap();
    assert_eq!(summary.feeds, 3);
    assert_eq!(summary.failed, 0);

    // Another holder finds the host free at once: the run claimed it (the new claim's
    // fencing token moved past the run's) and gave it back with its last request's end.
    let now = Utc::now();
    let claim = store
        .claim_host(
            "127.0.0.1",
            "another process",
            now,
            now + chrono::Duration::seconds(60),
        )
        .await
        .unwrap();
    match claim {
        HostClaim::Held(lease) => {
            assert!(
                lease.token >= 2,
                "the run never claimed the host: {lease:?}"
            );
            let end = lease.last_end.expect("given back with its last end");
            assert!(end <= now, "{end} after {now}");
        }
        HostClaim::Busy { until } => panic!("the run still holds the host, until {until}"),
    }
}
