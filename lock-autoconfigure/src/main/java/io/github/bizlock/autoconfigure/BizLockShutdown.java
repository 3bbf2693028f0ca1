package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockService;
import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Shuts the lock service down when the application stops, so a redeploy frees its locks at once: new acquisitions are
 * refused, holders get {@code bizlock.shutdown-grace-period} to unlock, and the locks still held then are reported lost
 * and released. Its phase comes after the web server's graceful shutdown, so requests still being served keep their
 * locks, and before the beans are destroyed, so the lock database is still there.
 */
final class BizLockShutdown implements SmartLifecycle {

    /** Below the web server's phases (graceful shutdown at {@code DEFAULT_PHASE - 1024}, stop at {@code - 2048}). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Supplier<@Nullable LockService> service;
    private final Duration gracePeriod;
    private volatile boolean running;

    /** @param service the lock service, or {@code null} when the lock database never answered and it was never built */
    BizLockShutdown(Supplier<@Nullable LockService> service, Duration gracePeriod) {
        this.service = service;
        this.gracePeriod = gracePeriod;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        LockService created = service.get();
        if (created != null) {
            created.shutdown(gracePeriod);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
