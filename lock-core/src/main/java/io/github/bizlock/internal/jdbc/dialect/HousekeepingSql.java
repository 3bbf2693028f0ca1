package io.github.bizlock.internal.jdbc.dialect;

/**
 * Housekeeping's statements on every lock table, alike on MySQL 8 and MariaDB. Retentions are bound in microseconds
 * and measured by the database's clock.
 */
public final class HousekeepingSql {

    private static final String PURGEABLE_MAX_TOKEN = """
            SELECT COALESCE(MAX(fencing_token), 0)
              FROM ${table}
             WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
               AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
               AND (read_until IS NULL OR read_until < UTC_TIMESTAMP(6))
            """;

    private static final String RAISE_TOKEN_FLOOR = """
            UPDATE ${table}_token_floor
               SET floor_token = GREATEST(floor_token, ?)
             WHERE id = 1
            """;

    private static final String PURGE = """
            DELETE FROM ${table}
             WHERE fencing_token <= ?
               AND modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
               AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
               AND (read_until IS NULL OR read_until < UTC_TIMESTAMP(6))
             LIMIT ?
            """;

    // Read leases of instances that stopped without ending them (a crash): they stopped counting when they ended, and
    // go after the retention.
    private static final String ENDED_READERS = """
            SELECT EXISTS (SELECT 1
                             FROM ${table}_reader
                            WHERE expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
            """;

    private static final String PURGE_READERS = """
            DELETE FROM ${table}_reader
             WHERE expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
             LIMIT ?
            """;

    private static final String PURGEABLE_MAX_SESSION_TOKEN = """
            SELECT COALESCE(MAX(last_token), 0)
              FROM ${table}_token
             WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
            """;

    private static final String PURGE_SESSION_TOKENS = """
            DELETE FROM ${table}_token
             WHERE last_token <= ?
               AND modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
             LIMIT ?
            """;

    private static final String PURGEABLE_LOCK_ROWS = """
            SELECT biz_type, biz_id
              FROM ${table}_row
             WHERE created_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
             LIMIT ?
               FOR UPDATE SKIP LOCKED
            """;

    private static final String DELETE_LOCK_ROW = """
            DELETE FROM ${table}_row
             WHERE biz_type = ?
               AND biz_id = ?
            """;

    private final String purgeableMaxToken;
    private final String raiseTokenFloor;
    private final String purge;
    private final String purgeReaders;
    private final String endedReaders;
    private final String purgeableMaxSessionToken;
    private final String purgeSessionTokens;
    private final String purgeableLockRows;
    private final String deleteLockRow;

    public HousekeepingSql(Dialect dialect) {
        this.purgeableMaxToken = dialect.render(PURGEABLE_MAX_TOKEN);
        this.raiseTokenFloor = dialect.render(RAISE_TOKEN_FLOOR);
        this.purge = dialect.render(PURGE);
        this.purgeReaders = dialect.render(PURGE_READERS);
        this.endedReaders = dialect.render(ENDED_READERS);
        this.purgeableMaxSessionToken = dialect.render(PURGEABLE_MAX_SESSION_TOKEN);
        this.purgeSessionTokens = dialect.render(PURGE_SESSION_TOKENS);
        this.purgeableLockRows = dialect.render(PURGEABLE_LOCK_ROWS);
        this.deleteLockRow = dialect.render(DELETE_LOCK_ROW);
    }

    /** The highest token among rows housekeeping may purge; parameters: retention twice (microseconds). */
    public String purgeableMaxToken() {
        return purgeableMaxToken;
    }

    /** Raises the token floor to at least the parameter. */
    public String raiseTokenFloor() {
        return raiseTokenFloor;
    }

    /**
     * Deletes free or long-expired rows whose token the floor covers; parameters: floor, retention twice, batch size.
     */
    public String purge() {
        return purge;
    }

    /** The highest ROW/NAMED token among token rows unused for the retention; parameter: retention (microseconds). */
    public String purgeableMaxSessionToken() {
        return purgeableMaxSessionToken;
    }

    /**
     * Deletes ROW/NAMED token rows unused for the retention whose token the floor covers; parameters: floor,
     * retention, batch size.
     */
    public String purgeSessionTokens() {
        return purgeSessionTokens;
    }

    /**
     * Rows of ROW locks created before the retention that nobody holds now, locked for deletion (a held row is
     * skipped, never waited for); parameters: retention, batch size.
     */
    public String purgeableLockRows() {
        return purgeableLockRows;
    }

    /** Deletes one ROW lock's row; parameters: type, id. */
    public String deleteLockRow() {
        return deleteLockRow;
    }

    /** Whether read leases ended longer ago than the retention; parameter retention (µs). */
    public String endedReaders() {
        return endedReaders;
    }

    /** Deletes read leases that ended longer ago than the retention; parameters retention (µs), limit. */
    public String purgeReaders() {
        return purgeReaders;
    }
}
