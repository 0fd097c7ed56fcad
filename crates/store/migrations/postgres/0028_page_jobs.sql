-- tidings store: the page queue (FF1, FF4). A job finds the feeds of one URL or spiders from
-- one page within a budget; its frontier and what it spent are written as it goes, so a job
-- left by a stopped crawler goes on where it was. A finished job is dropped after its own
-- retention period (FF17); the URL checks it made live in url_checks.
CREATE TABLE page_jobs (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind          TEXT    NOT NULL,                 -- discover | spider
    url           TEXT    NOT NULL,
    state         TEXT    NOT NULL,                 -- queued | running | done | failed
    requested_by  TEXT    NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    started_at    TIMESTAMPTZ,
    updated_at    TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ,
    -- a spider run's budget (all null for a discovery job)
    depth         BIGINT,
    max_urls      BIGINT,
    max_requests  BIGINT,
    max_bytes     BIGINT,
    max_time_ms   BIGINT,
    linked_sites  BOOLEAN,
    -- spent so far
    requests      BIGINT NOT NULL DEFAULT 0,
    bytes         BIGINT NOT NULL DEFAULT 0,
    urls          BIGINT NOT NULL DEFAULT 0,
    pages         BIGINT NOT NULL DEFAULT 0,
    elapsed_ms    BIGINT NOT NULL DEFAULT 0,
    feeds         BIGINT NOT NULL DEFAULT 0,
    duplicates    BIGINT NOT NULL DEFAULT 0,
    refused       BIGINT NOT NULL DEFAULT 0,
    stopped_by    TEXT,
    error         TEXT
);

CREATE INDEX page_jobs_waiting ON page_jobs (state, id) WHERE state IN ('queued', 'running');
CREATE INDEX page_jobs_finished ON page_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- A job's frontier: every URL it queued, once, in order (`seq`); `done` once read.
CREATE TABLE page_queue (
    job_id   BIGINT NOT NULL REFERENCES page_jobs (id) ON DELETE CASCADE,
    seq      BIGINT NOT NULL,
    url      TEXT    NOT NULL,
    depth    BIGINT NOT NULL,
    found_on TEXT,
    done     BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (job_id, url)
);

CREATE INDEX page_queue_order ON page_queue (job_id, seq);

-- The feeds a job found, each once.
CREATE TABLE page_job_feeds (
    job_id  BIGINT NOT NULL REFERENCES page_jobs (id) ON DELETE CASCADE,
    seq     BIGINT NOT NULL,
    url     TEXT    NOT NULL,
    title   TEXT,
    feed_id BIGINT REFERENCES feeds (id) ON DELETE SET NULL,
    held    BOOLEAN NOT NULL DEFAULT FALSE,
    note    TEXT,
    PRIMARY KEY (job_id, url)
);
