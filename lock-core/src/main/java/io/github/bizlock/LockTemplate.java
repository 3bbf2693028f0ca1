package io.github.bizlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * Runs code under a distributed lock, or hands out lock handles.
 *
 * <pre>{@code
 * Receipt receipt = lockTemplate.execute("order", order.id(), () -> submit(order));
 *
 * LockResult<Void> run = lockTemplate.tryExecute("report", "daily", Duration.ZERO, () -> { build(); return null; });
 *
 * try (LockHandle lock = lockTemplate.acquire("stock", sku)) { ... }
 *
 * lockTemplate.executeAll("account", List.of(from, to), () -> transfer(from, to, amount));
 *
 * lockTemplate.executeWithPermit("export", tenant, 4, () -> runExport(tenant));
 * }</pre>
 *
 * <p>A lock is identified by a name (what kind of thing) and a key (which one). Waiting, lease and mode come from the
 * template's defaults (in Spring Boot: {@code bizlock.wait-time}, {@code bizlock.lease-time}, {@code bizlock.mode})
 * unless a {@link LockOptions} says otherwise. Spring Boot's auto-configuration provides one; without Spring Boot,
 * {@code io.github.bizlock.service.LockService} builds one.
 */
public interface LockTemplate extends MultiLockOperations, PermitOperations {

    /**
     * Runs the action holding the lock, waiting up to the default wait time for it.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     * @throws LockLostException if the lease was lost while the action ran (the action's result is lost too)
     * @throws E what the action throws
     */
    default <T extends @Nullable Object, E extends Throwable> T execute(
            String name, String key, LockedAction<T, E> action) throws E {
        return execute(name, key, LockOptions.defaults(), action);
    }

    /** Runs the action holding the lock, with the given options; see {@link #execute(String, String, LockedAction)}. */
    default <T extends @Nullable Object, E extends Throwable> T execute(
            String name, String key, LockOptions options, LockedAction<T, E> action) throws E {
        try (LockHandle ignored = acquire(name, key, options)) {
            return action.run();
        }
    }

    /**
     * Runs the action if the lock can be acquired within {@code waitTime}; otherwise does nothing.
     *
     * @return whether the action ran, and its result
     * @throws LockAcquisitionException if waiting was interrupted
     */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecute(
            String name, String key, Duration waitTime, LockedAction<T, E> action) throws E {
        return tryExecute(name, key, LockOptions.defaults().waitTime(waitTime), action);
    }

    /** Runs the action if the lock can be acquired with the given options; otherwise does nothing. */
    default <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecute(
            String name, String key, LockOptions options, LockedAction<T, E> action) throws E {
        Optional<LockHandle> lock = tryAcquire(name, key, options);
        if (lock.isEmpty()) {
            return LockResult.notExecuted();
        }
        try (LockHandle ignored = lock.get()) {
            return LockResult.executed(action.run());
        }
    }

    /**
     * Acquires the lock, waiting up to the default wait time.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     */
    default LockHandle acquire(String name, String key) {
        return acquire(name, key, LockOptions.defaults());
    }

    /**
     * Acquires the lock with the given options.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     */
    LockHandle acquire(String name, String key, LockOptions options);

    /**
     * Acquires the lock if it becomes free within {@code waitTime}.
     *
     * @return the handle, or empty if the lock was held elsewhere throughout
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    default Optional<LockHandle> tryAcquire(String name, String key, Duration waitTime) {
        return tryAcquire(name, key, LockOptions.defaults().waitTime(waitTime));
    }

    /**
     * Acquires the lock if it becomes free within the options' wait time.
     *
     * @return the handle, or empty if the lock was held elsewhere throughout
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    Optional<LockHandle> tryAcquire(String name, String key, LockOptions options);

    /**
     * The lock as a {@link Lock}, for code written against the JDK interface. {@link Lock#lock()} waits without limit;
     * {@link Lock#unlock()} releases this thread's latest hold. Conditions are not supported.
     */
    default Lock asLock(String name, String key) {
        return asLock(name, key, LockOptions.defaults());
    }

    /** The lock as a {@link Lock}, taken with the given mode and lease (its wait time is ignored). */
    Lock asLock(String name, String key, LockOptions options);

    /** The lost-lock policy the options resolve to: theirs, else the template's default. */
    LockLostPolicy onLost(LockOptions options);

    /** The owner id this process writes for its locks: unique per process ({@code host:pid:random} by default). */
    String instanceId();
}
