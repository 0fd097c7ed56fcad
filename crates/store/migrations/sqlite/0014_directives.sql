-- tidings store: FF14, the directives in force on a feed (its responses' X-Robots-Tag for the
-- profile's bot), as `tidings_rights::Directives` writes them ("noindex, nosnippet"); NULL
-- when none are. `noindex` apart, for the search filter.
ALTER TABLE feeds ADD COLUMN directives TEXT;
ALTER TABLE feeds ADD COLUMN noindex INTEGER NOT NULL DEFAULT 0;
-- Each change of them, with what the response that brought it said and whether it was a full
-- response (which replaces) or a 304 (which only adds).
CREATE TABLE feed_directives (
    id       INTEGER PRIMARY KEY,
    feed_id  INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    at       INTEGER NOT NULL,
    seen     TEXT    NOT NULL,
    current  TEXT    NOT NULL,
    full_response INTEGER NOT NULL
);
CREATE INDEX feed_directives_feed ON feed_directives (feed_id, id DESC);
