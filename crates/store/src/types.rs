//! The values that cross the [`Store`](crate::Store) boundary.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tidings_model::{
    Entry, FailureKind, FailureTotals, FeedId, FeedUrl, Label, RequestTicket, Validators,
};

/// Whether a feed is fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedState {
    /// Scheduled normally.
    Active,
    /// Not fetched until an operator resumes it or its pause ends (the reason says which).
    Paused,
    /// Switched off for good (410, refused on every egress) until an operator acts.
    Off,
    /// Removed on request (WFM10).
    Removed,
}

impl FeedState {
    pub fn as_str(self) -> &'static str {
        match self {
            FeedState::Active => "active",
            FeedState::Paused => "paused",
            FeedState::Off => "off",
            FeedState::Removed => "removed",
        }
    }

    pub fn parse(s: &str) -> Option<FeedState> {
        Some(match s {
            "active" => FeedState::Active,
            "paused" => FeedState::Paused,
            "off" => FeedState::Off,
            "removed" => FeedState::Removed,
            _ => return None,
        })
    }
}

/// Per-feed counters of outcomes, cumulative.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedCounters {
    pub fetches: i64,
    pub ok: i64,
    pub not_modified: i64,
    pub errors: i64,
}

/// A feed as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedRecord {
    pub id: FeedId,
    /// The URL fetched now (may differ from `original_url` after a permanent redirect).
    pub url: FeedUrl,
    /// The URL first subscribed to.
    pub original_url: String,
    pub title: Option<String>,
    /// The site's HTML link, from the feed.
    pub site_link: Option<String>,
    pub state: FeedState,
    pub state_reason: Option<String>,
    /// The do-not-crawl rule holding the feed (paused, FF13, WFM10), while one does.
    pub held_by: Option<String>,
    pub validators: Validators,
    /// SHA-256 of the last body, to notice unchanged bodies without validators (C5).
    pub content_hash: Option<String>,
    pub next_fetch_at: DateTime<Utc>,
    /// Why `next_fetch_at` is what it is ("interval 1h", "Retry-After 3600s", ...).
    pub next_fetch_reason: String,
    /// The current refresh interval in seconds.
    pub interval_secs: i64,
    pub last_fetch_at: Option<DateTime<Utc>>,
    pub last_status: Option<i32>,
    /// [`FetchOutcome::label`](tidings_model::FetchOutcome::label) of the last fetch.
    pub last_outcome: Option<Label>,
    pub last_error: Option<String>,
    /// Failures since the last success.
    pub consecutive_failures: i32,
    /// The kind of the last failed read; `None` after a success.
    pub last_failure: Option<FailureKind>,
    /// The failures of each kind since the feed was added or last resumed (PF5).
    pub failure_totals: FailureTotals,
    pub counters: FeedCounters,
    pub subscribers: i64,
    pub created_at: DateTime<Utc>,
    /// A permanent redirect seen on every successful read since `.1`, not yet persisted (PF9).
    pub pending_move: Option<(String, DateTime<Utc>)>,
    /// The feed's own `dcterms:valid` end (FF16): after it, the feed and its entries leave
    /// current views and search.
    pub expires: Option<DateTime<Utc>>,
    /// The local address an operator assigned to this feed's requests (WFM7, PF11), if any.
    pub egress: Option<String>,
    /// What an operator set for this feed in place of the profile's values.
    pub overrides: FeedOverrides,
    /// Each address the feed was read from (`default` for the system's own) and whether its
    /// latest answer was a refusal (WFM8).
    pub egress_refusals: std::collections::BTreeMap<String, bool>,
    /// The directives in force on the feed (FF14), for a profile that obeys them.
    pub directives: tidings_rights::Directives,
    /// The feed's selected thumbnail with its licence decision (FF7, FF8).
    pub thumbnail: Option<tidings_model::SelectedImage>,
    /// The site (origin) whose icon is the feed's, once its icon was queued (SR1).
    pub site: Option<String>,
}

/// One change of a feed's directives (FF14), with the response that brought it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveRecord {
    pub at: DateTime<Utc>,
    /// What the response said.
    pub seen: tidings_rights::Directives,
    /// The feed's directives after it.
    pub current: tidings_rights::Directives,
    /// A full response (which replaces), or a 304 (which only adds).
    pub full: bool,
}

/// An operator's settings for one feed in place of the profile's values. Each stays within
/// the profile's bounds (the API checks; the policy clamps again).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeedOverrides {
    /// A fixed refresh interval in seconds, used instead of the one learned from the feed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_secs: Option<u64>,
}

/// An operator's change to one feed ([`Store::patch_feed`](crate::Store::patch_feed)); each
/// `None` leaves that part as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedPatch {
    /// `Some(true)` pauses the feed with `reason`; `Some(false)` makes a paused or off feed
    /// active again, due at `at`.
    pub paused: Option<bool>,
    /// The reason stored with the new state.
    pub reason: String,
    /// With `paused: Some(true)`, the do-not-crawl rule that holds the feed, if a rule does;
    /// every resume clears it.
    pub held_by: Option<String>,
    /// `Some(None)` clears the assigned egress address.
    pub egress: Option<Option<String>>,
    pub overrides: Option<FeedOverrides>,
    /// A new next read (with its reason) when the overrides change when the feed is due.
    pub reschedule: Option<(DateTime<Utc>, String)>,
    pub at: DateTime<Utc>,
}

/// A reader's request to read a feed earlier, at `at` (from
/// `tidings_policy::schedule::read_now`, which keeps the schedule's floors). It moves the next
/// read only when that makes it earlier, the feed is active, no failure is pending (its
/// backoff and any Retry-After stand), and its last read is still `after_read`: a read that
/// happened meanwhile set its own next read, which stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sooner {
    pub at: DateTime<Utc>,
    pub reason: String,
    pub after_read: Option<DateTime<Utc>>,
}

impl FeedPatch {
    /// A change made at `at` that changes nothing yet; set the parts that change.
    pub fn at(at: DateTime<Utc>) -> FeedPatch {
        FeedPatch {
            paused: None,
            reason: String::new(),
            held_by: None,
            egress: None,
            overrides: None,
            reschedule: None,
            at,
        }
    }

    /// Pause (`true`) or resume (`false`) the feed with `reason`.
    pub fn paused(paused: bool, reason: impl Into<String>, at: DateTime<Utc>) -> FeedPatch {
        FeedPatch {
            paused: Some(paused),
            reason: reason.into(),
            ..FeedPatch::at(at)
        }
    }

    /// Hold the feed under the do-not-crawl rule `rule` (paused with `reason`).
    pub fn held(
        rule: impl Into<String>,
        reason: impl Into<String>,
        at: DateTime<Utc>,
    ) -> FeedPatch {
        FeedPatch {
            held_by: Some(rule.into()),
            ..FeedPatch::paused(true, reason, at)
        }
    }

    /// Read the feed from `egress` (`None`: the system's own address).
    pub fn egress(egress: Option<String>, at: DateTime<Utc>) -> FeedPatch {
        FeedPatch {
            egress: Some(egress),
            ..FeedPatch::at(at)
        }
    }
}

/// The schedule a new feed starts with, as the policy decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFeed {
    pub next_fetch_at: DateTime<Utc>,
    pub next_fetch_reason: String,
    pub interval_secs: i64,
}

/// Result of [`Store::subscribe`](crate::Store::subscribe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscribed {
    pub feed_id: FeedId,
    /// The feed row was created by this call.
    pub new_feed: bool,
    /// The subscription was created by this call.
    pub new_subscription: bool,
}

/// Feed-level metadata learned from a parsed body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedMeta {
    pub title: Option<String>,
    pub site_link: Option<String>,
    /// The feed's `dcterms:valid` end (FF16); unlike the other fields, a body without one
    /// clears a stored one.
    pub expires: Option<DateTime<Utc>>,
    /// The feed's selected thumbnail with its licence decision (FF7, FF8); like `expires`,
    /// every full read decides it again, so a body without one clears it.
    #[serde(default)]
    pub thumbnail: Option<tidings_model::SelectedImage>,
}

/// How the feed row changes after one fetch, as the policy decided.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedUpdate {
    /// New validators; `None` keeps the stored ones.
    pub validators: Option<Validators>,
    /// New body hash; `None` keeps the stored one.
    pub content_hash: Option<String>,
    /// New URL after a persisted permanent redirect.
    pub url: Option<FeedUrl>,
    /// The permanent redirect under observation after this read (`None` clears it).
    pub pending_move: Option<(String, DateTime<Utc>)>,
    pub state: FeedState,
    pub state_reason: Option<String>,
    /// The do-not-crawl rule that holds the feed after this read, if one does.
    pub held_by: Option<String>,
    pub next_fetch_at: DateTime<Utc>,
    pub next_fetch_reason: String,
    pub interval_secs: i64,
    pub consecutive_failures: i32,
    pub last_status: Option<i32>,
    pub last_outcome: Label,
    pub last_error: Option<String>,
    /// The kind of this read's failure as the policy decided it, or the one kept (a read
    /// that sent nothing keeps the last); `None` after a success.
    pub last_failure: Option<FailureKind>,
    /// The feed's failure totals after this read.
    pub failure_totals: FailureTotals,
    /// Metadata from a parsed body; `None` keeps the stored metadata, and so does each field
    /// the body lacks (a truncated body must not erase a known title).
    pub meta: Option<FeedMeta>,
    /// The refusal record per egress address after this read; `None` keeps the stored one.
    pub egress_refusals: Option<std::collections::BTreeMap<String, bool>>,
    /// How this read moved the feed's directives (FF14); `None` keeps them.
    pub directives: Option<tidings_rights::directive::Change>,
}

/// One row of the request log (C7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestLogRow {
    pub at: DateTime<Utc>,
    pub feed_id: Option<FeedId>,
    /// The host key (`scheme://host:port`) the request went to.
    pub host: String,
    /// Why it was made: `feed`, `robots`, `first_add`, ...
    pub purpose: String,
    pub url: String,
    /// Local address it was sent from, when bound.
    pub egress: Option<String>,
    pub status: Option<i32>,
    /// `FetchOutcome::label`.
    pub outcome: Label,
    pub bytes: i64,
    pub duration_ms: i64,
    /// The rule that allowed the request ("due: interval 1h", "first add").
    pub rule: String,
    /// The write-ahead row ([`Store::open_request`](crate::Store::open_request)) this row
    /// closes, written in the same transaction; `None` when none was written. The store's own
    /// bookkeeping, never shown.
    #[serde(skip)]
    pub ticket: Option<RequestTicket>,
}

/// Everything one fetch changes, applied atomically by
/// [`Store::apply_fetch`](crate::Store::apply_fetch).
#[derive(Debug, Clone, PartialEq)]
pub struct FetchRecord {
    pub feed_id: FeedId,
    pub fetched_at: DateTime<Utc>,
    pub update: FeedUpdate,
    /// Entries of a parsed body, upserted by stable identity. Empty for 304 and errors.
    pub entries: Vec<Entry>,
    /// Every request the read made, in order: redirect hops first, the final answer last (C7).
    pub log: Vec<RequestLogRow>,
    /// A Retry-After the answer gave, as a floor for every request to this host key
    /// (`scheme://host:port`) until then (C6); a later floor never moves an existing one earlier.
    pub host_floor: Option<(String, DateTime<Utc>)>,
    /// The host lease the read was made under (C3 across processes), when it was: the feed's
    /// state and entries are written only while the host's fencing token is still this one.
    /// A holder that lost its lease (paused, cut off, its lease expired and taken) writes only
    /// the request-log rows of what it sent, never over the new holder's state.
    pub fence: Option<Fence>,
}

/// Entries a WebSub hub pushed for one feed ([`Store::apply_push`](crate::Store::apply_push)),
/// already kept as the profile keeps a read's.
#[derive(Debug, Clone, PartialEq)]
pub struct PushRecord {
    pub feed_id: FeedId,
    pub received_at: DateTime<Utc>,
    pub entries: Vec<Entry>,
}

/// A feed's WebSub subscription: the hub asked, the topic, the callback's token and the secret
/// the hub signs with. Its `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct WebSubRecord {
    pub feed_id: FeedId,
    /// Names the callback URL (`/websub/{token}`); random, unguessable.
    pub token: String,
    pub hub: String,
    pub topic: String,
    /// The `hub.secret` sent: the key of the HMAC every pushed body must carry.
    pub secret: String,
    pub state: tidings_model::SubscriptionState,
    /// When the hub was last asked.
    pub requested_at: DateTime<Utc>,
    /// When the verified lease ends.
    pub lease_until: Option<DateTime<Utc>>,
    /// Why it is denied or failed, as the hub or the request said.
    pub reason: Option<String>,
    /// Pushes stored (signed, for this topic).
    pub pushes: i64,
    pub last_push_at: Option<DateTime<Utc>>,
}

impl std::fmt::Debug for WebSubRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSubRecord")
            .field("feed_id", &self.feed_id)
            .field("hub", &self.hub)
            .field("topic", &self.topic)
            .field("state", &self.state)
            .field("requested_at", &self.requested_at)
            .field("lease_until", &self.lease_until)
            .field("reason", &self.reason)
            .field("pushes", &self.pushes)
            .field("last_push_at", &self.last_push_at)
            .finish_non_exhaustive()
    }
}

/// A host lease's fencing token, as a write names it ([`FetchRecord::fence`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The lease's host: a gate key (the lower-cased host name).
    pub host: String,
    pub token: i64,
}

/// What [`Store::apply_fetch`](crate::Store::apply_fetch) changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplyReport {
    /// Entries seen for the first time.
    pub new_entries: u64,
    /// Known entries whose content changed.
    pub updated_entries: u64,
    /// Known entries that did not change.
    pub unchanged_entries: u64,
    /// The read's lease had moved to another holder ([`FetchRecord::fence`]): only its
    /// request-log rows (and the Retry-After floor its answer set) were written.
    pub fenced_out: bool,
}

/// What a read would add to one feed, for the bound on new entries per day (C8): see
/// [`Store::new_entry_counts`](crate::Store::new_entry_counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewEntryCounts {
    /// Entries of the read the feed has not stored yet.
    pub unseen: u64,
    /// Entries the feed first stored at or after the window's start.
    pub first_seen_since: u64,
}

/// Which entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryQuery {
    pub feed: Option<FeedId>,
    /// Only entries sorted at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only entries sorted before this time.
    pub until: Option<DateTime<Utc>>,
    /// Full-text query over the title and the text of the summary and content (never their
    /// markup, see `codec::search_text`).
    pub search: Option<String>,
    /// Only entries filed under this category (compared trimmed and case-folded).
    pub category: Option<String>,
    /// Only entries current at this time (FF16): neither the entry nor its feed expired.
    /// `None` lists expired entries too (for administration).
    pub current_at: Option<DateTime<Utc>>,
    /// Only entries of feeds this subscriber is subscribed to.
    pub subscriber: Option<String>,
    /// Keyset cursor: only entries strictly after this one in the listing order.
    pub after: Option<EntryCursor>,
    /// At most this many (0 means the default, 50).
    pub limit: u32,
}

/// A position in the entry listing (newest first): the sort time and the row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryCursor {
    pub sort_at: DateTime<Utc>,
    pub id: i64,
}

/// An entry as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEntry {
    /// Row id.
    pub id: i64,
    pub feed_id: FeedId,
    pub entry: Entry,
    /// The listing order: `published`, else `updated`, else `first_seen_at`, and never later
    /// than `first_seen_at` (a post dated in the future does not stay on top).
    pub sort_at: DateTime<Utc>,
    pub first_seen_at: DateTime<Utc>,
    /// When its content last changed (equals `first_seen_at` until it does).
    pub updated_at: DateTime<Utc>,
    pub content_hash: String,
    /// The preview image its article page named (SR1), once read.
    pub preview: Option<tidings_model::SelectedImage>,
    /// What was recorded of its article page (FF6), once read.
    pub page: Option<tidings_rights::PageRecord>,
}

impl StoredEntry {
    pub fn cursor(&self) -> EntryCursor {
        EntryCursor {
            sort_at: self.sort_at,
            id: self.id,
        }
    }
}

/// What the store keeps of a host for the read of one of its URLs, read in one go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostState {
    /// The time before which no request may go to the host (C6), if any.
    pub floor: Option<DateTime<Utc>>,
    /// Its robots.txt as last fetched, if ever.
    pub robots: Option<RobotsCache>,
}

/// A host's state for a reader that already holds one of its robots.txt copies
/// ([`crate::Store::host_state_holding`]): the stored copy's text is read only when it is
/// another copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostStateHolding {
    /// The time before which no request may go to the host (C6), if any.
    pub floor: Option<DateTime<Utc>>,
    pub robots: HeldRobots,
}

/// The stored robots.txt copy of a host, beside the one a reader holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeldRobots {
    /// None was ever stored.
    Never,
    /// The stored copy is the one held (read at the same time, with the same status): its
    /// text was not read again.
    Held,
    /// Another copy, whole.
    Stored(RobotsCache),
}

impl HostStateHolding {
    /// The state of a host whose stored copy is `stored` (its text may be left out when it
    /// is the held one), for a reader holding the copy named `held`: when it was read and its
    /// status.
    pub fn of(
        floor: Option<DateTime<Utc>>,
        stored: Option<RobotsCache>,
        held: Option<(DateTime<Utc>, Option<i32>)>,
    ) -> HostStateHolding {
        let robots = match stored {
            None => HeldRobots::Never,
            Some(copy) if held == Some((copy.fetched_at, copy.status)) => HeldRobots::Held,
            Some(copy) => HeldRobots::Stored(copy),
        };
        HostStateHolding { floor, robots }
    }
}

/// A host's robots.txt as last fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsCache {
    pub fetched_at: DateTime<Utc>,
    /// The HTTP status, or `None` when no answer came.
    pub status: Option<i32>,
    /// The body of a 2xx answer (as text; bytes that are not UTF-8 are replaced).
    pub body: Option<String>,
}

/// A host's lease, held (C3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLease {
    /// The fencing token of this claim: it moves with every claim of the host.
    pub token: i64,
    pub expires_at: DateTime<Utc>,
    /// When the host's last request ended, as its last holder recorded it (real time).
    pub last_end: Option<DateTime<Utc>>,
}

/// A host lease given back ([`Store::release_hosts`](crate::Store::release_hosts)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub host: String,
    /// The fencing token of the claim given back.
    pub token: i64,
    /// When the holder's last request to the host ended (real time).
    pub last_end: Option<DateTime<Utc>>,
}

/// The answer to a claim of a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostClaim {
    Held(HostLease),
    /// Another holder's lease runs until then.
    Busy {
        until: DateTime<Utc>,
    },
}

/// Which request log rows to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogQuery {
    /// A host key (`https://example.org:443`), matched exactly, or a bare host name
    /// (`example.org`), matching every scheme and port.
    pub host: Option<String>,
    pub feed: Option<FeedId>,
    /// At most this many (0 means the default, 100).
    pub limit: u32,
}

/// A do-not-crawl rule as stored (FF13, WFM10). The store keeps `kind` and `value` as given;
/// `tidings-policy` (`parse_rule`) makes the normal form before a rule is added, and the
/// crawler reads rules back through it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredBlock {
    pub id: i64,
    /// `url`, `feed`, `path`, `origin`, `host` or `domain`.
    pub kind: String,
    pub value: String,
    /// Why the operator added it.
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A rule to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBlock {
    pub kind: String,
    pub value: String,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What [`Store::add_block`](crate::Store::add_block) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockAdded {
    /// The stored rule: the new one, or the one that already existed (with its own reason).
    pub block: StoredBlock,
    /// False when the same kind and value was already blocked.
    pub new: bool,
}

/// A Web Bot Auth signing key (SR11), as stored and as given to store. The secret never
/// leaves the process except into the store; `Debug` leaves it out.
#[derive(Clone, PartialEq, Eq)]
pub struct BotKeyRow {
    /// The RFC 7638 thumbprint of the public key: the `keyid` of its signatures.
    pub keyid: String,
    /// The Ed25519 public key, base64url without padding (the JWK `x`).
    pub public_key: String,
    /// The Ed25519 secret seed, base64url without padding (the JWK `d`).
    pub secret: String,
    pub created_at: DateTime<Utc>,
    /// The key signs from this moment on.
    pub not_before: DateTime<Utc>,
    /// The key neither signs nor is published from this moment on.
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for BotKeyRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotKeyRow")
            .field("keyid", &self.keyid)
            .field("public_key", &self.public_key)
            .field("created_at", &self.created_at)
            .field("not_before", &self.not_before)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// An API key as stored: never the token, only its hash (looked up by) and a short prefix
/// (shown to tell keys apart).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    pub id: i64,
    /// The operator's label.
    pub name: Option<String>,
    /// `reader` or `admin`.
    pub role: String,
    /// The first characters of the token, not enough to use it.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The account it acts as (`None`: an operator's key, with no reading state).
    pub account_id: Option<i64>,
}

/// A key to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    pub name: Option<String>,
    /// `reader` or `admin`.
    pub role: String,
    /// Hex SHA-256 of the token.
    pub hash: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    /// The account it acts as.
    pub account_id: Option<i64>,
}

/// Where a queued resource stands (the page queue, SR1, SR7, FF9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueState {
    /// To be read at its `due_at`.
    Due,
    /// An icon candidate not asked yet: asked once the site's earlier ones failed.
    Waiting,
    /// Read; an icon is read again at its `due_at`, a page never.
    Done,
    /// A failure remembered, or retries used up, until its `due_at` (SR4, SR6).
    Held,
}

impl QueueState {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueState::Due => "due",
            QueueState::Waiting => "waiting",
            QueueState::Done => "done",
            QueueState::Held => "held",
        }
    }

    /// The state named `name`, as [`QueueState::as_str`] writes it.
    pub fn from_name(name: &str) -> Option<QueueState> {
        [
            QueueState::Due,
            QueueState::Waiting,
            QueueState::Done,
            QueueState::Held,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// A resource in the page queue: an article page, an icon candidate, an image.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRecord {
    pub id: i64,
    pub purpose: tidings_model::RequestPurpose,
    pub url: String,
    /// The feed it was queued for.
    pub feed_id: Option<FeedId>,
    /// An icon candidate's site (origin).
    pub site: Option<String>,
    /// An icon asked for a feed's first add (SR7).
    pub first_add: bool,
    pub state: QueueState,
    pub due_at: Option<DateTime<Utc>>,
    /// Why it is due, held or done.
    pub reason: String,
    /// Temporary failures in a row (SR4, SR6).
    pub retries: u32,
    pub created_at: DateTime<Utc>,
    pub read_at: Option<DateTime<Utc>>,
    pub last_status: Option<i32>,
    pub last_outcome: Option<Label>,
    pub last_error: Option<String>,
    /// An article page's preview image, once found (SR1).
    pub preview: Option<tidings_model::SelectedImage>,
    /// What was recorded of an article page, once read (FF6).
    pub page: Option<tidings_rights::PageRecord>,
}

/// An entry's article page to read for its preview (SR1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPage {
    /// The entry's stable identity in its feed.
    pub entry_key: String,
    pub url: String,
}

/// What one read of a queued resource changes, applied in one transaction with its
/// request-log rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceApply {
    pub id: i64,
    pub at: DateTime<Utc>,
    pub state: QueueState,
    pub due_at: Option<DateTime<Utc>>,
    pub reason: String,
    pub retries: u32,
    /// `None` when nothing was sent (set aside): the last read's facts stay.
    pub read: Option<ResourceRead>,
    pub found: ResourceFound,
    /// An icon candidate failed for good: the site's next waiting candidate becomes due at
    /// this time (one icon request per site per window).
    pub next_candidate_at: Option<DateTime<Utc>>,
    pub log: Vec<RequestLogRow>,
    /// C6: a Retry-After for every request to this host (only ever moves later).
    pub host_floor: Option<(String, DateTime<Utc>)>,
    /// The host lease the read was made under, as for a feed's read
    /// ([`FetchRecord::fence`]); `None` when it was made under none.
    pub fence: Option<Fence>,
}

/// One check of a URL by discovery (FF2): only its identity, its disposition and the
/// decision are kept (FF17), never text copied from the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlCheck {
    /// The URL checked, normalised (query kept, FF3; no fragment).
    pub url: String,
    pub at: DateTime<Utc>,
    pub disposition: tidings_model::Disposition,
    /// The decision, in words ("FF3: same self link as feed 4", "not a feed: an HTML page").
    pub reason: String,
    /// The feed it is (a feed), is (a duplicate) or may be (held).
    pub feed_id: Option<FeedId>,
    pub source: tidings_model::CheckSource,
    /// The page it was found on.
    pub found_on: Option<String>,
}

/// A check to store, with the request-log rows of its read (C7) and a Retry-After its host
/// set (C6), in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckApply {
    pub check: UrlCheck,
    pub log: Vec<RequestLogRow>,
    pub host_floor: Option<(String, DateTime<Utc>)>,
}

/// How many of a set of entry ids a stored feed has, of how many it has in all (FF3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryOverlap {
    pub feed: FeedId,
    pub shared: u64,
    pub entries: u64,
}

/// A search-engine query definition, a discovery source (FF18).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    pub id: i64,
    /// The provider that runs it, by name.
    pub provider: String,
    pub query: String,
    pub created_at: DateTime<Utc>,
    pub last_run_at: Option<DateTime<Utc>>,
    /// What the last run did, in words.
    pub last_result: Option<String>,
}

/// A check as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheck {
    pub id: i64,
    pub check: UrlCheck,
}

/// The facts of a read that sent its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRead {
    pub status: Option<i32>,
    pub outcome: Label,
    pub error: Option<String>,
}

/// What a resource's body gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceFound {
    Nothing,
    /// An article page read: its preview, or that it names none (SR1), and what is recorded
    /// of it (FF6).
    Page {
        preview: Option<tidings_model::SelectedImage>,
        /// Boxed: the largest variant by far.
        record: Box<tidings_rights::PageRecord>,
    },
    /// A site's icon, kept and served from the store.
    Icon {
        site: String,
        media_type: String,
        body: Vec<u8>,
    },
    /// A thumbnail's copy for the image cache (FF9), kept under the resource's URL.
    Image {
        media_type: String,
        body: Vec<u8>,
    },
}

/// An image as the cache keeps it (FF9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredImage {
    pub url: String,
    pub media_type: String,
    pub body: Vec<u8>,
    pub fetched_at: DateTime<Utc>,
    /// When it was last served (or fetched, until it is).
    pub used_at: DateTime<Utc>,
}

/// The image cache's bounds at one moment (FF9): copies unused since `unused_before` go, then
/// the least recently used until the rest fit in `max_total_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageBounds {
    pub unused_before: DateTime<Utc>,
    pub max_total_bytes: u64,
}

/// What the image cache holds and has dropped (FF9), for the admin page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImageCacheStats {
    pub copies: u64,
    pub bytes: u64,
    /// Copies dropped because nothing served them for the expiry period.
    pub expired: u64,
    /// Copies dropped to keep the total under its bound.
    pub over_total: u64,
}

/// A site's icon as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredIcon {
    pub site: String,
    pub url: String,
    pub media_type: String,
    pub body: Vec<u8>,
    pub fetched_at: DateTime<Utc>,
}

/// A new API password of an account: its argon2id hash, and the SHA-256 of the Fever key
/// derived from it (md5 of "name:password", what Fever clients send).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiPassword {
    pub hash: String,
    pub fever_key_hash: String,
}

/// What a session of an account is for: a sync client's token, or the web UI's login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// Opened with the API password (the Google Reader API's ClientLogin).
    Sync,
    /// Opened with the login password (the web UI).
    Web,
}

impl SessionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionKind::Sync => "sync",
            SessionKind::Web => "web",
        }
    }
}

/// A session to store: the SHA-256 of its token, never the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    pub token_hash: String,
    pub account_id: i64,
    pub kind: SessionKind,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// What an account may do: read, or read and administer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountRole {
    Reader,
    Admin,
}

impl AccountRole {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountRole::Reader => "reader",
            AccountRole::Admin => "admin",
        }
    }
}

/// An account to create: its password already hashed (argon2id, a PHC string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAccount {
    pub name: String,
    pub role: AccountRole,
    pub password_hash: String,
    pub created_at: DateTime<Utc>,
}

/// An account as listed: never its secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: i64,
    /// As written when it was made; unique ignoring case.
    pub name: String,
    pub role: AccountRole,
    /// Whether it has an API password for sync clients.
    pub api_password: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// An account with the hashes a login is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSecrets {
    pub account: Account,
    /// The login password's argon2id hash (PHC string).
    pub password_hash: String,
    /// The API password's argon2id hash, when one is set.
    pub api_password_hash: Option<String>,
}

/// A job to put in the page queue (FF1, FF4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPageJob {
    pub kind: tidings_model::PageJobKind,
    /// The URL it starts from, normalised.
    pub url: String,
    /// A spider run's budget; a discovery job has none.
    pub limits: Option<tidings_model::SpiderLimits>,
    /// Who asked for it (`cli`, `key:7`, `account:3`), for the operator's view.
    pub requested_by: String,
    pub at: DateTime<Utc>,
    /// Taken at once by whoever submits it (a command that works it itself), not queued.
    pub running: bool,
}

/// What a job has spent and found so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobSpent {
    pub requests: u32,
    pub bytes: u64,
    /// URLs looked at.
    pub urls: u32,
    /// HTML pages read.
    pub pages: u32,
    /// Time spent running, over every stint (a stop does not count).
    pub elapsed: std::time::Duration,
    pub feeds: u32,
    pub duplicates: u32,
    pub refused: u32,
}

/// A job of the page queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageJob {
    pub id: i64,
    pub kind: tidings_model::PageJobKind,
    pub url: String,
    pub state: tidings_model::PageJobState,
    pub limits: Option<tidings_model::SpiderLimits>,
    pub requested_by: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    /// When a crawler last wrote its progress: a running job not heard of since
    /// [`Store::claim_page_job`]'s `stale_before` was left by a stopped crawler.
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub spent: JobSpent,
    /// Which budget ended it, if one did.
    pub stopped_by: Option<String>,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

/// A URL in a job's frontier: where it was found and how many links from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedPage {
    pub url: String,
    pub depth: u32,
    pub found_on: Option<String>,
}

/// A feed a job found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFeed {
    pub url: String,
    pub title: Option<String>,
    /// The stored feed it is or duplicates, when there is one.
    pub feed_id: Option<FeedId>,
    /// Held for an operator's review (FF3).
    pub held: bool,
    /// Why it is (or may be) a stored feed, in words.
    pub note: Option<String>,
}

/// One step of a job, written at once: the URL it took from the frontier, the links it
/// queued, the feeds it found and what it has spent in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobStep {
    pub done: Option<String>,
    pub queued: Vec<QueuedPage>,
    pub found: Vec<JobFeed>,
    pub spent: JobSpent,
}

/// A job's frontier as stored: what is left to read, in order, and every URL it ever queued.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobFrontier {
    pub pending: Vec<QueuedPage>,
    pub seen: Vec<String>,
}

/// A feed of the catalogue (SR2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueEntry {
    pub feed_id: FeedId,
    /// Who added it (`cli`, `key:7`, `account:3`).
    pub added_by: String,
    pub added_at: DateTime<Utc>,
}
