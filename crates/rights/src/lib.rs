//! What tidings may keep, show and use of what it reads: every permission decision, with
//! its reason.
//!
//! - [`directive`]: `X-Robots-Tag` headers (generic and bot-scoped, `FFBot: noindex`) and
//!   `<meta name=robots|BOT>` tags as [`Directives`] (`noindex`, `nofollow`, `nosnippet`,
//!   `noarchive`, `none`, `max-snippet`); they apply to the resource that carries them only,
//!   and a feed's current ones move as FF14 says ([`directive::after_response`]).
//! - [`objection`]: a publisher's objections to AI crawlers and to text and data mining
//!   (robots.txt groups for the profile's AI crawler tokens, TDMRep's header, meta tag and
//!   `/.well-known/tdmrep.json`); the list of signals is in that module's documentation.
//! - [`licence`]: licence recognition ([`Licence::recognise`]): Creative Commons URIs of
//!   every version and port, CC0, the Public Domain Mark, their SPDX identifiers; what each
//!   permits ([`Permits`]).
//! - [`decide`]: the decisions ([`Ruling`]): the excerpt that may be stored (DFB2), whether a
//!   thumbnail may be shown (FF8), whether text may be indexed, links followed, page text kept
//!   (FF6, FF14); the files never read as permissions (FF15).
//!
//! - [`keep`]: [`keep::apply`], which removes from a parsed feed what the profile's `[keep]`
//!   does not store (DFB2: title, link, dates and
//!   an excerpt only), before anything reaches the store.
//!
//! - [`record`]: what is recorded of an inspected page (FF6): bounded metadata, licence and
//!   terms links, its directives; never its text.
//!
//! - [`thumbnail`]: the one thumbnail selected per entry (FF7) with its licence decision
//!   (FF8).
//!
//! Free text is never read as a permission: only identifiers, headers, tags and the formats
//! above. This crate does no I/O, is not async and never reads the clock.

pub mod decide;
pub mod directive;
pub mod keep;
pub mod licence;
pub mod objection;
pub mod record;
pub mod thumbnail;

pub use decide::{Declarations, Ruling};
pub use directive::Directives;
pub use licence::{CcKind, Licence, Permits, Sampling};
pub use objection::{Objection, Signal, TdmRep};
pub use record::PageRecord;

#[cfg(test)]
mod tests;
