//! Waits that double after each failure in a row: how the crawler waits for a store that went
//! away (a read's record offered again, `refresh`; a crawl's pass started again, `run`).

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// From `first`, doubling up to `max`.
    pub(crate) const fn new(first: Duration, max: Duration) -> Backoff {
        Backoff {
            first,
            max,
            next: first,
        }
    }

    /// The wait before the next try; the one after it is twice as long, up to the most.
    pub(crate) fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (wait * 2).min(self.max);
        wait
    }

    /// The wait `next_wait` would give, without moving on.
    pub(crate) fn peek(&self) -> Duration {
        self.next
    }

    /// Start again from the first wait (a new run of failures).
    pub(crate) fn reset(&mut self) {
        self.next = self.first;
    }

    /// The longest wait.
    pub(crate) fn max(&self) -> Duration {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_most_and_start_again_on_reset() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(100), ms(500));
        let waits: Vec<Duration> = (0..5).map(|_| b.next_wait()).collect();
        assert_eq!(waits, [ms(100), ms(200), ms(400), ms(500), ms(500)]);
        assert_eq!(b.peek(), ms(500));
        b.reset();
        assert_eq!(b.next_wait(), ms(100));
        assert_eq!(b.max(), ms(500));
    }
}
