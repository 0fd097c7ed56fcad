-- tidings store: search-engine query definitions, a discovery source (FF18). A query names
-- the provider that runs it; with no provider of that name connected it is kept and not run.
CREATE TABLE search_queries (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider    TEXT    NOT NULL,
    query       TEXT    NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    last_run_at TIMESTAMPTZ,
    last_result TEXT,                     -- what the last run did, in words
    UNIQUE (provider, query)
);
