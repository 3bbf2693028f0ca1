package io.github.bizlock.internal.lock;

import io.github.bizlock.LockReleaseException;
import io.github.bizlock.internal.engine.Loss;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a grant whose hold ends: the rule for when it passes to a thread of this process that waits for it,
 * the fencing tokens it reserves for such hand-offs, and how it is given back to the database (by the {@link Releaser},
 * which never holds up the unlocking thread past a bound).
 */
final class HandOff {

    /**
     * How long after its acquisition a database grant may still pass from thread to thread. Hand-offs pay off for short
     * holds; with long ones they would only keep other processes waiting for many holds in a row.
     */
    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    // Under the manager's category: users configure logging for the class they use, not for its parts.
    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private final int localHandoffs;
    private final Watchdog watchdog;
    private final Releaser releaser;

    HandOff(int localHandoffs, Watchdog watchdog, Releaser releaser) {
        this.localHandoffs = localHandoffs;
        this.watchdog = watchdog;
        this.releaser = releaser;
    }

    /**
     * Whether an ending hold passes its grant to a thread of this process that waits for it, instead of releasing it:
     * only a grant that is still valid and renewed by the watchdog (a fixed lease is counted from its own acquisition),
     * at most {@code localHandoffs} times and within {@link #WINDOW_NANOS} of its acquisition, so other processes get
     * their turn, and only with a fencing token for the next hold at hand (reserved with the grant, or issued on demand
     * by the engine).
     */
    boolean mayHandOver(Gate gate, HeldGrant held) {
        return gate.users > 1
                && held.handoffs() < localHandoffs
                && System.nanoTime() - held.grant().sentNanos() < WINDOW_NANOS
                && held.renewedByWatchdog()
                && held.isValid()
                && (held.tokensOnDemand() || held.hasReservedToken());
    }

    /**
     * Releases a grant no thread of this process took over. Nobody held it meanwhile, so a loss is not reported; a
     * shutdown that released it already is not repeated.
     */
    void releaseHandedOver(HeldGrant held) {
        stopRenewing(held);
        try {
            if (!held.givenBack()) {
                releaser.release(held);
            }
        } catch (LockReleaseException ex) {
            log.warn(
                    "bizlock could not release lock {} after its last local holder; it is retried in the background",
                    held.grant().key(),
                    ex);
        } finally {
            held.markReleased();
        }
    }

    /**
     * The grant is being given back: from now on only its release decides whether it was lost, and the watchdog
     * leaves it alone.
     */
    void stopRenewing(HeldGrant held) {
        held.markReleasing();
        watchdog.unregister(held);
    }

    /**
     * Gives a grant its holder still counts on back to the database, waiting for it at most {@link Releaser#WAIT}.
     *
     * @return {@code null} if the database still held it for this grant, or why it did not
     * @throws LockReleaseException if the database did not answer in time or the release failed; it is retried in
     *     the background
     */
    @Nullable
    Loss release(HeldGrant held) {
        return releaser.release(held);
    }

    /**
     * Gives a grant already known lost back to the database in the background, without waiting: the release frees the
     * lock if nobody took it since, and never touches a later holder's.
     */
    void releaseLost(HeldGrant held) {
        if (!held.givenBack()) {
            releaser.releaseInBackground(held);
        }
    }

    /**
     * Gives back a grant whose acquirer was interrupted as it came, in the background: nobody holds it or waits for
     * its release, which the {@link Releaser} retries until the database answers.
     */
    void giveBackUnheld(HeldGrant held) {
        held.markReleased();
        releaser.releaseInBackground(held);
    }

    /**
     * How many fencing tokens a grant handed over {@code handoffs} times reserves: its holder's, and while
     * {@code otherThreads} wait, one for each hand-off still allowed, so they cost no statement of their own.
     */
    int tokensToReserve(int otherThreads, int handoffs) {
        return otherThreads > 0 ? 1 + Math.max(0, localHandoffs - handoffs) : 1;
    }
}
