package io.github.bizlock.service;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;

/**
 * Told what a {@link LockService} does, for metrics and tracing; given to {@link LockService.Builder#observer}. Every
 * method has an empty default. Called on the thread that does the work (the acquiring or unlocking thread, the
 * watchdog, housekeeping): keep it short and never block. What an observer throws is logged and otherwise ignored.
 */
public interface LockObserver {

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

    /** A thread starts to acquire lock {@code name}/{@code key}; the acquisition returned is told how it ended. */
    default Acquisition acquisitionStarted(String name, String key, LockMode mode) {
        return Acquisition.NONE;
    }

    /**
     * A lock was released by its holder (the last of its reentrant holds), lost or not.
     *
     * @param holdNanos how long it was held, from its acquisition to its release
     */
    default void released(String name, String key, LockMode mode, long holdNanos) {}

    /** A release passed the lock to another thread of this process that waited for it, with no round trip. */
    default void handedOver(String name, String key, LockMode mode) {}

    /** The watchdog renewed {@code count} locks of one mode: extended their leases, or heard from their sessions. */
    default void renewed(LockMode mode, int count) {}

    /** The watchdog could not renew {@code count} locks of one mode (the database did not answer); it retries. */
    default void renewalFailed(LockMode mode, int count) {}

    /** A held lock was lost; told once per acquisition, before the {@link io.github.bizlock.LockLostListener}s. */
    default void lost(LockLostEvent event) {}

    /** Housekeeping deleted {@code rows} rows of locks that had been free for longer than the retention. */
    default void purged(int rows) {}

    /**
     * This process learned what lock name {@code name} is: told once per name, before the first acquisition of it is
     * told {@link Acquisition#finished} and before any of its releases or losses. A semaphore's permits are locks of its
     * name whose keys are {@code key#slot}.
     *
     * @param permits the number of permits of the semaphore the name is bound to, or 0 for a name of plain locks
     */
    default void nameBound(String name, LockMode mode, int permits) {}
}
