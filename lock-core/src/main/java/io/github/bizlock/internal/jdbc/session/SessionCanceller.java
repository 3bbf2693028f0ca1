package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.LockEngine;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends blocking statements of held sessions run under a {@link #watch}: one daemon thread per engine ends them with
 * {@code KILL QUERY}, from a connection of its own opened on demand (one more than the session pool's maximum), when
 * their deadline passes or their thread is interrupted, so waits keep budgets the server can only count in whole
 * seconds, and interrupts work although socket reads ignore them.
 */
public final class SessionCanceller {

    private static final Logger log = LoggerFactory.getLogger(SessionCanceller.class);
    private static final int ER_NO_SUCH_THREAD = 1094;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * How long a killed statement may go on before it is killed again. A {@code KILL QUERY} that reaches the server
     * before the statement it is meant for finds the session idle and is dropped; the statement would then wait its
     * whole server-side timeout (a year, for a wait without a deadline).
     */
    private static final long KILL_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Empty polls after which the canceller parks until a watch wakes it: about a second of quiet. */
    private static final int IDLE_POLLS = 50;

    /** Why a watched statement was ended. */
    public enum Ending {
        DEADLINE,
        INTERRUPT
    }

    private final DataSource dataSource;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final Thread canceller;
    /** Locks, not monitors: kills run statements under them (a virtual thread would pin its carrier in a monitor). */
    private final ReentrantLock controlLock = new ReentrantLock();

    private @Nullable Connection control;
    private volatile boolean closed;

    /** When the canceller wakes on its own next ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} if it will not. */
    private volatile long cancellerWakesAt = Long.MAX_VALUE;

    /** @param dataSource where the kill connection is opened: the sessions' own data source */
    SessionCanceller(DataSource dataSource) {
        this.dataSource = dataSource;
        this.canceller = new Thread(this::cancelLoop, "bizlock-session-canceller");
        this.canceller.setDaemon(true);
        this.canceller.start();
    }

    /**
     * Watches a statement about to run on the session: at {@code deadlineNanos} ({@link System#nanoTime()}), or when
     * the current thread is interrupted, the statement is ended with {@code KILL QUERY}. Close the watch when the
     * statement returns; after that no kill can reach the session.
     */
    Watch watch(Session session, long deadlineNanos) {
        Watch watch = new Watch(session, deadlineNanos, Thread.currentThread());
        watches.add(watch);
        // Waking the canceller for every lock costs a context switch each; it polls on its own while it has watches,
        // so it is woken only when it would otherwise sleep past this deadline (or without end).
        if (deadlineNanos - cancellerWakesAt < 0 || cancellerWakesAt == Long.MAX_VALUE) {
            LockSupport.unpark(canceller);
        }
        return watch;
    }

    /** One watched statement. */
    public final class Watch implements AutoCloseable {

        private final Session session;
        private final long deadlineNanos;
        private final Thread thread;
        private final ReentrantLock guard = new ReentrantLock();
        private @Nullable Ending ending;
        private long killedAtNanos;
        private boolean finished;

        private Watch(Session session, long deadlineNanos, Thread thread) {
            this.session = session;
            this.deadlineNanos = deadlineNanos;
            this.thread = thread;
        }

        /** Why the statement was killed, or {@code null} if it was not. Read it after {@link #close()}. */
        public @Nullable Ending ending() {
            guard.lock();
            try {
                return ending;
            } finally {
                guard.unlock();
            }
        }

        /** Ends the watch; waits for a kill in flight, so none arrives after this returns. */
        @Override
        public void close() {
            guard.lock();
            try {
                finished = true;
                watches.remove(this);
            } finally {
                guard.unlock();
            }
        }

        private @Nullable Ending due(long now) {
            if (thread.isInterrupted()) {
                return Ending.INTERRUPT;
            }
            return now - deadlineNanos >= 0 ? Ending.DEADLINE : null;
        }

        /** Kills the statement, and again while it runs on: the first kill may have come before it. */
        private void kill(Ending why, long now) {
            guard.lock();
            try {
                if (finished || (ending != null && now - killedAtNanos < KILL_AGAIN_NANOS)) {
                    return;
                }
                try {
                    killQuery(session.connectionId());
                    if (ending == null) {
                        ending = why;
                    }
                    killedAtNanos = System.nanoTime();
                } catch (SQLException ex) {
                    log.warn("bizlock could not end a lock wait with KILL QUERY {}; trying again", session, ex);
                }
            } finally {
                guard.unlock();
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
                    watch.kill(why, now);
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
        controlLock.lock();
        try {
            try {
                if (control == null) {
                    control = dataSource.getConnection();
                    control.setAutoCommit(true);
                    // A kill that gets no answer must not hold up the watch, and the lock thread closing it, for long.
                    control.setNetworkTimeout(Runnable::run, (int) LockEngine.RELEASE_TIMEOUT.toMillis());
                }
                try (Statement statement = control.createStatement()) {
                    statement.execute(SessionSql.killQuery(connectionId));
                }
            } catch (SQLException ex) {
                if (ex.getErrorCode() == ER_NO_SUCH_THREAD) {
                    return; // the session ended anyway
                }
                if (control != null) {
                    SessionPool.closeQuietly(control);
                    control = null;
                }
                throw ex;
            }
        } finally {
            controlLock.unlock();
        }
    }

    /** Stops the thread and closes the kill connection. */
    void close() {
        closed = true;
        LockSupport.unpark(canceller);
        controlLock.lock();
        try {
            if (control != null) {
                SessionPool.closeQuietly(control);
                control = null;
            }
        } finally {
            controlLock.unlock();
        }
    }
}
