//! Mapping Postgres rows to the store's types.

use crate::codec;
use crate::{FeedCounters, FeedRecord, RequestLogRow, Result, StoredEntry};
use sqlx::Row;
use sqlx::postgres::PgRow;
use tidings_model::{FeedId, Validators};

pub(super) fn feed_from_row(row: &PgRow) -> Result<FeedRecord> {
    Ok(FeedRecord {
        id: FeedId(row.try_get("id")?),
        url: codec::parse_url(row.try_get("url")?)?,
        original_url: row.try_get("original_url")?,
        title: row.try_get("title")?,
        site_link: row.try_get("site_link")?,
        state: codec::parse_state(row.try_get("state")?)?,
        state_reason: row.try_get("state_reason")?,
        held_by: row.try_get("held_by")?,
        validators: Validators {
            etag: row.try_get("etag")?,
            last_modified: row.try_get("last_modified")?,
        },
        content_hash: row.try_get("content_hash")?,
        next_fetch_at: row.try_get("next_fetch_at")?,
        next_fetch_reason: row.try_get("next_fetch_reason")?,
        interval_secs: row.try_get("interval_secs")?,
        last_fetch_at: row.try_get("last_fetch_at")?,
        last_status: row.try_get("last_status")?,
        last_outcome: row
            .try_get::<Option<String>, _>("last_outcome")?
            .as_deref()
            .map(codec::decode_label)
            .transpose()?,
        last_error: row.try_get("last_error")?,
        consecutive_failures: row.try_get("consecutive_failures")?,
        counters: FeedCounters {
            fetches: row.try_get("fetches")?,
            ok: row.try_get("ok")?,
            not_modified: row.try_get("not_modified")?,
            errors: row.try_get("errors")?,
        },
        subscribers: row.try_get("subscribers")?,
        created_at: row.try_get("created_at")?,
        pending_move: match (
            row.try_get::<Option<String>, _>("moved_to")?,
            row.try_get::<Option<chrono::DateTime<chrono::Utc>>, _>("moved_since")?,
        ) {
            (Some(to), Some(since)) => Some((to, since)),
            _ => None,
        },
        expires: row.try_get("expires")?,
        egress: row.try_get("egress")?,
        egress_refusals: codec::decode_egress_refusals(
            row.try_get::<Option<String>, _>("egress_refusals")?
                .as_deref(),
        )?,
        directives: codec::decode_directives(
            row.try_get::<Option<String>, _>("directives")?.as_deref(),
        ),
        thumbnail: codec::decode_thumbnail(
            row.try_get::<Option<String>, _>("thumbnail")?.as_deref(),
        )?,
        site: row.try_get("site")?,
        last_failure: codec::decode_failure(
            row.try_get::<Option<String>, _>("last_failure")?.as_deref(),
        )?,
        failure_totals: codec::decode_failure_totals(
            row.try_get::<Option<String>, _>("failure_totals")?
                .as_deref(),
        )?,
        overrides: codec::decode_overrides(
            row.try_get::<Option<String>, _>("profile_overrides")?
                .as_deref(),
        )?,
    })
}

pub(super) fn entry_from_row(row: &PgRow) -> Result<StoredEntry> {
    Ok(StoredEntry {
        id: row.try_get("id")?,
        feed_id: FeedId(row.try_get("feed_id")?),
        entry: codec::decode_entry(row.try_get("data")?, row.try_get("summary")?)?,
        sort_at: row.try_get("sort_at")?,
        first_seen_at: row.try_get("first_seen_at")?,
        updated_at: row.try_get("updated_at")?,
        content_hash: row.try_get("content_hash")?,
        preview: codec::decode_thumbnail(row.try_get::<Option<String>, _>("preview")?.as_deref())?,
        page: codec::decode_page(row.try_get::<Option<String>, _>("page")?.as_deref())?,
    })
}

pub(super) fn log_from_row(row: &PgRow) -> Result<RequestLogRow> {
    Ok(RequestLogRow {
        at: row.try_get("at")?,
        feed_id: row.try_get::<Option<i64>, _>("feed_id")?.map(FeedId),
        host: row.try_get("host")?,
        purpose: row.try_get("purpose")?,
        url: row.try_get("url")?,
        egress: row.try_get("egress")?,
        status: row.try_get("status")?,
        outcome: codec::decode_label(&row.try_get::<String, _>("outcome")?)?,
        bytes: row.try_get("bytes")?,
        duration_ms: row.try_get("duration_ms")?,
        rule: row.try_get("rule")?,
        ticket: None,
    })
}

pub(super) fn resource_from_row(row: &PgRow) -> Result<crate::ResourceRecord> {
    Ok(crate::ResourceRecord {
        id: row.try_get("id")?,
        purpose: codec::decode_purpose(&row.try_get::<String, _>("purpose")?)?,
        url: row.try_get("url")?,
        feed_id: row.try_get::<Option<i64>, _>("feed_id")?.map(FeedId),
        site: row.try_get("site")?,
        first_add: row.try_get("first_add")?,
        state: codec::decode_queue_state(&row.try_get::<String, _>("state")?)?,
        due_at: row.try_get("due_at")?,
        reason: row.try_get("reason")?,
        retries: u32::try_from(row.try_get::<i32, _>("retries")?).unwrap_or(0),
        created_at: row.try_get("created_at")?,
        read_at: row.try_get("read_at")?,
        last_status: row.try_get("last_status")?,
        last_outcome: row
            .try_get::<Option<String>, _>("last_outcome")?
            .as_deref()
            .map(codec::decode_label)
            .transpose()?,
        last_error: row.try_get("last_error")?,
        preview: codec::decode_thumbnail(row.try_get::<Option<String>, _>("preview")?.as_deref())?,
        page: codec::decode_page(row.try_get::<Option<String>, _>("page")?.as_deref())?,
    })
}
