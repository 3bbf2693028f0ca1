package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.LossCause;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * R17, unreachable database at unlock: unlocking answers within a bound whatever the database does, and a release
 * that could not reach the database is retried in the background until it frees the row.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseUnreachableReleaseTest {

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void aLostLockUnlocksAtOnceAndIsReleasedWhenTheDatabaseAnswersAgain(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("unreachable", "lost");
        SwitchableDataSource network = new SwitchableDataSource(dataSource);
        BizLockDao direct = LockFixture.dao(dataSource);
        try (LockManager manager = LockFixture.manager(LockFixture.dao(network), InstanceId.generate())
                .watchdogLease(Duration.ofMillis(1500))
                .build()) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            long token = held.fencingToken();

            network.block(); // renewals wait for a connection the pool cannot open
            await("the watchdog reports the lease lost", () -> !held.isHeld(), Duration.ofSeconds(10));

            long started = System.nanoTime();
            Throwable thrown = catchThrowable(held::unlock);
            long unlockMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("unlock of a lost lock, database unreachable: returned after %d ms%n", unlockMillis);
            // Ceiling, not a measurement: it answers in microseconds; before, it waited for the pool's connection
            // timeout (30 s) and threw a DataAccessException.
            assertThat(unlockMillis).isLessThan(1000);
            assertThat(thrown).isInstanceOf(LockLostException.class);
            assertThat(((LockLostException) thrown).event().cause()).isEqualTo(LossCause.LEASE_EXPIRED);
            assertThat(manager.heldCount()).isZero();

            LockRow before = LeaseTestSupport.row(direct, key);
            assertThat(before.owner()).as("not released while unreachable").isEqualTo(manager.instanceId());
            network.restore();
            // Released by the background retry: the owner is cleared, which a lease that merely ended never does.
            await(
                    "the background release frees the row",
                    () -> LeaseTestSupport.row(direct, key).owner() == null,
                    Duration.ofSeconds(20));
            assertThat(LeaseTestSupport.row(direct, key).fencingToken()).isEqualTo(token);
        }
    }

    @Test
    void aReleaseThatCannotReachTheDatabaseFailsWithinABoundAndIsRetried(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("unreachable", "held");
        SwitchableDataSource network = new SwitchableDataSource(dataSource);
        BizLockDao direct = LockFixture.dao(dataSource);
        try (LockManager manager = LockFixture.manager(LockFixture.dao(network), InstanceId.generate())
                .build()) { // a 30 s watchdog lease: the lock is still held when it is unlocked
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            network.block();

            long started = System.nanoTime();
            Throwable thrown = catchThrowable(held::unlock);
            long unlockMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("unlock of a held lock, database unreachable: returned after %d ms%n", unlockMillis);
            // Ceiling: the release waits 2 s for the database; before, it waited for the pool's 30 s.
            assertThat(unlockMillis).isLessThan(5000);
            assertThat(thrown)
                    .as("the lock was held until the unlock: its release failed, it was not lost")
                    .isInstanceOf(LockReleaseException.class)
                    .hasMessageContaining("did not answer within 2000 ms")
                    .hasMessageContaining("retried in the background");
            assertThat(manager.heldCount()).isZero();
            assertThat(held.isHeld()).isFalse();

            network.restore();
            await(
                    "the background release frees the row",
                    () -> LeaseTestSupport.row(direct, key).owner() == null,
                    Duration.ofSeconds(20));
        }
    }

    @Test
    void aReleaseThatFailsAtOnceIsTriedAgainUntilTheDatabaseAnswers(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("unreachable", "failing");
        SwitchableDataSource network = new SwitchableDataSource(dataSource);
        BizLockDao direct = LockFixture.dao(dataSource);
        try (LockManager manager = LockFixture.manager(LockFixture.dao(network), InstanceId.generate())
                .build()) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            network.fail(); // the pool refuses at once, as a closed one does

            long started = System.nanoTime();
            Throwable thrown = catchThrowable(held::unlock);
            long unlockMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(unlockMillis)
                    .as("the failure is passed on without waiting")
                    .isLessThan(2000);
            assertThat(thrown)
                    .isInstanceOf(LockReleaseException.class)
                    .hasMessageContaining("the release failed")
                    .hasRootCauseMessage("The database is unreachable (test): connection is not available, request"
                            + " timed out after 0ms");

            // A few retries fail (200, 400, 800 ms apart) before the database answers again.
            Thread.sleep(1000);
            assertThat(LeaseTestSupport.row(direct, key).owner()).isEqualTo(manager.instanceId());
            network.restore();
            await(
                    "a background retry frees the row",
                    () -> LeaseTestSupport.row(direct, key).owner() == null,
                    Duration.ofSeconds(20));
            assertThat(manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("free again for this instance too")
                    .hasValueSatisfying(LockHandle::unlock);
        }
    }

    private static void await(String what, BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + timeout + " waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
