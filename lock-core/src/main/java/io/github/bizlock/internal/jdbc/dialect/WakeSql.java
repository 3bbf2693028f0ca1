package io.github.bizlock.internal.jdbc.dialect;

/**
 * The statements of LEASE's wake locks, alike on MySQL 8 and MariaDB: a named lock per key that the holder of the
 * key's lease row holds with it, so that waiters of other processes queue on the server and are woken, in arrival
 * order, when it is released. The lease row stays the only grant; a wake lock is a hint.
 */
public final class WakeSql {

    /** Takes a wake lock if nobody holds or waits for it: 1 taken, 0 held elsewhere; parameter name. */
    public static final String TAKE = "SELECT GET_LOCK(?, 0)";

    /**
     * Queues for a wake lock for up to whole seconds (MySQL counts {@code GET_LOCK}'s timeout in whole seconds; the
     * session canceller ends the wait on time): 1 granted, 0 timed out, NULL killed on MariaDB; parameters name,
     * seconds.
     */
    public static final String WAIT = "SELECT GET_LOCK(?, ?)";

    /** Releases a wake lock this session holds, and wakes the longest waiter; parameter name. */
    public static final String RELEASE = "SELECT RELEASE_LOCK(?)";

    /** Releases every wake lock of a session: after a wait that was ended, which may have been granted just before. */
    public static final String RELEASE_ALL = "SELECT RELEASE_ALL_LOCKS()";

    private WakeSql() {}
}
