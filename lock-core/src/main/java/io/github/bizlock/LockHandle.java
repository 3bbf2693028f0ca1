package io.github.bizlock;

/**
 * One acquisition of a distributed lock, released by {@link #unlock()} or {@link #close()}.
 *
 * <p>A handle belongs to the thread that acquired it: only that thread may unlock it. Acquiring the same lock again in
 * that thread returns a new handle for the same hold (reentrancy); the database lock is released when every handle
 * has been unlocked.
 *
 * <pre>{@code
 * try (LockHandle lock = lockTemplate.acquire("order", orderId)) {
 *     jdbc.update("UPDATE orders SET state = ?, fence = ? WHERE id = ? AND fence < ?",
 *             state, lock.fencingToken(), orderId, lock.fencingToken());
 * }
 * }</pre>
 */
public interface LockHandle extends AutoCloseable {

    /** The lock's name, e.g. {@code order}: the {@code biz_type} column. */
    String name();

    /** The lock's key within its name, e.g. an order id: the {@code biz_id} column. */
    String key();

    LockMode mode();

    /** Whether this is a read lock, shared with other readers, or a write lock ({@link LockAccess}). */
    default LockAccess access() {
        return LockAccess.WRITE;
    }

    /**
     * A number that strictly increases with every acquisition of this lock ({@code name}, {@code key}) by any
     * process; unchanged by reentry and renewal. Store it with the data you protect and refuse writes that carry a
     * smaller token, so a holder whose lease ran out (a long GC pause, a network stall) cannot overwrite the work of
     * the next holder.
     *
     * <p>LEASE locks get their token with the lock, at no cost. ROW and NAMED locks issue it on the first call, with one
     * statement (tokens for threads of this process already waiting for the lock come with it), so locks whose
     * holders never ask cost no token; call it while holding the lock. Tokens are not consecutive: a lock handed
     * from one thread of this process to the next reserves tokens for them, and unused ones are skipped.
     *
     * @throws LockLostException if no token was issued yet and the lock was lost meanwhile
     * @throws IllegalStateException if no token was issued yet and this handle was already unlocked
     */
    long fencingToken();

    /**
     * Whether this handle still holds the lock: it has not been unlocked and its lease has neither ended nor been
     * taken over. Safe to call from any thread.
     */
    boolean isHeld();

    /**
     * Releases this hold.
     *
     * @throws IllegalMonitorStateException if this handle was already unlocked, or the calling thread is not the
     *     one that acquired it; the lock stays held
     * @throws LockLostException if the lease had been lost before this call: the work done under the lock may have
     *     overlapped with another holder's. Thrown at once if the loss was known before, whatever the database's
     *     state; the release, which frees the lock only if nobody took it since, goes on in the background
     * @throws LockReleaseException if the lock was held but the database did not answer the release within 2 s, or
     *     the release failed: the work is not in doubt, this thread no longer holds the lock, and the release is
     *     retried in the background
     */
    void unlock();

    /** Same as {@link #unlock()}, for try-with-resources. */
    @Override
    void close();
}
