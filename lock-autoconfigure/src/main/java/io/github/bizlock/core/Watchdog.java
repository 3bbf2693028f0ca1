package io.github.bizlock.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of held locks from one shared scheduler thread, in batches, and reports the ones it cannot keep.
 *
 * <p>Every tick it renews the leases that are due, together with those due within half an interval, so leases taken
 * at different times fall into shared statements. A lease that cannot be renewed before its local deadline (the
 * database is unreachable) or that the database no longer holds for us (taken over, removed) is reported lost.
 */
final class Watchdog {

    static final int BATCH_SIZE = 100;

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
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

    int size() {
        return leases.size();
    }

    /** Leases whose renewal is overdue: renewals have been failing for half a lease. */
    int overdueCount() {
        long now = System.nanoTime();
        return (int) leases.stream().filter(lease -> lease.renewalOverdue(now)).count();
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
        boolean anyDue = false;
        for (HeldLease lease : leases) {
            if (lease.hasExpired(now)) {
                lost(lease, "its lease ended before the watchdog could renew it (is the database reachable?)");
            } else if (now - lease.nextRenewalNanos() + lease.renewalIntervalNanos() / 2 >= 0) {
                due.computeIfAbsent(lease.engine(), engine -> new ArrayList<>()).add(lease);
                anyDue |= now - lease.nextRenewalNanos() >= 0;
            }
        }
        if (!anyDue) {
            return;
        }
        due.forEach(this::renew);
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
