package io.github.bizlock.jdbc.row;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockMode;
import io.github.bizlock.core.Grant;
import io.github.bizlock.core.LockEngine;
import io.github.bizlock.core.LockKey;
import io.github.bizlock.jdbc.BizLockDao;
import io.github.bizlock.jdbc.dialect.Dialect;
import io.github.bizlock.jdbc.session.Session;
import io.github.bizlock.jdbc.session.SessionPool;
import io.github.bizlock.jdbc.session.SessionSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * ROW mode: {@code SELECT ... FOR UPDATE} on the lock's row of {@code <table>_row}, in a transaction kept open on a
 * session held from acquire to release; release is {@code COMMIT}.
 *
 * <p>Session connections run with autocommit off and READ COMMITTED, so a missing row takes no gap lock: the first
 * acquisition of a key finds no row, rolls back, creates the row with {@code INSERT IGNORE} and a commit of its own,
 * and locks it. After that, acquiring is one round trip on the held connection plus the fencing token, issued through
 * the application's data source in a transaction of its own ({@link BizLockDao#issueToken}): the held transaction
 * cannot issue it, because a session that dies rolls back, and a rolled-back token would be issued again. Release is
 * one round trip ({@code COMMIT}).
 *
 * <p>Without a wait, the lock is tried with {@code NOWAIT} (MySQL fails with 3572, MariaDB with 1205). A wait is the
 * server's own lock wait, whole seconds ({@code innodb_lock_wait_timeout} on MySQL, {@code WAIT n} on MariaDB), set to
 * cover the remaining budget; the session pool ends it with {@code KILL QUERY} at the exact deadline or on interrupt.
 * The server queues the waiters: MariaDB grants them first come, first served; MySQL 8.0.20+ orders them by weight
 * (CATS) and promises no order. The watchdog's renewal is a heartbeat that checks {@code CONNECTION_ID()} on each held
 * session and reports the locks of dead sessions lost; the server frees those locks when it notices the session end.
 */
public final class RowLockEngine implements LockEngine, AutoCloseable {

    /** The setting named when sessions run out. */
    public static final String MAX_SESSIONS_PROPERTY = "bizlock.session.max-connections";

    /** How long creating a missing row may wait for its lock (another session created and locked it first). */
    private static final long CREATE_ROW_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final BizLockDao dao;
    private final Dialect dialect;
    private final String owner;
    private final SessionPool sessions;

    /**
     * @param dao the lock tables' DAO, which issues tokens through the application's data source
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many ROW locks this process may hold at once
     * @param owner this process's instance id
     */
    public RowLockEngine(BizLockDao dao, DataSource sessionDataSource, int maxSessions, String owner) {
        this.dao = dao;
        this.dialect = dao.dialect();
        this.owner = owner;
        this.sessions =
                new SessionPool(sessionDataSource, dialect, maxSessions, MAX_SESSIONS_PROPERTY, RowLockEngine::prepare);
    }

    private static void prepare(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }

    @Override
    public LockMode mode() {
        return LockMode.ROW;
    }

    @Override
    public boolean heldBySession() {
        return true;
    }

    /** The session pool, for metrics and tests. */
    public SessionPool sessions() {
        return sessions;
    }

    private enum Outcome {
        ACQUIRED,
        MISSING_ROW,
        BUSY,
        DEADLINE,
        INTERRUPTED
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, long deadlineNanos) throws InterruptedException {
        Session session = borrow(key);
        boolean keep = false;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock " + key);
                }
                long sent = System.nanoTime();
                Outcome outcome = lockRow(session, key, deadlineNanos - sent, deadlineNanos);
                if (outcome == Outcome.ACQUIRED) {
                    // The session answered just now: the heartbeat lease counts from here.
                    long alive = System.nanoTime();
                    long token;
                    try {
                        token = dao.issueToken(key, LockMode.ROW);
                    } catch (RuntimeException ex) {
                        session.connection().rollback();
                        throw ex;
                    }
                    keep = true;
                    return new Grant(key, owner, token, lease, alive, session);
                }
                session.connection().rollback();
                switch (outcome) {
                    case MISSING_ROW -> {
                        Outcome created =
                                createRow(session, key, Math.max(deadlineNanos, sent + CREATE_ROW_GRACE_NANOS));
                        if (created == Outcome.INTERRUPTED) {
                            Thread.interrupted();
                            throw new InterruptedException("Interrupted while waiting for lock " + key);
                        }
                    }
                    case BUSY -> {
                        if (deadlineNanos - System.nanoTime() <= 0) {
                            return null;
                        }
                    }
                    case DEADLINE -> {
                        return null;
                    }
                    case INTERRUPTED -> {
                        Thread.interrupted();
                        throw new InterruptedException("Interrupted while waiting for lock " + key);
                    }
                    default -> throw new IllegalStateException(outcome.toString());
                }
            }
        } catch (SQLException ex) {
            sessions.discard(session);
            keep = true;
            throw SessionSupport.translate("SELECT ... FOR UPDATE for " + key, ex);
        } catch (RuntimeException | Error ex) {
            sessions.discard(session);
            keep = true;
            throw ex;
        } finally {
            if (!keep) {
                sessions.giveBack(session);
            }
        }
    }

    private Outcome lockRow(Session session, LockKey key, long remainingNanos, long deadlineNanos) throws SQLException {
        if (remainingNanos <= 0) {
            try (PreparedStatement statement = session.connection().prepareStatement(dialect.lockRowNowait())) {
                return result(session, key, statement, null);
            } catch (SQLException ex) {
                if (ex.getErrorCode() == dialect.nowaitErrorCode()) {
                    return Outcome.BUSY;
                }
                throw ex;
            }
        }
        long seconds = SessionSupport.ceilSeconds(remainingNanos);
        String setWait = dialect.rowLockWaitTimeout();
        if (setWait != null && session.lockWaitSeconds() != seconds) {
            try (PreparedStatement statement = session.connection().prepareStatement(setWait)) {
                statement.setLong(1, seconds);
                statement.execute();
            }
            session.lockWaitSeconds(seconds);
        }
        try (PreparedStatement statement = session.connection().prepareStatement(dialect.lockRow(seconds))) {
            return watched(session, deadlineNanos, remainingNanos, watch -> result(session, key, statement, watch));
        }
    }

    private Outcome createRow(Session session, LockKey key, long deadlineNanos) throws SQLException {
        try (PreparedStatement statement = session.connection().prepareStatement(dialect.createLockRow())) {
            statement.setBytes(1, SessionSupport.bytes(key.name()));
            statement.setBytes(2, SessionSupport.bytes(key.key()));
            Outcome outcome = watched(session, deadlineNanos, deadlineNanos - System.nanoTime(), watch -> {
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

    @FunctionalInterface
    private interface WatchedCall {
        Outcome run(SessionPool.Watch watch) throws SQLException;
    }

    /** Runs a statement that may block under a watch; a server timeout counts as busy. */
    private Outcome watched(Session session, long deadlineNanos, long remainingNanos, WatchedCall call)
            throws SQLException {
        SessionPool.readTimeout(session, SessionSupport.waitReadTimeoutMillis(remainingNanos));
        SessionPool.Watch watch = sessions.watch(session, deadlineNanos);
        try {
            return call.run(watch);
        } catch (SQLException ex) {
            watch.close();
            SessionPool.Ending ending = watch.ending();
            if (ending != null && ex.getErrorCode() == SessionSupport.ER_QUERY_INTERRUPTED) {
                return ending == SessionPool.Ending.DEADLINE ? Outcome.DEADLINE : Outcome.INTERRUPTED;
            }
            if (ex.getErrorCode() == SessionSupport.ER_LOCK_WAIT_TIMEOUT) {
                return Outcome.BUSY;
            }
            throw ex;
        } finally {
            watch.close();
            SessionPool.readTimeout(session, SessionPool.STATEMENT_TIMEOUT.toMillis());
        }
    }

    private Outcome result(Session session, LockKey key, PreparedStatement statement, SessionPool.@Nullable Watch watch)
            throws SQLException {
        statement.setBytes(1, SessionSupport.bytes(key.name()));
        statement.setBytes(2, SessionSupport.bytes(key.key()));
        try (ResultSet row = statement.executeQuery()) {
            if (watch != null) {
                watch.close();
            }
            if (!row.next()) {
                return Outcome.MISSING_ROW;
            }
            if (row.getLong(1) != session.connectionId()) {
                throw new IllegalStateException("The bizlock session connection " + session.connectionId()
                        + " became connection " + row.getLong(1) + ": it reconnected and lost its locks; do not"
                        + " set autoReconnect on the session DataSource");
            }
            return Outcome.ACQUIRED;
        }
    }

    /**
     * Heartbeat: checks that each grant's session is alive and still the one that locked the row.
     *
     * @return the grants whose session is gone
     */
    @Override
    public Set<Grant> renew(List<Grant> grants) {
        Set<Grant> gone = new HashSet<>();
        for (Grant grant : grants) {
            Session session = session(grant);
            synchronized (session) {
                if (session.isDone()) {
                    continue;
                }
                try (Statement statement = session.connection().createStatement();
                        ResultSet row = statement.executeQuery(dialect.connectionId())) {
                    if (!row.next() || row.getLong(1) != session.connectionId()) {
                        gone.add(grant);
                    }
                } catch (SQLException ex) {
                    gone.add(grant);
                }
            }
        }
        return gone;
    }

    @Override
    public boolean release(Grant grant) {
        Session session = session(grant);
        synchronized (session) {
            session.markDone();
            try {
                session.connection().commit();
                sessions.giveBack(session);
                return true;
            } catch (SQLException ex) {
                // The session died: the server rolled its transaction back and freed the row.
                sessions.discard(session);
                return false;
            }
        }
    }

    @Override
    public void close() {
        sessions.close();
    }

    private Session borrow(LockKey key) {
        try {
            return sessions.borrow();
        } catch (DataAccessException ex) {
            throw new LockAcquisitionException(key.name(), key.key(), ex.getMessage(), ex);
        }
    }

    private static Session session(Grant grant) {
        if (!(grant.resource() instanceof Session session)) {
            throw new IllegalArgumentException("Grant " + grant + " was not made by a session engine");
        }
        return session;
    }
}
