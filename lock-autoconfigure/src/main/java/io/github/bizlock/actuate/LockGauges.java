package io.github.bizlock.actuate;

import io.github.bizlock.internal.lock.LockManager;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of one {@link LockManager}: {@code bizlock.held} (locks this instance holds), {@code bizlock.waiting} (its
 * threads waiting for a lock) and {@code bizlock.renewals.overdue} (held leases whose renewal has been failing for
 * half a lease).
 */
public final class LockGauges implements MeterBinder {

    private final Supplier<@Nullable LockManager> managers;

    public LockGauges(LockManager manager) {
        Objects.requireNonNull(manager, "manager");
        this.managers = () -> manager;
    }

    /**
     * For a lock manager created when the lock database first answers: until the supplier gives one, the gauges read
     * 0 (no lock is held or waited for without it).
     */
    public LockGauges(Supplier<@Nullable LockManager> manager) {
        this.managers = Objects.requireNonNull(manager, "manager");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("bizlock.held", () -> count(LockManager::heldCount))
                .description("Locks held by this instance")
                .register(registry);
        Gauge.builder("bizlock.waiting", () -> count(LockManager::waitingCount))
                .description("Threads of this instance waiting for a lock")
                .register(registry);
        Gauge.builder("bizlock.renewals.overdue", () -> count(LockManager::overdueRenewalCount))
                .description("Held leases whose renewal has been failing for half a lease")
                .register(registry);
    }

    private int count(ToIntFunction<LockManager> count) {
        LockManager manager = managers.get();
        return manager != null ? count.applyAsInt(manager) : 0;
    }
}
