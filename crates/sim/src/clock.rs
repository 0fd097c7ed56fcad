//! The scenario clock: the time the simulated publishers live in.
//!
//! Feeds change and Retry-After and cache lifetimes are counted in scenario time, so a test
//! moves time forward with [`SimClock::advance`] instead of sleeping. A clock can also follow
//! real time at a speed-up (`scaled`), to match a crawler run with `--time-scale N`; its
//! instants on the wire (`Date`, `Expires`, Retry-After dates) are then written in real time,
//! as a real server writes them ([`SimClock::wall_of`]).
//! Clones share one time line.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// A shared, cheaply cloned scenario clock.
#[derive(Debug, Clone)]
pub struct SimClock {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    /// The scenario's wall time at its start.
    base: SystemTime,
    /// Time moved by hand so far.
    advanced: Duration,
    /// When set: real time since this instant, multiplied by the factor, also counts.
    follow: Option<(Instant, u32)>,
}

/// A fixed scenario start for reproducible tests: Sunday 1 November 2026, 00:00:00 UTC.
pub const SCENARIO_START_UNIX_SECS: u64 = 1_793_491_200;

impl SimClock {
    /// A clock that moves only when [`advance`](Self::advance) is called, starting at `base`.
    pub fn manual(base: SystemTime) -> SimClock {
        SimClock::with(base, None)
    }

    /// A manual clock starting at [`SCENARIO_START_UNIX_SECS`].
    pub fn fixed() -> SimClock {
        SimClock::manual(SystemTime::UNIX_EPOCH + Duration::from_secs(SCENARIO_START_UNIX_SECS))
    }

    /// A clock that follows real time multiplied by `scale` (at least 1), starting at `base`;
    /// [`advance`](Self::advance) still adds on top.
    pub fn scaled(base: SystemTime, scale: u32) -> SimClock {
        SimClock::with(base, Some((Instant::now(), scale.max(1))))
    }

    fn with(base: SystemTime, follow: Option<(Instant, u32)>) -> SimClock {
        SimClock {
            inner: Arc::new(Mutex::new(Inner {
                base,
                advanced: Duration::ZERO,
                follow,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Scenario time elapsed since the start.
    pub fn elapsed(&self) -> Duration {
        self.lock().elapsed()
    }

    /// The scenario's wall time now.
    pub fn now(&self) -> SystemTime {
        let base = self.lock().base;
        base + self.elapsed()
    }

    /// The scenario's wall time at its start.
    pub fn start(&self) -> SystemTime {
        self.lock().base
    }

    /// Whether this clock follows real time (it was made [`scaled`](Self::scaled)): its
    /// instants on the wire are then written in real time.
    pub fn follows_real_time(&self) -> bool {
        self.lock().follow.is_some()
    }

    /// The real wall time at which this clock shows `at`: what a real server would write for
    /// that instant of the scenario (a `Date`, an `Expires`, a Retry-After date), so that a
    /// crawler reading them as real instants and mapping them onto its own sped-up clock
    /// (`--time-scale`) lands on `at`. A manual clock stands for real time: `at` itself.
    pub fn wall_of(&self, at: SystemTime) -> SystemTime {
        let inner = self.lock();
        let Some((_, scale)) = inner.follow else {
            return at;
        };
        let now = inner.base + inner.elapsed();
        let wall = SystemTime::now();
        match at.duration_since(now) {
            Ok(ahead) => wall + ahead / scale,
            Err(behind) => wall - behind.duration() / scale,
        }
    }

    /// Move scenario time forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut inner = self.lock();
        inner.advanced = inner.advanced.saturating_add(by);
    }
}

impl Inner {
    fn elapsed(&self) -> Duration {
        let followed = self
            .follow
            .map(|(since, scale)| since.elapsed().saturating_mul(scale))
            .unwrap_or_default();
        self.advanced.saturating_add(followed)
    }
}

impl Default for SimClock {
    fn default() -> SimClock {
        SimClock::fixed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_advanced_and_clones_share_it() {
        let clock = SimClock::fixed();
        let other = clock.clone();
        assert_eq!(clock.elapsed(), Duration::ZERO);
        other.advance(Duration::from_secs(90));
        assert_eq!(clock.elapsed(), Duration::from_secs(90));
        assert_eq!(
            clock.now(),
            SystemTime::UNIX_EPOCH + Duration::from_secs(SCENARIO_START_UNIX_SECS + 90)
        );
        assert_eq!(
            httpdate::fmt_http_date(clock.start()),
            "Sun, 01 Nov 2026 00:00:00 GMT"
        );
    }

    #[test]
    fn a_scaled_clocks_instants_are_written_in_real_time() {
        let clock = SimClock::scaled(SystemTime::UNIX_EPOCH, 600);
        let hour_ahead = clock.now() + Duration::from_secs(3600);
        let wall = clock.wall_of(hour_ahead);
        let real_ahead = wall.duration_since(SystemTime::now()).unwrap();
        // An hour of scenario time is six real seconds at 600 times real speed.
        assert!(
            real_ahead <= Duration::from_secs(6) && real_ahead > Duration::from_secs(5),
            "{real_ahead:?}"
        );
        let manual = SimClock::fixed();
        assert_eq!(manual.wall_of(manual.now()), manual.now());
    }

    #[test]
    fn a_scaled_clock_never_goes_back_and_still_takes_advances() {
        let clock = SimClock::scaled(SystemTime::UNIX_EPOCH, 1000);
        let before = clock.elapsed();
        clock.advance(Duration::from_secs(3600));
        let after = clock.elapsed();
        assert!(after >= before + Duration::from_secs(3600));
        assert!(clock.now() >= SystemTime::UNIX_EPOCH + after);
    }
}
