//! A feed's WebSub subscription, as the store keeps it and the policy reads it.

/// Where a feed's subscription stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubscriptionState {
    /// Asked of the hub; not verified yet.
    Requested,
    /// Verified by the hub: it pushes until the lease ends.
    Live,
    /// The hub refused it (`hub.mode=denied`).
    Denied,
    /// The hub's answer to the request was not an acceptance.
    Failed,
}

impl SubscriptionState {
    pub fn as_str(self) -> &'static str {
        match self {
            SubscriptionState::Requested => "requested",
            SubscriptionState::Live => "live",
            SubscriptionState::Denied => "denied",
            SubscriptionState::Failed => "failed",
        }
    }

    /// The state named `name` (as [`SubscriptionState::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<SubscriptionState> {
        [
            SubscriptionState::Requested,
            SubscriptionState::Live,
            SubscriptionState::Denied,
            SubscriptionState::Failed,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_names_round_trip() {
        for s in [
            SubscriptionState::Requested,
            SubscriptionState::Live,
            SubscriptionState::Denied,
            SubscriptionState::Failed,
        ] {
            assert_eq!(SubscriptionState::from_name(s.as_str()), Some(s));
        }
        assert_eq!(SubscriptionState::from_name("gone"), None);
    }
}
