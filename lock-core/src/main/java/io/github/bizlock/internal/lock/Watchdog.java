package io.github.bizlock.internal.lock;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of held locks in batches and reports the ones it cannot keep.
 *
 * <p>Every tick (on the manager's watchdog thread, which does nothing else) it renews the leases that are due, together
 * with those due within half an interval, so leases taken at different times fall into shared statements. The
 * statements run on one thread per engine, so a slow database session of one mode delays neither the expiry checks nor
 * another mode's renewals; a tick skips an engine whose previous renewal is still running. A lease that cannot be
 * renewed before its local deadline (the database is unreachable), that the database no longer holds for us (taken
 * over, removed), or a fixed lease that ends while still held, is reported lost.
 */
final class Watchdog {

    static final int BATCH_SIZE = 100;

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
    private final Map<LockEngine, Renewer> renewers = new ConcurrentHashMap<>();
    private final BiConsumer<HeldLease, String> lostHandler;
    private final LockObserver observer;

    Watchdog(
            ScheduledExecutorService scheduler,
            long tickMillis,
            BiConsumer<HeldLease, String> lostHandler,
            LockObserver observer) {
        this.lostHandler = lostHandler;
        this.observer = observer;
        scheduler.scheduleWithFixedDelay(this::tickSafely, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    void register(HeldLease lease) {
        leases.add(lease);
    }

    void unregister(HeldLease lease) {
        leases.remove(lease);
    }

    /** Leases the watchdog renews (fixed leases are only watched for their end). */
    int size() {
        return (int) leases.stream().filter(HeldLease::renewedByWatchdog).count();
    }

    /** Leases whose renewal is overdue: renewals have been failing for half a lease. */
    int overdueCount() {
        long now = System.nanoTime();
        return (int) leases.stream()
                .filter(lease -> lease.renewedByWatchdog() && lease.renewalOverdue(now))
                .count();
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException | Error ex) {
            log.error("bizlock watchdog tick failed; it runs again at the next tick", ex);
        }
    }

    void tick() {
        long now = System.nanoTime();
        Map<LockEngine, List<HeldLease>> due = new HashMap<>();
        Set<LockEngine> anyDue = new HashSet<>();
        for (HeldLease lease : leases) {
            if (lease.hasExpired(now)) {
                lost(lease, lease.expiryReason());
            } else if (lease.renewedByWatchdog()
                    && now - lease.nextRenewalNanos() + lease.renewalIntervalNanos() / 2 >= 0) {
                due.computeIfAbsent(lease.engine(), engine -> new ArrayList<>()).add(lease);
                if (now - lease.nextRenewalNanos() >= 0) {
                    anyDue.add(lease.engine());
                }
            }
        }
        for (LockEngine engine : anyDue) {
            renewers.computeIfAbsent(engine, Renewer::new).submit(due.get(engine));
        }
    }

    /** Stops the renewal threads. */
    void close() {
        renewers.values().forEach(renewer -> renewer.executor.shutdownNow());
    }

    /** Runs one engine's renewals on a thread of their own, one batch run at a time. */
    private final class Renewer {

        private final LockEngine engine;
        private final ExecutorService executor;
        private final AtomicBoolean running = new AtomicBoolean();

        Renewer(LockEngine engine) {
            this.engine = engine;
            this.executor = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(
                        runnable, "bizlock-renew-" + engine.mode().name().toLowerCase(Locale.ROOT));
                thread.setDaemon(true);
                return thread;
            });
        }

        void submit(List<HeldLease> candidates) {
            if (!running.compareAndSet(false, true)) {
                return; // the previous renewal still runs; its leases are checked for expiry meanwhile
            }
            try {
                executor.execute(() -> {
                    try {
                        renew(engine, candidates);
                    } catch (RuntimeException | Error ex) {
                        log.error(
                                "bizlock renewal of {} locks failed; it runs again at the next tick",
                                engine.mode(),
                                ex);
                    } finally {
                        running.set(false);
                    }
                });
            } catch (RejectedExecutionException ex) {
                running.set(false); // shut down
            }
        }
    }

    private void renew(LockEngine engine, List<HeldLease> candidates) {
        for (int from = 0; from < candidates.size(); from += BATCH_SIZE) {
            List<HeldLease> batch = candidates.subList(from, Math.min(candidates.size(), from + BATCH_SIZE));
            List<Grant> grants = batch.stream().map(HeldLease::grant).toList();
            long sent = System.nanoTime();
            Set<Grant> gone;
            try {
                gone = engine.renew(grants);
            } catch (RuntimeException ex) {
                log.warn(
                        "bizlock could not renew {} lease(s) of {} locks; retrying until their leases end: {}",
                        batch.size(),
                        engine.mode(),
                        ex.toString());
                for (HeldLease lease : batch) {
                    lease.retryRenewalAt(sent + Math.min(lease.renewalIntervalNanos() / 3, 1_000_000_000L));
                }
                observer.renewalFailed(engine.mode(), batch.size());
                continue;
            }
            int renewed = 0;
            for (HeldLease lease : batch) {
                if (gone.contains(lease.grant())) {
                    lost(
                            lease,
                            "the database no longer holds it for this owner (taken over after the lease ended,"
                                    + " or removed)");
                } else {
                    lease.renewed(sent);
                    renewed++;
                }
            }
            if (renewed > 0) {
                observer.renewed(engine.mode(), renewed);
            }
        }
    }

    private void lost(HeldLease lease, String reason) {
        leases.remove(lease);
        lostHandler.accept(lease, reason);
    }
}
