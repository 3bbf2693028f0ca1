package io.github.bizlock.internal.jdbc.session;

import java.sql.Connection;
import java.sql.SQLException;
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
final class SessionCanceller {

    private static final Logger log = LoggerFactory.getLogger(SessionCanceller.class);
    /** How often the canceller looks at its watches while it has any, and while it waits for more. */
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * How long a killed statement may go on before it is killed again. A {@code KILL QUERY} that reaches the server
     * before the statement it is meant for finds the session idle and is dropped; the statement would then wait its
     * whole server-side timeout (24 days, for a wait without a deadline).
     */
    static final long KILL_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Empty polls after which the canceller parks until a watch wakes it: about a second of quiet. */
    static final int IDLE_POLLS = 50;

    /** Why a watched statement was ended. */
    enum Ending {
        DEADLINE,
        INTERRUPT
    }

    private final KillConnection kills;
    private final int idlePollsBeforeParking;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final Thread canceller;
    private volatile boolean closed;

    /** When the canceller wakes on its own next ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} if it will not. */
    private volatile long cancellerWakesAt = Long.MAX_VALUE;

    /** @param dataSource where the kill connection is opened: the sessions' own data source */
    SessionCanceller(DataSource dataSource) {
        this(dataSource, IDLE_POLLS);
    }

    /**
     * @param dataSource where the kill connection is opened: the sessions' own data source
     * @param idlePollsBeforeParking empty polls after which the canceller parks; fewer than {@link #IDLE_POLLS} for
     *     tests that need it parked without waiting a second
     */
    SessionCanceller(DataSource dataSource, int idlePollsBeforeParking) {
        this.kills = new KillConnection(dataSource);
        this.idlePollsBeforeParking = idlePollsBeforeParking;
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
        if (wakesTooLate(cancellerWakesAt, deadlineNanos)) {
            LockSupport.unpark(canceller);
        }
        return watch;
    }

    /**
     * Whether a canceller that wakes on its own at {@code wakesAt} ({@code Long.MAX_VALUE}: not at all) would wake
     * after a deadline of {@code deadlineNanos}.
     */
    static boolean wakesTooLate(long wakesAt, long deadlineNanos) {
        return deadlineNanos - wakesAt < 0 || wakesAt == Long.MAX_VALUE;
    }

    /** One watched statement. */
    final class Watch implements AutoCloseable {

        private final Session session;
        private final long deadlineNanos;
        private final Thread thread;
        private final ReentrantLock guard = new ReentrantLock();
        private @Nullable Ending ending;
        private long killedAtNanos;
        private boolean finished;
        /** Set by a thread other than the statement's to have it ended now, as an interrupt of its thread would. */
        private volatile boolean endNow;

        private Watch(Session session, long deadlineNanos, Thread thread) {
            this.session = session;
            this.deadlineNanos = deadlineNanos;
            this.thread = thread;
        }

        /** Why the statement was killed, or {@code null} if it was not. Read it after {@link #close()}. */
        @Nullable
        Ending ending() {
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

        /**
         * Has the statement ended as soon as the canceller sees it, as if its thread were interrupted: for a statement
         * that runs on a thread of its own, whose caller gave up on it.
         */
        void endNow() {
            endNow = true;
            LockSupport.unpark(canceller);
        }

        /** Whether the statement is to be ended at {@code now}, and why; {@code null} if not yet. */
        @Nullable
        Ending due(long now) {
            if (endNow || thread.isInterrupted()) {
                return Ending.INTERRUPT;
            }
            return now - deadlineNanos >= 0 ? Ending.DEADLINE : null;
        }

        /**
         * Kills the statement, and again while it runs on: the first kill may have come before it. The kill connection
         * is opened before the guard is taken: a database that does not answer new connections would otherwise hold up
         * the watch's close, and with it the wait that the kill was to end, for the driver's whole connect timeout.
         */
        void kill(Ending why, long now) {
            if (!wanted(now)) {
                return;
            }
            try {
                Connection connection = kills.open();
                guard.lock();
                try {
                    if (!wanted(now)) {
                        return;
                    }
                    kills.killQuery(connection, session);
                    if (ending == null) {
                        ending = why;
                    }
                    killedAtNanos = System.nanoTime();
                } finally {
                    guard.unlock();
                }
            } catch (SQLException ex) {
                log.warn("bizlock could not end a lock wait with KILL QUERY {}; trying again", session, ex);
            }
        }

        /** Whether the statement is to be killed at {@code now}: the watch is open, and not killed just before. */
        private boolean wanted(long now) {
            guard.lock();
            try {
                return !finished && (ending == null || !tooSoonToKillAgain(killedAtNanos, now));
            } finally {
                guard.unlock();
            }
        }
    }

    /** Whether a statement killed at {@code killedAtNanos} has run on too briefly, at {@code now}, to be killed again. */
    static boolean tooSoonToKillAgain(long killedAtNanos, long now) {
        return now - killedAtNanos < KILL_AGAIN_NANOS;
    }

    private void cancelLoop() {
        Pacing pacing = new Pacing(idlePollsBeforeParking);
        while (!closed) {
            long now = System.nanoTime();
            long soonest = Pacing.NO_WATCH;
            for (Watch watch : watches) {
                Ending why = watch.due(now);
                if (why != null) {
                    watch.kill(why, now);
                }
                soonest = Math.min(soonest, nextLook(why, watch.deadlineNanos, now));
            }
            long sleep = pacing.sleepNanos(soonest);
            if (sleep == Pacing.PARK) {
                // Published before the last look, so a watch added after it sees it and wakes the canceller.
                cancellerWakesAt = Long.MAX_VALUE;
                if (watches.isEmpty()) {
                    LockSupport.park(this);
                }
            } else {
                long wakesAt = now + sleep;
                cancellerWakesAt = wakesAt;
                // A watch added during the scan either sees this time (and wakes the canceller if it is due sooner)
                // or is seen here.
                if (!dueBetween(watches, now, wakesAt)) {
                    LockSupport.parkNanos(this, sleep);
                }
            }
        }
    }

    /**
     * How soon after {@code now} the canceller looks at a watch again: a killed statement after a poll (it is killed
     * again if it runs on), one not due yet at its deadline or after a poll, whichever comes first.
     */
    static long nextLook(@Nullable Ending due, long deadlineNanos, long now) {
        return due != null ? POLL_NANOS : Math.min(POLL_NANOS, deadlineNanos - now);
    }

    /**
     * Whether a watch's deadline falls after {@code now} (earlier ones were handled by the scan) and before {@code
     * until}.
     */
    static boolean dueBetween(Iterable<Watch> watches, long now, long until) {
        for (Watch watch : watches) {
            if (watch.deadlineNanos - now > 0 && watch.deadlineNanos - until < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long the canceller sleeps after a scan, kept apart from its thread so that it can be tested without one:
     * while it has watches, until the soonest of them wants another look; without any, it polls a while (watches come
     * and go under load, and polling costs less than being woken for each), then parks until a watch wakes it.
     */
    static final class Pacing {

        /** What a scan that found no watch passes to {@link #sleepNanos}. */
        static final long NO_WATCH = Long.MAX_VALUE;

        /** What {@link #sleepNanos} answers when the canceller is to park until a watch wakes it. */
        static final long PARK = Long.MAX_VALUE;

        private final int idlePollsBeforeParking;
        private int idlePolls;

        /** @param idlePollsBeforeParking empty polls after which the canceller parks */
        Pacing(int idlePollsBeforeParking) {
            this.idlePollsBeforeParking = idlePollsBeforeParking;
        }

        /**
         * @param soonest the shortest {@link #nextLook} of the scan's watches, or {@link #NO_WATCH}
         * @return nanoseconds to sleep (at least 1: a deadline due now was handled by the scan), or {@link #PARK}
         */
        long sleepNanos(long soonest) {
            if (soonest == NO_WATCH) {
                return ++idlePolls <= idlePollsBeforeParking ? POLL_NANOS : PARK;
            }
            idlePolls = 0;
            return Math.max(soonest, 1);
        }
    }

    /** Stops the thread and closes the kill connection. */
    void close() {
        closed = true;
        LockSupport.unpark(canceller);
        kills.close();
    }
}
