package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.lock.LockManager;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The application's {@link LockTemplate}: the lock manager's template, made when the first lock finds the lock beans
 * created ({@link LockDatabaseStartup}). While the lock database has not answered, every lock fails at once with a
 * {@link LockAcquisitionException} that says why; what does not need the database (the instance id, the lost-lock
 * policy, a {@link Lock} view) works before it.
 */
final class DeferredLockTemplate implements LockTemplate {

    private final LockDatabaseStartup startup;
    private final Function<LockManager, LockTemplate> templateOf;
    private final String instanceId;
    private final LockLostPolicy defaultOnLost;
    private volatile @Nullable LockTemplate template;

    /**
     * @param templateOf the template of the lock manager, once there is one
     * @param instanceId this instance's owner id
     * @param defaultOnLost the lost-lock policy of locks whose options name none
     */
    DeferredLockTemplate(
            LockDatabaseStartup startup,
            Function<LockManager, LockTemplate> templateOf,
            String instanceId,
            LockLostPolicy defaultOnLost) {
        this.startup = startup;
        this.templateOf = templateOf;
        this.instanceId = instanceId;
        this.defaultOnLost = defaultOnLost;
    }

    @Override
    public LockHandle acquire(String name, String key, LockOptions options) {
        return template(name, key).acquire(name, key, options);
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, String key, LockOptions options) {
        return template(name, key).tryAcquire(name, key, options);
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

    private LockTemplate template(String name, String key) {
        LockTemplate ready = template;
        if (ready == null) {
            LockManager manager;
            try {
                manager = startup.manager();
            } catch (RuntimeException ex) {
                throw new LockAcquisitionException(name, key, LockDatabaseStartup.whyNotReady(ex), ex);
            }
            ready = templateOf.apply(manager);
            template = ready;
        }
        return ready;
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

        private Lock view() {
            Lock made = view.get();
            if (made == null) {
                view.compareAndSet(null, template(name, key).asLock(name, key, options));
                made = view.get();
            }
            return made;
        }

        @Override
        public void lock() {
            view().lock();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            view().lockInterruptibly();
        }

        @Override
        public boolean tryLock() {
            return view().tryLock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return view().tryLock(time, unit);
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
