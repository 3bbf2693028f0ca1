package io.github.bizlock.internal.engine;

import java.time.Duration;

/**
 * A lock granted by the database to this process. Each engine grants its own kind, carrying what it needs to keep the
 * lock alive and release it, and accepts only its own back.
 */
public interface Grant {

    /** Which lock. */
    LockKey key();

    /** The instance id written as owner. */
    String owner();

    /**
     * The highest fencing token reserved with this grant (for LEASE, the token written in the lock's row, which
     * renewals and release match), or 0 when the engine issues tokens on demand.
     */
    default long fencingToken() {
        return 0;
    }

    /**
     * How many tokens the grant reserved, ending at {@link #fencingToken()}: one for the holder and one for each holder
     * the lock may be handed to within this process; 0 when the engine issues tokens on demand.
     */
    default int tokens() {
        return 0;
    }

    /**
     * How long the database keeps the lock unless it is renewed; for session-held modes, how long a heartbeat may
     * be missing.
     */
    Duration lease();

    /** {@link System#nanoTime()} when the granting statement was sent: the lease is counted from here. */
    long sentNanos();
}
