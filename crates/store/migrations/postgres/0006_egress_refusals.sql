-- tidings store: refusals per egress address (WFM8). A JSON object from each address a feed
-- was read from ("default" for the system's own) to whether its latest answer was a refusal.
ALTER TABLE feeds ADD COLUMN egress_refusals TEXT;
