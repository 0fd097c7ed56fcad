-- tidings store, SQLite: category filter and expiry (issue 4, FF16).
-- `entries.categories` holds an entry's categories trimmed and lower-cased, each followed by
-- the unit separator (char 31) and the whole preceded by one, so a category is found by
-- looking for char(31) || term || char(31). `feeds.expires` is the feed's own `dcterms:valid`
-- end, which applies to its entries.

ALTER TABLE entries ADD COLUMN categories TEXT;
ALTER TABLE feeds ADD COLUMN expires INTEGER;
-- Every current listing leaves out the entries of expired feeds: the few feeds with an end.
CREATE INDEX feeds_expires ON feeds (expires) WHERE expires IS NOT NULL;

-- Entries stored before this migration. SQLite's lower() folds ASCII letters only; entries
-- written from now on are folded by the Rust code, which folds every letter.
UPDATE entries SET categories = (
    SELECT char(31) || group_concat(lower(trim(value)), char(31)) || char(31)
    FROM json_each(entries.data, '$.categories')
    WHERE trim(value) <> ''
)
WHERE json_array_length(entries.data, '$.categories') > 0;
