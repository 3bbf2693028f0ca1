package io.github.bizlock;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The multi-key operations of {@link LockTemplate}: several keys of one name, taken all or none within one wait, in
 * one global order, so that callers locking the same keys in opposite orders never deadlock.
 */
public interface MultiLockOperations {

    /**
     * Runs the action holding the locks of all the keys, waiting up to the default wait time for all of them; see
     * {@link #acquireAll(String, Collection, LockOptions)}.
     *
     * <pre>{@code
     * lockTemplate.executeAll("account", List.of(transfer.from(), transfer.to()), () -> book(transfer));
     * }</pre>
     *
     * @throws LockAcquisitionException if the locks were not all acquired in time, or waiting was interrupted
     * @throws LockLostException if a lock was lost while the action ran
     * @throws E what the action throws
     */
    default <T extends @Nullable Object, E extends Throwable> T executeAll(
            String name, Collection<String> keys, LockedAction<T, E> action) throws E {
        return executeAll(name, keys, LockOptions.defaults(), action);
    }

    /** Runs the action holding the locks of all the keys, with the given options; see {@link #executeAll}. */
    default <T extends @Nullable Object, E extends Throwable> T executeAll(
            String name, Collection<String> keys, LockOptions options, LockedAction<T, E> action) throws E {
        try (MultiLockHandle ignored = acquireAll(name, keys, options)) {
            return action.run();
        }
    }

    /**
     * Runs the action if the locks of all the keys can be acquired within {@code waitTime}; otherwise does nothing and
     * holds none of them.
     *
     * @return whether the action ran, and its result
     * @throws LockAcquisitionException if waiting was interrupted
     */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecuteAll(
            String name, Collection<String> keys, Duration waitTime, LockedAction<T, E> action) throws E {
        return tryExecuteAll(name, keys, LockOptions.defaults().waitTime(waitTime), action);
    }

    /** Runs the action if the locks of all the keys can be acquired with the given options; otherwise does nothing. */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecuteAll(
            String name, Collection<String> keys, LockOptions options, LockedAction<T, E> action) throws E {
        Optional<MultiLockHandle> locks = tryAcquireAll(name, keys, options);
        if (locks.isEmpty()) {
            return LockResult.notExecuted();
        }
        try (MultiLockHandle ignored = locks.get()) {
            return LockResult.executed(action.run());
        }
    }

    /**
     * Acquires the locks of all the keys, waiting up to the default wait time for all of them together.
     *
     * @throws LockAcquisitionException if the locks were not all acquired in time, or waiting was interrupted; none
     *     is held then
     */
    default MultiLockHandle acquireAll(String name, Collection<String> keys) {
        return acquireAll(name, keys, LockOptions.defaults());
    }

    /**
     * Acquires the locks of several keys of one name, all or none: the keys are taken one by one in one order that
     * every process shares (the byte order of their UTF-8 text, the lock table's order), so two calls that ask for the
     * same keys in opposite orders never deadlock, and the options' wait time is one wait for all of them, not one per
     * key. If the wait ends, the thread is interrupted or a lock fails, the locks already taken are released before
     * the call returns. Each lock has its own fencing token and lease, and the lost-lock policy applies to each.
     *
     * <p>Keys given more than once are locked once. A key this thread holds already is re-entered. A call that would
     * have to wait for a key while this thread holds a lock of the same name that sorts after it fails instead, since
     * that is how lock-order deadlocks begin: take all the keys in one call.
     *
     * @throws IllegalArgumentException if {@code keys} is empty, has more than {@link MultiLockHandle#MAX_KEYS}
     *     distinct keys, or has a null or invalid key (the same rules as for one key); nothing is held then
     * @throws IllegalStateException if this thread holds a lock of the same name that sorts after a key it would wait
     *     for; nothing is taken then
     * @throws LockAcquisitionException if the locks were not all acquired in time, or waiting was interrupted; none
     *     is held then
     */
    MultiLockHandle acquireAll(String name, Collection<String> keys, LockOptions options);

    /**
     * Acquires the locks of all the keys if they all become free within {@code waitTime}; see
     * {@link #acquireAll(String, Collection, LockOptions)}.
     *
     * @return the handle, or empty (holding none of the locks) if one was held elsewhere when the wait ended
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    default Optional<MultiLockHandle> tryAcquireAll(String name, Collection<String> keys, Duration waitTime) {
        return tryAcquireAll(name, keys, LockOptions.defaults().waitTime(waitTime));
    }

    /**
     * Acquires the locks of all the keys if they all become free within the options' wait time; see
     * {@link #acquireAll(String, Collection, LockOptions)}.
     *
     * @return the handle, or empty (holding none of the locks) if one was held elsewhere when the wait ended
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    Optional<MultiLockHandle> tryAcquireAll(String name, Collection<String> keys, LockOptions options);
}
