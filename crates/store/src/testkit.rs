//! Records for tests and benchmarks, built in one place so a new field is added once: a read's
//! [`FetchRecord`] with its one request-log row, as a crawl would hand it to the store. Only
//! with the `testkit` feature (the store's own tests, and the dev-dependencies of the crates
//! that test against a store); never in a release build.

use crate::{FeedMeta, FeedState, FeedUpdate, FetchRecord, RequestLogRow};
use chrono::{DateTime, Duration, Utc};
use tidings_model::{Entry, FeedId, Label, Validators};

/// The URL every record's log row names.
pub const FEED_URL: &str = "https://example.org/feed.xml";
/// Its host key, as the request log keeps it.
pub const FEED_HOST: &str = "https://example.org:443";

/// A read of `feed` at `at` that ended in `label` with `status`: no validators, metadata or
/// entries; the feed active, read again an hour later; one log row (1,234 bytes in 56 ms).
pub fn answered(feed: FeedId, at: DateTime<Utc>, label: Label, status: Option<i32>) -> FetchRecord {
    FetchRecord {
        feed_id: feed,
        fetched_at: at,
        update: FeedUpdate {
            pending_move: None,
            validators: None,
            content_hash: None,
            url: None,
            state: FeedState::Active,
            state_reason: None,
            held_by: None,
            next_fetch_at: at + Duration::hours(1),
            next_fetch_reason: "interval 1h".to_owned(),
            interval_secs: 3600,
            consecutive_failures: 0,
            last_status: status,
            last_outcome: label,
            last_error: None,
            meta: None,
            last_failure: None,
            failure_totals: Default::default(),
            egress_refusals: None,
            directives: None,
        },
        entries: Vec::new(),
        log: vec![RequestLogRow {
            at,
            feed_id: Some(feed),
            host: FEED_HOST.to_owned(),
            purpose: "feed".to_owned(),
            url: FEED_URL.to_owned(),
            egress: None,
            status,
            outcome: label,
            bytes: 1234,
            duration_ms: 56,
            rule: "due: interval 1h".to_owned(),
            ticket: None,
        }],
        host_floor: None,
        fence: None,
    }
}

/// A 200 of `feed` at `at` with `entries`, an ETag and Last-Modified of that instant, a body
/// hash and a title: [`answered`] with what a full read stores.
pub fn full(feed: FeedId, at: DateTime<Utc>, entries: Vec<Entry>) -> FetchRecord {
    let mut record = answered(feed, at, Label::Ok, Some(200));
    record.update.validators = Some(Validators {
        etag: Some(format!("\"v{}\"", at.timestamp())),
        last_modified: Some(at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()),
    });
    record.update.content_hash = Some(format!("body-{}", at.timestamp()));
    record.update.meta = Some(FeedMeta {
        title: Some("A feed".to_owned()),
        site_link: Some("https://example.org/".to_owned()),
        expires: None,
        thumbnail: None,
    });
    record.entries = entries;
    record
}
