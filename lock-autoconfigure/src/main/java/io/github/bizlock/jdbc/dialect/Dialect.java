package io.github.bizlock.jdbc.dialect;

import io.github.bizlock.jdbc.TableName;
import java.util.Collections;

/**
 * The SQL of one server family. MySQL 8 and MariaDB run the lease statements alike; they differ in version limits
 * and in the session-held modes.
 *
 * <p>Times are the database's: {@code UTC_TIMESTAMP(6)}, never a client clock and never {@code NOW()}, which follows the
 * session time zone. Lease lengths are bound in microseconds. {@code LAST_INSERT_ID(expr)} hands the new fencing
 * token back in the statement's OK packet, read through {@code getGeneratedKeys()}, so acquiring costs one round
 * trip and its outcome cannot be misread from an affected-rows count.
 */
public abstract sealed class Dialect permits MySqlDialect, MariaDbDialect {

    private static final String TABLE = "${table}";

    private final String table;

    protected Dialect(String table) {
        this.table = TableName.validate(table);
    }

    /** The server family, e.g. {@code MySQL}. */
    public abstract String product();

    protected final String sql(String text) {
        return text.replace(TABLE, table);
    }

    /** Takes over the lock's row if it is free or its lease has ended; sets the new token as the generated key. */
    public String acquireExisting() {
        return sql("""
                UPDATE ${table}
                   SET owner_id      = ?,
                       fencing_token = LAST_INSERT_ID(fencing_token + 1),
                       acquired_at   = UTC_TIMESTAMP(6),
                       modified_at   = UTC_TIMESTAMP(6),
                       expire_at     = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6))
                """);
    }

    /**
     * Creates the lock's row, held, with a token above every purged one. The floor row is read with a shared lock so
     * that housekeeping cannot raise it between this read and the insert.
     */
    public String acquireNew() {
        return sql("""
                INSERT INTO ${table}
                       (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at, acquired_at, modified_at)
                SELECT ?, ?, ?,
                       LAST_INSERT_ID(f.floor_token + 1),
                       UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
                       UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
                  FROM ${table}_token_floor f
                 WHERE f.id = 1
                  LOCK IN SHARE MODE
                """);
    }

    /** Frees the lock if this owner and token still hold it; the row stays for reuse and keeps its token. */
    public String release() {
        return sql("""
                UPDATE ${table}
                   SET owner_id    = NULL,
                       modified_at = UTC_TIMESTAMP(6),
                       expire_at   = UTC_TIMESTAMP(6)
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND owner_id = ?
                   AND fencing_token = ?
                """);
    }

    /** Extends the leases of {@code count} locks of one owner: parameters lease, owner, then type, id, token each. */
    public String renew(int count) {
        return sql("""
                UPDATE ${table}
                   SET modified_at = UTC_TIMESTAMP(6),
                       expire_at   = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
                 WHERE owner_id = ?
                   AND (%s)
                """.formatted(anyOf(count)));
    }

    /** Which of {@code count} locks one owner still holds: parameters owner, then type, id, token each. */
    public String stillHeld(int count) {
        return sql("""
                SELECT biz_type, biz_id, fencing_token
                  FROM ${table}
                 WHERE owner_id = ?
                   AND (%s)
                """.formatted(anyOf(count)));
    }

    private static String anyOf(int count) {
        return String.join(" OR ", Collections.nCopies(count, "(biz_type = ? AND biz_id = ? AND fencing_token = ?)"));
    }

    /** One lock's row with the database's view of whether its lease is running. */
    public String find() {
        return sql("""
                SELECT biz_type, biz_id, owner_id, fencing_token, acquired_at, expire_at,
                       owner_id IS NOT NULL AND expire_at > UTC_TIMESTAMP(6) AS held
                  FROM ${table}
                 WHERE biz_type = ?
                   AND biz_id = ?
                """);
    }

    /** Locks whose lease is running, oldest first; parameter: the row limit. */
    public String findHeld() {
        return sql("""
                SELECT biz_type, biz_id, owner_id, fencing_token, acquired_at, expire_at, TRUE AS held
                  FROM ${table}
                 WHERE owner_id IS NOT NULL
                   AND expire_at > UTC_TIMESTAMP(6)
                 ORDER BY acquired_at
                 LIMIT ?
                """);
    }

    /** The highest token among rows housekeeping may purge; parameters: retention twice (microseconds). */
    public String purgeableMaxToken() {
        return sql("""
                SELECT COALESCE(MAX(fencing_token), 0)
                  FROM ${table}
                 WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                   AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
                """);
    }

    /** Raises the token floor to at least the parameter. */
    public String raiseTokenFloor() {
        return sql("""
                UPDATE ${table}_token_floor
                   SET floor_token = GREATEST(floor_token, ?)
                 WHERE id = 1
                """);
    }

    /**
     * Deletes free or long-expired rows whose token the floor covers; parameters: floor, retention twice, batch size.
     */
    public String purge() {
        return sql("""
                DELETE FROM ${table}
                 WHERE fencing_token <= ?
                   AND modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                   AND (owner_id IS NULL OR expire_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)
                 LIMIT ?
                """);
    }

    /** Fails with 1146 when a lock table is missing. */
    public String probeTables() {
        return sql("""
                SELECT (SELECT COUNT(*) FROM ${table} WHERE 1 = 0)
                     + (SELECT COUNT(*) FROM ${table}_token_floor WHERE id = 1)
                """);
    }

    /** The database's clock, for tests and diagnostics. */
    public String currentTime() {
        return "SELECT UTC_TIMESTAMP(6)";
    }
}
