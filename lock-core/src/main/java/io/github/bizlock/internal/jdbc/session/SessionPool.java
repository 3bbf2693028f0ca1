package io.github.bizlock.internal.jdbc.session;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Deque;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;

/**
 * The connections that ROW and NAMED locks hold for their lifetime, taken from a dedicated {@link DataSource} (not the
 * application's pool, so held locks cannot starve it) and capped at a maximum, so running out fails at once with a
 * clear error instead of queueing. Idle connections are kept for reuse; a connection whose session died is closed.
 *
 * <p>The dedicated {@code DataSource} should open plain connections (e.g. a {@code DriverManagerDataSource}) without
 * Connector/J's {@code autoReconnect}: a reconnected session has lost its locks. The pool opens one more connection
 * than its maximum, on demand, to end waits with {@code KILL QUERY}.
 *
 * <p>Blocking statements run under {@link #watch}: one daemon thread per pool ends them with {@code KILL QUERY} from
 * that other connection when their deadline passes or their thread is interrupted, so waits keep budgets the server
 * can only count in whole seconds, and interrupts work although socket reads ignore them.
 */
public final class SessionPool implements AutoCloseable {

    /** How long a statement other than a lock wait may take before the connection counts as dead. */
    public static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(SessionPool.class);
    private static final int ER_NO_SUCH_THREAD = 1094;
    private static final Executor DIRECT = Runnable::run;
    private static final long VALIDATE_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Empty polls after which the canceller parks until a watch wakes it: about a second of quiet. */
    private static final int IDLE_POLLS = 50;

    /** Prepares a newly opened connection, e.g. turns off autocommit. */
    @FunctionalInterface
    public interface Setup {
        void prepare(Connection connection) throws SQLException;
    }

    /** Why a watched statement was ended. */
    public enum Ending {
        DEADLINE,
        INTERRUPT
    }

    private final DataSource dataSource;
    private final int maxSessions;
    private final String property;
    private final Setup setup;
    private final Semaphore permits;
    private final Deque<Session> idle = new ConcurrentLinkedDeque<>();
    private final Set<Session> lent = ConcurrentHashMap.newKeySet();
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final Thread canceller;
    private final Object controlLock = new Object();
    private @Nullable Connection control;
    private volatile boolean closed;

    /** When the canceller wakes on its own next ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} if it will not. */
    private volatile long cancellerWakesAt = Long.MAX_VALUE;

    /**
     * @param dataSource the dedicated data source
     * @param maxSessions how many sessions may be held at once
     * @param property the setting that raises {@code maxSessions}, named in the error when they run out
     * @param setup prepares each new connection
     */
    public SessionPool(DataSource dataSource, int maxSessions, String property, Setup setup) {
        if (maxSessions < 1) {
            throw new IllegalArgumentException(property + " must be at least 1, was " + maxSessions);
        }
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.maxSessions = maxSessions;
        this.property = property;
        this.setup = setup;
        this.permits = new Semaphore(maxSessions);
        this.canceller = new Thread(this::cancelLoop, "bizlock-session-canceller");
        this.canceller.setDaemon(true);
        this.canceller.start();
    }

    /** Sessions handed out and not yet given back or discarded. */
    public int heldCount() {
        return maxSessions - permits.availablePermits();
    }

    /**
     * A session for one lock.
     *
     * @throws TransientDataAccessResourceException if all sessions are held
     * @throws DataAccessResourceFailureException if no connection could be opened
     */
    public Session borrow() {
        if (closed) {
            throw new IllegalStateException("The bizlock session pool is closed");
        }
        if (!permits.tryAcquire()) {
            throw new TransientDataAccessResourceException("All " + maxSessions + " bizlock session connections are"
                    + " held by locks; raise " + property + " or hold fewer ROW/NAMED locks at once");
        }
        try {
            Session session;
            while ((session = idle.pollFirst()) != null) {
                if (System.nanoTime() - session.idleSinceNanos < VALIDATE_AFTER_IDLE_NANOS || isValid(session)) {
                    session.reset();
                    lent.add(session);
                    return session;
                }
                closeQuietly(session.connection());
            }
            session = open();
            lent.add(session);
            return session;
        } catch (RuntimeException | Error ex) {
            permits.release();
            throw ex;
        }
    }

    /** Takes back a healthy session that holds nothing, for reuse. */
    public void giveBack(Session session) {
        lent.remove(session);
        session.idleSinceNanos = System.nanoTime();
        if (closed) {
            closeQuietly(session.connection());
        } else {
            idle.addFirst(session);
        }
        permits.release();
    }

    /** Closes a session that died or is in an unknown state; the server frees whatever it held. */
    public void discard(Session session) {
        lent.remove(session);
        closeQuietly(session.connection());
        permits.release();
    }

    /**
     * Watches a statement about to run on the session: at {@code deadlineNanos} ({@link System#nanoTime()}), or when
     * the current thread is interrupted, the statement is ended with {@code KILL QUERY}. Close the watch when the
     * statement returns; after that no kill can reach the session.
     */
    public Watch watch(Session session, long deadlineNanos) {
        Watch watch = new Watch(session, deadlineNanos, Thread.currentThread());
        watches.add(watch);
        // Waking the canceller for every lock costs a context switch each; it polls on its own while it has watches,
        // so it is woken only when it would otherwise sleep past this deadline (or without end).
        if (deadlineNanos - cancellerWakesAt < 0 || cancellerWakesAt == Long.MAX_VALUE) {
            LockSupport.unpark(canceller);
        }
        return watch;
    }

    /** Sets how long the session's next reads may block, in milliseconds from now ({@code 0}: without limit). */
    public static void readTimeout(Session session, long millis) throws SQLException {
        session.connection().setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, Math.max(0, millis)));
    }

    /** One watched statement. */
    public final class Watch implements AutoCloseable {

        private final Session session;
        private final long deadlineNanos;
        private final Thread thread;
        private @Nullable Ending ending;
        private boolean finished;

        private Watch(Session session, long deadlineNanos, Thread thread) {
            this.session = session;
            this.deadlineNanos = deadlineNanos;
            this.thread = thread;
        }

        /** Why the statement was killed, or {@code null} if it was not. Read it after {@link #close()}. */
        public synchronized @Nullable Ending ending() {
            return ending;
        }

        /** Ends the watch; waits for a kill in flight, so none arrives after this returns. */
        @Override
        public synchronized void close() {
            finished = true;
            watches.remove(this);
        }

        private @Nullable Ending due(long now) {
            if (thread.isInterrupted()) {
                return Ending.INTERRUPT;
            }
            return now - deadlineNanos >= 0 ? Ending.DEADLINE : null;
        }

        private synchronized void kill(Ending why) {
            if (finished || ending != null) {
                return;
            }
            try {
                killQuery(session.connectionId());
                ending = why;
            } catch (SQLException ex) {
                log.warn("bizlock could not end a lock wait with KILL QUERY {}; trying again", session, ex);
            }
        }
    }

    private void cancelLoop() {
        int idlePolls = 0;
        while (!closed) {
            long now = System.nanoTime();
            long sleep = Long.MAX_VALUE;
            for (Watch watch : watches) {
                Ending why = watch.due(now);
                if (why != null) {
                    watch.kill(why);
                    sleep = Math.min(sleep, POLL_NANOS);
                } else {
                    sleep = Math.min(sleep, Math.min(POLL_NANOS, watch.deadlineNanos - now));
                }
            }
            if (sleep == Long.MAX_VALUE && ++idlePolls <= IDLE_POLLS) {
                sleep = POLL_NANOS; // watches come and go under load: keep polling a while rather than be woken
            } else if (sleep != Long.MAX_VALUE) {
                idlePolls = 0;
            }
            if (sleep == Long.MAX_VALUE) {
                // Published before the last look, so a watch added after it sees it and wakes the canceller.
                cancellerWakesAt = Long.MAX_VALUE;
                if (watches.isEmpty()) {
                    LockSupport.park(this);
                }
            } else {
                sleep = Math.max(sleep, 1);
                long wakesAt = now + sleep;
                cancellerWakesAt = wakesAt;
                // A watch added during the scan either sees this time (and wakes the canceller if it is due sooner)
                // or is seen here.
                if (!dueBetween(now, wakesAt)) {
                    LockSupport.parkNanos(this, sleep);
                }
            }
        }
    }

    /** Whether a watch's deadline falls after {@code now} (earlier ones were handled by the scan) and before {@code until}. */
    private boolean dueBetween(long now, long until) {
        for (Watch watch : watches) {
            if (watch.deadlineNanos - now > 0 && watch.deadlineNanos - until < 0) {
                return true;
            }
        }
        return false;
    }

    private void killQuery(long connectionId) throws SQLException {
        synchronized (controlLock) {
            try {
                if (control == null) {
                    control = dataSource.getConnection();
                    control.setAutoCommit(true);
                }
                try (Statement statement = control.createStatement()) {
                    statement.execute(SessionSql.killQuery(connectionId));
                }
            } catch (SQLException ex) {
                if (ex.getErrorCode() == ER_NO_SUCH_THREAD) {
                    return; // the session ended anyway
                }
                if (control != null) {
                    closeQuietly(control);
                    control = null;
                }
                throw ex;
            }
        }
    }

    private Session open() {
        Connection connection = null;
        try {
            connection = dataSource.getConnection();
            setup.prepare(connection);
            long id;
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID)) {
                row.next();
                id = row.getLong(1);
            }
            Session session = new Session(connection, id);
            readTimeout(session, STATEMENT_TIMEOUT.toMillis());
            return session;
        } catch (SQLException ex) {
            if (connection != null) {
                closeQuietly(connection);
            }
            throw new DataAccessResourceFailureException(
                    "bizlock could not open a session connection for a ROW/NAMED lock: " + ex.getMessage(), ex);
        }
    }

    private boolean isValid(Session session) {
        try {
            return session.connection().isValid((int) STATEMENT_TIMEOUT.toSeconds());
        } catch (SQLException ex) {
            return false;
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ex) {
            log.debug("bizlock could not close a session connection", ex);
        }
    }

    /**
     * Closes every session, idle or holding a lock (the server frees the locks of closed sessions), and the kill
     * connection.
     */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(canceller);
        Session session;
        while ((session = idle.pollFirst()) != null) {
            closeQuietly(session.connection());
        }
        for (Session held : lent) {
            closeQuietly(held.connection());
        }
        synchronized (controlLock) {
            if (control != null) {
                closeQuietly(control);
                control = null;
            }
        }
    }
}
