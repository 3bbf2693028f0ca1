package io.github.bizlock.core;

import io.github.bizlock.LockMode;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The JVM side of one lock: threads of this process queue on a local {@link ReentrantLock}, and only the thread that
 * holds it talks to the database. Reentry is a local hold count, so it costs no round trip; a local release wakes
 * the next local waiter without polling.
 *
 * <p>{@link #users} counts the threads that hold or wait; the gate is removed from the registry when it drops to zero,
 * so the registry never keeps keys nobody uses and never drops a held one.
 */
final class KeyGate {

    record Id(LockMode mode, LockKey key) {}

    final Id id;
    final ReentrantLock local;

    /** Guarded by the registry's map operations on this gate's entry. */
    int users;

    /** Written and read by the thread holding {@link #local}. */
    int holds;

    /** The database grant while held; written by the holding thread, read by others. */
    volatile @Nullable HeldLease lease;

    KeyGate(Id id, boolean fair) {
        this.id = id;
        this.local = new ReentrantLock(fair);
    }
}
