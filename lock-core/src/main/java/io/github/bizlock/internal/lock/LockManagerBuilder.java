package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.ModeBindingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Builds a {@link LockManager}. */
public final class LockManagerBuilder {

    final String instanceId;
    final Map<LockMode, LockEngine> engines = new EnumMap<>(LockMode.class);
    final Map<LockMode, LockEngine> readEngines = new EnumMap<>(LockMode.class);

    @Nullable
    ModeBindingStore modeBindings;

    Duration watchdogLease = LockManager.DEFAULT_WATCHDOG_LEASE;
    boolean fair = LockManager.DEFAULT_FAIR;
    int localHandoffs = LockManager.DEFAULT_LOCAL_HANDOFFS;
    final List<LockObserver> observers = new ArrayList<>();

    LockManagerBuilder(String instanceId) {
        this.instanceId = InstanceId.validate(instanceId);
    }

    public LockManagerBuilder engine(LockEngine engine) {
        engines.put(engine.mode(), engine);
        return this;
    }

    /**
     * The engine of a mode's read locks ({@link LockAccess#READ}), which exclude the write locks of that mode's
     * {@link #engine}: {@code LeaseReadEngine} for LEASE, {@code SessionLockEngine.rowReader} for ROW.
     */
    public LockManagerBuilder readEngine(LockEngine engine) {
        readEngines.put(engine.mode(), engine);
        return this;
    }

    /**
     * Where lock names are bound to modes, shared by every instance on the lock database (required; for the lock
     * tables, {@code LockDaos.modes()}).
     */
    public LockManagerBuilder modeBindings(ModeBindingStore store) {
        this.modeBindings = Objects.requireNonNull(store, "store");
        return this;
    }

    /** The lease of locks without a fixed lease time, renewed every third of it (default 30 s). */
    public LockManagerBuilder watchdogLease(Duration lease) {
        if (lease.compareTo(LockManager.MIN_WATCHDOG_LEASE) < 0) {
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
    public LockManagerBuilder fair(boolean fair) {
        this.fair = fair;
        return this;
    }

    /**
     * How often one database grant may pass directly from a thread of this process to another that waits for the
     * same lock, before it is released for other processes (default {@value LockManager#DEFAULT_LOCAL_HANDOFFS}; 0 releases
     * every time). Hand-offs also stop 100 ms after the database lock was taken. A hand-off costs no round trip;
     * each hold still gets a fencing token above the one before.
     */
    public LockManagerBuilder localHandoffs(int localHandoffs) {
        if (localHandoffs < 0) {
            throw new IllegalArgumentException(
                    "Local hand-offs must be 0 (always release) or more, was " + localHandoffs);
        }
        this.localHandoffs = localHandoffs;
        return this;
    }

    /** Adds an observer of acquisitions, releases, renewals and losses, e.g. for metrics (default: none). */
    public LockManagerBuilder observer(LockObserver observer) {
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
