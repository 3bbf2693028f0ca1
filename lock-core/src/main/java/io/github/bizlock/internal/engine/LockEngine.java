package io.github.bizlock.internal.engine;

import io.github.bizlock.LockMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Takes, renews and releases locks in the database for one {@link LockMode}. Callers guarantee that at most one
 * thread per JVM works on a given key at a time, so engines need no locking of their own per key, with one exception:
 * a {@link #release} that the database did not answer in time goes on (and is retried) in the background, so it may
 * overlap a later acquisition of the same key. A release only ever frees its own grant's lock.
 */
public interface LockEngine {

    /**
     * How long past its wait time an acquisition's database call may run: the time a database that answers needs. An
     * unreachable one ends the call then, not after the pool's connection timeout or a dead connection's read.
     */
    Duration DEADLINE_SLACK = Duration.ofSeconds(1);

    /** How long an unlocking thread waits for the database to answer a release. */
    Duration RELEASE_TIMEOUT = Duration.ofSeconds(2);

    LockMode mode();

    /**
     * Fails when this engine's locks would not exclude each other on this server. The lock manager asks before it binds
     * the name to the mode, so a refused call leaves nothing behind.
     *
     * @throws IllegalStateException naming why, and what to use or declare instead
     */
    default void requireAllowedHere() {}

    /**
     * Whether {@link #release} waits for the database at most {@link #RELEASE_TIMEOUT} on its own, so the lock manager
     * runs it on the unlocking thread. An engine whose connections it does not own cannot promise that (a pool may
     * make it wait for a connection far longer): its releases run on a thread of their own, which the unlocking thread
     * waits for at most that long.
     */
    default boolean boundsRelease() {
        return false;
    }

    /**
     * Whether a release that failed is tried again in the background. Not for an engine whose failed release lets go
     * of the lock anyway: a session engine closes the session, and the server frees its locks with it.
     */
    default boolean retriesFailedRelease() {
        return true;
    }

    /**
     * The fixed lease this engine grants a lock for when {@code requested} is asked for, or {@code null} if the lock
     * lasts until it is released: then the lock manager grants it the watchdog's lease and has the watchdog call
     * {@link #renew} every third of it. A lock held by a session (connection) has no fixed lease, since it lasts
     * while its session does; for it, {@link #renew} is a heartbeat, and a lock whose session died is reported
     * lost within one.
     *
     * @param requested the fixed lease asked for, or {@code null} to have the watchdog renew the lock
     */
    default @Nullable Duration fixedLease(@Nullable Duration requested) {
        return requested;
    }

    /**
     * How often the watchdog renews a grant of this lease: a third of it, so two renewals may fail before it ends.
     * An engine may check more often, so its holders learn of a loss sooner.
     */
    default Duration renewalInterval(Duration lease) {
        return lease.dividedBy(3);
    }

    /**
     * Takes the lock, waiting until {@code deadlineNanos} ({@link System#nanoTime()}) while it is held elsewhere.
     *
     * @param lease how long the lock lasts unless it is renewed
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
     * Only engines whose grants come without tokens ({@link Grant#tokens()} is 0) support it.
     *
     * @return the highest of them
     * @throws org.springframework.dao.DataAccessException if the database could not issue them, or the grant's
     *     session no longer holds the lock
     */
    default long issueTokens(Grant grant, int count) {
        throw new UnsupportedOperationException(mode() + " issues fencing tokens with its grants");
    }

    /**
     * Renews the given grants, all owned by this process, for another lease: a lease is extended by its lease time; a
     * lock held by a session is checked (a heartbeat, the session engines' renewal).
     *
     * @return the grants that are no longer held, each with why (taken over, removed, its session ended or could not
     *     be checked); the others were renewed
     * @throws org.springframework.dao.DataAccessException if the database could not be asked; nothing is known then
     */
    Map<Grant, Loss> renew(List<Grant> grants);

    /**
     * Releases the lock if this grant still holds it; never touches a later holder's lock.
     *
     * @return {@code null} if the grant held the lock and released it, or why it no longer held it
     * @throws org.springframework.dao.DataAccessException if the database could not be asked; the lock may still be
     *     held then, and a release may be tried again unless the engine {@linkplain #boundsRelease() bounds} it (then
     *     nothing is left to try again with: the engine let go of what held the lock)
     */
    @Nullable
    Loss release(Grant grant);

    /**
     * Releases grants whose holders were told they lost them, when the process shuts down: each only if it still holds
     * its lock. An engine may release them in fewer statements than one each.
     *
     * @throws org.springframework.dao.DataAccessException if the database could not be asked; the locks left free
     *     when their leases or sessions end
     */
    default void releaseAll(List<Grant> grants) {
        RuntimeException failed = null;
        for (Grant grant : grants) {
            try {
                release(grant);
            } catch (RuntimeException ex) {
                failed = ex;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
