package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
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
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * LEASE mode: the lock is a row of the lease table that names its owner and ends at a time of the database's clock.
 * No connection is held between statements; waiting is retrying with {@link Backoff}, done by one thread per JVM.
 */
public final class LeaseLockEngine implements LockEngine, AutoCloseable {

    private static final String GONE = "the database no longer holds it for this owner";

    private final LeaseDao dao;
    private final String owner;
    private final Backoff backoff;
    private final InDoubtKeys inDoubt;

    public LeaseLockEngine(LeaseDao dao, String owner, Backoff backoff) {
        this.dao = dao;
        this.owner = owner;
        this.backoff = backoff;
        this.inDoubt = new InDoubtKeys(dao, owner);
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
        // A key in doubt may have a row naming this owner that no grant knows: the attempts take it back, with a new
        // token, and no background pass frees the key meanwhile.
        InDoubtKeys.Doubt doubt = inDoubt.lockIfInDoubt(key, deadlineNanos);
        if (doubt == InDoubtKeys.BUSY) {
            return null;
        }
        try {
            boolean reclaimOwn = doubt != null;
            for (int attempt = 1; ; attempt++) {
                long sent = System.nanoTime();
                OptionalLong token;
                try {
                    token = dao.tryAcquire(
                            key, owner, lease, tokens, reclaimOwn, deadlineNanos + DEADLINE_SLACK.toNanos());
                } catch (DataAccessException ex) {
                    if (!ServerErrors.connectionFailed(ex)) {
                        throw ex;
                    }
                    // The connection failed under the statement (its cluster node crashed, or its read timed out at the
                    // deadline): the write may commit with no answer, leaving the row naming this owner with nobody
                    // holding it. The key is in doubt: later attempts take such a row over, and a background pass
                    // frees it while no grant of it is held here.
                    doubt = inDoubt.doubt(key, doubt);
                    if (deadlineNanos - System.nanoTime() <= 0) {
                        throw ex;
                    }
                    // Try again on a new connection (a failover URL reaches a live node) while the wait lasts.
                    reclaimOwn = true;
                    token = OptionalLong.empty();
                }
                if (token.isPresent()) {
                    if (doubt != null) {
                        doubt.grants.add(token.getAsLong());
                    }
                    return new LeaseGrant(key, owner, token.getAsLong(), tokens, lease, sent);
                }
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                // The last attempt lands on the deadline rather than after it.
                TimeUnit.NANOSECONDS.sleep(Math.min(remaining, backoff.pauseNanos(attempt)));
            }
        } finally {
            if (doubt != null) {
                doubt.lock.unlock();
            }
        }
    }

    /**
     * Each renewal statement is ended a renewal interval after it began (at least {@link #DEADLINE_SLACK}, the time a
     * database that answers needs): one stuck on a connection to a host that died without a word is given up then,
     * the pool drops that connection, and the watchdog tries again at once on another, while the grants' leases last.
     * Without it, the one renewer of this engine waited for the OS (~15 min), and every lease of the instance ended.
     */
    @Override
    public Map<Grant, Loss> renew(List<Grant> grants) {
        Map<Duration, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant grant : grants) {
            byLease.computeIfAbsent(grant.lease(), lease -> new ArrayList<>()).add(grant);
        }
        Map<Grant, Loss> gone = new HashMap<>();
        byLease.forEach((lease, sameLease) -> {
            List<LeaseDao.HeldToken> held = sameLease.stream()
                    .map(grant -> new LeaseDao.HeldToken(grant.key(), grant.fencingToken()))
                    .toList();
            Duration bound = max(renewalInterval(lease), DEADLINE_SLACK);
            Set<LockKey> lost = dao.renew(owner, lease, held, System.nanoTime() + bound.toNanos());
            for (Grant grant : sameLease) {
                if (lost.contains(grant.key())) {
                    gone.put(grant, loss(grant, System.nanoTime() + RELEASE_TIMEOUT.toNanos()));
                }
            }
        });
        return gone;
    }

    /** Within {@link #RELEASE_TIMEOUT}, the statement that tells why the lock was no longer held included. */
    /**
     * The release and the loss lookup after it share one deadline, {@link #RELEASE_TIMEOUT} away, which the statements
     * keep whatever the pool or the database do: the unlocking thread runs them itself, without a hand-off.
     */
    @Override
    public boolean boundsRelease() {
        return true;
    }

    @Override
    public @Nullable Loss release(Grant grant) {
        long deadline = System.nanoTime() + RELEASE_TIMEOUT.toNanos();
        boolean held = dao.release(grant.key(), grant.owner(), grant.fencingToken(), deadline);
        inDoubt.released(grant.key(), grant.fencingToken());
        return held ? null : loss(grant, deadline);
    }

    /** One statement per 100 locks, each freed only if its row still names this owner and token. */
    @Override
    public void releaseAll(List<Grant> grants) {
        dao.releaseAll(
                owner,
                grants.stream()
                        .map(grant -> new LeaseDao.HeldToken(grant.key(), grant.fencingToken()))
                        .toList());
        grants.forEach(grant -> inDoubt.released(grant.key(), grant.fencingToken()));
    }

    /** Stops freeing in-doubt keys: rows they may hold free when their leases end. */
    @Override
    public void close() {
        inDoubt.close();
    }

    /**
     * Why the lock's row no longer names this grant, as the row tells: one more statement, only when a lock is lost,
     * ended by {@code deadlineNanos}.
     */
    private Loss loss(Grant grant, long deadlineNanos) {
        Optional<LockRow> found;
        try {
            found = dao.find(grant.key(), deadlineNanos);
        } catch (DataAccessException ex) {
            return new Loss(
                    LossCause.TAKEN_OVER,
                    GONE + "; its row could not be read to tell whether another owner holds it: " + ex);
        }
        if (found.isEmpty()) {
            return new Loss(
                    LossCause.REMOVED,
                    GONE + ": its row was deleted (by hand, or by housekeeping after its lease ended)");
        }
        LockRow row = found.get();
        if (row.owner() == null) {
            return new Loss(LossCause.REMOVED, GONE + ": someone else freed it (a force release, or a change by hand)");
        }
        String holder = row.owner().equals(owner) ? "a later acquisition by this instance" : "owner " + row.owner();
        return new Loss(
                LossCause.TAKEN_OVER,
                GONE + ": " + holder + " holds it with fencing token " + row.fencingToken()
                        + " (taken over after the lease ended)");
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
