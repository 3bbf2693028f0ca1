package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.LossCause;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Hands out {@link LockHandle}s for the locks of each mode's {@link LockEngine}: the face of this package, which checks
 * each request, passes it on, and reports what the process holds; the package description names the parts and the
 * lifecycle they share. One per application; thread-safe; {@code LockService} assembles it ({@link #builder}).
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
    private final Map<LockMode, LockEngine> readEngines;
    private final ModeBindings modeBindings;
    private final LockObserver observer;
    private final LossReporter losses;
    private final Watchdog watchdog;
    private final Releaser releaser = new Releaser();
    private final Gates gates;
    private final Holds holds;
    private final ReadShares readShares;
    private final Shutdown shutdown;

    LockManager(LockManagerBuilder builder) {
        this.instanceId = builder.instanceId;
        this.engines = Map.copyOf(builder.engines);
        this.readEngines = Map.copyOf(builder.readEngines);
        this.observer = builder.observers.isEmpty() ? LockObserver.NONE : LockObserver.composite(builder.observers);
        this.modeBindings = new ModeBindings(Objects.requireNonNull(builder.modeBindings), observer);
        this.losses = new LossReporter(observer);
        this.watchdog = new Watchdog(builder.watchdogLease, losses::reportLost, observer);
        HandOff handOff = new HandOff(builder.localHandoffs, watchdog, releaser);
        this.gates = new Gates(builder.fair, handOff);
        watchdog.onAbandoned(new AbandonedHolds(gates, handOff, losses, observer)::free);
        FencingTokens fencingTokens = new FencingTokens(handOff, losses);
        this.holds = new Holds(builder.watchdogLease, gates, handOff, fencingTokens, losses, watchdog, observer);
        this.readShares = new ReadShares(builder.watchdogLease, gates, handOff, losses, watchdog, observer);
        watchdog.onAbandonedReader(readShares.releases::abandon);
        List<LockEngine> allEngines = new ArrayList<>(engines.values());
        allEngines.addAll(readEngines.values());
        this.shutdown = new Shutdown(gates, watchdog, releaser, allEngines, losses);
    }

    public static LockManagerBuilder builder(String instanceId) {
        return new LockManagerBuilder(instanceId);
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
        return tryAcquire(key, mode, LockAccess.WRITE, wait, lease, onLost);
    }

    /**
     * Acquires a lock's read or write lock ({@link LockAccess}), as {@link #tryAcquire(LockKey, LockMode, Duration,
     * Duration, LockLostPolicy)} acquires its write lock.
     *
     * @throws IllegalArgumentException if a read lock is asked for in a mode that has none (NAMED)
     * @throws IllegalStateException if this thread holds the key's read lock and asks for its write lock (an upgrade,
     *     which would wait for itself), or holds the write lock and asks for the read lock in a mode that cannot
     *     downgrade (ROW); nothing is taken then
     */
    public Optional<LockHandle> tryAcquire(
            LockKey key,
            LockMode mode,
            LockAccess access,
            Duration wait,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        return acquire(key, Binding.locks(mode), access, wait, lease, onLost);
    }

    /** A write lock of a name bound as given: plain locks, or a semaphore's permit slots ({@link Permits}). */
    Optional<LockHandle> tryAcquire(
            LockKey key, Binding binding, Duration wait, @Nullable Duration lease, LockLostPolicy onLost)
            throws InterruptedException {
        return acquire(key, binding, LockAccess.WRITE, wait, lease, onLost);
    }

    /**
     * Binds a name as given, or checks its binding, by {@code deadlineNanos}: a semaphore does it once for the whole
     * wait, before its slots are tried without waiting.
     */
    void bind(String name, Binding binding, Duration wait, @Nullable Duration lease, long deadlineNanos) {
        // The checks an acquisition makes before it binds: a refused call leaves nothing behind.
        Holds.requireValid(wait, lease);
        engine(binding.mode()).requireAllowedHere();
        modeBindings.check(name, binding, deadlineNanos + LockEngine.DEADLINE_SLACK.toNanos());
    }

    private Optional<LockHandle> acquire(
            LockKey key,
            Binding binding,
            LockAccess access,
            Duration wait,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        LockMode mode = binding.mode();
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(onLost, "onLost");
        Objects.requireNonNull(access, "access");
        LockEngine engine = access == LockAccess.READ ? readEngine(mode) : engine(mode);
        Gate.Id id = new Gate.Id(mode, key);
        if (access == LockAccess.WRITE && readShares.readsCurrentThread(id)) {
            throw new IllegalStateException("This thread holds the read lock of " + key + " (" + mode + ") and asked"
                    + " for its write lock: a read lock is never upgraded, since the write lock would wait for this"
                    + " thread's own read lock. Unlock the read lock first (and check again what it read), or take"
                    + " the write lock from the start; nothing was taken");
        }
        Holds.requireValid(wait, lease);
        shutdown.refuseIfBegun(key);
        LockObserver.Acquisition acquisition = observer.acquisitionStarted(key, mode);
        long started = System.nanoTime();
        LockObserver.Outcome outcome = LockObserver.Outcome.FAILED;
        try {
            engine.requireAllowedHere(); // before the name is bound: a refused call leaves nothing behind
            long deadline = Holds.deadline(wait); // one for the name's binding and the acquisition
            modeBindings.check(key.name(), binding, deadline + LockEngine.DEADLINE_SLACK.toNanos());
            Optional<LockHandle> handle = access == LockAccess.READ
                    ? readShares.acquire(id, engine, deadline, lease, onLost)
                    : holds.acquire(key, mode, engine, wait, deadline, lease, onLost);
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

    private LockEngine readEngine(LockMode mode) {
        LockEngine engine = readEngines.get(Objects.requireNonNull(mode, "mode"));
        if (engine == null) {
            if (mode == LockMode.NAMED) {
                throw new IllegalArgumentException("NAMED locks have no read lock: GET_LOCK is exclusive only. Take"
                        + " the read lock in LEASE or ROW mode (LockOptions.mode, @DistributedLock(mode = ...)), or take"
                        + " this NAMED lock without access READ, as an exclusive lock; nothing was taken");
            }
            throw new IllegalArgumentException(
                    "No engine for read locks in mode " + mode + " is configured; available: " + readEngines.keySet());
        }
        return engine;
    }

    private LockEngine engine(LockMode mode) {
        LockEngine engine = engines.get(Objects.requireNonNull(mode, "mode"));
        if (engine == null) {
            throw new IllegalArgumentException(
                    "No engine for lock mode " + mode + " is configured; available: " + engines.keySet());
        }
        return engine;
    }
}
