package io.github.bizlock.actuate;

import io.github.bizlock.internal.lock.LockManager;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;

/**
 * Gauges of one {@link LockManager}: {@code bizlock.held} (locks this instance holds), {@code bizlock.waiting} (its
 * threads waiting for a lock) and {@code bizlock.renewals.overdue} (held leases whose renewal has been failing for
 * half a lease).
 */
public final class LockGauges implements MeterBinder {

    private final LockManager manager;

    public LockGauges(LockManager manager) {
        this.manager = Objects.requireNonNull(manager, "manager");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("bizlock.held", manager, LockManager::heldCount)
                .description("Locks held by this instance")
                .register(registry);
        Gauge.builder("bizlock.waiting", manager, LockManager::waitingCount)
                .description("Threads of this instance waiting for a lock")
                .register(registry);
        Gauge.builder("bizlock.renewals.overdue", manager, LockManager::overdueRenewalCount)
                .description("Held leases whose renewal has been failing for half a lease")
                .register(registry);
    }
}
