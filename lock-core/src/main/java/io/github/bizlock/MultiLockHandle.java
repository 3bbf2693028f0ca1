package io.github.bizlock;

import java.util.List;

/**
 * The locks of several keys of one name, taken together by {@link LockTemplate#acquireAll} and released together by
 * {@link #unlock()} or {@link #close()}: all of them or none.
 *
 * <pre>{@code
 * try (MultiLockHandle accounts = lockTemplate.acquireAll("account", List.of(from, to))) {
 *     debit(from, amount, accounts.fencingToken(from));
 *     credit(to, amount, accounts.fencingToken(to));
 * }
 * }</pre>
 *
 * <p>Each key is a lock of its own, as if taken by {@link LockTemplate#acquire}: its own fencing token, its own
 * lease renewed by the watchdog, and the lost-lock policy applies to each. Like a {@link LockHandle}, the handle
 * belongs to the thread that acquired it.
 */
public interface MultiLockHandle extends AutoCloseable {

    /** The most keys one call may lock: each is a lock, and in ROW and NAMED mode each holds a connection. */
    int MAX_KEYS = 64;

    /** The locks' name, e.g. {@code account}: the {@code biz_type} column. */
    String name();

    /**
     * The keys held, each once, in the order they were taken: the byte order of their UTF-8 text, which is how the lock
     * table's primary key orders them, and the same order in every process.
     */
    List<String> keys();

    LockMode mode();

    /**
     * The fencing token of one key's lock; see {@link LockHandle#fencingToken()}.
     *
     * @throws IllegalArgumentException if the key is not one of {@link #keys()}
     * @throws LockLostException if no token was issued yet and that key's lock was lost meanwhile
     * @throws IllegalStateException if no token was issued yet and this handle was already unlocked
     */
    long fencingToken(String key);

    /**
     * Whether this handle still holds every one of its locks: it has not been unlocked, and no lease has ended or
     * been taken over. Safe to call from any thread.
     */
    boolean isHeld();

    /**
     * Whether this handle still holds the lock of one of its keys.
     *
     * @throws IllegalArgumentException if the key is not one of {@link #keys()}
     */
    boolean isHeld(String key);

    /**
     * Releases every lock, in the reverse of the order they were taken; each is released even when another one's
     * release fails.
     *
     * @throws IllegalMonitorStateException if this handle was already unlocked, or the calling thread is not the one
     *     that acquired it; the locks stay held
     * @throws LockLostException if a lock had been lost before this call (the others' exceptions are suppressed)
     * @throws LockReleaseException if the database did not answer a release in time or it failed; see
     *     {@link LockHandle#unlock()}
     */
    void unlock();

    /** Same as {@link #unlock()}, for try-with-resources. */
    @Override
    void close();
}
