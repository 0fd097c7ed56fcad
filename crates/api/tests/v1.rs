//! API v1 against a real server on port 0 with a fresh SQLite store per test.

#[path = "v1/support.rs"]
mod support;

#[path = "v1/auth.rs"]
mod auth;
#[path = "v1/broken.rs"]
mod broken;
#[path = "v1/csrf.rs"]
mod csrf;
#[path = "v1/discovery.rs"]
mod discovery;
#[path = "v1/entries.rs"]
mod entries;
#[path = "v1/errors.rs"]
mod errors;
#[path = "v1/feeds.rs"]
mod feeds;
#[path = "v1/hosts.rs"]
mod hosts;
#[path = "v1/operator.rs"]
mod operator;
#[path = "v1/patch.rs"]
mod patch;
#[path = "v1/private.rs"]
mod private;
#[path = "v1/reading.rs"]
mod reading;
#[path = "v1/scope.rs"]
mod scope;
