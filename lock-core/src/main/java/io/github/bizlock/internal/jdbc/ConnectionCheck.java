package io.github.bizlock.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Whether a pooled connection is worth a lock statement, after one of them failed under a statement. A host that died
 * without a word (power loss, a killed VM, a moved virtual IP) leaves every connection the pool holds to it half-open:
 * each would hold a statement until its deadline, and a renewal that met two in a row would outlast its lease. So for
 * {@link #SUSPECT_NANOS} after a lock statement's connection failed, each connection lent for one is pinged first
 * ({@link Connection#isValid}, {@value #PING_SECONDS} s), and one that does not answer is closed so that the pool drops
 * it: the statement runs on a connection that answers, a fresh one once the dead are gone. A pool lends a connection
 * used in the last half second without checking it (HikariCP), and a busy lock pool's connections always are.
 */
final class ConnectionCheck {

    /** How long after a connection failure lent connections are pinged first. */
    static final long SUSPECT_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** How long a ping may take: JDBC counts in whole seconds, and 0 would wait for ever. */
    static final int PING_SECONDS = 1;

    private static final Executor DIRECT = Runnable::run;

    private volatile boolean suspect;
    private volatile long suspectUntilNanos;

    /** A lock statement's connection failed under it: the others of the pool may be dead as well. */
    void failed() {
        suspectUntilNanos = System.nanoTime() + SUSPECT_NANOS;
        suspect = true;
    }

    /**
     * Whether a lock statement may be sent on {@code connection}; if not, it has been closed for good and given back,
     * and another must be borrowed.
     */
    boolean usable(Connection connection) {
        if (!suspect) {
            return true;
        }
        if (System.nanoTime() - suspectUntilNanos > 0) {
            suspect = false;
            return true;
        }
        try {
            // Cleared for the ping, as for the statements: on a virtual thread an interrupted read closes the
            // connection.
            if (InterruptStatus.cleared(() -> connection.isValid(PING_SECONDS))) {
                return true;
            }
        } catch (SQLException ex) {
            // as dead as one that did not answer
        }
        discard(connection);
        return false;
    }

    /** Closes a dead connection for good, so that the pool drops it instead of lending it again. */
    private static void discard(Connection connection) {
        try {
            connection.abort(DIRECT);
        } catch (SQLException | RuntimeException ex) {
            // closed already
        }
        try {
            // Fails on the closed connection with SQL state 08003, which a pool (HikariCP) takes as its cue to drop it.
            connection.setNetworkTimeout(DIRECT, 1);
        } catch (SQLException | RuntimeException ex) {
            // expected
        }
        try {
            connection.close();
        } catch (SQLException ex) {
            // given back either way
        }
    }
}
