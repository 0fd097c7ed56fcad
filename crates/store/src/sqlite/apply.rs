//! Fetches applied inside the caller's transaction: the feed rows, the entries upserted by
//! identity, and the request log rows.
//!
//! A batch is one or more fetches written in one transaction (see `group`). Work is done in
//! as few statements as possible, since each statement is a round trip to SQLite's worker
//! thread: one query for which feeds exist, one feed `UPDATE` per fetch, one query for the
//! entries already stored, multi-row `INSERT`s for new entries and log rows (in chunks of a
//! few fixed sizes, so their prepared statements stay cached), and one `UPDATE` per changed
//! entry. The batch is applied in order, exactly as if each fetch had its own transaction one
//! after another: an entry a fetch stores is known to a later fetch of the same feed.

use crate::codec::{self, CounterDelta, micros};
use crate::{
    ApplyReport, FeedUpdate, Fence, FetchRecord, PushRecord, RequestLogRow, Result, StoreError,
};
use chrono::{DateTime, Utc};
use sqlx::{Sqlite, Transaction};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock};
use tidings_model::{FailureKind, FeedId, FeedUrl, RequestTicket};

/// One fetch made ready for writing: owned, with every entry serialised and hashed, so the
/// writer does nothing but SQL.
#[derive(Debug)]
pub(super) struct Prepared {
    feed_id: FeedId,
    fetched_at: i64,
    /// The feed's row after the read; `None` for pushed content ([`PushRecord`]), which adds
    /// entries and leaves the feed's state as it is.
    update: Option<FeedUpdate>,
    entries: Vec<EntryRow>,
    log: Vec<RequestLogRow>,
    host_floor: Option<(String, i64)>,
    fence: Option<Fence>,
}

/// The columns of one entry, ready to bind.
#[derive(Debug, Clone)]
struct EntryRow {
    key: String,
    guid: Option<String>,
    title: Option<String>,
    link: Option<String>,
    /// Shared with the statement that binds it: sqlx copies a borrowed `&str` but not an
    /// `Arc<str>` (C8: the largest texts of an entry are held once on the Rust side).
    summary: Option<Arc<str>>,
    published: Option<i64>,
    updated: Option<i64>,
    expires: Option<i64>,
    /// See [`codec::category_column`].
    categories: Option<String>,
    content_hash: String,
    /// The JSON as kept ([`codec::pack_entry`]); shared like `summary`.
    data: Arc<[u8]>,
    /// See [`codec::search_text`].
    search_text: Option<String>,
}

impl EntryRow {
    /// The listing time of this entry first seen at `first_seen` (see [`codec::sort_time`]).
    fn sort_at(&self, first_seen: i64) -> i64 {
        self.published
            .or(self.updated)
            .map_or(first_seen, |t| t.min(first_seen))
    }
}

impl Prepared {
    /// Serialise and hash the entries of `fetch`, moving everything else (C8: each entry's
    /// text is held once as a column and once in its JSON, never a third time; the parsed
    /// entry is dropped as soon as its row is made).
    pub(super) fn of(fetch: FetchRecord) -> Result<Prepared> {
        Ok(Prepared {
            feed_id: fetch.feed_id,
            fetched_at: micros(fetch.fetched_at),
            update: Some(fetch.update),
            entries: entry_rows(fetch.entries)?,
            log: fetch.log,
            host_floor: fetch.host_floor.map(|(host, until)| (host, micros(until))),
            fence: fetch.fence,
        })
    }

    /// Pushed content: its entries only, counted on the feed's subscription.
    pub(super) fn of_push(push: PushRecord) -> Result<Prepared> {
        Ok(Prepared {
            feed_id: push.feed_id,
            fetched_at: micros(push.received_at),
            update: None,
            entries: entry_rows(push.entries)?,
            log: Vec::new(),
            host_floor: None,
            fence: None,
        })
    }
}

/// Serialise and hash `entries`, one row each.
fn entry_rows(entries: Vec<tidings_model::Entry>) -> Result<Vec<EntryRow>> {
    entries
        .into_iter()
        .map(|mut entry| {
            let encoded = codec::encode_entry(&mut entry)?;
            let data = Arc::from(codec::pack_entry(encoded.data));
            Ok(EntryRow {
                key: codec::entry_key(&entry.identity).into_owned(),
                categories: codec::category_column(&entry.categories),
                published: entry.published.map(micros),
                updated: entry.updated.map(micros),
                expires: entry.expires.map(micros),
                guid: entry.id,
                title: entry.title,
                link: entry.link,
                summary: entry.summary.map(Arc::from),
                content_hash: encoded.content_hash,
                data,
                search_text: encoded.search_text,
            })
        })
        .collect()
}

/// Apply `batch` in `tx`, in order. The inner result is one fetch's own: a fetch of a feed
/// that does not exist is [`StoreError::NoSuchFeed`] and writes nothing; a fetch whose host
/// lease moved to another holder writes only its log rows and floor
/// ([`ApplyReport::fenced_out`]); the others are applied. The outer error means the
/// transaction is unusable and must be rolled back.
pub(super) async fn apply_batch(
    tx: &mut Transaction<'static, Sqlite>,
    batch: &[&Prepared],
) -> Result<Vec<Result<ApplyReport>>> {
    let existing = existing_feeds(tx, batch).await?;
    let fences: Vec<&Fence> = batch.iter().filter_map(|p| p.fence.as_ref()).collect();
    let tokens = lease_tokens(tx, &fences).await?;
    let moved = |p: &Prepared| {
        p.fence
            .as_ref()
            .is_some_and(|f| tokens.get(&f.host) != Some(&f.token))
    };
    let live: Vec<&Prepared> = batch
        .iter()
        .copied()
        .filter(|p| existing.contains(&p.feed_id.0) && !moved(p))
        .collect();
    // What was sent is logged whoever holds the host now (C7).
    let logged: Vec<&Prepared> = batch
        .iter()
        .copied()
        .filter(|p| existing.contains(&p.feed_id.0))
        .collect();

    for fetch in &live {
        if let Some(url) = fetch.update.as_ref().and_then(|u| u.url.as_ref()) {
            ensure_host(tx, url, fetch.fetched_at).await?;
        }
    }
    update_feeds(tx, &live).await?;
    count_pushes(tx, &live).await?;
    insert_directive_changes(tx, &live).await?;

    let mut known = known_entries(tx, &live).await?;
    let mut writes = EntryWrites::default();
    let mut reports = HashMap::with_capacity(live.len());
    for (i, fetch) in live.iter().enumerate() {
        let mut report = ApplyReport::default();
        for entry in &fetch.entries {
            writes.upsert(fetch, entry, &mut known, &mut report);
        }
        reports.insert(i, report);
    }
    insert_entries(tx, writes.inserts).await?;
    for (i, fetch) in live.iter().enumerate() {
        let new = reports.get(&i).map_or(0, |r| r.new_entries);
        if new > 0 {
            super::reading::count_new(tx, fetch.feed_id.0, new, fetch.fetched_at).await?;
        }
    }
    for (id, row) in writes.updates {
        update_entry(tx, id, row).await?;
    }

    let logs: Vec<&RequestLogRow> = logged.iter().flat_map(|f| &f.log).collect();
    insert_logs(tx, &logs).await?;
    for fetch in &logged {
        if let Some((host, until)) = &fetch.host_floor {
            raise_host_floor(tx, host, fetch.fetched_at, *until).await?;
        }
    }

    let mut next = 0;
    Ok(batch
        .iter()
        .map(|p| {
            if !existing.contains(&p.feed_id.0) {
                Err(StoreError::NoSuchFeed(p.feed_id))
            } else if moved(p) {
                Ok(ApplyReport {
                    fenced_out: true,
                    ..ApplyReport::default()
                })
            } else {
                let report = reports.remove(&next).unwrap_or_default();
                next += 1;
                Ok(report)
            }
        })
        .collect())
}

/// The current fencing tokens of the leases reads were made under (`fences`: a batch's
/// fetches, or one resource read), in one query.
pub(super) async fn lease_tokens(
    tx: &mut Transaction<'static, Sqlite>,
    fences: &[&Fence],
) -> Result<HashMap<String, i64>> {
    let hosts: Vec<&str> = fences.iter().map(|f| f.host.as_str()).collect();
    if hosts.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT host, token FROM host_leases WHERE host IN (SELECT value FROM json_each(?1))",
    )
    .bind(json(&hosts)?)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows.into_iter().collect())
}

/// The ids among the batch's feeds that exist, in one query.
async fn existing_feeds(
    tx: &mut Transaction<'static, Sqlite>,
    batch: &[&Prepared],
) -> Result<HashSet<i64>> {
    let ids: Vec<i64> = batch.iter().map(|p| p.feed_id.0).collect();
    let ids = json(&ids)?;
    let found: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM feeds WHERE id IN (SELECT value FROM json_each(?1))")
            .bind(ids)
            .fetch_all(&mut **tx)
            .await?;
    Ok(found.into_iter().collect())
}

pub(super) fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Corrupt(format!("batch keys cannot be serialised: {e}")))
}

/// What one fetch sets in its feed's row; `?1` is the feed, `?2`… the values bound by
/// [`bind_update`]. Written for one row and made multi-row by [`FEED_UPDATE_SQL`].
const FEED_SET: &str = "url = COALESCE(?2, url), host = COALESCE(?3, host), \
     etag = CASE WHEN ?4 THEN ?5 ELSE etag END, \
     last_modified = CASE WHEN ?4 THEN ?6 ELSE last_modified END, \
     content_hash = COALESCE(?7, content_hash), \
     title = CASE WHEN ?8 THEN COALESCE(?9, title) ELSE title END, \
     site_link = CASE WHEN ?8 THEN COALESCE(?10, site_link) ELSE site_link END, \
     state = CASE WHEN state = 'removed' THEN state ELSE ?11 END, \
     state_reason = CASE WHEN state = 'removed' THEN state_reason ELSE ?12 END, \
     next_fetch_at = ?13, \
     next_fetch_reason = CASE WHEN state = 'removed' THEN next_fetch_reason ELSE ?14 END, \
     interval_secs = ?15, consecutive_failures = ?16, \
     last_status = CASE WHEN ?25 THEN last_status ELSE ?17 END, \
     last_outcome = CASE WHEN ?25 THEN last_outcome ELSE ?18 END, \
     last_error = CASE WHEN ?25 THEN last_error ELSE ?19 END, \
     last_fetch_at = CASE WHEN ?25 THEN last_fetch_at ELSE ?20 END, \
     fetches = fetches + ?24, ok = ok + ?21, not_modified = not_modified + ?22, \
     errors = errors + ?23, moved_to = ?26, moved_since = ?27, \
     expires = CASE WHEN ?8 THEN ?28 ELSE expires END, \
     egress_refusals = COALESCE(?29, egress_refusals), \
     last_failure = ?30, failure_totals = ?31, \
     held_by = CASE WHEN state = 'removed' THEN held_by ELSE ?32 END, \
     directives = CASE WHEN ?33 THEN ?34 ELSE directives END, \
     noindex = CASE WHEN ?33 THEN ?35 ELSE noindex END, \
     thumbnail = CASE WHEN ?8 THEN ?36 ELSE thumbnail END";
/// The values of [`FEED_SET`], the feed's id first.
const FEED_PARAMS: usize = 36;

/// `UPDATE feeds … FROM (VALUES …)` for each of [`CHUNK_SIZES`] rows: the parameters of
/// [`FEED_SET`] become the columns `v.p1`… of one row per fetch, matched on `v.p1 = feeds.id`.
static FEED_UPDATE_SQL: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut set = FEED_SET.to_owned();
    // Longest numbers first, so `?3` does not match the start of `?32`.
    for n in (1..=FEED_PARAMS).rev() {
        set = set.replace(&format!("?{n}"), &format!("v.p{n}"));
    }
    let columns: Vec<String> = (1..=FEED_PARAMS).map(|n| format!("p{n}")).collect();
    let prefix = format!("WITH v ({}) AS (VALUES ", columns.join(", "));
    let suffix = format!(") UPDATE feeds SET {set} FROM v WHERE feeds.id = v.p1");
    multi_row_sql(&prefix, FEED_PARAMS)
        .into_iter()
        .map(|sql| format!("{sql}{suffix}"))
        .collect()
});

/// The feed rows after the batch's fetches, a few statements for them all. A feed fetched
/// twice in one batch is updated in rounds (its first fetch in the first, and so on), since
/// one statement may not update a row twice, so its row ends as after its last fetch.
async fn update_feeds(tx: &mut Transaction<'static, Sqlite>, live: &[&Prepared]) -> Result<()> {
    let reads: Vec<(FeedId, i64, &FeedUpdate)> = live
        .iter()
        .filter_map(|p| p.update.as_ref().map(|u| (p.feed_id, p.fetched_at, u)))
        .collect();
    for round in &rounds_by(&reads, |(feed, ..)| feed.0) {
        for (chunk, size) in chunks(round) {
            let mut query = sqlx::query(sql_for(&FEED_UPDATE_SQL, size));
            for (feed, at, update) in chunk {
                query = bind_update(query, *feed, *at, update)?;
            }
            query.execute(&mut **tx).await?;
        }
    }
    Ok(())
}

/// Bind the values of [`FEED_SET`] for `fetch`, in order.
fn bind_update<'q>(
    query: sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments>,
    feed: FeedId,
    fetched_at: i64,
    update: &'q FeedUpdate,
) -> Result<sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments>> {
    let delta = CounterDelta::of(update.last_outcome);
    Ok(query
        .bind(feed.0)
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
        .bind(update.meta.as_ref().and_then(|m| m.title.as_deref()))
        .bind(update.meta.as_ref().and_then(|m| m.site_link.as_deref()))
        .bind(update.state.as_str())
        .bind(update.state_reason.as_deref())
        .bind(micros(update.next_fetch_at))
        .bind(update.next_fetch_reason.as_str())
        .bind(update.interval_secs)
        .bind(update.consecutive_failures)
        .bind(update.last_status)
        .bind(update.last_outcome.as_str())
        .bind(update.last_error.as_deref())
        .bind(fetched_at)
        .bind(delta.ok)
        .bind(delta.not_modified)
        .bind(delta.errors)
        .bind(delta.fetches)
        // A postponed read sent nothing, a paused crawler learnt nothing: the last read stays.
        .bind(update.last_outcome.keeps_last_read())
        .bind(update.pending_move.as_ref().map(|(to, _)| to.as_str()))
        .bind(
            update
                .pending_move
                .as_ref()
                .map(|(_, since)| micros(*since)),
        )
        .bind(update.meta.as_ref().and_then(|m| m.expires).map(micros))
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
        ))
}

/// Each push of the batch counted on its feed's WebSub subscription.
async fn count_pushes(tx: &mut Transaction<'static, Sqlite>, live: &[&Prepared]) -> Result<()> {
    for push in live.iter().filter(|p| p.update.is_none()) {
        sqlx::query(sqlx::AssertSqlSafe(
            crate::websub::lite::COUNT_PUSH.as_str(),
        ))
        .bind(push.feed_id.0)
        .bind(push.fetched_at)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// FF14: a row for each change of a feed's directives in the batch, in order.
async fn insert_directive_changes(
    tx: &mut Transaction<'static, Sqlite>,
    live: &[&Prepared],
) -> Result<()> {
    for fetch in live {
        if let Some(change) = fetch.update.as_ref().and_then(|u| u.directives.as_ref()) {
            sqlx::query(
                "INSERT INTO feed_directives (feed_id, at, seen, current, full_response) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .bind(fetch.feed_id.0)
            .bind(fetch.fetched_at)
            .bind(change.seen.to_words())
            .bind(change.current.to_words())
            .bind(change.full)
            .execute(&mut **tx)
            .await?;
        }
    }
    Ok(())
}

/// C6: `host`'s Retry-After floor becomes `until` unless it is later already (times in
/// microseconds; `at` makes the host's row when it has none).
pub(super) async fn raise_host_floor(
    tx: &mut Transaction<'static, Sqlite>,
    host: &str,
    at: i64,
    until: i64,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(
        crate::feeds::lite::RAISE_HOST_FLOOR.as_str(),
    ))
    .bind(host)
    .bind(at)
    .bind(until)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Append one request-log row (C7).
pub(super) async fn insert_log(
    tx: &mut Transaction<'static, Sqlite>,
    log: &RequestLogRow,
) -> Result<()> {
    insert_logs(tx, &[log]).await
}

/// The columns of `request_log` written per row.
const LOG_INSERT: &str = "INSERT INTO request_log (at, feed_id, host, purpose, url, egress, \
                          status, outcome, bytes, duration_ms, rule) VALUES ";
const LOG_PARAMS: usize = 11;

/// Write a request's write-ahead row (C7); its ticket is the row's id.
pub(super) async fn open_request(
    tx: &mut Transaction<'static, Sqlite>,
    row: &RequestLogRow,
) -> Result<RequestTicket> {
    let id: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(crate::log::lite::OPEN.as_str()))
        .bind(micros(row.at))
        .bind(row.feed_id.map(|f| f.0))
        .bind(row.host.as_str())
        .bind(row.purpose.as_str())
        .bind(row.url.as_str())
        .bind(row.egress.as_deref())
        .bind(row.rule.as_str())
        .fetch_one(&mut **tx)
        .await?;
    Ok(RequestTicket(id))
}

/// Append request-log rows (C7), in order, each closing the write-ahead row it names.
async fn insert_logs(tx: &mut Transaction<'static, Sqlite>, logs: &[&RequestLogRow]) -> Result<()> {
    static SQL: LazyLock<Vec<String>> = LazyLock::new(|| multi_row_sql(LOG_INSERT, LOG_PARAMS));
    for (chunk, size) in chunks(logs) {
        let mut query = sqlx::query(sql_for(&SQL, size));
        for log in chunk {
            query = query
                .bind(micros(log.at))
                .bind(log.feed_id.map(|f| f.0))
                .bind(log.host.as_str())
                .bind(log.purpose.as_str())
                .bind(log.url.as_str())
                .bind(log.egress.as_deref())
                .bind(log.status)
                .bind(log.outcome.as_str())
                .bind(log.bytes)
                .bind(log.duration_ms)
                .bind(log.rule.as_str());
        }
        query.execute(&mut **tx).await?;
    }
    let tickets: Vec<i64> = logs.iter().filter_map(|l| l.ticket).map(|t| t.0).collect();
    if !tickets.is_empty() {
        let ids = serde_json::to_string(&tickets)
            .map_err(|e| StoreError::Corrupt(format!("tickets: {e}")))?;
        sqlx::query("DELETE FROM requests_open WHERE id IN (SELECT value FROM json_each(?1))")
            .bind(ids)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Make sure a host row exists for `url`'s host.
pub(super) async fn ensure_host(
    tx: &mut Transaction<'static, Sqlite>,
    url: &FeedUrl,
    now: i64,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(
        crate::feeds::lite::ENSURE_HOST.as_str(),
    ))
    .bind(url.host_key().as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// [`ensure_host`] at a time.
pub(super) async fn ensure_host_at(
    tx: &mut Transaction<'static, Sqlite>,
    url: &FeedUrl,
    now: DateTime<Utc>,
) -> Result<()> {
    ensure_host(tx, url, micros(now)).await
}

/// An entry as the batch knows it: stored before the batch, or inserted by it.
enum Known {
    Stored {
        id: i64,
        content_hash: String,
        first_seen_at: i64,
    },
    /// Index into [`EntryWrites::inserts`].
    New(usize),
}

/// The stored entries of the batch's feeds among those its fetches carry, by feed and
/// identity, in one query.
async fn known_entries(
    tx: &mut Transaction<'static, Sqlite>,
    live: &[&Prepared],
) -> Result<HashMap<(i64, String), Known>> {
    let keys: Vec<(i64, &str)> = live
        .iter()
        .flat_map(|f| f.entries.iter().map(|e| (f.feed_id.0, e.key.as_str())))
        .collect();
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(i64, String, i64, String, i64)> = sqlx::query_as(
        "SELECT e.feed_id, e.entry_key, e.id, e.content_hash, e.first_seen_at \
         FROM json_each(?1) AS k CROSS JOIN entries e \
         ON e.feed_id = json_extract(k.value, '$[0]') AND e.entry_key = json_extract(k.value, '$[1]')",
    )
    .bind(json(&keys)?)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(feed, key, id, content_hash, first_seen_at)| {
            let known = Known::Stored {
                id,
                content_hash,
                first_seen_at,
            };
            ((feed, key), known)
        })
        .collect())
}

/// A new entry row to insert, borrowed from its fetch.
struct NewRow<'a> {
    feed_id: i64,
    first_seen_at: i64,
    updated_at: i64,
    row: &'a EntryRow,
}

/// A stored entry's new content, borrowed from its fetch.
struct ChangedRow<'a> {
    sort_at: i64,
    updated_at: i64,
    row: &'a EntryRow,
}

/// What the batch writes to `entries`, decided in memory before any statement runs. Rows
/// are borrowed from the batch and bound by reference (C8: no copy of an entry's text).
#[derive(Default)]
struct EntryWrites<'a> {
    inserts: Vec<NewRow<'a>>,
    /// By row id, in the order first changed; a later change of the same row replaces it.
    updates: Vec<(i64, ChangedRow<'a>)>,
    update_index: HashMap<i64, usize>,
}

impl<'a> EntryWrites<'a> {
    /// One entry of `fetch`: new, changed or unchanged, counted in `report`.
    fn upsert(
        &mut self,
        fetch: &Prepared,
        entry: &'a EntryRow,
        known: &mut HashMap<(i64, String), Known>,
        report: &mut ApplyReport,
    ) {
        let at = fetch.fetched_at;
        let slot = (fetch.feed_id.0, entry.key.clone());
        match known.get_mut(&slot) {
            None => {
                known.insert(slot, Known::New(self.inserts.len()));
                self.inserts.push(NewRow {
                    feed_id: fetch.feed_id.0,
                    first_seen_at: at,
                    updated_at: at,
                    row: entry,
                });
                report.new_entries += 1;
            }
            Some(Known::New(i)) => match self.inserts.get_mut(*i) {
                Some(new) if new.row.content_hash != entry.content_hash => {
                    new.updated_at = at;
                    new.row = entry;
                    report.updated_entries += 1;
                }
                _ => report.unchanged_entries += 1,
            },
            Some(Known::Stored {
                id,
                content_hash,
                first_seen_at,
            }) => {
                if *content_hash == entry.content_hash {
                    report.unchanged_entries += 1;
                    return;
                }
                content_hash.clone_from(&entry.content_hash);
                let changed = ChangedRow {
                    sort_at: entry.sort_at(*first_seen_at),
                    updated_at: at,
                    row: entry,
                };
                match self.update_index.get(id) {
                    Some(&i) => {
                        if let Some(slot) = self.updates.get_mut(i) {
                            slot.1 = changed;
                        }
                    }
                    None => {
                        self.update_index.insert(*id, self.updates.len());
                        self.updates.push((*id, changed));
                    }
                }
                report.updated_entries += 1;
            }
        }
    }
}

const ENTRY_INSERT: &str = "INSERT INTO entries (feed_id, entry_key, guid, title, link, summary, \
                            published, updated, expires, sort_at, first_seen_at, updated_at, \
                            content_hash, data, categories) VALUES ";
const ENTRY_PARAMS: usize = 15;
const SEARCH_INSERT: &str = "INSERT INTO entries_fts (rowid, title, search_text) VALUES ";
const SEARCH_PARAMS: usize = 3;

/// Insert new entries, in order (their row ids follow the batch order), and their words into
/// the search index. The rows are bound by reference, not copied (C8: a large entry is held
/// as few times as it can be).
async fn insert_entries(
    tx: &mut Transaction<'static, Sqlite>,
    rows: Vec<NewRow<'_>>,
) -> Result<()> {
    static SQL: LazyLock<Vec<String>> = LazyLock::new(|| {
        multi_row_sql(ENTRY_INSERT, ENTRY_PARAMS)
            .into_iter()
            .map(|sql| sql + " RETURNING id")
            .collect()
    });
    let sizes: Vec<usize> = chunks(&rows).into_iter().map(|(_, size)| size).collect();
    let mut rows = rows.into_iter();
    for size in sizes {
        let chunk: Vec<NewRow<'_>> = rows.by_ref().take(size).collect();
        let mut query = sqlx::query_scalar(sql_for(&SQL, size));
        for new in &chunk {
            let sort_at = new.row.sort_at(new.first_seen_at);
            let e = new.row;
            query = query
                .bind(new.feed_id)
                .bind(e.key.as_str())
                .bind(e.guid.as_deref())
                .bind(e.title.as_deref())
                .bind(e.link.as_deref())
                .bind(e.summary.clone())
                .bind(e.published)
                .bind(e.updated)
                .bind(e.expires)
                .bind(sort_at)
                .bind(new.first_seen_at)
                .bind(new.updated_at)
                .bind(e.content_hash.as_str())
                .bind(Arc::clone(&e.data))
                .bind(e.categories.as_deref());
        }
        // A multi-row INSERT gives its rows ids in the order of its VALUES; RETURNING lists
        // them in no promised order.
        let mut ids: Vec<i64> = query.fetch_all(&mut **tx).await?;
        ids.sort_unstable();
        let indexed: Vec<(i64, &EntryRow)> =
            ids.into_iter().zip(chunk.iter().map(|n| n.row)).collect();
        index_words(tx, &indexed).await?;
    }
    Ok(())
}

/// Write the words of `rows` (row id, entry) into the search index, which keeps the index
/// only, never the text (the text is the entry's, in its JSON).
async fn index_words(
    tx: &mut Transaction<'static, Sqlite>,
    rows: &[(i64, &EntryRow)],
) -> Result<()> {
    static SQL: LazyLock<Vec<String>> =
        LazyLock::new(|| multi_row_sql(SEARCH_INSERT, SEARCH_PARAMS));
    for (chunk, size) in chunks(rows) {
        let mut query = sqlx::query(sql_for(&SQL, size));
        for (id, row) in chunk {
            query = query
                .bind(*id)
                .bind(row.title.as_deref())
                .bind(row.search_text.as_deref());
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

async fn update_entry(
    tx: &mut Transaction<'static, Sqlite>,
    id: i64,
    changed: ChangedRow<'_>,
) -> Result<()> {
    let e = changed.row;
    sqlx::query(
        "UPDATE entries SET guid = ?2, title = ?3, link = ?4, summary = ?5, published = ?6, \
         updated = ?7, expires = ?8, sort_at = ?9, updated_at = ?10, content_hash = ?11, \
         data = ?12, categories = ?13 WHERE id = ?1",
    )
    .bind(id)
    .bind(e.guid.as_deref())
    .bind(e.title.as_deref())
    .bind(e.link.as_deref())
    .bind(e.summary.clone())
    .bind(e.published)
    .bind(e.updated)
    .bind(e.expires)
    .bind(changed.sort_at)
    .bind(changed.updated_at)
    .bind(e.content_hash.as_str())
    .bind(Arc::clone(&e.data))
    .bind(e.categories.as_deref())
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM entries_fts WHERE rowid = ?1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    index_words(tx, &[(id, e)]).await
}

/// Rows per multi-row `INSERT`, largest first. Every batch is cut into chunks of these sizes,
/// so only this many distinct statements exist per table and all stay in the connection's
/// prepared-statement cache. 256 rows × 36 parameters (a feed's, the most) stays far below
/// SQLite's limit (32,766).
/// `items` in rounds where each key appears at most once: the first of each key in the first
/// round, the second in the second, and so on, each round in the order of `items`. (One
/// statement may not update one row twice; rounds applied in order do.)
pub(super) fn rounds_by<T: Copy, K: std::hash::Hash + Eq>(
    items: &[T],
    key: impl Fn(T) -> K,
) -> Vec<Vec<T>> {
    let mut rounds: Vec<Vec<T>> = Vec::new();
    let mut seen: HashMap<K, usize> = HashMap::with_capacity(items.len());
    for &item in items {
        let round = seen.entry(key(item)).or_insert(0);
        if rounds.len() <= *round {
            rounds.push(Vec::new());
        }
        if let Some(members) = rounds.get_mut(*round) {
            members.push(item);
        }
        *round += 1;
    }
    rounds
}

pub(super) const CHUNK_SIZES: [usize; 5] = [256, 64, 16, 4, 1];

/// `prefix` followed by `size` groups of `params` placeholders, for each of [`CHUNK_SIZES`].
pub(super) fn multi_row_sql(prefix: &str, params: usize) -> Vec<String> {
    CHUNK_SIZES
        .iter()
        .map(|&size| {
            let group = format!("({})", vec!["?"; params].join(", "));
            format!("{prefix}{}", vec![group; size].join(", "))
        })
        .collect()
}

/// The statement of [`multi_row_sql`] for `size` rows.
pub(super) fn sql_for(sql: &'static [String], size: usize) -> &'static str {
    CHUNK_SIZES
        .iter()
        .position(|&s| s == size)
        .and_then(|i| sql.get(i))
        .map_or("", String::as_str)
}

/// `rows` cut into consecutive chunks whose sizes are among [`CHUNK_SIZES`], with each size.
pub(super) fn chunks<T>(mut rows: &[T]) -> Vec<(&[T], usize)> {
    let mut out = Vec::new();
    for &size in &CHUNK_SIZES {
        while rows.len() >= size {
            let (head, tail) = rows.split_at(size);
            out.push((head, size));
            rows = tail;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_row_in_order_with_cached_sizes() {
        for n in [0usize, 1, 3, 20, 255, 256, 257, 1000] {
            let rows: Vec<usize> = (0..n).collect();
            let cut = chunks(&rows);
            let joined: Vec<usize> = cut.iter().flat_map(|(c, _)| c.iter().copied()).collect();
            assert_eq!(joined, rows, "{n}");
            assert!(
                cut.iter()
                    .all(|(c, size)| c.len() == *size && CHUNK_SIZES.contains(size))
            );
        }
    }

    #[test]
    fn rounds_hold_each_key_once_and_keep_its_order() {
        let items = [(1, 'a'), (2, 'b'), (1, 'c'), (1, 'd'), (3, 'e'), (2, 'f')];
        let rounds = rounds_by(&items, |(k, _)| k);
        let letters: Vec<String> = rounds
            .iter()
            .map(|r| r.iter().map(|(_, c)| *c).collect())
            .collect();
        assert_eq!(letters, ["abe", "cf", "d"]);
        assert!(rounds_by(&[] as &[(i32, char)], |(k, _)| k).is_empty());
    }

    #[test]
    fn multi_row_statements_have_one_group_per_row() {
        let sql: &'static [String] = Vec::leak(multi_row_sql("INSERT INTO t (a, b) VALUES ", 2));
        assert_eq!(sql_for(sql, 1), "INSERT INTO t (a, b) VALUES (?, ?)");
        assert_eq!(sql_for(sql, 4).matches("(?, ?)").count(), 4);
    }
}
