//! One fetch applied inside the caller's transaction: the feed row, the entries upserted by
//! identity, and the request log row.

use crate::codec::{self, CounterDelta, sort_time, without_nul_opt};
use crate::{ApplyReport, FetchRecord, PushRecord, Result, StoreError};
use chrono::{DateTime, Utc};
use sqlx::{Postgres, Transaction};
use std::collections::HashMap;
use tidings_model::{Entry, FailureKind, FeedId, FeedUrl};

/// The search vector of an entry (title and `codec::search_text`), from the statement's
/// parameters for them: the only place PostgreSQL is told which words an entry holds (the
/// text itself is in the entry's JSON, never stored twice).
macro_rules! search_vector {
    ($title:literal, $text:literal) => {
        concat!(
            "to_tsvector('simple', left(coalesce(",
            $title,
            ", '') || ' ' || coalesce(",
            $text,
            ", ''), 100000))"
        )
    };
}

/// Apply `fetch` in `tx`: update the feed, upsert the entries, append the log rows. A read
/// whose lease moved to another holder writes only its log rows and floor.
pub(super) async fn apply(
    tx: &mut Transaction<'static, Postgres>,
    fetch: &mut FetchRecord,
) -> Result<ApplyReport> {
    // The entries are lent to the write and given back whatever happens, so a fetch whose
    // transaction failed can be applied again.
    let mut entries = std::mem::take(&mut fetch.entries);
    let report = apply_lent(tx, fetch, &mut entries).await;
    fetch.entries = entries;
    report
}

async fn apply_lent(
    tx: &mut Transaction<'static, Postgres>,
    fetch: &FetchRecord,
    fetch_entries: &mut [Entry],
) -> Result<ApplyReport> {
    let report = if lease_moved(tx, fetch.fence.as_ref()).await? {
        ApplyReport {
            fenced_out: true,
            ..ApplyReport::default()
        }
    } else {
        write_feed(tx, fetch, fetch_entries).await?
    };
    for log in &fetch.log {
        insert_log(tx, log).await?;
    }
    if let Some((host, until)) = &fetch.host_floor {
        raise_host_floor(tx, host, fetch.fetched_at, *until).await?;
    }
    Ok(report)
}

/// Whether the host lease a read was made under (`fence`: a fetch's or a resource's) has
/// moved to another holder since (its fencing token moved). The lease row is held shared until the commit, so a claim of the
/// host (`FOR UPDATE SKIP LOCKED`) comes wholly before this write or wholly after it.
pub(super) async fn lease_moved(
    tx: &mut Transaction<'static, Postgres>,
    fence: Option<&crate::Fence>,
) -> Result<bool> {
    let Some(fence) = fence else {
        return Ok(false);
    };
    let token: Option<i64> =
        sqlx::query_scalar("SELECT token FROM host_leases WHERE host = $1 FOR SHARE")
            .bind(&fence.host)
            .fetch_optional(&mut **tx)
            .await?;
    Ok(token != Some(fence.token))
}

/// The feed's row and its entries.
async fn write_feed(
    tx: &mut Transaction<'static, Postgres>,
    fetch: &FetchRecord,
    fetch_entries: &mut [Entry],
) -> Result<ApplyReport> {
    let update = &fetch.update;
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM feeds WHERE id = $1 FOR UPDATE")
        .bind(fetch.feed_id.0)
        .fetch_optional(&mut **tx)
        .await?;
    if exists.is_none() {
        return Err(StoreError::NoSuchFeed(fetch.feed_id));
    }
    if let Some(url) = &update.url {
        ensure_host(tx, url, fetch.fetched_at).await?;
    }
    let delta = CounterDelta::of(update.last_outcome);
    sqlx::query(
        "UPDATE feeds SET \
         url = COALESCE($2, url), host = COALESCE($3, host), \
         etag = CASE WHEN $4 THEN $5 ELSE etag END, \
         last_modified = CASE WHEN $4 THEN $6 ELSE last_modified END, \
         content_hash = COALESCE($7, content_hash), \
         title = CASE WHEN $8 THEN COALESCE($9, title) ELSE title END, \
         site_link = CASE WHEN $8 THEN COALESCE($10, site_link) ELSE site_link END, \
         state = CASE WHEN state = 'removed' THEN state ELSE $11 END, \
         state_reason = CASE WHEN state = 'removed' THEN state_reason ELSE $12 END, \
         next_fetch_at = $13, \
         next_fetch_reason = CASE WHEN state = 'removed' THEN next_fetch_reason ELSE $14 END, \
         interval_secs = $15, consecutive_failures = $16, \
         last_status = CASE WHEN $25 THEN last_status ELSE $17 END, \
         last_outcome = CASE WHEN $25 THEN last_outcome ELSE $18 END, \
         last_error = CASE WHEN $25 THEN last_error ELSE $19 END, \
         last_fetch_at = CASE WHEN $25 THEN last_fetch_at ELSE $20 END, \
         fetches = fetches + $24, ok = ok + $21, not_modified = not_modified + $22, \
         errors = errors + $23, moved_to = $26, moved_since = $27, \
         expires = CASE WHEN $8 THEN $28 ELSE expires END, \
         egress_refusals = COALESCE($29, egress_refusals), \
         last_failure = $30, failure_totals = $31, \
         held_by = CASE WHEN state = 'removed' THEN held_by ELSE $32 END, \
         directives = CASE WHEN $33 THEN $34 ELSE directives END, \
         noindex = CASE WHEN $33 THEN $35 ELSE noindex END, \
         thumbnail = CASE WHEN $8 THEN $36 ELSE thumbnail END \
         WHERE id = $1",
    )
    .bind(fetch.feed_id.0)
    .bind(update.url.as_ref().map(FeedUrl::as_str))
    .bind(
        update
            .url
            .as_ref()
            .map(|u| u.host_key().as_str().to_owned()),
    )
    .bind(update.validators.is_some())
    .bind(update.validators.as_ref().and_then(|v| v.etag.as_deref()))
    .bind(
        update
            .validators
            .as_ref()
            .and_then(|v| v.last_modified.as_deref()),
    )
    .bind(update.content_hash.as_deref())
    .bind(update.meta.is_some())
    .bind(without_nul_opt(
        update.meta.as_ref().and_then(|m| m.title.as_deref()),
    ))
    .bind(without_nul_opt(
        update.meta.as_ref().and_then(|m| m.site_link.as_deref()),
    ))
    .bind(update.state.as_str())
    .bind(without_nul_opt(update.state_reason.as_deref()))
    .bind(update.next_fetch_at)
    .bind(&update.next_fetch_reason)
    .bind(update.interval_secs)
    .bind(update.consecutive_failures)
    .bind(update.last_status)
    .bind(update.last_outcome.as_str())
    .bind(without_nul_opt(update.last_error.as_deref()))
    .bind(fetch.fetched_at)
    .bind(delta.ok)
    .bind(delta.not_modified)
    .bind(delta.errors)
    .bind(delta.fetches)
    // A postponed read sent nothing, a paused crawler learnt nothing: the last read stays.
    .bind(update.last_outcome.keeps_last_read())
    .bind(update.pending_move.as_ref().map(|(to, _)| to.as_str()))
    .bind(update.pending_move.as_ref().map(|(_, since)| *since))
    .bind(update.meta.as_ref().and_then(|m| m.expires))
    .bind(
        update
            .egress_refusals
            .as_ref()
            .map(codec::encode_egress_refusals)
            .transpose()?
            .flatten(),
    )
    .bind(update.last_failure.map(FailureKind::as_str))
    .bind(codec::encode_failure_totals(&update.failure_totals)?)
    .bind(update.held_by.as_deref())
    .bind(update.directives.is_some())
    .bind(
        update
            .directives
            .as_ref()
            .and_then(|c| codec::encode_directives(&c.current)),
    )
    .bind(update.directives.is_some_and(|c| c.current.noindex))
    .bind(
        update
            .meta
            .as_ref()
            .and_then(|m| m.thumbnail.as_ref())
            .map(codec::encode_thumbnail)
            .transpose()?,
    )
    .execute(&mut **tx)
    .await?;
    // FF14: each change of the feed's directives, with what brought it.
    if let Some(change) = &update.directives {
        sqlx::query(
            "INSERT INTO feed_directives (feed_id, at, seen, current, full_response) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(fetch.feed_id.0)
        .bind(fetch.fetched_at)
        .bind(change.seen.to_words())
        .bind(change.current.to_words())
        .bind(change.full)
        .execute(&mut **tx)
        .await?;
    }

    write_entries(tx, fetch.feed_id, fetch.fetched_at, fetch_entries).await
}

/// Entries pushed by a WebSub hub: written as a read's would be, counted on the feed's
/// subscription, in their own transaction; the feed's row is only locked.
pub(super) async fn apply_push(
    tx: &mut Transaction<'static, Postgres>,
    push: &mut PushRecord,
) -> Result<ApplyReport> {
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM feeds WHERE id = $1 FOR UPDATE")
        .bind(push.feed_id.0)
        .fetch_optional(&mut **tx)
        .await?;
    if exists.is_none() {
        return Err(StoreError::NoSuchFeed(push.feed_id));
    }
    let report = write_entries(tx, push.feed_id, push.received_at, &mut push.entries).await?;
    sqlx::query(crate::websub::pg::COUNT_PUSH)
        .bind(push.feed_id.0)
        .bind(push.received_at)
        .execute(&mut **tx)
        .await?;
    Ok(report)
}

/// The entries of one read or push of `feed_id`, seen at `at`: new ones inserted, changed ones
/// updated, counted unread.
async fn write_entries(
    tx: &mut Transaction<'static, Postgres>,
    feed_id: FeedId,
    at: DateTime<Utc>,
    fetch_entries: &mut [Entry],
) -> Result<ApplyReport> {
    let mut report = ApplyReport::default();
    let mut known = known_entries(tx, feed_id, fetch_entries).await?;
    // New entries go in one statement; one named twice in the read is known by its second
    // time (the first is written then), as if each were written in turn.
    let mut new = NewEntries::default();
    for entry in fetch_entries.iter_mut() {
        let key = codec::entry_key(&entry.identity).into_owned();
        if new.keys.contains(&key) {
            new.insert(tx, feed_id, at, &mut known, &mut report).await?;
        }
        if known.contains_key(&key) {
            update_entry(tx, at, entry, &mut known, &mut report).await?;
        } else {
            new.push(key, entry, at)?;
        }
    }
    new.insert(tx, feed_id, at, &mut known, &mut report).await?;
    if report.new_entries > 0 {
        super::reading::count_new(tx, feed_id.0, report.new_entries, at).await?;
    }
    Ok(report)
}

/// C6: `host`'s Retry-After floor becomes `until` unless it is later already (`at` makes the
/// host's row when it has none).
pub(super) async fn raise_host_floor(
    tx: &mut Transaction<'static, Postgres>,
    host: &str,
    at: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(crate::feeds::pg::RAISE_HOST_FLOOR)
        .bind(host)
        .bind(at)
        .bind(until)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Append one request-log row (C7), closing the write-ahead row it names in the same
/// statement.
pub(super) async fn insert_log(
    tx: &mut Transaction<'static, Postgres>,
    log: &crate::RequestLogRow,
) -> Result<()> {
    sqlx::query(
        "WITH closed AS (DELETE FROM requests_open WHERE id = $12) \
         INSERT INTO request_log (at, feed_id, host, purpose, url, egress, status, outcome, \
         bytes, duration_ms, rule) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(log.at)
    .bind(log.feed_id.map(|f| f.0))
    .bind(&log.host)
    .bind(&log.purpose)
    .bind(&log.url)
    .bind(log.egress.as_deref())
    .bind(log.status)
    .bind(log.outcome.as_str())
    .bind(log.bytes)
    .bind(log.duration_ms)
    .bind(&log.rule)
    .bind(log.ticket.map(|t| t.0))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Write requests' write-ahead rows (C7) in one statement and one commit: each row's ticket,
/// in the order of `rows`. The ids are drawn from the table's sequence with their rows' places,
/// so each caller gets its own whatever order the rows are written in.
pub(super) async fn open_requests(
    pool: &sqlx::PgPool,
    rows: &[&crate::RequestLogRow],
) -> Result<Vec<tidings_model::RequestTicket>> {
    let column = |f: fn(&crate::RequestLogRow) -> Option<String>| -> Vec<Option<String>> {
        rows.iter().map(|r| f(r)).collect()
    };
    let at: Vec<DateTime<Utc>> = rows.iter().map(|r| r.at).collect();
    let feed: Vec<Option<i64>> = rows.iter().map(|r| r.feed_id.map(|f| f.0)).collect();
    let placed: Vec<(i64, i64)> = sqlx::query_as(
        "WITH given AS (SELECT nextval(pg_get_serial_sequence('requests_open', 'id')) AS id, \
             r.* FROM unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[], \
             $5::text[], $6::text[], $7::text[]) WITH ORDINALITY \
             AS r(at, feed_id, host, purpose, url, egress, rule, place)), \
         written AS (INSERT INTO requests_open (id, at, feed_id, host, purpose, url, egress, \
             rule) SELECT id, at, feed_id, host, purpose, url, egress, rule FROM given) \
         SELECT id, place FROM given",
    )
    .bind(&at)
    .bind(&feed)
    .bind(column(|r| Some(r.host.clone())))
    .bind(column(|r| Some(r.purpose.clone())))
    .bind(column(|r| Some(r.url.clone())))
    .bind(column(|r| r.egress.clone()))
    .bind(column(|r| Some(r.rule.clone())))
    .fetch_all(pool)
    .await?;
    let mut tickets = vec![None; rows.len()];
    for (id, place) in placed {
        let slot = usize::try_from(place - 1)
            .ok()
            .and_then(|i| tickets.get_mut(i))
            .ok_or_else(|| StoreError::Corrupt(format!("write-ahead row placed at {place}")))?;
        *slot = Some(tidings_model::RequestTicket(id));
    }
    tickets
        .into_iter()
        .map(|t| t.ok_or_else(|| StoreError::Corrupt("a write-ahead row not written".into())))
        .collect()
}

/// Make sure a host row exists for `url`'s host.
pub(super) async fn ensure_host(
    tx: &mut Transaction<'static, Postgres>,
    url: &FeedUrl,
    now: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(crate::feeds::pg::ENSURE_HOST)
        .bind(url.host_key().as_str())
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// What is already stored of an entry, to tell new, changed and unchanged entries apart.
struct Known {
    id: i64,
    content_hash: String,
    first_seen_at: DateTime<Utc>,
}

/// The stored entries of the feed among those of `fetch`, by identity (as stored: see
/// [`without_nul`]), in one query.
async fn known_entries(
    tx: &mut Transaction<'static, Postgres>,
    feed_id: FeedId,
    entries: &[Entry],
) -> Result<HashMap<String, Known>> {
    if entries.is_empty() {
        return Ok(HashMap::new());
    }
    let keys: Vec<String> = entries
        .iter()
        .map(|e| codec::entry_key(&e.identity).into_owned())
        .collect();
    let rows: Vec<(String, i64, String, DateTime<Utc>)> = sqlx::query_as(
        "SELECT entry_key, id, content_hash, first_seen_at FROM entries \
         WHERE feed_id = $1 AND entry_key = ANY($2)",
    )
    .bind(feed_id.0)
    .bind(keys)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(key, id, content_hash, first_seen_at)| {
            let known = Known {
                id,
                content_hash,
                first_seen_at,
            };
            (key, known)
        })
        .collect())
}

/// New entries of one read, as columns, written together.
#[derive(Default)]
struct NewEntries {
    keys: Vec<String>,
    guid: Vec<Option<String>>,
    title: Vec<Option<String>>,
    link: Vec<Option<String>>,
    summary: Vec<Option<String>>,
    published: Vec<Option<DateTime<Utc>>>,
    updated: Vec<Option<DateTime<Utc>>>,
    expires: Vec<Option<DateTime<Utc>>>,
    sort_at: Vec<DateTime<Utc>>,
    hash: Vec<String>,
    data: Vec<String>,
    categories: Vec<Option<String>>,
    search_text: Vec<Option<String>>,
}

impl NewEntries {
    /// Queue `entry` (stored under `key`), first seen at `at`. The exact entry is in `data`
    /// (its summary in the column when NUL-free, see `encode_entry`); the key is bounded and
    /// free of NUL.
    fn push(&mut self, key: String, entry: &mut Entry, at: DateTime<Utc>) -> Result<()> {
        let encoded = codec::encode_entry(entry)?;
        let owned = |s: Option<&str>| without_nul_opt(s).map(std::borrow::Cow::into_owned);
        self.keys.push(key);
        self.guid.push(owned(entry.id.as_deref()));
        self.title.push(owned(entry.title.as_deref()));
        self.link.push(owned(entry.link.as_deref()));
        self.summary.push(owned(entry.summary.as_deref()));
        self.published.push(entry.published);
        self.updated.push(entry.updated);
        self.expires.push(entry.expires);
        self.sort_at.push(sort_time(entry, at));
        self.hash.push(encoded.content_hash);
        self.data.push(encoded.data);
        self.categories
            .push(codec::category_column(&entry.categories));
        self.search_text.push(encoded.search_text);
        Ok(())
    }

    /// Write the queued entries in one statement, make them known and count them.
    async fn insert(
        &mut self,
        tx: &mut Transaction<'static, Postgres>,
        feed_id: FeedId,
        at: DateTime<Utc>,
        known: &mut HashMap<String, Known>,
        report: &mut ApplyReport,
    ) -> Result<()> {
        if self.keys.is_empty() {
            return Ok(());
        }
        let written = std::mem::take(self);
        let ids: Vec<(i64, String)> = sqlx::query_as(concat!(
            "INSERT INTO entries (feed_id, entry_key, guid, title, link, summary, published, \
             updated, expires, sort_at, first_seen_at, updated_at, content_hash, data, \
             categories, search) \
             SELECT $1, u.key, u.guid, u.title, u.link, u.summary, u.published, u.updated, \
             u.expires, u.sort_at, $2, $2, u.hash, u.data, u.categories, ",
            search_vector!("u.title", "u.search_text"),
            " FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], \
             $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], \
             $12::text[], $13::text[], $14::text[], $15::text[]) WITH ORDINALITY \
             AS u(key, guid, title, link, summary, published, updated, expires, sort_at, hash, \
             data, categories, search_text, n) ORDER BY u.n \
             RETURNING id, entry_key"
        ))
        .bind(feed_id.0)
        .bind(at)
        .bind(&written.keys)
        .bind(&written.guid)
        .bind(&written.title)
        .bind(&written.link)
        .bind(&written.summary)
        .bind(&written.published)
        .bind(&written.updated)
        .bind(&written.expires)
        .bind(&written.sort_at)
        .bind(&written.hash)
        .bind(&written.data)
        .bind(&written.categories)
        .bind(&written.search_text)
        .fetch_all(&mut **tx)
        .await?;
        let hashes: HashMap<&str, &String> = written
            .keys
            .iter()
            .map(String::as_str)
            .zip(&written.hash)
            .collect();
        for (id, key) in ids {
            let content_hash = hashes
                .get(key.as_str())
                .map(|h| (*h).clone())
                .unwrap_or_default();
            known.insert(
                key,
                Known {
                    id,
                    content_hash,
                    first_seen_at: at,
                },
            );
            report.new_entries += 1;
        }
        Ok(())
    }
}

/// Update one known entry when it changed (seen at `at`), counting what happened in `report`.
async fn update_entry(
    tx: &mut Transaction<'static, Postgres>,
    at: DateTime<Utc>,
    entry: &mut Entry,
    known: &mut HashMap<String, Known>,
    report: &mut ApplyReport,
) -> Result<()> {
    let encoded = codec::encode_entry(entry)?;
    let entry = &*entry;
    // The exact entry is in `data` (its summary in the column when NUL-free, see
    // `encode_entry`); the key is bounded and free of NUL.
    let key = codec::entry_key(&entry.identity);
    match known.get_mut(key.as_ref()) {
        Some(stored) if stored.content_hash != encoded.content_hash => {
            sqlx::query(concat!(
                "UPDATE entries SET guid = $2, title = $3, link = $4, summary = $5, published = $6, \
                 updated = $7, expires = $8, sort_at = $9, updated_at = $10, content_hash = $11, \
                 data = $12, categories = $13, search = ",
                search_vector!("$3", "$14"),
                " WHERE id = $1"
            ))
            .bind(stored.id)
            .bind(without_nul_opt(entry.id.as_deref()))
            .bind(without_nul_opt(entry.title.as_deref()))
            .bind(without_nul_opt(entry.link.as_deref()))
            .bind(without_nul_opt(entry.summary.as_deref()))
            .bind(entry.published)
            .bind(entry.updated)
            .bind(entry.expires)
            .bind(sort_time(entry, stored.first_seen_at))
            .bind(at)
            .bind(&encoded.content_hash)
            .bind(&encoded.data)
            .bind(codec::category_column(&entry.categories))
            .bind(encoded.search_text.as_deref())
            .execute(&mut **tx)
            .await?;
            stored.content_hash = encoded.content_hash;
            report.updated_entries += 1;
        }
        Some(_) => report.unchanged_entries += 1,
        // New entries are written together (`NewEntries`), never here.
        None => {}
    }
    Ok(())
}
