//! The one check helper behind the table tests: a row is a robots.txt file, a product token, a
//! path, whether the `*` group applies, and the expected verdict as printed.

#![allow(dead_code)] // each test binary uses part of it

use tidings_robots::{ProductToken, Robots, StarGroup};

/// One case of a table test.
pub struct Row {
    pub name: &'static str,
    pub file: &'static [u8],
    pub agent: &'static str,
    pub path: &'static str,
    pub star: StarGroup,
    /// The verdict's `Display`: answer, group, line number and line text.
    pub want: &'static str,
}

/// A row where the `*` group applies (RFC 9309).
pub const fn row(
    name: &'static str,
    file: &'static [u8],
    agent: &'static str,
    path: &'static str,
    want: &'static str,
) -> Row {
    Row {
        name,
        file,
        agent,
        path,
        star: StarGroup::Apply,
        want,
    }
}

/// A row checked with the `*` group ignored (SR8, feeds).
pub const fn feed_row(
    name: &'static str,
    file: &'static [u8],
    agent: &'static str,
    path: &'static str,
    want: &'static str,
) -> Row {
    Row {
        name,
        file,
        agent,
        path,
        star: StarGroup::Ignore,
        want,
    }
}

/// Checks every row and reports all failures at once.
pub fn check(rows: &[Row]) {
    let mut failures = Vec::new();
    for row in rows {
        let token = ProductToken::new(row.agent)
            .unwrap_or_else(|e| panic!("row {}: bad agent: {e}", row.name));
        let robots = Robots::parse(row.file);
        let verdict = robots.check_with(&token, row.path, row.star);
        let got = verdict.to_string();
        let first_word_agrees = got.starts_with("allowed") == verdict.is_allowed();
        if got != row.want || !first_word_agrees {
            failures.push(format!(
                "{}: {} {:?}\n   want: {}\n    got: {}",
                row.name, row.agent, row.path, row.want, got
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}\n", failures.join("\n"));
}
