package io.github.bizlock.internal.jdbc.session;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;

/**
 * The connections that ROW and NAMED locks hold for their lifetime, taken from a dedicated {@link DataSource} (not the
 * application's pool, so held locks cannot starve it) and capped at a maximum. An acquisition that finds them all held
 * queues for one, first come first served, for as long as its wait time lasts; only then does it fail, with an error
 * that names the setting. Idle connections are kept for reuse; a connection whose session died is closed.
 *
 * <p>A connection is opened on a thread of the pool's own ({@link SessionOpener}), so that a database that accepts the
 * connection and then says nothing (a half-open network) cannot hold the caller past its deadline: the caller gives up
 * at its deadline plus {@link #OPEN_GRACE}, and the open goes on without it, keeping the caller's place in the pool
 * until it ends.
 *
 * <p>The dedicated {@code DataSource} should open plain connections (e.g. a {@code DriverManagerDataSource}) without
 * Connector/J's {@code autoReconnect}: a reconnected session has lost its locks. It is called from the pool's own
 * threads, so it must not depend on the caller's thread (a routing DataSource keyed by a thread-local).
 */
final class SessionPool {

    /** How long a statement other than a lock wait may take before the connection counts as dead. */
    static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How long past its deadline an acquisition waits for a session to be opened or checked: a wait of zero must still
     * be able to open a connection to a database that answers.
     */
    static final Duration OPEN_GRACE = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(SessionPool.class);
    private static final long VALIDATE_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final int maxSessions;
    private final String property;
    private final SessionOpener opener;
    private final Semaphore permits;
    private final Deque<Session> idle = new ConcurrentLinkedDeque<>();
    private final Set<Session> lent = ConcurrentHashMap.newKeySet();
    /** Opens that their caller gave up on and that still hold its permit. */
    private final AtomicInteger unanswered = new AtomicInteger();

    private volatile boolean closed;

    /**
     * @param dataSource the dedicated data source
     * @param maxSessions how many sessions may be held at once
     * @param property the setting that raises {@code maxSessions}, named in the error when they run out
     * @param setup prepares each new connection
     */
    SessionPool(DataSource dataSource, int maxSessions, String property, Session.Setup setup) {
        if (maxSessions < 1) {
            throw new IllegalArgumentException(property + " must be at least 1, was " + maxSessions);
        }
        this.maxSessions = maxSessions;
        this.property = property;
        this.opener = new SessionOpener(dataSource, setup);
        // Fair: a waiter that has queued longest gets the next session, not a newcomer that happens to ask then.
        this.permits = new Semaphore(maxSessions, true);
    }

    /** Sessions handed out and not yet given back or discarded, and opens still under way for a caller that gave up. */
    int heldCount() {
        return maxSessions - permits.availablePermits();
    }

    /**
     * A session for one lock, waited for until {@code deadlineNanos} ({@link System#nanoTime()}) if all are held.
     *
     * @throws TransientDataAccessResourceException if all sessions stayed held until the deadline
     * @throws DataAccessResourceFailureException if no connection could be opened
     * @throws InterruptedException if the thread was interrupted while it waited
     */
    Session borrow(long deadlineNanos) throws InterruptedException {
        requireOpen();
        long waitNanos = Math.max(0, deadlineNanos - System.nanoTime());
        if (!permits.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
            throw exhausted(waitNanos);
        }
        long giveUpNanos = deadlineNanos + OPEN_GRACE.toNanos();
        boolean permitHeld = true;
        Session session = null;
        try {
            requireOpen();
            session = idleSession(giveUpNanos);
            if (session == null) {
                CompletableFuture<Session> opening = startOpen();
                try {
                    session = opening.get(Math.max(0, giveUpNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException | InterruptedException ex) {
                    handOver(opening);
                    permitHeld = false;
                    if (ex instanceof InterruptedException interrupted) {
                        throw interrupted;
                    }
                    throw notAnswered("open");
                } catch (ExecutionException ex) {
                    throw openFailure(ex.getCause());
                }
            }
            lent.add(session);
            // close() may have run since the check above, without seeing this session.
            requireOpen();
            return session;
        } catch (RuntimeException | Error ex) {
            if (session != null) {
                lent.remove(session);
                closeQuietly(session.connection());
            }
            if (permitHeld) {
                permits.release();
            }
            throw ex;
        }
    }

    private TransientDataAccessResourceException exhausted(long waitNanos) {
        int opening = unanswered.get();
        String all = "All " + maxSessions + " bizlock session connections stayed held";
        String wait = " throughout the wait (" + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms)";
        if (opening == maxSessions) {
            return new TransientDataAccessResourceException(all + wait + " by connections being opened that the"
                    + " database has not answered yet: check that it is reachable (they end with the driver's connect"
                    + " timeout)");
        }
        return new TransientDataAccessResourceException(all + " by locks" + wait
                + (opening == 0
                        ? ""
                        : ", " + opening + " of them by connections being opened that the database has not answered"
                                + " yet")
                + "; raise " + property + ", hold fewer ROW/NAMED locks at once, or wait longer");
    }

    private static TransientDataAccessResourceException notAnswered(String step) {
        return new TransientDataAccessResourceException("bizlock could not " + step + " a session connection for a"
                + " ROW/NAMED lock before the deadline (its wait plus " + OPEN_GRACE.toMillis() + " ms): the database"
                + " has not answered yet; check that it is reachable");
    }

    private static RuntimeException openFailure(Throwable cause) {
        if (cause instanceof RuntimeException failure) {
            return failure;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new DataAccessResourceFailureException(
                "bizlock could not open a session connection for a ROW/NAMED lock", cause);
    }

    /**
     * The most recently used idle session that still answers, or {@code null} if there is none. A session idle for a
     * while is checked first, within the time left until {@code giveUpNanos}; one that has no time left to be checked
     * stays idle, and the borrower is told the database has not answered.
     */
    private @Nullable Session idleSession(long giveUpNanos) {
        Session session;
        while ((session = idle.pollFirst()) != null) {
            if (System.nanoTime() - session.idleSinceNanos < VALIDATE_AFTER_IDLE_NANOS) {
                break;
            }
            if (giveUpNanos - System.nanoTime() <= 0) {
                keepIdle(session);
                throw notAnswered("check");
            }
            if (isValid(session, giveUpNanos)) {
                break;
            }
            closeQuietly(session.connection());
        }
        if (session != null) {
            session.reset();
        }
        return session;
    }

    private CompletableFuture<Session> startOpen() {
        try {
            return opener.start();
        } catch (RejectedExecutionException ex) {
            requireOpen(); // close() shut the opener down since the last check
            throw ex;
        }
    }

    /**
     * Lets an open that its caller gave up on go on with the caller's permit: what it opens is kept for the next
     * borrower, and the permit is given back when it ends.
     */
    private void handOver(CompletableFuture<Session> opening) {
        unanswered.incrementAndGet();
        opening.whenComplete((session, failure) -> {
            unanswered.decrementAndGet();
            if (session == null) {
                log.debug("bizlock: a session connection opened after its caller gave up failed", failure);
                permits.release();
                return;
            }
            try {
                keepIdle(session);
            } finally {
                permits.release();
            }
        });
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The bizlock session pool is closed");
        }
    }

    /** Takes back a healthy session that holds nothing, for reuse. */
    void giveBack(Session session) {
        lent.remove(session);
        session.idleSinceNanos = System.nanoTime();
        try {
            keepIdle(session);
        } finally {
            permits.release();
        }
    }

    /** Keeps a session for reuse, or closes it if the pool is closed. */
    private void keepIdle(Session session) {
        if (closed) {
            closeQuietly(session.connection());
            return;
        }
        idle.addFirst(session);
        // close() may have emptied the idle sessions between the check and the add.
        if (closed && idle.remove(session)) {
            closeQuietly(session.connection());
        }
    }

    /** Closes a session that died or is in an unknown state; the server frees whatever it held. */
    void discard(Session session) {
        lent.remove(session);
        closeQuietly(session.connection());
        permits.release();
    }

    /** Whether an idle session still answers, asked with a timeout that ends near {@code giveUpNanos}. */
    private boolean isValid(Session session, long giveUpNanos) {
        // Whole seconds are all isValid takes (ceilSeconds gives at least 1: 0 would mean no timeout at all).
        long seconds = SessionSupport.ceilSeconds(giveUpNanos - System.nanoTime());
        try {
            return session.connection().isValid((int) Math.min(STATEMENT_TIMEOUT.toSeconds(), seconds));
        } catch (SQLException ex) {
            return false;
        }
    }

    static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ex) {
            log.debug("bizlock could not close a session connection", ex);
        }
    }

    /** Closes every session, idle or holding a lock (the server frees the locks of closed sessions). */
    void close() {
        closed = true;
        // An open still under way closes what it opens (giveBack sees the pool closed).
        opener.shutdown();
        Session session;
        while ((session = idle.pollFirst()) != null) {
            closeQuietly(session.connection());
        }
        for (Session held : lent) {
            closeQuietly(held.connection());
        }
    }
}
