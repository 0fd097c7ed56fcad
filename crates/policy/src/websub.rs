//! WebSub (W3C Recommendation, 2018): when a feed's hub is asked to push its new entries, when
//! that subscription is asked again, and how a feed the hub pushes is polled meanwhile.
//!
//! A subscription is asked of the hub a feed names (`<link rel="hub">`) for the feed's topic
//! (its `rel="self"` URL, else the URL read), with a lease of [`WebSubSettings::lease`]. It is
//! asked again before its lease ends, after a refusal or an unverified request once
//! [`WebSubSettings::retry`] has passed, and at once when the feed names another hub or topic.
//! While a verified lease runs the feed is still read, but no more often than every
//! [`WebSubSettings::live_poll`]: a hub can fail silently, and a poll is also when the lease is
//! renewed.

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;

use crate::ProfileError;
pub use tidings_model::SubscriptionState;

/// A profile's `[websub]`. It matters only to a profile whose `requests.purposes` lists
/// `websub`, and only where a public callback URL is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebSubSettings {
    /// Seconds of lease asked of a hub (`hub.lease_seconds`); a hub may grant another.
    pub lease: u64,
    /// Seconds between two reads of a feed while its subscription is verified and running.
    pub live_poll: u64,
    /// Seconds before a lease's end from which a read renews it.
    pub renew_before: u64,
    /// Seconds after a refused, failed or unverified request before the hub is asked again.
    pub retry: u64,
    /// The most bytes of one pushed body read.
    pub max_push_bytes: u64,
}

impl Default for WebSubSettings {
    fn default() -> Self {
        WebSubSettings {
            lease: 10 * 86_400,
            live_poll: 6 * 3_600,
            renew_before: 2 * 86_400,
            retry: 86_400,
            max_push_bytes: 5_000_000,
        }
    }
}

impl WebSubSettings {
    pub(crate) fn validate(&self) -> Result<(), ProfileError> {
        if self.lease < 3_600 || self.retry < 60 || self.live_poll < 60 {
            return Err(ProfileError::Invalid(
                "websub: lease must be at least 3600 s, retry and live_poll at least 60 s".into(),
            ));
        }
        // A lease is renewed by a read, so two reads must fall inside the renewal window.
        if self.renew_before < 2 * self.live_poll || self.renew_before >= self.lease {
            return Err(ProfileError::Invalid(
                "websub: renew_before must be at least twice live_poll and less than lease".into(),
            ));
        }
        if self.max_push_bytes == 0 {
            return Err(ProfileError::Invalid(
                "websub: max_push_bytes must not be 0".into(),
            ));
        }
        Ok(())
    }
}

/// What the decisions read of a stored subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing<'a> {
    pub hub: &'a str,
    pub topic: &'a str,
    pub state: SubscriptionState,
    /// When the hub was last asked.
    pub requested_at: DateTime<Utc>,
    /// When a verified lease ends.
    pub lease_until: Option<DateTime<Utc>>,
}

impl Standing<'_> {
    /// Whether the hub pushes now: verified, and its lease not over.
    pub fn live_at(&self, now: DateTime<Utc>) -> bool {
        self.state == SubscriptionState::Live && self.lease_until.is_some_and(|end| end > now)
    }
}

/// Why the hub is asked now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Never asked, or asked of another hub or for another topic.
    New,
    /// The running lease ends within `renew_before`.
    Renew,
    /// Refused, failed or never verified, and `retry` has passed.
    Again,
}

/// Whether a read that found `hub` and `topic` in the feed asks the hub for a subscription.
pub fn ask(
    standing: Option<&Standing<'_>>,
    hub: &str,
    topic: &str,
    now: DateTime<Utc>,
    settings: &WebSubSettings,
) -> Option<Ask> {
    let Some(s) = standing else {
        return Some(Ask::New);
    };
    if s.hub != hub || s.topic != topic {
        return Some(Ask::New);
    }
    let retry_due = now >= s.requested_at + secs(settings.retry);
    match s.state {
        SubscriptionState::Live => match s.lease_until {
            Some(end) if end > now + secs(settings.renew_before) => None,
            // A lease that ended (or ends soon) is renewed, but not twice within `retry`
            // while the hub has not verified the renewal yet.
            _ if now >= s.requested_at + secs(settings.retry.min(settings.renew_before / 2)) => {
                Some(Ask::Renew)
            }
            _ => None,
        },
        SubscriptionState::Requested | SubscriptionState::Denied | SubscriptionState::Failed => {
            retry_due.then_some(Ask::Again)
        }
    }
}

/// When a feed read successfully is read next while its hub pushes: the policy's time
/// `next_at`, or later, `live_poll` from now, but never after the lease ends (the read then
/// renews it). `None`: the policy's time stands.
pub fn stretch(
    standing: &Standing<'_>,
    next_at: DateTime<Utc>,
    now: DateTime<Utc>,
    settings: &WebSubSettings,
) -> Option<DateTime<Utc>> {
    if !standing.live_at(now) {
        return None;
    }
    let end = standing.lease_until?;
    let renew_from = end - secs(settings.renew_before);
    let at = (now + secs(settings.live_poll)).min(renew_from.max(now + secs(60)));
    (at > next_at).then_some(at)
}

/// The reason written for a stretched poll.
pub fn stretch_reason(hub: &str, settings: &WebSubSettings) -> String {
    format!(
        "WebSub: {hub} pushes new entries; read every {} h while the subscription lasts",
        settings.live_poll.div_ceil(3_600)
    )
}

/// The lease a verification grants: what the hub says (`hub.lease_seconds`), else what was
/// asked, and never more than a year.
pub fn lease_end(
    granted_secs: Option<u64>,
    now: DateTime<Utc>,
    settings: &WebSubSettings,
) -> DateTime<Utc> {
    now + secs(granted_secs.unwrap_or(settings.lease).min(366 * 86_400))
}

fn secs(s: u64) -> Duration {
    Duration::seconds(i64::try_from(s).unwrap_or(i64::MAX / 1_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(h: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap() + Duration::hours(h)
    }

    fn standing(state: SubscriptionState, asked: i64, lease: Option<i64>) -> Standing<'static> {
        Standing {
            hub: "https://hub.example/",
            topic: "https://example.org/feed",
            state,
            requested_at: t(asked),
            lease_until: lease.map(t),
        }
    }

    #[test]
    fn asks_when_the_hub_should_hear_from_us() {
        use SubscriptionState::*;
        let s = WebSubSettings::default();
        let hub = "https://hub.example/";
        let topic = "https://example.org/feed";
        // (what is stored, now in hours, the hub and topic the read found, expected)
        type Case<'a> = (Option<Standing<'a>>, i64, &'a str, &'a str, Option<Ask>);
        let cases: [Case; 11] = [
            (None, 0, hub, topic, Some(Ask::New)),
            (Some(standing(Live, 0, Some(240))), 1, hub, topic, None),
            (
                Some(standing(Live, 0, Some(240))),
                1,
                "https://other.hub/",
                topic,
                Some(Ask::New),
            ),
            (
                Some(standing(Live, 0, Some(240))),
                1,
                hub,
                "https://example.org/b",
                Some(Ask::New),
            ),
            // Two days before the end: renewed.
            (
                Some(standing(Live, 0, Some(240))),
                193,
                hub,
                topic,
                Some(Ask::Renew),
            ),
            (Some(standing(Live, 0, Some(240))), 191, hub, topic, None),
            // A renewal asked an hour ago and not verified yet is not asked again.
            (Some(standing(Live, 193, Some(240))), 194, hub, topic, None),
            (
                Some(standing(Live, 0, Some(240))),
                300,
                hub,
                topic,
                Some(Ask::Renew),
            ),
            (Some(standing(Requested, 0, None)), 23, hub, topic, None),
            (
                Some(standing(Denied, 0, None)),
                24,
                hub,
                topic,
                Some(Ask::Again),
            ),
            (
                Some(standing(Failed, 0, None)),
                25,
                hub,
                topic,
                Some(Ask::Again),
            ),
        ];
        for (i, (stored, now, hub, topic, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                ask(stored.as_ref(), hub, topic, t(now), &s),
                want,
                "case {i}"
            );
        }
    }

    #[test]
    fn a_pushed_feed_is_read_slower_until_its_renewal() {
        use SubscriptionState::*;
        let s = WebSubSettings::default();
        let live = standing(Live, 0, Some(240));
        // The policy asked for a read in 1 h: six hours instead.
        assert_eq!(stretch(&live, t(11), t(10), &s), Some(t(16)));
        // The policy's own time is later already: it stands.
        assert_eq!(stretch(&live, t(20), t(10), &s), None);
        // Near the end the read comes when renewal is due, not past the lease.
        assert_eq!(stretch(&live, t(189), t(188), &s), Some(t(192)));
        // Not verified, or over: nothing is stretched.
        assert_eq!(
            stretch(&standing(Requested, 0, None), t(11), t(10), &s),
            None
        );
        assert_eq!(stretch(&live, t(241), t(240), &s), None);
        assert_eq!(stretch(&standing(Denied, 0, None), t(11), t(10), &s), None);
    }

    #[test]
    fn leases_are_the_hubs_word_bounded_to_a_year() {
        let s = WebSubSettings::default();
        assert_eq!(lease_end(Some(3_600), t(0), &s), t(1));
        assert_eq!(lease_end(None, t(0), &s), t(240));
        assert_eq!(lease_end(Some(u64::MAX), t(0), &s), t(366 * 24));
    }

    #[test]
    fn settings_must_let_a_read_renew_the_lease() {
        assert!(WebSubSettings::default().validate().is_ok());
        let short = WebSubSettings {
            renew_before: 3 * 3_600,
            ..WebSubSettings::default()
        };
        assert!(short.validate().is_err());
        let zero = WebSubSettings {
            max_push_bytes: 0,
            ..WebSubSettings::default()
        };
        assert!(zero.validate().is_err());
    }
}
