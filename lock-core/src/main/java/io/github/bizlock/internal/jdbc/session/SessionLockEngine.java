package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.LockJdbc;
import io.github.bizlock.internal.jdbc.TokenIssuer;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;

/**
 * What the ROW and NAMED engines share: a lock held on a {@link Session} borrowed from a {@link SessionPool} from
 * acquire to release. This class borrows and returns sessions, runs the acquire loop (interrupts, busy retries up to the
 * deadline, discarding a session in an unknown state), runs the heartbeat over held sessions and hands a session back
 * or discards it on release. The engines supply the SQL steps: {@link #lock}, {@link #grant}, {@link #stillHolds} and
 * {@link #unlock}.
 */
public abstract class SessionLockEngine implements LockEngine, AutoCloseable {

    /** The setting named when sessions run out. */
    private static final String MAX_SESSIONS_PROPERTY = "bizlock.session.max-connections";

    /** How often a held session is checked unless its lease asks for more often: a killed session is noticed by then. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);

    /** What one attempt at the lock came to. */
    protected enum Outcome {
        /** The session holds the lock. */
        ACQUIRED,
        /** Another session holds the lock; try again unless the deadline passed. */
        BUSY,
        /** The wait was ended at the deadline. */
        DEADLINE,
        /** The wait was ended because the thread was interrupted. */
        INTERRUPTED,
        /** The attempt could not take the lock but prepared it (ROW: created the missing row); try again at once. */
        RETRY
    }

    /** A statement that may block, run under a {@link SessionCanceller.Watch}. */
    @FunctionalInterface
    protected interface WatchedCall {
        Outcome run(SessionCanceller.Watch watch) throws SQLException;
    }

    protected final TokenIssuer tokenIssuer;
    protected final String owner;
    private final SessionPool sessions;
    private final SessionCanceller canceller;
    private final String lockStatement;
    private final Duration heartbeat;
    private final Dialect dialect;
    private final LockMode mode;

    /**
     * @param mode the mode whose locks this engine takes
     * @param dao the lock tables' DAO
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many locks of this mode this process may hold at once
     * @param owner this process's instance id
     * @param heartbeat how often a held session is checked, at most (a third of the watchdog's lease if that is
     *     shorter)
     * @param setup prepares each new session connection
     * @param lockStatement the statement that takes the lock, named in errors
     */
    protected SessionLockEngine(
            LockMode mode,
            BizLockDao dao,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat,
            Session.Setup setup,
            String lockStatement) {
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("bizlock.session.heartbeat must be positive, was " + heartbeat);
        }
        this.mode = mode;
        this.heartbeat = heartbeat;
        this.tokenIssuer = dao.tokens();
        this.owner = owner;
        this.lockStatement = lockStatement;
        this.dialect = dao.dialect();
        this.sessions = new SessionPool(sessionDataSource, maxSessions, MAX_SESSIONS_PROPERTY, setup);
        this.canceller = new SessionCanceller(sessionDataSource);
    }

    @Override
    public final LockMode mode() {
        return mode;
    }

    /**
     * Fails when this mode's locks would not exclude each other here: on a multi-writer cluster (Galera, multi-primary
     * Group Replication) not declared single-writer, or on a server whose settings could not be read yet.
     *
     * @throws IllegalStateException naming the server setting, LEASE as the mode to use, and the declaration
     */
    @Override
    public void requireAllowedHere() {
        // A lock of one node: refused on a multi-writer cluster unless the user declared a single writer, and while the
        // deployment is not known (read again here).
        Optional<String> refusal = dialect.currentTopology().sessionLockRefusal(mode, lockStatement);
        if (refusal.isPresent()) {
            throw new IllegalStateException(refusal.get());
        }
    }

    /** A lock held by a session lasts while the session does: it has no fixed lease, whatever was asked for. */
    @Override
    public @Nullable Duration fixedLease(@Nullable Duration requested) {
        return null;
    }

    /**
     * A held session is checked every {@code heartbeat} (or every third of the lease, if shorter): how long its holder
     * may go on after the session was killed or the server restarted does not grow with the lease.
     */
    @Override
    public final Duration keepAliveInterval(Duration lease) {
        Duration third = lease.dividedBy(3);
        return third.compareTo(heartbeat) < 0 ? third : heartbeat;
    }

    /** Sessions held by locks (or by acquisitions under way) now, for metrics and tests. */
    public int heldSessions() {
        return sessions.heldCount();
    }

    /**
     * One attempt at the lock on the session, waiting until {@code deadlineNanos} at most; without time left, a try
     * that does not wait.
     */
    protected abstract Outcome lock(Session session, LockKey key, long deadlineNanos) throws SQLException;

    /**
     * Issues {@code count} fencing tokens for a lock the session holds, committed on their own. Runs without the
     * session's guard: an engine uses the session only under it ({@link #onHeldSession}), and never waits for
     * another connection while holding it, since the watchdog's heartbeats of every lock of this mode wait for it.
     *
     * @return the highest of them
     */
    protected abstract long issueTokens(Session session, Grant grant, int count) throws SQLException;

    /** Runs {@code call} under the session's guard if the session still holds the grant's lock. */
    protected static <T> T onHeldSession(Session session, Grant grant, SessionCall<T> call) throws SQLException {
        session.guard().lock();
        try {
            if (!session.heldBy(grant)) {
                throw new IllegalStateException("Lock " + grant.key() + " was released; no token can be issued");
            }
            return call.run();
        } finally {
            session.guard().unlock();
        }
    }

    /** A step on a held session. */
    @FunctionalInterface
    protected interface SessionCall<T> {
        T run() throws SQLException;
    }

    /** The heartbeat of one grant: whether its session is alive and still holds the lock. */
    protected abstract boolean stillHolds(Session session, Grant grant) throws SQLException;

    /** Releases the lock held on the session: whether the session held it and may be reused. */
    protected abstract boolean unlock(Session session, Grant grant) throws SQLException;

    @Override
    public final @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos)
            throws InterruptedException {
        requireAllowedHere();
        Session session = borrow(key, deadlineNanos);
        boolean keep = false;
        try {
            endWhenSilent(session, lease);
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock " + key);
                }
                switch (lock(session, key, deadlineNanos)) {
                    case ACQUIRED -> {
                        // The session answered just now: the heartbeat lease counts from here. No token yet.
                        Grant grant = new SessionGrant(key, owner, lease, System.nanoTime(), session);
                        session.guard().lock();
                        try {
                            session.holdFor(grant);
                        } finally {
                            session.guard().unlock();
                        }
                        keep = true;
                        return grant;
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
            throw LockJdbc.translate(lockStatement + " for " + key, ex);
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

    /**
     * Runs a statement that may block under a watch, with a read timeout that covers {@code remainingNanos}. A
     * statement that the watch ended with {@code KILL QUERY} counts as {@link Outcome#DEADLINE} or
     * {@link Outcome#INTERRUPTED}.
     */
    protected final Outcome watched(Session session, long deadlineNanos, long remainingNanos, WatchedCall call)
            throws SQLException {
        session.readTimeout(SessionSupport.waitReadTimeoutMillis(remainingNanos));
        SessionCanceller.Watch watch = canceller.watch(session, deadlineNanos);
        try {
            return call.run(watch);
        } catch (SQLException ex) {
            watch.close();
            SessionCanceller.Ending ending = watch.ending();
            if (ending != null && ex.getErrorCode() == SessionSupport.ER_QUERY_INTERRUPTED) {
                return ended(ending);
            }
            throw ex;
        } finally {
            watch.close();
            session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
        }
    }

    /** The outcome of a wait that a watch ended. */
    protected static Outcome ended(SessionCanceller.Ending ending) {
        return ending == SessionCanceller.Ending.DEADLINE ? Outcome.DEADLINE : Outcome.INTERRUPTED;
    }

    /** Fails if the server reports another connection id than the session's: the connection reconnected. */
    protected static void requireSameConnection(Session session, long connectionId) {
        if (connectionId != session.connectionId()) {
            throw new IllegalStateException("The bizlock session connection " + session.connectionId()
                    + " became connection " + connectionId + ": it reconnected and lost its locks; do not"
                    + " set autoReconnect on the session DataSource");
        }
    }

    /**
     * Heartbeat: asks each grant's session whether it still holds its lock.
     *
     * @return the grants whose session ended, no longer holds the lock, or did not answer
     */
    @Override
    public final Map<Grant, Loss> keepAlive(List<Grant> grants) {
        Map<Grant, Loss> gone = new HashMap<>();
        for (Grant grant : grants) {
            Session session = session(grant);
            session.guard().lock();
            try {
                if (!session.heldBy(grant)) {
                    continue; // released (and perhaps lent to another lock) since the watchdog collected it
                }
                try {
                    // The unlocking thread may be waiting for this guard: it must not wait longer than a release.
                    session.readTimeout(RELEASE_TIMEOUT.toMillis());
                    if (!stillHolds(session, grant)) {
                        gone.put(grant, SessionLosses.notHeld(session));
                    }
                    session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
                } catch (SQLException ex) {
                    if (SessionLosses.timedOut(ex)) {
                        session.markUnanswered();
                    }
                    gone.put(grant, SessionLosses.failed(session, ex));
                }
            } finally {
                session.guard().unlock();
            }
        }
        return gone;
    }

    @Override
    public final long issueTokens(Grant grant, int count) {
        // As for a release: an interrupted virtual holder must not close its session by asking for a token.
        boolean interrupted = Thread.interrupted();
        try {
            return issueTokens(session(grant), grant, count);
        } catch (SQLException ex) {
            throw LockJdbc.translate("issuing fencing tokens for " + grant.key(), ex);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The session's read timeout bounds a release, so it runs on the unlocking thread without a hand-off. */
    @Override
    public final boolean boundsRelease() {
        return true;
    }

    /** A release that failed closed the session, and the server frees the lock with it: nothing to try again. */
    @Override
    public final boolean retriesFailedRelease() {
        return false;
    }

    /**
     * Releases the lock on its session, waiting for the server at most {@link #RELEASE_TIMEOUT}.
     *
     * @throws org.springframework.dao.QueryTimeoutException if the server did not answer in time; the session is
     *     closed, and the server frees the lock when it drops the session
     */
    @Override
    public final @Nullable Loss release(Grant grant) {
        boolean interrupted = Thread.interrupted();
        try {
            return releaseOnSession(grant);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The release, run with the thread's interrupt status cleared: on a virtual thread a statement begun with it set
     * closes the connection, and a holder interrupted earlier would lose its session instead of releasing the lock.
     */
    private @Nullable Loss releaseOnSession(Grant grant) {
        Session session = session(grant);
        session.guard().lock();
        try {
            if (!session.heldBy(grant)) {
                // Released before (the session may hold another lock by now): nothing of this grant's to give back.
                return SessionLosses.releasedBefore(session);
            }
            session.markDone();
            if (session.unanswered()) {
                // A heartbeat that ran while this unlock waited got no answer: the connection is closed, and the
                // release cannot be sent. Not lost while held as far as anyone knows, just not released.
                sessions.discard(session);
                throw notAnswered(grant, session, null);
            }
            try {
                session.readTimeout(RELEASE_TIMEOUT.toMillis());
                if (unlock(session, grant)) {
                    session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
                    sessions.giveBack(session);
                    return null;
                }
                sessions.discard(session);
                return SessionLosses.notHeld(session);
            } catch (SQLException ex) {
                sessions.discard(session);
                if (SessionLosses.timedOut(ex)) {
                    // Held at the last heartbeat and cut off since: not lost while held, just not released yet.
                    throw notAnswered(grant, session, ex);
                }
                return SessionLosses.failed(session, ex);
            }
        } finally {
            session.guard().unlock();
        }
    }

    private static QueryTimeoutException notAnswered(Grant grant, Session session, @Nullable SQLException cause) {
        return new QueryTimeoutException(
                "Releasing lock " + grant.key() + ": its database session (connection id " + session.connectionId()
                        + ") did not answer within " + RELEASE_TIMEOUT.toMillis() + " ms; its connection is closed,"
                        + " and the server frees the lock when it drops the session",
                cause);
    }

    /**
     * Closes the grants' sessions, at shutdown: the server frees their locks with them, and closing waits for no
     * answer.
     */
    @Override
    public final void releaseAll(List<Grant> grants) {
        for (Grant grant : grants) {
            Session session = session(grant);
            session.guard().lock();
            try {
                if (session.heldBy(grant)) {
                    session.markDone();
                    sessions.discard(session);
                }
            } finally {
                session.guard().unlock();
            }
        }
    }

    /** Closes every session (the server frees their locks), then stops the canceller and its kill connection. */
    @Override
    public void close() {
        sessions.close();
        canceller.close();
    }

    private Session borrow(LockKey key, long deadlineNanos) throws InterruptedException {
        try {
            return sessions.borrow(deadlineNanos);
        } catch (DataAccessException ex) {
            throw new LockAcquisitionException(key.name(), key.key(), ex.getMessage(), ex);
        }
    }

    private static Session session(Grant grant) {
        if (!(grant instanceof SessionGrant sessionGrant)) {
            throw new IllegalArgumentException("Grant " + grant + " was not made by a session engine");
        }
        return sessionGrant.session();
    }
}
