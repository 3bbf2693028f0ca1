package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * How the lock tables' DAOs run their statements. Every write is one statement in autocommit on a connection of its
 * own ({@link WriteScope}), never the one of a transaction the caller has open, taken from the lock connections (a
 * small pool bizlock keeps beside the application's, where it has one, so that callers holding every application
 * connection in open transactions cannot starve lock writes and renewals): each commits or fails on its own, like a
 * {@code REQUIRES_NEW} transaction, without the three round trips of {@code SET autocommit=0}, {@code COMMIT},
 * {@code SET autocommit=1} around it, and an insert and an update of the unique key never share a transaction.
 * Deadlocks and lock-wait timeouts (1213, 1205) are retried a few times; a missing table fails with the DDL to run.
 */
public final class LockJdbc {

    /** How often a write is tried when the server reports a deadlock or lock-wait timeout. */
    private static final int MAX_ATTEMPTS = 4;

    private final JdbcTemplate jdbc;
    private final WriteScope writes;
    private final JdbcTemplate writeJdbc;
    private final Dialect dialect;

    /**
     * @param dataSource the lock DataSource, for reads that are not lock traffic (schema checks, housekeeping, the
     *     actuator)
     * @param lockConnections where writes and the reads that decide whether a lock is held run: the same data source,
     *     or a pool of bizlock's own
     * @param dialect the server's, which names the lock table and says how a read waits for a cluster's writes
     */
    LockJdbc(DataSource dataSource, DataSource lockConnections, Dialect dialect) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.writes = new WriteScope(lockConnections);
        this.writeJdbc = new JdbcTemplate(writes.dataSource());
        this.dialect = dialect;
    }

    /** Reads, and the statements of a transaction the caller runs, on the data source. */
    JdbcTemplate jdbc() {
        return jdbc;
    }

    /**
     * Runs a query that decides whether a lock is held, on a connection of its own from the lock connections, ended by
     * {@code deadlineNanos} ({@link System#nanoTime()}) like a bounded write. On a Galera node it first waits until
     * every write committed anywhere in the cluster before it is applied here ({@link Dialect#causalReadsOn()} for
     * this query only), so it never reads a holder that has already left; elsewhere it is a plain query.
     *
     * @throws DataAccessException if the query could not run by the deadline
     */
    <T> List<T> queryCausal(long deadlineNanos, String sql, RowMapper<T> rows, Object... params) {
        if (!dialect.topology().galera()) {
            return guarded(() -> writes.inAutocommit(deadlineNanos, () -> writeJdbc.query(sql, rows, params)));
        }
        return guarded(() -> writes.inAutocommit(
                deadlineNanos,
                () -> Objects.requireNonNull(writeJdbc.execute((ConnectionCallback<List<T>>) connection -> {
                    try (Statement session = connection.createStatement()) {
                        session.execute(dialect.causalReadsOn());
                        try {
                            return new JdbcTemplate(new SingleConnectionDataSource(connection, true))
                                    .query(sql, rows, params);
                        } finally {
                            session.execute(dialect.causalReadsOff());
                        }
                    }
                }))));
    }

    /**
     * Runs one write statement that has no deadline of its own (housekeeping, the migration lease): within
     * {@link WriteScope#MAX_READ_MILLIS}, so that one sent on a connection to a host that died without a word still
     * ends, and the pool gets its connection back.
     */
    int update(String sql, Object... params) {
        return update(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WriteScope.MAX_READ_MILLIS), sql, params);
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
     * Runs the work's statements as one transaction on a lock connection of its own, ended by {@code deadlineNanos}
     * like a bounded write, and commits it; rolls it back if the work fails. The whole transaction is tried again when
     * the server reports a deadlock or lock-wait timeout.
     */
    <T> T inTransaction(long deadlineNanos, ConnectionCallback<T> work) {
        return write(
                deadlineNanos,
                () -> Objects.requireNonNull(writeJdbc.execute((ConnectionCallback<T>) connection -> {
                    connection.setAutoCommit(false);
                    boolean committed = false;
                    try {
                        T result = work.doInConnection(connection);
                        connection.commit();
                        committed = true;
                        return result;
                    } finally {
                        try {
                            if (!committed) {
                                connection.rollback();
                            }
                        } finally {
                            connection.setAutoCommit(true);
                        }
                    }
                })));
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
        return retrying(() -> writes.inAutocommit(deadlineNanos, work));
    }

    /** Runs a write, again after a short pause when the server reports a deadlock or lock-wait timeout. */
    <T> T retrying(Supplier<T> attempt) {
        for (int i = 1; ; i++) {
            try {
                return guarded(attempt);
            } catch (DataAccessException ex) {
                if (i >= MAX_ATTEMPTS || !ServerErrors.isTransient(ex)) {
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
            if (ServerErrors.missingTable(ex)) {
                throw LockSchema.missingTable(dialect.table(), ex);
            }
            throw ex;
        }
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
