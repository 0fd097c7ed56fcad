-- tidings store: new entries per feed over a window (the profile's entries.max_new_per_day)
-- are counted from this index, not by reading every entry of the feed.
CREATE INDEX entries_feed_first_seen ON entries (feed_id, first_seen_at);
