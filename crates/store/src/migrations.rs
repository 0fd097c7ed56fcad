//! The schema of each backend, embedded in the binary and applied by [`open`](crate::open).
//!
//! Each backend has its own numbered SQL files under `migrations/<backend>/`; they are listed
//! here in order. sqlx's [`Migrator`] applies each pending file in its own transaction and
//! records it in `_sqlx_migrations`, refusing to run if an applied file was edited since.

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use std::borrow::Cow;

/// (version, description, SQL) of one migration file.
type Source = (i64, &'static str, &'static str);

const SQLITE: &[Source] = &[
    (
        1,
        "init",
        include_str!("../migrations/sqlite/0001_init.sql"),
    ),
    (
        2,
        "moves",
        include_str!("../migrations/sqlite/0002_moves.sql"),
    ),
    (
        3,
        "blocks",
        include_str!("../migrations/sqlite/0003_blocks.sql"),
    ),
    (
        4,
        "api keys",
        include_str!("../migrations/sqlite/0004_api_keys.sql"),
    ),
    (
        5,
        "categories and expiry",
        include_str!("../migrations/sqlite/0005_categories_expiry.sql"),
    ),
    (
        6,
        "egress refusals",
        include_str!("../migrations/sqlite/0006_egress_refusals.sql"),
    ),
    (
        7,
        "bot keys",
        include_str!("../migrations/sqlite/0007_bot_keys.sql"),
    ),
    (
        8,
        "entries first seen",
        include_str!("../migrations/sqlite/0008_entries_first_seen.sql"),
    ),
    (
        9,
        "blocks version",
        include_str!("../migrations/sqlite/0009_blocks_version.sql"),
    ),
    (
        10,
        "host leases",
        include_str!("../migrations/sqlite/0010_host_leases.sql"),
    ),
    (
        11,
        "host lease wants",
        include_str!("../migrations/sqlite/0011_host_lease_wants.sql"),
    ),
    (
        12,
        "failure record",
        include_str!("../migrations/sqlite/0012_failure_record.sql"),
    ),
    (
        13,
        "held by",
        include_str!("../migrations/sqlite/0013_held_by.sql"),
    ),
    (
        14,
        "directives",
        include_str!("../migrations/sqlite/0014_directives.sql"),
    ),
    (
        15,
        "feed thumbnail",
        include_str!("../migrations/sqlite/0015_feed_thumbnail.sql"),
    ),
    (
        16,
        "resources",
        include_str!("../migrations/sqlite/0016_resources.sql"),
    ),
    (
        17,
        "images",
        include_str!("../migrations/sqlite/0017_images.sql"),
    ),
    (
        18,
        "page_records",
        include_str!("../migrations/sqlite/0018_page_records.sql"),
    ),
    (
        19,
        "accounts",
        include_str!("../migrations/sqlite/0019_accounts.sql"),
    ),
    (
        20,
        "search_text",
        include_str!("../migrations/sqlite/0020_search_text.sql"),
    ),
    (
        21,
        "reading",
        include_str!("../migrations/sqlite/0021_reading.sql"),
    ),
    (
        22,
        "reading from the first entries",
        include_str!("../migrations/sqlite/0022_reading_first_entries.sql"),
    ),
    (
        23,
        "sessions",
        include_str!("../migrations/sqlite/0023_sessions.sql"),
    ),
    (
        24,
        "fever key",
        include_str!("../migrations/sqlite/0024_fever_key.sql"),
    ),
    (
        25,
        "account keys",
        include_str!("../migrations/sqlite/0025_account_keys.sql"),
    ),
    (
        26,
        "url checks",
        include_str!("../migrations/sqlite/0026_url_checks.sql"),
    ),
    (
        27,
        "search queries",
        include_str!("../migrations/sqlite/0027_search_queries.sql"),
    ),
    (
        28,
        "page jobs",
        include_str!("../migrations/sqlite/0028_page_jobs.sql"),
    ),
    (
        29,
        "catalogue",
        include_str!("../migrations/sqlite/0029_catalogue.sql"),
    ),
    (
        30,
        "search index only",
        include_str!("../migrations/sqlite/0030_search_index_only.sql"),
    ),
    (
        31,
        "websub",
        include_str!("../migrations/sqlite/0031_websub.sql"),
    ),
    (
        32,
        "requests open",
        include_str!("../migrations/sqlite/0032_requests_open.sql"),
    ),
];

const POSTGRES: &[Source] = &[
    (
        1,
        "init",
        include_str!("../migrations/postgres/0001_init.sql"),
    ),
    (
        2,
        "moves",
        include_str!("../migrations/postgres/0002_moves.sql"),
    ),
    (
        3,
        "blocks",
        include_str!("../migrations/postgres/0003_blocks.sql"),
    ),
    (
        4,
        "api keys",
        include_str!("../migrations/postgres/0004_api_keys.sql"),
    ),
    (
        5,
        "categories and expiry",
        include_str!("../migrations/postgres/0005_categories_expiry.sql"),
    ),
    (
        6,
        "egress refusals",
        include_str!("../migrations/postgres/0006_egress_refusals.sql"),
    ),
    (
        7,
        "bot keys",
        include_str!("../migrations/postgres/0007_bot_keys.sql"),
    ),
    (
        8,
        "entries first seen",
        include_str!("../migrations/postgres/0008_entries_first_seen.sql"),
    ),
    (
        9,
        "blocks version",
        include_str!("../migrations/postgres/0009_blocks_version.sql"),
    ),
    (
        10,
        "host leases",
        include_str!("../migrations/postgres/0010_host_leases.sql"),
    ),
    (
        11,
        "host lease wants",
        include_str!("../migrations/postgres/0011_host_lease_wants.sql"),
    ),
    (
        12,
        "failure record",
        include_str!("../migrations/postgres/0012_failure_record.sql"),
    ),
    (
        13,
        "held by",
        include_str!("../migrations/postgres/0013_held_by.sql"),
    ),
    (
        14,
        "directives",
        include_str!("../migrations/postgres/0014_directives.sql"),
    ),
    (
        15,
        "feed thumbnail",
        include_str!("../migrations/postgres/0015_feed_thumbnail.sql"),
    ),
    (
        16,
        "resources",
        include_str!("../migrations/postgres/0016_resources.sql"),
    ),
    (
        17,
        "images",
        include_str!("../migrations/postgres/0017_images.sql"),
    ),
    (
        18,
        "page_records",
        include_str!("../migrations/postgres/0018_page_records.sql"),
    ),
    (
        19,
        "accounts",
        include_str!("../migrations/postgres/0019_accounts.sql"),
    ),
    (
        20,
        "search_text",
        include_str!("../migrations/postgres/0020_search_text.sql"),
    ),
    (
        21,
        "reading",
        include_str!("../migrations/postgres/0021_reading.sql"),
    ),
    (
        22,
        "reading from the first entries",
        include_str!("../migrations/postgres/0022_reading_first_entries.sql"),
    ),
    (
        23,
        "sessions",
        include_str!("../migrations/postgres/0023_sessions.sql"),
    ),
    (
        24,
        "fever key",
        include_str!("../migrations/postgres/0024_fever_key.sql"),
    ),
    (
        25,
        "account keys",
        include_str!("../migrations/postgres/0025_account_keys.sql"),
    ),
    (
        26,
        "url checks",
        include_str!("../migrations/postgres/0026_url_checks.sql"),
    ),
    (
        27,
        "search queries",
        include_str!("../migrations/postgres/0027_search_queries.sql"),
    ),
    (
        28,
        "page jobs",
        include_str!("../migrations/postgres/0028_page_jobs.sql"),
    ),
    (
        29,
        "catalogue",
        include_str!("../migrations/postgres/0029_catalogue.sql"),
    ),
    (
        30,
        "search index only",
        include_str!("../migrations/postgres/0030_search_index_only.sql"),
    ),
    (
        31,
        "websub",
        include_str!("../migrations/postgres/0031_websub.sql"),
    ),
    (
        32,
        "requests open",
        include_str!("../migrations/postgres/0032_requests_open.sql"),
    ),
];

pub fn sqlite() -> Migrator {
    migrator(SQLITE)
}

pub fn postgres() -> Migrator {
    migrator(POSTGRES)
}

fn migrator(sources: &[Source]) -> Migrator {
    Migrator::with_migrations(
        sources
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}
