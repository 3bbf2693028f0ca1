package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The health indicator turns DOWN when the lock database does not answer or held leases go unrenewed. */
@ExtendWith(TestDatabaseExtension.class)
class BizLockHealthIndicatorTest {

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void isDownWhileTheDatabaseDoesNotAnswerAndUpWhenItAnswersAgain(DataSource dataSource) {
        SwitchableDataSource lockDatabase = new SwitchableDataSource(dataSource);
        try (LockManager manager = LockFixture.manager(LockFixture.daos(lockDatabase), InstanceId.generate())
                .build()) {
            BizLockHealthIndicator health = new BizLockHealthIndicator(LockFixture.daos(lockDatabase), manager);
            assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

            lockDatabase.fail(); // no connection to the lock database, as when its pool cannot reach it
            Health down = health.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(down.getDetails().get("error"))).contains("CannotGetJdbcConnectionException");

            lockDatabase.restore();
            assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
        }
    }

    @Test
    void isDownWithTheErrorWhileTheLockBeansCannotBeMadeAndUpOnceTheyAre(DataSource dataSource) {
        AtomicBoolean answering = new AtomicBoolean();
        try (LockManager manager = LockFixture.manager(LockFixture.daos(dataSource), InstanceId.generate())
                .build()) {
            BizLockHealthIndicator health = new BizLockHealthIndicator(
                    () -> {
                        if (!answering.get()) {
                            throw new IllegalStateException("the lock database has not answered yet");
                        }
                        return LockFixture.daos(dataSource);
                    },
                    () -> manager);

            Health down = health.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(down.getDetails().get("error")))
                    .contains("the lock database has not answered yet");

            answering.set(true);
            Health up = health.health(true);
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails())
                    .containsEntry("instance", manager.instanceId())
                    .containsEntry("renewalsOverdue", 0);
        }
    }

    @Test
    void isDownWhileHeldLeasesCannotBeRenewedAndUpAgainOnceTheyAreGone(TestDatabase database) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        HikariDataSource lockPool = new HikariDataSource(config);
        try (LockManager manager = LockFixture.manager(LockFixture.daos(lockPool), InstanceId.generate())
                .watchdogLease(Duration.ofSeconds(3))
                .build()) {
            // The indicator reads through a healthy connection; the manager's renewals go through lockPool.
            BizLockHealthIndicator health =
                    new BizLockHealthIndicator(LockFixture.daos(database.dataSource()), manager);
            LockHandle held = manager.tryAcquire(new LockKey("health", "1"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

            lockPool.close(); // this instance can no longer reach the lock database
            Health down = await(() -> health.health(true), h -> h.getStatus().equals(Status.DOWN));
            assertThat(down.getDetails()).containsEntry("renewalsOverdue", 1);
            assertThat((String) down.getDetails().get("hint")).contains("not been renewed");

            await(() -> health.health(true), h -> h.getStatus().equals(Status.UP));
            assertThat(held.isHeld())
                    .as("the lease ran out and was reported lost")
                    .isFalse();
        } finally {
            lockPool.close();
        }
    }

    private static Health await(Supplier<Health> health, java.util.function.Predicate<Health> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            Health current = health.get();
            if (condition.test(current)) {
                return current;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Health never reached the expected state; last: " + current.getStatus() + " "
                        + current.getDetails());
            }
            Thread.sleep(50);
        }
    }
}
