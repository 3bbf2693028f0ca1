package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LockManager}'s shutdown: refuses new acquisitions once begun, gives holders their grace period, then
 * reports the locks still held lost and releases them, and stops the releaser, the engines and the loss reporter.
 */
final class Shutdown {

    // Under the manager's name: the shutdown is the manager's, and that is the logger operators configure and read.
    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private final Gates gates;
    private final Watchdog watchdog;
    private final Releaser releaser;
    private final Collection<LockEngine> engines;
    private final LossReporter losses;
    private volatile boolean begun;
    private boolean ran; // guarded by this

    Shutdown(Gates gates, Watchdog watchdog, Releaser releaser, Collection<LockEngine> engines, LossReporter losses) {
        this.gates = gates;
        this.watchdog = watchdog;
        this.releaser = releaser;
        this.engines = List.copyOf(engines);
        this.losses = losses;
    }

    void refuseIfBegun(LockKey key) {
        if (begun) {
            throw new LockAcquisitionException(
                    key.name(),
                    key.key(),
                    "Lock " + key.name() + "/" + key.key() + " was not acquired: bizlock is shutting down (the"
                            + " application is stopping), and takes no new locks",
                    null);
        }
    }

    /**
     * Gives back a lock granted while the shutdown began, which nobody would renew, and refuses it like a new one.
     *
     * @throws LockAcquisitionException if the shutdown has begun
     */
    void refuseIfGrantedDuring(Optional<LockHandle> handle, LockKey key) {
        if (handle.isPresent() && begun) {
            try {
                handle.get().unlock();
            } catch (RuntimeException ex) {
                log.debug("bizlock gave back lock {} granted during the shutdown", key, ex);
            }
            refuseIfBegun(key);
        }
    }

    /** Runs the shutdown ({@link LockManager#shutdown(Duration)} says what it does); only the first call does anything. */
    void run(Duration grace) {
        synchronized (this) {
            if (ran) {
                return;
            }
            ran = true;
        }
        begun = true;
        awaitUnlocks(grace);
        releaseStillHeld(grace);
        releaser.close();
        for (LockEngine engine : engines) {
            if (engine instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception ex) {
                    log.warn("bizlock could not close the {} engine", engine.mode(), ex);
                }
            }
        }
        losses.close();
    }

    /** Waits up to {@code grace} for the holders to unlock. */
    private void awaitUnlocks(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            while (gates.heldCount() > 0 && deadline - System.nanoTime() > 0) {
                Thread.sleep(10);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt(); // stop waiting; the rest is released now
        }
    }

    /** Tells the holders of the locks still held that they lost them, and releases those locks in the database. */
    private void releaseStillHeld(Duration grace) {
        List<HeldGrant> stillHeld = watchdog.stop();
        if (stillHeld.isEmpty()) {
            return;
        }
        Loss loss = new Loss(
                LossCause.SHUTDOWN,
                "bizlock shut down before its holder unlocked it (grace period " + grace + "), and released it so that"
                        + " other instances need not wait for its lease or session to end");
        Map<LockEngine, List<Grant>> toRelease = new LinkedHashMap<>();
        for (HeldGrant held : stillHeld) {
            losses.reportLost(held, loss);
            if (held.giveBackAtShutdown()) {
                toRelease
                        .computeIfAbsent(held.engine(), engine -> new ArrayList<>())
                        .add(held.grant());
            }
        }
        log.warn(
                "bizlock is shutting down with {} lock(s) still held after {}: releasing them",
                stillHeld.size(),
                grace);
        toRelease.forEach((engine, grants) -> {
            try {
                engine.releaseAll(grants);
            } catch (RuntimeException ex) {
                log.warn(
                        "bizlock could not release {} {} lock(s) at shutdown; they free when their leases or sessions"
                                + " end",
                        grants.size(),
                        engine.mode(),
                        ex);
            }
        });
    }
}
