package io.github.bizlock.internal.engine;

import io.github.bizlock.LockMode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Takes, keeps alive and releases locks in the database for one {@link LockMode}. Callers guarantee that at most one thread
 * per JVM works on a given key at a time, so engines need no locking of their own per key.
 */
public interface LockEngine {

    LockMode mode();

    /**
     * Whether the database keeps this engine's locks for as long as a session (connection) lives, rather than for a
     * lease. Such locks have no fixed lease: the lock manager ignores a fixed lease time for them, grants them the
     * watchdog's lease and has the watchdog call {@link #keepAlive} as a heartbeat every third of it, so a lock whose
     * session died is reported lost within one heartbeat. Their grants' {@link Grant#sentNanos()} is when the session
     * last answered.
     */
    default boolean heldBySession() {
        return false;
    }

    /**
     * Whether this engine grants locks without fencing tokens and issues them through {@link #issueTokens} when a
     * holder asks, because a token costs it a statement of its own (ROW, NAMED). Otherwise tokens come with the grant
     * at no cost (LEASE).
     */
    default boolean issuesTokensOnDemand() {
        return false;
    }

    /**
     * Takes the lock, waiting until {@code deadlineNanos} ({@link System#nanoTime()}) while it is held elsewhere.
     *
     * @param lease how long the lock lasts unless it is kept alive
     * @param tokens how many fencing tokens to reserve with the grant (at least 1): the holder's, and one for each
     *     holder this process may hand the lock to before it releases it; ignored by engines that issue tokens on
     *     demand
     * @return the grant, or {@code null} if the lock was still held elsewhere at the deadline
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     */
    @Nullable
    Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos) throws InterruptedException;

    /**
     * Issues {@code count} fencing tokens for a lock this grant holds, above every token issued for the lock before.
     * Only engines that {@link #issuesTokensOnDemand() issue tokens on demand} support it.
     *
     * @return the highest of them
     * @throws org.springframework.dao.DataAccessException if the database could not issue them, or the grant's
     *     session no longer holds the lock
     */
    default long issueTokens(Grant grant, int count) {
        throw new UnsupportedOperationException(mode() + " issues fencing tokens with its grants");
    }

    /**
     * Keeps the given grants, all owned by this process, alive for another lease: a lease is extended by its lease
     * time; a lock held by a session is checked (a heartbeat).
     *
     * @return the grants that are no longer held (taken over or gone); the others were kept alive
     * @throws org.springframework.dao.DataAccessException if the database could not be asked; nothing is known then
     */
    Set<Grant> keepAlive(List<Grant> grants);

    /**
     * Releases the lock if this grant still holds it; never touches a later holder's lock.
     *
     * @return whether the grant still held the lock
     */
    boolean release(Grant grant);
}
