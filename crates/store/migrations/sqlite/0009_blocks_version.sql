-- tidings store: a counter every change of the do-not-crawl rules moves, so any process that
-- shares the store sees a new or removed rule at its next request decision (FF13) by reading
-- one row, not the whole list.
CREATE TABLE blocks_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO blocks_version (id, version) VALUES (1, 0);
CREATE TRIGGER blocks_version_insert AFTER INSERT ON blocks
BEGIN
    UPDATE blocks_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER blocks_version_update AFTER UPDATE ON blocks
BEGIN
    UPDATE blocks_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER blocks_version_delete AFTER DELETE ON blocks
BEGIN
    UPDATE blocks_version SET version = version + 1 WHERE id = 1;
END;
