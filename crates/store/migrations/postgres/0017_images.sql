-- tidings store: the image cache (FF9). One copy per image URL, read through the page queue
-- (a `resources` row with purpose `image`) for a thumbnail whose licence permits showing it;
-- never resized. `used_at` moves when the copy is served: copies unused for the profile's
-- `images.expire_unused` go, and the least recently used go first when the total passes
-- `images.max_total_bytes`. Serving checks the entry's or feed's current decision each time.
CREATE TABLE images (
    url         TEXT    PRIMARY KEY,
    media_type  TEXT    NOT NULL,
    body        BYTEA   NOT NULL,
    bytes       BIGINT  NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ NOT NULL
);

CREATE INDEX images_used ON images (used_at);

-- Copies dropped for the cache's bounds, counted for the admin page.
CREATE TABLE image_evictions (
    reason      TEXT    PRIMARY KEY,          -- expired | over_total
    count       BIGINT  NOT NULL
);
