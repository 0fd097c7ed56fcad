-- tidings store: FF14, the directives in force on a feed (its responses' X-Robots-Tag for the
-- profile's bot), as `tidings_rights::Directives` writes them ("noindex, nosnippet"); NULL
-- when none are. `noindex` apart, for the search filter.
ALTER TABLE feeds ADD COLUMN directives TEXT;
ALTER TABLE feeds ADD COLUMN noindex BOOLEAN NOT NULL DEFAULT FALSE;
-- Each change of them, with what the response that brought it said and whether it was a full
-- response (which replaces) or a 304 (which only adds).
CREATE TABLE feed_directives (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feed_id  BIGINT      NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    at       TIMESTAMPTZ NOT NULL,
    seen     TEXT        NOT NULL,
    current  TEXT        NOT NULL,
    full_response BOOLEAN     NOT NULL
);
CREATE INDEX feed_directives_feed ON feed_directives (feed_id, id DESC);
