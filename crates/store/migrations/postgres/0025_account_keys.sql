-- tidings store, PostgreSQL: an API key may belong to an account (issue 15); it then acts as
-- that account (its subscriptions and reading state) and goes with it.
ALTER TABLE api_keys ADD COLUMN account_id BIGINT REFERENCES accounts (id) ON DELETE CASCADE;
