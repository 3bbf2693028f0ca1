package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports lost grants: builds the {@link LockLostEvent}, logs it, interrupts the holder under
 * {@link LockLostPolicy#INTERRUPT}, and tells the observer and the {@link LockLostListener}s.
 *
 * <p>The log, the interrupt and the observer (metrics, which must not block) happen at once on the thread that found
 * the loss: the watchdog's, or the unlocking one. Listeners, among them Spring's {@code publishEvent} for
 * {@code @EventListener}s, run user code that may block; they are told on a thread of their own, one loss at a time in
 * the order the losses were found, so a slow listener delays later notifications but never a renewal or an unlock.
 * Its queue is unbounded: a notification is never dropped while the manager runs, and there is at most one per lost
 * acquisition.
 */
final class LossReporter implements AutoCloseable {

    /** How long {@link #close()} lets listeners work through the notifications still queued. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    // Under the manager's category: users configure logging for the class they use, not for its parts.
    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private final List<LockLostListener> listeners = new CopyOnWriteArrayList<>();
    private final LockObserver observer;
    private final ExecutorService notifier = new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), DaemonThreads.named("bizlock-lost-listeners"));

    LossReporter(LockObserver observer) {
        this.observer = observer;
    }

    void addListener(LockLostListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** A loss the watchdog found; reported to the hold that had the grant, if any. */
    void reportLost(HeldGrant held, Loss loss) {
        Hold hold = held.markLostByWatchdog(loss);
        if (hold != null) {
            notifyLost(hold, loss);
        } else if (held.loss() == loss) {
            // Recorded by this call for a read grant, which no single hold has: each thread sharing it is told.
            held.sharers().forEach(reader -> notifyLost(reader, loss));
        }
    }

    void notifyLost(Hold hold, Loss loss) {
        HeldGrant held = hold.heldGrant;
        LockLostEvent event = event(hold, loss);
        log.warn(
                "bizlock lost lock {} ({}, fencing token {}) held by thread {}, {}: {}",
                held.grant().key(),
                event.mode(),
                event.fencingToken(),
                event.holderThread(),
                event.cause(),
                event.reason());
        if (hold.onLost == LockLostPolicy.INTERRUPT && held.interruptHolderIfStillHolding(hold)) {
            log.warn("bizlock interrupted thread {}, which held the lost lock {}", event.holderThread(), event.key());
        }
        observer.lost(event);
        if (listeners.isEmpty()) {
            return;
        }
        try {
            notifier.execute(new Notification(event));
        } catch (RejectedExecutionException ex) {
            log.warn(
                    "bizlock is closed: LockLostListeners are not told that lock {}/{} was lost",
                    event.name(),
                    event.key());
        }
    }

    /**
     * Stops telling listeners, after they had {@link #CLOSE_GRACE} to work through the notifications queued before;
     * the ones still queued then are logged, never dropped silently.
     */
    @Override
    public void close() {
        notifier.shutdown();
        boolean finished;
        try {
            finished = notifier.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            List<Runnable> untold = notifier.shutdownNow(); // interrupts the listener that still runs
            log.warn(
                    "bizlock closed while LockLostListeners were still busy after {}; they were not told of {}",
                    CLOSE_GRACE,
                    untold.stream()
                            .map(notification -> ((Notification) notification).event)
                            .map(event ->
                                    event.name() + "/" + event.key() + " (fencing token " + event.fencingToken() + ")")
                            .toList());
        }
    }

    /** Tells every listener of one loss; a failing listener neither stops the others nor later notifications. */
    private final class Notification implements Runnable {

        private final LockLostEvent event;

        Notification(LockLostEvent event) {
            this.event = event;
        }

        @Override
        public void run() {
            for (LockLostListener listener : listeners) {
                try {
                    listener.onLockLost(event);
                } catch (RuntimeException ex) {
                    log.error("LockLostListener {} failed", listener, ex);
                }
            }
        }
    }

    /** What a holder of a lost grant is thrown. */
    LockLostException lostException(Hold hold) {
        HeldGrant held = hold.heldGrant;
        Loss loss = held.loss();
        return new LockLostException(event(hold, loss != null ? loss : held.expiryLoss()));
    }

    private LockLostEvent event(Hold hold, Loss loss) {
        Grant grant = hold.heldGrant.grant();
        return new LockLostEvent(
                grant.key().name(),
                grant.key().key(),
                hold.heldGrant.engine().mode(),
                hold.token(),
                grant.owner(),
                hold.thread.getName(),
                loss.cause(),
                loss.reason(),
                Instant.now());
    }
}
