-- tidings store: the page queue (FF1, FF4). A job finds the feeds of one URL or spiders from
-- one page within a budget; its frontier and what it spent are written as it goes, so a job
-- left by a stopped crawler goes on where it was. A finished job is dropped after its own
-- retention period (FF17); the URL checks it made live in url_checks.
CREATE TABLE page_jobs (
    id            INTEGER PRIMARY KEY,
    kind          TEXT    NOT NULL,                 -- discover | spider
    url           TEXT    NOT NULL,
    state         TEXT    NOT NULL,                 -- queued | running | done | failed
    requested_by  TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    updated_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    -- a spider run's budget (all null for a discovery job)
    depth         INTEGER,
    max_urls      INTEGER,
    max_requests  INTEGER,
    max_bytes     INTEGER,
    max_time_ms   INTEGER,
    linked_sites  INTEGER,
    -- spent so far
    requests      INTEGER NOT NULL DEFAULT 0,
    bytes         INTEGER NOT NULL DEFAULT 0,
    urls          INTEGER NOT NULL DEFAULT 0,
    pages         INTEGER NOT NULL DEFAULT 0,
    elapsed_ms    INTEGER NOT NULL DEFAULT 0,
    feeds         INTEGER NOT NULL DEFAULT 0,
    duplicates    INTEGER NOT NULL DEFAULT 0,
    refused       INTEGER NOT NULL DEFAULT 0,
    stopped_by    TEXT,
    error         TEXT
);

CREATE INDEX page_jobs_waiting ON page_jobs (state, id) WHERE state IN ('queued', 'running');
CREATE INDEX page_jobs_finished ON page_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- A job's frontier: every URL it queued, once, in order (`seq`); `done` once read.
CREATE TABLE page_queue (
    job_id   INTEGER NOT NULL REFERENCES page_jobs (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    url      TEXT    NOT NULL,
    depth    INTEGER NOT NULL,
    found_on TEXT,
    done     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, url)
);

CREATE INDEX page_queue_order ON page_queue (job_id, seq);

-- The feeds a job found, each once.
CREATE TABLE page_job_feeds (
    job_id  INTEGER NOT NULL REFERENCES page_jobs (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    url     TEXT    NOT NULL,
    title   TEXT,
    feed_id INTEGER REFERENCES feeds (id) ON DELETE SET NULL,
    held    INTEGER NOT NULL DEFAULT 0,
    note    TEXT,
    PRIMARY KEY (job_id, url)
);
