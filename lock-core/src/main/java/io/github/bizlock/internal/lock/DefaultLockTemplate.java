package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/** The {@link LockTemplate} of a {@link LockManager}, with the defaults for what a call's options leave unset. */
public final class DefaultLockTemplate implements LockTemplate {

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
    public DefaultLockTemplate(
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
    public DefaultLockTemplate(
            LockManager manager,
            LockMode defaultMode,
            Duration defaultWaitTime,
            @Nullable Duration defaultLeaseTime,
            LockLostPolicy defaultOnLost) {
        this.defaultOnLost = Objects.requireNonNull(defaultOnLost, "defaultOnLost");
        this.manager = Objects.requireNonNull(manager, "manager");
        this.defaultMode = Objects.requireNonNull(defaultMode, "defaultMode");
        this.defaultWaitTime = Objects.requireNonNull(
                LockOptions.defaults().waitTime(defaultWaitTime).waitTime(), "defaultWaitTime");
        if (defaultLeaseTime != null) {
            LockOptions.defaults().leaseTime(defaultLeaseTime);
        }
        this.defaultLeaseTime = defaultLeaseTime;
    }

    /**
     * Acquires the lock with the given options.
     *
     * @throws LockAcquisitionException if the lock was not acquired in time, or waiting was interrupted
     */
    @Override
    public LockHandle acquire(String name, String key, LockOptions options) {
        Duration wait = waitTime(options);
        return tryAcquire(name, key, options)
                .orElseThrow(() -> new LockAcquisitionException(
                        name,
                        key,
                        "Lock " + name + "/" + key + " (" + mode(options) + access(options)
                                + ") is held elsewhere and was"
                                + " not acquired"
                                + " within " + wait,
                        null));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, String key, LockOptions options) {
        LockKey lockKey = new LockKey(name, key);
        try {
            return manager.tryAcquire(
                    lockKey, mode(options), options.access(), waitTime(options), leaseTime(options), onLost(options));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(
                    name, key, "Interrupted while waiting for lock " + lockKey + "; nothing is held", ex);
        }
    }

    @Override
    public MultiLockHandle acquireAll(String name, Collection<String> keys, LockOptions options) {
        List<LockKey> ordered = MultiKeyLocks.ordered(name, keys);
        MultiKeyLocks.Attempt attempt = tryAcquireAll(ordered, options);
        MultiLockHandle handle = attempt.handle();
        if (handle == null) {
            LockKey busy = Objects.requireNonNull(attempt.busy());
            throw new LockAcquisitionException(
                    name,
                    busy.key(),
                    "Locks " + name + "/" + keyList(ordered) + " (" + mode(options) + ") were not all acquired within "
                            + waitTime(options) + ": " + busy + " is held elsewhere; none of them is held",
                    null);
        }
        return handle;
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(String name, Collection<String> keys, LockOptions options) {
        return Optional.ofNullable(
                tryAcquireAll(MultiKeyLocks.ordered(name, keys), options).handle());
    }

    private MultiKeyLocks.Attempt tryAcquireAll(List<LockKey> keys, LockOptions options) {
        if (options.access() != LockAccess.WRITE) {
            throw new IllegalArgumentException("Locks of several keys are taken as write locks only, and the options"
                    + " ask for " + options.access() + ": take each key's read lock with acquire(name, key, options),"
                    + " in the keys' sorted order, or drop access(READ)");
        }
        try {
            return MultiKeyLocks.tryAcquire(
                    manager, keys, mode(options), waitTime(options), leaseTime(options), onLost(options));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            String name = keys.get(0).name();
            throw new LockAcquisitionException(
                    name,
                    keys.get(0).key(),
                    "Interrupted while waiting for locks " + name + "/" + keyList(keys) + "; none of them is held",
                    ex);
        }
    }

    @Override
    public PermitHandle acquirePermit(String name, String key, int permits, LockOptions options) {
        return tryAcquirePermit(name, key, permits, options)
                .orElseThrow(() -> new LockAcquisitionException(
                        name,
                        key,
                        "No permit of semaphore " + name + "/" + key + " (" + permits + " permits, " + mode(options)
                                + ") was acquired within " + waitTime(options) + ": all were held elsewhere",
                        null));
    }

    @Override
    public Optional<PermitHandle> tryAcquirePermit(String name, String key, int permits, LockOptions options) {
        LockKey semaphore = Permits.semaphore(name, key, permits);
        if (options.access() != LockAccess.WRITE) {
            throw new IllegalArgumentException("A permit is one holder's slot and has no read lock, and the options ask"
                    + " for " + options.access() + ": drop access(READ) to take a permit");
        }
        try {
            return Permits.tryAcquire(
                    manager, semaphore, permits, mode(options), waitTime(options), leaseTime(options), onLost(options));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(
                    name, key, "Interrupted while waiting for a permit of " + semaphore + "; nothing is held", ex);
        }
    }

    private static String keyList(List<LockKey> keys) {
        return keys.stream().map(LockKey::key).toList().toString();
    }

    @Override
    public Lock asLock(String name, String key, LockOptions options) {
        return new JdkLockView(
                new LockKey(name, key), mode(options), options.access(), leaseTime(options), onLost(options));
    }

    @Override
    public String instanceId() {
        return manager.instanceId();
    }

    @Override
    public LockLostPolicy onLost(LockOptions options) {
        LockLostPolicy onLost = options.onLost();
        return onLost != null ? onLost : defaultOnLost;
    }

    private LockMode mode(LockOptions options) {
        LockMode mode = options.mode();
        return mode != null ? mode : defaultMode;
    }

    private static String access(LockOptions options) {
        return options.access() == LockAccess.READ ? ", read" : "";
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
        private final LockAccess access;
        private final @Nullable Duration lease;
        private final LockLostPolicy onLost;
        private final ThreadLocal<Deque<LockHandle>> holds = ThreadLocal.withInitial(ArrayDeque::new);

        JdkLockView(LockKey key, LockMode mode, LockAccess access, @Nullable Duration lease, LockLostPolicy onLost) {
            this.key = key;
            this.mode = mode;
            this.access = access;
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
            Optional<LockHandle> handle = manager.tryAcquire(key, mode, access, wait, lease, onLost);
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
