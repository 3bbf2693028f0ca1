package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 30 item 6: a hold whose thread ended without unlocking (it died, a virtual thread finished) cannot be unlocked
 * by anyone. It must not be renewed for the life of the JVM: its holder is reported lost and the lock is freed, for
 * the threads of this process that wait for it as for other instances.
 */
@ExtendWith(TestDatabaseExtension.class)
class AbandonedHoldTest {

    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(3);

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

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
            Thread holder = new Thread(
                    () -> {
                        try {
                            manager.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow(); // never unlocked
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "abandoning-holder");
            holder.start();
            holder.join();

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
}
