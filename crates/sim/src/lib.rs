//! A simulated publisher web for testing tidings' politeness on the wire. Dev-only: no part of
//! the binary depends on it.
//!
//! - [`clock`]: the scenario clock tests move by hand instead of sleeping.
//! - [`behaviour`]: what a resource answers (feeds that change, validators and 304s, throttles
//!   with Retry-After, refusals, redirects, robots.txt, huge, endless and bomb bodies, silence).
//! - [`content`]: the bodies themselves (feeds, malformed feeds, challenge pages, gzip bombs).
//! - [`web`]: virtual hosts on 127.0.0.2–254, one HTTP/1.1 listener each, reached with
//!   `--resolve NAME:PORT:ADDR`.
//! - [`recorder`]: every exchange with its headers byte for byte and its start and end.
//! - [`scenario`]: seeded mixed webs of many hosts and feeds, for soak tests.
//! - [`signatures`]: an independent check of Web Bot Auth signatures (SR11), on requests and on
//!   the key directory response, with Cloudflare's `web-bot-auth` crate.
//! - [`auditor`]: a pure check of a recorded run against the politeness rules (C1, C3, C4, C6,
//!   robots and do-not-crawl, SR11 signatures), returning the violations.
//!
//! - [`hub`]: a WebSub hub (subscriptions verified at their callbacks, signed distribution).
//! - [`client`]: a small HTTP/1.1 client for tests (one request per connection).
//!
//! It does not speak TLS or HTTP/2, and it is not a general-purpose server.
//!
//! A test serves a few hosts, points the crawler at them, then audits what was recorded:
//!
//! ```no_run
//! # async fn example() -> Result<(), tidings_sim::SimError> {
//! use std::time::Duration;
//! use tidings_sim::{Expectations, FeedSpec, HostSpec, Resource, Web, audit};
//!
//! let web = Web::start(vec![
//!     HostSpec::new("news.test")
//!         .at("/robots.txt", Resource::robots("User-agent: *\nDisallow: /private\n"))
//!         .at("/feed.xml", Resource::feed(FeedSpec::changing("news", Duration::from_secs(3600)))),
//! ])
//! .await?;
//! let resolve = web.resolve_args(); // pass each as `--resolve` to `tidings crawl`
//! let url = web.url("news.test", "/feed.xml");
//! // ... run the crawler, moving `web.clock()` forward as the scenario needs ...
//! let violations = audit(&web.recorder().exchanges(), &Expectations::default());
//! assert!(violations.is_empty(), "{violations:?}");
//! # let _ = (resolve, url);
//! # Ok(())
//! # }
//! ```

pub mod auditor;
pub mod behaviour;
pub mod budget;
pub mod client;
pub mod clock;
pub mod content;
pub mod hub;
pub mod recorder;
pub mod scenario;
pub mod signatures;
pub mod web;

pub use auditor::{
    Block, Expectations, PurposeCheck, Requested, RobotsRules, Rule, SignatureCheck, TimeBase,
    Violation, audit,
};
pub use behaviour::{Behaviour, EtagStyle, FeedSpec, Resource, RetryAfter, Target, When};
pub use clock::SimClock;
pub use content::Malformed;
pub use recorder::{Exchange, Header, Recorder, Stamp};
pub use scenario::Scenario;
pub use signatures::{
    DirectoryError, DirectoryKey, DirectoryProblem, KeyDirectory, SignatureProblem, Verified,
    verify_directory_response, verify_request,
};
pub use web::{HostSpec, RunningWeb, SimError, Web};
