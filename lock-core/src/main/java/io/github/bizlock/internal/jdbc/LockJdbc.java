package io.github.bizlock.internal.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * How the lock tables' DAOs run their statements. Every write is one statement in autocommit on a connection of its
 * own, never the one of a transaction the caller has open, taken from the lock connections (a small pool bizlock keeps
 * beside the application's, where it has one, so that callers holding every application connection in open
 * transactions cannot starve lock writes and renewals): each commits or fails on its own, like a
 * {@code REQUIRES_NEW} transaction, without the three round trips of {@code SET autocommit=0}, {@code COMMIT},
 * {@code SET autocommit=1} around it, and an insert and an update of the unique key never share a transaction.
 * Deadlocks and lock-wait timeouts (1213, 1205) are retried a few times; a missing table fails with the DDL to run.
 */
public final class LockJdbc {

    /** How often a write is tried when the server reports a deadlock or lock-wait timeout. */
    private static final int MAX_ATTEMPTS = 4;

    static final int ER_DUP_ENTRY = 1062;

    /** ER_LOCK_WAIT_TIMEOUT: a row lock wait ran out (and MariaDB's failed {@code NOWAIT}). */
    public static final int ER_LOCK_WAIT_TIMEOUT = 1205;

    /** The longest read a bounded write waits for, however far its deadline: no lock statement takes that long. */
    private static final long MAX_READ_MILLIS = TimeUnit.SECONDS.toMillis(30);

    /** The least time before its deadline a bounded write is sent with; with less it is not sent. */
    private static final long MIN_READ_MILLIS = 250;

    private static final Executor DIRECT = Runnable::run;

    /** Dead connections one statement drops before it gives up: more than the lock pool holds (4). */
    private static final int MAX_DEAD_CONNECTIONS = 8;

    private static final int ER_LOCK_DEADLOCK = 1213;

    /** A Galera node outside the primary component, or not yet synced: "WSREP has not yet prepared node". */
    private static final int ER_WSREP_NOT_READY = 1047;

    /** A Galera node that lost the primary component while committing: the write was not committed. */
    private static final int ER_ERROR_DURING_COMMIT = 1180;

    /**
     * A multi-primary Group Replication member whose write failed certification against another member's ("Plugin
     * instructed the server to rollback the current transaction"): not committed, as a Galera 1213 is not.
     */
    private static final int ER_TRANSACTION_ROLLBACK_DURING_COMMIT = 3101;

    private static final int ER_NO_SUCH_TABLE = 1146;

    /** Unknown column: a lock table created by the migrations of an earlier version only. */
    private static final int ER_BAD_FIELD_ERROR = 1054;

    private final DataSource lockConnections;
    private final JdbcTemplate jdbc;
    private final DataSource writeScope;
    private final JdbcTemplate writeJdbc;
    private final String table;
    private final ConnectionCheck check = new ConnectionCheck();

    /**
     * @param dataSource the lock DataSource, for reads that are not lock traffic (schema checks, housekeeping, the
     *     actuator)
     * @param lockConnections where writes and the reads that decide whether a lock is held run: the same data source,
     *     or a pool of bizlock's own
     */
    LockJdbc(DataSource dataSource, DataSource lockConnections, String table) {
        this.lockConnections = lockConnections;
        this.jdbc = new JdbcTemplate(dataSource);
        // Writes run on a connection of their own, bound under this key for the write only: never the connection of a
        // transaction (or other scope) the caller has open on the data source, whatever the transaction settings.
        this.writeScope = new DelegatingDataSource(lockConnections);
        this.writeJdbc = new JdbcTemplate(writeScope);
        this.table = table;
    }

    /** Reads, and the statements of a transaction the caller runs, on the data source. */
    JdbcTemplate jdbc() {
        return jdbc;
    }

    /**
     * Runs a query that decides whether a lock is held, on a connection of its own from the lock connections, ended by
     * {@code deadlineNanos} ({@link System#nanoTime()}) like a bounded write. On a Galera node it first waits until
     * every write committed anywhere in the cluster before it is applied here ({@code wsrep_sync_wait = 1} for this
     * query only), so it never reads a holder that has already left; elsewhere it is a plain query.
     *
     * @throws DataAccessException if the query could not run by the deadline
     */
    <T> List<T> queryCausal(long deadlineNanos, boolean galera, String sql, RowMapper<T> rows, Object... params) {
        if (!galera) {
            return guarded(() -> inAutocommit(deadlineNanos, () -> writeJdbc.query(sql, rows, params)));
        }
        return guarded(() -> inAutocommit(
                deadlineNanos,
                () -> Objects.requireNonNull(writeJdbc.execute((ConnectionCallback<List<T>>) connection -> {
                    try (Statement session = connection.createStatement()) {
                        session.execute("SET SESSION wsrep_sync_wait = 1");
                        try {
                            return new JdbcTemplate(new SingleConnectionDataSource(connection, true))
                                    .query(sql, rows, params);
                        } finally {
                            session.execute("SET SESSION wsrep_sync_wait = DEFAULT");
                        }
                    }
                }))));
    }

    /**
     * Runs one write statement that has no deadline of its own (housekeeping, the migration lease): within
     * {@link #MAX_READ_MILLIS}, so that one sent on a connection to a host that died without a word still ends, and
     * the pool gets its connection back.
     */
    int update(String sql, Object... params) {
        return update(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_READ_MILLIS), sql, params);
    }

    /** Runs one write statement, ended by {@code deadlineNanos} ({@link System#nanoTime()}) whatever the database does. */
    int update(long deadlineNanos, String sql, Object... params) {
        return write(deadlineNanos, () -> writeJdbc.update(sql, params));
    }

    /**
     * Runs one write statement, then a query, on one connection of their own in autocommit: the query sees what the
     * write committed and what others committed before it, never the snapshot of a transaction the caller has open.
     */
    <T> List<T> updateThenQuery(
            long deadlineNanos,
            String update,
            Object[] updateParams,
            String query,
            RowMapper<T> rows,
            Object... queryParams) {
        return write(deadlineNanos, () -> {
            writeJdbc.update(update, updateParams);
            return writeJdbc.query(query, rows, queryParams);
        });
    }

    /**
     * Runs one write statement that sets a fencing token with {@code LAST_INSERT_ID(expr)}, ended by
     * {@code deadlineNanos} ({@link System#nanoTime()}) however the database or the pool behave: the wait for a pool
     * connection is cut off then, and reads time out then. Text parameters are bound as UTF-8 bytes.
     *
     * @return the token, or empty if the statement changed no row
     * @throws DataAccessException if the statement could not run by the deadline
     */
    OptionalLong updateReturningToken(long deadlineNanos, String sql, Object... params) {
        return write(
                deadlineNanos,
                () -> Objects.requireNonNull(writeJdbc.execute(
                        connection -> {
                            PreparedStatement statement =
                                    connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
                            bind(statement, params);
                            return statement;
                        },
                        (PreparedStatement statement) -> executeReturningToken(statement))));
    }

    /**
     * Runs a statement prepared with {@link Statement#RETURN_GENERATED_KEYS} that sets a fencing token with
     * {@code LAST_INSERT_ID(expr)}, and reads the token from its generated key.
     *
     * @return the token, or empty if the statement changed no row
     */
    static OptionalLong executeReturningToken(PreparedStatement statement) throws SQLException {
        // 1 for an insert or update; 2 for the update branch of INSERT ... ON DUPLICATE KEY UPDATE.
        if (statement.executeUpdate() == 0) {
            return OptionalLong.empty();
        }
        try (ResultSet keys = statement.getGeneratedKeys()) {
            if (!keys.next() || keys.getLong(1) <= 0) {
                throw new IllegalStateException("The server did not return the fencing token set by LAST_INSERT_ID()");
            }
            return OptionalLong.of(keys.getLong(1));
        }
    }

    private static void bind(PreparedStatement statement, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object param = params[i];
            statement.setObject(i + 1, param instanceof String text ? bytes(text) : param);
        }
    }

    private <T> T write(long deadlineNanos, Supplier<T> work) {
        return retrying(() -> inAutocommit(deadlineNanos, work));
    }

    /**
     * Runs the work (statements through {@link #writeJdbc}) on a pool connection of its own with autocommit on, bound
     * under {@link #writeScope} for the work only: a pool configured with autocommit off would otherwise leave the
     * write uncommitted, and the pool would roll it back.
     */
    private <T> T inAutocommit(long deadlineNanos, Supplier<T> work) {
        try {
            return onConnection(deadlineNanos, work);
        } catch (DataAccessException ex) {
            if (connectionFailed(ex)) {
                check.failed();
            }
            throw ex;
        }
    }

    /** A connection from the lock connections that {@link #check} lets a lock statement use. */
    private Connection connection(long deadlineNanos) {
        for (int tries = 1; ; tries++) {
            Connection connection;
            try {
                connection = Guard.INSTANCE.connection(
                        lockConnections, deadlineNanos, "getting a connection for a bizlock write");
            } catch (SQLException ex) {
                throw translate("getting a connection for a bizlock write", ex);
            }
            if (check.usable(connection)) {
                return connection;
            }
            if (tries >= MAX_DEAD_CONNECTIONS || deadlineNanos - System.nanoTime() <= 0) {
                throw new DataAccessResourceFailureException("The lock connections lent " + tries + " connection(s)"
                        + " that did not answer a ping within " + ConnectionCheck.PING_SECONDS + " s (a database host"
                        + " that went away without closing them?); the bizlock statement was not sent");
            }
        }
    }

    private <T> T onConnection(long deadlineNanos, Supplier<T> work) {
        Connection connection = connection(deadlineNanos);
        int readTimeout = -1;
        // Cleared while the statements run and set again after: on a virtual thread, a statement begun with the
        // interrupt status set closes the connection, and an interrupted holder's release would fail instead of run.
        boolean interrupted = Thread.interrupted();
        try {
            long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (millis < MIN_READ_MILLIS) {
                // Sent now, a write could commit after its read timed out, leaving a lock row nobody knows of.
                throw new DataAccessResourceFailureException("The deadline of a bizlock write passed while it"
                        + " waited for a pool connection; the write was not sent");
            }
            readTimeout = connection.getNetworkTimeout();
            // A half-open connection from the pool would otherwise hold the write until the OS gives up on it.
            connection.setNetworkTimeout(DIRECT, (int) Math.max(1, Math.min(millis, MAX_READ_MILLIS)));
            boolean autoCommit = connection.getAutoCommit();
            if (!autoCommit) {
                connection.setAutoCommit(true);
            }
            TransactionSynchronizationManager.bindResource(writeScope, new ConnectionHolder(connection));
            try {
                return work.get();
            } finally {
                TransactionSynchronizationManager.unbindResource(writeScope);
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            }
        } catch (SQLException ex) {
            throw translate("switching autocommit for a bizlock write", ex);
        } finally {
            try {
                if (readTimeout >= 0) {
                    connection.setNetworkTimeout(DIRECT, readTimeout); // the pool's connection, as it was
                }
            } catch (SQLException ex) {
                // a broken connection, which the pool discards
            }
            try {
                connection.close();
            } catch (SQLException ex) {
                // returned to the pool or closed either way; nothing was left uncommitted
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs a write, again after a short pause when the server reports a deadlock or lock-wait timeout. */
    <T> T retrying(Supplier<T> attempt) {
        for (int i = 1; ; i++) {
            try {
                return guarded(attempt);
            } catch (DataAccessException ex) {
                if (i >= MAX_ATTEMPTS || !isTransient(ex)) {
                    throw ex;
                }
                pause(i);
            }
        }
    }

    /** Runs the work; a missing lock table (or column of one) fails with the DDL that creates it. */
    <T> T guarded(Supplier<T> work) {
        try {
            return work.get();
        } catch (DataAccessException ex) {
            if (errorCode(ex) == ER_NO_SUCH_TABLE || errorCode(ex) == ER_BAD_FIELD_ERROR) {
                throw LockSchema.missingTable(table, ex);
            }
            throw ex;
        }
    }

    /**
     * Turns a JDBC failure into Spring's exception for it, by MySQL's error codes (MariaDB shares them). Connection
     * failures carry none of them and get the same exception as from a {@link JdbcTemplate}.
     */
    public static DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = Translator.INSTANCE.translate(task, null, ex);
        return translated != null ? translated : new UncategorizedSQLException(task, null, ex);
    }

    /** Started on first use: one thread per process, that ends the pool waits of every lock statement. */
    private static final class Guard {
        static final PoolWaitGuard INSTANCE = new PoolWaitGuard();
    }

    /** Loaded on first use: reading Spring's error code table takes a while. */
    private static final class Translator {
        static final SQLExceptionTranslator INSTANCE = new SQLErrorCodeSQLExceptionTranslator("MySQL");
    }

    /** Whether the server rolled the statement back for a conflict (1213, 1205) that a new attempt may not meet. */
    static boolean isTransient(DataAccessException ex) {
        int code = errorCode(ex);
        return code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT;
    }

    /**
     * Whether a write was refused without taking effect, in a way a later attempt may not meet: a conflict (1213, 1205,
     * a cluster's certification failure) or a cluster node that cannot take writes right now (1047, 1180).
     */
    static boolean refusedForNow(DataAccessException ex) {
        int code = errorCode(ex);
        return isTransient(ex)
                || code == ER_WSREP_NOT_READY
                || code == ER_ERROR_DURING_COMMIT
                || code == ER_TRANSACTION_ROLLBACK_DURING_COMMIT;
    }

    /**
     * Whether a statement failed because its connection did, before the server answered (SQL state class 08: the
     * server died or the network dropped), as when a cluster node crashes under the pool's connections. A new
     * connection, through a failover URL, reaches a live node.
     */
    public static boolean connectionFailed(DataAccessException ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getSQLState() != null && sql.getSQLState().startsWith("08");
            }
        }
        return false;
    }

    /** The server's error code in the first {@link SQLException} of the cause chain, or 0. */
    static int errorCode(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getErrorCode();
            }
        }
        return 0;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << attempt));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Durations are bound in microseconds, the precision of the lock tables' {@code DATETIME(6)}. */
    static long micros(Duration duration) {
        return Math.multiplyExact(duration.getSeconds(), 1_000_000L) + duration.getNano() / 1_000;
    }

    /** Names, keys and owners are {@code VARBINARY}: compared byte for byte, bound as UTF-8. */
    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
