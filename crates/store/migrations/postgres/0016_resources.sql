-- tidings store: the page queue (SR1, SR4, SR6, SR7, FF9). One row per resource URL and
-- purpose, read for the feeds that need it: an entry's article page (once, for its preview
-- image), a site's icon candidates (one asked at a time), an image for the cache. A row keeps
-- its memory (a 404 remembered, a temporary failure's retries) so nothing is asked again
-- before its time.
CREATE TABLE resources (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    purpose      TEXT    NOT NULL,           -- article_page | icon | image
    url          TEXT    NOT NULL,
    feed_id      BIGINT REFERENCES feeds (id) ON DELETE CASCADE, -- the feed it was queued for
    site         TEXT,                        -- icon: the site (origin) it is a candidate for
    rank         INTEGER NOT NULL DEFAULT 0,  -- icon: the candidate's place in the site's order
    first_add    BOOLEAN NOT NULL DEFAULT FALSE, -- icon: asked for a feed's first add (SR7)
    state        TEXT    NOT NULL,            -- due | waiting | done | held
    due_at       TIMESTAMPTZ,                 -- when it is read (again); NULL: never
    reason       TEXT    NOT NULL,
    retries      INTEGER NOT NULL DEFAULT 0,  -- temporary failures in a row (SR4, SR6)
    created_at   TIMESTAMPTZ NOT NULL,
    read_at      TIMESTAMPTZ,
    last_status  INTEGER,
    last_outcome TEXT,
    last_error   TEXT,
    preview      TEXT,                        -- article page: the preview found (SR1), JSON
    UNIQUE (purpose, url)
);

CREATE INDEX resources_due ON resources (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX resources_site ON resources (site, rank) WHERE site IS NOT NULL;

-- The article page read for an entry's preview (SR1); many entries may share one page.
ALTER TABLE entries ADD COLUMN page_id BIGINT REFERENCES resources (id);

-- The site (origin) a feed's icon is kept for.
ALTER TABLE feeds ADD COLUMN site TEXT;

-- One icon per site, kept here and served from here.
CREATE TABLE icons (
    site        TEXT    PRIMARY KEY,
    url         TEXT    NOT NULL,
    media_type  TEXT    NOT NULL,
    body        BYTEA   NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
