package io.github.bizlock.autoconfigure;

/**
 * bizlock's migration was refused by the server because the lock DataSource's user may not create tables or indexes.
 * {@link LockMigrationDeniedFailureAnalyzer} reports it.
 */
final class LockMigrationDeniedException extends IllegalStateException {

    private final String user;
    private final String schema;
    private final String table;
    private final String reason;

    /**
     * @param user the account the server checked, quoted for a GRANT: {@code 'app'@'%'}
     * @param schema the database (schema) of the lock DataSource
     * @param table the configured lock table name
     * @param reason what the server said, e.g. {@code CREATE command denied to user ...}
     * @param cause the failed migration
     */
    LockMigrationDeniedException(String user, String schema, String table, String reason, Throwable cause) {
        super(
                "bizlock could not create its tables in database " + schema + " as " + user + ": " + reason + ". "
                        + grant(schema, user)
                        + " or set bizlock.migration.enabled=false and create the tables yourself",
                cause);
        this.user = user;
        this.schema = schema;
        this.table = table;
        this.reason = reason;
    }

    /** The statement that gives the user what the migrations need beyond reading and writing rows. */
    static String grant(String schema, String user) {
        return "GRANT CREATE, ALTER, INDEX ON `" + schema + "`.* TO " + user + ";";
    }

    String user() {
        return user;
    }

    String schema() {
        return schema;
    }

    String table() {
        return table;
    }

    String reason() {
        return reason;
    }
}
