//! The search-query aggregate's SQL (FF18: query definitions as a discovery source), written
//! once for both backends (`crate::sql`).

/// A query definition's columns.
macro_rules! columns {
    () => {
        "SELECT id, provider, query, created_at, last_run_at, last_result FROM search_queries"
    };
}

crate::sql::statements! {
    /// Parameters: provider, query, created at; a definition stored already stays.
    ADD_QUERY = "INSERT INTO search_queries (provider, query, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (provider, query) DO NOTHING";
    /// Parameters: provider, query.
    QUERY_BY_TEXT = concat!(columns!(), " WHERE provider = $1 AND query = $2");
    LIST_QUERIES = concat!(columns!(), " ORDER BY id");
    /// Parameter: id.
    REMOVE_QUERY = "DELETE FROM search_queries WHERE id = $1";
    /// Parameters: id, when, result.
    QUERY_RAN = "UPDATE search_queries SET last_run_at = $2, last_result = $3 WHERE id = $1";
}
