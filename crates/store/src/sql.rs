//! SQL written once for both backends, where their dialects agree. A statement is written in
//! PostgreSQL's `$N`; [`statements!`] makes each one a `&'static str` for PostgreSQL (`pg`)
//! and, with `?N` for `$N`, a `LazyLock<String>` for SQLite (`lite`). The backends differ only
//! in how they bind and read values (times as microseconds on SQLite, `timestamptz` on
//! PostgreSQL; NUL kept out of PostgreSQL's text), which each backend's module does.

/// `sql` with SQLite's parameter marks (`?N` for `$N`); a statement written once holds no `$`
/// anywhere else.
pub(crate) fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
}

/// `pub(crate) mod pg { const NAME: &str }` and `pub(crate) mod lite { static NAME }` for each
/// `NAME = sql;`.
macro_rules! statements {
    ($($(#[$doc:meta])* $name:ident = $sql:expr;)*) => {
        /// The statements as PostgreSQL takes them.
        pub(crate) mod pg {
            $($(#[$doc])* pub(crate) const $name: &str = $sql;)*
        }
        /// The statements as SQLite takes them.
        pub(crate) mod lite {
            $(
                $(#[$doc])*
                pub(crate) static $name: std::sync::LazyLock<String> =
                    std::sync::LazyLock::new(|| $crate::sql::for_sqlite(super::pg::$name));
            )*
        }
        #[cfg(test)]
        mod written_once {
            /// Every statement has its SQLite form, with no `$` left.
            #[test]
            fn every_statement_reads_on_both_backends() {
                $(assert!(!super::lite::$name.contains('$'), "{}", stringify!($name));)*
            }
        }
    };
}
pub(crate) use statements;

/// What the two dialects write differently in a statement built at run time: how a time is
/// bound (microseconds on SQLite, `timestamptz` on PostgreSQL) and how a column is matched
/// against a list of ids (`json_each` on SQLite, `ANY` on PostgreSQL).
pub(crate) trait Dialect: sqlx::Database {
    /// A time as this backend stores it.
    type Time: for<'t> sqlx::Encode<'t, Self> + sqlx::Type<Self> + Send + 'static;
    fn time(at: chrono::DateTime<chrono::Utc>) -> Self::Time;
    /// ` AND {column} is one of ids`, bound.
    fn push_in_ids(
        sql: &mut sqlx::QueryBuilder<Self>,
        column: &str,
        ids: &[i64],
    ) -> crate::Result<()>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn sqlite_numbers_its_parameters_alike() {
        assert_eq!(
            super::for_sqlite("UPDATE t SET a = $2 WHERE id = $1 AND b = $12"),
            "UPDATE t SET a = ?2 WHERE id = ?1 AND b = ?12"
        );
    }
}
