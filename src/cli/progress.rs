//! A progress bar for long runs on a terminal; silent when stderr is not one.

use super::terminal::visible;
use indicatif::{ProgressBar, ProgressStyle};
use tidings_crawler::{FeedReport, Progress};

/// Shows feeds done out of feeds found, and prints each failure on its own line.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} feeds {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn found(&self, total: usize) {
        self.bar.set_length(total as u64);
    }

    fn done(&self, report: &FeedReport) {
        self.bar.inc(1);
        if let Some(error) = &report.error {
            self.bar.suspend(|| {
                eprintln!(
                    "feed {} {}: {}",
                    report.feed_id,
                    visible(&report.url),
                    visible(error)
                )
            });
        }
    }
}
