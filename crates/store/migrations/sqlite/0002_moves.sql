-- A permanent redirect seen on successful reads, waiting for its observation window before
-- the feed's URL moves (PF9; the profile's redirects.persist_permanent_after).
ALTER TABLE feeds ADD COLUMN moved_to TEXT;
ALTER TABLE feeds ADD COLUMN moved_since INTEGER;
