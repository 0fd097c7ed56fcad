-- tidings store: a feed's failure record, kept as the policy decided it instead of guessed
-- back from the last outcome's label. `last_failure` is the kind of the last failed read
-- (a ladder's name: not_found, forbidden, ...), NULL after a success; `failure_totals` is a
-- JSON object from each kind to the failures of that kind since the feed was added or last
-- resumed (PF5 counts 404s in total), NULL when there are none.
ALTER TABLE feeds ADD COLUMN last_failure TEXT;
ALTER TABLE feeds ADD COLUMN failure_totals TEXT;
UPDATE feeds SET last_failure = CASE
    WHEN last_outcome = 'refused' AND last_status = 429 THEN 'too_many_requests'
    WHEN last_outcome = 'refused' THEN 'forbidden'
    WHEN last_outcome = 'challenge' THEN 'challenge'
    WHEN last_outcome = 'not_found' THEN 'not_found'
    WHEN last_outcome IN ('client_error', 'gone') THEN 'client_error'
    WHEN last_outcome = 'server_error' THEN 'server_error'
    WHEN last_outcome = 'no_answer' THEN 'no_answer'
    WHEN last_outcome IN ('parse_error', 'too_large', 'bad_body', 'redirect', 'stalled_answer',
                          'head_too_large') THEN 'bad_feed'
    WHEN last_outcome = 'blocked' THEN 'not_allowed'
    ELSE NULL
END;
