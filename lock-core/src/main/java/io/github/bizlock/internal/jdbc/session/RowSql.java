package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.jdbc.LockJdbc;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.MariaDbDialect;
import org.jspecify.annotations.Nullable;

/**
 * ROW mode's statements on {@code <table>_row}, one subclass per server family: they differ in how a row lock waits
 * and in how a failed {@code NOWAIT} is reported.
 */
abstract sealed class RowSql permits RowSql.MySql, RowSql.MariaDb {

    private final Dialect dialect;

    private RowSql(Dialect dialect) {
        this.dialect = dialect;
    }

    static RowSql of(Dialect dialect) {
        return dialect instanceof MariaDbDialect ? new MariaDb(dialect) : new MySql(dialect);
    }

    /** Creates a ROW lock's row if it is missing; parameters type, id. */
    String createLockRow() {
        return dialect.render("""
                INSERT IGNORE INTO ${table}_row (biz_type, biz_id, created_at)
                VALUES (?, ?, UTC_TIMESTAMP(6))
                """);
    }

    /**
     * Locks a ROW lock's row, failing at once if another session holds it; parameters type, id. Selects the
     * connection id, so the caller can check that the session is the one it opened.
     */
    String lockRowNowait() {
        return selectRow("FOR UPDATE NOWAIT");
    }

    /**
     * Locks a ROW lock's row, waiting up to {@code seconds} (at least 1) for another session to release it, or to
     * the session's {@code innodb_lock_wait_timeout} where {@link #lockWaitTimeout()} sets it; parameters type, id.
     * Selects the connection id.
     */
    abstract String lockRow(long seconds);

    /**
     * Sets the session's row-lock wait in whole seconds before {@link #lockRow}, or {@code null} if the statement
     * carries its own wait; parameter: seconds.
     */
    abstract @Nullable String lockWaitTimeout();

    /** The vendor error code of a {@link #lockRowNowait()} that found the row locked. */
    abstract int nowaitErrorCode();

    /** Selects the connection id from a ROW lock's row, locking it with {@code locking}; parameters type, id. */
    final String selectRow(String locking) {
        return dialect.render("""
                SELECT CONNECTION_ID()
                  FROM ${table}_row
                 WHERE biz_type = ?
                   AND biz_id = ?
                   %s
                """.formatted(locking));
    }

    /** MySQL 8.0 and later: the wait is the session's {@code innodb_lock_wait_timeout}. */
    static final class MySql extends RowSql {

        MySql(Dialect dialect) {
            super(dialect);
        }

        @Override
        String lockRow(long seconds) {
            return selectRow("FOR UPDATE");
        }

        @Override
        String lockWaitTimeout() {
            return "SET SESSION innodb_lock_wait_timeout = ?";
        }

        /** ER_LOCK_NOWAIT, which Spring does not translate. */
        @Override
        int nowaitErrorCode() {
            return 3572;
        }
    }

    /** MariaDB 10.6 and later. */
    static final class MariaDb extends RowSql {

        MariaDb(Dialect dialect) {
            super(dialect);
        }

        /** MariaDB takes the wait in the statement ({@code WAIT n}, since 10.3), so no session variable is set. */
        @Override
        String lockRow(long seconds) {
            return selectRow("FOR UPDATE WAIT " + seconds);
        }

        @Override
        @Nullable
        String lockWaitTimeout() {
            return null;
        }

        /** A failed {@code NOWAIT} is a lock wait timeout on MariaDB. */
        @Override
        int nowaitErrorCode() {
            return LockJdbc.ER_LOCK_WAIT_TIMEOUT;
        }
    }
}
