package io.github.bizlock.internal.lock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import org.jspecify.annotations.Nullable;

/**
 * The local lock of a {@link Gate}: a reentrant lock like {@link java.util.concurrent.locks.ReentrantLock}, which the
 * watchdog can also free for a thread that ended holding it ({@link #releaseFor}). A {@code ReentrantLock} held by a
 * dead thread stays locked forever, and every thread of this process waiting for the key would wait out its wait
 * time, or for ever.
 */
final class GateLock {

    private final Sync sync;

    GateLock(boolean fair) {
        this.sync = new Sync(fair);
    }

    void lock() {
        sync.acquire(1);
    }

    boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        return sync.tryAcquireNanos(1, unit.toNanos(timeout));
    }

    /** @throws IllegalMonitorStateException if the calling thread does not hold it */
    void unlock() {
        sync.release(1);
    }

    boolean isHeldByCurrentThread() {
        return sync.isHeldExclusively();
    }

    int getHoldCount() {
        return sync.isHeldExclusively() ? sync.holds() : 0;
    }

    boolean isLocked() {
        return sync.holds() > 0;
    }

    /** Whether threads wait for it. */
    boolean hasQueuedThreads() {
        return sync.hasQueuedThreads();
    }

    /** The thread holding it, or {@code null}. */
    @Nullable
    Thread owner() {
        return sync.owner();
    }

    /**
     * Frees the lock, whatever its hold count, if {@code owner} holds it: for a thread that ended holding it, which
     * nobody else can unlock. The next waiting thread takes it.
     *
     * @return whether {@code owner} held it
     */
    boolean releaseFor(Thread owner) {
        return sync.releaseAllFor(owner);
    }

    private static final class Sync extends AbstractQueuedSynchronizer {

        private final boolean fair;

        Sync(boolean fair) {
            this.fair = fair;
        }

        @Override
        protected boolean tryAcquire(int count) {
            Thread current = Thread.currentThread();
            int holds = getState();
            if (holds == 0) {
                if ((!fair || !hasQueuedPredecessors()) && compareAndSetState(0, count)) {
                    setExclusiveOwnerThread(current);
                    return true;
                }
                return false;
            }
            if (getExclusiveOwnerThread() == current) {
                setState(holds + count);
                return true;
            }
            return false;
        }

        /** The release of every hold of an owner that ended, by another thread: see {@link #releaseAllFor}. */
        private static final int ALL_FOR_ENDED_OWNER = Integer.MIN_VALUE;

        @Override
        protected boolean tryRelease(int count) {
            if (count == ALL_FOR_ENDED_OWNER) {
                setExclusiveOwnerThread(null);
                setState(0);
                return true;
            }
            if (getExclusiveOwnerThread() != Thread.currentThread()) {
                throw new IllegalMonitorStateException("The gate's local lock is not held by this thread");
            }
            int holds = getState() - count;
            if (holds == 0) {
                setExclusiveOwnerThread(null);
            }
            setState(holds); // the volatile write publishes the owner's change
            return holds == 0;
        }

        boolean releaseAllFor(Thread owner) {
            // Nobody else can take the lock while the owner holds it, and the owner has ended: the state cannot change
            // between this check and the release. release() wakes the next waiter.
            if (getState() == 0 || getExclusiveOwnerThread() != owner) {
                return false;
            }
            return release(ALL_FOR_ENDED_OWNER);
        }

        @Override
        protected boolean isHeldExclusively() {
            return getState() > 0 && getExclusiveOwnerThread() == Thread.currentThread();
        }

        int holds() {
            return getState();
        }

        @Nullable
        Thread owner() {
            return getState() == 0 ? null : getExclusiveOwnerThread();
        }
    }
}
