-- tidings store, PostgreSQL: search reads an entry's text, never its markup (issue 15). The
-- `search_text` column holds the text of its summary and content as a reader sees it, written
-- by tidings (see `codec::search_text`); the `search` vector is over the title and it.
--
-- Entries stored before this migration start with their summary as it was stored (markup
-- and all, as search read it until now); each is written anew when the feed changes it.
ALTER TABLE entries DROP COLUMN search;
ALTER TABLE entries ADD COLUMN search_text TEXT;
UPDATE entries SET search_text = summary;
ALTER TABLE entries ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
    to_tsvector('simple', left(coalesce(title, '') || ' ' || coalesce(search_text, ''), 100000))
) STORED;
CREATE INDEX entries_search ON entries USING GIN (search);
