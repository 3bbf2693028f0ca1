package io.github.bizlock.internal.jdbc.dialect;

import java.sql.SQLException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The MySQL family's server error codes that bizlock acts on (MariaDB shares them; where a failed {@code NOWAIT}
 * differs, the {@link Dialect} says), and what each means for a lock statement: retried, refused for now, a missing
 * table.
 */
public final class ServerErrors {

    /** A unique key taken: the lock's row exists. */
    public static final int ER_DUP_ENTRY = 1062;

    /** A row lock wait ran out (and MariaDB's failed {@code NOWAIT}). */
    public static final int ER_LOCK_WAIT_TIMEOUT = 1205;

    /** A deadlock, or on a Galera node a write that failed certification against another node's. */
    public static final int ER_LOCK_DEADLOCK = 1213;

    /** A Galera node outside the primary component, or not yet synced: "WSREP has not yet prepared node". */
    public static final int ER_WSREP_NOT_READY = 1047;

    /** A Galera node that lost the primary component while committing: the write was not committed. */
    public static final int ER_ERROR_DURING_COMMIT = 1180;

    /**
     * A multi-primary Group Replication member whose write failed certification against another member's ("Plugin
     * instructed the server to rollback the current transaction"): not committed, as a Galera 1213 is not.
     */
    public static final int ER_TRANSACTION_ROLLBACK_DURING_COMMIT = 3101;

    /** A lock table that does not exist. */
    public static final int ER_NO_SUCH_TABLE = 1146;

    /** Unknown column: a lock table created by the migrations of an earlier version only. */
    public static final int ER_BAD_FIELD_ERROR = 1054;

    /** MySQL's failed {@code FOR UPDATE NOWAIT}, which Spring does not translate. */
    public static final int ER_LOCK_NOWAIT = 3572;

    /** A statement ended by {@code KILL QUERY}. */
    public static final int ER_QUERY_INTERRUPTED = 1317;

    /** {@code KILL QUERY} of a connection id the server does not run. */
    public static final int ER_NO_SUCH_THREAD = 1094;

    /** ER_ACCESS_DENIED_ERROR: "Access denied for user ... (using password: YES)", the credentials refused. */
    public static final int ER_ACCESS_DENIED = 1045;

    /** ER_DBACCESS_DENIED_ERROR: "Access denied for user ... to database ...". */
    public static final int ER_DBACCESS_DENIED = 1044;

    /** ER_TABLEACCESS_DENIED_ERROR: "CREATE command denied to user ... for table ...". */
    public static final int ER_TABLEACCESS_DENIED = 1142;

    /** The SQL state of refused credentials ("invalid authorization specification"), whatever the driver's code. */
    private static final String INVALID_AUTHORIZATION = "28000";

    /** The SQL state of a transaction the server rolled back for a conflict (a deadlock, a certification failure). */
    private static final String SERIALIZATION_FAILURE = "40001";

    private ServerErrors() {}

    /**
     * Turns a JDBC failure into Spring's exception for it, by the MySQL family's error codes. Connection failures carry
     * none of them and get the same exception as from a {@code JdbcTemplate}.
     */
    public static DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = Translator.INSTANCE.translate(task, null, ex);
        return translated != null ? translated : new UncategorizedSQLException(task, null, ex);
    }

    /** Loaded on first use: reading Spring's error code table takes a while. */
    private static final class Translator {
        static final SQLExceptionTranslator INSTANCE = new SQLErrorCodeSQLExceptionTranslator("MySQL");
    }

    /** Whether the server rolled the statement back for a conflict (1213, 1205) that a new attempt may not meet. */
    public static boolean isTransient(DataAccessException ex) {
        int code = errorCode(ex);
        return code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT;
    }

    /**
     * Whether a write was refused without taking effect, in a way a later attempt may not meet: a conflict (1213, 1205,
     * a cluster's certification failure) or a cluster node that cannot take writes right now (1047, 1180).
     */
    public static boolean refusedForNow(DataAccessException ex) {
        int code = errorCode(ex);
        return isTransient(ex)
                || code == ER_WSREP_NOT_READY
                || code == ER_ERROR_DURING_COMMIT
                || code == ER_TRANSACTION_ROLLBACK_DURING_COMMIT;
    }

    /** Whether an insert found the unique key taken. */
    public static boolean duplicateKey(DataAccessException ex) {
        return errorCode(ex) == ER_DUP_ENTRY;
    }

    /** Whether a statement found a lock table, or a column of this version, missing. */
    public static boolean missingTable(DataAccessException ex) {
        int code = errorCode(ex);
        return code == ER_NO_SUCH_TABLE || code == ER_BAD_FIELD_ERROR;
    }

    /**
     * Whether a statement failed because its connection did, before the server answered (SQL state class 08: the
     * server died or the network dropped), as when a cluster node crashes under the pool's connections. A new
     * connection, through a failover URL, reaches a live node.
     */
    public static boolean connectionFailed(DataAccessException ex) {
        SQLException sql = firstSql(ex, any -> true);
        return sql != null && sql.getSQLState() != null && sql.getSQLState().startsWith("08");
    }

    /** Whether the server answered a connection attempt and refused its credentials, anywhere in the causes. */
    public static boolean credentialsRefused(Throwable failure) {
        return firstSql(
                        failure,
                        sql -> sql.getErrorCode() == ER_ACCESS_DENIED
                                || INVALID_AUTHORIZATION.equals(sql.getSQLState()))
                != null;
    }

    /** The server's refusal of a statement for lack of rights on a database or table, in the causes, or {@code null}. */
    public static @Nullable SQLException rightsRefused(Throwable failure) {
        return firstSql(
                failure,
                sql -> sql.getErrorCode() == ER_TABLEACCESS_DENIED || sql.getErrorCode() == ER_DBACCESS_DENIED);
    }

    /**
     * Whether the server rolled a transaction back for a conflict (1213, SQL state 40001), anywhere in the causes: a
     * deadlock, or a cluster's certification failure, which a new attempt may not meet.
     */
    public static boolean rolledBackForConflict(Throwable failure) {
        return firstSql(
                        failure,
                        sql -> sql.getErrorCode() == ER_LOCK_DEADLOCK
                                || SERIALIZATION_FAILURE.equals(sql.getSQLState()))
                != null;
    }

    /** The first {@link SQLException} in the causes that passes the test, or {@code null}. */
    private static @Nullable SQLException firstSql(Throwable failure, Predicate<SQLException> test) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && test.test(sql)) {
                return sql;
            }
        }
        return null;
    }

    /** The server's error code in the first {@link SQLException} of the cause chain, or 0. */
    public static int errorCode(Throwable ex) {
        SQLException sql = firstSql(ex, any -> true);
        return sql == null ? 0 : sql.getErrorCode();
    }
}
