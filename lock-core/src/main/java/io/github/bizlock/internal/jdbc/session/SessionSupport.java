package io.github.bizlock.internal.jdbc.session;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Wait arithmetic of the session steps: the whole seconds a server-side wait is asked for, and read timeouts. */
final class SessionSupport {

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
}
