package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * LEASE mode: the lock is a row of the lease table that names its owner and ends at a time of the database's clock.
 * No connection is held between statements; waiting is retrying with {@link Backoff}, done by one thread per JVM.
 */
public final class LeaseLockEngine implements LockEngine {

    private final BizLockDao dao;
    private final String owner;
    private final Backoff backoff;

    public LeaseLockEngine(BizLockDao dao, String owner, Backoff backoff) {
        this.dao = dao;
        this.owner = owner;
        this.backoff = backoff;
    }

    @Override
    public LockMode mode() {
        return LockMode.LEASE;
    }

    /** The instance id written as owner of this engine's locks. */
    public String owner() {
        return owner;
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos)
            throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            long sent = System.nanoTime();
            OptionalLong token = dao.tryAcquire(key, owner, lease, tokens);
            if (token.isPresent()) {
                return new LeaseGrant(key, owner, token.getAsLong(), tokens, lease, sent);
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            // The last attempt lands on the deadline rather than after it.
            TimeUnit.NANOSECONDS.sleep(Math.min(remaining, backoff.pauseNanos(attempt)));
        }
    }

    @Override
    public Set<Grant> keepAlive(List<Grant> grants) {
        Map<Duration, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant grant : grants) {
            byLease.computeIfAbsent(grant.lease(), lease -> new ArrayList<>()).add(grant);
        }
        Set<Grant> gone = new HashSet<>();
        byLease.forEach((lease, sameLease) -> {
            List<BizLockDao.HeldToken> held = sameLease.stream()
                    .map(grant -> new BizLockDao.HeldToken(grant.key(), grant.fencingToken()))
                    .toList();
            Set<LockKey> lost = dao.renew(owner, lease, held);
            for (Grant grant : sameLease) {
                if (lost.contains(grant.key())) {
                    gone.add(grant);
                }
            }
        });
        return gone;
    }

    @Override
    public boolean release(Grant grant) {
        return dao.release(grant.key(), grant.owner(), grant.fencingToken());
    }
}
