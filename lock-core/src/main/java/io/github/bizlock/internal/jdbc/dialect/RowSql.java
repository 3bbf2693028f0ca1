package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.Nullable;

/**
 * ROW mode's statements on {@code <table>_row}, rendered when built. The server families differ in how a row lock
 * waits and in how a failed {@code NOWAIT} is reported: the {@link Dialect} says how ({@code MySqlDialect},
 * {@code MariaDbDialect}).
 */
public final class RowSql {

    private static final String CREATE_LOCK_ROW = """
            INSERT IGNORE INTO ${table}_row (biz_type, biz_id, created_at)
            VALUES (?, ?, UTC_TIMESTAMP(6))
            """;

    private static final String SELECT_ROW = """
            SELECT CONNECTION_ID()
              FROM ${table}_row
             WHERE biz_type = ?
               AND biz_id = ?
               ${locking}""";

    private final String createLockRow;
    private final String lockRowNowait;
    private final String lockRowWaiting;
    private final boolean waitInStatement;
    private final @Nullable String lockWaitTimeout;
    private final int nowaitErrorCode;

    /** The statements of ROW's (write) locks: {@code SELECT ... FOR UPDATE}. */
    public RowSql(Dialect dialect) {
        this(dialect, "FOR UPDATE NOWAIT", dialect.rowLockWaiting());
    }

    private RowSql(Dialect dialect, String nowait, String waiting) {
        this.createLockRow = dialect.render(CREATE_LOCK_ROW);
        this.lockRowNowait = dialect.render(Dialect.fill(SELECT_ROW, "locking", nowait));
        this.lockRowWaiting = dialect.render(Dialect.fill(SELECT_ROW, "locking", waiting));
        this.waitInStatement = dialect.rowWaitInStatement();
        this.lockWaitTimeout = dialect.rowLockWaitTimeout();
        this.nowaitErrorCode = dialect.rowNowaitErrorCode();
    }

    /**
     * The statements of ROW's read locks: a shared lock on the same row, {@code FOR SHARE} on MySQL 8 and
     * {@code LOCK IN SHARE MODE} on MariaDB, so read locks share the row and exclude a write lock's
     * {@code FOR UPDATE}.
     */
    public static RowSql shared(Dialect dialect) {
        String share = dialect.rowShareLocking();
        return new RowSql(dialect, share + " NOWAIT", dialect.rowWaitInStatement() ? share + " WAIT" : share);
    }

    /** Creates a ROW lock's row if it is missing; parameters type, id. */
    public String createLockRow() {
        return createLockRow;
    }

    /**
     * Locks a ROW lock's row, failing at once if another session holds it; parameters type, id. Selects the
     * connection id, so the caller can check that the session is the one it opened.
     */
    public String lockRowNowait() {
        return lockRowNowait;
    }

    /**
     * Locks a ROW lock's row, waiting up to {@code seconds} (at least 1) for another session to release it, or to
     * the session's {@code innodb_lock_wait_timeout} where {@link #lockWaitTimeout()} sets it; parameters type, id.
     * Selects the connection id. Where the statement names its wait (MariaDB's {@code WAIT n}), the seconds are
     * appended at each use.
     */
    public String lockRow(long seconds) {
        return waitInStatement ? lockRowWaiting + " " + seconds : lockRowWaiting;
    }

    /**
     * Sets the session's row-lock wait in whole seconds before {@link #lockRow}, or {@code null} if the statement
     * carries its own wait; parameter: seconds.
     */
    public @Nullable String lockWaitTimeout() {
        return lockWaitTimeout;
    }

    /** The vendor error code of a {@link #lockRowNowait()} that found the row locked. */
    public int nowaitErrorCode() {
        return nowaitErrorCode;
    }
}
