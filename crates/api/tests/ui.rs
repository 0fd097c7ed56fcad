//! The web UI against a real server on port 0 with a fresh SQLite store per test: pages
//! render, hostile feed HTML comes out harmless, every page carries the strict headers, login
//! and the cross-site check hold, and the forms change what they say.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

#[path = "ui/harness.rs"]
mod harness;

#[path = "ui/access.rs"]
mod access;
#[path = "ui/admin.rs"]
mod admin;
#[path = "ui/media.rs"]
mod media;
#[path = "ui/mine.rs"]
mod mine;
#[path = "ui/reader.rs"]
mod reader;
