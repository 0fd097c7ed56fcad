-- tidings store, SQLite: search reads an entry's text, never its markup (issue 15). The
-- `search_text` column holds the text of its summary and content as a reader sees it, written
-- by tidings (see `codec::search_text`); the full-text index is over the title and it.
--
-- Entries stored before this migration start with their summary as it was stored (markup
-- and all, as search read it until now); each is written anew when the feed changes it.
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;

ALTER TABLE entries ADD COLUMN search_text TEXT;
UPDATE entries SET search_text = summary;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, search_text,
    content = 'entries', content_rowid = 'id',
    tokenize = 'unicode61'
);
INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, search_text) VALUES (new.id, new.title, new.search_text);
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, search_text)
    VALUES ('delete', old.id, old.title, old.search_text);
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, search_text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, search_text)
    VALUES ('delete', old.id, old.title, old.search_text);
    INSERT INTO entries_fts (rowid, title, search_text) VALUES (new.id, new.title, new.search_text);
END;
