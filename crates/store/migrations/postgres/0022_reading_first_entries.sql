-- tidings store, PostgreSQL: a subscription made before its feed has any entry waits for them
-- (issue 15). Its reading state starts with the first entries stored, so a new subscription
-- starts with the newest of them unread (`reading::NEW_SUBSCRIPTION_UNREAD`) whether the feed
-- was read before it or after.
ALTER TABLE subscriptions ADD COLUMN awaiting_entries BOOLEAN NOT NULL DEFAULT FALSE;
