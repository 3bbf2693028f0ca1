package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Takes a lock on a session borrowed from the pool: attempts until the steps acquire it, find it busy past the
 * deadline, or their wait is ended; the session goes back to the pool when it holds nothing, and is discarded when its
 * state is unknown.
 */
final class SessionAcquirer {

    private final SessionPool sessions;
    private final SessionSteps steps;
    private final WatchedStatements watched;
    private final String owner;

    SessionAcquirer(SessionPool sessions, SessionSteps steps, WatchedStatements watched, String owner) {
        this.sessions = sessions;
        this.steps = steps;
        this.watched = watched;
        this.owner = owner;
    }

    /** The grant, or {@code null} if the lock stayed busy until {@code deadlineNanos}. */
    @Nullable
    Grant acquire(LockKey key, Duration lease, long deadlineNanos) throws InterruptedException {
        Session session = borrow(key, deadlineNanos);
        boolean keep = false;
        try {
            endWhenSilent(session, lease);
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock " + key);
                }
                switch (steps.lock(session, key, deadlineNanos, watched)) {
                    case ACQUIRED -> {
                        keep = true;
                        return hold(session, key, lease);
                    }
                    case RETRY -> {}
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
                }
            }
        } catch (SQLException ex) {
            sessions.discard(session);
            keep = true;
            if (Thread.interrupted()) {
                // On a virtual thread an interrupt closes the socket of the statement it was blocked in: the wait
                // ended for the interrupt, on a session that holds nothing any more.
                InterruptedException interrupted =
                        new InterruptedException("Interrupted while waiting for lock " + key);
                interrupted.initCause(ex);
                throw interrupted;
            }
            throw ServerErrors.translate(steps.lockStatement() + " for " + key, ex);
        } catch (RuntimeException | Error ex) {
            // The session may hold the lock (a failed token); closing it frees the lock.
            sessions.discard(session);
            keep = true;
            throw ex;
        } finally {
            if (!keep) {
                sessions.giveBack(session);
            }
        }
    }

    /** The grant of a lock the session just took. No token yet. */
    private Grant hold(Session session, LockKey key, Duration lease) {
        // The session answered just now: the heartbeat lease counts from here.
        Grant grant = new SessionGrant(key, owner, lease, System.nanoTime(), session);
        session.guard().lock();
        try {
            session.holdFor(grant);
        } finally {
            session.guard().unlock();
        }
        return grant;
    }

    /**
     * Has the server end the session once it has heard nothing from it for two leases ({@code wait_timeout}): a session
     * cut off by a half-open network would otherwise keep its lock for the server's default of 8 hours. Its holder has
     * stopped counting on the lock a lease after its last heartbeat, so it knows of the loss before the server frees
     * the lock. Set once per session, as every lock of an engine has the same lease.
     */
    private static void endWhenSilent(Session session, Duration lease) throws SQLException {
        long seconds = SessionSupport.silentSessionSeconds(lease);
        if (session.silentSeconds() != seconds) {
            try (Statement statement = session.connection().createStatement()) {
                statement.execute(SessionSql.endWhenSilentFor(seconds));
            }
            session.silentSeconds(seconds);
        }
    }

    private Session borrow(LockKey key, long deadlineNanos) throws InterruptedException {
        try {
            return sessions.borrow(deadlineNanos);
        } catch (DataAccessException ex) {
            throw new LockAcquisitionException(key.name(), key.key(), ex.getMessage(), ex);
        }
    }
}
