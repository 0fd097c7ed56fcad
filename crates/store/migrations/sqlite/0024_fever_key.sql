-- tidings store, SQLite: the Fever API's key of an account (issue 15). Fever clients send
-- md5("name:API password"); tidings keeps only the SHA-256 of that key, set and cleared with
-- the API password, and finds the account by it.
ALTER TABLE accounts ADD COLUMN fever_key_hash TEXT;
CREATE UNIQUE INDEX accounts_fever_key ON accounts (fever_key_hash) WHERE fever_key_hash IS NOT NULL;
