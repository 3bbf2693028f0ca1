package io.github.bizlock.internal.engine;

import io.github.bizlock.LockMode;

/**
 * Where each lock name is bound to the one {@link LockMode} its locks are taken in, for every process that shares the
 * lock database: engines of different modes never see each other's locks, so the lock manager refuses a name in any
 * mode but its bound one.
 */
public interface ModeBindingStore {

    /**
     * Binds the name to {@code mode} unless it is bound already; concurrent first uses agree on one mode.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the call must have ended, whatever the database does
     * @return the mode the name is bound to now: {@code mode}, or the one it was bound to before
     * @throws org.springframework.dao.DataAccessException if the database did not answer by the deadline, or failed
     */
    LockMode bind(String name, LockMode mode, long deadlineNanos);

    /**
     * The statements that move a name to another mode, for an operator to run with every process stopped: they bind
     * it to {@code mode} and make its locks' fencing tokens continue above every token issued before.
     */
    String changeStatements(String name, LockMode mode);
}
