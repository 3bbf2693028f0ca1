package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.ReadLockEngine;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The read locks of this process's threads: per key, one database read grant that its reading threads share. A thread
 * joins the grant while it is young ({@link HandOff#WINDOW_NANOS}) and no other thread of this process holds or waits
 * at the key's write gate; later readers wait until it is released and take the next one together, so that a stream of
 * readers in this process cannot keep a writer of any process out for longer than that window and the holds begun in
 * it. A thread that reads already re-enters; a thread that holds the write lock takes the read lock at once (a
 * downgrade), where the engine allows it.
 */
final class ReadShares {

    private final Map<Gate.Id, ReadShare> shares = new ConcurrentHashMap<>();
    private final Duration watchdogLease;
    private final Gates gates;
    private final LossReporter losses;
    private final Watchdog watchdog;
    final ReadShareReleases releases;

    ReadShares(
            Duration watchdogLease,
            Gates gates,
            HandOff handOff,
            LossReporter losses,
            Watchdog watchdog,
            LockObserver observer) {
        this.watchdogLease = watchdogLease;
        this.gates = gates;
        this.losses = losses;
        this.watchdog = watchdog;
        this.releases = new ReadShareReleases(this, handOff, losses, observer);
    }

    /** Whether the calling thread holds a read lock of the key. */
    boolean readsCurrentThread(Gate.Id id) {
        ReadShare share = shares.get(id);
        if (share == null) {
            return false;
        }
        share.lock.lock();
        try {
            return share.counts.containsKey(Thread.currentThread());
        } finally {
            share.lock.unlock();
        }
    }

    /**
     * A read hold of the key: this thread's again, a share of this process's grant, or a new grant from {@code engine}.
     *
     * @return the handle, or empty if a writer still held or waited for the lock when the wait ended
     * @throws IllegalStateException if this thread holds the write lock and the engine cannot downgrade it
     */
    Optional<LockHandle> acquire(
            Gate.Id id, LockEngine engine, long deadline, @Nullable Duration lease, LockLostPolicy onLost)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        boolean writing = gates.holder(id) == me;
        if (writing && !(engine instanceof ReadLockEngine reads && reads.downgrades())) {
            throw new IllegalStateException("This thread holds the write lock of " + id.key() + " (" + id.mode()
                    + "), and a " + id.mode() + " read lock cannot be taken under it: the server would make the read"
                    + " wait for this thread's own row lock. Take the read lock after unlocking the write lock, or use"
                    + " LEASE mode, whose write locks may be downgraded");
        }
        @Nullable Duration fixedLease = engine.fixedLease(lease);
        ReadShare share = shares.compute(id, (key, existing) -> {
            ReadShare entered = existing != null ? existing : new ReadShare(key);
            entered.users++;
            return entered;
        });
        Optional<LockHandle> handle = Optional.empty();
        try {
            share.lock.lockInterruptibly();
            try {
                handle = acquireLocked(share, engine, deadline, fixedLease, onLost, writing);
                return handle;
            } finally {
                share.lock.unlock();
            }
        } finally {
            if (handle.isEmpty()) {
                leave(share); // a handle leaves when it is unlocked
            }
        }
    }

    private Optional<LockHandle> acquireLocked(
            ReadShare share,
            LockEngine engine,
            long deadline,
            @Nullable Duration fixedLease,
            LockLostPolicy onLost,
            boolean writing)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        while (true) {
            HeldGrant held = share.held;
            if (held != null && !share.busy && mayJoin(share, held, me, writing, fixedLease == null)) {
                if (!held.isValid() && share.counts.containsKey(me)) {
                    throw losses.lostException(share.holds.get(me));
                }
                if (held.isValid()) {
                    return Optional.of(join(share, held, me, onLost));
                }
            }
            if (held == null && !share.busy) {
                HeldGrant fetched = fetch(share, engine, writing, fixedLease, deadline);
                return fetched == null ? Optional.empty() : Optional.of(join(share, fetched, me, onLost));
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return Optional.empty();
            }
            share.changed.awaitNanos(remaining);
        }
    }

    /**
     * Whether a thread joins the grant this process holds: a reading thread re-enters, the writing thread downgrades,
     * and others join a young grant with the same kind of lease while no other thread of this process writes.
     */
    private boolean mayJoin(ReadShare share, HeldGrant held, Thread me, boolean writing, boolean renewed) {
        if (share.counts.containsKey(me) || writing) {
            return true;
        }
        Thread writer = gates.holder(share.id);
        return (writer == null || writer == me)
                && held.renewedByWatchdog() == renewed
                && System.nanoTime() - share.grantedNanos < HandOff.WINDOW_NANOS;
    }

    /** Asks the engine for a grant with the share's lock released meanwhile; other readers wait for it. */
    private @Nullable HeldGrant fetch(
            ReadShare share, LockEngine engine, boolean writing, @Nullable Duration fixedLease, long deadline)
            throws InterruptedException {
        share.busy = true;
        share.lock.unlock();
        Grant grant = null;
        try {
            Duration lease = fixedLease != null ? fixedLease : watchdogLease;
            grant = writing
                    ? ((ReadLockEngine) engine).acquireWhileWriting(share.id.key(), lease, deadline)
                    : engine.acquire(share.id.key(), lease, 1, deadline);
        } finally {
            share.lock.lock();
            share.busy = false;
            share.changed.signalAll();
        }
        if (grant == null) {
            return null;
        }
        HeldGrant held = new HeldGrant(grant, engine, fixedLease == null);
        share.held = held;
        share.grantedNanos = System.nanoTime();
        watchdog.register(held);
        return held;
    }

    private LockHandle join(ReadShare share, HeldGrant held, Thread me, LockLostPolicy onLost) {
        Hold hold = share.holds.get(me);
        if (hold == null) {
            hold = new Hold(held, me, onLost);
            share.holds.put(me, hold);
            held.sharers().add(hold);
        }
        share.counts.merge(me, 1, Integer::sum);
        share.changed.signalAll();
        return new ReadLockHandle(releases, share, hold);
    }

    /** The key's share, if a thread of this process reads it or waits to. */
    @Nullable
    ReadShare share(Gate.Id id) {
        return shares.get(id);
    }

    void leave(ReadShare share) {
        shares.computeIfPresent(share.id, (key, current) -> --current.users == 0 ? null : current);
    }
}
