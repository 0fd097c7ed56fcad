-- tidings store: the catalogue (SR2), an operator's list of feeds readers may browse. A feed
-- is added after a verification read; it is not read on a schedule for being listed, only
-- when a reader subscribes, or views it with nothing stored.
CREATE TABLE catalogue (
    feed_id  BIGINT  PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
    added_by TEXT    NOT NULL,
    added_at TIMESTAMPTZ NOT NULL
);
