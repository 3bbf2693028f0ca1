package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;

/**
 * Housekeeping's statements on every lock table, alike on MySQL 8 and MariaDB. Retentions are bound in microseconds
 * and measured by the database's clock.
 */
final class HousekeepingSql {

    private final Dialect dialect;

    HousekeepingSql(Dialect dialect) {
        this.dialect = dialect;
    }

    /** The highest token among rows housekeeping may purge; parameters: retention twice (microseconds). */
    String purgeableMaxToken() {
        return dialect.render("""
                SELECT COALESCE(MAX(fencing_token), 0)
                  FROM ${table}
                 WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                   AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
                """);
    }

    /** Raises the token floor to at least the parameter. */
    String raiseTokenFloor() {
        return dialect.render("""
                UPDATE ${table}_token_floor
                   SET floor_token = GREATEST(floor_token, ?)
                 WHERE id = 1
                """);
    }

    /**
     * Deletes free or long-expired rows whose token the floor covers; parameters: floor, retention twice, batch size.
     */
    String purge() {
        return dialect.render("""
                DELETE FROM ${table}
                 WHERE fencing_token <= ?
                   AND modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                   AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
                 LIMIT ?
                """);
    }

    /** The highest ROW/NAMED token among token rows unused for the retention; parameter: retention (microseconds). */
    String purgeableMaxSessionToken() {
        return dialect.render("""
                SELECT COALESCE(MAX(last_token), 0)
                  FROM ${table}_token
                 WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                """);
    }

    /**
     * Deletes ROW/NAMED token rows unused for the retention whose token the floor covers; parameters: floor,
     * retention, batch size.
     */
    String purgeSessionTokens() {
        return dialect.render("""
                DELETE FROM ${table}_token
                 WHERE last_token <= ?
                   AND modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                 LIMIT ?
                """);
    }

    /**
     * Rows of ROW locks created before the retention that nobody holds now, locked for deletion (a held row is
     * skipped, never waited for); parameters: retention, batch size.
     */
    String purgeableLockRows() {
        return dialect.render("""
                SELECT biz_type, biz_id
                  FROM ${table}_row
                 WHERE created_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                 LIMIT ?
                   FOR UPDATE SKIP LOCKED
                """);
    }

    /** Deletes one ROW lock's row; parameters: type, id. */
    String deleteLockRow() {
        return dialect.render("""
                DELETE FROM ${table}_row
                 WHERE biz_type = ?
                   AND biz_id = ?
                """);
    }
}
