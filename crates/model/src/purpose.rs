//! What a request is for: the kinds of resource a bot may ask a publisher for.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of resource a request asks for. A profile lists the ones its bot requests; feeds
/// and robots.txt are every bot's, the others only some bots' (SereneReader reads article
/// pages and icons, FFBot inspects pages and images; WorldFeedMonitor, DailyFootballBot and
/// PlainFeeder read feeds only, WFM1, DFB1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestPurpose {
    Feed,
    Robots,
    /// The page an entry links to, read for its preview image or metadata (SR1, FF6).
    ArticlePage,
    /// A site icon (SR7).
    Icon,
    /// An image file for the image cache (FF9).
    Image,
    /// A page inspected for the feeds it links (FF1).
    Discovery,
    /// A WebSub subscription asked of the hub a feed names (pushed entries instead of polls).
    #[serde(rename = "websub")]
    WebSub,
}

impl RequestPurpose {
    pub const ALL: [RequestPurpose; 7] = [
        RequestPurpose::Feed,
        RequestPurpose::Robots,
        RequestPurpose::ArticlePage,
        RequestPurpose::Icon,
        RequestPurpose::Image,
        RequestPurpose::Discovery,
        RequestPurpose::WebSub,
    ];

    /// The purpose named `name` (as [`RequestPurpose::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<RequestPurpose> {
        RequestPurpose::ALL.into_iter().find(|p| p.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RequestPurpose::Feed => "feed",
            RequestPurpose::Robots => "robots",
            RequestPurpose::ArticlePage => "article_page",
            RequestPurpose::Icon => "icon",
            RequestPurpose::Image => "image",
            RequestPurpose::Discovery => "discovery",
            RequestPurpose::WebSub => "websub",
        }
    }
}

impl fmt::Display for RequestPurpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
