package io.github.bizlock;

/**
 * One permit of a semaphore: one of at most {@link #permits()} holders of ({@link #name()}, {@link #key()}) at once,
 * taken by {@link LockTemplate#acquirePermit} and given back by {@link #unlock()} or {@link #close()}.
 *
 * <pre>{@code
 * try (PermitHandle permit = lockTemplate.acquirePermit("export", tenant, 4)) {
 *     runExport(tenant, permit.fencingToken());
 * }
 * }</pre>
 *
 * <p>A permit is one of the semaphore's slots ({@link #slot()}, from 0 to {@code permits - 1}), and a slot is held like
 * a lock of its own: its own lease renewed by the watchdog (or a fixed lease), its own fencing token, strictly
 * increasing per slot, and the lost-lock policy applies to it. A holder that crashes gives its permit back when its
 * lease ends (LEASE) or its session does (ROW, NAMED). Like a {@link LockHandle}, the handle belongs to the thread that
 * acquired it. Permits are not reentrant: each acquisition takes another slot, also in the same thread.
 */
public interface PermitHandle extends AutoCloseable {

    /**
     * The most permits one semaphore may have: every waiter tries the free slots in turn, so a round of waiting costs up
     * to this many statements, and in ROW and NAMED mode each held permit holds a connection.
     */
    int MAX_PERMITS = 64;

    /** The semaphore's name, e.g. {@code export}: the {@code biz_type} column. */
    String name();

    /** The semaphore's key within its name, e.g. a tenant; its slots' {@code biz_id} are {@code key#0} to {@code key#N-1}. */
    String key();

    /** How many holders the semaphore lets in at once: the number its name is bound to. */
    int permits();

    /** The slot this permit holds, from 0 to {@link #permits()} - 1. */
    int slot();

    LockMode mode();

    /**
     * A number that strictly increases with every acquisition of this permit's slot, by any process; see
     * {@link LockHandle#fencingToken()}. Tokens of different slots are not ordered against each other.
     *
     * @throws LockLostException if no token was issued yet and the permit was lost meanwhile
     * @throws IllegalStateException if no token was issued yet and this handle was already unlocked
     */
    long fencingToken();

    /**
     * Whether this handle still holds its permit: it has not been unlocked and its lease has neither ended nor been taken
     * over. Safe to call from any thread.
     */
    boolean isHeld();

    /**
     * Gives the permit back; see {@link LockHandle#unlock()}.
     *
     * @throws IllegalMonitorStateException if this handle was already unlocked, or the calling thread is not the one
     *     that acquired it; the permit stays held
     * @throws LockLostException if the permit had been lost before this call
     * @throws LockReleaseException if the database did not answer the release in time or it failed
     */
    void unlock();

    /** Same as {@link #unlock()}, for try-with-resources. */
    @Override
    void close();
}
