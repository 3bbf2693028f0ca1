package io.github.bizlock;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The semaphore operations of {@link LockTemplate}: at most N holders of ({@code name}, {@code key}), each permit with
 * its own lease, watchdog and fencing token.
 */
public interface PermitOperations {

    /**
     * Runs the action holding one permit of the semaphore ({@code name}, {@code key}) of {@code permits} permits,
     * waiting up to the default wait time for it; see {@link #acquirePermit(String, String, int, LockOptions)}.
     *
     * <pre>{@code
     * lockTemplate.executeWithPermit("export", tenant, 4, () -> runExport(tenant));   // at most 4 exports at once
     * }</pre>
     *
     * @throws LockAcquisitionException if no permit was acquired in time, or waiting was interrupted
     * @throws LockLostException if the permit was lost while the action ran
     * @throws E what the action throws
     */
    default <T extends @Nullable Object, E extends Throwable> T executeWithPermit(
            String name, String key, int permits, LockedAction<T, E> action) throws E {
        return executeWithPermit(name, key, permits, LockOptions.defaults(), action);
    }

    /** Runs the action holding one permit, with the given options; see {@link #executeWithPermit}. */
    default <T extends @Nullable Object, E extends Throwable> T executeWithPermit(
            String name, String key, int permits, LockOptions options, LockedAction<T, E> action) throws E {
        try (PermitHandle ignored = acquirePermit(name, key, permits, options)) {
            return action.run();
        }
    }

    /**
     * Runs the action if a permit can be acquired within {@code waitTime}; otherwise does nothing.
     *
     * @return whether the action ran, and its result
     * @throws LockAcquisitionException if waiting was interrupted
     */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecuteWithPermit(
            String name, String key, int permits, Duration waitTime, LockedAction<T, E> action) throws E {
        return tryExecuteWithPermit(name, key, permits, LockOptions.defaults().waitTime(waitTime), action);
    }

    /** Runs the action if a permit can be acquired with the given options; otherwise does nothing. */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecuteWithPermit(
            String name, String key, int permits, LockOptions options, LockedAction<T, E> action) throws E {
        Optional<PermitHandle> permit = tryAcquirePermit(name, key, permits, options);
        if (permit.isEmpty()) {
            return LockResult.notExecuted();
        }
        try (PermitHandle ignored = permit.get()) {
            return LockResult.executed(action.run());
        }
    }

    /**
     * Acquires one permit of the semaphore, waiting up to the default wait time; see
     * {@link #acquirePermit(String, String, int, LockOptions)}.
     *
     * @throws LockAcquisitionException if no permit was acquired in time, or waiting was interrupted
     */
    default PermitHandle acquirePermit(String name, String key, int permits) {
        return acquirePermit(name, key, permits, LockOptions.defaults());
    }

    /**
     * Acquires one permit of the semaphore ({@code name}, {@code key}), which lets at most {@code permits} holders in
     * at once, across every process on the lock database. Each permit is a slot held like a lock of its own: its own
     * lease renewed by the watchdog (or the options' fixed lease), its own fencing token, strictly increasing per slot,
     * and the lost-lock policy; a crashed holder's permit comes back when its lease ends (LEASE) or its session does
     * (ROW, NAMED). Waiting polls the slots until the options' wait time ends, and prefers no waiter. Permits are not
     * reentrant: a thread that asks again takes another permit.
     *
     * <p>The first use of a name binds it, for every instance, to its mode and its number of permits; a call with
     * another number, or a plain lock of that name, is refused, as a call in another mode is.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1 or above {@link PermitHandle#MAX_PERMITS}, or the
     *     name or key is invalid; nothing is held then
     * @throws PermitsConflictException if the name is bound to another number of permits, or to plain locks
     * @throws LockModeConflictException if the name is bound to another mode
     * @throws IllegalStateException if this thread holds every permit of the semaphore already
     * @throws LockAcquisitionException if no permit was acquired in time, or waiting was interrupted
     */
    PermitHandle acquirePermit(String name, String key, int permits, LockOptions options);

    /**
     * Acquires one permit of the semaphore if one becomes free within {@code waitTime}; see
     * {@link #acquirePermit(String, String, int, LockOptions)}.
     *
     * @return the permit, or empty if all were held elsewhere throughout the wait
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    default Optional<PermitHandle> tryAcquirePermit(String name, String key, int permits, Duration waitTime) {
        return tryAcquirePermit(name, key, permits, LockOptions.defaults().waitTime(waitTime));
    }

    /**
     * Acquires one permit of the semaphore if one becomes free within the options' wait time; see
     * {@link #acquirePermit(String, String, int, LockOptions)}.
     *
     * @return the permit, or empty if all were held elsewhere throughout the wait
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    Optional<PermitHandle> tryAcquirePermit(String name, String key, int permits, LockOptions options);
}
