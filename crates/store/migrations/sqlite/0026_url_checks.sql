-- tidings store: what discovery checked (FF2). One row per check of a URL, never updated: a
-- recheck after the cooldown adds a row and keeps the earlier one. A row keeps only the URL's
-- identity, its disposition and the decision (FF17): no page text, no copied description.
CREATE TABLE url_checks (
    id          INTEGER PRIMARY KEY,
    url         TEXT    NOT NULL,            -- normalised, query kept (FF3), no fragment
    checked_at  INTEGER NOT NULL,
    disposition TEXT    NOT NULL,            -- feed | not_a_feed | duplicate | held | refused | failed
    reason      TEXT    NOT NULL,            -- the decision, in words
    feed_id     INTEGER REFERENCES feeds (id) ON DELETE SET NULL, -- the feed it is, or may be
    source      TEXT    NOT NULL,            -- submitted | alternate | body_link | common_path | spider
    found_on    TEXT                         -- the page it was found on
);

CREATE INDEX url_checks_url ON url_checks (url, checked_at);
CREATE INDEX url_checks_held ON url_checks (disposition) WHERE disposition = 'held';

-- FF3: a feed found is matched to a stored one by its body's hash and by entry ids in common.
CREATE INDEX feeds_content_hash ON feeds (content_hash) WHERE content_hash IS NOT NULL;
CREATE INDEX entries_key ON entries (entry_key);
