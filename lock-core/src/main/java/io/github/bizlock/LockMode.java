package io.github.bizlock;

/** How a lock is kept in the database. All modes offer the same API, reentrancy and fencing tokens. */
public enum LockMode {

    /**
     * A row in {@code biz_lock} with an owner and an expiry in database time, renewed by a watchdog. Holds no
     * connection between statements; a crashed holder's lock frees when its lease ends.
     */
    LEASE,

    /**
     * {@code SELECT ... FOR UPDATE} on the lock's row in a transaction kept open on a dedicated connection; the server
     * queues waiters and frees the lock when the session ends.
     */
    ROW,

    /**
     * {@code GET_LOCK} / {@code RELEASE_LOCK} on a dedicated connection; the server queues waiters and frees the lock
     * when the session ends.
     */
    NAMED
}
