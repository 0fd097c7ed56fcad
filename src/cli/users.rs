//! Accounts of `tidings serve` (issue 15): `users add`, `list`, `passwd` and `remove`.
//!
//! A password is read from the terminal without echo (asked twice), or as the first line of
//! standard input when it is not a terminal (`printf '%s\n' "$PW" | tidings users add ana`).
//! Only its argon2id hash is stored; nothing prints it.

use super::commands::Context;
use super::terminal::{json, visible};
use anyhow::{Context as _, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;
use tidings_api::accounts::{check_name, hash_password};
use tidings_store::{AccountRole, NewAccount};

#[derive(Debug, Args)]
pub struct UsersArgs {
    #[command(subcommand)]
    pub command: UsersCommand,
}

#[derive(Debug, Subcommand)]
pub enum UsersCommand {
    /// Make an account; its password is asked for (or read from standard input)
    Add(AddArgs),
    /// List the accounts: name, role, whether an API password is set, when made and changed
    List(ListArgs),
    /// Set an account's login password, or with --api the separate password sync clients use
    Passwd(PasswdArgs),
    /// Remove an account
    Remove(NameArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The account's name (unique ignoring case; no `:`)
    pub name: String,
    /// reader (reads and manages its own subscriptions) or admin (also runs the admin pages)
    #[arg(long, value_enum, default_value_t = RoleArg::Reader)]
    pub role: RoleArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    Reader,
    Admin,
}

impl From<RoleArg> for AccountRole {
    fn from(role: RoleArg) -> AccountRole {
        match role {
            RoleArg::Reader => AccountRole::Reader,
            RoleArg::Admin => AccountRole::Admin,
        }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON lines instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PasswdArgs {
    /// The account's name
    pub name: String,
    /// Set the API password (what sync clients such as newsboat or Reeder log in with),
    /// not the login password
    #[arg(long)]
    pub api: bool,
    /// With --api: remove the API password, so no sync client can log in
    #[arg(long, requires = "api")]
    pub clear: bool,
}

#[derive(Debug, Args)]
pub struct NameArgs {
    /// The account's name
    pub name: String,
}

/// `tidings users ...`.
pub async fn run(ctx: &Context, args: UsersArgs) -> Result<ExitCode> {
    match args.command {
        UsersCommand::Add(a) => add(ctx, a).await,
        UsersCommand::List(a) => list(ctx, a).await,
        UsersCommand::Passwd(a) => passwd(ctx, a).await,
        UsersCommand::Remove(a) => remove(ctx, a).await,
    }
}

async fn add(ctx: &Context, args: AddArgs) -> Result<ExitCode> {
    if let Err(e) = check_name(&args.name) {
        eprintln!("{e}");
        return Ok(ExitCode::FAILURE);
    }
    let password = read_password(&format!("password for {}", visible(&args.name)))?;
    let password_hash = match hash_password(&password) {
        Ok(hash) => hash,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let account = NewAccount {
        name: args.name,
        role: args.role.into(),
        password_hash,
        created_at: chrono::Utc::now(),
    };
    match ctx.store.add_account(&account).await? {
        Some(made) => {
            println!(
                "account {} made ({}); `tidings users passwd {} --api` sets the password sync \
                 clients use",
                visible(&made.name),
                made.role.as_str(),
                visible(&made.name)
            );
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!(
                "an account named {} exists already (names are compared ignoring case)",
                visible(&account.name)
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// An account as `users list --json` prints it.
#[derive(Serialize)]
struct Listed<'a> {
    id: i64,
    name: &'a str,
    role: &'static str,
    api_password: bool,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: chrono::DateTime<chrono::Utc>,
}

async fn list(ctx: &Context, args: ListArgs) -> Result<ExitCode> {
    let accounts = ctx.store.accounts().await?;
    if args.json {
        for a in &accounts {
            let row = Listed {
                id: a.id,
                name: &a.name,
                role: a.role.as_str(),
                api_password: a.api_password,
                created_at: a.created_at,
                updated_at: a.updated_at,
            };
            println!("{}", json(&serde_json::to_string(&row)?));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if accounts.is_empty() {
        println!("no accounts: `tidings users add NAME --role admin` makes the first");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<6}  {:<3}  {:<19}  {:<19}  NAME",
        "ROLE", "API", "CREATED", "CHANGED"
    );
    let time = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    for a in accounts {
        println!(
            "{:<6}  {:<3}  {:<19}  {:<19}  {}",
            a.role.as_str(),
            if a.api_password { "yes" } else { "no" },
            time(a.created_at),
            time(a.updated_at),
            visible(&a.name)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The id of the account named `name` (`--user NAME`), or an error that says how to find one.
pub async fn account_id(ctx: &Context, name: &str) -> Result<i64> {
    match ctx.store.account_secrets(name).await? {
        Some(secrets) => Ok(secrets.account.id),
        None => anyhow::bail!(
            "no account named {}: `tidings users list` shows them, `tidings users add NAME` makes one",
            visible(name)
        ),
    }
}

async fn passwd(ctx: &Context, args: PasswdArgs) -> Result<ExitCode> {
    let now = chrono::Utc::now();
    let name = visible(&args.name);
    let Some(secrets) = ctx.store.account_secrets(&args.name).await? else {
        eprintln!("no account named {name}");
        return Ok(ExitCode::FAILURE);
    };
    if args.clear {
        ctx.store.set_api_password(&args.name, None, now).await?;
        println!("the API password of {name} is removed: no sync client can log in as it");
        return Ok(ExitCode::SUCCESS);
    }
    let what = if args.api { "API password" } else { "password" };
    let password = read_password(&format!("new {what} for {name}"))?;
    let set = if args.api {
        // The Fever key is made from the name as the account was made (Fever clients send
        // md5 of "name:password" as the person types it).
        let api = match tidings_api::accounts::api_password(&secrets.account.name, &password) {
            Ok(api) => api,
            Err(e) => {
                eprintln!("{e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        ctx.store
            .set_api_password(&args.name, Some(&api), now)
            .await?
    } else {
        let hash = match hash_password(&password) {
            Ok(hash) => hash,
            Err(e) => {
                eprintln!("{e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        ctx.store.set_password(&args.name, &hash, now).await?
    };
    if set {
        println!("the {what} of {name} is set");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("no account named {name}");
        Ok(ExitCode::FAILURE)
    }
}

async fn remove(ctx: &Context, args: NameArgs) -> Result<ExitCode> {
    if ctx.store.remove_account(&args.name).await? {
        println!("account {} removed", visible(&args.name));
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("no account named {}", visible(&args.name));
        Ok(ExitCode::FAILURE)
    }
}

/// A password from the terminal, asked twice without echo; else the first line of standard
/// input (its line ending dropped).
fn read_password(what: &str) -> Result<String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        let first = rpassword::prompt_password(format!("{what}: "))
            .context("cannot read the password from the terminal")?;
        let again = rpassword::prompt_password("again: ")
            .context("cannot read the password from the terminal")?;
        if first != again {
            bail!("the two passwords differ; nothing was changed");
        }
        return Ok(first);
    }
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.strip_suffix('\n').unwrap_or(&line);
    Ok(password.strip_suffix('\r').unwrap_or(password).to_owned())
}
