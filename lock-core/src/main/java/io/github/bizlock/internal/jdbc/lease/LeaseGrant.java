package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;

/** A LEASE grant: the lock's row, matched by its key, owner and fencing token. */
record LeaseGrant(LockKey key, String owner, long fencingToken, int tokens, Duration lease, long sentNanos)
        implements Grant {}
