-- tidings store, PostgreSQL: reading state per account (issue 15).
--
-- A subscription of an account carries the reader's title and folder, and a read floor: an
-- entry of the feed first seen at or before `read_floor` is read, one first seen after it is
-- unread, unless `entry_states` says otherwise for that entry. "Mark all read" moves the
-- floor; marking one entry writes one row. `unread` is the subscription's count of unread
-- entries, kept exact by every write that changes it (new entries, a mark, a floor moved), so
-- counts are read without counting entries. `floor_moved_at` is when the floor last moved,
-- the change time of the entries it marked.
ALTER TABLE subscriptions ADD COLUMN account_id BIGINT REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE subscriptions ADD COLUMN title TEXT;
ALTER TABLE subscriptions ADD COLUMN folder TEXT;
ALTER TABLE subscriptions ADD COLUMN read_floor TIMESTAMPTZ NOT NULL DEFAULT 'epoch';
ALTER TABLE subscriptions ADD COLUMN floor_moved_at TIMESTAMPTZ NOT NULL DEFAULT 'epoch';
ALTER TABLE subscriptions ADD COLUMN unread BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX subscriptions_account ON subscriptions (account_id, feed_id)
    WHERE account_id IS NOT NULL;

-- One row per entry whose state an account set against its floor: `read` NULL means "as the
-- floor says" (a row kept for its star). `feed_id` and `first_seen_at` are the entry's, copied
-- so a floor moved over a feed finds its rows without reading entries.
CREATE TABLE entry_states (
    account_id    BIGINT      NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    entry_id      BIGINT      NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    feed_id       BIGINT      NOT NULL,
    first_seen_at TIMESTAMPTZ NOT NULL,
    read          BOOLEAN,
    starred       BOOLEAN     NOT NULL DEFAULT FALSE,
    changed_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (account_id, entry_id)
);
CREATE INDEX entry_states_feed ON entry_states (account_id, feed_id, first_seen_at);
CREATE INDEX entry_states_starred ON entry_states (account_id, entry_id) WHERE starred;
