//! API keys for `tidings serve`: `keys create`, `keys list` and `keys revoke`.
//!
//! `create` prints the token once, alone on stdout (so `TOKEN=$(tidings keys create ...)`
//! works), and stores only its hash and a short prefix; nothing can show it again.

use super::commands::Context;
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use std::process::ExitCode;
use tidings_api::auth::{Role, issue};

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
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// reader (reads only) or admin (reads and writes)
    #[arg(long, value_enum)]
    pub role: RoleArg,
    /// A label to tell the key apart
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,
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
    }
}

async fn create(ctx: &Context, args: CreateArgs) -> Result<ExitCode> {
    let role = match args.role {
        RoleArg::Reader => Role::Reader,
        RoleArg::Admin => Role::Admin,
    };
    let (token, new) = issue(args.name, role, chrono::Utc::now())?;
    let key = ctx.store.create_key(&new).await?;
    println!("{token}");
    let named = key
        .name
        .as_deref()
        .map(|n| format!(" named {n:?}"))
        .unwrap_or_default();
    eprintln!(
        "key {} ({}){named} created; the token above is shown only this once",
        key.id, key.role
    );
    Ok(ExitCode::SUCCESS)
}

async fn list(ctx: &Context, args: ListArgs) -> Result<ExitCode> {
    let keys = ctx.store.list_keys().await?;
    if args.json {
        for key in &keys {
            println!("{}", serde_json::to_string(key)?);
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
            key.name.as_deref().unwrap_or("-"),
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
