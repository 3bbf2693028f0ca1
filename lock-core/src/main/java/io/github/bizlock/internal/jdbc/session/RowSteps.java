package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockJdbc;
import io.github.bizlock.internal.jdbc.TokenIssuer;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.RowSql;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * ROW mode: {@code SELECT ... FOR UPDATE} on the lock's row of {@code <table>_row}, in a transaction kept open on a
 * session held from acquire to release; release is {@code COMMIT}.
 *
 * <p>Session connections run with autocommit off and READ COMMITTED, so a missing row takes no gap lock: the first
 * acquisition of a key finds no row, rolls back, creates the row with {@code INSERT IGNORE} and a commit of its own,
 * and locks it. After that, acquiring is one round trip on the held connection. A fencing token, when the holder asks
 * for one, is issued through the application's data source in a statement of its own ({@link TokenIssuer#issue})
 * and followed by a check that the session still answers: the held transaction cannot issue it, because a session
 * that dies rolls back, and a rolled-back token would be issued again. Release is one round trip ({@code COMMIT}).
 *
 * <p>Without a wait, the lock is tried with {@code NOWAIT} (MySQL fails with 3572, MariaDB with 1205). A wait is the
 * server's own lock wait, whole seconds ({@code innodb_lock_wait_timeout} on MySQL, {@code WAIT n} on MariaDB), set to
 * cover the remaining budget; the session canceller ends it with {@code KILL QUERY} at the exact deadline or on
 * interrupt. The server queues the waiters: MariaDB grants them first come, first served; MySQL 8.0.20+ orders them by weight
 * (CATS) and promises no order. The watchdog's renewal is a heartbeat that checks {@code CONNECTION_ID()} on each held
 * session and reports the locks of dead sessions lost; the server frees those locks when it notices the session end.
 */
final class RowSteps implements SessionSteps {

    /** How long creating a missing row may wait for its lock (another session created and locked it first). */
    private static final long CREATE_ROW_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RowSql sql;
    private final TokenIssuer tokenIssuer;
    private final boolean shared;

    /** @param tokenIssuer issues tokens through the application's data source */
    RowSteps(Dialect dialect, TokenIssuer tokenIssuer) {
        this(new RowSql(dialect), tokenIssuer, false);
    }

    private RowSteps(RowSql sql, TokenIssuer tokenIssuer, boolean shared) {
        this.sql = sql;
        this.tokenIssuer = tokenIssuer;
        this.shared = shared;
    }

    /**
     * The steps of ROW read locks: the same row, locked shared, so read locks of every session share it and exclude
     * the write lock's {@code FOR UPDATE}. Their fencing token is the last one a write lock was issued: they issue
     * none.
     */
    static RowSteps reading(Dialect dialect, TokenIssuer tokenIssuer) {
        return new RowSteps(RowSql.shared(dialect), tokenIssuer, true);
    }

    @Override
    public LockMode mode() {
        return LockMode.ROW;
    }

    @Override
    public String lockStatement() {
        return shared ? "SELECT ... FOR SHARE (LOCK IN SHARE MODE on MariaDB)" : "SELECT ... FOR UPDATE";
    }

    /**
     * Autocommit off, so the row stays locked until the release commits; READ COMMITTED, so a missing row takes no
     * gap lock.
     */
    @Override
    public void prepare(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    /** Locks the row; a missing row is created in a transaction of its own, and then locked by the next attempt. */
    @Override
    public Outcome lock(Session session, LockKey key, long deadlineNanos, WatchedStatements watched)
            throws SQLException {
        long sent = System.nanoTime();
        Outcome outcome = lockRow(session, key, deadlineNanos - sent, deadlineNanos, watched);
        if (outcome == Outcome.ACQUIRED) {
            return outcome;
        }
        session.connection().rollback();
        if (outcome == Outcome.RETRY) {
            Outcome created = createRow(session, key, Math.max(deadlineNanos, sent + CREATE_ROW_GRACE_NANOS), watched);
            return switch (created) {
                case ACQUIRED -> Outcome.RETRY;
                case INTERRUPTED -> Outcome.INTERRUPTED;
                // Another transaction keeps the row from being created (a gap lock): busy, so that a try or a wait
                // whose deadline passed ends here instead of creating again, with a new grace, until it lets go.
                default -> Outcome.BUSY;
            };
        }
        return outcome;
    }

    /** {@link Outcome#RETRY} when the row is missing. */
    private Outcome lockRow(
            Session session, LockKey key, long remainingNanos, long deadlineNanos, WatchedStatements watched)
            throws SQLException {
        if (remainingNanos <= 0) {
            try {
                return result(session, key, session.prepare(sql.lockRowNowait()), null);
            } catch (SQLException ex) {
                if (ex.getErrorCode() == sql.nowaitErrorCode()) {
                    return Outcome.BUSY;
                }
                throw ex;
            }
        }
        long seconds = SessionSupport.ceilSeconds(remainingNanos);
        String setWait = sql.lockWaitTimeout();
        if (setWait != null && session.lockWaitSeconds() != seconds) {
            PreparedStatement statement = session.prepare(setWait);
            statement.setLong(1, seconds);
            statement.execute();
            session.lockWaitSeconds(seconds);
        }
        PreparedStatement statement = session.prepare(sql.lockRow(seconds));
        return waited(watched, session, deadlineNanos, remainingNanos, watch -> result(session, key, statement, watch));
    }

    private Outcome createRow(Session session, LockKey key, long deadlineNanos, WatchedStatements watched)
            throws SQLException {
        try (PreparedStatement statement = session.connection().prepareStatement(sql.createLockRow())) {
            statement.setBytes(1, LockJdbc.bytes(key.name()));
            statement.setBytes(2, LockJdbc.bytes(key.key()));
            Outcome outcome = waited(watched, session, deadlineNanos, deadlineNanos - System.nanoTime(), watch -> {
                statement.executeUpdate();
                return Outcome.ACQUIRED;
            });
            if (outcome == Outcome.ACQUIRED) {
                session.connection().commit();
            } else {
                session.connection().rollback();
            }
            return outcome;
        }
    }

    /** Runs a statement that may wait for a row lock under a watch; the server's lock wait timeout counts as busy. */
    private static Outcome waited(
            WatchedStatements watched,
            Session session,
            long deadlineNanos,
            long remainingNanos,
            WatchedStatements.Call call)
            throws SQLException {
        try {
            return watched.run(session, deadlineNanos, remainingNanos, call);
        } catch (SQLException ex) {
            if (ex.getErrorCode() == ServerErrors.ER_LOCK_WAIT_TIMEOUT) {
                return Outcome.BUSY;
            }
            throw ex;
        }
    }

    private static Outcome result(
            Session session, LockKey key, PreparedStatement statement, SessionCanceller.@Nullable Watch watch)
            throws SQLException {
        statement.setBytes(1, LockJdbc.bytes(key.name()));
        statement.setBytes(2, LockJdbc.bytes(key.key()));
        try (ResultSet row = statement.executeQuery()) {
            if (watch != null) {
                watch.close();
            }
            if (!row.next()) {
                return Outcome.RETRY;
            }
            session.requireSameConnection(row.getLong(1));
            return Outcome.ACQUIRED;
        }
    }

    /** Tokens are issued through the application's data source: the held transaction cannot issue them. */
    @Override
    public long issueTokens(Session session, Grant grant, int count) throws SQLException {
        session.whileHeldBy(grant, () -> true);
        // Issued outside the session's guard: waiting for a pool connection under it would hold up the heartbeats. A
        // read
        // lock issues none: its token is the last write lock's, which cannot change while the row is shared.
        long token = shared
                ? tokenIssuer.lastToken(grant.key(), LockMode.ROW).orElse(0)
                : tokenIssuer.issue(grant.key(), LockMode.ROW, count);
        // The tokens come from another connection. Had this session died before they were issued, the server would
        // have freed the row, and a next holder could have drawn a lower token first; alive now, it held the row
        // throughout.
        if (!session.whileHeldBy(grant, () -> sameSession(session))) {
            throw new SQLException("The bizlock session " + session + " changed while fencing tokens were issued");
        }
        return token;
    }

    /** Checks that the session is alive and still the one that locked the row. */
    @Override
    public boolean stillHolds(Session session, Grant grant) throws SQLException {
        return sameSession(session);
    }

    /** Whether the session answers, as the connection that locked the row; a dead one throws. */
    private static boolean sameSession(Session session) throws SQLException {
        try (ResultSet row = session.prepare(SessionSql.CONNECTION_ID).executeQuery()) {
            return row.next() && row.getLong(1) == session.connectionId();
        }
    }

    /** {@code COMMIT}; if it fails, the session died: the server rolled its transaction back and freed the row. */
    @Override
    public boolean unlock(Session session, Grant grant) throws SQLException {
        session.connection().commit();
        return true;
    }
}
