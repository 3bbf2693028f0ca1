package io.github.bizlock.internal.engine;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A lock granted by the database to this process.
 *
 * @param key which lock
 * @param owner the instance id written as owner
 * @param fencingToken the highest fencing token reserved with this grant (for LEASE, the token written in the lock's
 *     row, which renewals and release match), or 0 when the engine issues tokens on demand
 * @param tokens how many tokens the grant reserved, ending at {@code fencingToken}: one for the holder and one for
 *     each holder the lock may be handed to within this process; 0 when the engine issues tokens on demand
 * @param lease how long the database keeps the lock without renewal; for session-held modes, how long a heartbeat
 *     may be missing
 * @param sentNanos {@link System#nanoTime()} when the granting statement was sent: the lease is counted from here
 * @param resource what the engine needs to renew or release it (a held connection), or {@code null}
 */
public record Grant(
        LockKey key,
        String owner,
        long fencingToken,
        int tokens,
        Duration lease,
        long sentNanos,
        @Nullable Object resource) {}
