//! Host leases on PostgreSQL (C3): claims and give-backs as statements over many hosts, which
//! the process's writer (`group`) sends for every claim and give-back queued together.

use crate::{HostClaim, HostLease, Release, Result};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::collections::HashMap;

/// A lease as a claim returns it: host, token, expiry, the last request's end.
type LeaseRow = (String, i64, DateTime<Utc>, Option<DateTime<Utc>>);

/// Claim `hosts` for `holder` (see `Store::claim_hosts`): one answer per host, in order.
pub(super) async fn claim(
    pool: &PgPool,
    hosts: &[String],
    holder: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<HostClaim>> {
    sqlx::query(
        "INSERT INTO host_leases (host, holder, token, expires_at) \
             SELECT h, NULL, 0, '-infinity' FROM unnest($1::text[]) AS h \
             ON CONFLICT (host) DO NOTHING",
    )
    .bind(hosts)
    .execute(pool)
    .await?;
    // Rows are taken only if no other claimer holds their lock (SKIP LOCKED) and the host
    // is free, expired or already this holder's.
    let claimed: Vec<LeaseRow> = sqlx::query_as(
        "WITH free AS ( \
                 SELECT host FROM host_leases \
                 WHERE host = ANY($1) AND (holder = $2 \
                     OR ((holder IS NULL OR expires_at <= $3) \
                         AND (wanted_by IS NULL OR wanted_by = $2 OR wanted_at <= $5))) \
                 FOR UPDATE SKIP LOCKED) \
             UPDATE host_leases l SET holder = $2, token = l.token + 1, expires_at = $4, \
                 wanted_by = CASE WHEN l.wanted_by = $2 THEN NULL ELSE l.wanted_by END \
             FROM free WHERE l.host = free.host \
             RETURNING l.host, l.token, l.expires_at, l.last_end",
    )
    .bind(hosts)
    .bind(holder)
    .bind(now)
    .bind(until)
    .bind(now - chrono::Duration::from_std(crate::WANT_FRESH).unwrap_or_default())
    .fetch_all(pool)
    .await?;
    let held: HashMap<String, HostLease> = claimed
        .into_iter()
        .map(|(host, token, expires_at, last_end)| {
            (
                host,
                HostLease {
                    token,
                    expires_at,
                    last_end,
                },
            )
        })
        .collect();
    let mut claims = Vec::with_capacity(hosts.len());
    for host in hosts {
        claims.push(match held.get(host) {
            Some(lease) => HostClaim::Held(*lease),
            None => {
                // Busy: say so, first come first served, and learn until when.
                let stale = now - chrono::Duration::from_std(crate::WANT_FRESH).unwrap_or_default();
                let until: DateTime<Utc> = sqlx::query_scalar(
                    "UPDATE host_leases SET \
                             wanted_by = CASE WHEN wanted_by IS NULL OR wanted_by = $2 \
                                 OR wanted_at <= $4 THEN $2 ELSE wanted_by END, \
                             wanted_at = CASE WHEN wanted_by IS NULL OR wanted_by = $2 \
                                 OR wanted_at <= $4 THEN $3 ELSE wanted_at END \
                         WHERE host = $1 RETURNING expires_at",
                )
                .bind(host)
                .bind(holder)
                .bind(now)
                .bind(stale)
                .fetch_one(pool)
                .await?;
                // A row locked by another claimer this instant: busy until it settles.
                HostClaim::Busy {
                    until: until.max(now),
                }
            }
        });
    }
    Ok(claims)
}

/// Give `releases` back for `holder` (see `Store::release_hosts`): the hosts given back.
pub(super) async fn give_back(
    pool: &PgPool,
    holder: &str,
    releases: &[Release],
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    if releases.is_empty() {
        return Ok(Vec::new());
    }
    let hosts: Vec<&str> = releases.iter().map(|r| r.host.as_str()).collect();
    let tokens: Vec<i64> = releases.iter().map(|r| r.token).collect();
    let ends: Vec<Option<DateTime<Utc>>> = releases.iter().map(|r| r.last_end).collect();
    let given: Vec<String> = sqlx::query_scalar(
        "UPDATE host_leases l SET holder = NULL, expires_at = $4, \
                 last_end = GREATEST(l.last_end, r.last_end) \
             FROM (SELECT unnest($1::text[]) AS host, unnest($2::bigint[]) AS token, \
                          unnest($3::timestamptz[]) AS last_end) r \
             WHERE l.host = r.host AND l.holder = $5 AND l.token = r.token \
             RETURNING l.host",
    )
    .bind(&hosts)
    .bind(&tokens)
    .bind(&ends)
    .bind(now)
    .bind(holder)
    .fetch_all(pool)
    .await?;
    Ok(given)
}
