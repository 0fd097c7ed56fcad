//! robots.txt for tidings: RFC 9309 parsing and matching per product token, telling *which*
//! group and line decided.
//!
//! Bytes in, decisions out. [`Robots::parse`] never fails; [`Robots::check`] answers for a
//! [`ProductToken`] and a path with a [`Verdict`]: allowed or disallowed, the group consulted
//! (the crawler's own, `*`, or none) and the deciding rule line. [`Robots::check_with`] lets a
//! profile ignore the `*` group (SR8) while still obeying its own. [`Robots::crawl_delay`]
//! and [`Robots::sitemaps`] read the rest of the file, and [`interpret`] turns the outcome of
//! fetching the file into a [`RobotsStatus`] under the profile's [`FailurePolicy`].
//!
//! This crate does no I/O, is not async and never reads the clock: fetching, caching and the
//! 24-hour re-read (DFB7) belong to the callers.
//!
//! Modules, in reading order:
//!
//! - `lexer`: bytes to numbered directive lines (500 KiB limit, BOM, line endings, comments).
//! - `matcher`: our thin wrapper around `robotxt` (=0.7.0) for pattern normalisation and
//!   matching, correcting it where it departs from RFC 9309 (encoded `*` and `$`, stray `%`).
//! - `robots`: grouping, group selection, longest match, crawl-delay, sitemaps; ours, because
//!   `robotxt` neither reports the deciding group and line nor reads `Token/1.0` as `Token`.
//! - `token`: the validated [`ProductToken`].
//! - `verdict`: the answer and its reason.
//! - `fetch`: what fetching robots.txt means (found, missing, server error, unreachable).

mod fetch;
mod lexer;
mod matcher;
mod robots;
mod token;
mod verdict;

pub use fetch::{FailurePolicy, OnFailure, RobotsFetch, RobotsStatus, interpret};
pub use lexer::BYTE_LIMIT;
pub use matcher::PathPattern;
pub use robots::{MAX_RULE_TEXT, Robots, Selection, path_and_query};
pub use token::{ProductToken, TokenError};
pub use verdict::{Access, Basis, Group, RuleLine, StarGroup, Verdict};
