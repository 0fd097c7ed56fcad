//! Every timing decision tidings makes, as pure functions.
//!
//! The crawler hands this crate the feed's state, what the fetch produced and `now`; it hands
//! back a [`Decision`]: when to read the feed next and why, the new interval and failure count,
//! whether the feed stays active, and which validators to keep. Nothing here reads the clock,
//! the network or the disk; every number comes from the [`Profile`].
//!
//! Reading order: [`profile`] (the settings a bot page promises), [`conditional`] (what a
//! request sends), [`schedule`] (what happens after an answer), [`blocklist`] (the operator's
//! do-not-crawl rules, FF13), [`discovery`] (what a checked URL was and whether a feed found is
//! one already stored, FF2, FF3), [`egress`] (refusals per egress address, WFM8), [`volume`] (how
//! much one feed may add, C8), [`websub`] (when a hub is asked to push a feed, and how a pushed
//! feed is polled).

pub mod blocklist;
pub mod conditional;
pub mod discovery;
pub mod egress;
pub mod pages;
pub mod profile;
pub mod redirect;
pub mod retry;
pub mod robots;
pub mod schedule;
pub mod volume;
pub mod websub;

pub use blocklist::{Block, BlockKind, BlockList, RuleError, parse_rule};
pub use profile::{
    FailureKind, PauseCount, Profile, ProfileError, SigningSettings, signature_agent_origin,
};
pub use schedule::{
    BodyVerdict, Decision, FeedHints, FeedSchedule, FirstFetch, Lifecycle, Reason,
    block_hold_reason, decide, failure_kind, first_fetch, hold_blocked, host_floor, postpone,
    set_aside,
};
