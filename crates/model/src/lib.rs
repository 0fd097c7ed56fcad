//! The shared vocabulary of tidings.
//!
//! Plain data and validated identities used by every other crate: the normalized feed that
//! the parser produces ([`feed`]), feed and host identities ([`ids`]), HTTP validators and the
//! closed [`FetchOutcome`] the fetcher classifies every answer into ([`fetch`]).
//!
//! This crate does no I/O, is not async and never reads the clock: times are always passed in.

pub mod disposition;
pub mod failure;
pub mod feed;
pub mod fetch;
pub mod ids;
pub mod label;
pub mod page_job;
pub mod purpose;
pub mod ruling;
pub mod websub;

pub use disposition::{CheckSource, Disposition};
pub use failure::{FailureKind, FailureTotals, UnknownFailureKind};
pub use feed::{
    Author, Cloud, Enclosure, Entry, Feed, FeedFormat, Link, MediaContent, ParsedFeed,
    SelectedImage, Source, Thumbnail, Warning, WarningKind,
};
pub use fetch::{
    AnswerFailure, CacheHints, FetchOutcome, Fetched, RetryAfter, RightsHeaders, TransportError,
    Validators,
};
pub use ids::{FeedId, FeedUrl, FeedUrlError, HostKey, RequestTicket, web_url};
pub use label::{Label, UnknownLabel};
pub use page_job::{LimitsAsked, PageJobKind, PageJobState, SpiderLimits};
pub use purpose::RequestPurpose;
pub use ruling::Ruling;
pub use websub::SubscriptionState;
