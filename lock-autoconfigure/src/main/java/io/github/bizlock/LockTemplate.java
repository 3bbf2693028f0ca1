package io.github.bizlock;

import io.github.bizlock.core.LockKey;
import io.github.bizlock.core.LockManager;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
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
 * }</pre>
 *
 * <p>A lock is identified by a name (what kind of thing) and a key (which one). Waiting, lease and mode come from the
 * defaults given at construction (in Spring Boot: {@code bizlock.wait-time}, {@code bizlock.lease-time},
 * {@code bizlock.mode}) unless a {@link LockOptions} says otherwise.
 */
public class LockTemplate {

    private final LockManager manager;
    private final LockMode defaultMode;
    private final Duration defaultWaitTime;
    private final @Nullable Duration defaultLeaseTime;
    private final LockLostPolicy defaultOnLost;

    /**
     * @param manager the lock manager
     * @param defaultMode the mode of locks whose options name none
     * @param defaultWaitTime how long {@link #execute} and {@link #acquire} wait by default
     * @param defaultLeaseTime the fixed lease by default, or {@code null} to have the watchdog renew leases
     */
    public LockTemplate(
            LockManager manager, LockMode defaultMode, Duration defaultWaitTime, @Nullable Duration defaultLeaseTime) {
        this(manager, defaultMode, defaultWaitTime, defaultLeaseTime, LockLostPolicy.LOG);
    }

    /**
     * @param manager the lock manager
     * @param defaultMode the mode of locks whose options name none
     * @param defaultWaitTime how long {@link #execute} and {@link #acquire} wait by default
     * @param defaultLeaseTime the fixed lease by default, or {@code null} to have the watchdog renew leases
     * @param defaultOnLost what happens to the work under a lock that is lost, when its options do not say
     */
    public LockTemplate(
            LockManager manager,
            LockMode defaultMode,
            Duration defaultWaitTime,
            @Nullable Duration defaultLeaseTime,
            LockLostPolicy defaultOnLost) {
        this.defaultOnLost = Objects.requireNonNull(defaultOnLost, "defaultOnLost");
        this.manager = Objects.requireNonNull(manager, "manager");
        this.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
        this.defaultWaitTime = LockOptions.requireNotNegative(defaultWaitTime, "defaultWaitTime");
        if (defaultLeaseTime != null) {
            LockOptions.defaults().leaseTime(defaultLeaseTime);
        }
        this.defaultLeaseTime = defaultLeaseTime;
    }

    /**
     * Runs the action holding the lock, waiting up to the default wait time for it.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     * @throws LockLostException if the lease was lost while the action ran (the action's result is lost too)
     * @throws E what the action throws
     */
    public <T extends @Nullable Object, E extends Throwable> T execute(
            String name, String key, LockedAction<T, E> action) throws E {
        return execute(name, key, LockOptions.defaults(), action);
    }

    /** Runs the action holding the lock, with the given options; see {@link #execute(String, String, LockedAction)}. */
    public <T extends @Nullable Object, E extends Throwable> T execute(
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
    public <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecute(
            String name, String key, Duration waitTime, LockedAction<T, E> action) throws E {
        return tryExecute(name, key, LockOptions.defaults().waitTime(waitTime), action);
    }

    /** Runs the action if the lock can be acquired with the given options; otherwise does nothing. */
    public <T extends @Nullable Object, E extends Throwable> LockResult<T> tryExecute(
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
    public LockHandle acquire(String name, String key) {
        return acquire(name, key, LockOptions.defaults());
    }

    /**
     * Acquires the lock with the given options.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     */
    public LockHandle acquire(String name, String key, LockOptions options) {
        Duration wait = waitTime(options);
        return tryAcquire(name, key, options)
                .orElseThrow(() -> new LockAcquisitionException(
                        name,
                        key,
                        "Lock " + name + "/" + key + " (" + mode(options) + ") is held elsewhere and was not acquired"
                                + " within " + wait,
                        null));
    }

    /**
     * Acquires the lock if it becomes free within {@code waitTime}.
     *
     * @return the handle, or empty if the lock was held elsewhere throughout
     * @throws LockAcquisitionException if waiting was interrupted (the interrupt flag stays set)
     */
    public Optional<LockHandle> tryAcquire(String name, String key, Duration waitTime) {
        return tryAcquire(name, key, LockOptions.defaults().waitTime(waitTime));
    }

    /** Acquires the lock if it becomes free within the options' wait time. */
    public Optional<LockHandle> tryAcquire(String name, String key, LockOptions options) {
        LockKey lockKey = new LockKey(name, key);
        try {
            return manager.tryAcquire(lockKey, mode(options), waitTime(options), leaseTime(options), onLost(options));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(
                    name, key, "Interrupted while waiting for lock " + lockKey + "; nothing is held", ex);
        }
    }

    /**
     * The lock as a {@link Lock}, for code written against the JDK interface. {@link Lock#lock()} waits without limit;
     * {@link Lock#unlock()} releases this thread's latest hold. Conditions are not supported.
     */
    public Lock asLock(String name, String key) {
        return asLock(name, key, LockOptions.defaults());
    }

    /** The lock as a {@link Lock}, taken with the given mode and lease (its wait time is ignored). */
    public Lock asLock(String name, String key, LockOptions options) {
        return new JdkLockView(new LockKey(name, key), mode(options), leaseTime(options), onLost(options));
    }

    /** The lock manager behind this template. */
    public LockManager manager() {
        return manager;
    }

    /** The lost-lock policy the options resolve to: theirs, else the template's default. */
    public LockLostPolicy onLost(LockOptions options) {
        LockLostPolicy onLost = options.onLost();
        return onLost != null ? onLost : defaultOnLost;
    }

    private LockMode mode(LockOptions options) {
        LockMode mode = options.mode();
        return mode != null ? mode : defaultMode;
    }

    private Duration waitTime(LockOptions options) {
        Duration wait = options.waitTime();
        return wait != null ? wait : defaultWaitTime;
    }

    private @Nullable Duration leaseTime(LockOptions options) {
        Duration lease = options.leaseTime();
        return lease != null ? lease : defaultLeaseTime;
    }

    private final class JdkLockView implements Lock {

        private static final Duration FOREVER = Duration.ofDays(365L * 1000);

        private final LockKey key;
        private final LockMode mode;
        private final @Nullable Duration lease;
        private final LockLostPolicy onLost;
        private final ThreadLocal<Deque<LockHandle>> holds = ThreadLocal.withInitial(ArrayDeque::new);

        JdkLockView(LockKey key, LockMode mode, @Nullable Duration lease, LockLostPolicy onLost) {
            this.key = key;
            this.mode = mode;
            this.lease = lease;
            this.onLost = onLost;
        }

        @Override
        public void lock() {
            boolean interrupted = false;
            while (true) {
                try {
                    lockInterruptibly();
                    break;
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (!tryLock(FOREVER)) {
                throw new LockAcquisitionException(key.name(), key.key(), "Lock " + key + " was not acquired", null);
            }
        }

        @Override
        public boolean tryLock() {
            try {
                return tryLock(Duration.ZERO);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
        }

        private boolean tryLock(Duration wait) throws InterruptedException {
            Optional<LockHandle> handle = manager.tryAcquire(key, mode, wait, lease, onLost);
            handle.ifPresent(holds.get()::push);
            return handle.isPresent();
        }

        @Override
        public void unlock() {
            Deque<LockHandle> mine = holds.get();
            LockHandle handle = mine.poll();
            if (handle == null) {
                throw new IllegalMonitorStateException("Lock " + key + " is not held by thread "
                        + Thread.currentThread().getName());
            }
            if (mine.isEmpty()) {
                holds.remove();
            }
            handle.unlock();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException(
                    "Distributed locks do not support conditions; poll the protected state instead");
        }
    }
}
