//! `tidings robots FILE URL --agent TOKEN`: what a robots.txt file says about one URL.

use super::args::RobotsArgs;
use anyhow::{Context, Result};
use std::process::ExitCode;
use tidings_robots::{ProductToken, Robots, StarGroup, path_and_query};

/// Print the verdict; exit 0 when allowed, 1 when disallowed.
pub fn run(args: &RobotsArgs) -> Result<ExitCode> {
    let agent: ProductToken = args
        .agent
        .parse()
        .with_context(|| format!("--agent {:?} is not a product token", args.agent))?;
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let robots = Robots::parse(&bytes);
    // A full URL is checked by its path and query; a bare path as it is.
    let path = match url::Url::parse(&args.url) {
        Ok(url) => path_and_query(&url).to_string(),
        Err(_) if args.url.starts_with('/') => args.url.clone(),
        Err(e) => anyhow::bail!("{:?} is neither a URL nor a path: {e}", args.url),
    };
    let star = if args.ignore_star {
        StarGroup::Ignore
    } else {
        StarGroup::Apply
    };
    let verdict = robots.check_with(&agent, &path, star);
    // The verdict quotes the deciding line of the file, as the file has it.
    println!("{}", super::terminal::visible(&verdict.to_string()));
    Ok(if verdict.is_allowed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
