//! The one early second attempt: only when there was no answer at all (WFM4, WFM5).

use crate::profile::Profile;
use tidings_model::FetchOutcome;

/// Whether to try a read once more right away, and with how many times the usual time.
///
/// Only after the first attempt, only when no answer came at all (connection failed, timed
/// out, DNS or TLS failed, the connection broke before a status line), and only if the profile
/// allows it. A failed answer (the body stalled after the status line, a head too large) is an
/// answer, and a read the crawler's own pause spoiled is set aside, not retried. Any answer, a refusal or a server error included, waits for the next scheduled
/// read (WFM4).
pub fn second_attempt(
    outcome: &FetchOutcome,
    attempts_so_far: u32,
    profile: &Profile,
) -> Option<u32> {
    let patience = profile.retry.no_answer_patience;
    (attempts_so_far == 1 && patience > 0 && outcome.is_no_answer()).then_some(patience)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidings_model::{AnswerFailure, RetryAfter, TransportError};

    /// WFM5 is WorldFeedMonitor's permission, not everyone's: SereneReader postpones a failed
    /// refresh (SR5), DailyFootballBot spaces its retries (DFB6), FFBot and PlainFeeder back
    /// off (FF12, PF4), and the default profile waits on its back-off.
    #[test]
    fn wfm5_sr5_dfb6_ff12_pf4_only_worldfeedmonitor_tries_again_after_no_answer() {
        let no_answer = FetchOutcome::Transport(TransportError::Timeout);
        for (name, _) in crate::profile::EMBEDDED {
            let p = Profile::embedded(name).unwrap();
            let expected = (*name == "worldfeedmonitor").then_some(2);
            assert_eq!(second_attempt(&no_answer, 1, &p), expected, "{name}");
        }
    }

    #[test]
    fn wfm5_only_no_answer_gets_one_second_attempt_and_wfm4_nothing_else() {
        let p = Profile::embedded("worldfeedmonitor").unwrap();
        let no_answer = FetchOutcome::Transport(TransportError::Timeout);
        let cases = [
            (no_answer.clone(), 1, Some(2)),
            (no_answer.clone(), 2, None),
            (
                FetchOutcome::Transport(TransportError::Connect("refused".into())),
                1,
                Some(2),
            ),
            (
                FetchOutcome::ServerError {
                    status: 503,
                    retry_after: None,
                },
                1,
                None,
            ),
            (
                FetchOutcome::Refused {
                    status: 429,
                    retry_after: Some(RetryAfter::Seconds(1)),
                },
                1,
                None,
            ),
            (
                FetchOutcome::Refused {
                    status: 403,
                    retry_after: None,
                },
                1,
                None,
            ),
            (FetchOutcome::NotFound, 1, None),
            (
                FetchOutcome::Blocked {
                    reason: "loopback".into(),
                },
                1,
                None,
            ),
            (FetchOutcome::TooLarge { limit: 1 }, 1, None),
            // Issue 12: a body that stalled after the status line, or a head too large, is
            // an answer; so is nothing the crawler's own pause spoiled worth a second request.
            (
                FetchOutcome::FailedAnswer {
                    status: Some(200),
                    failure: AnswerFailure::Stalled,
                },
                1,
                None,
            ),
            (
                FetchOutcome::FailedAnswer {
                    status: None,
                    failure: AnswerFailure::HeadTooLarge,
                },
                1,
                None,
            ),
            (FetchOutcome::CrawlerPaused { overran_secs: 600 }, 1, None),
        ];
        for (outcome, attempts, want) in cases {
            assert_eq!(
                second_attempt(&outcome, attempts, &p),
                want,
                "{outcome:?} after {attempts}"
            );
        }
        let mut off = p.clone();
        off.retry.no_answer_patience = 0;
        assert_eq!(second_attempt(&no_answer, 1, &off), None);
    }
}
