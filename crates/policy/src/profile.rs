//! Profiles: the numbers a bot page promises, as a TOML file.
//!
//! The profiles under `profiles/` are embedded in the binary and chosen by name; a path to a
//! TOML file works too. Every field has a default (the `default` profile's value), so a profile
//! file names only what it changes.

use serde::Deserialize;
pub use tidings_model::FailureKind;
use tidings_model::{LimitsAsked, SpiderLimits};

/// The embedded `default` profile.
pub const DEFAULT_PROFILE: &str = include_str!("../../../profiles/default.toml");

/// The default profile's User-Agent template, for a profile that names none.
pub const DEFAULT_USER_AGENT: &str = "tidings/{version} (+https://tidings.example/bot)";

fn default_user_agent() -> String {
    DEFAULT_USER_AGENT.to_owned()
}

/// The longest gap between two requests to one host a profile may ask for (a day).
pub const MAX_HOST_GAP: f64 = 86_400.0;

/// The oldest a stored robots.txt may be before it is read again, whatever a profile says:
/// a week (DFB7 asks a day; no profile may keep a block from taking effect for longer).
pub const MAX_ROBOTS_AGE: u64 = 7 * 86_400;

/// The longest crawl-delay a profile may honour (an hour): a longer one would stall a host's
/// work rather than pace it.
pub const MAX_CRAWL_DELAY_CAP: u64 = 3600;

/// The longest a second attempt may wait, in multiples of the usual time.
pub const MAX_PATIENCE: u32 = 10;

/// The longest connect or request time a profile may allow (C8: bounded time).
pub const MAX_FETCH_TIMEOUT: u64 = 600;

/// The largest body a profile may allow (C8: bounded memory): 1 GiB.
pub const MAX_BODY_BYTES: u64 = 1 << 30;

/// The most redirect hops a profile may allow in one read.
pub const MAX_REDIRECTS: u8 = 20;

/// The embedded profiles by name: the default and one per seed bot page.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("default", DEFAULT_PROFILE),
    (
        "worldfeedmonitor",
        include_str!("../../../profiles/worldfeedmonitor.toml"),
    ),
    (
        "serenereader",
        include_str!("../../../profiles/serenereader.toml"),
    ),
    (
        "dailyfootballbot",
        include_str!("../../../profiles/dailyfootballbot.toml"),
    ),
    ("ffbot", include_str!("../../../profiles/ffbot.toml")),
    (
        "plainfeeder",
        include_str!("../../../profiles/plainfeeder.toml"),
    ),
];

/// Short names of the embedded profiles, after the rule prefixes of POLICY.md.
pub const ALIASES: &[(&str, &str)] = &[
    ("wfm", "worldfeedmonitor"),
    ("sr", "serenereader"),
    ("dfb", "dailyfootballbot"),
    ("ff", "ffbot"),
    ("pf", "plainfeeder"),
];

/// The default `backoff.retry_after_max`: 90 days, so a publisher asking for two months
/// (issue 12 asked 60 days) is left alone that long, not asked again after 30.
pub const DEFAULT_RETRY_AFTER_MAX: u64 = 90 * 86_400;

/// The longest Retry-After a profile may honour as a floor (a year); past it a feed pauses.
pub const MAX_RETRY_AFTER: u64 = 366 * 86_400;

/// The longest single step a ladder may name (30 days).
pub const MAX_LADDER_STEP: u64 = 30 * 86_400;

/// Why a profile could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("invalid profile: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("invalid profile: {0}")]
    Invalid(String),
    #[error("no embedded profile named {0:?} (known: {1})")]
    Unknown(String, String),
}

/// How a bot behaves. Durations are seconds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    /// The User-Agent template; `{version}` is replaced by tidings' version (C1). A profile
    /// that names none has the default profile's, [`DEFAULT_USER_AGENT`].
    #[serde(default = "default_user_agent")]
    pub user_agent: String,
    #[serde(default)]
    pub schedule: ScheduleSettings,
    #[serde(default)]
    pub backoff: BackoffSettings,
    #[serde(default)]
    pub pacing: PacingSettings,
    #[serde(default)]
    pub retry: RetrySettings,
    #[serde(default)]
    pub robots: RobotsSettings,
    /// Failure ladders, tried in order; a failure no ladder names waits on `backoff`.
    #[serde(default)]
    pub ladders: Vec<Ladder>,
    #[serde(default)]
    pub hints: HintSettings,
    #[serde(default)]
    pub redirects: RedirectSettings,
    #[serde(default)]
    pub fetch: FetchLimits,
    #[serde(default)]
    pub entries: EntryLimits,
    #[serde(default)]
    pub display: DisplaySettings,
    #[serde(default)]
    pub egress: EgressSettings,
    #[serde(default)]
    pub signing: SigningSettings,
    #[serde(default)]
    pub contact: ContactSettings,
    #[serde(default)]
    pub requests: RequestSettings,
    /// What of each entry is stored (DFB2).
    #[serde(default)]
    pub keep: KeepSettings,
    /// Whose objections count, and what the service is (DFB2, FF8, FF14).
    #[serde(default)]
    pub rights: RightsSettings,
    /// Article pages and icons: their size and their failure memory (SR1, SR4, SR6).
    #[serde(default)]
    pub pages: PagesSettings,
    /// The image cache: its bounds and expiry (FF9).
    #[serde(default)]
    pub images: ImageSettings,
    /// Finding feeds from pages, the memory of what was checked, duplicates and retention
    /// (FF1–FF3, FF17).
    #[serde(default)]
    pub discovery: DiscoverySettings,
    /// A bounded Spider Mode run's default budget and its ceilings (FF4).
    #[serde(default)]
    pub spider: SpiderSettings,
    /// WebSub subscriptions: the lease asked, its renewal and the slower polls while a hub
    /// pushes (for a profile that lists the `websub` purpose).
    #[serde(default)]
    pub websub: crate::websub::WebSubSettings,
}

/// A profile's `[keep]`: what of each entry is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KeepSettings {
    /// Full content (`content:encoded`, Atom `content`).
    pub content: bool,
    /// Images: the feed's image, icon and thumbnails, each entry's thumbnails, and the
    /// enclosures and media that are images.
    pub images: bool,
    /// Publisher metadata beyond title, link and dates: authors, contributors, categories,
    /// keywords, comments, rights and licence, source, other links, enclosures and media,
    /// language, duration (FF10 keeps them; DFB2 does not).
    pub metadata: bool,
    /// The summary as the feed gives it, or an excerpt of its text (DFB2).
    pub summary: SummaryKeep,
    /// The longest excerpt, in characters, when `summary = "excerpt"`.
    pub excerpt_max_chars: u32,
}

/// How an entry's summary is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SummaryKeep {
    /// As the feed gives it (within `entries.max_text_bytes`).
    Full,
    /// Its text, at most `excerpt_max_chars` characters, and only when the publisher objects
    /// neither to AI crawlers nor to text and data mining (DFB2).
    Excerpt,
}

impl Default for KeepSettings {
    fn default() -> Self {
        KeepSettings {
            content: true,
            images: true,
            metadata: true,
            summary: SummaryKeep::Full,
            excerpt_max_chars: 300,
        }
    }
}

/// The longest excerpt a profile may ask for.
pub const MAX_EXCERPT_CHARS: u32 = 10_000;

impl KeepSettings {
    /// Whether every part of an entry is kept as parsed.
    pub fn keeps_everything(&self) -> bool {
        self.content && self.images && self.metadata && self.summary == SummaryKeep::Full
    }

    fn validate(&self) -> Result<(), ProfileError> {
        if !(1..=MAX_EXCERPT_CHARS).contains(&self.excerpt_max_chars) {
            return Err(ProfileError::Invalid(format!(
                "keep.excerpt_max_chars must be between 1 and {MAX_EXCERPT_CHARS}"
            )));
        }
        Ok(())
    }
}

/// A profile's `[rights]`: whose objections count and what the service is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RightsSettings {
    /// robots.txt product tokens of AI crawlers: a group naming one that disallows a feed's
    /// path is the publisher objecting to AI crawlers (DFB2).
    pub ai_crawlers: Vec<String>,
    /// Whether the service is commercial: a non-commercial licence then permits no thumbnail
    /// (FF8).
    pub commercial_service: bool,
    /// Whether `X-Robots-Tag` and robots meta directives restrict what is kept (FF14:
    /// `nosnippet` keeps excerpts out).
    pub directives: bool,
    /// Whether one thumbnail is selected per entry with its licence decision (FF7, FF8).
    pub thumbnails: bool,
    /// FF7's bounded fallback: how many bytes of an entry's HTML are looked at for an
    /// `<img>` when the entry declares no image.
    pub thumbnail_html_bytes: u64,
}

impl Default for RightsSettings {
    fn default() -> Self {
        RightsSettings {
            ai_crawlers: DEFAULT_AI_CRAWLERS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            commercial_service: false,
            directives: false,
            thumbnails: false,
            thumbnail_html_bytes: 64 * 1024,
        }
    }
}

/// The AI crawler tokens a profile lists unless it names its own: crawlers that gather text
/// for training or answering with language models, as their operators document them.
pub const DEFAULT_AI_CRAWLERS: &[&str] = &[
    "GPTBot",
    "ChatGPT-User",
    "OAI-SearchBot",
    "CCBot",
    "Google-Extended",
    "ClaudeBot",
    "Claude-Web",
    "anthropic-ai",
    "Applebot-Extended",
    "PerplexityBot",
    "Bytespider",
    "meta-externalagent",
    "cohere-ai",
    "Diffbot",
    "Omgilibot",
    "Amazonbot",
];

impl RightsSettings {
    fn validate(&self) -> Result<(), ProfileError> {
        if !(1..=u64::from(MAX_TEXT_BYTES)).contains(&self.thumbnail_html_bytes) {
            return Err(ProfileError::Invalid(format!(
                "rights.thumbnail_html_bytes must be between 1 and {MAX_TEXT_BYTES}"
            )));
        }
        match self
            .ai_crawlers
            .iter()
            .find(|name| tidings_robots::ProductToken::new(name).is_err())
        {
            Some(name) => Err(ProfileError::Invalid(format!(
                "rights.ai_crawlers: {name:?} is not a robots.txt product token"
            ))),
            None => Ok(()),
        }
    }
}

/// Article pages and icons, for a profile that requests them (SR1, SR4, SR6; see
/// [`crate::pages`]). Seconds throughout.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PagesSettings {
    /// SR1: the most bytes of one article page read (its head holds what is looked for).
    pub max_page_bytes: u64,
    /// SR4: how long a permanent failure (404, 410, a refusal) is remembered.
    pub remember_failure: u64,
    /// SR4: the waits before each retry of a temporary failure (no answer, 5xx).
    pub retry_steps: Vec<u64>,
    /// SR4: how long the URL is left alone once those retries failed too.
    pub hold_after_retries: u64,
    /// SR6: the waits before each retry of a 429 or 503.
    pub throttle_steps: Vec<u64>,
    /// SR6: the longest Retry-After honoured after those, and the wait without one.
    pub throttle_hold_max: u64,
    /// SR7: the icon request made when a feed is first added does not read robots.txt.
    pub first_add_icon_skips_robots: bool,
    /// The most bytes of one site icon read; a larger one is no icon.
    pub max_icon_bytes: u64,
    /// A site's icon is read again after this long.
    pub icon_refresh: u64,
    /// At most one icon request per site in this window: after a candidate failed, the next
    /// is asked only once it has passed.
    pub icon_spacing: u64,
    /// SR1: the most article pages one feed read queues (its newest entries without an image
    /// first); the others get no preview.
    pub max_pages_per_read: u32,
}

impl Default for PagesSettings {
    fn default() -> Self {
        PagesSettings {
            max_page_bytes: 1_000_000,
            remember_failure: 30 * 86_400,
            retry_steps: vec![30, 60, 120],
            hold_after_retries: 3600,
            throttle_steps: vec![30, 60, 120],
            throttle_hold_max: 7 * 86_400,
            first_add_icon_skips_robots: false,
            max_icon_bytes: 256 * 1024,
            icon_refresh: 30 * 86_400,
            icon_spacing: 86_400,
            max_pages_per_read: 50,
        }
    }
}

/// The image cache, for a profile whose `[requests]` lists `image` (FF9): one copy per image
/// URL, each at most `max_image_bytes`, all at most `max_total_bytes` (the least recently used
/// go first), and a copy nobody asked for in `expire_unused` seconds is removed. No resizing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImageSettings {
    pub max_image_bytes: u64,
    pub max_total_bytes: u64,
    pub expire_unused: u64,
    /// One feed read queues at most this many thumbnails, newest entries first.
    pub max_per_read: u32,
}

impl Default for ImageSettings {
    fn default() -> Self {
        ImageSettings {
            max_image_bytes: 2_000_000,
            max_total_bytes: 256 * 1024 * 1024,
            expire_unused: 30 * 86_400,
            max_per_read: 50,
        }
    }
}

impl ImageSettings {
    /// A copy last used before this, at `now`, has expired (`expire_unused`).
    pub fn unused_before(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        i64::try_from(self.expire_unused)
            .ok()
            .and_then(chrono::Duration::try_seconds)
            .and_then(|d| now.checked_sub_signed(d))
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
    }

    fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |m: String| Err(ProfileError::Invalid(format!("images.{m}")));
        if !(1..=MAX_BODY_BYTES).contains(&self.max_image_bytes) {
            return invalid(format!(
                "max_image_bytes must be between 1 and {MAX_BODY_BYTES}"
            ));
        }
        if self.max_total_bytes < self.max_image_bytes {
            return invalid("max_total_bytes must hold at least one image".into());
        }
        if self.expire_unused == 0 || self.expire_unused > MAX_RETRY_AFTER {
            return invalid(format!(
                "expire_unused must be between 1 and {MAX_RETRY_AFTER} seconds"
            ));
        }
        if self.max_per_read == 0 {
            return invalid("max_per_read must be at least 1".into());
        }
        Ok(())
    }
}

/// Finding feeds from pages (FF1), the memory of what was checked (FF2), duplicates (FF3) and
/// what is kept how long (FF17). Seconds throughout.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiscoverySettings {
    /// FF1: paths tried on a site for its feeds, each starting with `/` and with no query:
    /// under the inspected page's directory, then at the site's root.
    pub common_paths: Vec<String>,
    /// FF1: links of a page's body that look like feeds, checked at most.
    pub max_body_links: u32,
    /// FF1: candidates checked for one page in all, at most.
    pub max_candidates: u32,
    /// The most bytes of a page read to find its feeds.
    pub max_page_bytes: u64,
    /// FF2: a URL checked is not checked again before this; a recheck after it keeps the
    /// earlier result beside the new one.
    pub cooldown: u64,
    /// FF2: a URL whose read failed for now (no answer, a 5xx, a 429) may be checked again
    /// after this, sooner than `cooldown`.
    pub retry_failed: u64,
    /// FF3: a candidate whose entry ids are at least this share of another feed's (of the
    /// smaller set, at least `min_shared_entries`) is that feed...
    pub duplicate_share: f64,
    /// ...and at least this share, an uncertain match held for review.
    pub uncertain_share: f64,
    /// FF3: fewer entry ids in common than this prove nothing either way.
    pub min_shared_entries: u32,
    /// FF18: results of one search query taken as pages to discover, at most.
    pub search_results_per_query: u32,
    /// FF17: request-log rows older than this are removed.
    pub request_log_retention: u64,
    /// FF17: a finished spider job and its queue are removed this long after they ended.
    pub job_retention: u64,
}

impl Default for DiscoverySettings {
    fn default() -> Self {
        DiscoverySettings {
            common_paths: [
                "/feed",
                "/feed/",
                "/rss",
                "/rss/",
                "/rss.xml",
                "/atom.xml",
                "/feed.xml",
                "/index.xml",
                "/feed.json",
                "/index.rss",
                "/atom",
            ]
            .map(String::from)
            .to_vec(),
            max_body_links: 10,
            max_candidates: 24,
            max_page_bytes: 1_000_000,
            cooldown: 30 * 86_400,
            retry_failed: 3_600,
            duplicate_share: 0.9,
            uncertain_share: 0.5,
            min_shared_entries: 3,
            search_results_per_query: 20,
            request_log_retention: 90 * 86_400,
            job_retention: 30 * 86_400,
        }
    }
}

/// The instant `retention` seconds before `now` (the earliest when that is before time began).
fn kept_from(retention: u64, now: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Utc> {
    i64::try_from(retention)
        .ok()
        .and_then(chrono::Duration::try_seconds)
        .and_then(|d| now.checked_sub_signed(d))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
}

/// The most common paths a profile may list, and the most candidates per page.
pub const MAX_COMMON_PATHS: usize = 64;
pub const MAX_CANDIDATES: u32 = 256;

impl DiscoverySettings {
    /// FF17: request-log rows older than this, at `now`, are past their retention period.
    pub fn log_kept_from(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        kept_from(self.request_log_retention, now)
    }

    /// FF17: finished page jobs that ended before this instant are dropped at `now`.
    pub fn jobs_kept_from(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        kept_from(self.job_retention, now)
    }

    fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |m: String| Err(ProfileError::Invalid(format!("discovery.{m}")));
        if self.common_paths.len() > MAX_COMMON_PATHS {
            return invalid(format!("common_paths may list at most {MAX_COMMON_PATHS}"));
        }
        if let Some(bad) = self.common_paths.iter().find(|p| {
            !p.starts_with('/') || p.contains(['?', '#']) || p.contains(char::is_whitespace)
        }) {
            return invalid(format!(
                "common_paths: {bad:?} must start with / and carry no query, fragment or space \
                 (FF3: query parameters are never made up)"
            ));
        }
        if !(1..=MAX_CANDIDATES).contains(&self.max_candidates) {
            return invalid(format!(
                "max_candidates must be between 1 and {MAX_CANDIDATES}"
            ));
        }
        if self.max_body_links > self.max_candidates {
            return invalid("max_body_links may not exceed max_candidates".into());
        }
        if !(1..=MAX_BODY_BYTES).contains(&self.max_page_bytes) {
            return invalid(format!(
                "max_page_bytes must be between 1 and {MAX_BODY_BYTES}"
            ));
        }
        let share = |x: f64| x > 0.0 && x <= 1.0;
        if !share(self.duplicate_share)
            || !share(self.uncertain_share)
            || self.uncertain_share > self.duplicate_share
        {
            return invalid(
                "uncertain_share and duplicate_share must be in (0, 1], uncertain_share \
                 at most duplicate_share"
                    .into(),
            );
        }
        if self.min_shared_entries == 0 {
            return invalid("min_shared_entries must be at least 1".into());
        }
        if !(1..=MAX_CANDIDATES).contains(&self.search_results_per_query) {
            return invalid(format!(
                "search_results_per_query must be between 1 and {MAX_CANDIDATES}"
            ));
        }
        for (name, secs) in [
            ("cooldown", self.cooldown),
            ("retry_failed", self.retry_failed),
            ("request_log_retention", self.request_log_retention),
            ("job_retention", self.job_retention),
        ] {
            if secs == 0 || secs > MAX_RETENTION {
                return invalid(format!(
                    "{name} must be between 1 and {MAX_RETENTION} seconds"
                ));
            }
        }
        Ok(())
    }
}

/// The longest a retention period or cooldown may be: ten years.
pub const MAX_RETENTION: u64 = 10 * 365 * 86_400;

/// A Spider Mode run's budget (FF4): what a run gets when the operator names no limit, and
/// the most it may be given. Every request counts (pages, feed checks, redirects, robots.txt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpiderSettings {
    pub depth: u32,
    pub max_urls: u32,
    pub max_requests: u32,
    pub max_bytes: u64,
    /// Seconds.
    pub max_time: u64,
    /// The ceilings an operator's limits are held to: never an unrestricted crawl.
    pub ceiling_depth: u32,
    pub ceiling_urls: u32,
    pub ceiling_requests: u32,
    pub ceiling_bytes: u64,
    pub ceiling_time: u64,
}

impl Default for SpiderSettings {
    fn default() -> Self {
        SpiderSettings {
            depth: 2,
            max_urls: 200,
            max_requests: 500,
            max_bytes: 50_000_000,
            max_time: 1_800,
            ceiling_depth: 10,
            ceiling_urls: 100_000,
            ceiling_requests: 250_000,
            ceiling_bytes: 10_000_000_000,
            ceiling_time: 7 * 86_400,
        }
    }
}

impl SpiderSettings {
    /// The default budget of a run.
    pub fn default_limits(&self) -> SpiderLimits {
        SpiderLimits {
            depth: self.depth,
            max_urls: self.max_urls,
            max_requests: self.max_requests,
            max_bytes: self.max_bytes,
            max_time: std::time::Duration::from_secs(self.max_time),
            linked_sites: false,
        }
    }

    /// The limits of a run as `asked`, the default budget filling what was left out (not yet
    /// held to the ceilings: [`SpiderSettings::check`]).
    pub fn limits(&self, asked: &LimitsAsked) -> SpiderLimits {
        let d = self.default_limits();
        SpiderLimits {
            depth: asked.depth.unwrap_or(d.depth),
            max_urls: asked.max_urls.unwrap_or(d.max_urls),
            max_requests: asked.max_requests.unwrap_or(d.max_requests),
            max_bytes: asked.max_bytes.unwrap_or(d.max_bytes),
            max_time: asked.max_time.unwrap_or(d.max_time),
            linked_sites: asked.linked_sites,
        }
    }

    /// Why `limits` pass the ceilings, if they do: never an unrestricted run.
    pub fn check(&self, limits: &SpiderLimits) -> Result<(), String> {
        let over = [
            (
                "depth",
                u64::from(limits.depth),
                u64::from(self.ceiling_depth),
            ),
            (
                "max-urls",
                u64::from(limits.max_urls),
                u64::from(self.ceiling_urls),
            ),
            (
                "max-requests",
                u64::from(limits.max_requests),
                u64::from(self.ceiling_requests),
            ),
            ("max-bytes", limits.max_bytes, self.ceiling_bytes),
            ("max-time", limits.max_time.as_secs(), self.ceiling_time),
        ];
        for (name, value, ceiling) in over {
            if value > ceiling {
                return Err(format!(
                    "--{name} {value} is above the profile's ceiling ({ceiling}): a spider run is \
                     always bounded"
                ));
            }
        }
        if limits.max_urls == 0 || limits.max_requests == 0 || limits.max_bytes == 0 {
            return Err("--max-urls, --max-requests and --max-bytes must be at least 1".into());
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |m: String| Err(ProfileError::Invalid(format!("spider.{m}")));
        let pairs: [(&str, u64, u64); 5] = [
            ("depth", self.depth.into(), self.ceiling_depth.into()),
            ("max_urls", self.max_urls.into(), self.ceiling_urls.into()),
            (
                "max_requests",
                self.max_requests.into(),
                self.ceiling_requests.into(),
            ),
            ("max_bytes", self.max_bytes, self.ceiling_bytes),
            ("max_time", self.max_time, self.ceiling_time),
        ];
        for (name, value, ceiling) in pairs {
            if value > ceiling {
                return invalid(format!("{name} ({value}) is above its ceiling ({ceiling})"));
            }
            if name != "depth" && value == 0 {
                return invalid(format!("{name} must be at least 1"));
            }
        }
        Ok(())
    }
}

/// The most retries a profile may list for a page, and the longest of its waits.
pub const MAX_PAGE_RETRIES: usize = 10;

impl PagesSettings {
    fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |m: String| Err(ProfileError::Invalid(format!("pages.{m}")));
        if !(1..=MAX_BODY_BYTES).contains(&self.max_page_bytes) {
            return invalid(format!(
                "max_page_bytes must be between 1 and {MAX_BODY_BYTES}"
            ));
        }
        for (name, steps) in [
            ("retry_steps", &self.retry_steps),
            ("throttle_steps", &self.throttle_steps),
        ] {
            if steps.len() > MAX_PAGE_RETRIES
                || steps.iter().any(|&s| s == 0 || s > MAX_LADDER_STEP)
            {
                return invalid(format!(
                    "{name} may list at most {MAX_PAGE_RETRIES} waits, each between 1 and \
                     {MAX_LADDER_STEP} seconds"
                ));
            }
        }
        if !(1..=MAX_BODY_BYTES).contains(&self.max_icon_bytes) {
            return invalid(format!(
                "max_icon_bytes must be between 1 and {MAX_BODY_BYTES}"
            ));
        }
        for (name, value) in [
            ("remember_failure", self.remember_failure),
            ("hold_after_retries", self.hold_after_retries),
            ("throttle_hold_max", self.throttle_hold_max),
            ("icon_refresh", self.icon_refresh),
            ("icon_spacing", self.icon_spacing),
        ] {
            if value == 0 || value > MAX_RETRY_AFTER {
                return invalid(format!(
                    "{name} must be between 1 and {MAX_RETRY_AFTER} seconds"
                ));
            }
        }
        Ok(())
    }
}

/// What a bot requests: the purposes it lists (feeds and robots.txt are every bot's). The
/// simulated web's auditor counts any other request as a violation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RequestSettings {
    pub purposes: Vec<tidings_model::RequestPurpose>,
}

impl Default for RequestSettings {
    fn default() -> Self {
        RequestSettings {
            purposes: vec![
                tidings_model::RequestPurpose::Feed,
                tidings_model::RequestPurpose::Robots,
            ],
        }
    }
}

impl RequestSettings {
    /// Whether the bot requests resources of this purpose.
    pub fn allows(&self, purpose: tidings_model::RequestPurpose) -> bool {
        self.purposes.contains(&purpose)
    }

    fn validate(&self) -> Result<(), ProfileError> {
        use tidings_model::RequestPurpose::{Feed, Robots};
        if !self.allows(Feed) || !self.allows(Robots) {
            return Err(ProfileError::Invalid(
                "requests.purposes must list \"feed\" and \"robots\" (every bot reads both)".into(),
            ));
        }
        Ok(())
    }
}

/// Bounds on one request (C8, FF12): slow servers take bounded time, huge bodies and
/// decompression bombs end at a size, redirect chains end. A profile's `[fetch]` sets them
/// (`tidings.toml` may override them there); the fetcher, the read and the bot page read the
/// same values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchLimits {
    /// Seconds allowed to establish a connection.
    pub connect_timeout: u64,
    /// Seconds allowed for one request: headers and the whole body.
    pub timeout: u64,
    /// The largest body read, counted after decompression.
    pub max_body_bytes: u64,
    /// Redirect hops followed in one read, each a request of its own.
    pub max_redirects: u8,
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits {
            connect_timeout: 10,
            timeout: 30,
            max_body_bytes: 10 * 1024 * 1024,
            max_redirects: 5,
        }
    }
}

/// Where a publisher writes to the people behind the bot (WFM10, DFB, FF: "write to us"). The
/// bot page names it with the promise every profile keeps (C10): a request to stop is honoured
/// at once, and a removed feed or site cannot be added again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContactSettings {
    /// The address requests to stop, corrections and questions go to; unset: the page points
    /// at the operator of the instance.
    pub email: Option<String>,
}

impl ContactSettings {
    fn validate(&self) -> Result<(), ProfileError> {
        let Some(email) = &self.email else {
            return Ok(());
        };
        let plain = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c))
        };
        match email.split_once('@') {
            Some((local, domain)) if plain(local) && plain(domain) && domain.contains('.') => {
                Ok(())
            }
            _ => Err(ProfileError::Invalid(format!(
                "contact.email {email:?} is not a plain address (name@domain.example)"
            ))),
        }
    }
}

/// Bounds on what one feed may add to the store (C8): what a read costs stays bounded
/// whatever the number of items a publisher puts in a document, and a publisher that
/// rotates its entry identities cannot fill the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EntryLimits {
    /// A response with more entries than this is not accepted (FF5 processes every entry of
    /// an accepted response): nothing of it is stored, and the feed waits as after any body
    /// that is no readable feed, with the reason.
    pub max_per_response: u32,
    /// A read that would make the feed's entries first stored within a day (a rolling 24
    /// hours) more than this stores none of them, and the feed is held (paused) for an
    /// operator with the reason.
    pub max_new_per_day: u32,
    /// A text of an entry or of the feed (title, summary, content, rights) longer than this
    /// many bytes is cut to it at a character boundary, with a warning: one huge field costs
    /// what a field of this size costs to store.
    pub max_text_bytes: u32,
}

impl Default for EntryLimits {
    fn default() -> Self {
        EntryLimits {
            max_per_response: 10_000,
            max_new_per_day: 20_000,
            max_text_bytes: 1_048_576,
        }
    }
}

/// The shortest bound on one text a profile may set: below it, ordinary articles would be cut.
pub const MIN_TEXT_BYTES: u32 = 16_384;

/// The longest bound on one text a profile may set (the default body cap).
pub const MAX_TEXT_BYTES: u32 = 10_485_760;

/// The most entries per response a profile may accept (bounded memory per read, C8).
pub const MAX_ENTRIES_PER_RESPONSE: u32 = 100_000;

/// The most new entries per feed and day a profile may allow.
pub const MAX_NEW_ENTRIES_PER_DAY: u32 = 1_000_000;

impl EntryLimits {
    fn validate(&self) -> Result<(), ProfileError> {
        if !(1..=MAX_ENTRIES_PER_RESPONSE).contains(&self.max_per_response) {
            return Err(ProfileError::Invalid(format!(
                "entries.max_per_response must be between 1 and {MAX_ENTRIES_PER_RESPONSE}"
            )));
        }
        if !(self.max_per_response..=MAX_NEW_ENTRIES_PER_DAY).contains(&self.max_new_per_day) {
            return Err(ProfileError::Invalid(format!(
                "entries.max_new_per_day must be between entries.max_per_response (a first read \
                 may store a whole response) and {MAX_NEW_ENTRIES_PER_DAY}"
            )));
        }
        if !(MIN_TEXT_BYTES..=MAX_TEXT_BYTES).contains(&self.max_text_bytes) {
            return Err(ProfileError::Invalid(format!(
                "entries.max_text_bytes must be between {MIN_TEXT_BYTES} and {MAX_TEXT_BYTES}"
            )));
        }
        Ok(())
    }
}

/// How a ladder's steps are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepUnit {
    /// Seconds.
    #[default]
    Seconds,
    /// Multiples of the feed's current refresh interval.
    Interval,
}

/// The waits after consecutive failures of some kinds (WFM6, SR5, DFB6, PF4–PF7).
///
/// The n-th failure in a row on this ladder waits `steps[n-1]` (the last step repeats), never
/// less than the feed's interval and never more than `backoff.max`; with `pause_after` set,
/// that many failures in a row pause the feed until an operator resumes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    /// The POLICY rule this ladder keeps, quoted in reasons ("PF6").
    pub rule: String,
    /// The failures it applies to.
    pub on: Vec<FailureKind>,
    pub steps: Vec<u64>,
    #[serde(default)]
    pub unit: StepUnit,
    /// Pause the feed after this many failures (0: never), counted as `pause_counts` says.
    #[serde(default)]
    pub pause_after: u32,
    #[serde(default)]
    pub pause_counts: PauseCount,
}

/// What a ladder's `pause_after` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseCount {
    /// The failures in a row on the ladder: a success in between starts again.
    #[default]
    InARow,
    /// The failures of the one kind since the feed was added or last resumed, whatever came
    /// between them (PF5: "paused after 4 total 404 responses"; 403s are counted apart).
    Total,
}

/// What a feed says about its own rhythm, each a switch (lower bounds, never shortening).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HintSettings {
    /// RSS `ttl` (minutes) is a lower bound of the interval.
    pub ttl: bool,
    /// RSS `skipHours` / `skipDays`: no read is scheduled in those hours (GMT) or days.
    pub skip_hours: bool,
    /// `sy:updatePeriod` / `sy:updateFrequency` give a lower bound of the interval.
    pub syndication: bool,
    /// `Cache-Control: max-age` and `Expires` lengthen the wait, never shorten it (PF3).
    pub cache_control: bool,
    /// The interval follows the feed's publishing rhythm, within the schedule's bounds (PF8).
    pub adaptive: bool,
    /// Each wait is lengthened by up to this fraction, spread per feed, so feeds added together
    /// do not stay in step (0 turns it off).
    pub jitter: f64,
}

impl Default for HintSettings {
    fn default() -> Self {
        HintSettings {
            ttl: true,
            skip_hours: true,
            syndication: true,
            cache_control: true,
            adaptive: true,
            jitter: 0.1,
        }
    }
}

/// Permanent redirects (PF9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedirectSettings {
    /// A 301/308 to the same target for this many seconds of successful reads moves the feed's
    /// stored URL there (0: at the first successful read). 302/307 never move it.
    pub persist_permanent_after: u64,
}

impl Default for RedirectSettings {
    fn default() -> Self {
        RedirectSettings {
            persist_permanent_after: 7 * 86_400,
        }
    }
}

/// What a robots.txt that cannot be read means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnRobotsFailure {
    /// Crawl as if there were none (SR10 for 5xx).
    Allow,
    /// Stay away (RFC 9309 2.3.1.4; DFB8 for 5xx).
    Disallow,
    /// Fetch nothing now and try again later (FF11).
    Defer,
}

/// robots.txt for feeds (WFM9, SR8, SR10, DFB7, DFB8, FF11).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RobotsSettings {
    /// The product token looked for in `User-agent` lines.
    pub token: String,
    /// Whether feed URLs obey the `*` group; the own group is always obeyed (SR8).
    pub star_group_for_feeds: bool,
    /// What robots.txt answering 429 or 5xx means.
    pub on_server_error: OnRobotsFailure,
    /// What no answer at all means.
    pub on_unreachable: OnRobotsFailure,
    /// What robots.txt answering 401 or 403 means (RFC 9309: an unavailable file, allow;
    /// FF11: an access failure, defer).
    pub on_access_denied: OnRobotsFailure,
    /// Re-read robots.txt when the stored copy is older than this many seconds (DFB7).
    pub max_age: u64,
    /// Honour `Crawl-delay` between requests to a host (SR9, DFB4, FF11).
    pub crawl_delay: bool,
    /// The longest crawl-delay honoured, in seconds; a longer one counts as this (SR9: 60).
    pub crawl_delay_cap: u64,
    /// The one-off read when a feed is first added does not wait for crawl-delay (SR9).
    pub first_add_skips_crawl_delay: bool,
    /// A crawl-delay longer than the cap: `cap` paces the host at the cap (SR9), `pause`
    /// keeps the full delay by setting the host's work aside until it has passed (FF11).
    pub long_crawl_delay: LongCrawlDelay,
}

/// What a crawl-delay longer than `crawl_delay_cap` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LongCrawlDelay {
    Cap,
    Pause,
}

impl Default for RobotsSettings {
    fn default() -> Self {
        RobotsSettings {
            token: "tidings".into(),
            star_group_for_feeds: true,
            on_server_error: OnRobotsFailure::Disallow,
            on_unreachable: OnRobotsFailure::Defer,
            on_access_denied: OnRobotsFailure::Allow,
            max_age: 86_400,
            crawl_delay: true,
            crawl_delay_cap: 60,
            first_add_skips_crawl_delay: false,
            long_crawl_delay: LongCrawlDelay::Cap,
        }
    }
}

/// The one early second attempt (WFM4, WFM5). Off by default: only WorldFeedMonitor's page
/// allows a second attempt; every other profile's failure waits on its ladder or back-off
/// (SR5, DFB6, FF12, PF4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetrySettings {
    /// When a read gets no answer at all (no connection, time-out), try once more at once,
    /// same URL, same address, same User-Agent, allowing this many times the usual time.
    /// 0 turns the second attempt off. An answered request is never tried again early.
    pub no_answer_patience: u32,
}

/// Refresh intervals of a healthy feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScheduleSettings {
    pub default_interval: u64,
    pub min_interval: u64,
    pub max_interval: u64,
}

impl Default for ScheduleSettings {
    fn default() -> Self {
        ScheduleSettings {
            default_interval: 3600,
            min_interval: 900,
            max_interval: 86_400,
        }
    }
}

/// Waiting after failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackoffSettings {
    /// The wait after the first failure; it doubles per consecutive failure.
    pub first: u64,
    /// The longest wait.
    pub max: u64,
    /// The longest Retry-After honoured as a floor, in seconds (C6, SR5, DFB6): up to this the
    /// feed (and, after a 429 or 503, its host) waits exactly as long as asked. A longer one,
    /// or one too large to count, pauses the feed with the reason until an operator resumes
    /// it: the publisher is never asked earlier than it said, and no feed is scheduled years
    /// ahead. A host's floor is held at most this long. Between `schedule.max_interval` and
    /// [`MAX_RETRY_AFTER`].
    pub retry_after_max: u64,
    /// A read whose result could not be stored (a store error, a bug) is not a failure of
    /// the publisher's: the feed keeps its schedule, and a running crawl leaves it alone this
    /// long before trying again.
    pub after_internal_error: u64,
}

impl Default for BackoffSettings {
    fn default() -> Self {
        BackoffSettings {
            first: 900,
            max: 86_400,
            retry_after_max: DEFAULT_RETRY_AFTER_MAX,
            after_internal_error: 300,
        }
    }
}

/// Spacing of requests to one host (C3).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PacingSettings {
    /// Minimum gap between two requests to one host, in seconds (fractions allowed).
    pub host_gap: f64,
}

impl Default for PacingSettings {
    fn default() -> Self {
        PacingSettings { host_gap: 1.0 }
    }
}

/// How the reader shows what it collected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DisplaySettings {
    /// Entry content is shown as plain text, its markup dropped (PF12); otherwise as HTML,
    /// sanitised.
    pub plain_text: bool,
}

/// What the bot says about the addresses it reads from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EgressSettings {
    /// The configured egress addresses are listed at `/feed-ips.txt` (PF11); when false they
    /// are not published anywhere (SR12).
    pub publish: bool,
    /// WFM8: once every address a feed was read from (one or more) has refused it, through
    /// the whole refusal ladder, the feed is switched off until an operator acts. Off, a
    /// refusal only climbs its ladder or back-off.
    pub off_when_refused_everywhere: bool,
}

/// Web Bot Auth (SR11): whether every request is signed, and the numbers of the keys and
/// signatures. Durations are seconds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SigningSettings {
    /// Sign every request, robots.txt and each redirect hop included, with HTTP Message
    /// Signatures (RFC 9421) as Web Bot Auth defines them.
    pub enabled: bool,
    /// The origin named in `Signature-Agent`: where the key directory is served, at
    /// `/.well-known/http-message-signatures-directory`. `tidings.toml` may set it instead
    /// (`signature_agent`); signing needs one of the two.
    pub agent: Option<String>,
    /// How long one request's signature stays valid (`expires` − `created`).
    pub signature_validity: u64,
    /// How long a bot key is valid from the moment it is made; it stays published until then.
    pub key_lifetime: u64,
    /// A crawl makes the next key when the signing key has less than this left, so the two
    /// are published side by side for this long.
    pub rotate_before: u64,
    /// How long a verifier may cache the key directory (its `Cache-Control: max-age`, and the
    /// validity of the directory's own signatures); a rotated key is published this long
    /// before it signs, so cached copies have learned it first.
    pub directory_max_age: u64,
}

impl Default for SigningSettings {
    fn default() -> Self {
        SigningSettings {
            enabled: false,
            agent: None,
            signature_validity: 300,
            key_lifetime: 90 * 86_400,
            rotate_before: 7 * 86_400,
            directory_max_age: 3600,
        }
    }
}

/// The longest a request signature may stay valid: a day.
pub const MAX_SIGNATURE_VALIDITY: u64 = 86_400;

/// The shortest and longest a bot key may live: a day and two years.
pub const KEY_LIFETIME_BOUNDS: (u64, u64) = (86_400, 2 * 365 * 86_400);

impl SigningSettings {
    fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |m: String| Err(ProfileError::Invalid(format!("signing.{m}")));
        if !(1..=MAX_SIGNATURE_VALIDITY).contains(&self.signature_validity) {
            return invalid(format!(
                "signature_validity must be between 1 and {MAX_SIGNATURE_VALIDITY} seconds"
            ));
        }
        let (shortest, longest) = KEY_LIFETIME_BOUNDS;
        if !(shortest..=longest).contains(&self.key_lifetime) {
            return invalid(format!(
                "key_lifetime must be between {shortest} and {longest} seconds"
            ));
        }
        if !(1..=MAX_SIGNATURE_VALIDITY).contains(&self.directory_max_age) {
            return invalid(format!(
                "directory_max_age must be between 1 and {MAX_SIGNATURE_VALIDITY} seconds"
            ));
        }
        if self.rotate_before >= self.key_lifetime {
            return invalid("rotate_before must be shorter than key_lifetime".into());
        }
        if let Some(agent) = &self.agent
            && let Err(e) = signature_agent_origin(agent)
        {
            return invalid(format!("agent: {e}"));
        }
        Ok(())
    }
}

/// The origin a `Signature-Agent` names, from an operator's URL: `http` or `https`, a host,
/// no user information, path, query or fragment (a trailing `/` is dropped).
pub fn signature_agent_origin(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url.trim()).map_err(|e| format!("{url:?} is no URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("{url:?} is not an http or https URL"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("{url:?} names no host"));
    }
    if !parsed.username().is_empty()
        || parsed.password().is_some()
        || parsed.path() != "/"
        || parsed.query().is_some()
        || parsed.fragment().is_some()
    {
        return Err(format!(
            "{url:?} must be an origin only, such as https://bot.example (the key directory is \
             served at its /.well-known/http-message-signatures-directory)"
        ));
    }
    Ok(parsed.origin().ascii_serialization())
}

impl Profile {
    /// Parse and check a profile.
    pub fn from_toml(text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text)?;
        profile.validate()?;
        Ok(profile)
    }

    /// An embedded profile by name.
    pub fn embedded(name: &str) -> Result<Profile, ProfileError> {
        let lower = name.to_ascii_lowercase();
        let name = ALIASES
            .iter()
            .find(|(alias, _)| *alias == lower)
            .map_or(lower.as_str(), |(_, full)| full);
        match EMBEDDED.iter().find(|(n, _)| *n == name) {
            Some((_, text)) => Profile::from_toml(text),
            None => Err(ProfileError::Unknown(
                name.to_string(),
                EMBEDDED
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
            )),
        }
    }

    /// The ladder a failure kind climbs, if any names it.
    pub fn ladder_for(&self, kind: FailureKind) -> Option<&Ladder> {
        self.ladders.iter().find(|l| l.on.contains(&kind))
    }

    /// The User-Agent with `{version}` filled in.
    pub fn user_agent(&self, version: &str) -> String {
        self.user_agent.replace("{version}", version)
    }

    /// The User-Agent of one feed's requests: `user_agent` with `{subscribers}` (PF10) replaced
    /// by the live number of the feed's subscribers. `template` is [`Profile::user_agent`]'s.
    pub fn user_agent_of_feed(template: &str, subscribers: i64) -> String {
        template.replace("{subscribers}", &subscribers.max(0).to_string())
    }

    /// Whether the User-Agent names each feed's subscriber count (PF10).
    pub fn counts_subscribers(&self) -> bool {
        self.user_agent.contains("{subscribers}")
    }

    /// Check every bound: a profile read from a file is checked so; a caller that changes a
    /// value afterwards (an operator's `tidings.toml` overriding `[fetch]`) checks again.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let s = &self.schedule;
        if s.min_interval == 0 {
            return Err(ProfileError::Invalid(
                "schedule.min_interval must be positive".into(),
            ));
        }
        if !(s.min_interval <= s.default_interval && s.default_interval <= s.max_interval) {
            return Err(ProfileError::Invalid(
                "schedule needs min_interval <= default_interval <= max_interval".into(),
            ));
        }
        if self.backoff.first == 0 || self.backoff.first > self.backoff.max {
            return Err(ProfileError::Invalid(
                "backoff needs 0 < first <= max".into(),
            ));
        }
        if !(s.max_interval..=MAX_RETRY_AFTER).contains(&self.backoff.retry_after_max) {
            return Err(ProfileError::Invalid(format!(
                "backoff.retry_after_max must be between schedule.max_interval ({}) and \
                 {MAX_RETRY_AFTER} seconds",
                s.max_interval
            )));
        }
        if !(0.0..=MAX_HOST_GAP).contains(&self.pacing.host_gap) {
            return Err(ProfileError::Invalid(format!(
                "pacing.host_gap must be between 0 and {MAX_HOST_GAP} seconds"
            )));
        }
        if let Err(e) = tidings_robots::ProductToken::new(&self.robots.token) {
            return Err(ProfileError::Invalid(format!("robots.token: {e}")));
        }
        if self.robots.max_age == 0 || self.robots.max_age > MAX_ROBOTS_AGE {
            return Err(ProfileError::Invalid(format!(
                "robots.max_age must be between 1 and {MAX_ROBOTS_AGE} seconds"
            )));
        }
        if self.robots.crawl_delay_cap > MAX_CRAWL_DELAY_CAP {
            return Err(ProfileError::Invalid(format!(
                "robots.crawl_delay_cap must be at most {MAX_CRAWL_DELAY_CAP} seconds"
            )));
        }
        if self.retry.no_answer_patience > MAX_PATIENCE {
            return Err(ProfileError::Invalid(format!(
                "retry.no_answer_patience must be at most {MAX_PATIENCE}"
            )));
        }
        let f = &self.fetch;
        if !(1..=MAX_FETCH_TIMEOUT).contains(&f.connect_timeout)
            || !(1..=MAX_FETCH_TIMEOUT).contains(&f.timeout)
        {
            return Err(ProfileError::Invalid(format!(
                "fetch.connect_timeout and fetch.timeout must be between 1 and \
                 {MAX_FETCH_TIMEOUT} seconds"
            )));
        }
        if !(1..=MAX_BODY_BYTES).contains(&f.max_body_bytes) {
            return Err(ProfileError::Invalid(format!(
                "fetch.max_body_bytes must be between 1 and {MAX_BODY_BYTES}"
            )));
        }
        if f.max_redirects > MAX_REDIRECTS {
            return Err(ProfileError::Invalid(format!(
                "fetch.max_redirects must be at most {MAX_REDIRECTS}"
            )));
        }
        if self.backoff.after_internal_error == 0
            || self.backoff.after_internal_error > MAX_LADDER_STEP
        {
            return Err(ProfileError::Invalid(format!(
                "backoff.after_internal_error must be between 1 and {MAX_LADDER_STEP} seconds"
            )));
        }
        for ladder in &self.ladders {
            let bad = |what: &str| {
                Err(ProfileError::Invalid(format!(
                    "ladder {}: {what}",
                    ladder.rule
                )))
            };
            if ladder.on.is_empty() {
                return bad("`on` names no failure kind");
            }
            if ladder.steps.is_empty() {
                return bad("`steps` is empty");
            }
            let limit = match ladder.unit {
                StepUnit::Seconds => MAX_LADDER_STEP,
                StepUnit::Interval => 1000,
            };
            if ladder.steps.iter().any(|&s| s == 0 || s > limit) {
                return bad(&format!("every step must be between 1 and {limit}"));
            }
        }
        if !(0.0..=1.0).contains(&self.hints.jitter) {
            return Err(ProfileError::Invalid(
                "hints.jitter must be between 0 and 1".into(),
            ));
        }
        if self.redirects.persist_permanent_after > MAX_LADDER_STEP {
            return Err(ProfileError::Invalid(format!(
                "redirects.persist_permanent_after must be at most {MAX_LADDER_STEP} seconds"
            )));
        }
        self.entries.validate()?;
        if self.user_agent.trim().is_empty() || self.user_agent.contains(['\r', '\n']) {
            return Err(ProfileError::Invalid(
                "user_agent must be one non-empty line".into(),
            ));
        }
        self.contact.validate()?;
        self.requests.validate()?;
        self.keep.validate()?;
        self.rights.validate()?;
        self.pages.validate()?;
        self.images.validate()?;
        self.discovery.validate()?;
        self.spider.validate()?;
        self.websub.validate()?;
        // A pushed body comes with no robots.txt copy, whose AI crawler groups decide an
        // excerpt (DFB2): a profile that keeps excerpts reads its feeds itself.
        if self.requests.allows(tidings_model::RequestPurpose::WebSub)
            && self.keep.summary == SummaryKeep::Excerpt
        {
            return Err(ProfileError::Invalid(
                "requests.purposes may not list \"websub\" with keep.summary = \"excerpt\"".into(),
            ));
        }
        self.signing.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_and_rights_settings_are_checked() {
        for (bad, says) in [
            (
                "[rights]\nai_crawlers = [\"GPT Bot\"]",
                "\"GPT Bot\" is not a robots.txt",
            ),
            ("[keep]\nexcerpt_max_chars = 0", "keep.excerpt_max_chars"),
            (
                "[requests]\npurposes = [\"feed\", \"robots\", \"websub\"]\n[keep]\nsummary = \"excerpt\"",
                "may not list \"websub\" with keep.summary",
            ),
            ("[websub]\nlive_poll = 90000", "websub: renew_before"),
            ("[requests]\npurposes = [\"feed\"]", "requests.purposes"),
        ] {
            let err = Profile::from_toml(&format!("name = \"t\"\n{bad}\n"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let dfb = Profile::embedded("dailyfootballbot").unwrap();
        assert_eq!(dfb.keep.summary, SummaryKeep::Excerpt);
        assert!(!dfb.keep.content && !dfb.keep.images && !dfb.keep.metadata);
        assert!(
            Profile::embedded("default")
                .unwrap()
                .keep
                .keeps_everything()
        );
    }

    #[test]
    fn a_profile_names_only_what_it_changes_user_agent_included() {
        let default = Profile::embedded("default").unwrap();
        assert_eq!(default.user_agent, DEFAULT_USER_AGENT);
        let minimal = Profile::from_toml("name = \"mine\"\n[schedule]\nmin_interval = 1800\n")
            .expect("a profile without user_agent is the default's");
        assert_eq!(minimal.user_agent, DEFAULT_USER_AGENT);
        assert_eq!(minimal.fetch, default.fetch);
        assert_eq!(minimal.schedule.min_interval, 1800);
    }

    #[test]
    fn sr11_signing_is_a_profile_switch_with_bounded_numbers() {
        let default = Profile::embedded("default").unwrap();
        assert_eq!(default.signing, SigningSettings::default());
        assert!(!default.signing.enabled);
        let serene = Profile::embedded("sr").unwrap();
        assert!(serene.signing.enabled, "SR11: SereneReader signs");
        assert_eq!(
            serene.signing.agent.as_deref(),
            Some("https://serenereader.com")
        );
        let with = |section: &str| {
            Profile::from_toml(&format!("name = \"x\"\nuser_agent = \"x/1\"\n{section}"))
        };
        assert!(with("[signing]\nenabled = true\nagent = \"http://127.0.0.1:8080/\"").is_ok());
        for bad in [
            "[signing]\nsignature_validity = 0",
            "[signing]\nsignature_validity = 86401",
            "[signing]\nkey_lifetime = 3600",
            "[signing]\nrotate_before = 7776000",
            "[signing]\ndirectory_max_age = 0",
            "[signing]\ndirectory_max_age = 86401",
            "[signing]\nagent = \"ftp://bot.example\"",
            "[signing]\nagent = \"https://bot.example/keys\"",
            "[signing]\nagent = \"https://user@bot.example\"",
            "[signing]\nagent = \"not a url\"",
            "[signing]\nkeys = 2",
        ] {
            assert!(with(bad).is_err(), "{bad} must be refused");
        }
    }

    #[test]
    fn signature_agent_origins_are_normalised() {
        assert_eq!(
            signature_agent_origin("https://Bot.Example/").as_deref(),
            Ok("https://bot.example")
        );
        assert_eq!(
            signature_agent_origin(" http://127.0.0.1:8080 ").as_deref(),
            Ok("http://127.0.0.1:8080")
        );
        assert_eq!(
            signature_agent_origin("https://bot.example:443").as_deref(),
            Ok("https://bot.example")
        );
    }

    #[test]
    fn c8_fetch_limits_are_profile_numbers_within_bounds() {
        let p = Profile::embedded("default").unwrap();
        assert_eq!(p.fetch, FetchLimits::default());
        assert_eq!(p.backoff.after_internal_error, 300);
        assert_eq!(p.backoff.retry_after_max, DEFAULT_RETRY_AFTER_MAX);
        let with = |section: &str| {
            Profile::from_toml(&format!("name = \"x\"\nuser_agent = \"x/1\"\n{section}"))
        };
        let tight = with("[fetch]\ntimeout = 5\nmax_body_bytes = 1000").unwrap();
        assert_eq!(tight.fetch.timeout, 5);
        let long = with("[backoff]\nretry_after_max = 31622400").unwrap();
        assert_eq!(long.backoff.retry_after_max, MAX_RETRY_AFTER);
        assert_eq!(tight.fetch.max_body_bytes, 1000);
        assert_eq!(
            tight.fetch.connect_timeout, 10,
            "the rest keeps the default"
        );
        for bad in [
            "[fetch]\ntimeout = 0",
            "[fetch]\nconnect_timeout = 601",
            "[fetch]\nmax_body_bytes = 0",
            "[fetch]\nmax_body_bytes = 2147483648",
            "[fetch]\nmax_redirects = 21",
            "[fetch]\nretries = 3",
            "[backoff]\nafter_internal_error = 0",
            "[backoff]\nretry_after_max = 0",
            "[backoff]\nretry_after_max = 3600",
            "[backoff]\nretry_after_max = 31708800",
        ] {
            assert!(with(bad).is_err(), "{bad}");
        }
    }

    /// default.toml states the discovery and spider numbers every profile inherits, and they
    /// are the ones the code falls back to.
    #[test]
    fn ff1_ff4_default_toml_states_the_inherited_discovery_numbers() {
        let p = Profile::embedded("default").unwrap();
        assert_eq!(p.discovery, DiscoverySettings::default());
        assert_eq!(p.spider, SpiderSettings::default());
        let ffbot = Profile::embedded("ffbot").unwrap();
        assert_eq!(ffbot.discovery, p.discovery);
    }

    #[test]
    fn ff1_ff3_ff4_discovery_numbers_are_checked() {
        let with = |section: &str| {
            Profile::from_toml(&format!("name = \"x\"\nuser_agent = \"x/1\"\n{section}"))
        };
        for (section, needle) in [
            ("[discovery]\ncommon_paths = [\"feed\"]", "start with /"),
            ("[discovery]\ncommon_paths = [\"/feed?x=1\"]", "query"),
            ("[discovery]\nmax_candidates = 0", "max_candidates"),
            ("[discovery]\nmax_body_links = 99", "max_body_links"),
            ("[discovery]\nuncertain_share = 0.95", "uncertain_share"),
            ("[discovery]\nduplicate_share = 1.5", "duplicate_share"),
            ("[discovery]\ncooldown = 0", "cooldown"),
            ("[spider]\nmax_requests = 0", "max_requests"),
            ("[spider]\ndepth = 11", "ceiling"),
            ("[spider]\nceiling_time = 10", "max_time"),
        ] {
            let err = with(section).unwrap_err().to_string();
            assert!(err.contains(needle), "{section}: {err}");
        }
        assert!(
            with("[spider]\ndepth = 0").is_ok(),
            "depth 0: the start page only"
        );
    }

    #[test]
    fn embedded_default_profile_is_valid() {
        let p = Profile::embedded("default").unwrap();
        assert_eq!(p.name, "default");
        assert_eq!(p.schedule.default_interval, 3600);
        assert!(p.user_agent("1.2.3").contains("tidings/1.2.3"));
    }

    #[test]
    fn pf12_plainfeeder_shows_content_as_plain_text() {
        assert!(Profile::embedded("plainfeeder").unwrap().display.plain_text);
        for name in ["default", "worldfeedmonitor", "serenereader", "ffbot"] {
            assert!(
                !Profile::embedded(name).unwrap().display.plain_text,
                "{name}"
            );
        }
        let with = |section: &str| {
            Profile::from_toml(&format!("name = \"x\"\nuser_agent = \"x/1\"\n{section}"))
        };
        assert!(
            with("[display]\nplain_text = true")
                .unwrap()
                .display
                .plain_text
        );
        assert!(with("[display]\nplain_text = \"yes\"").is_err());
        assert!(with("[display]\nplaintext = true").is_err());
    }

    #[test]
    fn pf11_plainfeeder_publishes_its_egress_addresses_and_sr12_serenereader_does_not() {
        assert!(Profile::embedded("plainfeeder").unwrap().egress.publish);
        for name in [
            "default",
            "worldfeedmonitor",
            "serenereader",
            "ffbot",
            "dailyfootballbot",
        ] {
            assert!(!Profile::embedded(name).unwrap().egress.publish, "{name}");
        }
        let with = |section: &str| {
            Profile::from_toml(&format!("name = \"x\"\nuser_agent = \"x/1\"\n{section}"))
        };
        assert!(with("[egress]\npublish = true").unwrap().egress.publish);
        assert!(with("[egress]\npublish = 1").is_err());
        assert!(with("[egress]\nlist = true").is_err());
    }

    #[test]
    fn unknown_profile_names_the_known_ones() {
        let err = Profile::embedded("nope").unwrap_err().to_string();
        assert!(err.contains("default"), "{err}");
    }

    #[test]
    fn a_profile_names_only_what_it_changes() {
        let p = Profile::from_toml(
            "name = \"t\"\nuser_agent = \"t\"\n[schedule]\ndefault_interval = 7200\n",
        )
        .unwrap();
        assert_eq!(p.schedule.default_interval, 7200);
        assert_eq!(p.schedule.min_interval, 900);
        assert_eq!(p.backoff, BackoffSettings::default());
    }

    #[test]
    fn inconsistent_profiles_are_refused() {
        let cases = [
            "name='t'\nuser_agent='t'\n[schedule]\nmin_interval=0\n",
            "name='t'\nuser_agent='t'\n[schedule]\ndefault_interval=10\n",
            "name='t'\nuser_agent='t'\n[backoff]\nfirst=100000\n",
            "name='t'\nuser_agent=\"a\\nb\"\n",
            "name='t'\nuser_agent='t'\nunknown_key=1\n",
            "name='t'\nuser_agent='t'\n[pacing]\nhost_gap=1e30\n",
            "name='t'\nuser_agent='t'\n[pacing]\nhost_gap=nan\n",
        ];
        for text in cases {
            assert!(Profile::from_toml(text).is_err(), "accepted: {text}");
        }
    }
}
