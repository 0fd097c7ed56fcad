//! Two-stage configuration: raw settings from flags, environment and file are checked, then
//! resolved once into the typed settings the libraries take.

use super::args::GlobalArgs;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tidings_crawler::{Clock, CrawlerConfig};
use tidings_fetch::{FetchConfig, RequestSigner};
use tidings_policy::{Profile, signature_agent_origin};

/// The database used when none is named.
pub const DEFAULT_DB: &str = "tidings.db";
/// The config file read when it exists and none is named.
pub const DEFAULT_CONFIG: &str = "tidings.toml";
/// The subscriber the CLI subscribes as.
pub const CLI_SUBSCRIBER: &str = "cli";

/// The optional TOML configuration file. Every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    pub db: Option<String>,
    pub profile: Option<String>,
    pub allow_private_networks: Option<bool>,
    #[serde(default)]
    pub resolve: Vec<String>,
    /// Local addresses an operator may assign to feeds (WFM7).
    #[serde(default)]
    pub egress: Vec<String>,
    /// The origin named in Signature-Agent when the profile signs (SR11).
    pub signature_agent: Option<String>,
    /// The public URL WebSub hubs reach `serve` at (the same as `--websub-callback`).
    pub websub_callback: Option<String>,
    pub log: Option<String>,
    pub max_body_bytes: Option<u64>,
    pub connect_timeout_secs: Option<u64>,
    pub timeout_secs: Option<u64>,
    pub host_concurrency: Option<usize>,
    /// `tidings serve`'s limits against slow and many clients (the same names as its flags).
    pub header_timeout_secs: Option<u64>,
    pub body_timeout_secs: Option<u64>,
    pub max_connections: Option<usize>,
    pub max_connections_per_address: Option<usize>,
    pub max_auth_failures: Option<u32>,
    pub auth_failure_refill_secs: Option<u64>,
}

/// `tidings serve`'s limits as given, by its flags or the file's keys of the same names; each
/// unset one takes its default (`tidings_api::server`, `tidings_api::throttle`).
#[derive(Debug, Default, Clone, clap::Args)]
pub struct ServeLimitArgs {
    /// Seconds a client may take to send a request's head (an idle keep-alive connection is
    /// closed after as long) [default: 10]
    #[arg(long, value_name = "SECS")]
    pub header_timeout_secs: Option<u64>,
    /// Seconds a client may take to send a request's body after its head [default: 60]
    #[arg(long, value_name = "SECS")]
    pub body_timeout_secs: Option<u64>,
    /// Connections open at once; more are answered 503 and closed [default: 1024]
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Connections open at once from one client address (IPv6: one /64) [default: 64]
    #[arg(long, value_name = "N")]
    pub max_connections_per_address: Option<usize>,
    /// Failed key checks (bad Bearer tokens, failed logins) one address may make in a row
    /// before its key checks are answered 429 [default: 10]
    #[arg(long, value_name = "N")]
    pub max_auth_failures: Option<u32>,
    /// Seconds after which one more failed key check is allowed again [default: 30]
    #[arg(long, value_name = "SECS")]
    pub auth_failure_refill_secs: Option<u64>,
}

/// `tidings serve`'s limits, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeSettings {
    pub server: tidings_api::server::ServerLimits,
    pub failures: tidings_api::auth::RateLimit,
}

/// Everything resolved: what the commands use.
pub struct Settings {
    pub db: String,
    pub profile: Profile,
    pub fetch: FetchConfig,
    pub crawler: CrawlerConfig,
    /// `tidings serve`'s limits from the file, resolved by [`resolve_serve`] under its flags.
    pub serve_file: ServeLimitArgs,
}

/// The log filter, resolved early (before the rest, so loading can log).
pub fn log_filter(global: &GlobalArgs, file: &FileSettings) -> String {
    global
        .log
        .clone()
        .or_else(|| file.log.clone())
        .unwrap_or_else(|| "warn".into())
}

/// Read the config file: the one named, else `./tidings.toml` if it exists, else none.
pub fn load_file(global: &GlobalArgs) -> Result<FileSettings> {
    let (path, required) = match &global.config {
        Some(p) => (p.clone(), true),
        None => (PathBuf::from(DEFAULT_CONFIG), false),
    };
    if !required && !path.exists() {
        return Ok(FileSettings::default());
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid config file {}", path.display()))
}

/// Resolve flags and environment (already merged by clap) over the file over the defaults.
pub fn resolve(global: &GlobalArgs, file: FileSettings) -> Result<Settings> {
    let mut profile = resolve_profile(global, &file)?;
    let serve_file = ServeLimitArgs {
        header_timeout_secs: file.header_timeout_secs,
        body_timeout_secs: file.body_timeout_secs,
        max_connections: file.max_connections,
        max_connections_per_address: file.max_connections_per_address,
        max_auth_failures: file.max_auth_failures,
        auth_failure_refill_secs: file.auth_failure_refill_secs,
    };
    // Checked now, so a bad file fails every command, not only `serve`.
    resolve_serve(&ServeLimitArgs::default(), &serve_file)?;
    let signature_agent = file.signature_agent.clone();
    let websub = websub_callback(global, &file, &mut profile)?;
    let db = global
        .db
        .clone()
        .or(file.db)
        .unwrap_or_else(|| DEFAULT_DB.into());
    let resolve_specs = if global.resolve.is_empty() {
        file.resolve
    } else {
        global.resolve.clone()
    };
    let resolve = resolve_specs
        .iter()
        .map(|s| parse_resolve(s))
        .collect::<Result<Vec<_>>>()?;
    let egress_specs = if global.egress_addresses.is_empty() {
        &file.egress
    } else {
        &global.egress_addresses
    };
    let mut egress = Vec::new();
    for spec in egress_specs {
        let ip: std::net::IpAddr = spec
            .trim()
            .parse()
            .with_context(|| format!("egress {spec:?} is not an IP address"))?;
        if !egress.contains(&ip) {
            egress.push(ip);
        }
    }
    for (name, value) in [
        ("connect_timeout_secs", file.connect_timeout_secs),
        ("timeout_secs", file.timeout_secs),
        ("max_body_bytes", file.max_body_bytes),
    ] {
        if value == Some(0) {
            bail!("{name} must be at least 1");
        }
    }
    let mut crawler = CrawlerConfig {
        websub_callback: websub,
        ..CrawlerConfig::default()
    };
    if let Some(n) = file.host_concurrency {
        if n == 0 {
            bail!("host_concurrency must be at least 1");
        }
        crawler.host_concurrency = n;
    }
    match global.time_scale {
        Some(0) => bail!("--time-scale must be at least 1 (1 is real time)"),
        Some(n) => crawler.clock = Clock::scaled(chrono::Utc::now(), n),
        None => {}
    }
    let signer = signer(global, signature_agent.as_deref(), &profile, crawler.clock)?;
    // The bot page names the origin requests really carry in Signature-Agent.
    if let Some(signer) = &signer {
        profile.signing.agent = Some(signer.agent().to_owned());
    }
    // The profile bounds every request; the config file may override a bound, in the profile
    // itself, so that the fetcher, the read and the bot page all use the one value.
    let limits = &mut profile.fetch;
    limits.connect_timeout = file.connect_timeout_secs.unwrap_or(limits.connect_timeout);
    limits.timeout = file.timeout_secs.unwrap_or(limits.timeout);
    limits.max_body_bytes = file.max_body_bytes.unwrap_or(limits.max_body_bytes);
    profile
        .validate()
        .map_err(|e| anyhow::anyhow!("the configuration file's fetch bounds: {e}"))?;
    let fetch = FetchConfig {
        resolve,
        allow_private_networks: global.allow_private_networks
            || file.allow_private_networks.unwrap_or(false),
        egress,
        signer,
        ..FetchConfig::with_limits(
            profile.user_agent(env!("CARGO_PKG_VERSION")),
            &profile.fetch,
        )
    };
    Ok(Settings {
        db,
        profile,
        fetch,
        crawler,
        serve_file,
    })
}

/// The WebSub callback URL, flag over file. Without one the profile does not list the
/// `websub` purpose, so that the bot page says only what is done.
fn websub_callback(
    global: &GlobalArgs,
    file: &FileSettings,
    profile: &mut Profile,
) -> Result<Option<url::Url>> {
    let Some(given) = global
        .websub_callback
        .as_deref()
        .or(file.websub_callback.as_deref())
        .map(str::trim)
        .filter(|s| !s.is_empty())
    else {
        profile
            .requests
            .purposes
            .retain(|p| *p != tidings_model::RequestPurpose::WebSub);
        return Ok(None);
    };
    let url = url::Url::parse(given)
        .with_context(|| format!("--websub-callback {given:?} is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host_str().is_none()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        bail!(
            "--websub-callback must be an http(s) URL without a query or fragment (hubs add \
             /websub/TOKEN to it), not {given:?}"
        );
    }
    Ok(Some(url))
}

/// `tidings serve`'s limits: each flag, else the file's key, else the default; zero is
/// refused (it would shut every client out).
pub fn resolve_serve(flags: &ServeLimitArgs, file: &ServeLimitArgs) -> Result<ServeSettings> {
    use tidings_api::{server, throttle};
    fn pick<T: Copy + PartialEq + From<u8>>(
        name: &str,
        flag: Option<T>,
        file: Option<T>,
        default: T,
    ) -> Result<T> {
        let value = flag.or(file).unwrap_or(default);
        if value == T::from(0) {
            bail!("{name} must be at least 1");
        }
        Ok(value)
    }
    let secs = |name, flag, file, default: Duration| {
        pick(name, flag, file, default.as_secs()).map(Duration::from_secs)
    };
    let max_connections = pick(
        "max_connections",
        flags.max_connections,
        file.max_connections,
        server::MAX_CONNECTIONS,
    )?;
    if u32::try_from(max_connections).is_err() {
        bail!("max_connections must be at most {}", u32::MAX);
    }
    Ok(ServeSettings {
        server: server::ServerLimits {
            header_read_timeout: secs(
                "header_timeout_secs",
                flags.header_timeout_secs,
                file.header_timeout_secs,
                server::HEADER_READ_TIMEOUT,
            )?,
            body_read_timeout: secs(
                "body_timeout_secs",
                flags.body_timeout_secs,
                file.body_timeout_secs,
                server::BODY_READ_TIMEOUT,
            )?,
            max_connections,
            max_connections_per_address: pick(
                "max_connections_per_address",
                flags.max_connections_per_address,
                file.max_connections_per_address,
                server::MAX_CONNECTIONS_PER_ADDRESS,
            )?,
        },
        failures: tidings_api::auth::RateLimit {
            burst: pick(
                "max_auth_failures",
                flags.max_auth_failures,
                file.max_auth_failures,
                throttle::FAILURE_BURST,
            )?,
            refill_every: secs(
                "auth_failure_refill_secs",
                flags.auth_failure_refill_secs,
                file.auth_failure_refill_secs,
                throttle::FAILURE_REFILL,
            )?,
        },
    })
}

/// The signer of every request when the profile signs (SR11), naming the agent origin from
/// `--signature-agent`, the file's `signature_agent` or the profile's `signing.agent`, and
/// signing at the crawler's time. Its key is set by the crawler before it reads.
fn signer(
    global: &GlobalArgs,
    file_agent: Option<&str>,
    profile: &Profile,
    clock: Clock,
) -> Result<Option<Arc<RequestSigner>>> {
    let signing = &profile.signing;
    if !signing.enabled {
        return Ok(None);
    }
    let Some(agent) = global
        .signature_agent
        .as_deref()
        .or(file_agent)
        .or(signing.agent.as_deref())
    else {
        bail!(
            "profile {} signs every request (SR11) but names no signature agent: set \
             signature_agent in tidings.toml or pass --signature-agent URL (the origin that \
             serves /.well-known/http-message-signatures-directory, e.g. `tidings serve`'s)",
            profile.name
        );
    };
    let agent =
        signature_agent_origin(agent).map_err(|e| anyhow::anyhow!("signature agent: {e}"))?;
    let now: tidings_fetch::botkeys::UnixNow = Arc::new(move || clock.now().timestamp());
    Ok(Some(Arc::new(RequestSigner::new(
        &agent,
        signing.signature_validity,
        now,
    ))))
}

/// The profile alone: `--profile`, then `TIDINGS_PROFILE`, then the file, then `default`.
pub fn resolve_profile(global: &GlobalArgs, file: &FileSettings) -> Result<Profile> {
    let name = global
        .profile
        .clone()
        .or_else(|| file.profile.clone())
        .unwrap_or_else(|| "default".into());
    load_profile(&name)
}

/// An embedded profile by name, or a TOML file when the name looks like a path.
fn load_profile(name: &str) -> Result<Profile> {
    let looks_like_path = name.contains('/') || name.ends_with(".toml");
    if looks_like_path {
        let path = Path::new(name);
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read profile {}", path.display()))?;
        return Profile::from_toml(&text).with_context(|| format!("profile {}", path.display()));
    }
    Ok(Profile::embedded(name)?)
}

/// A database location fit for messages: a URL's password is replaced by `***`.
pub fn redacted(location: &str) -> String {
    match url::Url::parse(location) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        _ => location.to_string(),
    }
}

/// `HOST:PORT:ADDR` as curl takes it; ADDR may be a bracketed IPv6 address.
pub fn parse_resolve(spec: &str) -> Result<(String, u16, SocketAddr)> {
    let mut parts = spec.splitn(3, ':');
    let (Some(host), Some(port), Some(addr)) = (parts.next(), parts.next(), parts.next()) else {
        bail!("--resolve {spec:?}: expected HOST:PORT:ADDR");
    };
    let port: u16 = port
        .parse()
        .with_context(|| format!("--resolve {spec:?}: bad port {port:?}"))?;
    let ip: IpAddr = addr
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .with_context(|| format!("--resolve {spec:?}: bad address {addr:?}"))?;
    if host.is_empty() {
        bail!("--resolve {spec:?}: empty host");
    }
    Ok((host.to_ascii_lowercase(), port, SocketAddr::new(ip, port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_specs_follow_curl_syntax() {
        let (host, port, addr) = parse_resolve("Feeds.Test:8080:127.0.0.2").unwrap();
        assert_eq!((host.as_str(), port), ("feeds.test", 8080));
        assert_eq!(addr, "127.0.0.2:8080".parse().unwrap());
        let (_, _, v6) = parse_resolve("a.test:443:[::1]").unwrap();
        assert_eq!(v6, "[::1]:443".parse().unwrap());
        for bad in [
            "a.test",
            "a.test:x:127.0.0.1",
            "a.test:80:nowhere",
            ":80:127.0.0.1",
        ] {
            assert!(parse_resolve(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn flags_win_over_the_file_which_wins_over_defaults() {
        let file = |db: Option<&str>| FileSettings {
            db: db.map(String::from),
            max_body_bytes: Some(1234),
            ..FileSettings::default()
        };
        let none = GlobalArgs::default();
        assert_eq!(resolve(&none, file(None)).unwrap().db, DEFAULT_DB);
        assert_eq!(resolve(&none, file(Some("f.db"))).unwrap().db, "f.db");
        let flag = GlobalArgs {
            db: Some("flag.db".into()),
            ..GlobalArgs::default()
        };
        let s = resolve(&flag, file(Some("f.db"))).unwrap();
        assert_eq!(s.db, "flag.db");
        assert_eq!(s.fetch.max_body_bytes, 1234);
    }

    #[test]
    fn c8_fetch_limits_come_from_the_profile_and_the_file_may_override_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tight.toml");
        std::fs::write(
            &path,
            "name = \"tight\"\nuser_agent = \"tight/1\"\n\
             [fetch]\nconnect_timeout = 3\ntimeout = 7\nmax_body_bytes = 4096\nmax_redirects = 2\n",
        )
        .unwrap();
        let g = GlobalArgs {
            profile: Some(path.display().to_string()),
            ..GlobalArgs::default()
        };
        let s = resolve(&g, FileSettings::default()).unwrap();
        assert_eq!(s.fetch.connect_timeout, Duration::from_secs(3));
        assert_eq!(s.fetch.total_timeout, Duration::from_secs(7));
        assert_eq!(s.fetch.max_body_bytes, 4096);
        assert_eq!(s.fetch.max_redirects, 2);
        let file = FileSettings {
            timeout_secs: Some(9),
            ..FileSettings::default()
        };
        let s = resolve(&g, file).unwrap();
        assert_eq!(s.fetch.total_timeout, Duration::from_secs(9));
        assert_eq!(s.fetch.max_body_bytes, 4096);
        // One authority: the override is the profile's value, which the bot page renders.
        assert_eq!(s.profile.fetch.timeout, 9);
        assert_eq!(s.profile.fetch.connect_timeout, 3);
        let page = tidings_api::bot::render(&s.profile, tidings_api::bot::Lang::En, "1.0");
        assert!(
            page.contains("9 seconds"),
            "the page names the timeout used"
        );
        // An override out of the profile's bounds is refused with the bound.
        let file = FileSettings {
            timeout_secs: Some(100_000),
            ..FileSettings::default()
        };
        let Err(err) = resolve(&g, file) else {
            panic!("an override out of bounds is refused");
        };
        let err = err.to_string();
        assert!(err.contains("fetch.timeout"), "{err}");
        // The embedded default's bounds.
        let s = resolve(&GlobalArgs::default(), FileSettings::default()).unwrap();
        assert_eq!(s.fetch.total_timeout, Duration::from_secs(30));
        assert_eq!(s.fetch.max_body_bytes, 10 * 1024 * 1024);
        assert_eq!(s.fetch.max_redirects, 5);
    }

    #[test]
    fn passwords_are_redacted_and_zero_limits_refused() {
        assert_eq!(
            redacted("postgres://tidings:s3cret@db.test/tidings"),
            "postgres://tidings:***@db.test/tidings"
        );
        assert_eq!(redacted("./tidings.db"), "./tidings.db");
        let zero = FileSettings {
            timeout_secs: Some(0),
            ..FileSettings::default()
        };
        let err = resolve(&GlobalArgs::default(), zero)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("timeout_secs"), "{err}");
        let zero_scale = GlobalArgs {
            time_scale: Some(0),
            ..GlobalArgs::default()
        };
        let err = resolve(&zero_scale, FileSettings::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("--time-scale"), "{err}");
        let fast = GlobalArgs {
            time_scale: Some(60),
            ..GlobalArgs::default()
        };
        let s = resolve(&fast, FileSettings::default()).unwrap();
        assert_eq!(s.crawler.clock.scale(), 60);
    }

    #[test]
    fn egress_addresses_come_from_the_flags_else_the_file_and_must_be_addresses() {
        let file: FileSettings =
            toml::from_str("egress = [\"127.0.0.2\", \" ::1 \", \"127.0.0.2\"]").unwrap();
        let s = resolve(&GlobalArgs::default(), file).unwrap();
        let shown: Vec<String> = s.fetch.egress.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["127.0.0.2", "::1"], "parsed, duplicates dropped");
        let flag = GlobalArgs {
            egress_addresses: vec!["10.0.0.9".into()],
            ..GlobalArgs::default()
        };
        let file: FileSettings = toml::from_str("egress = [\"127.0.0.2\"]").unwrap();
        let s = resolve(&flag, file).unwrap();
        assert_eq!(
            s.fetch.egress,
            ["10.0.0.9".parse::<std::net::IpAddr>().unwrap()]
        );
        let bad = GlobalArgs {
            egress_addresses: vec!["eth0".into()],
            ..GlobalArgs::default()
        };
        let err = resolve(&bad, FileSettings::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("egress \"eth0\" is not an IP address"),
            "{err}"
        );
        assert!(
            resolve(&GlobalArgs::default(), FileSettings::default())
                .unwrap()
                .fetch
                .egress
                .is_empty()
        );
    }

    #[test]
    fn serve_limits_come_from_the_flags_else_the_file_else_the_defaults() {
        let none = ServeLimitArgs::default();
        let s = resolve_serve(&none, &none).unwrap();
        assert_eq!(s.server, tidings_api::server::ServerLimits::default());
        assert_eq!(s.failures, tidings_api::throttle::default_failures());
        let file: FileSettings =
            toml::from_str("header_timeout_secs = 3\nmax_connections = 20\nmax_auth_failures = 4")
                .unwrap();
        let file = resolve(&GlobalArgs::default(), file).unwrap().serve_file;
        let flags = ServeLimitArgs {
            max_connections: Some(7),
            auth_failure_refill_secs: Some(5),
            ..ServeLimitArgs::default()
        };
        let s = resolve_serve(&flags, &file).unwrap();
        assert_eq!(s.server.header_read_timeout, Duration::from_secs(3));
        assert_eq!(s.server.max_connections, 7, "the flag wins");
        assert_eq!(s.failures.burst, 4);
        assert_eq!(s.failures.refill_every, Duration::from_secs(5));
        assert_eq!(
            s.server.body_read_timeout,
            tidings_api::server::BODY_READ_TIMEOUT
        );
        let zero = ServeLimitArgs {
            max_connections_per_address: Some(0),
            ..ServeLimitArgs::default()
        };
        let err = resolve_serve(&zero, &none).unwrap_err().to_string();
        assert!(err.contains("max_connections_per_address"), "{err}");
        let zero: FileSettings = toml::from_str("body_timeout_secs = 0").unwrap();
        let err = resolve(&GlobalArgs::default(), zero)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("body_timeout_secs"), "{err}");
    }

    #[test]
    fn unknown_profiles_and_config_keys_are_clear_errors() {
        let g = GlobalArgs {
            profile: Some("nope".into()),
            ..GlobalArgs::default()
        };
        let err = resolve(&g, FileSettings::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("nope"), "{err}");
        assert!(toml::from_str::<FileSettings>("colour = 1").is_err());
    }
}
