package io.github.bizlock.internal.housekeeping;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.HousekeepingDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes lock rows unused for longer than a retention, in small batches, on one instance at a time (it takes a LEASE
 * lock of its own, without waiting, before each run): lease rows free or expired that long, and the ROW and NAMED
 * modes' token rows and (unheld) lock rows.
 */
public final class Housekeeper implements AutoCloseable {

    /** The lock that makes housekeeping run on one instance at a time. */
    public static final LockKey LOCK = new LockKey("bizlock", "housekeeping");

    private static final Logger log = LoggerFactory.getLogger(Housekeeper.class);
    private static final Duration RUN_LEASE = Duration.ofMinutes(5);

    private final HousekeepingDao dao;
    private final LockManager locks;
    private final Duration retention;
    private final int batchSize;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bizlock-housekeeping");
        thread.setDaemon(true);
        return thread;
    });

    public Housekeeper(HousekeepingDao dao, LockManager locks, Duration retention, int batchSize) {
        if (retention.isNegative()) {
            throw new IllegalArgumentException("The housekeeping retention must not be negative, was " + retention);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("The housekeeping batch size must be at least 1, was " + batchSize);
        }
        this.dao = dao;
        this.locks = locks;
        this.retention = retention;
        this.batchSize = batchSize;
    }

    /**
     * Purges what is due, unless another instance is doing it right now.
     *
     * @return the number of rows deleted
     */
    public int runOnce() throws InterruptedException {
        Optional<LockHandle> lock = locks.tryAcquire(LOCK, LockMode.LEASE, Duration.ZERO, RUN_LEASE);
        if (lock.isEmpty()) {
            return 0;
        }
        try (LockHandle ignored = lock.get()) {
            int total = 0;
            int deleted;
            do {
                deleted = dao.purgeLeaseTable(retention, batchSize);
                total += deleted;
            } while (deleted == batchSize && ignored.isHeld());
            do {
                deleted = dao.purgeSessionTables(retention, batchSize);
                total += deleted;
            } while (deleted >= batchSize && ignored.isHeld());
            if (total > 0) {
                locks.observer().purged(total);
                log.debug("bizlock housekeeping deleted {} lock rows free for longer than {}", total, retention);
            }
            return total;
        }
    }

    /** Runs {@link #runOnce()} every {@code interval} on a daemon thread of its own, logging failures. */
    public ScheduledFuture<?> schedule(Duration interval) {
        long millis = interval.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("The housekeeping interval must be positive, was " + interval);
        }
        return scheduler.scheduleWithFixedDelay(this::runSafely, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Stops the scheduled runs; close it before the lock manager it locks with. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    private void runSafely() {
        try {
            runOnce();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ex) {
            log.warn("bizlock housekeeping failed; it runs again after the next interval: {}", ex.toString());
        }
    }
}
