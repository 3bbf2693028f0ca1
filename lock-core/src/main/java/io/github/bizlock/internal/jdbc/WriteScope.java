package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Where a lock statement runs: a connection of its own from the lock connections, in autocommit, with a read timeout
 * that ends it by its deadline, bound under {@link #dataSource()} for the work only, so that a {@code JdbcTemplate} on
 * it never reaches the connection of a transaction (or other scope) the caller has open, whatever the transaction
 * settings. A connection that a failed statement leaves in doubt is pinged before the next statement uses it
 * ({@link ConnectionCheck}).
 */
final class WriteScope {

    /** The longest read a bounded write waits for, however far its deadline: no lock statement takes that long. */
    static final long MAX_READ_MILLIS = TimeUnit.SECONDS.toMillis(30);

    /** The least time before its deadline a bounded write is sent with; with less it is not sent. */
    private static final long MIN_READ_MILLIS = 250;

    private static final Executor DIRECT = Runnable::run;

    /** Dead connections one statement drops before it gives up: more than the lock pool holds (4). */
    private static final int MAX_DEAD_CONNECTIONS = 8;

    private final DataSource lockConnections;
    private final DataSource scope;
    private final ConnectionCheck check = new ConnectionCheck();

    WriteScope(DataSource lockConnections) {
        this.lockConnections = lockConnections;
        this.scope = new DelegatingDataSource(lockConnections);
    }

    /** The data source a {@code JdbcTemplate} runs the work's statements through. */
    DataSource dataSource() {
        return scope;
    }

    /**
     * Runs the work on a pool connection of its own with autocommit on: a pool configured with autocommit off would
     * otherwise leave the write uncommitted, and the pool would roll it back.
     */
    <T> T inAutocommit(long deadlineNanos, Supplier<T> work) {
        try {
            Connection connection = connection(deadlineNanos);
            // Cleared while the statements run and set again after: an interrupted holder's release must run.
            return InterruptStatus.cleared(() -> onConnection(connection, deadlineNanos, work));
        } catch (DataAccessException ex) {
            if (ServerErrors.connectionFailed(ex)) {
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
                throw ServerErrors.translate("getting a connection for a bizlock write", ex);
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

    private <T> T onConnection(Connection connection, long deadlineNanos, Supplier<T> work) {
        int readTimeout = -1;
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
            TransactionSynchronizationManager.bindResource(scope, new ConnectionHolder(connection));
            try {
                return work.get();
            } finally {
                TransactionSynchronizationManager.unbindResource(scope);
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            }
        } catch (SQLException ex) {
            throw ServerErrors.translate("switching autocommit for a bizlock write", ex);
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
        }
    }

    /** Started on first use: one thread per process, that ends the pool waits of every lock statement. */
    private static final class Guard {
        static final PoolWaitGuard INSTANCE = new PoolWaitGuard();
    }
}
