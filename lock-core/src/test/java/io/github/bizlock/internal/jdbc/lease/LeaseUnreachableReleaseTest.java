package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * R17, unreachable database at unlock: unlocking answers within a bound whatever the database does, and a release
 * that could not reach the database is retried in the background until it frees the row.
 */
@LockTest
class LeaseUnreachableReleaseTest {

    private SwitchableDataSource network;
    private LeaseDao direct;

    @BeforeEach
    void connect(DataSource dataSource) {
        network = new SwitchableDataSource(dataSource);
        direct = LockFixture.dao(dataSource);
    }

    /** A lock manager whose lock writes go through {@link #network}. */
    private LockManager manager(Duration watchdogLease) {
        return LockFixture.manager(LockFixture.daos(network), InstanceId.generate())
                .watchdogLease(watchdogLease)
                .build();
    }

    @Test
    void aLostLockUnlocksAtOnceAndIsReleasedWhenTheDatabaseAnswersAgain() throws Exception {
        LockKey key = new LockKey("unreachable", "lost");
        try (LockManager manager = manager(Duration.ofMillis(1500))) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            long token = held.fencingToken();

            network.block(); // renewals wait for a connection the pool cannot open
            Await.until("the watchdog reports the lease lost", Duration.ofSeconds(10), () -> !held.isHeld());

            Unlocked unlocked = unlock(held, "a lost lock");
            // Ceiling, not a measurement: nothing waits for the database; before, unlock waited for the pool's
            // connection timeout (30 s) and threw a DataAccessException.
            assertThat(unlocked.millis()).isLessThan(1000);
            assertThat(unlocked.thrown()).isInstanceOf(LockLostException.class);
            assertThat(((LockLostException) unlocked.thrown()).event().cause()).isEqualTo(LossCause.LEASE_EXPIRED);
            assertThat(manager.heldCount()).isZero();
            assertThat(LeaseTestSupport.row(direct, key).owner())
                    .as("not released while unreachable")
                    .isEqualTo(manager.instanceId());

            network.restore();
            awaitReleased(key);
            assertThat(LeaseTestSupport.row(direct, key).fencingToken()).isEqualTo(token);
        }
    }

    @Test
    void aReleaseThatCannotReachTheDatabaseFailsWithinABoundAndIsRetried() throws Exception {
        LockKey key = new LockKey("unreachable", "held");
        try (LockManager manager = manager(Duration.ofSeconds(30))) { // still held when it is unlocked
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            network.block();

            Unlocked unlocked = unlock(held, "a held lock");
            // Ceiling: the release waits 2 s for the database; before, it waited for the pool's 30 s.
            assertThat(unlocked.millis()).isLessThan(5000);
            assertThat(unlocked.thrown())
                    .as("the lock was held until the unlock: its release failed, it was not lost")
                    .isInstanceOf(LockReleaseException.class)
                    .hasMessageContaining("could not be released")
                    .hasMessageContaining("retried in the background");
            assertThat(manager.heldCount()).isZero();
            assertThat(held.isHeld()).isFalse();

            network.restore();
            awaitReleased(key);
        }
    }

    @Test
    void aReleaseThatFailsAtOnceIsTriedAgainUntilTheDatabaseAnswers() throws Exception {
        LockKey key = new LockKey("unreachable", "failing");
        try (LockManager manager = manager(Duration.ofSeconds(30))) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            network.fail(); // the pool refuses at once, as a closed one does

            Unlocked unlocked = unlock(held, "a held lock whose release fails");
            assertThat(unlocked.millis()).as("the failure is passed on at once").isLessThan(2000);
            assertThat(unlocked.thrown())
                    .isInstanceOf(LockReleaseException.class)
                    .hasMessageContaining("the release failed")
                    .hasRootCauseMessage("The database is unreachable (test): connection is not available, request"
                            + " timed out after 0ms");

            Await.until("two more attempts failed", Duration.ofSeconds(10), () -> network.refused() >= 3);
            assertThat(LeaseTestSupport.row(direct, key).owner()).isEqualTo(manager.instanceId());
            network.restore();
            awaitReleased(key);
            assertThat(manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("free again for this instance too")
                    .hasValueSatisfying(LockHandle::unlock);
        }
    }

    private record Unlocked(@Nullable Throwable thrown, long millis) {}

    private static Unlocked unlock(LockHandle held, String what) {
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(held::unlock);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("unlock of %s, database unreachable: returned after %d ms%n", what, millis);
        return new Unlocked(thrown, millis);
    }

    /** Released by the background retry: the owner is cleared, which a lease that merely ended never does. */
    private void awaitReleased(LockKey key) throws InterruptedException {
        Await.until(
                "the background release frees the row",
                Duration.ofSeconds(20),
                () -> LeaseTestSupport.row(direct, key).owner() == null);
    }
}
