package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LossCause;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** R17, a redeploy: closing the application frees its locks at once in every mode, and tells their holders. */
@ExtendWith(TestDatabaseExtension.class)
class BizLockShutdownTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class)
                .withPropertyValues("bizlock.shutdown-grace-period=200ms");
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aStoppedApplicationFreesItsLocksAtOnceAndTellsTheirHolders(LockMode mode) {
        String name = "redeploy-" + mode;
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        AtomicReference<LockHandle> held = new AtomicReference<>();
        AtomicReference<LockTemplate> stopped = new AtomicReference<>();
        long[] closing = new long[1];
        long[] token = new long[1];
        runner.withUserConfiguration(BizLockAutoConfigurationTest.ListenerBean.class)
                .run(context -> {
                    context.getBean(BizLockAutoConfigurationTest.ListenerBean.class).also = lost::add;
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    held.set(locks.acquire(name, "1", LockOptions.defaults().mode(mode)));
                    token[0] = held.get().fencingToken();
                    stopped.set(locks);
                    closing[0] = System.nanoTime();
                }); // the runner closes the context: the holder never unlocks
        long closedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing[0]);

        // Ceiling, not a measurement: the grace period is 200 ms; the close must not wait for a lease (30 s).
        assertThat(closedMillis).isLessThan(10_000);
        assertThat(lost)
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isEqualTo(LossCause.SHUTDOWN));
        assertThat(held.get().isHeld()).isFalse();
        assertThatThrownBy(() ->
                        stopped.get().acquire(name, "2", LockOptions.defaults().mode(mode)))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("bizlock is shutting down");
        runner.run(context -> {
            // The next instance: free at once, where a LEASE row used to stay held until its lease ended.
            LockTemplate locks = context.getBean(LockTemplate.class);
            assertThat(locks.tryAcquire(
                            name, "1", LockOptions.defaults().mode(mode).waitTime(Duration.ZERO)))
                    .hasValueSatisfying(next -> {
                        assertThat(next.fencingToken()).isGreaterThan(token[0]);
                        next.unlock();
                    });
        });
    }

    @Test
    void aHolderThatUnlocksWithinTheGracePeriodLosesNothing() throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        AtomicReference<Object> outcome = new AtomicReference<>();
        CountDownLatch holding = new CountDownLatch(1);
        Thread[] holder = new Thread[1];
        runner.withPropertyValues("bizlock.shutdown-grace-period=10s")
                .withUserConfiguration(BizLockAutoConfigurationTest.ListenerBean.class)
                .run(context -> {
                    context.getBean(BizLockAutoConfigurationTest.ListenerBean.class).also = lost::add;
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    holder[0] = new Thread(() -> {
                        try {
                            LockHandle held = locks.acquire("redeploy-grace", "1");
                            holding.countDown();
                            // Works on until the application stops taking locks, then finishes within the grace period.
                            while (stillTakingLocks(locks)) {
                                Thread.sleep(5);
                            }
                            held.unlock();
                            outcome.set("unlocked");
                        } catch (Throwable ex) {
                            outcome.set(ex);
                        }
                    });
                    holder[0].start();
                    assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
                }); // closing the context waits for the holder, up to the grace period
        holder[0].join(TimeUnit.SECONDS.toMillis(20));

        assertThat(outcome).hasValue("unlocked");
        assertThat(lost).isEmpty();
    }

    private static boolean stillTakingLocks(LockTemplate locks) {
        try {
            locks.tryAcquire("redeploy-grace", "probe", LockOptions.defaults().waitTime(Duration.ZERO))
                    .ifPresent(LockHandle::unlock);
            return true;
        } catch (LockAcquisitionException stopping) {
            return false;
        }
    }
}
