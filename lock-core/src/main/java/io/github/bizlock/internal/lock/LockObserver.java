package io.github.bizlock.internal.lock;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Told what a {@link LockManager} does, for metrics and tracing. Every method has an empty default; an implementation
 * overrides what it needs. Called on the thread that does the work (the acquiring or unlocking thread, the watchdog,
 * housekeeping): keep it short and never block. What an observer throws is logged and otherwise ignored.
 */
public interface LockObserver {

    /** Observes nothing. */
    LockObserver NONE = new LockObserver() {};

    /** How an acquisition ended. */
    enum Outcome {
        /** The lock was acquired (or re-entered). */
        ACQUIRED,
        /** The lock was held elsewhere until the wait ended. */
        TIMED_OUT,
        /** The acquisition failed: interrupted, a database error, or a lock that was lost before it was re-entered. */
        FAILED
    }

    /** One acquisition in progress, ended by {@link #finished}. */
    @FunctionalInterface
    interface Acquisition {

        /** Ignores the end of the acquisition. */
        Acquisition NONE = (outcome, waitNanos) -> {};

        /**
         * The acquisition ended, on the thread that started it.
         *
         * @param waitNanos how long it took, waiting included
         */
        void finished(Outcome outcome, long waitNanos);
    }

    /** A thread starts to acquire a lock; the returned acquisition is told how it ended, on the same thread. */
    default Acquisition acquisitionStarted(LockKey key, LockMode mode) {
        return Acquisition.NONE;
    }

    /**
     * A lock was released by its holder (the last of its reentrant holds), lost or not.
     *
     * @param holdNanos how long it was held, from its acquisition to its release
     */
    default void released(LockKey key, LockMode mode, long holdNanos) {}

    /**
     * A holder's release passed the database grant to another thread of this process that waited for the lock, with
     * no round trip; reported after {@link #released}.
     */
    default void handedOver(LockKey key, LockMode mode) {}

    /** The watchdog renewed {@code count} grants of one mode: extended their leases, or heard from their sessions. */
    default void renewed(LockMode mode, int count) {}

    /** The watchdog could not renew {@code count} grants of one mode (the database did not answer); it retries. */
    default void renewalFailed(LockMode mode, int count) {}

    /**
     * A held lock was lost; reported once per acquisition, at once on the thread that found the loss (the watchdog's
     * or the unlocking one), before the {@link io.github.bizlock.LockLostListener}s are told on a thread of their own.
     */
    default void lost(LockLostEvent event) {}

    /** Housekeeping deleted {@code rows} rows of locks that had been free for longer than the retention. */
    default void purged(int rows) {}

    /**
     * This process learned what {@code name} is bound to (plain locks, or a semaphore of a number of permits): once per
     * name, before the first acquisition of it is reported finished and before any of its releases or losses.
     */
    default void bound(String name, Binding binding) {}

    /** One observer that tells each of the given ones, in order, and logs and ignores what they throw. */
    static LockObserver composite(List<? extends LockObserver> observers) {
        return new CompositeLockObserver(List.copyOf(observers));
    }
}

/** Tells several observers; a failing observer never fails the lock operation it observes. */
final class CompositeLockObserver implements LockObserver {

    private static final Logger log = LoggerFactory.getLogger(LockObserver.class);

    private final List<LockObserver> observers;

    CompositeLockObserver(List<LockObserver> observers) {
        this.observers = observers;
    }

    @Override
    public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
        if (observers.isEmpty()) {
            return Acquisition.NONE;
        }
        Acquisition[] started = new Acquisition[observers.size()];
        for (int i = 0; i < started.length; i++) {
            LockObserver observer = observers.get(i);
            try {
                started[i] = observer.acquisitionStarted(key, mode);
            } catch (RuntimeException ex) {
                failed(observer, ex);
                started[i] = Acquisition.NONE;
            }
        }
        return (outcome, waitNanos) -> {
            for (Acquisition acquisition : started) {
                try {
                    acquisition.finished(outcome, waitNanos);
                } catch (RuntimeException ex) {
                    failed(acquisition, ex);
                }
            }
        };
    }

    @Override
    public void released(LockKey key, LockMode mode, long holdNanos) {
        each(observer -> observer.released(key, mode, holdNanos));
    }

    @Override
    public void handedOver(LockKey key, LockMode mode) {
        each(observer -> observer.handedOver(key, mode));
    }

    @Override
    public void renewed(LockMode mode, int count) {
        each(observer -> observer.renewed(mode, count));
    }

    @Override
    public void renewalFailed(LockMode mode, int count) {
        each(observer -> observer.renewalFailed(mode, count));
    }

    @Override
    public void lost(LockLostEvent event) {
        each(observer -> observer.lost(event));
    }

    @Override
    public void purged(int rows) {
        each(observer -> observer.purged(rows));
    }

    @Override
    public void bound(String name, Binding binding) {
        each(observer -> observer.bound(name, binding));
    }

    private void each(java.util.function.Consumer<LockObserver> call) {
        for (LockObserver observer : observers) {
            try {
                call.accept(observer);
            } catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    private static void failed(Object observer, RuntimeException ex) {
        log.warn("bizlock lock observer {} failed; the lock operation went on", observer, ex);
    }
}
