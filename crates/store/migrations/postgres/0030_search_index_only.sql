-- tidings store, PostgreSQL: an entry's text is stored once (issue 17, bytes per entry). The
-- words search reads (`codec::search_text`: the text of the summary and the content) were a
-- column of their own beside the JSON that holds the content. Now only the `search` vector
-- keeps them, written by tidings with each entry (`postgres::apply`, `SEARCH_VECTOR`).
ALTER TABLE entries DROP COLUMN search;
ALTER TABLE entries ADD COLUMN search TSVECTOR;
UPDATE entries SET search =
    to_tsvector('simple', left(coalesce(title, '') || ' ' || coalesce(search_text, ''), 100000));
ALTER TABLE entries DROP COLUMN search_text;
CREATE INDEX entries_search ON entries USING GIN (search);
