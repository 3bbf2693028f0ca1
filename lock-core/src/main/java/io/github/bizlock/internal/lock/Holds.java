package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Begins and ends the holds of this process's threads: a thread passes its key's {@link Gate} to re-enter its hold,
 * take over a grant handed to it, or have the engine grant a new one; its last unlock hands the grant over or gives it
 * back.
 */
final class Holds {

    private final Duration watchdogLease;
    private final Gates gates;
    private final HandOff handOff;
    private final FencingTokens fencingTokens;
    private final LossReporter losses;
    private final Watchdog watchdog;
    private final LockObserver observer;

    Holds(
            Duration watchdogLease,
            Gates gates,
            HandOff handOff,
            FencingTokens fencingTokens,
            LossReporter losses,
            Watchdog watchdog,
            LockObserver observer) {
        this.watchdogLease = watchdogLease;
        this.gates = gates;
        this.handOff = handOff;
        this.fencingTokens = fencingTokens;
        this.losses = losses;
        this.watchdog = watchdog;
        this.observer = observer;
    }

    /**
     * Passes the key's gate to a hold: this thread's own hold again (reentry), a grant another thread of this process
     * handed over, or a new grant from {@code engine}.
     *
     * @param deadline when the wait ends ({@link #deadline}): counted from the call, so that what ran before (the
     *     name's binding) is part of the wait
     * @return the handle, or empty if the lock was still held elsewhere when the wait ended
     */
    Optional<LockHandle> acquire(
            LockKey key,
            LockMode mode,
            LockEngine engine,
            Duration wait,
            long deadline,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        Gate gate = gates.enter(new Gate.Id(mode, key));
        boolean entered = false;
        try {
            if (gate.local.isHeldByCurrentThread()) {
                HeldGrant held = Objects.requireNonNull(gate.heldGrant);
                Hold hold = Objects.requireNonNull(held.hold());
                if (!held.isValid()) {
                    throw losses.lostException(hold);
                }
                gate.local.lock();
                gate.holds++;
                entered = true;
                return Optional.of(new DefaultLockHandle(this, fencingTokens, gate, hold));
            }
            // A single attempt too is timed: a fair gate then does not let it pass the threads that wait.
            boolean locallyFree = gate.local.tryLock(wait.isZero() ? 0 : remaining(deadline), TimeUnit.NANOSECONDS);
            if (!locallyFree) {
                return Optional.empty();
            }
            try {
                @Nullable Duration fixedLease = engine.fixedLease(lease);
                boolean renewed = fixedLease == null;
                HeldGrant handedOver = gate.heldGrant;
                if (handedOver != null) {
                    if (Thread.interrupted()) {
                        // The grant stays for the next waiter; if none is left, the last to leave releases it.
                        throw new InterruptedException("Interrupted while acquiring " + key);
                    }
                    Hold hold = renewed ? handedOver.takeOver(Thread.currentThread(), onLost) : null;
                    if (hold != null) {
                        gate.holds = 1;
                        entered = true;
                        return Optional.of(new DefaultLockHandle(this, fencingTokens, gate, hold));
                    }
                    // A fixed lease was asked for, or the grant ended while handed over: release it, take a new one.
                    gate.heldGrant = null;
                    handOff.releaseHandedOver(handedOver);
                }
                int tokens = handOff.tokensToReserve(gate.users - 1, 0);
                Grant grant = engine.acquire(key, renewed ? watchdogLease : fixedLease, tokens, deadline);
                if (grant == null) {
                    gate.local.unlock();
                    return Optional.empty();
                }
                HeldGrant held = new HeldGrant(grant, engine, renewed);
                Hold hold = held.begin(Thread.currentThread(), onLost);
                if (Thread.interrupted()) {
                    // Interrupted while the database granted it: an interrupted wait holds nothing and returns now,
                    // so the grant goes back in the background, retried until the database answers.
                    handOff.giveBackUnheld(held);
                    throw new InterruptedException("Interrupted while acquiring " + key);
                }
                gate.heldGrant = held;
                gate.holds = 1;
                // Fixed leases too: the watchdog reports them lost when they end while still held.
                watchdog.register(held);
                entered = true;
                return Optional.of(new DefaultLockHandle(this, fencingTokens, gate, hold));
            } catch (InterruptedException | RuntimeException | Error ex) {
                // Interrupted in the engine's wait, or failed: the local lock must not stay with this thread.
                gate.local.unlock();
                throw ex;
            }
        } finally {
            if (!entered) {
                gates.leave(gate);
            }
        }
    }

    /**
     * Ends one acquisition. The last one of a hold hands the grant over to a thread of this process that waits for it,
     * or gives it back to the database.
     *
     * @throws io.github.bizlock.LockLostException if the hold had lost its grant: at once if that was known before
     *     (the release then goes on in the background)
     * @throws io.github.bizlock.LockReleaseException if the database did not answer the release in time or it failed;
     *     the hold has ended all the same, and the release is retried in the background
     */
    void unlock(DefaultLockHandle handle) {
        Gate gate = handle.gate;
        if (handle.unlocked) {
            throw new IllegalMonitorStateException(
                    "Lock " + gate.id.key() + " was already unlocked through this handle");
        }
        Hold hold = handle.hold;
        if (!gate.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock " + gate.id.key() + " is held by thread "
                    + hold.thread.getName() + "; only the thread that acquired a lock may unlock it");
        }
        handle.unlocked = true;
        if (--gate.holds > 0) {
            gate.local.unlock();
            gates.leave(gate);
            return;
        }
        HeldGrant held = hold.heldGrant;
        if (handOff.mayHandOver(gate, held)) {
            // Another thread of this process waits: it takes the grant from here, without a round trip.
            held.handOver();
            hold.clearInterruptForLoss(); // after the hand-over, no loss of this grant interrupts this hold
            // Leave before unlocking, so the next holder counts only the threads that still wait.
            gates.leave(gate);
            gate.local.unlock();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            observer.handedOver(held.grant().key(), held.engine().mode());
            return;
        }
        handOff.stopRenewing(held);
        // Known after the watchdog stopped: a loss it found, or a lease that ended.
        @Nullable Loss loss = held.loss();
        try {
            if (loss != null) {
                // Answered at once, whatever the database's state. The release still frees the row if nobody took
                // it: it only matches our owner and token, never a later holder's.
                handOff.releaseLost(held);
            } else {
                @Nullable Loss atRelease = handOff.release(held);
                if (atRelease != null) {
                    loss = new Loss(atRelease.cause(), "at unlock, " + atRelease.reason());
                }
            }
        } finally {
            hold.clearInterruptForLoss(); // the watchdog stopped: no later loss interrupts this hold
            boolean firstReport = loss != null && held.markLost(loss);
            held.markReleased();
            gate.heldGrant = null;
            gates.leave(gate);
            gate.local.unlock();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            if (firstReport) {
                losses.notifyLost(hold, loss);
            }
        }
        if (loss != null) {
            throw losses.lostException(hold);
        }
    }

    /**
     * Refuses a wait or lease no lock can have, before anything is bound or asked for.
     *
     * @throws IllegalArgumentException naming the value and what to pass instead
     */
    static void requireValid(Duration wait, @Nullable Duration lease) {
        Objects.requireNonNull(wait, "wait");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("The wait time must not be negative, was " + wait
                    + "; use Duration.ZERO to try once without waiting");
        }
        if (lease != null && (lease.isNegative() || lease.isZero())) {
            throw new IllegalArgumentException("The lease time must be positive, was " + lease
                    + "; leave it unset to have the watchdog renew the lease while the lock is held");
        }
        if (lease != null && lease.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("The lease time must be at most 365 days (" + LockOptions.MAX_LEASE_TIME
                    + "), was " + lease + "; leave it unset to have the watchdog renew the lease while the lock is"
                    + " held");
        }
    }

    /** When a wait that starts now ends ({@link System#nanoTime()}); a wait of years means "until acquired". */
    static long deadline(Duration wait) {
        long now = System.nanoTime();
        long waitNanos = wait.compareTo(Duration.ofDays(365 * 100)) > 0 ? Long.MAX_VALUE / 2 : wait.toNanos();
        return now + waitNanos;
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }
}
