package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Grant} as this process keeps it, whether the database holds it by a lease (LEASE) or by a session (ROW,
 * NAMED): until when it may count on it (by its own monotonic clock), when the watchdog renews it next, whether it was
 * lost, which {@link Hold} has it now (none while it is handed from one thread of this process to the next), and the
 * fencing tokens reserved with it that no hold has taken yet.
 */
final class HeldGrant {

    // The local deadline ends this much before the database's, so a holder never believes in a lease that the database
    // may already have ended: the statement ran after it was sent, but clocks drift and schedulers lag.
    private static final Duration MAX_SAFETY_MARGIN = Duration.ofSeconds(1);

    private final Grant grant;
    private final LockEngine engine;
    private final boolean renewedByWatchdog;
    private final long leaseNanos;
    private final long renewalIntervalNanos;
    private final long marginNanos;
    private volatile long expiresAtNanos;
    private volatile long nextRenewalNanos;
    private volatile long lastRenewedNanos;
    private volatile boolean released;
    private volatile boolean releasing;
    private volatile boolean givenBack;
    private volatile @Nullable String renewalError;
    private final AtomicReference<@Nullable Loss> recordedLoss = new AtomicReference<>();
    private volatile @Nullable Hold hold;

    /** The holds of the threads that share a read grant ({@link ReadShares}); none for any other grant. */
    private final Set<Hold> sharers = ConcurrentHashMap.newKeySet();

    /** Local hand-offs so far; read and written by the thread holding the gate. */
    private int handoffs;

    /** Guards the reserved tokens, and a hold's token while it is being issued. */
    final ReentrantLock tokenLock = new ReentrantLock();

    private long nextToken;
    private long lastToken = -1;

    HeldGrant(Grant grant, LockEngine engine, boolean renewedByWatchdog) {
        this.grant = grant;
        this.engine = engine;
        this.renewedByWatchdog = renewedByWatchdog;
        if (grant.tokens() > 0) {
            reserved(grant.fencingToken(), grant.tokens());
        }
        this.leaseNanos = grant.lease().toNanos();
        this.renewalIntervalNanos = engine.renewalInterval(grant.lease()).toNanos();
        this.marginNanos = Math.min(leaseNanos / 10, MAX_SAFETY_MARGIN.toNanos());
        renewed(grant.sentNanos());
    }

    Grant grant() {
        return grant;
    }

    LockEngine engine() {
        return engine;
    }

    boolean renewedByWatchdog() {
        return renewedByWatchdog;
    }

    /** The hold that has the grant now, or {@code null} while it is handed over or after release. */
    @Nullable
    Hold hold() {
        return hold;
    }

    /** The holds of the threads sharing this read grant now. */
    Set<Hold> sharers() {
        return sharers;
    }

    /** The first hold of a new grant, with its first reserved token if it came with any. */
    synchronized Hold begin(Thread thread, LockLostPolicy onLost) {
        Hold first = new Hold(this, thread, onLost);
        first.token(takeReservedToken());
        hold = first;
        return first;
    }

    /**
     * Gives a handed-over grant to a new hold of {@code thread}, with the next reserved token if one is left.
     *
     * @return the hold, or {@code null} if the grant is no longer valid (lost, lease ended)
     */
    synchronized @Nullable Hold takeOver(Thread thread, LockLostPolicy onLost) {
        return isValid() ? begin(thread, onLost) : null;
    }

    /** The hold ended and the grant waits for the next local thread; counts the hand-off. */
    synchronized void handOver() {
        hold = null;
        handoffs++;
    }

    /** How often the grant was handed from one thread of this process to another. */
    int handoffs() {
        return handoffs;
    }

    /** Whether the grant came without tokens, so that the engine issues them when a hold asks. */
    boolean tokensOnDemand() {
        return grant.tokens() == 0;
    }

    /** Whether a reserved token is left for another hold. */
    boolean hasReservedToken() {
        tokenLock.lock();
        try {
            return nextToken <= lastToken;
        } finally {
            tokenLock.unlock();
        }
    }

    /** Takes the next reserved token, or returns 0 if none is left. */
    long takeReservedToken() {
        tokenLock.lock();
        try {
            return nextToken <= lastToken ? nextToken++ : 0;
        } finally {
            tokenLock.unlock();
        }
    }

    /** Records {@code count} tokens reserved up to {@code top}, for this and later holds. */
    void reserved(long top, int count) {
        tokenLock.lock();
        try {
            nextToken = top - count + 1;
            lastToken = top;
        } finally {
            tokenLock.unlock();
        }
    }

    /**
     * Whether the watchdog is late with this grant: its last successful renewal is more than half the lease ago, so
     * renewals have been failing.
     */
    boolean renewalOverdue(long nowNanos) {
        return nowNanos - lastRenewedNanos > leaseNanos / 2;
    }

    /** Interrupts the thread of {@code lost}, unless that hold has ended (released or handed over: it moved on). */
    synchronized boolean interruptHolderIfStillHolding(Hold lost) {
        if (released || releasing || (hold != lost && !sharers.contains(lost))) {
            return false;
        }
        // An interrupt already pending is someone else's: the hold's end must leave it, so this one is not recorded.
        lost.interruptedForLoss = !lost.thread.isInterrupted();
        lost.thread.interrupt();
        return true;
    }

    /**
     * Why the lock is lost when its local deadline passes while it is held: a lease ended (the watchdog's, which could
     * not be renewed in time, or a fixed one); a lock held by a session (the engine grants no fixed lease) was not
     * heard from in time, so whether the database still holds it is not known.
     */
    Loss expiryLoss() {
        if (!renewedByWatchdog) {
            return new Loss(
                    LossCause.LEASE_EXPIRED, "its fixed lease of " + grant.lease() + " ended while it was still held");
        }
        String error = renewalError;
        String why = error != null ? ": the database did not answer (" + error + ")" : " (is the database reachable?)";
        return engine.fixedLease(grant.lease()) == null
                ? new Loss(LossCause.UNREACHABLE, "its database session did not answer a heartbeat in time" + why)
                : new Loss(LossCause.LEASE_EXPIRED, "its lease ended before the watchdog could renew it" + why);
    }

    /** Interval between renewals, as the engine asks: at most a third of the lease. */
    long renewalIntervalNanos() {
        return renewalIntervalNanos;
    }

    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    void renewed(long sentNanos) {
        this.expiresAtNanos = sentNanos + leaseNanos - marginNanos;
        this.nextRenewalNanos = sentNanos + renewalIntervalNanos();
        this.lastRenewedNanos = sentNanos;
        this.renewalError = null;
    }

    /** A renewal failed with {@code error}; the next one is tried at {@code nanos}. */
    void renewalFailed(String error, long nanos) {
        this.renewalError = error;
        this.nextRenewalNanos = nanos;
    }

    boolean hasExpired(long nowNanos) {
        return nowNanos - expiresAtNanos >= 0;
    }

    /** Whether the lock is still ours: not released, not lost, lease not ended. */
    boolean isValid() {
        return !released && recordedLoss.get() == null && !hasExpired(System.nanoTime());
    }

    /** Why the lock is lost, or {@code null} if it is not (as far as this process knows): recorded, or its lease ended. */
    @Nullable
    Loss loss() {
        Loss recorded = recordedLoss.get();
        if (recorded != null) {
            return recorded;
        }
        return hasExpired(System.nanoTime()) ? expiryLoss() : null;
    }

    boolean isReleased() {
        return released;
    }

    /**
     * Whether {@code ended} is the grant's hold and its thread has ended: nobody can unlock it then, and nobody can
     * change its hold (only its own thread hands it over or gives it back). Read under the monitor, so a hold handed
     * over and taken over by another thread just before its thread ended is never taken for the ended one.
     */
    synchronized boolean heldByEnded(Hold ended) {
        return hold == ended && !released && !releasing && !ended.thread.isAlive();
    }

    synchronized void markReleased() {
        released = true;
        hold = null;
    }

    /**
     * The holder is unlocking: from now on only the unlock itself decides whether the lock was lost, so a renewal
     * racing with the release (which then finds the row freed) is not mistaken for a loss.
     */
    synchronized void markReleasing() {
        releasing = true;
    }

    /**
     * Claims the grant's release for the shutdown, unless its holder is unlocking it (then the unlock releases it).
     *
     * @return whether the shutdown releases it; the holder's unlock then leaves the database alone
     */
    synchronized boolean giveBackAtShutdown() {
        if (releasing || released) {
            return false;
        }
        givenBack = true;
        return true;
    }

    /** Whether the shutdown released the grant in the database. */
    boolean givenBack() {
        return givenBack;
    }

    /**
     * Records a loss the watchdog found, unless the holder is already unlocking. Atomic with {@link #takeOver}: a hold
     * that takes the grant over before this is the one that lost it; after it, no hold can take it over.
     *
     * @return the hold to tell, or {@code null} if the loss was recorded before, the holder is unlocking, or the grant
     *     was between holds
     */
    synchronized @Nullable Hold markLostByWatchdog(Loss loss) {
        return !releasing && markLost(loss) ? hold : null;
    }

    /**
     * Records the loss.
     *
     * @return whether this call recorded it (false if it was recorded before or the grant was released)
     */
    boolean markLost(Loss loss) {
        return !released && recordedLoss.compareAndSet(null, loss);
    }
}
