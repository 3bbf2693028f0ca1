package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostPolicy;

/**
 * One thread's turn with a {@link HeldGrant}, from its first acquisition to its last unlock (reentrant handles share
 * it). A grant outlives its holds when the lock is handed to another thread of this process; each hold has its own
 * fencing token, taken with the grant or, for grants that came without tokens, issued when the hold first asks.
 */
final class Hold {

    final HeldGrant heldGrant;
    final Thread thread;
    final LockLostPolicy onLost;
    final long acquiredNanos = System.nanoTime();

    /**
     * Whether bizlock interrupted the thread for a loss ({@code onLost = INTERRUPT}) while no other interrupt was
     * pending: that interrupt is bizlock's own to clear when the hold ends.
     */
    volatile boolean interruptedForLoss;

    /** 0 until issued; written under the held grant's token lock. */
    private volatile long token;

    Hold(HeldGrant heldGrant, Thread thread, LockLostPolicy onLost) {
        this.heldGrant = heldGrant;
        this.thread = thread;
        this.onLost = onLost;
    }

    /**
     * Clears the interrupt bizlock sent for a loss, if it is still pending as the hold ends (on the holder's thread, once
     * no further one can come): a pooled thread's next, unrelated task must not get it.
     */
    void clearInterruptForLoss() {
        if (interruptedForLoss) {
            interruptedForLoss = false;
            Thread.interrupted();
        }
    }

    /** The token issued to this hold, or 0 if none was issued yet. */
    long token() {
        return token;
    }

    void token(long token) {
        this.token = token;
    }
}
