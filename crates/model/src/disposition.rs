//! What discovery found a checked URL to be (FF2), stored with the check.

/// What a checked URL turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Disposition {
    /// A feed of its own (new, or already stored at that very URL).
    Feed,
    /// Read, and no feed: an HTML page (whose candidates are checked in turn), or anything
    /// else that does not parse as a feed.
    NotAFeed,
    /// A feed that is one already stored (FF3): the decision names that feed.
    Duplicate,
    /// A feed that may be one already stored: held until an operator decides (FF3).
    Held,
    /// Not read, or refused when read: a do-not-crawl rule, robots.txt, the address guard, a
    /// 401/403/404/410.
    Refused,
    /// The read failed for now (no answer, 5xx, 429): checked again after `retry_failed`.
    Failed,
}

impl Disposition {
    pub const ALL: [Disposition; 6] = [
        Disposition::Feed,
        Disposition::NotAFeed,
        Disposition::Duplicate,
        Disposition::Held,
        Disposition::Refused,
        Disposition::Failed,
    ];

    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Feed => "feed",
            Disposition::NotAFeed => "not_a_feed",
            Disposition::Duplicate => "duplicate",
            Disposition::Held => "held",
            Disposition::Refused => "refused",
            Disposition::Failed => "failed",
        }
    }

    /// The disposition named `name` (as [`Disposition::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<Disposition> {
        Disposition::ALL.into_iter().find(|d| d.as_str() == name)
    }
}

/// How a checked URL came to be checked (FF1, FF4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckSource {
    /// A person submitted it (to subscribe, to the catalogue, to a spider run).
    Submitted,
    /// A page declared it as its feed (`<link rel=alternate>`).
    Alternate,
    /// A page's body linked it, and it looked like a feed.
    BodyLink,
    /// One of the profile's common feed paths of a site.
    CommonPath,
    /// A page a spider run followed a link to (FF4).
    Spider,
}

impl CheckSource {
    pub const ALL: [CheckSource; 5] = [
        CheckSource::Submitted,
        CheckSource::Alternate,
        CheckSource::BodyLink,
        CheckSource::CommonPath,
        CheckSource::Spider,
    ];

    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckSource::Submitted => "submitted",
            CheckSource::Alternate => "alternate",
            CheckSource::BodyLink => "body_link",
            CheckSource::CommonPath => "common_path",
            CheckSource::Spider => "spider",
        }
    }

    /// The source named `name` (as [`CheckSource::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<CheckSource> {
        CheckSource::ALL.into_iter().find(|d| d.as_str() == name)
    }

    /// Whether the URL was given as a feed (submitted, or declared by a page), rather than
    /// guessed: a named URL is requested as a feed, a guess only by a profile that lists
    /// `discovery`.
    pub fn named(self) -> bool {
        matches!(self, CheckSource::Submitted | CheckSource::Alternate)
    }
}

impl std::fmt::Display for Disposition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ff2_dispositions_round_trip_their_names() {
        for d in Disposition::ALL {
            assert_eq!(Disposition::from_name(d.as_str()), Some(d));
        }
        assert_eq!(Disposition::from_name("Feed"), None);
        for c in CheckSource::ALL {
            assert_eq!(CheckSource::from_name(c.as_str()), Some(c));
        }
    }
}
