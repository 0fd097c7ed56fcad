//! The only code that sends requests to publishers.
//!
//! A [`Fetcher`] performs exactly one logical read of a URL and returns a [`FetchResponse`]
//! whose outcome is a closed [`FetchOutcome`], built by the pure [`classify()`] function. It owns
//! the User-Agent (C1), conditional headers (C4), timeouts, the body cap that also bounds the
//! decompressed size, redirects followed hop by hop, and the address guard (C8). It does not
//! decide when to fetch, whether a refusal means "slow down", or what validators to keep: those
//! are `policy`'s and the crawler's.
//!
//! Reading order:
//! - `config`: [`FetchConfig`] with its defaults, [`FetchRequest`].
//! - `client`: [`Fetcher`], [`FetchResponse`], [`Hop`]; the redirect loop.
//! - [`classify`](mod@classify): status + headers + body-read result → [`FetchOutcome`] (pure),
//!   and the header readers it uses.
//! - `body`: reading a body under the cap.
//! - [`guard`]: which addresses are public; the guarded resolver.
//! - [`reachable`]: whether the guard could ever let a read of a URL through, asked when it is
//!   subscribed to.
//! - `transport`: failed requests → `Blocked` or a [`TransportError`](tidings_model::TransportError).
//! - [`signing`]: Web Bot Auth (SR11), pure: the RFC 9421 signature base, Ed25519 signatures,
//!   the RFC 7638 key thumbprint.
//! - [`botkeys`]: keys over time (which signs, which are published, when the next is due), the
//!   key directory and its signatures, and the [`RequestSigner`] that signs every hop.

mod body;
pub mod botkeys;
pub mod classify;
mod client;
mod config;
pub mod guard;
pub mod reachable;
pub mod signing;
mod transport;

pub use botkeys::RequestSigner;
pub use classify::{BodyError, classify};
pub use client::{FetchError, FetchResponse, Fetcher, Hop, PAUSE_MARGIN_FLOOR, overran};
pub use config::{ACCEPT, FetchConfig, FetchRequest, HopCheck};
pub use guard::non_public_reason;
pub use tidings_model::{FetchOutcome, Validators};
