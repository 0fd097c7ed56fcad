//! Escaping text for HTML and XML, one function for both: what the bot page, the publisher
//! page, the UI and the Atom output interpolate goes through [`text`], the feed crate's
//! [`tidings_feed::escape::text`], which the OPML writer uses too (one home for it).

pub use tidings_feed::escape::text;
