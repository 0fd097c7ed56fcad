-- tidings store: a counter every change of the do-not-crawl rules moves, so any process that
-- shares the store sees a new or removed rule at its next request decision (FF13) by reading
-- one row, not the whole list.
CREATE TABLE blocks_version (
    id      SMALLINT PRIMARY KEY CHECK (id = 1),
    version BIGINT   NOT NULL
);
INSERT INTO blocks_version (id, version) VALUES (1, 0);
CREATE FUNCTION blocks_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE blocks_version SET version = version + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
CREATE TRIGGER blocks_version_change AFTER INSERT OR UPDATE OR DELETE ON blocks
    FOR EACH ROW EXECUTE FUNCTION blocks_version_bump();
