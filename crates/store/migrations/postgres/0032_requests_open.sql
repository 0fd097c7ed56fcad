-- tidings store, PostgreSQL: the request log's write-ahead rows (issue 17, C7). A crawler
-- writes a request's row here, with the rule that allows it, and commits it before the
-- request is sent; the request's own `request_log` row closes it (deletes it) in the
-- transaction that stores the answer. A row left here is a request whose process stopped
-- before storing its answer: the log shows it as `in_flight`, and it goes with the log's
-- retention (FF17).
CREATE TABLE requests_open (
    id      BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL,
    feed_id BIGINT      REFERENCES feeds (id) ON DELETE SET NULL,
    host    TEXT        NOT NULL,
    purpose TEXT        NOT NULL,
    url     TEXT        NOT NULL,
    egress  TEXT,
    rule    TEXT        NOT NULL
);

CREATE INDEX requests_open_host ON requests_open (host, at DESC, id DESC);
