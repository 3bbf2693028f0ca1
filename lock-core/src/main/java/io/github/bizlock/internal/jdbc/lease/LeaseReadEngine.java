package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.engine.ReadLockEngine;
import io.github.bizlock.internal.jdbc.ReadLeaseDao;
import io.github.bizlock.internal.jdbc.ReadLeaseDao.ReadLease;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * LEASE read locks: a read lease per key and instance ({@link ReadLeaseDao}), shared by the instance's reading threads.
 * A read lease begins while no writer holds the key's row and none waits for its readers; waiting for one is retrying
 * with {@link Backoff}, as the writers that keep it out release with no wake-up for readers. The fencing token of a
 * read grant is the lock row's, the last writer's.
 */
public final class LeaseReadEngine implements ReadLockEngine {

    private final ReadLeaseDao dao;
    private final Dialect dialect;
    private final String owner;
    private final Backoff backoff;
    private final AtomicLong grantIds = new AtomicLong();

    /** @param dialect the server's, whose deployment decides whether read locks are allowed ({@link #requireAllowedHere}) */
    public LeaseReadEngine(ReadLeaseDao dao, Dialect dialect, String owner, Backoff backoff) {
        this.dao = dao;
        this.dialect = dialect;
        this.owner = owner;
        this.backoff = backoff;
    }

    /** A read grant: this instance's read lease of the key, and the lock's token when it began. */
    record ReadGrant(LockKey key, String owner, long grantId, long fencingToken, Duration lease, long sentNanos)
            implements Grant {

        @Override
        public int tokens() {
            return 1;
        }

        ReadLease readLease() {
            return new ReadLease(key, grantId);
        }
    }

    @Override
    public LockMode mode() {
        return LockMode.LEASE;
    }

    /**
     * Fails on a multi-writer cluster not declared single-writer, and while the deployment is not known (read again
     * here): read locks are not yet proven to exclude writers across a cluster's nodes.
     *
     * @throws IllegalStateException naming the server setting, the write lock to use, and the declaration
     */
    @Override
    public void requireAllowedHere() {
        Optional<String> refusal = dialect.currentTopology().readLockRefusal();
        if (refusal.isPresent()) {
            throw new IllegalStateException(refusal.get());
        }
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos)
            throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Grant grant = tryOnce(key, lease, false, deadlineNanos);
            if (grant != null) {
                return grant;
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(remaining, backoff.pauseNanos(attempt)));
        }
    }

    @Override
    public boolean downgrades() {
        return true;
    }

    @Override
    public @Nullable Grant acquireWhileWriting(LockKey key, Duration lease, long deadlineNanos) {
        return tryOnce(key, lease, true, deadlineNanos);
    }

    private @Nullable Grant tryOnce(LockKey key, Duration lease, boolean downgrade, long deadlineNanos) {
        long grantId = grantIds.incrementAndGet();
        long sent = System.nanoTime();
        OptionalLong token =
                dao.tryBegin(key, owner, grantId, lease, downgrade, deadlineNanos + DEADLINE_SLACK.toNanos());
        return token.isPresent() ? new ReadGrant(key, owner, grantId, token.getAsLong(), lease, sent) : null;
    }

    /** Renews only this instance's own read leases, never another's: a crashed instance's lease ends on its own. */
    @Override
    public Map<Grant, Loss> renew(List<Grant> grants) {
        Map<Duration, List<ReadGrant>> byLease = new LinkedHashMap<>();
        for (Grant grant : grants) {
            byLease.computeIfAbsent(grant.lease(), lease -> new ArrayList<>()).add((ReadGrant) grant);
        }
        Map<Grant, Loss> gone = new HashMap<>();
        byLease.forEach((lease, sameLease) -> {
            Duration bound =
                    renewalInterval(lease).compareTo(DEADLINE_SLACK) > 0 ? renewalInterval(lease) : DEADLINE_SLACK;
            Set<ReadLease> lost = dao.renew(
                    owner,
                    lease,
                    sameLease.stream().map(ReadGrant::readLease).toList(),
                    System.nanoTime() + bound.toNanos());
            for (ReadGrant grant : sameLease) {
                if (lost.contains(grant.readLease())) {
                    gone.put(grant, ended());
                }
            }
        });
        return gone;
    }

    /** The release and the key's recount share one deadline, {@link #RELEASE_TIMEOUT} away. */
    @Override
    public boolean boundsRelease() {
        return true;
    }

    @Override
    public @Nullable Loss release(Grant grant) {
        ReadGrant read = (ReadGrant) grant;
        boolean live = dao.end(read.readLease(), owner, System.nanoTime() + RELEASE_TIMEOUT.toNanos());
        return live ? null : ended();
    }

    private static Loss ended() {
        return new Loss(
                LossCause.LEASE_EXPIRED,
                "the read lease of this instance ended before it was renewed, so a writer may have taken the lock");
    }
}
