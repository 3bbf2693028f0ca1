package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostPolicy;

/**
 * One thread's hold of a database grant, from its first acquisition to its last unlock (reentrant handles share it).
 * A grant outlives its holds when the lock is handed to another thread of this process; each hold has its own fencing
 * token, issued when it takes the grant or, for engines that issue tokens on demand, when it first asks for one.
 */
final class Hold {

    final HeldLease lease;
    final Thread thread;
    final LockLostPolicy onLost;
    final long acquiredNanos = System.nanoTime();

    /** 0 until issued; written under the lease's token lock. */
    private volatile long token;

    Hold(HeldLease lease, Thread thread, LockLostPolicy onLost) {
        this.lease = lease;
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
