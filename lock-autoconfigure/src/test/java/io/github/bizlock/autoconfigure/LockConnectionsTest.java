package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.jdbc.HikariLockPool;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Lock traffic runs on connections the application cannot take: LEASE writes and renewals on a small pool of bizlock's
 * own, ROW and NAMED sessions on plain connections; both opened with the application pool's settings.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockConnectionsTest {

    private static final int APP_POOL = 3;

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class)
                .withUserConfiguration(BizLockAutoConfigurationTest.ListenerBean.class);
    }

    /**
     * Measured before: with every application connection held by a caller's open transaction, each LEASE acquisition
     * waited for the application's pool until its wait ran out, and the watchdog's renewal waited for the pool's
     * connection timeout (30 s) and lost every lease at once. Tagged slow: it holds leases through several renewals,
     * seconds that a mutation run would spend again for every mutant it covers; HikariLockConnectionsTest checks the
     * lock pool's settings in milliseconds.
     */
    @Test
    @Tag("slow")
    void leaseLocksAreTakenAndRenewedWhileOpenTransactionsHoldEveryApplicationConnection() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        runner.withPropertyValues(
                        "spring.datasource.hikari.maximum-pool-size=" + APP_POOL,
                        "bizlock.watchdog-lease=" + lease.toMillis() + "ms")
                .run(context -> {
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
                    context.getBean(BizLockAutoConfigurationTest.ListenerBean.class).also = lost::add;
                    TransactionTemplate transactions =
                            new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    HikariDataSource appPool = context.getBean(HikariDataSource.class);

                    CountDownLatch allHold = new CountDownLatch(APP_POOL);
                    CountDownLatch finish = new CountDownLatch(1);
                    List<CompletableFuture<Long>> callers = new ArrayList<>();
                    for (int i = 0; i < APP_POOL; i++) {
                        String key = String.valueOf(i);
                        callers.add(CompletableFuture.supplyAsync(
                                () -> transactions.execute(status -> {
                                    jdbc.queryForObject(
                                            "SELECT 1", Integer.class); // the transaction holds a connection
                                    long start = System.nanoTime();
                                    Optional<LockHandle> handle = locks.tryAcquire(
                                            "pools", key, LockOptions.defaults().waitTime(Duration.ofSeconds(5)));
                                    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                                    assertThat(handle)
                                            .as("lock %s taken within its wait", key)
                                            .isPresent();
                                    try (LockHandle held = handle.get()) {
                                        allHold.countDown();
                                        await(finish);
                                        assertThat(held.isHeld())
                                                .as("lock %s still held", key)
                                                .isTrue();
                                    }
                                    return took;
                                }),
                                ThreadPerTask.EXECUTOR));
                    }
                    assertThat(allHold.await(30, TimeUnit.SECONDS))
                            .as("every caller got its lock")
                            .isTrue();
                    assertThat(appPool.getHikariPoolMXBean().getActiveConnections())
                            .as("the callers' transactions hold the whole application pool")
                            .isEqualTo(APP_POOL);
                    // Three leases: the watchdog renews every third of one, on bizlock's own connections.
                    long holdUntil = System.nanoTime() + lease.multipliedBy(3).toNanos();
                    while (System.nanoTime() - holdUntil < 0) {
                        assertThat(lost)
                                .as("no lease lost while the application pool is exhausted")
                                .isEmpty();
                        Thread.sleep(50);
                    }
                    // Another caller, outside any transaction, locks and unlocks meanwhile.
                    try (LockHandle other = locks.acquire(
                            "pools", "other", LockOptions.defaults().waitTime(Duration.ofSeconds(5)))) {
                        assertThat(other.fencingToken()).isPositive();
                    }
                    finish.countDown();
                    for (CompletableFuture<Long> caller : callers) {
                        long took = caller.get(30, TimeUnit.SECONDS);
                        System.out.printf("LEASE acquisition inside an open transaction took %d ms%n", took);
                    }
                    assertThat(lost).isEmpty();
                });
    }

    /** A driver property and the init SQL set on the application's Hikari pool reach every connection bizlock opens. */
    @Test
    void lockConnectionsCarryTheApplicationPoolsSettings() {
        runner.withPropertyValues(
                        "spring.datasource.hikari.connection-init-sql=SET @bizlock_probe = 'from the pool'",
                        "spring.datasource.hikari.data-source-properties.sessionVariables=auto_increment_increment=7")
                .run(context -> {
                    // What LockService.Builder is given for sessions, and the copy it makes of a HikariCP pool.
                    DataSource application = context.getBean(DataSource.class);
                    DataSource sessions = LockConnections.plain(application);
                    DataSource writes = HikariLockPool.copyOf(application, 2);
                    assertThat(writes).isNotNull().isNotSameAs(context.getBean(DataSource.class));
                    for (DataSource connections : List.of(sessions, writes)) {
                        try (Connection connection = connections.getConnection();
                                Statement statement = connection.createStatement();
                                ResultSet row = statement.executeQuery(
                                        "SELECT @bizlock_probe, @@session.auto_increment_increment, CURRENT_USER()")) {
                            row.next();
                            assertThat(row.getString(1))
                                    .as("init SQL on %s", connections)
                                    .isEqualTo("from the pool");
                            assertThat(row.getInt(2))
                                    .as("driver property on %s", connections)
                                    .isEqualTo(7);
                            assertThat(row.getString(3))
                                    .isEqualTo(new JdbcTemplate(context.getBean(DataSource.class))
                                            .queryForObject("SELECT CURRENT_USER()", String.class));
                        }
                    }
                    // And the locks work on them.
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    for (LockMode mode : LockMode.values()) {
                        try (LockHandle held = locks.acquire(
                                "settings-" + mode, "1", LockOptions.defaults().mode(mode))) {
                            assertThat(held.fencingToken()).isPositive();
                        }
                    }
                });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }
}
