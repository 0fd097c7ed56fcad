//! The image cache's SQL (FF9), written once for both backends (`crate::sql`) where their
//! dialects agree. The list lookups (`json_each`, `ANY`), the touch (`MAX`, `GREATEST`) and the
//! prune's deletes stay in each backend.

crate::sql::statements! {
    /// An image to read, once per URL and never when a copy is kept; parameters: URL, feed,
    /// due at, reason.
    QUEUE_IMAGE = "INSERT INTO resources (purpose, url, feed_id, state, due_at, reason, \
                   created_at) SELECT 'image', $1, $2, 'due', $3, $4, $3 \
                   WHERE NOT EXISTS (SELECT 1 FROM images WHERE url = $1) \
                   ON CONFLICT (purpose, url) DO NOTHING";
    /// A kept copy.
    IMAGE = "SELECT url, media_type, body, fetched_at, used_at FROM images WHERE url = $1";
    /// Count `$2` copies dropped for reason `$1`.
    COUNT_EVICTIONS = "INSERT INTO image_evictions (reason, count) VALUES ($1, $2) \
                       ON CONFLICT (reason) DO UPDATE SET \
                       count = image_evictions.count + excluded.count";
}
