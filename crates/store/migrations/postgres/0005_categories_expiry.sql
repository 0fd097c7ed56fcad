-- tidings store, PostgreSQL: category filter and expiry (issue 4, FF16).
-- `entries.categories` holds an entry's categories trimmed and lower-cased, each followed by
-- the unit separator (chr 31) and the whole preceded by one, so a category is found by
-- looking for chr(31) || term || chr(31). `feeds.expires` is the feed's own `dcterms:valid`
-- end, which applies to its entries.

ALTER TABLE entries ADD COLUMN categories TEXT;
ALTER TABLE feeds ADD COLUMN expires TIMESTAMPTZ;
-- Every current listing leaves out the entries of expired feeds: the few feeds with an end.
CREATE INDEX feeds_expires ON feeds (expires) WHERE expires IS NOT NULL;

UPDATE entries SET categories = (
    SELECT chr(31) || string_agg(lower(btrim(c)), chr(31)) || chr(31)
    FROM jsonb_array_elements_text(entries.data::jsonb -> 'categories') AS c
    WHERE btrim(c) <> ''
)
WHERE jsonb_typeof(entries.data::jsonb -> 'categories') = 'array';
