//! Profiles: the numbers a bot page promises, as a TOML file.
//!
//! The profiles under `profiles/` are embedded in the binary and chosen by name; a path to a
//! TOML file works too. Every field has a default (the `default` profile's value), so a profile
//! file names only what it changes.

use serde::Deserialize;

/// The embedded `default` profile.
pub const DEFAULT_PROFILE: &str = include_str!("../../../profiles/default.toml");

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

/// The embedded profiles by name.
pub const EMBEDDED: &[(&str, &str)] = &[("default", DEFAULT_PROFILE)];

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
    /// The User-Agent template; `{version}` is replaced by tidings' version (C1).
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
    /// Re-read robots.txt when the stored copy is older than this many seconds (DFB7).
    pub max_age: u64,
    /// Honour `Crawl-delay` between requests to a host (SR9, DFB4, FF11).
    pub crawl_delay: bool,
    /// The longest crawl-delay honoured, in seconds; a longer one counts as this (SR9: 60).
    pub crawl_delay_cap: u64,
    /// The one-off read when a feed is first added does not wait for crawl-delay (SR9).
    pub first_add_skips_crawl_delay: bool,
}

impl Default for RobotsSettings {
    fn default() -> Self {
        RobotsSettings {
            token: "tidings".into(),
            star_group_for_feeds: true,
            on_server_error: OnRobotsFailure::Disallow,
            on_unreachable: OnRobotsFailure::Defer,
            max_age: 86_400,
            crawl_delay: true,
            crawl_delay_cap: 60,
            first_add_skips_crawl_delay: false,
        }
    }
}

/// The one early second attempt (WFM4, WFM5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetrySettings {
    /// When a read gets no answer at all (no connection, time-out), try once more at once,
    /// same URL, same address, same User-Agent, allowing this many times the usual time.
    /// 0 turns the second attempt off. An answered request is never tried again early.
    pub no_answer_patience: u32,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            no_answer_patience: 2,
        }
    }
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
    /// A Retry-After further out than this many seconds is read as this: a date years away
    /// is a mistake, and the feed is still read again eventually (C6).
    pub retry_after_max: u64,
}

impl Default for BackoffSettings {
    fn default() -> Self {
        BackoffSettings {
            first: 900,
            max: 86_400,
            retry_after_max: 30 * 86_400,
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

impl Profile {
    /// Parse and check a profile.
    pub fn from_toml(text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text)?;
        profile.validate()?;
        Ok(profile)
    }

    /// An embedded profile by name.
    pub fn embedded(name: &str) -> Result<Profile, ProfileError> {
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

    /// The User-Agent with `{version}` filled in.
    pub fn user_agent(&self, version: &str) -> String {
        self.user_agent.replace("{version}", version)
    }

    fn validate(&self) -> Result<(), ProfileError> {
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
        if self.user_agent.trim().is_empty() || self.user_agent.contains(['\r', '\n']) {
            return Err(ProfileError::Invalid(
                "user_agent must be one non-empty line".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_profile_is_valid() {
        let p = Profile::embedded("default").unwrap();
        assert_eq!(p.name, "default");
        assert_eq!(p.schedule.default_interval, 3600);
        assert!(p.user_agent("1.2.3").contains("tidings/1.2.3"));
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
