package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.Loss;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports lost grants: builds the {@link LockLostEvent}, logs it, interrupts the holder under
 * {@link LockLostPolicy#INTERRUPT}, and tells the observer and the {@link LockLostListener}s.
 */
final class LossReporter {

    // Under the manager's category: users configure logging for the class they use, not for its parts.
    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private final List<LockLostListener> listeners = new CopyOnWriteArrayList<>();
    private final LockObserver observer;

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
        for (LockLostListener listener : listeners) {
            try {
                listener.onLockLost(event);
            } catch (RuntimeException ex) {
                log.error("LockLostListener {} failed", listener, ex);
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
