package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A grant handed from one thread to another is released once, even when a shutdown comes between the two: the
 * shutdown releases it, and the thread it was handed to must not release it again (for a session lock, on a session
 * that may hold another lock by then). The lock manager's own bookkeeping, so an engine that counts releases stands in
 * for the database.
 */
class ShutdownHandOffTest {

    private record CountedGrant(LockKey key, String owner, Duration lease, long sentNanos) implements Grant {}

    /** Counts releases per grant; holds the thread it is told to in {@link #fixedLease}, as it takes a grant over. */
    private static final class CountingEngine implements LockEngine {

        final Map<Grant, AtomicInteger> releases = new ConcurrentHashMap<>();
        final CountDownLatch takingOver = new CountDownLatch(1);
        final CountDownLatch goOn = new CountDownLatch(1);
        volatile @Nullable Thread held;

        @Override
        public LockMode mode() {
            return LockMode.LEASE;
        }

        @Override
        public @Nullable Duration fixedLease(@Nullable Duration requested) {
            if (Thread.currentThread() == held) {
                takingOver.countDown();
                try {
                    goOn.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return requested;
        }

        @Override
        public Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos) {
            return new CountedGrant(key, "counting", lease, System.nanoTime());
        }

        @Override
        public long issueTokens(Grant grant, int count) {
            return 1;
        }

        @Override
        public Map<Grant, Loss> renew(List<Grant> grants) {
            return Map.of();
        }

        @Override
        public @Nullable Loss release(Grant grant) {
            releases.computeIfAbsent(grant, g -> new AtomicInteger()).incrementAndGet();
            return null;
        }
    }

    @Test
    void aGrantHandedOverAsTheShutdownBeginsIsReleasedOnce() throws Exception {
        CountingEngine engine = new CountingEngine();
        LockManager manager = LockManager.builder("counting")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .build();
        LockKey key = new LockKey("hand-off", "1");
        LockHandle first =
                manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
        Thread next = new Thread(() -> {
            try {
                manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(10), null)
                        .ifPresent(LockHandle::unlock);
            } catch (RuntimeException | InterruptedException ex) {
                // refused: the shutdown began
            }
        });
        engine.held = next;
        next.start();
        Await.until("the next thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);

        first.unlock(); // hands the grant to the waiting thread, which stops as it takes it over
        Await.until("the hand-off is under way", Duration.ofSeconds(5), () -> engine.takingOver.getCount() == 0);
        manager.shutdown(Duration.ZERO);
        engine.goOn.countDown();
        next.join(10_000);

        assertThat(next.isAlive()).isFalse();
        assertThat(engine.releases.values())
                .as("releases per grant")
                .isNotEmpty()
                .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
    }
}
