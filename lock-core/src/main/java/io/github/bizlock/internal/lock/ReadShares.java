package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.engine.ReadLockEngine;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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

    private final Map<Gate.Id, Share> shares = new ConcurrentHashMap<>();
    private final Duration watchdogLease;
    private final Gates gates;
    private final HandOff handOff;
    private final LossReporter losses;
    private final Watchdog watchdog;
    private final LockObserver observer;

    ReadShares(
            Duration watchdogLease,
            Gates gates,
            HandOff handOff,
            LossReporter losses,
            Watchdog watchdog,
            LockObserver observer) {
        this.watchdogLease = watchdogLease;
        this.gates = gates;
        this.handOff = handOff;
        this.losses = losses;
        this.watchdog = watchdog;
        this.observer = observer;
    }

    /** One key's read grant in this process, and the holds of the threads that share it; guarded by {@link #lock}. */
    static final class Share {
        final Gate.Id id;
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        final Map<Thread, Hold> holds = new HashMap<>();
        final Map<Thread, Integer> counts = new HashMap<>();

        @Nullable
        HeldGrant held;

        boolean busy; // a grant is being fetched or given back
        long grantedNanos;
        int users;

        Share(Gate.Id id) {
            this.id = id;
        }
    }

    /** Whether the calling thread holds a read lock of the key. */
    boolean readsCurrentThread(Gate.Id id) {
        Share share = shares.get(id);
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
        Share share = shares.compute(id, (key, existing) -> {
            Share entered = existing != null ? existing : new Share(key);
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
            Share share,
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
    private boolean mayJoin(Share share, HeldGrant held, Thread me, boolean writing, boolean renewed) {
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
            Share share, LockEngine engine, boolean writing, @Nullable Duration fixedLease, long deadline)
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

    private LockHandle join(Share share, HeldGrant held, Thread me, LockLostPolicy onLost) {
        Hold hold = share.holds.get(me);
        if (hold == null) {
            hold = new Hold(held, me, onLost);
            share.holds.put(me, hold);
            held.sharers().add(hold);
        }
        share.counts.merge(me, 1, Integer::sum);
        share.changed.signalAll();
        return new ReadLockHandle(this, share, hold);
    }

    /**
     * Ends one read hold. The last thread sharing the grant gives it back to the database; readers that came meanwhile
     * wait for that, then take the next grant.
     *
     * @throws io.github.bizlock.LockLostException if the grant was lost while held
     * @throws io.github.bizlock.LockReleaseException if the database did not answer the release in time
     */
    void unlock(ReadLockHandle handle) {
        Share share = handle.share;
        Hold hold = handle.hold;
        HeldGrant held = hold.heldGrant;
        boolean last;
        share.lock.lock();
        try {
            if (handle.unlocked) {
                throw new IllegalMonitorStateException(
                        "Read lock " + share.id.key() + " was already unlocked through this handle");
            }
            if (hold.thread != Thread.currentThread()) {
                throw new IllegalMonitorStateException("Read lock " + share.id.key() + " is held by thread "
                        + hold.thread.getName() + "; only the thread that acquired a lock may unlock it");
            }
            handle.unlocked = true;
            int count = share.counts.merge(hold.thread, -1, Integer::sum);
            if (count == 0) {
                share.counts.remove(hold.thread);
                share.holds.remove(hold.thread);
                held.sharers().remove(hold);
                hold.clearInterruptForLoss();
            }
            last = share.counts.isEmpty();
            if (last) {
                share.busy = true; // no grant is fetched until this one is given back
            }
        } finally {
            share.lock.unlock();
        }
        if (!last) {
            leave(share);
            Loss loss = held.loss();
            if (loss != null) {
                throw losses.lostException(hold);
            }
            return;
        }
        @Nullable Loss loss = null;
        try {
            handOff.stopRenewing(held);
            loss = held.loss();
            if (loss != null) {
                handOff.releaseLost(held);
            } else {
                @Nullable Loss atRelease = handOff.release(held);
                if (atRelease != null) {
                    loss = new Loss(atRelease.cause(), "at unlock, " + atRelease.reason());
                }
            }
        } finally {
            boolean firstReport = loss != null && held.markLost(loss);
            held.markReleased();
            share.lock.lock();
            try {
                share.held = null;
                share.busy = false;
                share.changed.signalAll();
            } finally {
                share.lock.unlock();
            }
            leave(share);
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            if (firstReport) {
                losses.notifyLost(hold, loss);
            }
        }
        if (loss != null) {
            throw losses.lostException(hold);
        }
    }

    /**
     * Ends the read hold of a thread that ended without unlocking it, for the watchdog: nobody can unlock it any more,
     * and renewing the grant for it would keep writers out for the life of the process. Reported lost to it
     * ({@link LossCause#ABANDONED}); the last hold's grant is released in the background.
     *
     * @return whether the hold was still in the grant's share
     */
    boolean abandon(HeldGrant held, Hold ended) {
        Share share = shares.get(new Gate.Id(held.engine().mode(), held.grant().key()));
        if (share == null) {
            return false;
        }
        int count;
        boolean last;
        share.lock.lock();
        try {
            if (share.held != held || share.holds.get(ended.thread) != ended) {
                return false;
            }
            count = share.counts.remove(ended.thread);
            share.holds.remove(ended.thread);
            held.sharers().remove(ended);
            last = share.counts.isEmpty();
            if (last) {
                share.held = null;
                share.changed.signalAll();
            }
        } finally {
            share.lock.unlock();
        }
        for (int i = 0; i < count; i++) {
            leave(share);
        }
        losses.notifyLost(
                ended,
                new Loss(
                        LossCause.ABANDONED,
                        "its holder thread " + ended.thread.getName() + " ended without unlocking its read lock;"
                                + " bizlock ended that read hold rather than renew it for the life of the process"));
        if (last) {
            handOff.stopRenewing(held);
            handOff.releaseLost(held);
            held.markReleased();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - ended.acquiredNanos);
        }
        return true;
    }

    /** The fencing token of a read hold: the last write lock's, as the grant brought it or the engine reads it. */
    long fencingToken(ReadLockHandle handle) {
        HeldGrant held = handle.hold.heldGrant;
        held.tokenLock.lock();
        try {
            long token = handle.hold.token();
            if (token != 0 || handle.tokenRead) {
                return token;
            }
            if (handle.unlocked) {
                throw new IllegalStateException("Read lock " + handle.share.id.key() + " was unlocked before its"
                        + " fencing token was asked for; ask while holding the lock");
            }
            if (!held.isValid()) {
                throw losses.lostException(handle.hold);
            }
            token = held.tokensOnDemand()
                    ? held.engine().issueTokens(held.grant(), 1)
                    : held.grant().fencingToken();
            handle.hold.token(token);
            handle.tokenRead = true;
            return token;
        } finally {
            held.tokenLock.unlock();
        }
    }

    private void leave(Share share) {
        shares.computeIfPresent(share.id, (key, current) -> --current.users == 0 ? null : current);
    }
}
