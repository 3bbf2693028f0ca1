package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.ThreadPerTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The gate's local lock: reentrant like ReentrantLock, and freed for a thread that ended holding it. */
class GateLockTest {

    @Test
    void itIsReentrantAndOnlyItsOwnerUnlocksIt() throws Exception {
        GateLock lock = new GateLock(false);
        lock.lock();
        assertThat(lock.tryLock(0, TimeUnit.NANOSECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(CompletableFuture.supplyAsync(() -> tryNow(lock), ThreadPerTask.EXECUTOR)
                        .get())
                .as("another thread")
                .isFalse();
        assertThatThrownBy(() -> CompletableFuture.runAsync(lock::unlock, ThreadPerTask.EXECUTOR)
                        .join())
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.owner()).isNull();
    }

    @Test
    void aLockWhoseOwnerEndedIsFreedForTheThreadWaitingForIt() throws Exception {
        GateLock lock = new GateLock(true);
        Thread owner = new Thread(() -> {
            lock.lock();
            lock.lock(); // two holds, never unlocked
        });
        owner.start();
        owner.join();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        boolean taken = lock.tryLock(30, TimeUnit.SECONDS);
                        if (taken) {
                            lock.unlock();
                        }
                        return taken;
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        assertThat(lock.releaseFor(Thread.currentThread())).as("not the owner").isFalse();
        assertThat(lock.releaseFor(owner)).isTrue();
        assertThat(waiter.get(10, TimeUnit.SECONDS))
                .as("the waiter was woken and took it")
                .isTrue();
        assertThat(lock.releaseFor(owner)).as("only once").isFalse();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aFairLockGoesToTheThreadWaitingForItWhenUnlocked() throws Exception {
        GateLock lock = new GateLock(true);
        lock.lock();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return lock.tryLock(30, TimeUnit.SECONDS);
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!hasWaiter(lock) && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.owner()).isNotNull().isNotEqualTo(Thread.currentThread());
    }

    private static boolean hasWaiter(GateLock lock) {
        return lock.hasQueuedThreads();
    }

    private static boolean tryNow(GateLock lock) {
        try {
            return lock.tryLock(0, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
