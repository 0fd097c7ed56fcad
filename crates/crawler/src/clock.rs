//! The crawler's clock: real time, or real time sped up for tests and demos (`--time-scale`).
//!
//! With a scale of N, one real second is N seconds of crawler time: policy durations (intervals,
//! back-off, gaps, crawl-delays, Retry-After) are all read in crawler time, so every wait takes
//! an Nth of its real length. Timestamps stored and logged are crawler time. Network timeouts
//! are not scaled: a slow server is as slow at any scale.

use chrono::{DateTime, Utc};
use std::time::{Duration, Instant};
use tidings_model::FetchOutcome;

/// A clock; cheap to copy.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// Crawler time at `started`.
    base: DateTime<Utc>,
    started: Instant,
    /// Real wall time at `started`.
    wall: DateTime<Utc>,
    scale: u32,
}

impl Clock {
    /// Real time.
    pub fn real() -> Clock {
        Clock::scaled(Utc::now(), 1)
    }

    /// Crawler time starting at `base` now, running `scale` times faster than real time
    /// (a scale of 0 counts as 1).
    pub fn scaled(base: DateTime<Utc>, scale: u32) -> Clock {
        Clock {
            base,
            started: Instant::now(),
            wall: Utc::now(),
            scale: scale.max(1),
        }
    }

    /// How many crawler seconds pass per real second.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Crawler time now.
    pub fn now(&self) -> DateTime<Utc> {
        if self.scale == 1 {
            return Utc::now();
        }
        let elapsed = self.started.elapsed().saturating_mul(self.scale);
        chrono::Duration::from_std(elapsed)
            .ok()
            .and_then(|d| self.base.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// The crawler time of a real wall-clock instant: a fetch's `started_at`, and every
    /// instant a publisher sends (a Retry-After date, `Expires`), which are real: a 503 asking
    /// for 30 real seconds is 30 real seconds at any scale. Saturates at the ends of time.
    pub fn crawler_time_of(&self, real: DateTime<Utc>) -> DateTime<Utc> {
        if self.scale == 1 {
            return real;
        }
        let offset = real - self.wall;
        let saturated = if offset < chrono::Duration::zero() {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        };
        offset
            .checked_mul(i32::try_from(self.scale).unwrap_or(i32::MAX))
            .and_then(|d| self.base.checked_add_signed(d))
            .unwrap_or(saturated)
    }

    /// A fetcher's answer on this clock: its absolute instants mapped by
    /// [`crawler_time_of`](Self::crawler_time_of).
    pub fn answer_outcome(&self, outcome: FetchOutcome) -> FetchOutcome {
        if self.scale == 1 {
            return outcome;
        }
        outcome.map_instants(|real| self.crawler_time_of(real))
    }

    /// The real length of a crawler-time wait.
    pub fn real_wait(&self, wait: Duration) -> Duration {
        wait / self.scale
    }

    /// The real length of the wait from crawler time now until `at` (zero when past).
    pub fn real_until(&self, at: DateTime<Utc>) -> Duration {
        (at - self.now())
            .to_std()
            .map(|d| self.real_wait(d))
            .unwrap_or(Duration::ZERO)
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::real()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_clock_runs_faster_and_shortens_waits() {
        let base: DateTime<Utc> = "2030-01-01T00:00:00Z".parse().unwrap();
        let clock = Clock::scaled(base, 3600);
        std::thread::sleep(Duration::from_millis(20));
        let ahead = clock.now() - base;
        // 20 ms real is at least 72 s of crawler time.
        assert!(ahead >= chrono::Duration::seconds(72), "{ahead}");
        assert_eq!(
            clock.real_wait(Duration::from_secs(3600)),
            Duration::from_secs(1)
        );
        assert_eq!(clock.real_until(base), Duration::ZERO);
        let real = Clock::real();
        assert_eq!(real.scale(), 1);
        assert_eq!(
            real.real_wait(Duration::from_secs(5)),
            Duration::from_secs(5)
        );
        assert_eq!(Clock::scaled(base, 0).scale(), 1);
        let real_start = clock.wall;
        assert_eq!(clock.crawler_time_of(real_start), base);
        assert_eq!(
            clock.crawler_time_of(real_start + chrono::Duration::seconds(2)),
            base + chrono::Duration::hours(2)
        );
        let t = Utc::now();
        assert_eq!(real.crawler_time_of(t), t);
        // Instants too far to scale saturate instead of falling back to the start.
        assert_eq!(
            clock.crawler_time_of(DateTime::<Utc>::MAX_UTC),
            DateTime::<Utc>::MAX_UTC
        );
        assert_eq!(
            clock.crawler_time_of(DateTime::<Utc>::MIN_UTC),
            DateTime::<Utc>::MIN_UTC
        );
    }
}
