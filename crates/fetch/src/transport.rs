//! Turning a failed request (no answer) into a [`FetchOutcome`]: refused by the address guard,
//! a response head too large to read (an answer), or one of the [`TransportError`] kinds, found
//! by walking the error's source chain.

use crate::guard::{DnsFailure, Refusal};
use std::error::Error;
use tidings_model::{AnswerFailure, FetchOutcome, TransportError};

/// The outcome of a request that got no usable response head: refused by the guard, no
/// answer at all, or (a head too large to read) an answer that failed.
///
/// An oversized head is an answer whether or not its status line was readable: the server
/// spoke, and asking again at once would get the same hundreds of KiB (WFM4).
pub fn no_answer(err: &reqwest::Error) -> FetchOutcome {
    if let Some(refusal) = find::<Refusal>(err) {
        return FetchOutcome::Blocked {
            reason: refusal.0.clone(),
        };
    }
    if find::<hyper::Error>(err).is_some_and(hyper::Error::is_parse_too_large) {
        return FetchOutcome::FailedAnswer {
            status: None,
            failure: AnswerFailure::HeadTooLarge,
        };
    }
    let kind = if let Some(dns) = find::<DnsFailure>(err) {
        TransportError::Dns(dns.0.clone())
    } else if err.is_timeout() {
        TransportError::Timeout
    } else if let Some(tls) = find::<rustls::Error>(err) {
        TransportError::Tls(tls.to_string())
    } else if err.is_connect() {
        TransportError::Connect(error_text(err))
    } else {
        TransportError::Io(error_text(err))
    };
    FetchOutcome::Transport(kind)
}

/// The first error of type `T` in the chain of `err`, looking inside `io::Error` wrappers
/// (whose `source()` skips the error they wrap).
fn find<'a, T: Error + 'static>(err: &'a (dyn Error + 'static)) -> Option<&'a T> {
    let mut current: Option<&'a (dyn Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<T>() {
            return Some(found);
        }
        if let Some(inner) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            let inner: &'a (dyn Error + 'static) = inner;
            if let Some(found) = find::<T>(inner) {
                return Some(found);
            }
        }
        current = e.source();
    }
    None
}

/// The causes of `err`, innermost last, joined by `: ` (the outer reqwest wrapper, which only
/// repeats the URL, is left out).
pub fn error_text(err: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current = err.source();
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p == &text) {
            parts.push(text);
        }
        current = e.source();
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.join(": ")
    }
}
