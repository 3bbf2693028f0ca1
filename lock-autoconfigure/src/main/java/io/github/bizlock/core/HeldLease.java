package io.github.bizlock.core;

import io.github.bizlock.LockLostPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A grant as this process holds it: until when it may count on it (by its own monotonic clock), when the watchdog
 * renews it next, and whether it was lost.
 */
final class HeldLease {

    // The local deadline ends this much before the database's, so a holder never believes in a lease that the database
    // may already have ended: the statement ran after it was sent, but clocks drift and schedulers lag.
    private static final Duration MAX_SAFETY_MARGIN = Duration.ofSeconds(1);

    private final Grant grant;
    private final LockEngine engine;
    private final boolean renewedByWatchdog;
    private final Thread holder;
    private final LockLostPolicy onLost;
    private final long acquiredNanos = System.nanoTime();
    private final long leaseNanos;
    private final long marginNanos;
    private volatile long expiresAtNanos;
    private volatile long nextRenewalNanos;
    private volatile long lastRenewedNanos;
    private volatile boolean released;
    private volatile boolean releasing;
    private final AtomicReference<@Nullable String> lostReason = new AtomicReference<>();

    HeldLease(Grant grant, LockEngine engine, boolean renewedByWatchdog, Thread holder, LockLostPolicy onLost) {
        this.grant = grant;
        this.engine = engine;
        this.renewedByWatchdog = renewedByWatchdog;
        this.holder = holder;
        this.onLost = onLost;
        this.leaseNanos = grant.lease().toNanos();
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

    Thread holder() {
        return holder;
    }

    LockLostPolicy onLost() {
        return onLost;
    }

    /** {@link System#nanoTime()} when this process got the grant. */
    long acquiredNanos() {
        return acquiredNanos;
    }

    /**
     * Whether the watchdog is late with this lease: its last successful renewal is more than one and a half renewal
     * intervals (half the lease) ago, so renewals have been failing.
     */
    boolean renewalOverdue(long nowNanos) {
        return nowNanos - lastRenewedNanos > renewalIntervalNanos() * 3 / 2;
    }

    /** Interrupts the holder thread, unless the lock was released already (then the thread has moved on). */
    synchronized boolean interruptHolderIfNotReleased() {
        if (released || releasing) {
            return false;
        }
        holder.interrupt();
        return true;
    }

    /** Why the lock is lost when its lease ends while it is held. */
    String expiryReason() {
        return renewedByWatchdog
                ? "its lease ended before the watchdog could renew it (is the database reachable?)"
                : "its fixed lease of " + grant.lease() + " ended while it was still held";
    }

    /** Interval between renewals: a third of the lease, so two renewals may fail before it ends. */
    long renewalIntervalNanos() {
        return leaseNanos / 3;
    }

    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    void renewed(long sentNanos) {
        this.expiresAtNanos = sentNanos + leaseNanos - marginNanos;
        this.nextRenewalNanos = sentNanos + renewalIntervalNanos();
        this.lastRenewedNanos = sentNanos;
    }

    void retryRenewalAt(long nanos) {
        this.nextRenewalNanos = nanos;
    }

    boolean hasExpired(long nowNanos) {
        return nowNanos - expiresAtNanos >= 0;
    }

    /** Whether the lock is still ours: not released, not lost, lease not ended. */
    boolean isValid() {
        return !released && lostReason.get() == null && !hasExpired(System.nanoTime());
    }

    boolean isReleased() {
        return released;
    }

    synchronized void markReleased() {
        released = true;
    }

    /**
     * The holder is unlocking: from now on only the unlock itself decides whether the lock was lost, so a renewal
     * racing with the release (which then finds the row freed) is not mistaken for a loss.
     */
    synchronized void markReleasing() {
        releasing = true;
    }

    /** Records a loss the watchdog found, unless the holder is already unlocking. */
    boolean markLostByWatchdog(String reason) {
        return !releasing && markLost(reason);
    }

    /**
     * Records the loss.
     *
     * @return whether this call recorded it (false if it was recorded before or the lease was released)
     */
    boolean markLost(String reason) {
        return !released && lostReason.compareAndSet(null, reason);
    }

    @Nullable
    String lostReason() {
        return lostReason.get();
    }
}
