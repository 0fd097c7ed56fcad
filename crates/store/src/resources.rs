//! The page queue's SQL (article pages, icon candidates, images read for feeds: SR1, SR4,
//! SR6, SR7, FF9) and the icons kept per site, written once for both backends (`crate::sql`).

/// The columns of a [`ResourceRecord`](crate::ResourceRecord).
macro_rules! resource_columns {
    () => {
        "SELECT id, purpose, url, feed_id, site, first_add, state, due_at, reason, retries, \
         created_at, read_at, last_status, last_outcome, last_error, preview, page FROM resources"
    };
}

/// The condition that a resource's feed (if it has one) is still read: a feed removed on
/// request, paused or off asks for nothing more (WFM10).
macro_rules! feed_read {
    () => {
        "(feed_id IS NULL OR feed_id IN (SELECT id FROM feeds WHERE state = 'active'))"
    };
}

crate::sql::statements! {
    /// An entry's article page, once per URL; parameters: URL, feed, due at, reason.
    QUEUE_PAGE = "INSERT INTO resources (purpose, url, feed_id, state, due_at, reason, \
                  created_at) VALUES ('article_page', $1, $2, 'due', $3, $4, $3) \
                  ON CONFLICT (purpose, url) DO NOTHING";
    /// The entry's link to its page; parameters: URL, feed, entry key.
    LINK_PAGE = "UPDATE entries SET page_id = (SELECT id FROM resources \
                 WHERE purpose = 'article_page' AND url = $1) \
                 WHERE feed_id = $2 AND entry_key = $3 AND page_id IS NULL";
    /// The feed's site; parameters: site, feed.
    SET_SITE = "UPDATE feeds SET site = $1 WHERE id = $2";
    /// Whether the site's icon candidates were queued before.
    SITE_QUEUED = "SELECT id FROM resources WHERE purpose = 'icon' AND site = $1 LIMIT 1";
    /// One icon candidate; parameters: URL, feed, site, rank, first add, state, due at,
    /// reason, created at.
    QUEUE_ICON = "INSERT INTO resources (purpose, url, feed_id, site, rank, first_add, state, \
                  due_at, reason, created_at) VALUES ('icon', $1, $2, $3, $4, $5, $6, $7, $8, $9) \
                  ON CONFLICT (purpose, url) DO NOTHING";
    /// The resources due at `$1` whose feed is still read, most overdue first, at most `$2`.
    DUE = concat!(
        resource_columns!(),
        " WHERE due_at IS NOT NULL AND due_at <= $1 AND state <> 'waiting' AND ",
        feed_read!(),
        " ORDER BY due_at, id LIMIT $2"
    );
    /// When the next resource falls due after `$1`.
    NEXT_DUE = concat!(
        "SELECT MIN(due_at) FROM resources WHERE due_at > $1 AND state <> 'waiting' AND ",
        feed_read!()
    );
    /// The queue, of purpose `$1` or all, most recently read or queued first, at most `$2`.
    LIST = concat!(
        resource_columns!(),
        " WHERE CAST($1 AS TEXT) IS NULL OR purpose = $1 \
         ORDER BY COALESCE(read_at, created_at) DESC, id DESC LIMIT $2"
    );
    /// A site's kept icon.
    ICON = "SELECT site, url, media_type, body, fetched_at FROM icons WHERE site = $1";
    /// A read's schedule; parameters: id, state, due at, reason, retries.
    SET_STATE = "UPDATE resources SET state = $2, due_at = $3, reason = $4, retries = $5 \
                 WHERE id = $1";
    /// A read's facts; parameters: id, read at, status, outcome, error.
    SET_READ = "UPDATE resources SET read_at = $2, last_status = $3, last_outcome = $4, \
                last_error = $5 WHERE id = $1";
    /// An article page's preview and record; parameters: id, preview, page.
    SET_PAGE = "UPDATE resources SET preview = $2, page = $3 WHERE id = $1";
    /// The site's icon, from the resource read; parameters: site, media type, body, when, id.
    KEEP_ICON = "INSERT INTO icons (site, url, media_type, body, fetched_at) \
                 SELECT $1, url, $2, $3, $4 FROM resources WHERE id = $5 \
                 ON CONFLICT (site) DO UPDATE SET url = excluded.url, \
                 media_type = excluded.media_type, body = excluded.body, \
                 fetched_at = excluded.fetched_at";
    /// A cached image (FF9), from the resource read; parameters: media type, body, bytes,
    /// when, id.
    KEEP_IMAGE = "INSERT INTO images (url, media_type, body, bytes, fetched_at, used_at) \
                  SELECT url, $1, $2, $3, $4, $4 FROM resources WHERE id = $5 \
                  ON CONFLICT (url) DO UPDATE SET media_type = excluded.media_type, \
                  body = excluded.body, bytes = excluded.bytes, \
                  fetched_at = excluded.fetched_at, used_at = excluded.used_at";
    /// The site's next waiting icon candidate becomes due at `$2` (`$1`: the one that failed).
    NEXT_CANDIDATE = "UPDATE resources SET state = 'due', due_at = $2 WHERE id = (\
                      SELECT w.id FROM resources w, resources r WHERE r.id = $1 \
                      AND w.purpose = 'icon' AND w.site = r.site AND w.state = 'waiting' \
                      ORDER BY w.rank LIMIT 1)";
}
