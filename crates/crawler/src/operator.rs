//! What an operator does to the crawl, in one place for the CLI, the API and the UI:
//! subscriptions, do-not-crawl rules (FF13) with the feeds they hold and free, and removal on
//! a publisher's request (WFM10).
//!
//! A rule governs the next request decision of every process that shares the store (the
//! rules' version, `blocks`). Beyond that, adding one holds at once every active feed it
//! covers (paused with the rule as its reason, nothing sent), and removing one resumes the
//! feeds no rule covers any more, so the feed list tells the truth before the next read.
//! Each function takes the store alone: `serve --no-crawl` acts without a crawler.

use crate::blocks::list_of;
use chrono::{DateTime, Utc};
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::Profile;
use tidings_policy::{BlockKind, BlockList, RuleError, block_hold_reason, parse_rule};
use tidings_store::{
    BlockAdded, FeedPatch, FeedRecord, FeedState, NewBlock, NewFeed, Store, StoreError,
    StoredBlock, Subscribed, Subscriber, account_subscriber,
};

/// Whose subscriptions an OPML export lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing<'a> {
    /// Every feed that has a subscriber.
    Everyone,
    /// A subscriber by name (an API key's `key:ID`, the CLI's).
    Named(&'a str),
    /// An account, with its own titles and folders.
    Account(i64),
}

/// The subscriptions of `whose` as OPML outlines, one export for the CLI, `/v1/opml` and the
/// web UI: an account's with its own titles and folders; a named subscriber's, or every
/// subscribed feed, with the feeds' titles. A feed removed on request (WFM10) is never listed.
pub async fn outlines(
    store: &dyn Store,
    whose: Listing<'_>,
) -> Result<Vec<tidings_feed::opml::Outline>, StoreError> {
    let feeds = match whose {
        Listing::Everyone => store.feeds().await?,
        Listing::Named(name) => store.feeds_of(name).await?,
        Listing::Account(id) => store.feeds_of(&account_subscriber(id)).await?,
    };
    let mut feeds: std::collections::HashMap<FeedId, FeedRecord> = feeds
        .into_iter()
        .filter(|f| f.subscribers > 0 && f.state != FeedState::Removed)
        .map(|f| (f.id, f))
        .collect();
    let outline = |f: FeedRecord, title: Option<String>, folder: Option<String>| {
        tidings_feed::opml::Outline {
            xml_url: f.url.to_string(),
            title: title.or(f.title),
            html_url: f.site_link,
            folder,
        }
    };
    let Listing::Account(id) = whose else {
        let mut listed: Vec<FeedRecord> = feeds.into_values().collect();
        listed.sort_by_key(|f| f.id);
        return Ok(listed.into_iter().map(|f| outline(f, None, None)).collect());
    };
    Ok(store
        .subscriptions(id)
        .await?
        .into_iter()
        .filter_map(|s| {
            let f = feeds.remove(&s.feed_id)?;
            Some(outline(f, s.title, s.folder))
        })
        .collect())
}

/// Why an operator action was refused.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A rule added (or found already there), and the feeds it now holds.
#[derive(Debug)]
pub struct RuleAdded {
    pub added: BlockAdded,
    /// Feeds that were active and are now held by a rule.
    pub held: Vec<FeedRecord>,
}

/// A rule removed and the feeds it freed.
#[derive(Debug)]
pub struct RuleRemoved {
    pub rule: StoredBlock,
    pub resumed: Vec<FeedRecord>,
}

/// A feed removed on request, its state after, and the rules that keep it out.
#[derive(Debug)]
pub struct FeedRemoved {
    pub before: FeedRecord,
    pub after: FeedRecord,
    pub rules: Vec<StoredBlock>,
}

/// Why a subscription is refused before anything is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The URL standard lets through host names such as `a*` that no resolver answers for.
    #[error("the host of {url} is neither a host name nor an IP address")]
    NoHost { url: String },
    /// The address guard would refuse every read (an IP literal outside the public address
    /// space, private networks not allowed).
    #[error("{reason}")]
    Unreachable { url: String, reason: String },
    /// A do-not-crawl rule forbids the URL, or the feed it already names (FF13, WFM10).
    #[error("{reason}")]
    Blocked { url: String, reason: String },
}

/// Why a subscription did not happen.
#[derive(Debug, thiserror::Error)]
pub enum SubscribeError {
    #[error(transparent)]
    Refused(Refusal),
    /// The store's error; `StoreError::FeedRemoved` for a feed removed on request (WFM10).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Subscribe `who` to `url`: one feed per URL whoever subscribes (C2), a new one scheduled
/// for its first read; an account's subscription also starts its reading state. Refused first when the host is no name or address, when the
/// address guard would refuse every read (`allow_private`: private networks may be read), or
/// when a rule forbids it; the store refuses a feed removed on request.
pub async fn subscribe(
    store: &dyn Store,
    profile: &Profile,
    url: &FeedUrl,
    who: Subscriber<'_>,
    allow_private: bool,
    now: DateTime<Utc>,
) -> Result<Subscribed, SubscribeError> {
    if let Some(refusal) = refusal(store, url, allow_private).await? {
        return Err(SubscribeError::Refused(refusal));
    }
    let new = new_feed(profile, now);
    Ok(match who {
        Subscriber::Named(name) => store.subscribe(url, name, now, &new).await?,
        Subscriber::Account { id, placement } => {
            store
                .subscribe_account(url, id, placement, now, &new)
                .await?
        }
    })
}

/// The schedule of a feed new to the store at `now`: its first read (C1).
pub fn new_feed(profile: &Profile, now: DateTime<Utc>) -> NewFeed {
    let first = tidings_policy::first_fetch(now, profile);
    NewFeed {
        next_fetch_at: first.next_fetch_at,
        next_fetch_reason: first.reason,
        interval_secs: i64::try_from(first.interval_secs).unwrap_or(i64::MAX),
    }
}

/// Why a subscription to `url` would be refused before anything is stored or sent, if it
/// would: the host is no name or address, the address guard would refuse every read
/// (`allow_private`: private networks may be read), or a rule forbids it.
pub async fn refusal(
    store: &dyn Store,
    url: &FeedUrl,
    allow_private: bool,
) -> Result<Option<Refusal>, StoreError> {
    if !resolvable_host(url) {
        return Ok(Some(Refusal::NoHost {
            url: url.to_string(),
        }));
    }
    // Only IP literals: names are resolved and guarded at each read, never here.
    if let Err(refusal) = tidings_fetch::reachable::check(url.as_url(), allow_private) {
        return Ok(Some(Refusal::Unreachable {
            url: url.to_string(),
            reason: refusal.to_string(),
        }));
    }
    Ok(rule_covering(store, url)
        .await?
        .map(|reason| Refusal::Blocked {
            url: url.to_string(),
            reason,
        }))
}

/// The rule that forbids `url` (or the feed stored at it), described, if one does.
pub async fn rule_covering(store: &dyn Store, url: &FeedUrl) -> Result<Option<String>, StoreError> {
    let list = rules(store).await?;
    if list.is_empty() {
        return Ok(None);
    }
    let known: Option<FeedId> = store.feed_by_url(url).await?.map(|f| f.id);
    Ok(list.check(url.as_url(), known).map(|b| b.describe()))
}

/// Whether the URL's host is one DNS could know: letters, digits, hyphens, underscores and
/// dots (an IDN arrives as punycode), or an IP address.
fn resolvable_host(url: &FeedUrl) -> bool {
    match url.as_url().host_str() {
        Some(host) if host.starts_with('[') => true,
        Some(host) => host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')),
        None => false,
    }
}

/// The rules as stored now.
pub async fn rules(store: &dyn Store) -> Result<BlockList, StoreError> {
    Ok(list_of(store.blocks().await?))
}

/// Add the rule `kind` `value` (given as an operator writes it), then hold the feeds it
/// covers.
pub async fn add_rule(
    store: &dyn Store,
    kind: BlockKind,
    value: &str,
    reason: Option<String>,
    now: DateTime<Utc>,
) -> Result<RuleAdded, OperatorError> {
    let value = parse_rule(kind, value)?;
    let reason = reason.filter(|r| !r.trim().is_empty());
    let added = store
        .add_block(&NewBlock {
            kind: kind.as_str().to_owned(),
            value,
            reason,
            created_at: now,
        })
        .await?;
    let held = hold_covered_feeds(store, now).await?;
    Ok(RuleAdded { added, held })
}

/// Remove the rule `kind` `value` (as stored, or as an operator writes it), then resume the
/// feeds no rule covers any more. `None` when there was no such rule.
pub async fn remove_rule(
    store: &dyn Store,
    kind: BlockKind,
    value: &str,
    now: DateTime<Utc>,
) -> Result<Option<RuleRemoved>, OperatorError> {
    // Stored in its normal form; a value that does not parse any more is tried as given.
    let value = parse_rule(kind, value).unwrap_or_else(|_| value.trim().to_owned());
    let rule = store
        .blocks()
        .await?
        .into_iter()
        .find(|r| r.kind == kind.as_str() && r.value == value);
    remove_stored(store, rule, now).await
}

/// Remove the rule with `id`, then resume the feeds no rule covers any more. `None` when
/// there was no such rule.
pub async fn remove_rule_by_id(
    store: &dyn Store,
    id: i64,
    now: DateTime<Utc>,
) -> Result<Option<RuleRemoved>, OperatorError> {
    let rule = store.blocks().await?.into_iter().find(|r| r.id == id);
    remove_stored(store, rule, now).await
}

async fn remove_stored(
    store: &dyn Store,
    rule: Option<StoredBlock>,
    now: DateTime<Utc>,
) -> Result<Option<RuleRemoved>, OperatorError> {
    let Some(rule) = rule else {
        return Ok(None);
    };
    if !store.remove_block(&rule.kind, &rule.value).await? {
        return Ok(None);
    }
    let resumed = resume_uncovered_feeds(store, now).await?;
    Ok(Some(RuleRemoved { rule, resumed }))
}

/// Hold every active feed a rule covers: paused with the rule as its reason, nothing sent.
pub async fn hold_covered_feeds(
    store: &dyn Store,
    now: DateTime<Utc>,
) -> Result<Vec<FeedRecord>, StoreError> {
    let list = rules(store).await?;
    let mut held = Vec::new();
    if list.is_empty() {
        return Ok(held);
    }
    for feed in store.feeds().await? {
        if feed.state != FeedState::Active {
            continue;
        }
        let Some(block) = list.check(feed.url.as_url(), Some(feed.id)) else {
            continue;
        };
        let rule = block.describe();
        let patch = FeedPatch::held(rule.clone(), block_hold_reason(&rule), now);
        if let Some(after) = store.patch_feed(feed.id, &patch).await? {
            tracing::info!(feed_id = %feed.id, rule = block.id, "feed held by a do-not-crawl rule");
            held.push(after);
        }
    }
    Ok(held)
}

/// Resume the feeds a rule held that no rule covers any more; they are read when due.
pub async fn resume_uncovered_feeds(
    store: &dyn Store,
    now: DateTime<Utc>,
) -> Result<Vec<FeedRecord>, StoreError> {
    let list = rules(store).await?;
    let mut resumed = Vec::new();
    for feed in store.feeds().await? {
        let held = feed.state == FeedState::Paused && feed.held_by.is_some();
        if !held || list.check(feed.url.as_url(), Some(feed.id)).is_some() {
            continue;
        }
        let patch = FeedPatch::paused(
            false,
            "resumed: no do-not-crawl rule covers it any more",
            now,
        );
        if let Some(after) = store.patch_feed(feed.id, &patch).await? {
            tracing::info!(feed_id = %feed.id, "feed resumed: no do-not-crawl rule covers it");
            resumed.push(after);
        }
    }
    Ok(resumed)
}

/// Remove a feed on its publisher's request (WFM10): at once, every subscription ends, it is
/// never read or subscribed to again; its entries and request log stay. With `block`, its URLs
/// (the one read and the one first added, when it moved) also become `url` rules, with
/// `reason` (or one naming the removal). `None` when there is no such feed.
pub async fn remove_on_request(
    store: &dyn Store,
    id: FeedId,
    block: bool,
    reason: Option<String>,
    now: DateTime<Utc>,
) -> Result<Option<FeedRemoved>, OperatorError> {
    let Some(before) = store.feed(id).await? else {
        return Ok(None);
    };
    store.remove_feed(id).await?;
    let mut rules = Vec::new();
    if block {
        let reason = reason
            .filter(|r| !r.trim().is_empty())
            .or_else(|| Some(format!("feed {id} removed on request (WFM10)")));
        let mut urls = vec![before.url.to_string()];
        if before.original_url != before.url.as_str() {
            urls.push(before.original_url.clone());
        }
        for url in urls {
            let added = add_rule(store, BlockKind::Url, &url, reason.clone(), now).await?;
            rules.push(added.added.block);
        }
    }
    let Some(after) = store.feed(id).await? else {
        return Ok(None);
    };
    Ok(Some(FeedRemoved {
        before,
        after,
        rules,
    }))
}

/// An operator's decision on a feed discovery held as perhaps one already stored (FF3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// It is the stored feed it was matched to.
    Duplicate,
    /// It is a feed of its own.
    New,
    /// Neither: it is not taken.
    Reject,
}

impl Review {
    /// The decision named `name` (`duplicate`, `new`, `reject`).
    pub fn from_name(name: &str) -> Option<Review> {
        match name {
            "duplicate" => Some(Review::Duplicate),
            "new" => Some(Review::New),
            "reject" => Some(Review::Reject),
            _ => None,
        }
    }
}

/// Why a review was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no check {0}")]
    NotFound(i64),
    /// The check is not the URL's latest held one: decided already, or checked again since.
    #[error("check {id} of {url} is not waiting for review (its latest check: {latest})")]
    NotHeld {
        id: i64,
        url: String,
        latest: tidings_model::Disposition,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Decide a held match (FF3), in one home for the CLI, the API and the UI: a new check of the
/// URL records the decision beside the held one, which stays (FF2). `who` names the operator
/// in the decision's reason.
pub async fn review(
    store: &dyn Store,
    id: i64,
    decision: Review,
    who: &str,
    now: DateTime<Utc>,
) -> Result<tidings_store::StoredCheck, ReviewError> {
    use tidings_model::Disposition;
    let held = store
        .url_check(id)
        .await?
        .ok_or(ReviewError::NotFound(id))?;
    let latest = store
        .last_checks(std::slice::from_ref(&held.check.url))
        .await?
        .into_iter()
        .next()
        .unwrap_or_else(|| held.clone());
    if latest.id != held.id || held.check.disposition != Disposition::Held {
        return Err(ReviewError::NotHeld {
            id,
            url: held.check.url,
            latest: latest.check.disposition,
        });
    }
    let of = held
        .check
        .feed_id
        .map_or_else(|| "the stored feed".to_owned(), |f| format!("feed {f}"));
    let (disposition, feed_id, reason) = match decision {
        Review::Duplicate => (
            Disposition::Duplicate,
            held.check.feed_id,
            format!("FF3: accepted by {who} as a duplicate of {of}"),
        ),
        Review::New => (
            Disposition::Feed,
            None,
            format!("FF3: accepted by {who} as a feed of its own, not {of}"),
        ),
        Review::Reject => (
            Disposition::Refused,
            None,
            format!("FF3: rejected by {who}"),
        ),
    };
    let check = tidings_store::UrlCheck {
        url: held.check.url.clone(),
        at: now,
        disposition,
        reason,
        feed_id,
        source: held.check.source,
        found_on: held.check.found_on.clone(),
    };
    let new = store
        .apply_check(&tidings_store::CheckApply {
            check: check.clone(),
            log: Vec::new(),
            host_floor: None,
        })
        .await?;
    Ok(tidings_store::StoredCheck { id: new, check })
}

/// What a job of the page queue is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobAsk {
    /// Find the feeds of the URL (FF1).
    Discover,
    /// A spider run from the URL within these limits (FF4).
    Spider(tidings_model::SpiderLimits),
    /// Read the feed once for the catalogue (SR2): verify it before it is added, or read a
    /// catalogue feed a reader views with nothing stored.
    Catalogue,
}

/// Why a job was not put in the page queue.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error(transparent)]
    Refused(Refusal),
    /// A spider run's limits past the profile's ceilings (or 0).
    #[error("{0}")]
    Limits(String),
    /// A spider run under a profile that does not request discovery pages.
    #[error("{0}")]
    NoDiscovery(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A job to put in the page queue.
#[derive(Debug, Clone, Copy)]
pub struct JobRequest<'a> {
    pub url: &'a FeedUrl,
    pub ask: JobAsk,
    /// Who asks (`cli`, `key:7`, `account:3`).
    pub requested_by: &'a str,
    /// Taken at once by the caller, who works it.
    pub running: bool,
}

/// Put a job in the page queue at `now`, as the CLI, the API and the UI all do: refused
/// first as a subscription is ([`refusal`]: no host, the address guard with `allow_private`,
/// a do-not-crawl rule, FF13), and a spider run when its limits pass the profile's ceilings
/// or the profile does not request discovery pages (FF4). Nothing is sent here: the crawl
/// works the queue.
pub async fn submit_page_job(
    store: &dyn Store,
    profile: &Profile,
    job: JobRequest<'_>,
    allow_private: bool,
    now: DateTime<Utc>,
) -> Result<tidings_store::PageJob, SubmitError> {
    let JobRequest {
        url,
        ask,
        requested_by,
        running,
    } = job;
    let limits = match ask {
        JobAsk::Discover | JobAsk::Catalogue => None,
        JobAsk::Spider(limits) => {
            profile.spider.check(&limits).map_err(SubmitError::Limits)?;
            if !profile
                .requests
                .allows(tidings_model::RequestPurpose::Discovery)
            {
                return Err(SubmitError::NoDiscovery(format!(
                    "profile {} does not request discovery pages ([requests] purposes): a \
                     spider run needs a profile that lists \"discovery\" (FFBot)",
                    profile.name
                )));
            }
            Some(limits)
        }
    };
    if let Some(refusal) = refusal(store, url, allow_private).await? {
        return Err(SubmitError::Refused(refusal));
    }
    let kind = match ask {
        JobAsk::Discover => tidings_model::PageJobKind::Discover,
        JobAsk::Spider(_) => tidings_model::PageJobKind::Spider,
        JobAsk::Catalogue => tidings_model::PageJobKind::Catalogue,
    };
    Ok(store
        .submit_page_job(&tidings_store::NewPageJob {
            kind,
            url: url.as_str().to_owned(),
            limits,
            requested_by: requested_by.to_owned(),
            at: now,
            running,
        })
        .await?)
}
