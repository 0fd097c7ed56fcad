-- tidings store: one holder per host at a time across every process that shares the store
-- (C3). A process holds a host's lease while it sends to it; `token` moves with every claim
-- (the fencing token), `expires_at` frees the host of a holder that died, and `last_end` is
-- when the last holder's last request to the host ended, so the next holder keeps the gap.
-- Times are real (wall-clock) microseconds since 1970.
CREATE TABLE host_leases (
    host       TEXT PRIMARY KEY,
    holder     TEXT,
    token      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_end   INTEGER
);
