package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out {@link LockHandle}s: the JVM gate in front of the database lock of each mode's {@link LockEngine}, the
 * watchdog, and lock-lost reporting. One per application; thread-safe. Usable without Spring Boot:
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(instanceId).engine(new LeaseLockEngine(dao, instanceId)).build();
 * }</pre>
 */
public final class LockManager implements AutoCloseable {

    /** The lease of locks without a fixed lease time; the watchdog renews it every third of it. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

    /** How often one database grant may pass from thread to thread of this process before it is released. */
    public static final int DEFAULT_LOCAL_HANDOFFS = 16;

    /**
     * How long after its acquisition a database grant may still pass from thread to thread. Hand-offs pay off for short
     * holds; with long ones they would only keep other processes waiting for many holds in a row.
     */
    static final long HANDOFF_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private final String instanceId;
    private final Map<LockMode, LockEngine> engines;
    private final Duration watchdogLease;
    private final boolean fair;
    private final int localHandoffs;
    private final ScheduledExecutorService watchdogThread;
    private final ScheduledExecutorService scheduler;
    private final Watchdog watchdog;
    private final Map<KeyGate.Id, KeyGate> gates = new ConcurrentHashMap<>();
    private final List<LockLostListener> listeners = new CopyOnWriteArrayList<>();
    private final LockObserver observer;

    private LockManager(Builder builder) {
        this.instanceId = builder.instanceId;
        this.engines = Map.copyOf(builder.engines);
        this.watchdogLease = builder.watchdogLease;
        this.fair = builder.fair;
        this.localHandoffs = builder.localHandoffs;
        this.observer = builder.observers.isEmpty() ? LockObserver.NONE : LockObserver.composite(builder.observers);
        // The watchdog's thread does nothing else, so slow periodic work (housekeeping) never delays a renewal.
        this.watchdogThread = daemonScheduler("bizlock-watchdog");
        this.scheduler = daemonScheduler("bizlock-scheduler");
        long tickMillis = Math.max(10, Math.min(100, watchdogLease.toMillis() / 30));
        this.watchdog = new Watchdog(watchdogThread, tickMillis, this::reportLost, observer);
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
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * The shared scheduler (one daemon thread) for periodic work such as housekeeping; the watchdog has a thread of
     * its own.
     */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** The observer this manager reports acquisitions, releases, renewals and losses to. */
    public LockObserver observer() {
        return observer;
    }

    /** Threads of this process that wait for a lock another thread or process holds. */
    public int waitingCount() {
        return gates.values().stream().mapToInt(LockManager::waiting).sum();
    }

    /** Locks the watchdog renews whose renewal is overdue: renewals have been failing for half a lease. */
    public int overdueRenewalCount() {
        return watchdog.overdueCount();
    }

    /** The locks this process holds or waits for now, longest held first; a read-only snapshot. */
    public List<LocalLock> locks() {
        long now = System.nanoTime();
        List<LocalLock> locks = new ArrayList<>();
        for (KeyGate gate : gates.values()) {
            HeldLease held = gate.lease;
            Hold hold = held != null ? held.hold() : null;
            int waiting = waiting(gate);
            if (held == null || hold == null) {
                if (waiting > 0) {
                    locks.add(new LocalLock(
                            gate.id.key(), gate.id.mode(), null, 0, Duration.ZERO, false, false, null, waiting));
                }
                continue;
            }
            locks.add(new LocalLock(
                    gate.id.key(),
                    gate.id.mode(),
                    hold.thread.getName(),
                    hold.token(),
                    Duration.ofNanos(Math.max(0, now - hold.acquiredNanos)),
                    held.renewedByWatchdog(),
                    !held.isValid(),
                    hold.onLost,
                    waiting));
        }
        locks.sort(java.util.Comparator.comparing(LocalLock::heldFor).reversed());
        return locks;
    }

    private static int waiting(KeyGate gate) {
        HeldLease held = gate.lease;
        return Math.max(0, gate.users - (held != null && held.hold() != null ? 1 : 0));
    }

    /**
     * Acquires a lock, waiting up to {@code wait} while another thread or process holds it.
     *
     * @param lease a fixed lease, or {@code null} to have the watchdog renew the lease while the lock is held
     * @return the handle, or empty if the lock was still held elsewhere when the wait ended
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
     * @throws LockLostException if this thread holds the lock already but has lost it
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
     */
    public Optional<LockHandle> tryAcquire(
            LockKey key, LockMode mode, Duration wait, @Nullable Duration lease, LockLostPolicy onLost)
            throws InterruptedException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(onLost, "onLost");
        LockEngine engine = engine(mode);
        requireValid(wait, lease);
        LockObserver.Acquisition acquisition = observer.acquisitionStarted(key, mode);
        long started = System.nanoTime();
        LockObserver.Outcome outcome = LockObserver.Outcome.FAILED;
        try {
            Optional<LockHandle> handle = acquire(key, mode, engine, wait, lease, onLost);
            outcome = handle.isPresent() ? LockObserver.Outcome.ACQUIRED : LockObserver.Outcome.TIMED_OUT;
            return handle;
        } finally {
            acquisition.finished(outcome, System.nanoTime() - started);
        }
    }

    private Optional<LockHandle> acquire(
            LockKey key,
            LockMode mode,
            LockEngine engine,
            Duration wait,
            @Nullable Duration lease,
            LockLostPolicy onLost)
            throws InterruptedException {
        long deadline = deadline(wait);
        KeyGate gate = enter(new KeyGate.Id(mode, key));
        boolean entered = false;
        try {
            if (gate.local.isHeldByCurrentThread()) {
                HeldLease held = Objects.requireNonNull(gate.lease);
                Hold hold = Objects.requireNonNull(held.hold());
                if (!held.isValid()) {
                    throw new LockLostException(event(hold, reasonOf(held)));
                }
                gate.local.lock();
                gate.holds++;
                entered = true;
                return Optional.of(new DefaultLockHandle(this, gate, hold));
            }
            boolean locallyFree = wait.isZero()
                    ? gate.local.tryLock()
                    : gate.local.tryLock(remaining(deadline), TimeUnit.NANOSECONDS);
            if (!locallyFree) {
                return Optional.empty();
            }
            try {
                // Session-held locks ignore a fixed lease: they last while their session does, checked by heartbeats.
                boolean renewed = lease == null || engine.heldBySession();
                HeldLease handedOver = gate.lease;
                if (handedOver != null) {
                    if (Thread.interrupted()) {
                        // The grant stays for the next waiter; if none is left, the last to leave releases it.
                        throw new InterruptedException("Interrupted while acquiring " + key);
                    }
                    Hold hold = renewed ? handedOver.takeOver(Thread.currentThread(), onLost) : null;
                    if (hold != null) {
                        gate.holds = 1;
                        entered = true;
                        return Optional.of(new DefaultLockHandle(this, gate, hold));
                    }
                    // A fixed lease was asked for, or the grant ended while handed over: release it, take a new one.
                    gate.lease = null;
                    releaseHandedOver(handedOver);
                }
                int tokens = tokensToReserve(gate.users - 1, 0);
                Grant grant = engine.acquire(key, renewed ? watchdogLease : lease, tokens, deadline);
                if (grant == null) {
                    gate.local.unlock();
                    return Optional.empty();
                }
                HeldLease held = new HeldLease(grant, engine, renewed);
                Hold hold = held.begin(Thread.currentThread(), onLost);
                if (Thread.interrupted()) {
                    // Interrupted while the database granted it: give it back, so an interrupted wait holds nothing.
                    try {
                        engine.release(grant);
                    } catch (RuntimeException ex) {
                        Thread.currentThread().interrupt(); // the caller must still see the interrupt
                        throw ex;
                    }
                    throw new InterruptedException("Interrupted while acquiring " + key);
                }
                gate.lease = held;
                gate.holds = 1;
                // Fixed leases too: the watchdog reports them lost when they end while still held.
                watchdog.register(held);
                entered = true;
                return Optional.of(new DefaultLockHandle(this, gate, hold));
            } catch (InterruptedException | RuntimeException | Error ex) {
                // Interrupted in the engine's wait, or failed: the local lock must not stay with this thread.
                gate.local.unlock();
                throw ex;
            }
        } finally {
            if (!entered) {
                leave(gate);
            }
        }
    }

    void unlock(DefaultLockHandle handle) {
        KeyGate gate = handle.gate;
        if (handle.unlocked) {
            throw new IllegalMonitorStateException(
                    "Lock " + gate.id.key() + " was already unlocked through this handle");
        }
        Hold hold = handle.hold;
        if (!gate.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock " + gate.id.key() + " is held by thread "
                    + hold.thread.getName() + "; only the thread that acquired a lock may unlock it");
        }
        handle.unlocked = true;
        if (--gate.holds > 0) {
            gate.local.unlock();
            leave(gate);
            return;
        }
        HeldLease held = hold.lease;
        if (mayHandOver(gate, held)) {
            // Another thread of this process waits: it takes the grant from here, without a round trip.
            held.handOver();
            // Leave before unlocking, so the next holder counts only the threads that still wait.
            leave(gate);
            gate.local.unlock();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            observer.handedOver(held.grant().key(), held.engine().mode());
            return;
        }
        boolean stillHeld = held.isValid();
        @Nullable String lostReason = stillHeld ? null : reasonOf(held);
        try {
            // Even a lease we think is lost is released: the release only matches our owner and token, so it frees
            // the row if nobody took it yet and never touches a later holder's.
            boolean released = releaseGrant(held);
            if (stillHeld && !released) {
                stillHeld = false;
                lostReason = "the database no longer held it for this owner at unlock (taken over after the lease"
                        + " ended, or removed)";
            }
        } finally {
            boolean firstReport = !stillHeld && held.markLost(Objects.requireNonNull(lostReason));
            held.markReleased();
            gate.lease = null;
            leave(gate);
            gate.local.unlock();
            observer.released(held.grant().key(), held.engine().mode(), System.nanoTime() - hold.acquiredNanos);
            if (firstReport) {
                notifyLost(hold, Objects.requireNonNull(lostReason));
            }
        }
        if (!stillHeld) {
            throw new LockLostException(event(hold, reasonOf(held)));
        }
    }

    /**
     * Whether an ending hold passes its grant to a thread of this process that waits for it, instead of releasing it:
     * only a grant that is still valid and renewed by the watchdog (a fixed lease is counted from its own acquisition),
     * at most {@code localHandoffs} times and within {@link #HANDOFF_WINDOW_NANOS} of its acquisition, so other
     * processes get their turn, and only with a fencing token for the next hold at hand (reserved with the grant, or
     * issued on demand by the engine).
     */
    private boolean mayHandOver(KeyGate gate, HeldLease held) {
        return gate.users > 1
                && held.handoffs() < localHandoffs
                && System.nanoTime() - held.grant().sentNanos() < HANDOFF_WINDOW_NANOS
                && held.renewedByWatchdog()
                && held.isValid()
                && (held.engine().issuesTokensOnDemand() || held.hasReservedToken());
    }

    /** Releases a grant no thread of this process took over. Nobody held it meanwhile, so a loss is not reported. */
    private void releaseHandedOver(HeldLease held) {
        // The last waiter may leave because it was interrupted; a pool refuses an interrupted thread a connection.
        boolean interrupted = Thread.interrupted();
        try {
            releaseGrant(held);
        } catch (RuntimeException ex) {
            log.warn(
                    "bizlock could not release lock {} after its last local holder; it frees when its lease or"
                            + " session ends",
                    held.grant().key(),
                    ex);
        } finally {
            held.markReleased();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Gives a grant back to the database: from now on only this release decides whether it was lost, and the watchdog
     * leaves it alone.
     *
     * @return whether the database still held it for this grant
     */
    private boolean releaseGrant(HeldLease held) {
        held.markReleasing();
        watchdog.unregister(held);
        return held.engine().release(held.grant());
    }

    /**
     * How many fencing tokens a grant handed over {@code handoffs} times reserves: its holder's, and while
     * {@code otherThreads} wait, one for each hand-off still allowed, so they cost no statement of their own.
     */
    private int tokensToReserve(int otherThreads, int handoffs) {
        return otherThreads > 0 ? 1 + Math.max(0, localHandoffs - handoffs) : 1;
    }

    /**
     * The fencing token of a hold: the one it took with the grant, or one issued now, while the hold still has the
     * lock, by an engine that issues tokens on demand. Issued while held, it is above the token of every earlier hold
     * and below that of every later one.
     */
    long fencingToken(DefaultLockHandle handle) {
        Hold hold = handle.hold;
        long token = hold.token();
        if (token != 0) {
            return token;
        }
        HeldLease held = hold.lease;
        synchronized (held.tokenLock) {
            token = hold.token();
            if (token != 0) {
                return token;
            }
            if (handle.unlocked) {
                throw new IllegalStateException("Lock " + handle.gate.id.key() + " was unlocked before its fencing"
                        + " token was asked for; ROW and NAMED issue tokens on demand, so ask while holding the lock");
            }
            if (held.hold() != hold || !held.isValid()) {
                throw new LockLostException(event(hold, reasonOf(held)));
            }
            token = held.takeReservedToken();
            if (token == 0) {
                int count = tokensToReserve(waiting(handle.gate), held.handoffs());
                long top = held.engine().issueTokens(held.grant(), count);
                held.reserved(top, count);
                token = held.takeReservedToken();
            }
            hold.token(token);
            return token;
        }
    }

    /** Locks held by this process, counting a reentrant hold once. */
    public int heldCount() {
        return (int) gates.values().stream().filter(gate -> gate.lease != null).count();
    }

    /** Threads of this process that hold or wait for a lock. */
    public int activeThreadCount() {
        return gates.values().stream().mapToInt(gate -> gate.users).sum();
    }

    /** Locks the watchdog keeps renewing. */
    public int renewedCount() {
        return watchdog.size();
    }

    /**
     * Stops the scheduler and closes the engines that hold resources: ROW and NAMED close their sessions, so the server
     * frees the locks still held through them.
     */
    @Override
    public void close() {
        watchdogThread.shutdownNow();
        watchdog.close();
        scheduler.shutdownNow();
        for (LockEngine engine : engines.values()) {
            if (engine instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception ex) {
                    log.warn("bizlock could not close the {} engine", engine.mode(), ex);
                }
            }
        }
    }

    private LockEngine engine(LockMode mode) {
        LockEngine engine = engines.get(Objects.requireNonNull(mode, "mode"));
        if (engine == null) {
            throw new IllegalArgumentException(
                    "No engine for lock mode " + mode + " is configured; available: " + engines.keySet());
        }
        return engine;
    }

    private static void requireValid(Duration wait, @Nullable Duration lease) {
        Objects.requireNonNull(wait, "wait");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("The wait time must not be negative, was " + wait
                    + "; use Duration.ZERO to try once without waiting");
        }
        if (lease != null && (lease.isNegative() || lease.isZero())) {
            throw new IllegalArgumentException("The lease time must be positive, was " + lease
                    + "; leave it unset to have the watchdog renew the lease while the lock is held");
        }
        if (lease != null && lease.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("The lease time must be at most 365 days (" + LockOptions.MAX_LEASE_TIME
                    + "), was " + lease + "; leave it unset to have the watchdog renew the lease while the lock is"
                    + " held");
        }
    }

    private static long deadline(Duration wait) {
        long now = System.nanoTime();
        // Saturate: a wait of years means "until acquired".
        long waitNanos = wait.compareTo(Duration.ofDays(365 * 100)) > 0 ? Long.MAX_VALUE / 2 : wait.toNanos();
        return now + waitNanos;
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    private static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    private KeyGate enter(KeyGate.Id id) {
        return gates.compute(id, (key, gate) -> {
            KeyGate entered = gate != null ? gate : new KeyGate(key, fair);
            entered.users++;
            return entered;
        });
    }

    private void leave(KeyGate gate) {
        boolean[] last = new boolean[1];
        gates.computeIfPresent(gate.id, (key, current) -> {
            last[0] = --current.users == 0;
            return last[0] ? null : current;
        });
        HeldLease handedOver = gate.lease;
        if (last[0] && handedOver != null) {
            // Handed over to threads that then gave up waiting: nobody is left to take it.
            gate.lease = null;
            releaseHandedOver(handedOver);
        }
    }

    private void reportLost(HeldLease held, String reason) {
        Hold hold = held.markLostByWatchdog(reason);
        if (hold != null) {
            notifyLost(hold, reason);
        }
    }

    private void notifyLost(Hold hold, String reason) {
        HeldLease held = hold.lease;
        LockLostEvent event = event(hold, reason);
        log.warn(
                "bizlock lost lock {} ({}, fencing token {}) held by thread {}: {}",
                held.grant().key(),
                event.mode(),
                event.fencingToken(),
                event.holderThread(),
                reason);
        if (hold.onLost == LockLostPolicy.INTERRUPT && held.interruptHolderIfStillHolding(hold)) {
            log.warn("bizlock interrupted thread {}, which held the lost lock {}", event.holderThread(), event.key());
        }
        observer.lost(event);
        for (LockLostListener listener : listeners) {
            try {
                listener.onLockLost(event);
            } catch (RuntimeException ex) {
                log.error("LockLostListener {} failed", listener, ex);
            }
        }
    }

    private static String reasonOf(HeldLease held) {
        String reason = held.lostReason();
        return reason != null ? reason : held.expiryReason();
    }

    private LockLostEvent event(Hold hold, String reason) {
        Grant grant = hold.lease.grant();
        return new LockLostEvent(
                grant.key().name(),
                grant.key().key(),
                hold.lease.engine().mode(),
                hold.token(),
                grant.owner(),
                hold.thread.getName(),
                reason,
                Instant.now());
    }

    /** Builds a {@link LockManager}. */
    public static final class Builder {

        private final String instanceId;
        private final Map<LockMode, LockEngine> engines = new EnumMap<>(LockMode.class);
        private Duration watchdogLease = DEFAULT_WATCHDOG_LEASE;
        private boolean fair;
        private int localHandoffs = DEFAULT_LOCAL_HANDOFFS;
        private final List<LockObserver> observers = new ArrayList<>();

        private Builder(String instanceId) {
            this.instanceId = InstanceId.validate(instanceId);
        }

        public Builder engine(LockEngine engine) {
            engines.put(engine.mode(), engine);
            return this;
        }

        /** The lease of locks without a fixed lease time, renewed every third of it (default 30 s). */
        public Builder watchdogLease(Duration lease) {
            if (lease.compareTo(Duration.ofMillis(300)) < 0) {
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

        /** Whether threads of this process get a lock in the order they asked for it (default false). */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * How often one database grant may pass directly from a thread of this process to another that waits for the
         * same lock, before it is released for other processes (default {@value #DEFAULT_LOCAL_HANDOFFS}; 0 releases
         * every time). Hand-offs also stop 100 ms after the database lock was taken. A hand-off costs no round trip; each hold still gets a fencing token above the one before.
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
            return new LockManager(this);
        }
    }
}
