package io.github.bizlock.internal.jdbc.dialect;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

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

    private static final int MAX_RENDERED = 256;

    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    /** The server family, e.g. {@code MySQL}. */
    public abstract String product();

    protected final String sql(String text) {
        // Statements are built on every lock operation: render each once. Templates are constants, except the few
        // that carry a wait in seconds, so the map stays small; past the bound, render without keeping.
        String cached = rendered.get(text);
        if (cached != null) {
            return cached;
        }
        String sql = text.replace(TABLE, table);
        if (rendered.size() < MAX_RENDERED) {
            rendered.put(text, sql);
        }
        return sql;
    }

    /**
     * Takes over the lock's row if it is free or its lease has ended, raising its token by the number of tokens
     * reserved; sets the new token as the generated key. Parameters owner, tokens, lease (µs), type, id.
     */
    public String acquireExisting() {
        return sql("""
                UPDATE ${table}
                   SET owner_id      = ?,
                       fencing_token = LAST_INSERT_ID(fencing_token + ?),
                       acquired_at   = UTC_TIMESTAMP(6),
                       modified_at   = UTC_TIMESTAMP(6),
                       expire_at     = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6))
                """);
    }

    /**
     * Creates the lock's row, held, with a token above every purged one (by the number of tokens reserved). The
     * floor row is read with a shared lock so that housekeeping cannot raise it between this read and the insert.
     * Parameters type, id, owner, tokens, lease (µs).
     */
    public String acquireNew() {
        return sql("""
                INSERT INTO ${table}
                       (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at, acquired_at, modified_at)
                SELECT ?, ?, ?,
                       LAST_INSERT_ID(f.floor_token + ?),
                       UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
                       UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
                  FROM ${table}_token_floor f
                 WHERE f.id = 1
                  LOCK IN SHARE MODE
                """);
    }

    /** Frees the lock if this owner and token still hold it; the row stays for reuse and keeps its token. */
    public String release() {
        return freeLock("owner_id = ? AND fencing_token = ?");
    }

    /** Frees a lock's row if {@code holder} matches; parameters type, id, then those of {@code holder}. */
    private String freeLock(String holder) {
        return sql("""
                UPDATE ${table}
                   SET owner_id    = NULL,
                       modified_at = UTC_TIMESTAMP(6),
                       expire_at   = UTC_TIMESTAMP(6)
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND %s
                """.formatted(holder));
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

    /**
     * Frees a lock whoever holds it, for an operator's force release; parameters type, id. The row keeps its token, so
     * the next holder gets a higher one, and the former holder's watchdog or unlock finds the lock gone.
     */
    public String forceRelease() {
        return freeLock("owner_id IS NOT NULL");
    }

    /** Which of the lock tables that the migrations create exist in the current schema; selects their names. */
    public String existingTables() {
        return sql("""
                SELECT table_name AS name
                  FROM information_schema.tables
                 WHERE table_schema = DATABASE()
                   AND table_name IN ('${table}', '${table}_token_floor', '${table}_row', '${table}_token')
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

    /** The highest ROW/NAMED token among token rows unused for the retention; parameter: retention (microseconds). */
    public String purgeableMaxSessionToken() {
        return sql("""
                SELECT COALESCE(MAX(last_token), 0)
                  FROM ${table}_token
                 WHERE modified_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                """);
    }

    /**
     * Deletes ROW/NAMED token rows unused for the retention whose token the floor covers; parameters: floor,
     * retention, batch size.
     */
    public String purgeSessionTokens() {
        return sql("""
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
    public String purgeableLockRows() {
        return sql("""
                SELECT biz_type, biz_id
                  FROM ${table}_row
                 WHERE created_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
                 LIMIT ?
                   FOR UPDATE SKIP LOCKED
                """);
    }

    /** Deletes one ROW lock's row; parameters: type, id. */
    public String deleteLockRow() {
        return sql("""
                DELETE FROM ${table}_row
                 WHERE biz_type = ?
                   AND biz_id = ?
                """);
    }

    /** Fails with 1146 when a lock table is missing. */
    public String probeTables() {
        return sql("""
                SELECT (SELECT COUNT(*) FROM ${table} WHERE 1 = 0)
                     + (SELECT COUNT(*) FROM ${table}_token_floor WHERE id = 1)
                """);
    }

    /**
     * Issues the next fencing tokens of a ROW or NAMED lock in a statement that commits on its own: {@code count}
     * above the last one, or above the token floor for a lock never taken; parameters type, id, mode, count, count.
     * The highest token issued is the generated key.
     */
    public String issueToken() {
        return sql("""
                INSERT INTO ${table}_token (biz_type, biz_id, lock_mode, last_token, modified_at)
                SELECT ?, ?, ?,
                       LAST_INSERT_ID(f.floor_token + ?),
                       UTC_TIMESTAMP(6)
                  FROM ${table}_token_floor f
                 WHERE f.id = 1
                  LOCK IN SHARE MODE
                    ON DUPLICATE KEY UPDATE
                       last_token  = LAST_INSERT_ID(last_token + ?),
                       modified_at = UTC_TIMESTAMP(6)
                """);
    }

    /** The last fencing token issued for a ROW or NAMED lock; parameters type, id, mode. */
    public String lastToken() {
        return sql("""
                SELECT last_token
                  FROM ${table}_token
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND lock_mode = ?
                """);
    }

    /** Creates a ROW lock's row if it is missing; parameters type, id. */
    public String createLockRow() {
        return sql("""
                INSERT IGNORE INTO ${table}_row (biz_type, biz_id, created_at)
                VALUES (?, ?, UTC_TIMESTAMP(6))
                """);
    }

    /**
     * Locks a ROW lock's row, failing at once if another session holds it; parameters type, id. Selects the
     * connection id, so the caller can check that the session is the one it opened.
     */
    public String lockRowNowait() {
        return selectRow("FOR UPDATE NOWAIT");
    }

    /**
     * Locks a ROW lock's row, waiting up to {@code seconds} (at least 1) for another session to release it, or to
     * the session's {@code innodb_lock_wait_timeout} where {@link #rowLockWaitTimeout()} sets it; parameters type,
     * id. Selects the connection id.
     */
    public String lockRow(long seconds) {
        return selectRow("FOR UPDATE");
    }

    /** Selects the connection id from a ROW lock's row, locking it with {@code locking}; parameters type, id. */
    protected final String selectRow(String locking) {
        return sql("""
                SELECT CONNECTION_ID()
                  FROM ${table}_row
                 WHERE biz_type = ?
                   AND biz_id = ?
                   %s
                """.formatted(locking));
    }

    /**
     * Sets the session's row-lock wait in whole seconds before {@link #lockRow}, or {@code null} if the statement
     * carries its own wait; parameter: seconds.
     */
    public @Nullable String rowLockWaitTimeout() {
        return "SET SESSION innodb_lock_wait_timeout = ?";
    }

    /** The vendor error code of a {@link #lockRowNowait()} that found the row locked. */
    public abstract int nowaitErrorCode();

    /** Takes a named lock, waiting up to whole seconds; parameters name, seconds. Also selects the connection id. */
    public String getLock() {
        return "SELECT GET_LOCK(?, ?), CONNECTION_ID()";
    }

    /** Releases a named lock: 1 if this session held it, 0 if another does, NULL if nobody; parameter name. */
    public String releaseLock() {
        return "SELECT RELEASE_LOCK(?)";
    }

    /** Whether this session holds a named lock (1), or not (0 or NULL); parameter name. */
    public String holdsLock() {
        return "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";
    }

    /** This session's connection id. */
    public String connectionId() {
        return "SELECT CONNECTION_ID()";
    }

    /** Ends the statement running on another session; the connection id is a number put into the text. */
    public String killQuery(long connectionId) {
        return "KILL QUERY " + connectionId;
    }

    /** The database's clock, for tests and diagnostics. */
    public String currentTime() {
        return "SELECT UTC_TIMESTAMP(6)";
    }
}
