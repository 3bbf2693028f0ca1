package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;

/**
 * R5 and R17, deadlines hold when the database is unreachable: a LEASE acquisition returns within its wait time and a
 * bounded slack, never after the pool's connection timeout or a dead connection's read.
 */
@LockTest
class LeaseUnreachableAcquireTest {

    private static final Duration WAIT = Duration.ofMillis(500);

    @Test
    void anAcquisitionEndsWithinItsWaitWhenThePoolCannotConnect(DataSource dataSource) throws Exception {
        SwitchableDataSource network = new SwitchableDataSource(dataSource);
        try (LockManager manager = LockFixture.manager(LockFixture.daos(network), InstanceId.generate())
                .build()) {
            network.block(); // the pool waits for a connection it cannot open, for its 30 s connection timeout

            Attempt attempt = tryAcquire(manager, new LockKey("unreachable", "pool"));
            // Ceiling, not a measurement: the wait (0.5 s) and the 1 s slack; before, the pool's 30 s.
            assertThat(attempt.millis()).isLessThan(5000);
            assertThat(attempt.thrown())
                    .isInstanceOf(DataAccessException.class)
                    .hasMessageContaining("gave no connection before the deadline");
            assertThat(Thread.currentThread().isInterrupted())
                    .as("the guard's interrupt does not leak to the caller")
                    .isFalse();
            network.restore();
            assertThat(manager.tryAcquire(new LockKey("unreachable", "pool"), LockMode.LEASE, Duration.ZERO, null))
                    .as("a later acquisition works again")
                    .isPresent();
        }
    }

    @Test
    void anAcquisitionEndsWithinItsWaitOnAHalfOpenConnection(TestDatabase database) throws Exception {
        try (FreezingProxy network = new FreezingProxy(database.jdbcUrl());
                HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(network.jdbcUrl());
            pool.setUsername(database.username());
            pool.setPassword(database.password());
            pool.setMaximumPoolSize(1);
            // What this test is about is the pooled connection that freezes; a short timeout only keeps the pool's
            // own attempts to replace it (a handshake through the frozen proxy) from holding up its close.
            pool.setConnectionTimeout(2000);
            try (LockManager manager = LockFixture.manager(LockFixture.daos(pool), InstanceId.generate())
                    .build()) {
                manager.tryAcquire(new LockKey("unreachable", "warm"), LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow()
                        .unlock();
                network.freeze(); // the pooled connection stays open, and nothing comes back on it

                Attempt attempt = tryAcquire(manager, new LockKey("unreachable", "half-open"));
                // Ceiling, not a measurement: the wait, the 1 s slack, and at most Hikari's own 5 s check of an idle
                // connection; before, the statement waited on the dead connection for as long as the OS kept it.
                assertThat(attempt.millis()).isLessThan(10_000);
                assertThat(attempt.thrown()).isInstanceOf(DataAccessException.class);
                network.close(); // ends the partition: the pool and the manager close without waiting on it
            }
        }
    }

    private record Attempt(@Nullable Throwable thrown, long millis) {}

    private static Attempt tryAcquire(LockManager manager, LockKey key) {
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(() -> manager.tryAcquire(key, LockMode.LEASE, WAIT, null));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf(
                "acquisition with a %d ms wait, database unreachable (%s): ended after %d ms%n",
                WAIT.toMillis(), key.key(), millis);
        return new Attempt(thrown, millis);
    }
}
