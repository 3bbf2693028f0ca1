package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.Await;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The guard ends a wait for a pool connection at its deadline, whatever the pool's own connection timeout (ten seconds
 * here: a test that sees it has already failed), and leaves a wait that gets a connection in time alone.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PoolWaitGuardTest {

    private static final String GUARD_THREAD = "bizlock-pool-wait-guard";

    private HikariDataSource pool;

    @BeforeAll
    void onePool(TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(10));
        pool = new HikariDataSource(config);
    }

    @AfterAll
    void closePool() {
        pool.close();
    }

    @Test
    void aWaitForAPoolWithNoConnectionFreeEndsAtTheDeadline() throws Exception {
        PoolWaitGuard guard = new PoolWaitGuard();
        try (Connection taken = pool.getConnection()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);

            assertThatThrownBy(() -> guard.connection(pool, deadline, "getting a test connection"))
                    .isInstanceOf(DataAccessResourceFailureException.class)
                    .hasMessageStartingWith("getting a test connection: the connection pool gave no connection before"
                            + " the deadline");
            assertThat(Thread.interrupted())
                    .as("the guard's interrupt is not left to the caller")
                    .isFalse();
        }
    }

    @Test
    void aWaitThatGetsAConnectionBeforeTheDeadlineIsLeftAlone() throws Exception {
        PoolWaitGuard guard = new PoolWaitGuard();
        CompletableFuture<Boolean> interruptedAfter;
        try (Connection taken = pool.getConnection()) {
            interruptedAfter = CompletableFuture.supplyAsync(
                    () -> {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        try (Connection connection = guard.connection(pool, deadline, "waiting")) {
                            return connection.isValid(1)
                                    && Thread.currentThread().isInterrupted();
                        } catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);
            Await.until(
                    "the other thread waits for the pool",
                    Duration.ofSeconds(5),
                    () -> pool.getHikariPoolMXBean().getThreadsAwaitingConnection() == 1 || interruptedAfter.isDone());
        }

        assertThat(interruptedAfter.get(5, TimeUnit.SECONDS))
                .as("a valid connection, and no interrupt")
                .isFalse();
    }

    @Test
    void aPoolFailureBeforeTheDeadlineIsThePoolsOwn(TestDatabase database) {
        PoolWaitGuard guard = new PoolWaitGuard();
        DriverManagerDataSource refused =
                new DriverManagerDataSource(database.jdbcUrl(), "no_such_user_" + database.name(), "wrong");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);

        assertThatThrownBy(() -> guard.connection(refused, deadline, "refused")).isInstanceOf(SQLException.class);
    }

    @Test
    void theGuardThreadDoesNotKeepTheJvmAlive() {
        new PoolWaitGuard();

        assertThat(guardThreads()).isNotEmpty().allMatch(Thread::isDaemon);
    }

    /** About a second: the guard parks after fifty quiet ticks of 20 ms. */
    @Test
    void anIdleGuardParksAndAWaitWakesIt() throws Exception {
        Set<Thread> before = guardThreads();
        PoolWaitGuard guard = new PoolWaitGuard();
        Set<Thread> started = guardThreads();
        started.removeAll(before);
        assertThat(started).hasSize(1);
        Thread thread = started.iterator().next();

        Await.until("the idle guard parks", Duration.ofSeconds(5), () -> thread.getState() == Thread.State.WAITING);

        try (Connection taken = pool.getConnection()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            assertThatThrownBy(() -> guard.connection(pool, deadline, "after parking"))
                    .isInstanceOf(DataAccessResourceFailureException.class);
        }
    }

    private static Set<Thread> guardThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(GUARD_THREAD)) {
                threads.add(thread);
            }
        }
        return threads;
    }
}
