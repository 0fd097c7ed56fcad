//! The only SQL in tidings: a narrow, intent-shaped [`Store`] trait and its two backends.
//!
//! SQLite (the default, a single file in WAL mode) and PostgreSQL (chosen by a `postgres://`
//! URL) implement the same trait and pass the same contract tests (`tests/contract.rs`).
//! Migrations live per backend under `migrations/` and are applied by [`open`].
//!
//! The store decides nothing: it records what the crawler and the policy decided. Its
//! invariants are: one fetch result commits whole, in one transaction ([`Store::apply_fetch`];
//! SQLite may share that transaction among fetches applied at the same time, each still all
//! or nothing and answered only once committed);
//! entries are upserted by their stable identity and never deleted because they left the live
//! feed (FF5); one feed row per URL however many subscribe (C2).
//!
//! Both backends keep times to the microsecond (SQLite as INTEGER microseconds since the
//! epoch, PostgreSQL as `TIMESTAMPTZ`), so a value round-trips the same way on either. Every
//! entry is also stored whole, as JSON, so nothing the parser produced is lost; its SHA-256 is
//! the entry's content hash. Full-text search reads user input as plain words only (FTS5 on
//! SQLite, `tsvector` on PostgreSQL): no input is ever parsed as SQL or search syntax.
//!
//! Modules, in reading order: `types` (the values crossing the boundary), `codec` (helpers
//! both backends share: serialisation, hashing, counters, search terms), `migrations` (the
//! embedded schemas), `sqlite` and `postgres` (the two implementations of [`Store`]).

mod types;

mod accounts;
mod checks;
mod codec;
mod feeds;
pub mod freshness;
mod images;
mod jobs;
mod keys;
mod log;
mod migrations;
mod postgres;
pub mod reading;
mod resources;
mod search;
mod sql;
mod sqlite;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
mod websub;

pub use postgres::PgStore;
pub use reading::{
    EntryState, NEW_SUBSCRIPTION_UNREAD, Placement, ReadEntry, ReadScope, ReadStatus, ReadingOrder,
    ReadingQuery, StateChange, Subscriber, Subscription, SubscriptionEdit, UnreadCounts,
    account_subscriber,
};
pub use sqlite::SqliteStore;
pub use types::*;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;
use tidings_model::{FeedId, FeedUrl, RequestTicket};

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("no feed with id {0}")]
    NoSuchFeed(FeedId),
    #[error("invalid database location {0:?}: {1}")]
    Location(String, String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("the store's writer stopped before the write was done")]
    WriterStopped,
    #[error("the feed {0} was removed on request and cannot be subscribed to again (WFM10)")]
    FeedRemoved(String),
}

impl StoreError {
    /// Whether the same call may succeed if made again soon: the database could not be
    /// reached or went away mid-call (a restart, a network cut), or it gave the transaction
    /// up to let another go (a serialization failure, a deadlock). Nothing of a failed call
    /// is stored.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::Tls(_)
                | sqlx::Error::Protocol(_) => true,
                sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                    // PostgreSQL: connection exceptions (08…), the server shutting down or
                    // starting (57P01–57P03), serialization failures and deadlocks (40…);
                    // SQLite: the database busy or locked.
                    code.starts_with("08")
                        || code.starts_with("57P")
                        || code.starts_with("40")
                        || code == "5"
                        || code == "6"
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What the rest of tidings may ask of the database.
/// How long a want of a host (a claim that found it busy) keeps others from claiming it
/// after its holder gives it back: its claimer asks again well within it while it waits.
pub const WANT_FRESH: std::time::Duration = std::time::Duration::from_secs(1);

#[async_trait]
pub trait Store: Send + Sync {
    /// Subscribe `subscriber` to the feed at `url`, creating the feed with the schedule `new`
    /// (as the policy decided) if it is new. Subscribing twice is harmless. One feed row per
    /// URL, whoever subscribes (C2); a URL a feed was first subscribed at still names that feed
    /// after it moved. A feed removed on request is [`StoreError::FeedRemoved`] (WFM10).
    async fn subscribe(
        &self,
        url: &FeedUrl,
        subscriber: &str,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed>;

    /// Remove a subscription; returns whether one existed. The feed stays (its entries too).
    async fn unsubscribe(&self, feed: FeedId, subscriber: &str) -> Result<bool>;

    /// Delete a feed nobody subscribes to and that holds no entry (a URL subscribed to that
    /// turned out to be an HTML page, FF1), with its queue and log links; returns whether it
    /// was deleted. A feed removed on request is never deleted (WFM10 remembers it).
    async fn discard_feed(&self, feed: FeedId) -> Result<bool>;

    /// Remove a feed on request, at once (WFM10): its state becomes `removed`, every
    /// subscription goes, it is never due again, and subscribing to it again fails. Its entries
    /// and request log stay. Returns whether the feed exists; removing twice is harmless.
    async fn remove_feed(&self, feed: FeedId) -> Result<bool>;

    /// One feed by id.
    async fn feed(&self, id: FeedId) -> Result<Option<FeedRecord>>;

    /// One feed by URL: the feed fetched at `url`, else the feed first subscribed to at `url`
    /// (it moved after a permanent redirect).
    async fn feed_by_url(&self, url: &FeedUrl) -> Result<Option<FeedRecord>>;

    /// All feeds, by id.
    async fn feeds(&self) -> Result<Vec<FeedRecord>>;

    /// Active feeds with at least one subscriber whose `next_fetch_at <= now`, most overdue
    /// first, at most `limit`.
    async fn due_feeds(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<FeedRecord>>;

    /// The due feeds of [`Store::due_feeds`] that come after `after` (a feed's
    /// `(next_fetch_at, id)`; `None`: from the first) in that order: one page of a pass over
    /// everything due, each page an index range, whatever is being read meanwhile.
    async fn due_feeds_after(
        &self,
        now: DateTime<Utc>,
        after: Option<(DateTime<Utc>, FeedId)>,
        limit: u32,
    ) -> Result<Vec<FeedRecord>>;

    /// The earliest `next_fetch_at` among the feeds [`Store::due_feeds`] would return at some
    /// time (active, at least one subscriber); `None` when there are none.
    async fn next_due(&self) -> Result<Option<DateTime<Utc>>>;

    /// Like [`Store::next_due`], among the feeds due strictly later than `after` (a crawler
    /// whose due feeds are all being read sleeps until this).
    async fn next_due_after(&self, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>>;

    /// Apply one fetch: feed state, validators, schedule, counters, entries and the request
    /// log row, all in one transaction. Either all of it is stored or none of it.
    async fn apply_fetch(&self, fetch: FetchRecord) -> Result<ApplyReport>;

    /// Store the entries a WebSub hub pushed for one feed, as a read's would be (upserted by
    /// identity, counted unread), and count the push on the feed's subscription; the feed's
    /// own state (schedule, validators, failures) is left as it is.
    async fn apply_push(&self, push: PushRecord) -> Result<ApplyReport>;

    /// The feed's WebSub subscription, if it has one.
    async fn websub(&self, feed: FeedId) -> Result<Option<WebSubRecord>>;

    /// The WebSub subscription whose callback is named `token`.
    async fn websub_by_token(&self, token: &str) -> Result<Option<WebSubRecord>>;

    /// Write the feed's subscription as `record` says (made or replaced whole; its push
    /// count and last push stay the store's), with the request-log rows of the request that
    /// asked the hub, if one did (C7), in one transaction.
    async fn save_websub(&self, record: &WebSubRecord, log: &[RequestLogRow]) -> Result<()>;

    /// Stored entries, newest first (see `StoredEntry::sort_at`).
    async fn entries(&self, query: &EntryQuery) -> Result<Vec<StoredEntry>>;

    /// Request log rows, newest first: the rows of answered requests and the write-ahead
    /// rows not closed yet (outcome `in_flight`, no status, 0 bytes and 0 ms).
    async fn request_log(&self, query: &LogQuery) -> Result<Vec<RequestLogRow>>;

    /// Write the request-log row of a request about to be sent (C7): `row`'s time, feed,
    /// host, purpose, URL, egress and rule (its answer's fields are not kept), committed
    /// before this returns. The request's own row, written with the answer, names the ticket
    /// and closes it in the same transaction; until then the log shows it as `in_flight`, and
    /// so it stays if the process stops first.
    async fn open_request(&self, row: &RequestLogRow) -> Result<RequestTicket>;

    /// Delete the write-ahead row of a request that was not sent after all (its host's lease
    /// was lost while the row was written): the log keeps only requests that left.
    async fn withdraw_request(&self, ticket: RequestTicket) -> Result<()>;

    /// Delete the request-log rows older than `before` (FF17: the log has its own retention
    /// period), a batch at a time so no write waits long behind it. Returns the rows deleted.
    async fn prune_request_log(&self, before: DateTime<Utc>) -> Result<u64>;

    /// The last `limit` changes of a feed's directives (FF14), newest first.
    async fn directive_history(&self, feed: FeedId, limit: u32) -> Result<Vec<DirectiveRecord>>;

    /// Count of stored entries (for a feed, or all).
    async fn count_entries(&self, feed: Option<FeedId>) -> Result<u64>;

    /// Of the entry identities `ids` (`Entry::id`, unique), how many `feed` has not stored
    /// yet, and how many entries it first stored at or after `since`: what the bound on new
    /// entries per feed and day is decided on, before a read is applied.
    async fn new_entry_counts(
        &self,
        feed: FeedId,
        ids: &[&str],
        since: DateTime<Utc>,
    ) -> Result<NewEntryCounts>;

    /// The time before which no request may go to `host` (`scheme://host:port`), if any.
    async fn host_floor(&self, host: &str) -> Result<Option<DateTime<Utc>>> {
        Ok(self.host_state(host).await?.floor)
    }

    /// The Retry-After floor and the cached robots.txt of `host` (`scheme://host:port`), in
    /// one read: a feed's read needs both, one after the other.
    async fn host_state(&self, host: &str) -> Result<HostState>;

    /// [`Store::host_state`] for a reader that holds the copy of `host`'s robots.txt read at
    /// `held` with status `held_status`: while that is the stored copy, its text is not read
    /// again ([`HeldRobots::Held`]).
    async fn host_state_holding(
        &self,
        host: &str,
        held: DateTime<Utc>,
        held_status: Option<i32>,
    ) -> Result<HostStateHolding> {
        let state = self.host_state(host).await?;
        Ok(HostStateHolding::of(
            state.floor,
            state.robots,
            Some((held, held_status)),
        ))
    }

    /// Claim each of `hosts` (gate keys: lower-cased host names) for `holder` until `until`,
    /// real time (C3), in one statement: a new claim where the host is free or its lease
    /// expired by `now`, or a renewal of `holder`'s own. Every claim moves the host's fencing
    /// token. Where another holder's lease runs, the answer is [`HostClaim::Busy`] with its
    /// expiry, and `holder` is recorded as wanting the host: for [`WANT_FRESH`] after, a host
    /// given back goes to the first who wanted it, not back to its last holder. One answer per host, in order. On PostgreSQL the rows are taken
    /// `FOR UPDATE SKIP LOCKED`: a claimer never waits behind another.
    async fn claim_hosts(
        &self,
        hosts: &[String],
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<HostClaim>>;

    /// [`Store::claim_hosts`] of one host.
    async fn claim_host(
        &self,
        host: &str,
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<HostClaim> {
        let mut claims = self
            .claim_hosts(&[host.to_owned()], holder, now, until)
            .await?;
        claims
            .pop()
            .ok_or_else(|| StoreError::Corrupt(format!("no claim answered for host {host}")))
    }

    /// Give hosts back, in one statement: each of `holder`'s leases named by a [`Release`]
    /// ends now, its last request to the host having ended at `last_end` (real time; a later
    /// end already recorded is kept). A lease that is no longer the host's (it expired and
    /// another claimed it) is not touched. Returns how many were given back.
    async fn release_hosts(
        &self,
        holder: &str,
        releases: &[Release],
        now: DateTime<Utc>,
    ) -> Result<u64>;

    /// [`Store::release_hosts`] of one lease; false when it was no longer the host's.
    async fn release_host(
        &self,
        host: &str,
        holder: &str,
        token: i64,
        now: DateTime<Utc>,
        last_end: Option<DateTime<Utc>>,
    ) -> Result<bool> {
        let release = Release {
            host: host.to_owned(),
            token,
            last_end,
        };
        Ok(self.release_hosts(holder, &[release], now).await? > 0)
    }

    /// The cached robots.txt of a host (`scheme://host:port`), if it was ever fetched.
    async fn robots(&self, host: &str) -> Result<Option<RobotsCache>> {
        Ok(self.host_state(host).await?.robots)
    }

    /// Store a freshly fetched robots.txt of `host` and the request-log rows of its fetch (one
    /// per request: redirect hops, then the answer), in one transaction.
    async fn save_robots(
        &self,
        host: &str,
        robots: &RobotsCache,
        log: &[RequestLogRow],
    ) -> Result<()>;

    /// An operator resumes a paused or switched-off feed: active again, failures forgotten,
    /// read at `at` for `reason`. False when there is no such feed or it is neither paused
    /// nor off (a removed feed stays removed).
    async fn resume_feed(&self, id: FeedId, at: DateTime<Utc>, reason: &str) -> Result<bool>;
    /// Add a do-not-crawl rule (FF13); adding one that exists keeps the first (and says so).
    async fn add_block(&self, block: &NewBlock) -> Result<BlockAdded>;

    /// Remove the rule of `kind` and `value`; returns whether it existed.
    async fn remove_block(&self, kind: &str, value: &str) -> Result<bool>;

    /// Every do-not-crawl rule, by id.
    async fn blocks(&self) -> Result<Vec<StoredBlock>>;

    /// A number every change of the do-not-crawl rules moves (in any process sharing the
    /// store): a reader holding the rules of one version knows by this one row whether they
    /// are still the rules. A change through this store is seen at once; one made by another
    /// process within [`freshness::FRESH_FOR`].
    async fn blocks_version(&self) -> Result<i64>;

    /// Create an account; `None` when an account of that name exists (names are compared
    /// ignoring case).
    async fn add_account(&self, account: &NewAccount) -> Result<Option<Account>>;

    /// Every account, by name (case ignored).
    async fn accounts(&self) -> Result<Vec<Account>>;

    /// The account named `name` (case ignored) with its password hashes, for a login.
    async fn account_secrets(&self, name: &str) -> Result<Option<AccountSecrets>>;

    /// Replace the login password's hash of account `name`, ending its web sessions; false
    /// when there is none.
    async fn set_password(&self, name: &str, hash: &str, at: DateTime<Utc>) -> Result<bool>;

    /// Set (or with `None` remove) the API password's hash of account `name`, ending its sync
    /// sessions; false when there is none.
    async fn set_api_password(
        &self,
        name: &str,
        password: Option<&ApiPassword>,
        at: DateTime<Utc>,
    ) -> Result<bool>;

    /// The account whose Fever key hashes to `fever_key_hash` (see [`ApiPassword`]).
    async fn account_by_fever_key(&self, fever_key_hash: &str) -> Result<Option<Account>>;

    /// Remove account `name`; false when there is none.
    async fn remove_account(&self, name: &str) -> Result<bool>;

    /// Store a session of an account.
    async fn create_session(&self, session: &NewSession) -> Result<()>;

    /// The account of the session of `kind` whose token hashes to `token_hash`, if it has not
    /// expired at `now`.
    async fn session_account(
        &self,
        token_hash: &str,
        kind: SessionKind,
        now: DateTime<Utc>,
    ) -> Result<Option<Account>>;

    /// End the session whose token hashes to `token_hash`; false when there was none.
    async fn end_session(&self, token_hash: &str) -> Result<bool>;

    /// Subscribe account `account` to the feed at `url`, as [`Store::subscribe`] does for any
    /// subscriber (one feed per URL, C2), filed as `placement` says. A new subscription starts
    /// with the feed's newest [`reading::NEW_SUBSCRIPTION_UNREAD`] entries unread and the
    /// older ones read; entries that arrive later are unread. Subscribing again keeps the
    /// reading state and changes only what `placement` names.
    async fn subscribe_account(
        &self,
        url: &FeedUrl,
        account: i64,
        placement: &Placement,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed>;

    /// End account `account`'s subscription to `feed` and forget its state of the feed's
    /// entries; false when there was none. The feed stays (for its other subscribers).
    /// Move every subscription of `from` (an HTML page subscribed to by its URL, FF1) to the
    /// feed at `to` (stored with `new`'s schedule when new), keeping each subscriber's title
    /// and folder; a subscriber of both keeps its `to`. Reading state starts afresh on `to`;
    /// `from` is dropped when it holds no entries. `new_subscription`: any moved.
    async fn move_subscriptions(
        &self,
        from: FeedId,
        to: &FeedUrl,
        now: DateTime<Utc>,
        new: &NewFeed,
    ) -> Result<Subscribed>;

    async fn unsubscribe_account(&self, account: i64, feed: FeedId) -> Result<bool>;

    /// Account `account`'s subscriptions, with their unread counts, by feed id.
    async fn subscriptions(&self, account: i64) -> Result<Vec<Subscription>>;

    /// Change the title or folder of account `account`'s subscription to `feed`; false when
    /// there is none.
    async fn edit_subscription(
        &self,
        account: i64,
        feed: FeedId,
        edit: &SubscriptionEdit,
    ) -> Result<bool>;

    /// Rename folder `from` of account `account` to `to` (`None`: file its feeds under no
    /// folder); returns how many subscriptions moved.
    async fn rename_folder(&self, account: i64, from: &str, to: Option<&str>) -> Result<u64>;

    /// Set the state of entries `ids` for account `account` at `now`; entries of feeds it does
    /// not subscribe to are left alone. Returns how many entries changed.
    async fn set_entry_states(
        &self,
        account: i64,
        ids: &[i64],
        change: StateChange,
        now: DateTime<Utc>,
    ) -> Result<u64>;

    /// Mark read every entry of `scope` for account `account` first seen at or before `up_to`
    /// (never after `now`): nothing that arrived later is marked. Returns how many entries
    /// were unread before and are read now.
    async fn mark_all_read(
        &self,
        account: i64,
        scope: &ReadScope,
        up_to: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64>;

    /// Account `account`'s entries that `query` selects, with their state.
    async fn reading(&self, query: &ReadingQuery) -> Result<Vec<ReadEntry>>;

    /// How many entries `query` selects, ignoring its offset and limit.
    async fn count_reading(&self, query: &ReadingQuery) -> Result<u64>;

    /// The unread entries of each of account `account`'s subscriptions counted one by one,
    /// by feed id: what the kept counts must equal (for checks and tests; it reads every
    /// unread entry).
    async fn recount_unread(&self, account: i64) -> Result<Vec<(FeedId, u64)>>;

    /// Store a new API key.
    async fn create_key(&self, key: &NewKey) -> Result<ApiKey>;

    /// The key whose token hashes to `hash` (hex SHA-256), revoked or not.
    async fn key_by_hash(&self, hash: &str) -> Result<Option<ApiKey>>;

    /// Every API key, by id.
    async fn list_keys(&self) -> Result<Vec<ApiKey>>;

    /// Revoke key `id` at `at`; false when there is no such key or it was already revoked.
    async fn revoke_key(&self, id: i64, at: DateTime<Utc>) -> Result<bool>;

    /// Record that key `id` was used at `at` (`last_used_at` only moves later).
    async fn touch_key(&self, id: i64, at: DateTime<Utc>) -> Result<()>;

    /// An operator's change to feed `id`, in one transaction; the feed as it is afterwards, or
    /// `None` when there is no such feed. A removed feed keeps its state (WFM10); resuming
    /// touches only a paused or off feed, and `reschedule` only an active one.
    async fn patch_feed(&self, id: FeedId, patch: &FeedPatch) -> Result<Option<FeedRecord>>;

    /// A reader's "read now" on feed `id` (see [`Sooner`]): true when its next read moved.
    async fn read_sooner(&self, id: FeedId, sooner: &Sooner) -> Result<bool>;

    /// The feeds `subscriber` is subscribed to, by id.
    async fn feeds_of(&self, subscriber: &str) -> Result<Vec<FeedRecord>>;

    /// How many feeds [`Store::due_feeds`] would return at `now` without a limit: the depth
    /// of the due queue (one indexed count, for `/metrics`).
    async fn count_due(&self, now: DateTime<Utc>) -> Result<u64>;

    /// How many feeds are in each state, every state listed (zero when none), in the order
    /// active, paused, off, removed.
    async fn count_feeds_by_state(&self) -> Result<Vec<(FeedState, u64)>>;

    /// One stored entry by its row id ([`StoredEntry::id`]).
    async fn entry(&self, id: i64) -> Result<Option<StoredEntry>>;

    /// Store a new Web Bot Auth key (SR11); false when a key with its `keyid` exists already.
    async fn add_bot_key(&self, key: &BotKeyRow) -> Result<bool>;

    /// Delete the Web Bot Auth key `keyid` (one that must stop signing and leave the
    /// directory at once); false when there is none.
    async fn remove_bot_key(&self, keyid: &str) -> Result<bool>;

    /// Every Web Bot Auth key, expired ones too, by `not_before`, then in the order they were
    /// made (`created_at`), then by `keyid`.
    async fn bot_keys(&self) -> Result<Vec<BotKeyRow>>;

    /// Queue the article pages of `feed`'s entries for their previews (SR1): a page never
    /// queued is due at `due_at`; one queued before (for any feed) is not asked again, and its
    /// preview serves the entry too. Each entry is linked to its page once; an entry already
    /// linked is left as it is. Returns how many pages were new.
    async fn queue_pages(
        &self,
        feed: FeedId,
        pages: &[NewPage],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64>;

    /// Queue `site`'s icon candidates, in order, for `feed` (SR1, SR7), unless the site has
    /// candidates already: the first is due at `due_at`, the others wait their turn. The feed's
    /// icon is the site's either way. Returns whether candidates were queued.
    async fn queue_icons(
        &self,
        feed: FeedId,
        site: &str,
        candidates: &[String],
        first_add: bool,
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<bool>;

    /// Queued resources due at `now` whose feed is still read (active), earliest first, at
    /// most `limit`.
    async fn due_resources(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<ResourceRecord>>;

    /// When the next queued resource falls due after `after` (its feed active), if any does.
    async fn next_resource_due(&self, after: DateTime<Utc>) -> Result<Option<DateTime<Utc>>>;

    /// Apply one read of a queued resource with its request-log rows, in one transaction. A
    /// read made under a host lease that moved to another holder since (`apply.fence`, as a
    /// feed's) writes only its log rows and host floor: the resource's state is the new
    /// holder's (only [`ApplyReport::fenced_out`] is set).
    async fn apply_resource(&self, apply: &ResourceApply) -> Result<ApplyReport>;

    /// The queue, most recently read or queued first, of one purpose or all, at most `limit`.
    async fn resources(
        &self,
        purpose: Option<tidings_model::RequestPurpose>,
        limit: u32,
    ) -> Result<Vec<ResourceRecord>>;

    /// The icon kept for `site`, if any.
    async fn icon(&self, site: &str) -> Result<Option<StoredIcon>>;

    /// The sites that have an icon kept, of those in `sites`.
    async fn sites_with_icons(&self, sites: &[String]) -> Result<Vec<String>>;

    /// Queue thumbnails whose licence permits showing them for the image cache (FF9): a URL
    /// neither cached nor queued before is due at `due_at`; one queued before is not asked
    /// again. Returns how many were new.
    async fn queue_images(
        &self,
        feed: FeedId,
        urls: &[String],
        due_at: DateTime<Utc>,
        reason: &str,
    ) -> Result<u64>;

    /// The cached copy of the image at `url`, marked used at `at` (FF9).
    async fn image(&self, url: &str, at: DateTime<Utc>) -> Result<Option<StoredImage>>;

    /// The URLs of `urls` the image cache holds a copy of.
    async fn cached_images(&self, urls: &[String]) -> Result<Vec<String>>;

    /// Drop the copies outside `bounds` (FF9), with their queue rows, so a thumbnail still in
    /// a feed is queued again by a later read that brings new entries. Returns the copies
    /// dropped: (expired, over the total).
    async fn prune_images(&self, bounds: ImageBounds) -> Result<(u64, u64)>;

    /// What the image cache holds and has dropped.
    async fn image_cache_stats(&self) -> Result<ImageCacheStats>;

    /// Store one check of a URL by discovery (FF2) with its request-log rows and its host's
    /// Retry-After, in one transaction; earlier checks of the URL are kept. Returns its id.
    async fn apply_check(&self, apply: &CheckApply) -> Result<i64>;

    /// The latest check of each of `urls` that was checked (FF2: what the cooldown reads).
    async fn last_checks(&self, urls: &[String]) -> Result<Vec<StoredCheck>>;

    /// The check with this id, if any.
    async fn url_check(&self, id: i64) -> Result<Option<StoredCheck>>;

    /// Every check of `url`, newest first, at most `limit`.
    async fn url_checks(&self, url: &str, limit: u32) -> Result<Vec<StoredCheck>>;

    /// The URLs whose latest check is held for review (FF3), oldest first, at most `limit`.
    async fn held_checks(&self, limit: u32) -> Result<Vec<StoredCheck>>;

    /// Keep a search query definition (FF18); returns it and whether it is new (the same
    /// provider and query are kept once).
    async fn add_search_query(
        &self,
        provider: &str,
        query: &str,
        at: DateTime<Utc>,
    ) -> Result<(SearchQuery, bool)>;

    /// Every search query definition, oldest first.
    async fn search_queries(&self) -> Result<Vec<SearchQuery>>;

    /// Remove a search query definition; returns whether it existed.
    async fn remove_search_query(&self, id: i64) -> Result<bool>;

    /// Record what a run of a search query did, at `at`.
    async fn search_query_ran(&self, id: i64, at: DateTime<Utc>, result: &str) -> Result<()>;

    /// Put a job in the page queue (FF1, FF4), its start URL as its frontier.
    async fn submit_page_job(&self, job: &NewPageJob) -> Result<PageJob>;

    /// The job with this id, if any.
    async fn page_job(&self, id: i64) -> Result<Option<PageJob>>;

    /// The newest jobs first, at most `limit`.
    async fn page_jobs(&self, limit: u32) -> Result<Vec<PageJob>>;

    /// Take the oldest job waiting (or only the job `only`, when given): queued, or running
    /// and not heard of since `stale_before` (its crawler stopped; it goes on where it was).
    /// It is marked running at `at`.
    async fn claim_page_job(
        &self,
        only: Option<i64>,
        at: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<PageJob>>;

    /// Give a running job back to the queue at `at` (its crawler stops; it goes on where it
    /// was when taken again). Returns whether it was running.
    async fn release_page_job(&self, id: i64, at: DateTime<Utc>) -> Result<bool>;

    /// A job's frontier: the URLs left to read, in the order queued, and every URL queued.
    async fn page_job_frontier(&self, id: i64) -> Result<JobFrontier>;

    /// Write one step of a running job at `at`, in one transaction (a URL queued twice is
    /// kept once; a feed found twice is kept once).
    async fn page_job_step(&self, id: i64, step: &JobStep, at: DateTime<Utc>) -> Result<()>;

    /// The feeds a job found, in the order found.
    async fn page_job_feeds(&self, id: i64) -> Result<Vec<JobFeed>>;

    /// End a job at `at` as `state` (done or failed), with the budget that ended it or the
    /// error; its frontier is dropped. Returns whether a job that was not over yet ended.
    async fn finish_page_job(
        &self,
        id: i64,
        state: tidings_model::PageJobState,
        stopped_by: Option<&str>,
        error: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<bool>;

    /// Drop the jobs that finished before `before`, with what they found (FF17: a finished
    /// job's own retention period; the URL checks it made are kept). Returns how many.
    async fn prune_page_jobs(&self, before: DateTime<Utc>) -> Result<u64>;

    /// Add a feed to the catalogue (SR2); returns whether it was not there yet.
    async fn add_to_catalogue(
        &self,
        feed: FeedId,
        added_by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool>;

    /// The catalogue's feeds, in the order added.
    async fn catalogue(&self) -> Result<Vec<CatalogueEntry>>;

    /// Take a feed off the catalogue; returns whether it was on it.
    async fn remove_from_catalogue(&self, feed: FeedId) -> Result<bool>;

    /// The feeds whose last body hashed to `hash` (FF3), oldest first.
    async fn feeds_with_content_hash(&self, hash: &str) -> Result<Vec<FeedId>>;

    /// The stored feeds that have any of `ids` as entry ids, with how many and how many
    /// entries they have in all (FF3), most shared first, at most `limit`.
    async fn entry_overlap(&self, ids: &[String], limit: u32) -> Result<Vec<EntryOverlap>>;
}

/// Open the store named by `location`: a `postgres://` or `postgresql://` URL, a `sqlite:` URL,
/// or a file path for SQLite (created if missing). Migrations are applied before it returns.
///
/// A file path whose directory does not exist is [`StoreError::Location`].
pub async fn open(location: &str) -> Result<Arc<dyn Store>> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::open(location).await?))
    } else {
        Ok(Arc::new(SqliteStore::open(location).await?))
    }
}
