package io.github.bizlock.internal.lock;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
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
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews held grants in batches and reports the ones it cannot keep. Renewing asks the engine to keep a grant alive
 * (a LEASE row's lease is extended; a ROW or NAMED session is asked whether it still holds the lock, a heartbeat) and,
 * if it did, lets this process count on the grant for another lease.
 *
 * <p>Every tick (on a thread of its own, which does nothing else, so slow periodic work such as housekeeping never
 * delays a renewal) it renews the grants that are due, together with those due within half an interval, so grants taken
 * at different times fall into shared statements. The statements run on one thread per engine, so a slow database
 * session of one mode delays neither the expiry checks nor another mode's renewals; a tick skips an engine whose
 * previous renewal is still running. A grant that cannot be renewed before its local deadline (the database is
 * unreachable), that the database no longer holds for us (taken over, removed), or a fixed lease that ends while still
 * held, is reported lost; so is a grant whose holder thread ended without unlocking it, which is then freed.
 */
final class Watchdog {

    static final int BATCH_SIZE = 100;

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final Set<HeldGrant> watched = ConcurrentHashMap.newKeySet();
    /** Grants reported lost and not released yet: their holder may still end without unlocking. */
    private final Set<HeldGrant> lostUnreleased = ConcurrentHashMap.newKeySet();

    private final Map<LockEngine, Renewer> renewers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("bizlock-watchdog"));
    private final BiConsumer<HeldGrant, Loss> lostHandler;
    private final LockObserver observer;
    private volatile BiPredicate<HeldGrant, Hold> abandonedHandler = (held, hold) -> false;
    private volatile BiPredicate<HeldGrant, Hold> abandonedReaderHandler = (held, reader) -> false;

    /** @param lease the watchdog's lease, renewed every third of it */
    Watchdog(Duration lease, BiConsumer<HeldGrant, Loss> lostHandler, LockObserver observer) {
        this.lostHandler = lostHandler;
        this.observer = observer;
        long tickMillis = Math.max(10, Math.min(100, lease.toMillis() / 30));
        ticker.scheduleWithFixedDelay(this::tickSafely, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    /** Who frees a grant whose holder thread ended without unlocking it; set once, before the first lock. */
    void onAbandoned(BiPredicate<HeldGrant, Hold> handler) {
        this.abandonedHandler = handler;
    }

    /** What frees the share of a reading thread that ended holding a read grant ({@link ReadShareReleases#abandon}). */
    void onAbandonedReader(BiPredicate<HeldGrant, Hold> handler) {
        this.abandonedReaderHandler = handler;
    }

    void register(HeldGrant held) {
        watched.add(held);
    }

    void unregister(HeldGrant held) {
        watched.remove(held);
    }

    /** Grants the watchdog renews (fixed leases are only watched for their end). */
    int size() {
        return (int) watched.stream().filter(HeldGrant::renewedByWatchdog).count();
    }

    /** Grants whose renewal is overdue: renewals have been failing for half a lease. */
    int overdueCount() {
        long now = System.nanoTime();
        return (int) watched.stream()
                .filter(held -> held.renewedByWatchdog() && held.renewalOverdue(now))
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
        Map<LockEngine, List<HeldGrant>> due = new HashMap<>();
        Set<LockEngine> anyDue = new HashSet<>();
        for (HeldGrant held : lostUnreleased) {
            Hold hold = held.hold();
            if (held.isReleased() || (hold != null && !hold.thread.isAlive() && abandonedHandler.test(held, hold))) {
                lostUnreleased.remove(held);
            }
        }
        for (HeldGrant held : watched) {
            for (Hold reader : held.sharers()) {
                if (!reader.thread.isAlive()) {
                    abandonedReaderHandler.test(held, reader); // the last one's release unregisters the grant
                }
            }
            Hold hold = held.hold();
            if (held.isReleased()) {
                watched.remove(held);
            } else if (hold != null && !hold.thread.isAlive() && abandonedHandler.test(held, hold)) {
                // Nobody can unlock it any more: renewing it would keep the key for the life of the process.
                watched.remove(held);
            } else if (held.hasExpired(now)) {
                lost(held, held.expiryLoss());
            } else if (held.renewedByWatchdog()
                    && now - held.nextRenewalNanos() + held.renewalIntervalNanos() / 2 >= 0) {
                due.computeIfAbsent(held.engine(), engine -> new ArrayList<>()).add(held);
                if (now - held.nextRenewalNanos() >= 0) {
                    anyDue.add(held.engine());
                }
            }
        }
        for (LockEngine engine : anyDue) {
            renewers.computeIfAbsent(engine, Renewer::new).submit(due.get(engine));
        }
    }

    /** Stops the watchdog's thread and the renewal threads. */
    void close() {
        ticker.shutdownNow();
        lostUnreleased.clear();
        renewers.values().forEach(renewer -> renewer.executor.shutdownNow());
    }

    /** Stops renewing, and hands over the grants it watched: every grant held, renewed or with a fixed lease. */
    List<HeldGrant> stop() {
        close();
        List<HeldGrant> held = new ArrayList<>(watched);
        watched.removeAll(held);
        return held;
    }

    /** Runs one engine's renewals on a thread of their own, one batch run at a time. */
    private final class Renewer {

        private final LockEngine engine;
        private final ExecutorService executor;
        private final AtomicBoolean running = new AtomicBoolean();

        Renewer(LockEngine engine) {
            this.engine = engine;
            this.executor = Executors.newSingleThreadExecutor(
                    DaemonThreads.named("bizlock-renew-" + engine.mode().name().toLowerCase(Locale.ROOT)));
        }

        void submit(List<HeldGrant> candidates) {
            if (!running.compareAndSet(false, true)) {
                return; // the previous renewal still runs; its grants are checked for expiry meanwhile
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

    private void renew(LockEngine engine, List<HeldGrant> candidates) {
        for (int from = 0; from < candidates.size(); from += BATCH_SIZE) {
            List<HeldGrant> batch = candidates.subList(from, Math.min(candidates.size(), from + BATCH_SIZE));
            List<Grant> grants = batch.stream().map(HeldGrant::grant).toList();
            long sent = System.nanoTime();
            Map<Grant, Loss> gone;
            try {
                gone = engine.renew(grants);
            } catch (RuntimeException ex) {
                log.warn(
                        "bizlock could not renew {} lease(s) of {} locks; retrying until their leases end: {}",
                        batch.size(),
                        engine.mode(),
                        ex.toString());
                for (HeldGrant held : batch) {
                    held.renewalFailed(ex.toString(), sent + Math.min(held.renewalIntervalNanos() / 3, 1_000_000_000L));
                }
                observer.renewalFailed(engine.mode(), batch.size());
                continue;
            }
            int renewed = 0;
            for (HeldGrant held : batch) {
                Loss loss = gone.get(held.grant());
                if (loss != null) {
                    lost(held, loss);
                } else {
                    held.renewed(sent);
                    renewed++;
                }
            }
            if (renewed > 0) {
                observer.renewed(engine.mode(), renewed);
            }
        }
    }

    private void lost(HeldGrant held, Loss loss) {
        watched.remove(held);
        lostHandler.accept(held, loss);
        if (!held.isReleased()) {
            lostUnreleased.add(held); // its holder still has to unlock it, and may end first
        }
    }
}
