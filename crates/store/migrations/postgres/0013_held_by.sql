-- tidings store: the do-not-crawl rule that holds a feed (FF13, WFM10), as its own column,
-- so that a hold is told from any other pause without reading its reason back. NULL when no
-- rule holds the feed. Holds recorded before this column are found by their reason.
ALTER TABLE feeds ADD COLUMN held_by TEXT;
UPDATE feeds SET held_by = substr(state_reason, 10)
    WHERE state = 'paused' AND state_reason LIKE 'blocked: %';
