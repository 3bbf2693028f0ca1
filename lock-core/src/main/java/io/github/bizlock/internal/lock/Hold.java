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

    /** 0 until issued; written under the held grant's token lock. */
    private volatile long token;

    Hold(HeldGrant heldGrant, Thread thread, LockLostPolicy onLost) {
        this.heldGrant = heldGrant;
        this.thread = thread;
        this.onLost = onLost;
    }

    /** The token issued to this hold, or 0 if none was issued yet. */
    long token() {
        return token;
    }

    void token(long token) {
        this.token = token;
    }
}
