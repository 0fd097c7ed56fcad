//! The page queue's jobs (FF1, FF4: discovery and spider runs, their frontier and finds) and
//! the catalogue (SR2): SQL written once for both backends (`crate::sql`). Taking the next job
//! stays in each backend (`FOR UPDATE SKIP LOCKED` on PostgreSQL).

/// The columns a job is read from after its times (`codec::page_job` reads them).
macro_rules! job_columns {
    () => {
        "id, kind, url, state, requested_by, depth, max_urls, max_requests, max_bytes, \
         max_time_ms, linked_sites, requests, bytes, urls, pages, elapsed_ms, feeds, duplicates, \
         refused, stopped_by, error"
    };
}
pub(crate) use job_columns;

/// A job's columns, its times first.
macro_rules! job_select {
    () => {
        concat!(
            "SELECT created_at, started_at, updated_at, finished_at, ",
            job_columns!(),
            " FROM page_jobs"
        )
    };
}

crate::sql::statements! {
    /// A job; parameters: kind, URL, requested by, at, depth, max URLs, max requests, max
    /// bytes, max time, linked sites, state, started at.
    SUBMIT = "INSERT INTO page_jobs (kind, url, state, requested_by, created_at, updated_at, \
              depth, max_urls, max_requests, max_bytes, max_time_ms, linked_sites, started_at) \
              VALUES ($1, $2, $11, $3, $4, $4, $5, $6, $7, $8, $9, $10, $12) RETURNING id";
    /// The job's first page, its URL.
    FIRST_PAGE = "INSERT INTO page_queue (job_id, seq, url, depth, found_on) \
                  VALUES ($1, 0, $2, 0, NULL)";
    /// A job by id.
    BY_ID = concat!(job_select!(), " WHERE id = $1");
    /// The newest jobs, at most `$1`.
    NEWEST = concat!(job_select!(), " ORDER BY id DESC LIMIT $1");
    /// A running job given back to the queue; parameters: id, at.
    GIVE_BACK = "UPDATE page_jobs SET state = 'queued', updated_at = $2 WHERE id = $1 \
                 AND state = 'running'";
    /// A job's frontier, in order.
    FRONTIER = "SELECT url, depth, found_on, done FROM page_queue WHERE job_id = $1 ORDER BY seq";
    /// A page of the frontier done; parameters: job, URL.
    PAGE_DONE = "UPDATE page_queue SET done = TRUE WHERE job_id = $1 AND url = $2";
    /// A page queued, once per URL; parameters: job, URL, depth, found on.
    QUEUE_PAGE = "INSERT INTO page_queue (job_id, seq, url, depth, found_on) VALUES ($1, \
                  (SELECT COALESCE(MAX(seq), 0) + 1 FROM page_queue WHERE job_id = $1), \
                  $2, $3, $4) ON CONFLICT (job_id, url) DO NOTHING";
    /// A feed found, once per URL; parameters: job, URL, title, feed id, held, note.
    FOUND = "INSERT INTO page_job_feeds (job_id, seq, url, title, feed_id, held, note) \
             VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM page_job_feeds \
             WHERE job_id = $1), $2, $3, $4, $5, $6) ON CONFLICT (job_id, url) DO NOTHING";
    /// What a job has spent; parameters: id, at, requests, bytes, URLs, pages, elapsed,
    /// feeds, duplicates, refused.
    SPENT = "UPDATE page_jobs SET updated_at = $2, requests = $3, bytes = $4, urls = $5, \
             pages = $6, elapsed_ms = $7, feeds = $8, duplicates = $9, refused = $10 \
             WHERE id = $1";
    /// A job's finds, in order.
    FINDS = "SELECT url, title, feed_id, held, note FROM page_job_feeds WHERE job_id = $1 \
             ORDER BY seq";
    /// A job ended; parameters: id, state, stopped by, error, at.
    FINISH = "UPDATE page_jobs SET state = $2, stopped_by = $3, error = $4, finished_at = $5, \
              updated_at = $5 WHERE id = $1 AND state IN ('queued', 'running')";
    /// A finished job's frontier dropped.
    DROP_FRONTIER = "DELETE FROM page_queue WHERE job_id = $1";
    /// Jobs finished before `$1` dropped (FF17).
    PRUNE = "DELETE FROM page_jobs WHERE finished_at IS NOT NULL AND finished_at < $1";
    /// A feed listed in the catalogue (SR2), once; parameters: feed, added by, at.
    CATALOGUE_ADD = "INSERT INTO catalogue (feed_id, added_by, added_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (feed_id) DO NOTHING";
    /// The catalogue, oldest first.
    CATALOGUE = "SELECT feed_id, added_by, added_at FROM catalogue ORDER BY added_at, feed_id";
    /// A feed taken off the catalogue.
    CATALOGUE_REMOVE = "DELETE FROM catalogue WHERE feed_id = $1";
}
