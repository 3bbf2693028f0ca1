package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * LEASE mode: the lock is a row of the lease table that names its owner and ends at a time of the database's clock.
 * No connection is held per lock. Waiting, done by one thread per JVM and key, is queueing on the key's wake lock
 * where there is a wake-up ({@link WakeLocks}), and otherwise retrying with {@link Backoff} ({@link LeaseAcquisition}).
 */
public final class LeaseLockEngine implements LockEngine, AutoCloseable {

    private static final String GONE = "the database no longer holds it for this owner";

    private final LeaseDao dao;
    private final String owner;
    private final Backoff backoff;
    private final InDoubtKeys inDoubt;
    private final @Nullable WakeLocks wakes;

    /** An engine whose waiters poll, with no wake-up. */
    public LeaseLockEngine(LeaseDao dao, String owner, Backoff backoff) {
        this(dao, owner, backoff, null);
    }

    /**
     * @param wakes the wake-up of waiters, which the engine closes; {@code null} for none: waiters poll
     */
    public LeaseLockEngine(LeaseDao dao, String owner, Backoff backoff, @Nullable WakeLocks wakes) {
        this.dao = dao;
        this.owner = owner;
        this.backoff = backoff;
        this.wakes = wakes;
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
        return new LeaseAcquisition(dao, owner, backoff, wakes, inDoubt, key, lease, tokens, deadlineNanos).run();
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
                    // Its waiters take the row over without it anyway; released, they need not wait a re-check.
                    releaseWake(grant);
                }
            }
        });
        return gone;
    }

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
        boolean held;
        try {
            held = dao.release(grant.key(), grant.owner(), grant.fencingToken(), deadline);
        } finally {
            // After the row, so that the waiter it wakes finds the row free; also when the row's release failed, so
            // that waiters re-check the row rather than wait for a wake-up that may not come.
            releaseWake(grant);
        }
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
        grants.forEach(this::releaseWake);
    }

    private void releaseWake(Grant grant) {
        if (wakes != null && grant instanceof LeaseGrant lease && lease.wake() != null) {
            wakes.release(lease.wake());
        }
    }

    /** Stops freeing in-doubt keys: rows they may hold free when their leases end. */
    @Override
    public void close() {
        inDoubt.close();
        if (wakes != null) {
            wakes.close();
        }
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
