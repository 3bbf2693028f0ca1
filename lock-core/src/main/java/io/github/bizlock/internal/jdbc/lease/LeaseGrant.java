package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A LEASE grant: the lock's row, matched by its key, owner and fencing token; and the key's wake lock, held with it
 * where there is a wake-up, released after the row so that the next waiter finds it free.
 */
record LeaseGrant(
        LockKey key,
        String owner,
        long fencingToken,
        int tokens,
        Duration lease,
        long sentNanos,
        WakeLocks.@Nullable Hold wake)
        implements Grant {}
