package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A fixed lease that ends while its holder still works is reported lost then, not only at unlock. */
@LockTest
class LeaseFixedLeaseLossTest {

    @Test
    void anEndedFixedLeaseIsReportedWhileHeldAndInterruptsTheHolder(DataSource dataSource) throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            manager.addListener(lost::add);
            CompletableFuture<Boolean> interrupted = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            LockHandle handle = manager.tryAcquire(
                                            new LockKey("fixed", "1"),
                                            LockMode.LEASE,
                                            Duration.ZERO,
                                            Duration.ofMillis(500),
                                            LockLostPolicy.INTERRUPT)
                                    .orElseThrow();
                            boolean wasInterrupted = false;
                            try {
                                Thread.sleep(TimeUnit.SECONDS.toMillis(30)); // work that outlives its lease
                            } catch (InterruptedException ex) {
                                wasInterrupted = true;
                            }
                            // Listeners are told soon after the interrupt, on a thread of their own.
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                            while (lost.isEmpty() && System.nanoTime() < deadline) {
                                Thread.onSpinWait();
                            }
                            assertThat(lost)
                                    .as("reported before the holder unlocks")
                                    .hasSize(1);
                            assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class);
                            return wasInterrupted;
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);

            assertThat(interrupted.get(20, TimeUnit.SECONDS))
                    .as("the watchdog interrupted the holder when its lease ended")
                    .isTrue();
            assertThat(lost).hasSize(1);
            assertThat(lost.get(0).reason()).contains("fixed lease of PT0.5S ended while it was still held");
            assertThat(lost.get(0).cause()).isEqualTo(LossCause.LEASE_EXPIRED);
        }
    }
}
