-- tidings store, SQLite: an entry's text is stored once (issue 17, bytes per entry). The
-- words search reads (`codec::search_text`: the text of the summary and the content) were a
-- column of their own beside the JSON that holds the content, so each entry's text was stored
-- twice. Now only the full-text index keeps them: a contentless FTS5 table (it keeps the index,
-- not the text), written by tidings with each entry (`sqlite::apply`), and emptied of an entry
-- by the trigger below when the entry goes.
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, search_text,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61'
);
INSERT INTO entries_fts (rowid, title, search_text) SELECT id, title, search_text FROM entries;
ALTER TABLE entries DROP COLUMN search_text;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_fts WHERE rowid = old.id;
END;
