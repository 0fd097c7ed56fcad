//! The recorder: every request the simulated web received, with what it answered and when.
//!
//! An [`Exchange`] is plain data (times are offsets and wall times, not `Instant`s), so tests can
//! also build recordings by hand for the auditor. The web writes through [`Recorder`]; tests read
//! a snapshot with [`Recorder::exchanges`] after (or during) a run.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use crate::clock::SimClock;

/// One header as it crossed the wire: name lower-cased, value byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub value: Vec<u8>,
}

impl Header {
    /// A header from a name (lower-cased here) and a textual value.
    pub fn new(name: &str, value: impl Into<Vec<u8>>) -> Header {
        Header {
            name: name.to_ascii_lowercase(),
            value: value.into(),
        }
    }

    /// The value as text: UTF-8 when it is, otherwise each byte as the character of that code
    /// point (Latin-1), so no byte is lost or merged.
    pub fn value_str(&self) -> String {
        bytes_to_string(&self.value)
    }
}

/// Bytes as text without loss: UTF-8 when valid, otherwise Latin-1.
pub fn bytes_to_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// A moment read on the three clocks at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Monotonic time since the recorder was created.
    pub mono: Duration,
    /// Real wall time.
    pub wall: SystemTime,
    /// Scenario time (see [`SimClock`]).
    pub sim: SystemTime,
}

/// One request and its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// Sequence number in arrival order, unique within a recorder.
    pub id: u64,
    /// The virtual host's name (the listener it arrived on, not the `Host` header).
    pub host: String,
    /// The listener's address.
    pub local: SocketAddr,
    /// The client's address.
    pub peer: SocketAddr,
    pub method: String,
    /// Path and query as requested.
    pub target: String,
    /// Request headers in arrival order.
    pub headers: Vec<Header>,
    /// The status sent, `None` when the server never answered (silent, or the client left first).
    pub status: Option<u16>,
    /// Response headers as the script set them (the framing headers `content-length` and
    /// `transfer-encoding`, written by the HTTP layer, are not listed).
    pub response_headers: Vec<Header>,
    /// Body bytes handed to the connection.
    pub body_bytes: u64,
    /// When the request head had been read.
    pub started: Stamp,
    /// When the response head was produced.
    pub responded: Option<Stamp>,
    /// When the exchange ended: the body was fully sent, or the client went away.
    pub ended: Option<Stamp>,
    /// Whether the full response was sent and taken: false when the client left before the
    /// last byte was handed over (no answer, an endless body, a body cut short) and when the
    /// client broke the connection after it (it reset it with part of the answer unread, as a
    /// client does that stops reading at its body cap: the kernel's buffers may have taken the
    /// rest first).
    pub completed: bool,
}

impl Exchange {
    /// The first request header named `name` (lower-case), as bytes.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        find(&self.headers, name)
    }

    /// The first response header named `name` (lower-case), as bytes.
    pub fn response_header(&self, name: &str) -> Option<&[u8]> {
        find(&self.response_headers, name)
    }

    /// Whether the client left before it had the whole answer: it got no answer at all, or
    /// stopped reading the body. The web records the end of such an exchange when it notices,
    /// which may be later than the client's own end (see [`crate::auditor`]).
    pub fn abandoned(&self) -> bool {
        self.ended.is_some() && !self.completed
    }

    /// The request's path without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

fn find<'a>(headers: &'a [Header], name: &str) -> Option<&'a [u8]> {
    headers
        .iter()
        .find(|h| h.name == name)
        .map(|h| h.value.as_slice())
}

/// The shared log of exchanges; clones share it.
#[derive(Debug, Clone)]
pub struct Recorder {
    inner: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    epoch: Instant,
    clock: SimClock,
    next_id: AtomicU64,
    exchanges: Mutex<Vec<Exchange>>,
}

impl Recorder {
    /// An empty recorder reading scenario time from `clock`.
    pub fn new(clock: SimClock) -> Recorder {
        Recorder {
            inner: Arc::new(Shared {
                epoch: Instant::now(),
                clock,
                next_id: AtomicU64::new(0),
                exchanges: Mutex::new(Vec::new()),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Exchange>> {
        self.inner
            .exchanges
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The three clocks now.
    pub fn stamp(&self) -> Stamp {
        Stamp {
            mono: self.inner.epoch.elapsed(),
            wall: SystemTime::now(),
            sim: self.inner.clock.now(),
        }
    }

    /// A snapshot of every exchange so far, in arrival order.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.lock().clone()
    }

    /// The exchanges with virtual host `host`, in arrival order.
    pub fn to_host(&self, host: &str) -> Vec<Exchange> {
        self.lock()
            .iter()
            .filter(|e| e.host == host)
            .cloned()
            .collect()
    }

    /// How many requests for `target` (path, or path and query) arrived at `host`.
    pub fn count(&self, host: &str, target: &str) -> usize {
        self.lock()
            .iter()
            .filter(|e| e.host == host && (e.target == target || e.path() == target))
            .count()
    }

    /// How many requests arrived so far.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no request arrived yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Forget everything recorded so far (ids keep counting).
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Record a newly arrived request; returns its id.
    pub(crate) fn begin(&self, mut exchange: Exchange) -> u64 {
        let mut all = self.lock();
        // Taken under the lock, so the log stays sorted by id.
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        exchange.id = id;
        all.push(exchange);
        id
    }

    /// Change the exchange `id` in place, if still recorded.
    pub(crate) fn update(&self, id: u64, change: impl FnOnce(&mut Exchange)) {
        let mut all = self.lock();
        // Ids are increasing, so a binary search finds the entry even after `clear`.
        if let Ok(i) = all.binary_search_by_key(&id, |e| e.id)
            && let Some(e) = all.get_mut(i)
        {
            change(e);
        }
    }
}
