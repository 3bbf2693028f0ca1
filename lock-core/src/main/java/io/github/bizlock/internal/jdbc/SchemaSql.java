package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;

/** The statements that check the lock tables and their indexes exist, alike on MySQL 8 and MariaDB. */
final class SchemaSql {

    /** The schema the lock DataSource's connections use, which holds the lock tables; NULL when none. */
    static final String CURRENT_SCHEMA = "SELECT DATABASE()";

    private final Dialect dialect;

    SchemaSql(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Which of the lock tables that the migrations create exist in the current schema; selects their names. */
    String existingTables() {
        return dialect.render("""
                SELECT table_name AS name
                  FROM information_schema.tables
                 WHERE table_schema = DATABASE()
                   AND table_name IN ('${table}', '${table}_token_floor', '${table}_row', '${table}_token',
                                      '${table}_mode')
                """);
    }

    /** Counts the index the migration V3 creates (0 or 1). */
    String rowIndexExists() {
        return dialect.render("""
                SELECT COUNT(*)
                  FROM information_schema.statistics
                 WHERE table_schema = DATABASE()
                   AND table_name = '${table}_row'
                   AND index_name = '${table}_row_created_at'
                """);
    }

    /**
     * Which of the columns that the migrations V5 and V6 add to the lock tables exist; selects them as
     * {@code table.column}.
     */
    String fencingEpochColumns() {
        return dialect.render("""
                SELECT CONCAT(table_name, '.', column_name) AS name
                  FROM information_schema.columns
                 WHERE table_schema = DATABASE()
                   AND table_name IN ('${table}', '${table}_token', '${table}_token_floor')
                   AND column_name IN ('token_server', 'token_epoch', 'token_boot')
                """);
    }

    /** Fails with 1146 when a lock table is missing, 1054 when it lacks the latest migration's column. */
    String probeTables() {
        return dialect.render("""
                SELECT (SELECT COUNT(token_epoch) FROM ${table} WHERE 1 = 0)
                     + (SELECT COUNT(token_epoch) FROM ${table}_token WHERE 1 = 0)
                     + (SELECT COUNT(token_boot) FROM ${table}_token_floor WHERE id = 1)
                     + (SELECT COUNT(*) FROM ${table}_mode WHERE 1 = 0)
                """);
    }
}
