package io.github.bizlock.internal.engine;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The engine of one mode's read locks: its grants share the key with the grants of the other processes' read locks and
 * exclude the mode's write locks (the mode's {@link LockEngine}). A process asks for one read grant per key, shared by
 * its reading threads.
 */
public interface ReadLockEngine extends LockEngine {

    /**
     * Whether a thread that holds the key's write lock may take its read lock (a downgrade) through
     * {@link #acquireWhileWriting}.
     */
    default boolean downgrades() {
        return false;
    }

    /**
     * Takes the read lock for a thread that holds the key's write lock in this process, at once: the write lock keeps
     * every other reader and writer out meanwhile, and the read lock, once taken, keeps writers out after the write
     * lock is released.
     *
     * @return the grant, or {@code null} if the database did not grant it (the write lock was lost)
     * @throws UnsupportedOperationException if the engine does not {@linkplain #downgrades() downgrade}
     */
    default @Nullable Grant acquireWhileWriting(LockKey key, Duration lease, long deadlineNanos) {
        throw new UnsupportedOperationException(mode() + " read locks cannot be taken under the write lock");
    }
}
