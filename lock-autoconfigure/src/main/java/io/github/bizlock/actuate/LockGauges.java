package io.github.bizlock.actuate;

import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of one {@link LockService}: {@code bizlock.held} (locks this instance holds), {@code bizlock.waiting} (its
 * threads waiting for a lock) and {@code bizlock.renewals.overdue} (held leases whose renewal has been failing for
 * half a lease).
 */
public final class LockGauges implements MeterBinder {

    private final Supplier<@Nullable LockService> services;

    public LockGauges(LockService service) {
        Objects.requireNonNull(service, "service");
        this.services = () -> service;
    }

    /**
     * For a lock service built when the lock database first answers: until the supplier gives one, the gauges read 0
     * (no lock is held or waited for without it).
     */
    public LockGauges(Supplier<@Nullable LockService> service) {
        this.services = Objects.requireNonNull(service, "service");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("bizlock.held", () -> count(LockStatus::held))
                .description("Locks held by this instance")
                .register(registry);
        Gauge.builder("bizlock.waiting", () -> count(LockStatus::waiting))
                .description("Threads of this instance waiting for a lock")
                .register(registry);
        Gauge.builder("bizlock.renewals.overdue", () -> count(LockStatus::renewalsOverdue))
                .description("Held leases whose renewal has been failing for half a lease")
                .register(registry);
    }

    private int count(ToIntFunction<LockStatus> count) {
        LockService service = services.get();
        return service != null ? count.applyAsInt(service.status()) : 0;
    }
}
