package io.github.bizlock.internal.jdbc.dialect;

/** The statements that check the lock tables and their indexes exist, alike on MySQL 8 and MariaDB. */
public final class SchemaSql {

    /** The schema the lock DataSource's connections use, which holds the lock tables; NULL when none. */
    public static final String CURRENT_SCHEMA = "SELECT DATABASE()";

    private static final String EXISTING_TABLES = """
            SELECT table_name AS name
              FROM information_schema.tables
             WHERE table_schema = DATABASE()
               AND table_name IN ('${table}', '${table}_token_floor', '${table}_row', '${table}_token',
                                  '${table}_mode', '${table}_reader')
            """;

    private static final String ROW_INDEX_EXISTS = """
            SELECT COUNT(*)
              FROM information_schema.statistics
             WHERE table_schema = DATABASE()
               AND table_name = '${table}_row'
               AND index_name = '${table}_row_created_at'
            """;

    private static final String FENCING_EPOCH_COLUMNS = """
            SELECT CONCAT(table_name, '.', column_name) AS name
              FROM information_schema.columns
             WHERE table_schema = DATABASE()
               AND table_name IN ('${table}', '${table}_token', '${table}_token_floor', '${table}_mode')
               AND column_name IN ('token_server', 'token_epoch', 'token_boot', 'read_until', 'write_intent_until',
                                   'permits')
            """;

    private static final String PROBE_TABLES = """
            SELECT (SELECT COUNT(token_epoch) FROM ${table} WHERE 1 = 0)
                 + (SELECT COUNT(token_epoch) FROM ${table}_token WHERE 1 = 0)
                 + (SELECT COUNT(token_boot) FROM ${table}_token_floor WHERE id = 1)
                 + (SELECT COUNT(permits) FROM ${table}_mode WHERE 1 = 0)
                 + (SELECT COUNT(write_intent_until) FROM ${table} WHERE 1 = 0)
                 + (SELECT COUNT(*) FROM ${table}_reader WHERE 1 = 0)
            """;

    private final String existingTables;
    private final String rowIndexExists;
    private final String fencingEpochColumns;
    private final String probeTables;

    public SchemaSql(Dialect dialect) {
        this.existingTables = dialect.render(EXISTING_TABLES);
        this.rowIndexExists = dialect.render(ROW_INDEX_EXISTS);
        this.fencingEpochColumns = dialect.render(FENCING_EPOCH_COLUMNS);
        this.probeTables = dialect.render(PROBE_TABLES);
    }

    /** Which of the lock tables that the migrations create exist in the current schema; selects their names. */
    public String existingTables() {
        return existingTables;
    }

    /** Counts the index the migration V3 creates (0 or 1). */
    public String rowIndexExists() {
        return rowIndexExists;
    }

    /**
     * Which of the columns that the migrations V5, V6, V7 and V8 add to the lock tables exist; selects them as
     * {@code table.column}.
     */
    public String fencingEpochColumns() {
        return fencingEpochColumns;
    }

    /** Fails with 1146 when a lock table is missing, 1054 when it lacks the latest migration's column. */
    public String probeTables() {
        return probeTables;
    }
}
