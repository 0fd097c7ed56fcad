//! How fresh a small value read from the database must be: the do-not-crawl rules' version
//! is asked before every request, so it is kept for a moment instead of read each time.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a value read from the database stands for it. A change made through this store
/// clears it at once; one made by another process is seen within this time.
pub const FRESH_FOR: Duration = Duration::from_millis(100);

/// One value and when it was read.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    value: Mutex<Option<(Instant, i64)>>,
}

impl Kept {
    /// The value, while it is fresh.
    pub(crate) fn get(&self) -> Option<i64> {
        let kept = *self.value.lock().unwrap_or_else(|e| e.into_inner());
        kept.filter(|(at, _)| at.elapsed() < FRESH_FOR)
            .map(|(_, value)| value)
    }

    pub(crate) fn set(&self, value: i64) {
        *self.value.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), value));
    }

    /// Forget the value: the next reader asks the database.
    pub(crate) fn clear(&self) {
        *self.value.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Clears a [`Kept`] when dropped: after a change, whether it committed or failed, the next
/// reader asks the database (a change that committed is never hidden behind the old value).
pub(crate) struct ClearOnDrop<'a>(pub(crate) &'a Kept);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.0.clear();
    }
}
