package io.github.bizlock.internal.lock;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An engine that stands in for the database in tests of the lock manager's own bookkeeping (tokens, deadlines,
 * hand-offs): it grants every request and records releases.
 */
final class StubEngine implements LockEngine, AutoCloseable {

    /** Mode bindings that accept whatever mode a name is first used in, without a database. */
    static final ModeBindingStore ANY_MODE = new ModeBindingStore() {
        @Override
        public Binding bind(String name, Binding wanted, long deadlineNanos) {
            return wanted;
        }

        @Override
        public String changeStatements(String name, Binding wanted) {
            return "";
        }
    };

    record StubGrant(LockKey key, String owner, Duration lease, long sentNanos, long fencingToken, int tokens)
            implements Grant {

        StubGrant(Duration lease, long sentNanos) {
            this(new LockKey("stub", "k"), "stub-owner", lease, sentNanos, 0, 0);
        }
    }

    /** Whether locks are held by a session, so the engine grants no fixed lease (as ROW and NAMED). */
    boolean sessionHeld;

    boolean boundsRelease = true;

    /** Whether a failed release is tried again; {@code null}: as engines so far, only when not bounded. */
    @Nullable
    Boolean retriesFailedRelease;

    /** Keys held elsewhere: their acquisition times out. */
    final Set<LockKey> heldElsewhere = ConcurrentHashMap.newKeySet();

    volatile @Nullable RuntimeException releaseFailure;
    /** How many of the next releases fail with {@link #releaseFailure} (all of them while negative). */
    final AtomicInteger releaseFailures = new AtomicInteger(-1);

    /** The fencing tokens each acquisition asked to reserve. */
    final List<Integer> reservations = new CopyOnWriteArrayList<>();

    /** The deadline ({@link System#nanoTime()}) of the last acquisition. */
    volatile long lastDeadlineNanos;

    /** Runs in each acquisition, before the grant is returned. */
    volatile Runnable onAcquire = () -> {};

    /**
     * Runs in each call of {@link #fixedLease}: an acquiring thread makes it once it holds its key's local lock, before
     * it asks for a grant or takes one over.
     */
    volatile Runnable onFixedLease = () -> {};

    /** Runs in each renewal, before it is recorded. */
    volatile Runnable onKeepAlive = () -> {};

    /** Runs in each issue of tokens on demand, before the tokens are counted. */
    volatile Runnable onIssueTokens = () -> {};

    /** Runs in each release, before it is recorded. */
    volatile Runnable onRelease = () -> {};

    /**
     * Added to the time a grant is sent at: a grant dated back is as old as the test needs, one dated ahead stays within
     * the hand-off window however slowly the test runs.
     */
    volatile long sentOffsetNanos;

    volatile @Nullable RuntimeException releaseAllFailure;
    volatile @Nullable RuntimeException closeFailure;
    volatile boolean closed;

    /** The threads that released, in order. */
    final List<Thread> releaseThreads = new CopyOnWriteArrayList<>();

    volatile @Nullable Loss releaseAnswer;
    volatile @Nullable RuntimeException keepAliveFailure;
    volatile @Nullable Loss keepAliveLoss;
    final List<List<Grant>> keptAlive = new CopyOnWriteArrayList<>();
    /** The threads that renewed, in order. */
    final List<Thread> keepAliveThreads = new CopyOnWriteArrayList<>();

    final List<List<Grant>> releasedAll = new CopyOnWriteArrayList<>();

    long issuedTop;
    final List<Grant> released = new CopyOnWriteArrayList<>();
    final List<Integer> issuedCounts = new CopyOnWriteArrayList<>();

    private final LockMode mode;

    StubEngine() {
        this(LockMode.LEASE);
    }

    StubEngine(LockMode mode) {
        this.mode = mode;
    }

    @Override
    public LockMode mode() {
        return mode;
    }

    @Override
    public boolean boundsRelease() {
        return boundsRelease;
    }

    @Override
    public boolean retriesFailedRelease() {
        return retriesFailedRelease != null ? retriesFailedRelease : !boundsRelease;
    }

    @Override
    public @Nullable Duration fixedLease(@Nullable Duration requested) {
        onFixedLease.run();
        return sessionHeld ? null : requested;
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos) {
        lastDeadlineNanos = deadlineNanos;
        if (heldElsewhere.contains(key)) {
            return null;
        }
        reservations.add(tokens);
        onAcquire.run();
        return new StubGrant(key, "stub-owner", lease, System.nanoTime() + sentOffsetNanos, 0, 0);
    }

    @Override
    public long issueTokens(Grant grant, int count) {
        onIssueTokens.run();
        issuedCounts.add(count);
        issuedTop += count;
        return issuedTop;
    }

    @Override
    public Map<Grant, Loss> renew(List<Grant> grants) {
        RuntimeException failure = keepAliveFailure;
        if (failure != null) {
            throw failure;
        }
        onKeepAlive.run();
        keepAliveThreads.add(Thread.currentThread());
        keptAlive.add(grants);
        Loss loss = keepAliveLoss;
        return loss == null ? Map.of() : Map.of(grants.get(0), loss);
    }

    @Override
    public @Nullable Loss release(Grant grant) {
        onRelease.run();
        releaseThreads.add(Thread.currentThread());
        RuntimeException failure = releaseFailure;
        if (failure != null && releaseFailures.getAndDecrement() != 0) {
            throw failure;
        }
        released.add(grant);
        return releaseAnswer;
    }

    @Override
    public void releaseAll(List<Grant> grants) {
        releasedAll.add(grants);
        RuntimeException failure = releaseAllFailure;
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        closed = true;
        RuntimeException failure = closeFailure;
        if (failure != null) {
            throw failure;
        }
    }
}
