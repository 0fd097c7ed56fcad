//! The page queue's jobs (FF1, FF4): what a job does, where it stands and what a spider run
//! may spend, stored typed.

use std::time::Duration;

/// What a spider run may spend (FF4). The profile gives the default budget and the ceilings
/// (`tidings_policy::profile::SpiderSettings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpiderLimits {
    /// Links followed from the first page: 0 reads that page only.
    pub depth: u32,
    /// URLs looked at (pages and feed candidates), at most.
    pub max_urls: u32,
    pub max_requests: u32,
    pub max_bytes: u64,
    pub max_time: Duration,
    /// Follow links onto other sites too.
    pub linked_sites: bool,
}

/// What a job of the page queue does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageJobKind {
    /// Find the feeds of one URL (FF1): a feed is itself; a page's candidates are checked.
    Discover,
    /// A bounded spider run from one page (FF4).
    Spider,
    /// Read a feed once for the catalogue (SR2): to verify it before it is added, or because
    /// a reader views it and nothing is stored. Never waits for crawl-delay (SR9).
    Catalogue,
}

/// Where a job of the page queue stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageJobState {
    /// Waiting for a crawler to take it.
    Queued,
    /// Taken by a crawler; after a stop it is taken again and goes on where it was.
    Running,
    /// Finished: its frontier is empty or a budget is spent.
    Done,
    /// Ended by an error or an operator; what is found so far is kept.
    Failed,
}

/// The limits a person asked a spider run for; each one left out is the profile's
/// (`tidings_policy::profile::SpiderSettings::limits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitsAsked {
    pub depth: Option<u32>,
    pub max_urls: Option<u32>,
    pub max_requests: Option<u32>,
    pub max_bytes: Option<u64>,
    pub max_time: Option<Duration>,
    pub linked_sites: bool,
}

impl PageJobKind {
    pub const ALL: [PageJobKind; 3] = [
        PageJobKind::Discover,
        PageJobKind::Spider,
        PageJobKind::Catalogue,
    ];

    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            PageJobKind::Discover => "discover",
            PageJobKind::Spider => "spider",
            PageJobKind::Catalogue => "catalogue",
        }
    }

    /// The kind named `name` (as [`PageJobKind::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<PageJobKind> {
        PageJobKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl PageJobState {
    pub const ALL: [PageJobState; 4] = [
        PageJobState::Queued,
        PageJobState::Running,
        PageJobState::Done,
        PageJobState::Failed,
    ];

    /// The name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            PageJobState::Queued => "queued",
            PageJobState::Running => "running",
            PageJobState::Done => "done",
            PageJobState::Failed => "failed",
        }
    }

    /// The state named `name` (as [`PageJobState::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<PageJobState> {
        PageJobState::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether the job is over: it is never taken again.
    pub fn finished(self) -> bool {
        matches!(self, PageJobState::Done | PageJobState::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for kind in PageJobKind::ALL {
            assert_eq!(PageJobKind::from_name(kind.as_str()), Some(kind));
        }
        for state in PageJobState::ALL {
            assert_eq!(PageJobState::from_name(state.as_str()), Some(state));
        }
        assert_eq!(PageJobKind::from_name("crawl"), None);
        assert_eq!(PageJobState::from_name("Done"), None);
    }
}
