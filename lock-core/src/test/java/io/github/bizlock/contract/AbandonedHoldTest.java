package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 30 item 6: a hold whose thread ended without unlocking (it died, a virtual thread finished) cannot be unlocked
 * by anyone. It must not be renewed for the life of the JVM: its holder is reported lost and the lock is freed, for
 * the threads of this process that wait for it as for other instances.
 */
@LockTest
class AbandonedHoldTest {

    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(3);

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aLockWhoseHolderThreadEndedWithoutUnlockingIsReportedLostAndFreed(LockMode mode, DataSource dataSource)
            throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager manager = LockFixture.managerOfEveryMode(dataSource)
                        .watchdogLease(WATCHDOG_LEASE)
                        .build();
                LockManager other = LockFixture.managerOfEveryMode(dataSource).build()) {
            manager.addListener(lost::add);
            LockKey key = new LockKey("abandoned-" + mode, "1");
            endWithoutUnlocking(
                    () -> manager.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow());

            // Ceilings, not measurements: a watchdog tick finds the dead holder well within them.
            Optional<LockHandle> local = manager.tryAcquire(key, mode, Duration.ofSeconds(15), null);
            assertThat(local)
                    .as("a thread of this process that waits for the key gets it")
                    .isPresent();
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.cause()).isEqualTo(LossCause.ABANDONED);
                assertThat(event.holderThread()).isEqualTo("abandoning-holder");
                assertThat(event.reason()).contains("ended without unlocking");
            });
            local.get().unlock();

            Optional<LockHandle> elsewhere = other.tryAcquire(key, mode, Duration.ofSeconds(15), null);
            assertThat(elsewhere).as("another instance gets it too").isPresent();
            elsewhere.get().unlock();
            assertThat(manager.locks())
                    .as("nothing of the dead holder is left in this process")
                    .isEmpty();
        }
    }

    @Test
    void aHolderThatEndedInsideReEntriesLeavesNothingOfItsHoldsBehind(DataSource dataSource) throws Exception {
        try (LockManager manager = LockFixture.managerOfEveryMode(dataSource)
                        .watchdogLease(WATCHDOG_LEASE)
                        .build();
                LockManager other = LockFixture.managerOfEveryMode(dataSource).build()) {
            LockKey key = new LockKey("abandoned-reentered", "1");
            endWithoutUnlocking(() -> {
                manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
                manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow(); // re-entered
            });

            manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(15), null)
                    .orElseThrow()
                    .unlock();
            // Had the ended holder's re-entry stayed a user of the key, this unlock would have handed the grant to
            // nobody and kept it renewed for good.
            assertThat(manager.activeThreadCount()).as("threads at the key").isZero();
            Optional<LockHandle> elsewhere = other.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(5), null);
            assertThat(elsewhere).as("another instance gets the key").isPresent();
            elsewhere.get().unlock();
        }
    }

    @Test
    void aHolderThatEndsAfterItsLockWasLostStillFreesTheKeyForThisProcess(DataSource dataSource) throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager manager = LockFixture.managerOfEveryMode(dataSource)
                .watchdogLease(WATCHDOG_LEASE)
                .build()) {
            manager.addListener(lost::add);
            LockKey key = new LockKey("abandoned-after-loss", "1");
            endWithoutUnlocking(() -> {
                manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, Duration.ofMillis(500))
                        .orElseThrow();
                // The fixed lease ends while held: the loss is reported, then the holder ends without unlocking.
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (lost.isEmpty() && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10);
                }
            });
            assertThat(lost).as("the fixed lease's end was reported first").isNotEmpty();

            Optional<LockHandle> local = manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(15), null);
            assertThat(local).as("a thread of this process gets the key").isPresent();
            local.get().unlock();
        }
    }

    /** Runs {@code work} on a thread of its own that ends without unlocking what it locked. */
    private static void endWithoutUnlocking(Work work) throws InterruptedException {
        Thread holder = new Thread(
                () -> {
                    try {
                        work.run();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                },
                "abandoning-holder");
        holder.start();
        holder.join();
    }

    private interface Work {
        void run() throws InterruptedException;
    }
}
