//! API keys for `tidings serve`: `keys create`, `keys list` and `keys revoke`; and the bot's
//! own Web Bot Auth signing keys (SR11): `keys bot generate`, `rotate` and `list`.
//!
//! `create` prints the token once, alone on stdout (so `TOKEN=$(tidings keys create ...)`
//! works), and stores only its hash and a short prefix; nothing can show it again.
//!
//! A bot key signs from when it is made until a newer one is made (`rotate`, or a crawl when
//! the signing key nears its end) and is published in the key directory until it expires. The
//! secret stays in the store; only the public key is ever shown.

use super::commands::Context;
use super::terminal::{json, visible};
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use std::process::ExitCode;
use tidings_api::auth::{Role, issue};
use tidings_fetch::botkeys;

#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    pub command: KeysCommand,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a key and print its token (shown only this once)
    Create(CreateArgs),
    /// List the keys: id, role, prefix, when made, last used and revoked, name (never the token)
    List(ListArgs),
    /// Revoke a key: it is refused from the next request on
    Revoke(RevokeArgs),
    /// The bot's Web Bot Auth signing keys (SR11): generate, rotate, list
    #[command(subcommand)]
    Bot(BotCommand),
}

#[derive(Debug, Subcommand)]
pub enum BotCommand {
    /// Make the first signing key (refused while a key signs: use rotate)
    Generate(BotKeyArgs),
    /// Make the next signing key: published at once, signing an hour later (when verifiers'
    /// cached directories have expired; --now: at once); the old one stays published until it
    /// expires
    Rotate(RotateArgs),
    /// List the keys: keyid (RFC 7638 thumbprint), state, valid from, expires
    List(ListArgs),
    /// Remove a key at once: it stops signing and leaves the directory (a compromised key);
    /// a running crawl takes the next key within a minute, making one if none is left
    Remove(RemoveBotArgs),
}

#[derive(Debug, Args)]
pub struct RemoveBotArgs {
    /// The key's keyid (from `keys bot list`); base64url, so it may begin with `-`
    #[arg(allow_hyphen_values = true)]
    pub keyid: String,
}

#[derive(Debug, Args)]
pub struct RotateArgs {
    #[command(flatten)]
    pub key: BotKeyArgs,
    /// Sign with the new key at once (a verifier holding a cached directory does not know it
    /// for up to an hour); for a key that must stop signing now
    #[arg(long)]
    pub now: bool,
}

#[derive(Debug, Args)]
pub struct BotKeyArgs {
    /// How long the key is valid and published (30d, 12h, ...) [default: the profile's
    /// signing.key_lifetime, 90 days]
    #[arg(long = "valid-for", value_name = "DURATION", value_parser = super::crawl::parse_duration)]
    pub valid_for: Option<std::time::Duration>,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// reader (reads only) or admin (reads and writes); with --user, the account's role by
    /// default (an account that reads only cannot have an admin key)
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
    /// A label to tell the key apart
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,
    /// The account the key acts as (its subscriptions and reading state, for scripts and
    /// apps: `/v1`, and `X-Auth-Token` on the Miniflux API)
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RoleArg {
    Reader,
    Admin,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The key's id (from `keys list`)
    pub id: i64,
}

/// `tidings keys ...`.
pub async fn run(ctx: &Context, args: KeysArgs) -> Result<ExitCode> {
    match args.command {
        KeysCommand::Create(a) => create(ctx, a).await,
        KeysCommand::List(a) => list(ctx, a).await,
        KeysCommand::Revoke(a) => revoke(ctx, a).await,
        KeysCommand::Bot(BotCommand::Generate(a)) => bot_make(ctx, a, None).await,
        KeysCommand::Bot(BotCommand::Rotate(a)) => bot_make(ctx, a.key, Some(a.now)).await,
        KeysCommand::Bot(BotCommand::List(a)) => bot_list(ctx, a).await,
        KeysCommand::Bot(BotCommand::Remove(a)) => bot_remove(ctx, a).await,
    }
}

/// `keys bot generate` (`rotate` is `None`) and `keys bot rotate` (`Some(at_once)`).
async fn bot_make(ctx: &Context, args: BotKeyArgs, rotate: Option<bool>) -> Result<ExitCode> {
    let now = chrono::Utc::now();
    let signing = &ctx.settings.profile.signing;
    let lifetime = match args.valid_for {
        Some(d) => d.as_secs(),
        None => signing.key_lifetime,
    };
    let (shortest, longest) = tidings_policy::profile::KEY_LIFETIME_BOUNDS;
    if !(shortest..=longest).contains(&lifetime) {
        eprintln!("--valid-for must be between 1d and {}d", longest / 86_400);
        return Ok(ExitCode::FAILURE);
    }
    let keys = tidings_crawler::keys::load(ctx.store.as_ref()).await?;
    let current = botkeys::signing_key(&keys, now.timestamp());
    if rotate.is_none()
        && let Some(current) = current
    {
        eprintln!(
            "key {} signs until {}; `tidings keys bot rotate` replaces it",
            current.key.keyid(),
            day(current.expires)
        );
        return Ok(ExitCode::FAILURE);
    }
    // A rotation publishes the next key ahead of its start, unless asked to switch at once.
    let starts = match (rotate, current) {
        (Some(false), Some(_)) => now
            .timestamp()
            .saturating_add(i64::try_from(signing.directory_max_age).unwrap_or(i64::MAX)),
        _ => now.timestamp(),
    };
    let key =
        tidings_crawler::keys::make_starting(ctx.store.as_ref(), now, starts, lifetime).await?;
    println!("{}", key.key.keyid());
    if key.not_before > now.timestamp() {
        eprintln!(
            "bot key {} is published now, signs from {} and is published until {}",
            key.key.keyid(),
            day(key.not_before),
            day(key.expires)
        );
    } else {
        eprintln!(
            "bot key {} signs from now on and is published until {}",
            key.key.keyid(),
            day(key.expires)
        );
    }
    if let Some(old) = current {
        let from = if key.not_before > now.timestamp() {
            format!("signs until {}", day(key.not_before))
        } else {
            "no longer signs".to_owned()
        };
        eprintln!(
            "key {} {from} and stays published until {}",
            old.key.keyid(),
            day(old.expires)
        );
    }
    if !signing.enabled {
        eprintln!(
            "note: profile {} does not sign requests; a profile with [signing] enabled = true \
             uses these keys",
            visible(&ctx.settings.profile.name)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `keys bot remove KEYID`.
async fn bot_remove(ctx: &Context, args: RemoveBotArgs) -> Result<ExitCode> {
    if ctx.store.remove_bot_key(args.keyid.trim()).await? {
        println!(
            "bot key {} removed: it signs nothing more and is no longer published",
            visible(args.keyid.trim())
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "no bot key {} (see `tidings keys bot list`)",
            visible(args.keyid.trim())
        );
        Ok(ExitCode::FAILURE)
    }
}

/// `keys bot list`.
async fn bot_list(ctx: &Context, args: ListArgs) -> Result<ExitCode> {
    let now = chrono::Utc::now().timestamp();
    let keys = tidings_crawler::keys::load(ctx.store.as_ref()).await?;
    if args.json {
        for key in &keys {
            let line = serde_json::json!({
                "keyid": key.key.keyid(),
                "state": key.state(&keys, now).label(),
                "public_key": key.public(),
                "not_before": tidings_crawler::keys::at(key.not_before),
                "expires": tidings_crawler::keys::at(key.expires),
            });
            println!("{}", json(&line.to_string()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if keys.is_empty() {
        println!("no bot keys (`tidings keys bot generate` makes one)");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<43}  {:<8}  {:<19}  EXPIRES",
        "KEYID", "STATE", "VALID FROM"
    );
    for key in &keys {
        println!(
            "{:<43}  {:<8}  {:<19}  {}",
            key.key.keyid(),
            key.state(&keys, now).label(),
            day(key.not_before),
            day(key.expires),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` (UTC).
fn day(seconds: i64) -> String {
    tidings_crawler::keys::at(seconds)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

async fn create(ctx: &Context, args: CreateArgs) -> Result<ExitCode> {
    let account = match &args.user {
        Some(name) => match ctx.store.account_secrets(name).await? {
            Some(secrets) => Some(secrets.account),
            None => anyhow::bail!(
                "no account named {}: `tidings users list` shows them",
                visible(name)
            ),
        },
        None => None,
    };
    let role = match (args.role, &account) {
        (Some(RoleArg::Admin), Some(a)) if a.role == tidings_store::AccountRole::Reader => {
            anyhow::bail!(
                "{} is a reader account: its keys read only (leave out --role, or use --role reader)",
                visible(&a.name)
            )
        }
        (Some(RoleArg::Reader), _) => Role::Reader,
        (Some(RoleArg::Admin), _) => Role::Admin,
        (None, Some(a)) if a.role == tidings_store::AccountRole::Admin => Role::Admin,
        (None, Some(_)) => Role::Reader,
        (None, None) => {
            anyhow::bail!("--role reader or --role admin is needed for a key without --user")
        }
    };
    let (token, mut new) = issue(args.name, role, chrono::Utc::now())?;
    new.account_id = account.as_ref().map(|a| a.id);
    let key = ctx.store.create_key(&new).await?;
    println!("{token}");
    let named = key
        .name
        .as_deref()
        .map(|n| format!(" named \"{}\"", visible(n)))
        .unwrap_or_default();
    let of = account
        .map(|a| format!(" for account {}", visible(&a.name)))
        .unwrap_or_default();
    eprintln!(
        "key {} ({}){named}{of} created; the token above is shown only this once",
        key.id, key.role
    );
    Ok(ExitCode::SUCCESS)
}

async fn list(ctx: &Context, args: ListArgs) -> Result<ExitCode> {
    let keys = ctx.store.list_keys().await?;
    if args.json {
        for key in &keys {
            println!("{}", json(&serde_json::to_string(key)?));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if keys.is_empty() {
        println!("no keys");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:>4}  {:<6}  {:<12}  {:<19}  {:<19}  {:<19}  NAME",
        "ID", "ROLE", "PREFIX", "CREATED", "LAST USED", "REVOKED"
    );
    let time = |t: Option<chrono::DateTime<chrono::Utc>>| match t {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S").to_string(),
        None => "-".to_owned(),
    };
    for key in keys {
        println!(
            "{:>4}  {:<6}  {:<12}  {:<19}  {:<19}  {:<19}  {}",
            key.id,
            key.role,
            key.prefix,
            time(Some(key.created_at)),
            time(key.last_used_at),
            time(key.revoked_at),
            visible(key.name.as_deref().unwrap_or("-")),
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn revoke(ctx: &Context, args: RevokeArgs) -> Result<ExitCode> {
    if ctx.store.revoke_key(args.id, chrono::Utc::now()).await? {
        println!("key {} revoked", args.id);
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("no key {} to revoke (unknown, or already revoked)", args.id);
        Ok(ExitCode::FAILURE)
    }
}
