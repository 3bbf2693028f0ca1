package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * The application's {@link LockTemplate}: the lock service's template, taken when the first lock finds the service
 * built ({@link LockDatabaseStartup}). While the lock database has not answered, every lock fails with a
 * {@link LockAcquisitionException} that says why: at once, or, for a lock that waits, when its wait time ends without
 * the database answering; a database that answers within it gives the lock, waited for in what is left of it. What
 * does not need the database (the instance id, the lost-lock policy, a {@link Lock} view) works before it.
 */
final class DeferredLockTemplate implements LockTemplate {

    private final LockDatabaseStartup startup;
    private final Duration defaultWaitTime;
    private final String instanceId;
    private final LockLostPolicy defaultOnLost;
    private volatile @Nullable LockTemplate template;

    /**
     * @param defaultWaitTime the wait time of locks whose options name none ({@code bizlock.wait-time})
     * @param instanceId this instance's owner id
     * @param defaultOnLost the lost-lock policy of locks whose options name none
     */
    DeferredLockTemplate(
            LockDatabaseStartup startup, Duration defaultWaitTime, String instanceId, LockLostPolicy defaultOnLost) {
        this.startup = startup;
        this.defaultWaitTime = defaultWaitTime;
        this.instanceId = instanceId;
        this.defaultOnLost = defaultOnLost;
    }

    @Override
    public LockHandle acquire(String name, String key, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.acquire(name, key, options);
        }
        Wait wait = new Wait(options);
        return template(name, key, wait.deadlineNanos).acquire(name, key, wait.rest(options));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, String key, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.tryAcquire(name, key, options);
        }
        Wait wait = new Wait(options);
        return template(name, key, wait.deadlineNanos).tryAcquire(name, key, wait.rest(options));
    }

    @Override
    public MultiLockHandle acquireAll(String name, Collection<String> keys, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.acquireAll(name, keys, options);
        }
        Wait wait = new Wait(options);
        return template(name, String.valueOf(keys), wait.deadlineNanos).acquireAll(name, keys, wait.rest(options));
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(String name, Collection<String> keys, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.tryAcquireAll(name, keys, options);
        }
        Wait wait = new Wait(options);
        return template(name, String.valueOf(keys), wait.deadlineNanos).tryAcquireAll(name, keys, wait.rest(options));
    }

    @Override
    public PermitHandle acquirePermit(String name, String key, int permits, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.acquirePermit(name, key, permits, options);
        }
        Wait wait = new Wait(options);
        return template(name, key, wait.deadlineNanos).acquirePermit(name, key, permits, wait.rest(options));
    }

    @Override
    public Optional<PermitHandle> tryAcquirePermit(String name, String key, int permits, LockOptions options) {
        LockTemplate ready = template;
        if (ready != null) {
            return ready.tryAcquirePermit(name, key, permits, options);
        }
        Wait wait = new Wait(options);
        return template(name, key, wait.deadlineNanos).tryAcquirePermit(name, key, permits, wait.rest(options));
    }

    @Override
    public Lock asLock(String name, String key, LockOptions options) {
        LockTemplate ready = template;
        return ready != null ? ready.asLock(name, key, options) : new DeferredLock(name, key, options);
    }

    @Override
    public LockLostPolicy onLost(LockOptions options) {
        LockLostPolicy onLost = options.onLost();
        return onLost != null ? onLost : defaultOnLost;
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    /** The template, with the lock service built by {@code deadlineNanos} ({@link System#nanoTime()}) at most. */
    private LockTemplate template(String name, String key, long deadlineNanos) {
        LockTemplate ready = template;
        if (ready == null) {
            try {
                ready = startup.service(deadlineNanos).template();
            } catch (RuntimeException ex) {
                throw new LockAcquisitionException(name, key, LockDatabaseUnreachableException.whyNotReady(ex), ex);
            }
            template = ready;
        }
        return ready;
    }

    /** A lock's wait time, from when it was asked for: part of it may go to waiting for the lock database. */
    private final class Wait {

        private final Duration time;
        private final long startNanos = System.nanoTime();
        private final long deadlineNanos;

        Wait(LockOptions options) {
            this(options.waitTime() != null ? options.waitTime() : defaultWaitTime);
        }

        Wait(Duration time) {
            this.time = time;
            // Beyond a century, as for ever: nanoTime() arithmetic would overflow.
            long nanos = time.compareTo(Duration.ofDays(365 * 100)) > 0 ? Long.MAX_VALUE / 2 : time.toNanos();
            this.deadlineNanos = startNanos + nanos;
        }

        /** The options with the wait time left now, for the lock itself. */
        LockOptions rest(LockOptions options) {
            Duration left = time.minusNanos(System.nanoTime() - startNanos);
            return options.waitTime(left.isNegative() ? Duration.ZERO : left);
        }
    }

    /**
     * A {@link Lock} asked for before the lock database answered: the template's own view, made at its first use.
     * One view per lock, whichever thread makes it, so holds taken through it are released through it.
     */
    private final class DeferredLock implements Lock {

        private final String name;
        private final String key;
        private final LockOptions options;
        private final AtomicReference<@Nullable Lock> view = new AtomicReference<>();

        DeferredLock(String name, String key, LockOptions options) {
            this.name = name;
            this.key = key;
            this.options = options;
        }

        /** The view, with the lock service built by {@code deadlineNanos} ({@link System#nanoTime()}) at most. */
        private Lock view(long deadlineNanos) {
            Lock made = view.get();
            if (made == null) {
                view.compareAndSet(null, template(name, key, deadlineNanos).asLock(name, key, options));
                made = view.get();
            }
            return made;
        }

        private Lock view() {
            return view(System.nanoTime());
        }

        @Override
        public void lock() {
            view(new Wait(options).deadlineNanos).lock();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            view(new Wait(options).deadlineNanos).lockInterruptibly();
        }

        @Override
        public boolean tryLock() {
            return view().tryLock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            long startNanos = System.nanoTime();
            long nanos = unit.toNanos(time); // saturates at Long.MAX_VALUE
            Lock ready = view(startNanos + Math.min(nanos, Long.MAX_VALUE / 2));
            return ready.tryLock(Math.max(0, nanos - (System.nanoTime() - startNanos)), TimeUnit.NANOSECONDS);
        }

        @Override
        public void unlock() {
            view().unlock();
        }

        @Override
        public Condition newCondition() {
            return view().newCondition();
        }
    }
}
