//! SQL-independent helpers shared by both backends: entry serialisation and content hashes,
//! counter deltas, search term quoting, listing limits and time and state conversions.

use crate::{FeedState, Result, StoreError};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use tidings_model::{Entry, FailureKind, FailureTotals, FeedUrl, Label};

/// The state reason and schedule reason of a feed removed on request (WFM10).
pub const REMOVED_REASON: &str = "removed by an operator on request (WFM10)";

/// Entries listed when [`EntryQuery::limit`](crate::EntryQuery::limit) is 0.
pub const DEFAULT_ENTRY_LIMIT: u32 = 50;
/// The most entries one listing returns.
pub const MAX_ENTRY_LIMIT: u32 = 1000;
/// Log rows listed when [`LogQuery::limit`](crate::LogQuery::limit) is 0.
pub const DEFAULT_LOG_LIMIT: u32 = 100;
/// The most log rows one listing returns.
pub const MAX_LOG_LIMIT: u32 = 10_000;

/// `SELECT` of every [`FeedRecord`](crate::FeedRecord) column from `feeds f`, with the live
/// subscriber count, followed by the given literal SQL (the same text on both backends).
macro_rules! select_feeds {
    ($($rest:expr),+) => {
        concat!(
            "SELECT f.id, f.url, f.original_url, f.title, f.site_link, f.state, f.state_reason, ",
            "f.etag, f.last_modified, f.content_hash, f.next_fetch_at, f.next_fetch_reason, ",
            "f.interval_secs, f.last_fetch_at, f.last_status, f.last_outcome, f.last_error, ",
            "f.consecutive_failures, f.fetches, f.ok, f.not_modified, f.errors, f.created_at, ",
            "f.moved_to, f.moved_since, f.expires, f.egress, f.profile_overrides, ",
            "f.egress_refusals, f.last_failure, f.failure_totals, f.held_by, f.directives, ",
            "f.thumbnail, f.site, ",
            "(SELECT COUNT(*) FROM subscriptions s WHERE s.feed_id = f.id) AS subscribers ",
            "FROM feeds f ",
            $($rest),+
        )
    };
}
pub(crate) use select_feeds;

/// The [`StoredEntry`](crate::StoredEntry) columns of `entries e`.
pub const ENTRY_COLUMNS: &str = "SELECT e.id, e.feed_id, e.sort_at, e.first_seen_at, e.updated_at, e.content_hash, e.data, e.summary, r.preview, r.page FROM entries e LEFT JOIN resources r ON r.id = e.page_id";

/// The purpose column of a queued resource.
pub fn decode_purpose(column: &str) -> Result<tidings_model::RequestPurpose> {
    tidings_model::RequestPurpose::from_name(column)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown resource purpose {column:?}")))
}

/// The disposition column of a URL check (FF2).
pub fn decode_disposition(column: &str) -> Result<tidings_model::Disposition> {
    tidings_model::Disposition::from_name(column)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown check disposition {column:?}")))
}

/// The source column of a URL check.
pub fn decode_check_source(column: &str) -> Result<tidings_model::CheckSource> {
    tidings_model::CheckSource::from_name(column)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown check source {column:?}")))
}

/// The state column of a queued resource.
pub fn decode_queue_state(column: &str) -> Result<crate::QueueState> {
    crate::QueueState::from_name(column)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown resource state {column:?}")))
}

/// `text` as a column copy for PostgreSQL, which refuses NUL in `TEXT`: NUL becomes U+FFFD.
/// The exact entry is always kept: in the JSON `data` column, where NUL is escaped, with its
/// summary in the `summary` column only when that column holds it exactly (see
/// [`encode_entry`]).
pub fn without_nul(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// [`without_nul`] of an optional text.
pub fn without_nul_opt(text: Option<&str>) -> Option<std::borrow::Cow<'_, str>> {
    text.map(without_nul)
}

/// For a bare host name (no `://`), the `LIKE` pattern (escape `\`) matching its host keys on
/// every scheme and port; `None` for a full host key, which is matched exactly.
pub fn host_name_pattern(host: &str) -> Option<String> {
    if host.contains("://") {
        return None;
    }
    let mut pattern = String::from("%://");
    for c in host.trim_end_matches('.').to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push_str(":%");
    Some(pattern)
}

/// The longest entry identity stored as it is; longer ones are stored by their hash, so the
/// unique index stays within every backend's key size limit.
pub const MAX_ENTRY_KEY_BYTES: usize = 512;

/// A count a query returned, which cannot be negative in a sound store.
pub fn count(n: i64) -> crate::Result<u64> {
    u64::try_from(n).map_err(|_| crate::StoreError::Corrupt(format!("negative count {n}")))
}

/// The stored key of an entry identity: the identity itself, or `sha256:` and its hash when it
/// is longer than [`MAX_ENTRY_KEY_BYTES`] or holds a NUL (which PostgreSQL text cannot hold).
/// Deterministic, so the same entry always finds its row.
pub fn entry_key(id: &str) -> std::borrow::Cow<'_, str> {
    if id.len() <= MAX_ENTRY_KEY_BYTES && !id.contains('\0') {
        std::borrow::Cow::Borrowed(id)
    } else {
        std::borrow::Cow::Owned(format!(
            "sha256:{}",
            hex::encode(Sha256::digest(id.as_bytes()))
        ))
    }
}

/// An entry as it is written: the entry as JSON and the SHA-256 of the whole entry's JSON.
pub struct EncodedEntry {
    /// The entry as JSON, without its `summary` when the `summary` column holds it exactly
    /// (no NUL, which PostgreSQL's text cannot hold): a summary is stored once, not twice.
    pub data: String,
    pub content_hash: String,
    /// What search reads of the entry besides its title: see [`search_text`].
    pub search_text: Option<String>,
}

/// The most characters of an entry's text search reads.
pub const SEARCH_TEXT_CHARS: usize = 100_000;

/// The text of an entry's summary and content as a reader sees it, never their markup (a
/// search for `strong` finds the word, not every `<strong>`), at most [`SEARCH_TEXT_CHARS`]
/// characters; `None` when it has neither. Without NUL, which PostgreSQL's text cannot hold.
pub fn search_text(entry: &Entry) -> Option<String> {
    let mut out = String::new();
    let mut room = SEARCH_TEXT_CHARS;
    for html in [&entry.summary, &entry.content].into_iter().flatten() {
        let text = tidings_page::text(html, room);
        room = room.saturating_sub(text.chars().count());
        if !text.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&text.replace('\0', ""));
        }
        if room == 0 {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Serialise `entry` and hash the serialisation: a change in any field changes the hash. The
/// hash is of the whole entry, summary included, as it always was, so the way the summary is
/// stored does not make a known entry look changed. `entry` is as it was on return.
///
/// The entry is serialised twice: whole into the hash, counting its length, then without the
/// summary into a string reserved at that length less what the summary took, which is enough
/// (C8: a string grown by doubling would hold up to twice a large entry).
pub fn encode_entry(entry: &mut Entry) -> Result<EncodedEntry> {
    let id = entry.id.clone();
    let corrupt = |e: serde_json::Error| {
        StoreError::Corrupt(format!("entry {id:?} cannot be serialised: {e}"))
    };
    let mut hash = Measure::default();
    serde_json::to_writer(&mut hash, &*entry).map_err(corrupt)?;
    let summary = entry.summary.take_if(|s| !s.contains('\0'));
    // `"summary":"…"` (at least the summary's bytes and two quotes) becomes `"summary":null`.
    let saved = summary
        .as_ref()
        .map_or(0, |s| (s.len() + 2).saturating_sub("null".len()));
    let mut data = Vec::with_capacity(hash.len.saturating_sub(saved));
    let written = serde_json::to_writer(&mut data, &*entry);
    if summary.is_some() {
        entry.summary = summary;
    }
    written.map_err(corrupt)?;
    let data = String::from_utf8(data)
        .map_err(|e| StoreError::Corrupt(format!("entry {id:?} serialised to bad UTF-8: {e}")))?;
    let content_hash = hex::encode(hash.hash.finalize());
    Ok(EncodedEntry {
        data,
        content_hash,
        search_text: search_text(entry),
    })
}

/// A writer that hashes and counts what is written to it.
#[derive(Default)]
struct Measure {
    hash: Sha256,
    len: usize,
}

impl std::io::Write for Measure {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hash.update(buf);
        self.len += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Separates an entry's categories in the `categories` column.
const CATEGORY_SEPARATOR: char = '\u{1f}';

/// One category as it is stored and looked up: trimmed and lower-cased, with the separator
/// and NUL taken out. `None` when nothing is left.
pub fn category_term(category: &str) -> Option<String> {
    let term: String = category
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c != CATEGORY_SEPARATOR && c != '\0')
        .collect();
    (!term.is_empty()).then_some(term)
}

/// The `categories` column of an entry: every term followed by the separator and the whole
/// preceded by one, so [`category_needle`] finds a whole term only. `None` without categories.
pub fn category_column(categories: &[String]) -> Option<String> {
    let mut column = String::new();
    for term in categories.iter().filter_map(|c| category_term(c)) {
        if column.is_empty() {
            column.push(CATEGORY_SEPARATOR);
        }
        column.push_str(&term);
        column.push(CATEGORY_SEPARATOR);
    }
    (!column.is_empty()).then_some(column)
}

/// What to look for in the `categories` column to find entries filed under `category`.
pub fn category_needle(category: &str) -> Option<String> {
    category_term(category).map(|t| format!("{CATEGORY_SEPARATOR}{t}{CATEGORY_SEPARATOR}"))
}

/// The `profile_overrides` column of a feed: `None` when nothing is overridden.
pub fn encode_overrides(overrides: &crate::FeedOverrides) -> Result<Option<String>> {
    if *overrides == crate::FeedOverrides::default() {
        return Ok(None);
    }
    serde_json::to_string(overrides)
        .map(Some)
        .map_err(|e| StoreError::Corrupt(format!("overrides cannot be serialised: {e}")))
}

/// The `directives` column (FF14): the words `tidings_rights::Directives` writes, `None` for
/// none.
pub fn encode_directives(d: &tidings_rights::Directives) -> Option<String> {
    (!d.is_empty()).then(|| d.to_words())
}

/// The `thumbnail` column (FF7): the selected image as JSON.
pub fn encode_thumbnail(image: &tidings_model::SelectedImage) -> Result<String> {
    serde_json::to_string(image)
        .map_err(|e| StoreError::Corrupt(format!("a thumbnail cannot be serialised: {e}")))
}

/// Read back the `thumbnail` column.
pub fn decode_thumbnail(json: Option<&str>) -> Result<Option<tidings_model::SelectedImage>> {
    json.map(|j| {
        serde_json::from_str(j)
            .map_err(|e| StoreError::Corrupt(format!("stored thumbnail unreadable: {e}")))
    })
    .transpose()
}

/// The `page` column (FF6): what was recorded of an inspected page, as JSON.
pub fn encode_page(record: &tidings_rights::PageRecord) -> Result<String> {
    serde_json::to_string(record)
        .map_err(|e| StoreError::Corrupt(format!("a page record cannot be serialised: {e}")))
}

/// Read back the `page` column.
pub fn decode_page(json: Option<&str>) -> Result<Option<tidings_rights::PageRecord>> {
    json.map(|j| {
        serde_json::from_str(j)
            .map_err(|e| StoreError::Corrupt(format!("stored page record unreadable: {e}")))
    })
    .transpose()
}

/// The key an account's name is unique by: the name lower-cased, every letter (SQLite's
/// `lower()` folds ASCII only, so tidings folds).
pub fn account_key(name: &str) -> String {
    name.to_lowercase()
}

/// Read back an account's `role` column.
pub fn decode_account_role(column: &str) -> Result<crate::AccountRole> {
    match column {
        "reader" => Ok(crate::AccountRole::Reader),
        "admin" => Ok(crate::AccountRole::Admin),
        other => Err(StoreError::Corrupt(format!(
            "unknown account role {other:?}"
        ))),
    }
}

/// Read back a directives column.
pub fn decode_directives(words: Option<&str>) -> tidings_rights::Directives {
    tidings_rights::Directives::parse_list(words.unwrap_or_default())
}

/// The `egress_refusals` column: `None` for an empty record.
pub fn encode_egress_refusals(
    record: &std::collections::BTreeMap<String, bool>,
) -> Result<Option<String>> {
    if record.is_empty() {
        return Ok(None);
    }
    serde_json::to_string(record)
        .map(Some)
        .map_err(|e| StoreError::Corrupt(format!("egress refusals cannot be serialised: {e}")))
}

/// Read back the `egress_refusals` column.
pub fn decode_egress_refusals(
    column: Option<&str>,
) -> Result<std::collections::BTreeMap<String, bool>> {
    column.map_or(Ok(std::collections::BTreeMap::new()), |text| {
        serde_json::from_str(text)
            .map_err(|e| StoreError::Corrupt(format!("stored egress refusals are not valid: {e}")))
    })
}

/// The `failure_totals` column: `None` when no failure is counted.
pub fn encode_failure_totals(totals: &FailureTotals) -> Result<Option<String>> {
    if totals.is_empty() {
        return Ok(None);
    }
    serde_json::to_string(totals)
        .map(Some)
        .map_err(|e| StoreError::Corrupt(format!("failure totals cannot be serialised: {e}")))
}

/// Read back the `failure_totals` column.
pub fn decode_failure_totals(column: Option<&str>) -> Result<FailureTotals> {
    column.map_or(Ok(FailureTotals::default()), |text| {
        serde_json::from_str(text)
            .map_err(|e| StoreError::Corrupt(format!("stored failure totals are not valid: {e}")))
    })
}

/// Read back the `last_failure` column.
pub fn decode_failure(column: Option<&str>) -> Result<Option<FailureKind>> {
    column
        .map(|name| {
            name.parse()
                .map_err(|e| StoreError::Corrupt(format!("stored last failure: {e}")))
        })
        .transpose()
}

/// Read back the `profile_overrides` column.
pub fn decode_overrides(column: Option<&str>) -> Result<crate::FeedOverrides> {
    column.map_or(Ok(crate::FeedOverrides::default()), |text| {
        serde_json::from_str(text)
            .map_err(|e| StoreError::Corrupt(format!("stored overrides are not valid: {e}")))
    })
}

/// Read back an entry stored by [`encode_entry`] from its `data` and `summary` columns. A
/// summary in `data` (rows written before the summary was stored once, or one holding NUL)
/// wins over the column.
/// The tag of an entry's JSON kept compressed ([`pack_entry`]); a JSON object starts with `{`.
const PACKED_LZ4: u8 = 1;
/// An entry's JSON is compressed from this many bytes on (smaller ones gain nothing).
const PACK_FROM: usize = 512;
/// The most bytes a packed entry may claim to unpack to: far above any entry the parser's
/// bounds let through, and a stop for a corrupt length.
const UNPACK_MAX: usize = 64 << 20;

/// An entry's JSON as SQLite keeps it: LZ4-compressed behind a tag byte when that saves room
/// (news articles' HTML about halves), else the JSON's own bytes. PostgreSQL compresses large
/// values itself (TOAST) and keeps the text.
pub fn pack_entry(json: String) -> Vec<u8> {
    if json.len() >= PACK_FROM {
        let compressed = lz4_flex::block::compress_prepend_size(json.as_bytes());
        if compressed.len() + 1 < json.len() {
            let mut packed = Vec::with_capacity(compressed.len() + 1);
            packed.push(PACKED_LZ4);
            packed.extend_from_slice(&compressed);
            return packed;
        }
    }
    json.into_bytes()
}

/// The JSON of an entry kept by [`pack_entry`] (or as text, by an older version).
pub fn unpack_entry(stored: &[u8]) -> Result<std::borrow::Cow<'_, str>> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("stored entry: {what}"));
    match stored.split_first() {
        Some((&PACKED_LZ4, packed)) => {
            let (size, _) = lz4_flex::block::uncompressed_size(packed)
                .map_err(|e| corrupt(&format!("bad compressed length: {e}")))?;
            if size > UNPACK_MAX {
                return Err(corrupt(&format!("claims {size} bytes unpacked")));
            }
            let bytes = lz4_flex::block::decompress_size_prepended(packed)
                .map_err(|e| corrupt(&format!("does not decompress: {e}")))?;
            String::from_utf8(bytes)
                .map(std::borrow::Cow::Owned)
                .map_err(|_| corrupt("not UTF-8 once unpacked"))
        }
        _ => std::str::from_utf8(stored)
            .map(std::borrow::Cow::Borrowed)
            .map_err(|_| corrupt("not UTF-8")),
    }
}

pub fn decode_entry(data: &str, summary: Option<String>) -> Result<Entry> {
    let corrupt =
        |e: serde_json::Error| StoreError::Corrupt(format!("stored entry is not valid json: {e}"));
    let mut entry: Entry = serde_json::from_str(data).map_err(corrupt)?;
    if entry.identity.is_empty() {
        // Written before the identity had its own field: `id` held the identity and `guid`
        // the publisher's id.
        let old: LegacyIds = serde_json::from_str(data).map_err(corrupt)?;
        entry.identity = old.id;
        entry.id = old.guid;
    }
    if entry.summary.is_none() {
        entry.summary = summary;
    }
    Ok(entry)
}

/// The ids of an entry as versions before 2026-12-07 stored them.
#[derive(serde::Deserialize)]
struct LegacyIds {
    #[serde(default)]
    id: String,
    #[serde(default)]
    guid: Option<String>,
}

/// How one fetch moves the per-feed counters, from its outcome label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterDelta {
    /// 0 when no request was sent (`blocked`, `postponed`).
    pub fetches: i64,
    pub ok: i64,
    pub not_modified: i64,
    pub errors: i64,
}

impl CounterDelta {
    /// `fetches` grows by one for every request sent; `ok` for a feed read; `not_modified`
    /// for a 304 and for an `unchanged` body (C5); `errors` for every other answer but the
    /// crawler's own pause (no error of the feed). `blocked` and `postponed` sent nothing and
    /// count nothing.
    pub fn of(label: Label) -> CounterDelta {
        CounterDelta {
            fetches: i64::from(label.was_sent()),
            ok: i64::from(label == Label::Ok),
            not_modified: i64::from(label.is_not_modified()),
            errors: i64::from(label.is_error()),
        }
    }
}

/// Read back an outcome label column.
pub fn decode_label(column: &str) -> Result<Label> {
    column
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("stored outcome: {e}")))
}

/// What a user's search string asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchFilter {
    /// No search (absent or blank): no filter.
    All,
    /// A search with no word in it: matches nothing.
    Nothing,
    /// The words to find, all of them, as whitespace-separated user input.
    Words(Vec<String>),
}

impl SearchFilter {
    pub fn of(search: Option<&str>) -> SearchFilter {
        let Some(search) = search.map(str::trim).filter(|s| !s.is_empty()) else {
            return SearchFilter::All;
        };
        let words: Vec<String> = search
            .split(|c: char| c.is_whitespace() || c == '\0')
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .map(str::to_owned)
            .collect();
        if words.is_empty() {
            SearchFilter::Nothing
        } else {
            SearchFilter::Words(words)
        }
    }
}

/// An FTS5 MATCH expression requiring every word: each word is a quoted string (inner quotes
/// doubled), so no input is ever read as FTS5 syntax.
pub fn fts5_match(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number of rows to return: `default` for 0, at most `max`.
pub fn limit(requested: u32, default: u32, max: u32) -> i64 {
    i64::from(if requested == 0 {
        default
    } else {
        requested.min(max)
    })
}

/// A time as SQLite stores it: microseconds since the Unix epoch.
pub fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

/// A time stored by [`micros`].
pub fn from_micros(us: i64) -> Result<DateTime<Utc>> {
    DateTime::from_timestamp_micros(us)
        .ok_or_else(|| StoreError::Corrupt(format!("time out of range: {us}")))
}

pub fn from_micros_opt(us: Option<i64>) -> Result<Option<DateTime<Utc>>> {
    us.map(from_micros).transpose()
}

pub fn parse_state(s: &str) -> Result<FeedState> {
    FeedState::parse(s).ok_or_else(|| StoreError::Corrupt(format!("unknown feed state {s:?}")))
}

pub fn parse_url(s: &str) -> Result<FeedUrl> {
    FeedUrl::parse(s).map_err(|e| StoreError::Corrupt(format!("stored feed url {s:?}: {e}")))
}

/// When an entry sorts in listings: its published time, else its updated time, else when it
/// was first seen; never later than first seen, so a post dated in the future cannot sit on
/// top of every listing.
pub fn sort_time(entry: &Entry, first_seen: DateTime<Utc>) -> DateTime<Utc> {
    entry
        .published
        .or(entry.updated)
        .map_or(first_seen, |t| t.min(first_seen))
}

/// Per-state counts from a `GROUP BY state` query: every state, zero when absent.
pub fn counts_by_state(rows: Vec<(String, i64)>) -> Result<Vec<(FeedState, u64)>> {
    let mut counts = [
        FeedState::Active,
        FeedState::Paused,
        FeedState::Off,
        FeedState::Removed,
    ]
    .map(|state| (state, 0u64));
    for (state, n) in rows {
        let state = parse_state(&state)?;
        let n = u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative count {n}")))?;
        if let Some(slot) = counts.iter_mut().find(|(s, _)| *s == state) {
            slot.1 = n;
        }
    }
    Ok(counts.to_vec())
}

/// The times of a page job, as each backend decodes its own time columns.
pub struct JobTimes {
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// The columns a page job is read from, after its times (`JOB_COLUMNS` in each backend).
pub const JOB_COLUMNS: &str = crate::jobs::job_columns!();

/// A page job from a row of [`JOB_COLUMNS`] on either backend.
pub fn page_job<'r, R>(row: &'r R, times: JobTimes) -> Result<crate::PageJob>
where
    R: sqlx::Row,
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<bool>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let count = |name: &str| -> Result<u32> {
        let n: i64 = row.try_get(name)?;
        u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("page job {name} is {n}")))
    };
    let large = |name: &str| -> Result<u64> {
        let n: i64 = row.try_get(name)?;
        u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("page job {name} is {n}")))
    };
    let kind: String = row.try_get("kind")?;
    let state: String = row.try_get("state")?;
    let depth: Option<i64> = row.try_get("depth")?;
    let limits = match depth {
        None => None,
        Some(depth) => {
            let some = |name: &str| -> Result<u64> {
                let n: Option<i64> = row.try_get(name)?;
                n.and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| StoreError::Corrupt(format!("page job {name} is {n:?}")))
            };
            let small = |n: u64, name: &str| {
                u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("page job {name} is {n}")))
            };
            Some(tidings_model::SpiderLimits {
                depth: small(u64::try_from(depth).unwrap_or(u64::MAX), "depth")?,
                max_urls: small(some("max_urls")?, "max_urls")?,
                max_requests: small(some("max_requests")?, "max_requests")?,
                max_bytes: some("max_bytes")?,
                max_time: std::time::Duration::from_millis(some("max_time_ms")?),
                linked_sites: row
                    .try_get::<Option<bool>, _>("linked_sites")?
                    .unwrap_or(false),
            })
        }
    };
    Ok(crate::PageJob {
        id: row.try_get("id")?,
        kind: tidings_model::PageJobKind::from_name(&kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown page job kind {kind:?}")))?,
        url: row.try_get("url")?,
        state: tidings_model::PageJobState::from_name(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown page job state {state:?}")))?,
        limits,
        requested_by: row.try_get("requested_by")?,
        created_at: times.created_at,
        started_at: times.started_at,
        updated_at: times.updated_at,
        finished_at: times.finished_at,
        spent: crate::JobSpent {
            requests: count("requests")?,
            bytes: large("bytes")?,
            urls: count("urls")?,
            pages: count("pages")?,
            elapsed: std::time::Duration::from_millis(large("elapsed_ms")?),
            feeds: count("feeds")?,
            duplicates: count("duplicates")?,
            refused: count("refused")?,
        },
        stopped_by: row.try_get("stopped_by")?,
        error: row.try_get("error")?,
    })
}

/// A count, a byte total or milliseconds as a column (saturating: no counter reaches it).
pub fn as_column(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {

    /// An entry stored before the identity had a field of its own reads with its identity and
    /// the publisher's id in their places; one stored now reads as written.
    #[test]
    fn entries_of_either_layout_read_with_identity_and_publisher_id_apart() {
        let old = decode_entry(r#"{"id":"hash:ab","guid":null,"title":"t"}"#, None).unwrap();
        assert_eq!((old.identity.as_str(), old.id), ("hash:ab", None));
        let old = decode_entry(r#"{"id":"g-1","guid":"g-1"}"#, None).unwrap();
        assert_eq!(
            (old.identity.as_str(), old.id.as_deref()),
            ("g-1", Some("g-1"))
        );
        let new = decode_entry(r#"{"identity":"https://a.example/1","id":null}"#, None).unwrap();
        assert_eq!(
            (new.identity.as_str(), new.id),
            ("https://a.example/1", None)
        );
        let written = serde_json::to_string(&tidings_model::Entry {
            identity: "x".into(),
            id: Some("y".into()),
            ..Default::default()
        })
        .unwrap();
        let back = decode_entry(&written, None).unwrap();
        assert_eq!(
            (back.identity.as_str(), back.id.as_deref()),
            ("x", Some("y"))
        );
    }

    #[test]
    fn entries_are_packed_when_it_saves_room_and_read_back_either_way() {
        let long = format!(
            "{{\"content\":\"{}\"}}",
            "<p>the council said</p>".repeat(100)
        );
        let packed = pack_entry(long.clone());
        assert_eq!(packed[0], PACKED_LZ4);
        assert!(
            packed.len() < long.len() / 4,
            "{} of {}",
            packed.len(),
            long.len()
        );
        assert_eq!(unpack_entry(&packed).unwrap(), long);
        // Short, or not smaller: kept as the JSON's bytes, as an older version kept text.
        let short = "{\"title\":\"x\"}".to_owned();
        assert_eq!(pack_entry(short.clone()), short.as_bytes());
        assert_eq!(unpack_entry(short.as_bytes()).unwrap(), short);
        // Corrupt values are refused, never trusted: a wrong tag's bytes, a length claimed
        // past the bound, a body cut short.
        assert!(unpack_entry(&[0xff, 0xfe]).is_err());
        let mut huge = vec![PACKED_LZ4];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        huge.push(0);
        assert!(unpack_entry(&huge).is_err());
        assert!(unpack_entry(&packed[..packed.len() / 2]).is_err());
    }

    use super::*;

    #[test]
    fn categories_are_stored_folded_and_found_whole() {
        let stored =
            |c: &[&str]| category_column(&c.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let cases: [(&[&str], Option<&str>); 4] = [
            (&[], None),
            (&["  ", ""], None),
            (
                &[" Rust ", "ÉCONOMIE"],
                Some("\u{1f}rust\u{1f}économie\u{1f}"),
            ),
            (&["a\u{1f}b\0"], Some("\u{1f}ab\u{1f}")),
        ];
        for (input, expected) in cases {
            assert_eq!(stored(input).as_deref(), expected, "{input:?}");
        }
        let column = stored(&["Rust Lang", "web"]).expect("stored");
        assert!(column.contains(&category_needle(" RUST lang").expect("needle")));
        assert!(!column.contains(&category_needle("rust").expect("needle")));
        assert!(!column.contains(&category_needle("lang").expect("needle")));
        assert_eq!(category_needle("   "), None);
    }

    #[test]
    fn counters_follow_the_outcome_label() {
        let cases = [
            (Label::Ok, (1, 1, 0, 0)),
            (Label::NotModified, (1, 0, 1, 0)),
            (Label::Unchanged, (1, 0, 1, 0)),
            (Label::Blocked, (0, 0, 0, 0)),
            (Label::Postponed, (0, 0, 0, 0)),
            (Label::CrawlerPaused, (1, 0, 0, 0)),
            (Label::ParseError, (1, 0, 0, 1)),
            (Label::ServerError, (1, 0, 0, 1)),
            (Label::NoAnswer, (1, 0, 0, 1)),
        ];
        for (label, (fetches, ok, not_modified, errors)) in cases {
            let want = CounterDelta {
                fetches,
                ok,
                not_modified,
                errors,
            };
            assert_eq!(CounterDelta::of(label), want, "{label}");
        }
        assert!(decode_label("ok").is_ok());
        assert!(decode_label("fine").is_err());
    }

    #[test]
    fn search_words_are_quoted_for_fts5() {
        let SearchFilter::Words(words) = SearchFilter::of(Some(r#" "foo AND ( "#)) else {
            panic!("expected words");
        };
        assert_eq!(fts5_match(&words), r#""""foo" "AND""#);
        assert_eq!(SearchFilter::of(Some("  ")), SearchFilter::All);
        assert_eq!(SearchFilter::of(None), SearchFilter::All);
        assert_eq!(SearchFilter::of(Some("( ) --")), SearchFilter::Nothing);
    }

    #[test]
    fn limits_default_and_cap() {
        assert_eq!(limit(0, 50, 1000), 50);
        assert_eq!(limit(7, 50, 1000), 7);
        assert_eq!(limit(5000, 50, 1000), 1000);
    }

    #[test]
    fn search_text_is_the_words_of_summary_and_content_within_its_bound() {
        let entry = Entry {
            summary: Some("<p>Short <b>summary</b></p>".into()),
            content: Some(format!("<div>{}</div>", "word ".repeat(SEARCH_TEXT_CHARS))),
            ..Entry::default()
        };
        let text = search_text(&entry).unwrap();
        assert!(
            text.starts_with("Short summary\nword word"),
            "{}",
            &text[..40]
        );
        assert!(
            text.chars().count() <= SEARCH_TEXT_CHARS + 1,
            "the bound, and one line break"
        );
        assert!(!text.contains('<'));
        assert_eq!(search_text(&Entry::default()), None);
    }

    #[test]
    fn content_hash_changes_with_any_field() {
        let a = Entry {
            identity: "a".into(),
            ..Entry::default()
        };
        let mut b = a.clone();
        b.categories.push("x".into());
        let mut c = a.clone();
        c.summary = Some("s".into());
        let (ha, hb, hc) = (
            encode_entry(&mut a.clone()).unwrap(),
            encode_entry(&mut b.clone()).unwrap(),
            encode_entry(&mut c.clone()).unwrap(),
        );
        assert_ne!(ha.content_hash, hb.content_hash);
        assert_ne!(
            ha.content_hash, hc.content_hash,
            "the summary is hashed too"
        );
        assert_eq!(ha.content_hash.len(), 64);
        assert_eq!(decode_entry(&ha.data, None).unwrap(), a);
    }

    #[test]
    fn c8_a_summary_is_stored_once_and_read_back_whole() {
        let entry = Entry {
            identity: "a".into(),
            title: Some("t".into()),
            summary: Some("<p>a long summary</p>".into()),
            ..Entry::default()
        };
        let mut written = entry.clone();
        let encoded = encode_entry(&mut written).unwrap();
        assert_eq!(written, entry, "the entry is as it was");
        assert_eq!(
            encoded.data.capacity(),
            encoded.data.len(),
            "reserved, not grown"
        );
        assert!(!encoded.data.contains("a long summary"), "{}", encoded.data);
        // The hash is the whole entry's, as before the summary was stored once: a known
        // entry does not look changed after an upgrade.
        let whole = serde_json::to_string(&entry).unwrap();
        assert_eq!(
            encoded.content_hash,
            hex::encode(Sha256::digest(whole.as_bytes()))
        );
        assert_eq!(
            decode_entry(&encoded.data, entry.summary.clone()).unwrap(),
            entry
        );
        // A row written before: the summary in `data` is read from there.
        assert_eq!(decode_entry(&whole, None).unwrap(), entry);
    }

    #[test]
    fn c8_a_summary_the_column_cannot_hold_stays_in_the_json() {
        let entry = Entry {
            identity: "a".into(),
            summary: Some("before\0after".into()),
            ..Entry::default()
        };
        let encoded = encode_entry(&mut entry.clone()).unwrap();
        assert!(encoded.data.contains("before"), "{}", encoded.data);
        // PostgreSQL's column holds it without NUL; the JSON's summary wins.
        let column = Some(without_nul("before\0after").into_owned());
        assert_eq!(decode_entry(&encoded.data, column).unwrap(), entry);
    }
}
