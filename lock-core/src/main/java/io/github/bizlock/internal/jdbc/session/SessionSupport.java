package io.github.bizlock.internal.jdbc.session;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Wait arithmetic of the session steps, the error code of a statement ended by {@code KILL QUERY}, and running a
 * statement on a held session with the thread's interrupt status put aside.
 */
final class SessionSupport {

    /** ER_QUERY_INTERRUPTED: a statement ended by {@code KILL QUERY}. */
    static final int ER_QUERY_INTERRUPTED = 1317;

    /**
     * The longest single server-side wait asked for; longer waits repeat it. 24 days: its read timeout, with the
     * statement timeout on top, must fit the driver's {@code int} of milliseconds (about 24.8 days), or the wait would
     * get none and a dead connection would block it for ever.
     */
    private static final long MAX_SERVER_WAIT_SECONDS = TimeUnit.DAYS.toSeconds(24);

    private SessionSupport() {}

    /** The whole seconds that cover {@code nanos}, at least 1 and at most {@link #MAX_SERVER_WAIT_SECONDS}. */
    static long ceilSeconds(long nanos) {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos);
        if (TimeUnit.SECONDS.toNanos(seconds) < nanos) {
            seconds++;
        }
        return Math.max(1, Math.min(seconds, MAX_SERVER_WAIT_SECONDS));
    }

    /** Two leases in whole seconds, at least 2: how long the server keeps a silent session (and its locks). */
    static long silentSessionSeconds(Duration lease) {
        return Math.max(2, ceilSeconds(lease.multipliedBy(2).toNanos()));
    }

    /**
     * The read timeout for a wait of {@code remainingNanos}: the server-side wait (at most {@link
     * #MAX_SERVER_WAIT_SECONDS}) plus the usual statement timeout; never 0, which would mean no limit.
     */
    static long waitReadTimeoutMillis(long remainingNanos) {
        long waitMillis = Math.min(
                TimeUnit.NANOSECONDS.toMillis(Math.max(0, remainingNanos)),
                TimeUnit.SECONDS.toMillis(MAX_SERVER_WAIT_SECONDS));
        return waitMillis + SessionPool.STATEMENT_TIMEOUT.toMillis();
    }

    /** Work on a held session, which may throw {@code E} (a {@link java.sql.SQLException}, say). */
    @FunctionalInterface
    interface SessionWork<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code work} with the thread's interrupt status cleared, and sets it again after: on a virtual thread a
     * statement begun with it set closes the connection, and an interrupted holder would lose its session instead of
     * releasing its lock or getting its token.
     */
    static <T, E extends Exception> T interruptCleared(SessionWork<T, E> work) throws E {
        boolean interrupted = Thread.interrupted();
        try {
            return work.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
