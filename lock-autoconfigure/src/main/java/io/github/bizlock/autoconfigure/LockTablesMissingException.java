package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockTables;
import java.util.List;

/**
 * Lock tables missing at start-up, after the migration ran or with it turned off. {@link LockTablesMissingFailureAnalyzer}
 * reports it.
 */
final class LockTablesMissingException extends IllegalStateException {

    private final List<String> missing;
    private final String schema;
    private final String table;
    private final boolean migrationEnabled;

    /**
     * @param missing the tables that are not there
     * @param schema the database (schema) of the lock DataSource
     * @param table the configured lock table name
     * @param migrationEnabled whether bizlock's migration ran before the tables were found missing
     */
    LockTablesMissingException(List<String> missing, String schema, String table, boolean migrationEnabled) {
        super("The bizlock tables " + String.join(", ", missing) + " are missing from database " + schema
                + " (bizlock.migration.enabled=" + migrationEnabled + "). Run the statements of the migrations not"
                + " applied yet:\n" + LockTables.ddl(table));
        this.missing = List.copyOf(missing);
        this.schema = schema;
        this.table = table;
        this.migrationEnabled = migrationEnabled;
    }

    List<String> missing() {
        return missing;
    }

    String schema() {
        return schema;
    }

    String table() {
        return table;
    }

    boolean migrationEnabled() {
        return migrationEnabled;
    }
}
