package io.github.bizlock.internal.engine;

import io.github.bizlock.LockMode;

/**
 * Where each lock name is bound to the one {@link LockMode} its locks are taken in, and to what it names (locks, or a
 * semaphore of a number of permits), for every process that shares the lock database: engines of different modes never
 * see each other's locks, and processes that disagree on a semaphore's permits would let more holders in than either
 * allows, so the lock manager refuses a name in anything but its bound binding.
 */
public interface ModeBindingStore {

    /**
     * What a name is bound to.
     *
     * @param mode the mode its locks are taken in
     * @param permits the number of permits of the semaphore it names, or {@link #LOCKS} for a name of plain locks
     */
    record Binding(LockMode mode, int permits) {

        /** The permits of a name of plain locks, whose keys have one holder each. */
        public static final int LOCKS = 0;

        /** A name of plain locks in this mode. */
        public static Binding locks(LockMode mode) {
            return new Binding(mode, LOCKS);
        }
    }

    /**
     * Binds the name to {@code wanted} unless it is bound already; concurrent first uses agree on one binding.
     *
     * @param deadlineNanos when ({@link System#nanoTime()}) the call must have ended, whatever the database does
     * @return what the name is bound to now: {@code wanted}, or what it was bound to before
     * @throws org.springframework.dao.DataAccessException if the database did not answer by the deadline, or failed
     */
    Binding bind(String name, Binding wanted, long deadlineNanos);

    /**
     * The statements that move a name to another binding, for an operator to run with every process stopped: they bind
     * it to {@code wanted} and make its locks' fencing tokens continue above every token issued before.
     */
    String changeStatements(String name, Binding wanted);
}
