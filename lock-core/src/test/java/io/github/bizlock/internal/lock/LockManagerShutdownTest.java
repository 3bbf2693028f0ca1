package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * R17, shutdown: a redeploy frees its locks at once in every mode. Holders get the grace period to unlock; the locks
 * still held then are reported lost to their holders and released; nothing is acquired once the shutdown began.
 */
@LockTest
class LockManagerShutdownTest {

    private DataSource dataSource;

    @BeforeEach
    void connect(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void locksStillHeldAfterTheGracePeriodAreReportedLostAndFreedAtOnce(LockMode mode) throws Exception {
        LockKey key = new LockKey("shutdown-" + mode, "held");
        try (LockManager next = LockFixture.managerOfEveryMode(dataSource).build()) {
            LockManager stopping = LockFixture.managerOfEveryMode(dataSource).build();
            List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
            stopping.addListener(lost::add);
            LockHandle held =
                    stopping.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow();
            long token = held.fencingToken();

            long started = System.nanoTime();
            stopping.shutdown(Duration.ofMillis(300));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .as("waited out the grace period for the holder")
                    .isGreaterThanOrEqualTo(300);

            // Free at once for another instance; before, a LEASE row stayed held until its 30 s lease ended.
            try (LockHandle taken =
                    next.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow()) {
                assertThat(taken.fencingToken()).isGreaterThan(token);
            }
            Await.until("the holder is told", Duration.ofSeconds(5), () -> !lost.isEmpty());
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.cause()).isEqualTo(LossCause.SHUTDOWN);
                assertThat(event.fencingToken()).isEqualTo(token);
            });
            assertThat(held.isHeld()).isFalse();
            assertThatThrownBy(held::unlock)
                    .isInstanceOf(LockLostException.class)
                    .satisfies(ex ->
                            assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.SHUTDOWN));
            assertThat(next.tryAcquire(key, mode, Duration.ZERO, null))
                    .as("the holder's late unlock released nothing of the next holder's")
                    .hasValueSatisfying(LockHandle::unlock);
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void holdersThatUnlockWithinTheGracePeriodLoseNothing(LockMode mode) throws Exception {
        LockKey key = new LockKey("shutdown-" + mode, "finishing");
        LockManager stopping = LockFixture.managerOfEveryMode(dataSource).build();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        stopping.addListener(lost::add);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                LockHandle held =
                        stopping.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow();
                holding.countDown();
                finish.await();
                held.unlock();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        holder.start();
        holding.await();
        Thread shutdown = new Thread(() -> stopping.shutdown(Duration.ofSeconds(30)));
        shutdown.start();

        Await.until(
                "new acquisitions are refused",
                Duration.ofSeconds(5),
                () -> refusesNewLocks(stopping, new LockKey("shutdown-" + mode, "new"), mode));
        assertThat(shutdown.isAlive()).as("waits for the holder").isTrue();
        finish.countDown();
        holder.join(5000);
        shutdown.join(5000);
        assertThat(shutdown.isAlive())
                .as("ended when the last holder unlocked, not after 30 s")
                .isFalse();
        assertThat(lost).isEmpty();
        try (LockManager next = LockFixture.managerOfEveryMode(dataSource).build()) {
            assertThat(next.tryAcquire(key, mode, Duration.ZERO, null)).hasValueSatisfying(LockHandle::unlock);
        }
    }

    private static boolean refusesNewLocks(LockManager manager, LockKey key, LockMode mode) {
        try {
            manager.tryAcquire(key, mode, Duration.ZERO, null).ifPresent(LockHandle::unlock);
            return false;
        } catch (LockAcquisitionException ex) {
            assertThat(ex).hasMessageContaining("bizlock is shutting down");
            return true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }
}
