package io.github.bizlock.internal.lock;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import org.jspecify.annotations.Nullable;

/**
 * The JVM side of one lock: threads of this process queue on a local {@link GateLock}, and only the thread that
 * holds it talks to the database. Reentry is a local hold count, so it costs no round trip; a local release wakes
 * the next local waiter without polling.
 *
 * <p>{@link #users} counts the threads that hold or wait; the gate is removed from {@link Gates} when it drops to zero,
 * so the registry never keeps keys nobody uses and never drops a held one. A holder that unlocks while others wait may
 * leave the database grant in the gate for the next of them; if all of them give up instead, the last to leave
 * releases it.
 */
final class Gate {

    record Id(LockMode mode, LockKey key) {}

    final Id id;
    final GateLock local;

    /** Written under the registry's map operations on this gate's entry; read elsewhere as a hint. */
    volatile int users;

    /** Written and read by the thread holding {@link #local}. */
    int holds;

    /**
     * The database grant while held, and while handed from one local thread to the next (then it has no
     * {@link HeldGrant#hold()}); written by the thread holding {@link #local} or by the last user leaving.
     */
    volatile @Nullable HeldGrant heldGrant;

    Gate(Id id, boolean fair) {
        this.id = id;
        this.local = new GateLock(fair);
    }

    /** Threads that wait: the users but the one holding the grant, if a hold has it. */
    int waiting() {
        HeldGrant held = heldGrant;
        return Math.max(0, users - (held != null && held.hold() != null ? 1 : 0));
    }
}
