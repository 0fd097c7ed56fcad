-- tidings store: a process that finds a host held by another says it wants it, so the holder's
-- next lane does not take the host straight back (first come, first served; a want is fresh
-- while its process keeps asking).
ALTER TABLE host_leases ADD COLUMN wanted_by TEXT;
ALTER TABLE host_leases ADD COLUMN wanted_at TIMESTAMPTZ;
