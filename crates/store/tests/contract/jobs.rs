//! The page queue (FF1, FF4): a job is taken once, goes on where it stopped when its crawler
//! stops, keeps its frontier and what it found, and is dropped after its retention (FF17).

use crate::support::t;
use std::sync::Arc;
use std::time::Duration;
use tidings_model::{PageJobKind, PageJobState, SpiderLimits};
use tidings_store::{JobFeed, JobSpent, JobStep, NewPageJob, QueuedPage, Store};

fn limits() -> SpiderLimits {
    SpiderLimits {
        depth: 2,
        max_urls: 200,
        max_requests: 500,
        max_bytes: 5_000_000_000,
        max_time: Duration::from_millis(1_800_500),
        linked_sites: true,
    }
}

fn spider(url: &str, at: i64) -> NewPageJob {
    NewPageJob {
        kind: PageJobKind::Spider,
        url: url.into(),
        limits: Some(limits()),
        requested_by: "cli".into(),
        at: t(at),
        running: false,
    }
}

fn page(url: &str, depth: u32) -> QueuedPage {
    QueuedPage {
        url: url.into(),
        depth,
        found_on: Some("https://site.example/".into()),
    }
}

/// FF4: a job is taken once; left by a crawler that stopped, it is taken again and its
/// frontier, spending and finds are where the last step wrote them; once finished it is
/// never taken again and its frontier is gone, its finds kept.
pub async fn ff4_a_spider_job_goes_on_where_it_stopped(store: Arc<dyn Store>) {
    let job = store
        .submit_page_job(&spider("https://site.example/", 0))
        .await
        .unwrap();
    assert_eq!(job.state, PageJobState::Queued);
    assert_eq!(job.limits, Some(limits()));
    assert_eq!(job.spent, JobSpent::default());
    let claimed = store
        .claim_page_job(None, t(1), t(-600))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, job.id);
    assert_eq!(claimed.state, PageJobState::Running);
    assert_eq!(claimed.started_at, Some(t(1)));
    assert_eq!(
        store.claim_page_job(None, t(2), t(-600)).await.unwrap(),
        None
    );

    let spent = JobSpent {
        requests: 4,
        bytes: 12_345,
        urls: 3,
        pages: 1,
        elapsed: Duration::from_millis(2_500),
        feeds: 1,
        duplicates: 0,
        refused: 1,
    };
    let step = JobStep {
        done: Some("https://site.example/".into()),
        queued: vec![
            page("https://site.example/a", 1),
            page("https://site.example/b", 1),
            page("https://site.example/a", 1),
            page("https://site.example/", 1),
        ],
        found: vec![JobFeed {
            url: "https://site.example/feed".into(),
            title: Some("Site".into()),
            feed_id: None,
            held: false,
            note: None,
        }],
        spent,
    };
    store.page_job_step(job.id, &step, t(3)).await.unwrap();
    // The same feed found again is kept once.
    store
        .page_job_step(
            job.id,
            &JobStep {
                found: step.found.clone(),
                spent,
                ..JobStep::default()
            },
            t(4),
        )
        .await
        .unwrap();
    let frontier = store.page_job_frontier(job.id).await.unwrap();
    assert_eq!(
        frontier.pending,
        vec![
            page("https://site.example/a", 1),
            page("https://site.example/b", 1)
        ]
    );
    assert_eq!(
        frontier.seen,
        [
            "https://site.example/",
            "https://site.example/a",
            "https://site.example/b"
        ]
    );
    // Its crawler stopped: not heard of since t(4), it is taken again once stale.
    assert_eq!(store.claim_page_job(None, t(5), t(4)).await.unwrap(), None);
    let again = store
        .claim_page_job(None, t(700), t(100))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.id, job.id);
    assert_eq!(again.spent, spent);
    assert_eq!(again.started_at, Some(t(1)), "the first start is kept");

    assert!(
        store
            .finish_page_job(job.id, PageJobState::Done, Some("requests"), None, t(800))
            .await
            .unwrap()
    );
    assert!(
        !store
            .finish_page_job(job.id, PageJobState::Failed, None, Some("late"), t(900))
            .await
            .unwrap(),
        "a finished job stays as it ended"
    );
    let done = store.page_job(job.id).await.unwrap().unwrap();
    assert_eq!(done.state, PageJobState::Done);
    assert_eq!(done.stopped_by.as_deref(), Some("requests"));
    assert_eq!(done.error, None);
    assert_eq!(done.finished_at, Some(t(800)));
    assert_eq!(
        store
            .claim_page_job(None, t(2_000), t(1_900))
            .await
            .unwrap(),
        None
    );
    assert!(
        store
            .page_job_frontier(job.id)
            .await
            .unwrap()
            .pending
            .is_empty()
    );
    assert_eq!(store.page_job_feeds(job.id).await.unwrap(), step.found);
}

/// FF1: a discovery job has no budget; jobs are taken oldest first and listed newest first.
pub async fn ff1_discovery_jobs_are_taken_in_order(store: Arc<dyn Store>) {
    let first = store
        .submit_page_job(&NewPageJob {
            kind: PageJobKind::Discover,
            url: "https://one.example/".into(),
            limits: None,
            requested_by: "account:3".into(),
            at: t(0),
            running: false,
        })
        .await
        .unwrap();
    let second = store
        .submit_page_job(&spider("https://two.example/", 1))
        .await
        .unwrap();
    assert_eq!(first.limits, None);
    let listed: Vec<i64> = store
        .page_jobs(10)
        .await
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(listed, [second.id, first.id]);
    let taken = store
        .claim_page_job(None, t(2), t(-1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((taken.id, taken.kind), (first.id, PageJobKind::Discover));
    assert_eq!(taken.requested_by, "account:3");
    let taken = store
        .claim_page_job(None, t(3), t(-1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken.id, second.id);
    assert_eq!(store.page_job(second.id + 100).await.unwrap(), None);
}

/// FF4: a command that works its own job takes it as it submits it (no crawler can take it
/// first); a stop gives it back to the queue, and it is taken again by its id.
pub async fn ff4_a_stopped_job_is_given_back_and_taken_by_its_id(store: Arc<dyn Store>) {
    let older = store
        .submit_page_job(&spider("https://older.example/", 0))
        .await
        .unwrap();
    let own = store
        .submit_page_job(&NewPageJob {
            running: true,
            ..spider("https://own.example/", 1)
        })
        .await
        .unwrap();
    assert_eq!(own.state, PageJobState::Running);
    assert_eq!(own.started_at, Some(t(1)));
    assert!(store.release_page_job(own.id, t(2)).await.unwrap());
    assert!(
        !store.release_page_job(older.id, t(2)).await.unwrap(),
        "not running"
    );
    let again = store
        .claim_page_job(Some(own.id), t(3), t(-1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.state), (own.id, PageJobState::Running));
    assert_eq!(
        store
            .claim_page_job(Some(own.id), t(4), t(-1))
            .await
            .unwrap(),
        None,
        "running and heard of: not taken twice"
    );
    let next = store
        .claim_page_job(None, t(5), t(-1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.id, older.id);
}

/// FF17: a finished job is dropped with what it found once its retention period passed; a
/// job still running or queued is kept whatever its age.
pub async fn ff17_finished_jobs_are_dropped_after_their_retention(store: Arc<dyn Store>) {
    let old = store
        .submit_page_job(&spider("https://old.example/", 0))
        .await
        .unwrap();
    let running = store
        .submit_page_job(&spider("https://running.example/", 1))
        .await
        .unwrap();
    let queued = store
        .submit_page_job(&spider("https://queued.example/", 2))
        .await
        .unwrap();
    let recent = store
        .submit_page_job(&spider("https://recent.example/", 3))
        .await
        .unwrap();
    store.claim_page_job(None, t(4), t(-1)).await.unwrap();
    store.claim_page_job(None, t(4), t(-1)).await.unwrap();
    let found = JobStep {
        found: vec![JobFeed {
            url: "https://old.example/feed".into(),
            title: None,
            feed_id: None,
            held: true,
            note: Some("FF3: 4 of 5 entry ids shared with feed 2".into()),
        }],
        ..JobStep::default()
    };
    store.page_job_step(old.id, &found, t(5)).await.unwrap();
    store
        .finish_page_job(old.id, PageJobState::Done, None, None, t(10))
        .await
        .unwrap();
    store
        .finish_page_job(recent.id, PageJobState::Failed, None, Some("x"), t(100))
        .await
        .unwrap();
    assert_eq!(store.prune_page_jobs(t(50)).await.unwrap(), 1);
    assert_eq!(store.page_job(old.id).await.unwrap(), None);
    assert!(store.page_job_feeds(old.id).await.unwrap().is_empty());
    for kept in [running.id, queued.id, recent.id] {
        assert!(store.page_job(kept).await.unwrap().is_some());
    }
    assert_eq!(store.prune_page_jobs(t(50)).await.unwrap(), 0);
}

/// SR2: the catalogue lists each feed once, in the order added, and forgets a feed taken off.
pub async fn sr2_the_catalogue_lists_its_feeds_once(store: Arc<dyn Store>) {
    let a = crate::support::feed(&store, "https://a.example/feed.xml").await;
    let b = crate::support::feed(&store, "https://b.example/feed.xml").await;
    assert!(store.add_to_catalogue(b, "cli", t(0)).await.unwrap());
    assert!(store.add_to_catalogue(a, "key:1", t(5)).await.unwrap());
    assert!(!store.add_to_catalogue(a, "key:2", t(9)).await.unwrap());
    let listed = store.catalogue().await.unwrap();
    let ids: Vec<_> = listed.iter().map(|c| c.feed_id).collect();
    assert_eq!(ids, [b, a]);
    assert_eq!(listed[1].added_by, "key:1");
    assert_eq!(listed[1].added_at, t(5));
    assert!(store.remove_from_catalogue(b).await.unwrap());
    assert!(!store.remove_from_catalogue(b).await.unwrap());
    let left: Vec<_> = store
        .catalogue()
        .await
        .unwrap()
        .iter()
        .map(|c| c.feed_id)
        .collect();
    assert_eq!(left, [a]);
}
