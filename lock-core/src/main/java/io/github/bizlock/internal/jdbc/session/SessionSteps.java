package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The statements of one session mode ({@link RowSteps ROW}, {@link NamedSteps NAMED}) that a {@link SessionLockEngine}
 * runs on the sessions it holds. {@link #stillHolds} and {@link #unlock} run under the session's guard, with a read
 * timeout of {@link io.github.bizlock.internal.engine.LockEngine#RELEASE_TIMEOUT}; {@link #lock} runs on a session no
 * other thread uses yet, and {@link #issueTokens} takes the guard itself.
 */
interface SessionSteps {

    /** The mode whose locks these steps take. */
    LockMode mode();

    /** The statement that takes the lock, named in errors and in a cluster's refusal. */
    String lockStatement();

    /** Prepares a newly opened session connection, e.g. turns off autocommit. */
    void prepare(Connection connection) throws SQLException;

    /**
     * One attempt at the lock on the session, waiting until {@code deadlineNanos} at most (under a watch of {@code
     * watched}); without time left, a try that does not wait.
     */
    Outcome lock(Session session, LockKey key, long deadlineNanos, WatchedStatements watched) throws SQLException;

    /**
     * Issues {@code count} fencing tokens for a lock the session holds, committed on their own. Runs without the
     * session's guard: a step uses the session only under it ({@link Session#whileHeldBy}), and never waits for another
     * connection while holding it, since the watchdog's heartbeats of every lock of this mode wait for it.
     *
     * @return the highest of them
     */
    long issueTokens(Session session, Grant grant, int count) throws SQLException;

    /** The heartbeat of one grant: whether its session is alive and still holds the lock. */
    boolean stillHolds(Session session, Grant grant) throws SQLException;

    /** Releases the lock held on the session: whether the session held it and may be reused. */
    boolean unlock(Session session, Grant grant) throws SQLException;
}
