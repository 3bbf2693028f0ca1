package io.github.bizlock;

import java.time.Duration;
import java.util.Collection;
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
public interface LockTemplate {

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
