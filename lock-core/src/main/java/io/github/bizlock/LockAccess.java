package io.github.bizlock;

/**
 * How a lock is taken: {@link #WRITE}, the default, excludes every other holder; {@link #READ} shares the lock with
 * other readers. Every lock is a read-write lock: a lock taken without an access is its write lock.
 *
 * <pre>{@code
 * try (LockHandle catalog = lockTemplate.acquire("catalog", region, LockOptions.defaults().access(LockAccess.READ))) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Writers are preferred: a writer waiting for readers keeps new readers out, so a stream of readers cannot starve it.
 * A thread holding the write lock may take the read lock (a downgrade; in LEASE mode); a thread holding the read lock
 * that asks for the write lock is refused at once with an {@link IllegalStateException}, as it would wait for itself.
 * Read locks exist in LEASE and ROW mode; NAMED locks ({@code GET_LOCK}) are exclusive only. The fencing token of a
 * read lock is the lock's last write token: a write lock taken after it has a higher one.
 */
public enum LockAccess {

    /** Shared with other read locks of the key; excludes its write lock. */
    READ,

    /** Exclusive: no other read or write lock of the key is held meanwhile. The access of every lock by default. */
    WRITE
}
