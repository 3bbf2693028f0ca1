package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code onLost = INTERRUPT} on a pooled thread: the interrupt bizlock sent for a loss ends with the locked section, so
 * the thread's next, unrelated task does not get it; an interrupt anyone else sent is left alone.
 */
class LossInterruptTest {

    private final StubEngine engine = new StubEngine();
    private final LockManager manager = LockManager.builder("loss-interrupt")
            .engine(engine)
            .modeBindings(StubEngine.ANY_MODE)
            .watchdogLease(Duration.ofMillis(300))
            .build();

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void theInterruptSentForALossIsClearedWhenTheLockedSectionEnds() throws Exception {
        CompletableFuture<Boolean> interruptedAfterUnlock = new CompletableFuture<>();
        CountDownLatch holding = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                LockHandle handle = acquire("cleared");
                holding.countDown();
                // Work that never looks at the interrupt, as much of a task does.
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!Thread.currentThread().isInterrupted() && System.nanoTime() - giveUp < 0) {
                    Thread.onSpinWait();
                }
                assertThat(Thread.currentThread().isInterrupted())
                        .as("bizlock interrupted the holder")
                        .isTrue();
                unlockLost(handle);
                interruptedAfterUnlock.complete(Thread.currentThread().isInterrupted());
            } catch (Throwable ex) {
                interruptedAfterUnlock.completeExceptionally(ex);
            }
        });
        holder.start();
        assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        engine.keepAliveLoss = new Loss(LossCause.TAKEN_OVER, "another owner (test)");

        assertThat(interruptedAfterUnlock.get(20, TimeUnit.SECONDS))
                .as("the pooled thread's next task would start interrupted")
                .isFalse();
    }

    @Test
    void anInterruptSomeoneElseSentBeforeTheLossIsKeptThroughTheUnlock() throws Exception {
        try {
            LockHandle handle = acquire("kept");
            Thread.currentThread().interrupt(); // pending when bizlock finds the loss: its own interrupt adds nothing
            engine.keepAliveLoss = new Loss(LossCause.TAKEN_OVER, "another owner (test)");
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (handle.isHeld() && System.nanoTime() - giveUp < 0) {
                Thread.onSpinWait(); // not Await: it sleeps, which the pending interrupt would end
            }
            assertThat(handle.isHeld()).as("the loss was found").isFalse();
            unlockLost(handle);

            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anInterruptSentWhileTheLockIsHeldAndNotLostIsKeptThroughTheUnlock() throws Exception {
        try {
            LockHandle handle = acquire("not-lost");
            Thread.currentThread().interrupt();
            handle.unlock();

            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    private LockHandle acquire(String key) throws InterruptedException {
        return manager.tryAcquire(
                        new LockKey("loss-interrupt", key),
                        LockMode.LEASE,
                        Duration.ZERO,
                        null,
                        LockLostPolicy.INTERRUPT)
                .orElseThrow();
    }

    private static void unlockLost(LockHandle handle) {
        try {
            handle.unlock();
        } catch (LockLostException expected) {
            // the loss, told again at unlock
        }
    }
}
