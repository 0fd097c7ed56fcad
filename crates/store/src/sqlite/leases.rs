//! Host leases written inside the caller's transaction: claims and give-backs.
//!
//! They are queued with the fetches (see `group`) and written in the same transactions, so a
//! lane's claim, its fetches and its give-back cost no write transaction of their own.

use super::apply;
use crate::codec::{self, micros};
use crate::{HostClaim, HostLease, Release, Result};
use chrono::{DateTime, Utc};
use sqlx::SqliteConnection;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// A claim of `hosts` for `holder`, until `until`.
#[derive(Debug)]
pub(super) struct Claim {
    pub hosts: Vec<String>,
    pub holder: String,
    pub now: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// `holder`'s leases given back at `now`.
#[derive(Debug)]
pub(super) struct GiveBack {
    pub holder: String,
    pub releases: Vec<Release>,
    pub now: DateTime<Utc>,
}

/// One host of a claim: who wants it until when.
#[derive(Debug, Clone, Copy)]
pub(super) struct ClaimRow<'a> {
    pub host: &'a str,
    pub holder: &'a str,
    pub until: DateTime<Utc>,
}

/// One lease given back: the release, by whom, when.
#[derive(Debug, Clone, Copy)]
pub(super) struct GiveBackRow<'a> {
    pub release: &'a Release,
    pub holder: &'a str,
    pub now: DateTime<Utc>,
}

impl Claim {
    pub(super) fn rows(&self) -> impl Iterator<Item = ClaimRow<'_>> {
        self.hosts.iter().map(|host| ClaimRow {
            host,
            holder: &self.holder,
            until: self.until,
        })
    }
}

impl GiveBack {
    pub(super) fn rows(&self) -> impl Iterator<Item = GiveBackRow<'_>> {
        self.releases.iter().map(|release| GiveBackRow {
            release,
            holder: &self.holder,
            now: self.now,
        })
    }
}

/// Claim each host of `rows` that is free, expired or its claimant's own, as of `now`; a
/// busy host is marked wanted by its claimant (first come first served) and answered with
/// its holder's expiry. The answers are in the order of `rows`, whose hosts are distinct.
pub(super) async fn claim(
    conn: &mut SqliteConnection,
    rows: &[ClaimRow<'_>],
    now: DateTime<Utc>,
) -> Result<Vec<HostClaim>> {
    let stale = now - chrono::Duration::from_std(crate::WANT_FRESH).unwrap_or_default();
    let mut held: HashMap<String, HostLease> = HashMap::with_capacity(rows.len());
    for (chunk, size) in apply::chunks(rows) {
        let mut query =
            sqlx::query_as::<_, (String, i64, i64, Option<i64>)>(apply::sql_for(&CLAIM_SQL, size));
        for row in chunk {
            query = query
                .bind(row.host)
                .bind(row.holder)
                .bind(micros(row.until));
        }
        let claimed = query
            .bind(micros(now))
            .bind(micros(stale))
            .fetch_all(&mut *conn)
            .await?;
        for (host, token, expires_at, last_end) in claimed {
            let lease = HostLease {
                token,
                expires_at: codec::from_micros(expires_at)?,
                last_end: last_end.map(codec::from_micros).transpose()?,
            };
            held.insert(host, lease);
        }
    }
    let mut claims = Vec::with_capacity(rows.len());
    for row in rows {
        claims.push(match held.get(row.host) {
            Some(lease) => HostClaim::Held(*lease),
            None => {
                let until: i64 = sqlx::query_scalar(
                    "UPDATE host_leases SET \
                         wanted_by = CASE WHEN wanted_by IS NULL OR wanted_by = ?2 \
                             OR wanted_at <= ?4 THEN ?2 ELSE wanted_by END, \
                         wanted_at = CASE WHEN wanted_by IS NULL OR wanted_by = ?2 \
                             OR wanted_at <= ?4 THEN ?3 ELSE wanted_at END \
                     WHERE host = ?1 RETURNING expires_at",
                )
                .bind(row.host)
                .bind(row.holder)
                .bind(micros(now))
                .bind(micros(stale))
                .fetch_one(&mut *conn)
                .await?;
                HostClaim::Busy {
                    until: codec::from_micros(until)?.max(now),
                }
            }
        });
    }
    Ok(claims)
}

/// The claim of one chunk of hosts: three values per host, then `now` and the time before
/// which a want is stale.
static CLAIM_SQL: LazyLock<Vec<String>> = LazyLock::new(|| {
    apply::multi_row_sql(
        "INSERT INTO host_leases (host, holder, token, expires_at, last_end) VALUES ",
        3,
    )
    .into_iter()
    .map(|values| {
        format!(
            "{} ON CONFLICT (host) DO UPDATE SET holder = excluded.holder, \
                 token = host_leases.token + 1, expires_at = excluded.expires_at, \
                 wanted_by = CASE WHEN host_leases.wanted_by = excluded.holder \
                     THEN NULL ELSE host_leases.wanted_by END \
             WHERE host_leases.holder = excluded.holder \
                 OR ((host_leases.holder IS NULL OR host_leases.expires_at <= ?) \
                     AND (host_leases.wanted_by IS NULL \
                          OR host_leases.wanted_by = excluded.holder \
                          OR host_leases.wanted_at <= ?)) \
             RETURNING host, token, expires_at, last_end",
            // Each row is (host, holder, until): token 1 and no last end for a new host.
            values.replace("(?, ?, ?)", "(?, ?, 1, ?, NULL)")
        )
    })
    .collect()
});

/// End each lease of `rows` still its holder's (a later end already recorded is kept);
/// whether each ended, in the order of `rows`.
pub(super) async fn give_back(
    conn: &mut SqliteConnection,
    rows: &[GiveBackRow<'_>],
) -> Result<Vec<bool>> {
    let mut ended: HashSet<(String, i64)> = HashSet::new();
    for round in apply::rounds_by(rows, |r| r.release.host.as_str()) {
        for (chunk, size) in apply::chunks(&round) {
            let mut query =
                sqlx::query_as::<_, (String, i64)>(apply::sql_for(&GIVE_BACK_SQL, size));
            for row in chunk {
                query = query
                    .bind(row.release.host.as_str())
                    .bind(row.holder)
                    .bind(row.release.token)
                    .bind(micros(row.now))
                    .bind(row.release.last_end.map(micros));
            }
            ended.extend(query.fetch_all(&mut *conn).await?);
        }
    }
    Ok(rows
        .iter()
        .map(|r| ended.contains(&(r.release.host.clone(), r.release.token)))
        .collect())
}

/// The give-back of one chunk of leases, five values per lease: host, holder, token, now and
/// the end of the holder's last request there.
static GIVE_BACK_SQL: LazyLock<Vec<String>> = LazyLock::new(|| {
    apply::multi_row_sql("WITH v (h, who, tok, at, ended) AS (VALUES ", 5)
        .into_iter()
        .map(|values| {
            format!(
                "{values}) UPDATE host_leases SET holder = NULL, expires_at = v.at, \
                     last_end = MAX(COALESCE(last_end, v.ended), COALESCE(v.ended, last_end)) \
                 FROM v WHERE host_leases.host = v.h AND host_leases.holder = v.who \
                     AND host_leases.token = v.tok \
                 RETURNING host, token"
            )
        })
        .collect()
});
