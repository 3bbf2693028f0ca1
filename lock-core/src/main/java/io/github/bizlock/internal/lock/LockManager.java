package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LossCause;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Hands out {@link LockHandle}s for the locks of each mode's {@link LockEngine}: the face of this package, which checks
 * each request, passes it on, and reports what the process holds; the package description names the parts and the
 * lifecycle they share. One per application; thread-safe. Usable without Spring Boot:
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(instanceId)
 *         .engine(new LeaseLockEngine(daos.leases(), instanceId, Backoff.DEFAULT))
 *         .modeBindings(daos.modes())
 *         .build();
 * }</pre>
 */
public final class LockManager implements AutoCloseable {

    /** The lease of locks without a fixed lease time; the watchdog renews it every third of it. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

    /** The shortest watchdog lease: it is renewed every third of it, and a renewal must fit in that third. */
    public static final Duration MIN_WATCHDOG_LEASE = Duration.ofMillis(300);

    /** Whether threads of this process get a contended lock in the order they asked for it. */
    public static final boolean DEFAULT_FAIR = true;

    /** How often one database grant may pass from thread to thread of this process before it is released. */
    public static final int DEFAULT_LOCAL_HANDOFFS = 16;

    private final String instanceId;
    private final Map<LockMode, LockEngine> engines;
    private final ModeBindings modeBindings;
    private final LockObserver observer;
    private final LossReporter losses;
    private final Watchdog watchdog;
    private final Releaser releaser = new Releaser();
    private final Gates gates;
    private final Holds holds;
    private final Shutdown shutdown;

    private LockManager(Builder builder) {
        this.instanceId = builder.instanceId;
        this.engines = Map.copyOf(builder.engines);
        this.observer = builder.observers.isEmpty() ? LockObserver.NONE : LockObserver.composite(builder.observers);
        this.modeBindings = new ModeBindings(Objects.requireNonNull(builder.modeBindings), observer);
        this.losses = new LossReporter(observer);
        this.watchdog = new Watchdog(builder.watchdogLease, losses::reportLost, observer);
        HandOff handOff = new HandOff(builder.localHandoffs, watchdog, releaser);
        this.gates = new Gates(builder.fair, handOff);
        watchdog.onAbandoned(new AbandonedHolds(gates, handOff, losses, observer)::free);
        FencingTokens fencingTokens = new FencingTokens(handOff, losses);
        this.holds = new Holds(builder.watchdogLease, gates, handOff, fencingTokens, losses, watchdog, observer);
        this.shutdown = new Shutdown(gates, watchdog, releaser, engines.values(), losses);
    }

    public static Builder builder(String instanceId) {
        return new Builder(instanceId);
    }

    public String instanceId() {
        return instanceId;
    }

    /** The modes that have an engine. */
    public Set<LockMode> modes() {
        return engines.keySet();
    }

    public void addListener(LockLostListener listener) {
        losses.addListener(listener);
    }

    /** The observer this manager reports acquisitions, releases, renewals and losses to. */
    public LockObserver observer() {
        return observer;
    }

    /** Threads of this process that wait for a lock another thread or process holds. */
    public int waitingCount() {
        return gates.waitingCount();
    }

    /** Locks the watchdog renews whose renewal is overdue: renewals have been failing for half a lease. */
    public int overdueRenewalCount() {
        return watchdog.overdueCount();
    }

    /** The locks this process holds or waits for now, longest held first; a read-only snapshot. */
    public List<LockSnapshot> locks() {
        return gates.snapshots();
    }

    /**
     * Acquires a lock, waiting up to {@code wait} while another thread or process holds it.
     *
     * @param lease a fixed lease, or {@code null} to have the watchdog renew the lease while the lock is held
     * @return the handle, or empty if the lock was still held elsewhere when the wait ended
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     * @throws LockLostException if this thread holds the lock already but has lost it
     * @throws LockModeConflictException if the key's name is bound to another mode
     */
    public Optional<LockHandle> tryAcquire(LockKey key, LockMode mode, Duration wait, @Nullable Duration lease)
            throws InterruptedException {
        return tryAcquire(key, mode, wait, lease, LockLostPolicy.LOG);
    }

    /**
     * Acquires a lock, waiting up to {@code wait} while another thread or process holds it, with a policy for the
     * holder when the lock is lost while held.
     *
     * @param lease a fixed lease, or {@code null} to have the watchdog renew the lease while the lock is held
     * @param onLost what happens when the lock is lost: {@link LockLostPolicy#INTERRUPT} interrupts the holder thread;
     *     {@link LockLostPolicy#ROLLBACK_ONLY} is applied by the {@code @DistributedLock} interceptor, so here it
     *     only reports, like {@link LockLostPolicy#LOG}. A re-entered lock keeps the policy of its first acquisition.
     * @return the handle, or empty if the lock was still held elsewhere when the wait ended
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     * @throws LockLostException if this thread holds the lock already but has lost it
     * @throws LockModeConflictException if the key's name is bound to another mode: locks of one name exclude each
     *     other only in one mode, so a name stays in the mode of its first acquisition, for every instance
     * @throws PermitsConflictException if the key's name is a semaphore's
     */
    public Optional<LockHandle> tryAcquire(
            LockKey key, LockMode mode, Duration wait, @Nullable Duration lease, LockLostPolicy onLost)
            throws InterruptedException {
        return tryAcquire(key, Binding.locks(mode), wait, lease, onLost);
    }

    /** As the method above, for a name bound as given: plain locks, or a semaphore's permit slots ({@link Permits}). */
    Optional<LockHandle> tryAcquire(
            LockKey key, Binding binding, Duration wait, @Nullable Duration lease, LockLostPolicy onLost)
            throws InterruptedException {
        LockMode mode = binding.mode();
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(onLost, "onLost");
        LockEngine engine = engine(mode);
        Holds.requireValid(wait, lease);
        shutdown.refuseIfBegun(key);
        LockObserver.Acquisition acquisition = observer.acquisitionStarted(key, mode);
        long started = System.nanoTime();
        LockObserver.Outcome outcome = LockObserver.Outcome.FAILED;
        try {
            engine.requireAllowedHere(); // before the name is bound: a refused call leaves nothing behind
            long deadline = Holds.deadline(wait); // one for the name's binding and the acquisition
            modeBindings.check(key.name(), binding, deadline + LockEngine.DEADLINE_SLACK.toNanos());
            Optional<LockHandle> handle = holds.acquire(key, mode, engine, wait, deadline, lease, onLost);
            shutdown.refuseIfGrantedDuring(handle, key);
            outcome = handle.isPresent() ? LockObserver.Outcome.ACQUIRED : LockObserver.Outcome.TIMED_OUT;
            return handle;
        } finally {
            acquisition.finished(outcome, System.nanoTime() - started);
        }
    }

    /**
     * The permits of the semaphore {@code name} names, or 0 for a name of plain locks or one this process has not
     * used yet: a held or waited lock of a semaphore's name is one of its slots, {@code key#slot}.
     */
    public int permits(String name) {
        return modeBindings.permits(name);
    }

    /** The keys of {@code name} whose locks the calling thread holds. */
    public List<LockKey> heldByCurrentThread(String name) {
        return gates.heldByCurrentThread(name);
    }

    /** Locks held by this process, counting a reentrant hold once. */
    public int heldCount() {
        return gates.heldCount();
    }

    /** Threads of this process that hold or wait for a lock. */
    public int activeThreadCount() {
        return gates.activeThreadCount();
    }

    /** Locks the watchdog keeps renewing. */
    public int renewedCount() {
        return watchdog.size();
    }

    /** Shuts down without a grace period, {@link #shutdown(Duration) shutdown(ZERO)}, unless a shutdown ran before. */
    @Override
    public void close() {
        shutdown(Duration.ZERO);
    }

    /**
     * Shuts down so that a redeploy frees its locks at once, in every mode. From now on acquisitions fail with a
     * {@link LockAcquisitionException} saying so. Holders get up to {@code grace} to unlock; the locks still held then
     * are reported lost to their holders ({@link LossCause#SHUTDOWN}, which interrupts those whose policy says so;
     * their unlock throws {@link LockLostException}) and released in the database. Then the watchdog, the background
     * releases (given up to 2 s) and the engines stop: ROW and NAMED close their sessions. Lost-lock listeners get up
     * to 5 s to work through the notifications still queued; any left are logged. Only the first call does anything.
     */
    public void shutdown(Duration grace) {
        shutdown.run(grace);
    }

    private LockEngine engine(LockMode mode) {
        LockEngine engine = engines.get(Objects.requireNonNull(mode, "mode"));
        if (engine == null) {
            throw new IllegalArgumentException(
                    "No engine for lock mode " + mode + " is configured; available: " + engines.keySet());
        }
        return engine;
    }

    /** Builds a {@link LockManager}. */
    public static final class Builder {

        private final String instanceId;
        private final Map<LockMode, LockEngine> engines = new EnumMap<>(LockMode.class);
        private @Nullable ModeBindingStore modeBindings;
        private Duration watchdogLease = DEFAULT_WATCHDOG_LEASE;
        private boolean fair = DEFAULT_FAIR;
        private int localHandoffs = DEFAULT_LOCAL_HANDOFFS;
        private final List<LockObserver> observers = new ArrayList<>();

        private Builder(String instanceId) {
            this.instanceId = InstanceId.validate(instanceId);
        }

        public Builder engine(LockEngine engine) {
            engines.put(engine.mode(), engine);
            return this;
        }

        /**
         * Where lock names are bound to modes, shared by every instance on the lock database (required; for the lock
         * tables, {@code LockDaos.modes()}).
         */
        public Builder modeBindings(ModeBindingStore store) {
            this.modeBindings = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The lease of locks without a fixed lease time, renewed every third of it (default 30 s). */
        public Builder watchdogLease(Duration lease) {
            if (lease.compareTo(MIN_WATCHDOG_LEASE) < 0) {
                throw new IllegalArgumentException(
                        "The watchdog lease must be at least 300ms (it is renewed every third of it), was " + lease);
            }
            if (lease.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
                throw new IllegalArgumentException("The watchdog lease must be at most 365 days ("
                        + LockOptions.MAX_LEASE_TIME + "), was " + lease + "; it is how long a crashed holder keeps"
                        + " its locks, so keep it short (the default is 30s)");
            }
            this.watchdogLease = lease;
            return this;
        }

        /**
         * Whether threads of this process get a lock in the order they asked for it (default true); false lets a thread
         * that comes while the lock is free pass the threads that wait, for a little more throughput.
         */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * How often one database grant may pass directly from a thread of this process to another that waits for the
         * same lock, before it is released for other processes (default {@value #DEFAULT_LOCAL_HANDOFFS}; 0 releases
         * every time). Hand-offs also stop 100 ms after the database lock was taken. A hand-off costs no round trip;
         * each hold still gets a fencing token above the one before.
         */
        public Builder localHandoffs(int localHandoffs) {
            if (localHandoffs < 0) {
                throw new IllegalArgumentException(
                        "Local hand-offs must be 0 (always release) or more, was " + localHandoffs);
            }
            this.localHandoffs = localHandoffs;
            return this;
        }

        /** Adds an observer of acquisitions, releases, renewals and losses, e.g. for metrics (default: none). */
        public Builder observer(LockObserver observer) {
            observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        public LockManager build() {
            if (engines.isEmpty()) {
                throw new IllegalStateException("A LockManager needs at least one LockEngine");
            }
            if (modeBindings == null) {
                throw new IllegalStateException("A LockManager needs the store that binds each lock name to one mode,"
                        + " shared by every instance: .modeBindings(daos.modes())");
            }
            return new LockManager(this);
        }
    }
}
