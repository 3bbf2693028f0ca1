package io.github.bizlock.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Ends a thread's wait for a pool connection at a deadline, by interrupting it: a pool that cannot open connections
 * (the database is unreachable) or has none free would otherwise hold a caller for its own connection timeout (30 s
 * in HikariCP), far past the caller's wait time. HikariCP, Commons DBCP and Tomcat JDBC end a connection wait when the
 * waiting thread is interrupted. One daemon thread checks the waits every {@link #TICK_NANOS} while there are any, and
 * for about a second after the last, then parks until a wait wakes it: under steady traffic a wait costs no thread
 * switch unless it overruns.
 */
final class PoolWaitGuard {

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Ticks without a wait after which the guard parks until woken: about a second. */
    private static final int IDLE_TICKS = 50;

    private final Set<Wait> waits = ConcurrentHashMap.newKeySet();
    private final Thread guard;
    private volatile boolean parked;

    PoolWaitGuard() {
        guard = new Thread(this::run, "bizlock-pool-wait-guard");
        guard.setDaemon(true);
        guard.start();
    }

    /**
     * A connection from {@code dataSource}, waited for until {@code deadlineNanos} ({@link System#nanoTime()}) at most.
     *
     * @throws DataAccessResourceFailureException if the pool gave none by the deadline
     */
    Connection connection(DataSource dataSource, long deadlineNanos, String task) throws SQLException {
        Wait wait = new Wait(Thread.currentThread(), deadlineNanos);
        waits.add(wait);
        if (parked) {
            LockSupport.unpark(guard);
        }
        try {
            return dataSource.getConnection();
        } catch (SQLException ex) {
            if (wait.end()) {
                throw new DataAccessResourceFailureException(
                        task + ": the connection pool gave no connection before the deadline (the database does not"
                                + " answer, or the pool has no connection free)",
                        ex);
            }
            throw ex;
        } finally {
            if (wait.end()) {
                Thread.interrupted(); // the guard's interrupt, not the caller's: theirs would have ended the wait at
                // once
            }
            waits.remove(wait);
        }
    }

    private void run() {
        int quietTicks = 0;
        while (true) {
            if (waits.isEmpty() && ++quietTicks > IDLE_TICKS) {
                parked = true;
                // Checked after publishing: a wait added before this is seen here, one added after wakes the guard.
                if (waits.isEmpty()) {
                    LockSupport.park(this);
                }
                parked = false;
                quietTicks = 0;
                continue;
            }
            long now = System.nanoTime();
            for (Wait wait : waits) {
                quietTicks = 0;
                if (now - wait.deadlineNanos >= 0) {
                    wait.expire();
                }
            }
            LockSupport.parkNanos(this, TICK_NANOS);
        }
    }

    /** One thread's wait for a connection. */
    private static final class Wait {

        private final Thread thread;
        private final long deadlineNanos;
        private boolean ended;
        private boolean expired;

        Wait(Thread thread, long deadlineNanos) {
            this.thread = thread;
            this.deadlineNanos = deadlineNanos;
        }

        /** Interrupts the waiting thread, unless its wait has ended or it was interrupted already (then it ends). */
        synchronized void expire() {
            if (!ended && !expired && !thread.isInterrupted()) {
                expired = true;
                thread.interrupt();
            }
        }

        /**
         * Ends the wait: no interrupt comes after this.
         *
         * @return whether the guard interrupted the thread
         */
        synchronized boolean end() {
            ended = true;
            return expired;
        }
    }
}
