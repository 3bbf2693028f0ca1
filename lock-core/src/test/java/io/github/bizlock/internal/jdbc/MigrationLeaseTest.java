package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.contract.StatementCounter;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The schema migration's lease: one migrator at a time, waiting for another's lease to end. */
@ExtendWith(TestDatabaseExtension.class)
class MigrationLeaseTest {

    @AfterEach
    void stopCounting() {
        StatementCounter.countMatching(sql -> false);
    }

    @Test
    void runsTheMigrationHoldingTheLeaseFromADaemonRenewerAndFreesItAfter(DataSource dataSource) {
        MigrationLease lease = lease(dataSource, "run_lock");
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);

        String result = lease.runExclusively(Duration.ofSeconds(5), () -> {
            assertThat(holder(jdbc, "run_lock")).startsWith("migration:");
            assertThat(Thread.getAllStackTraces().keySet())
                    .filteredOn(thread -> thread.getName().equals("bizlock-migration-lease"))
                    .isNotEmpty()
                    .allMatch(Thread::isDaemon);
            return "migrated";
        });

        assertThat(result).isEqualTo("migrated");
        assertThat(holder(jdbc, "run_lock")).isNull();
    }

    @Test
    void theLeaseIsRenewedWhileTheMigrationRuns(DataSource dataSource) {
        // Renewed every 20 ms here rather than every 10 s, so that a hundred renewals are due within the 2 s the
        // test waits for one.
        MigrationLease lease = new MigrationLease(
                new LockDatabase(dataSource, Dialects.detect(dataSource, "renewed_lock")), Duration.ofMillis(20));
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);

        String result = lease.runExclusively(Duration.ofSeconds(5), () -> {
            LocalDateTime taken = leaseEnd(jdbc, "renewed_lock");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (!leaseEnd(jdbc, "renewed_lock").isAfter(taken)) {
                assertThat(System.nanoTime() - deadline)
                        .as("the lease's end moved later within 2 s")
                        .isNegative();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            return "migrated";
        });

        assertThat(result).isEqualTo("migrated");
        assertThat(holder(jdbc, "renewed_lock")).isNull();
    }

    @Test
    void anotherInstancesLeaseIsWaitedForUntilItEndsPollingAFewTimesASecond(TestDatabase database) {
        try (HikariDataSource counted = pool(database, StatementCounter.URL_PARAMETER, "")) {
            MigrationLease lease = lease(counted, "wait_lock");
            JdbcTemplate jdbc = new JdbcTemplate(counted);
            lease.runExclusively(Duration.ofSeconds(5), () -> "creates the lease table");
            takeLease(jdbc, "wait_lock", "migration:other", Duration.ofMillis(300));
            StatementCounter.countMatching(sql -> sql.contains("wait_lock_miglock") && sql.contains("expire_at <="));
            AtomicBoolean ran = new AtomicBoolean();

            long start = System.nanoTime();
            lease.runExclusively(Duration.ofSeconds(10), () -> ran.getAndSet(true));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(ran).isTrue();
            // At least 50 ms pass between two attempts.
            assertThat(StatementCounter.matched()).isBetween(2L, waitedMillis / 50 + 1);
        }
    }

    @Test
    void waitingLongerThanAllowedFailsNamingTheHolderAndHowToFreeTheLease(DataSource dataSource) {
        MigrationLease lease = lease(dataSource, "busy_lock");
        lease.runExclusively(Duration.ofSeconds(5), () -> "creates the lease table");
        takeLease(new JdbcTemplate(dataSource), "busy_lock", "migration:other", Duration.ofSeconds(30));
        AtomicBoolean ran = new AtomicBoolean();

        assertThatIllegalStateException()
                .isThrownBy(() -> lease.runExclusively(Duration.ofMillis(200), () -> ran.getAndSet(true)))
                .withMessageContaining("waited PT0.2S for another instance")
                .withMessageMatching("(?s).*\\(migration:other, lease ends in (29|30) s\\).*")
                .withMessageContaining("UPDATE busy_lock_miglock SET owner_id = NULL WHERE id = 1");
        assertThat(ran).isFalse();
    }

    /**
     * The lease row locked by another transaction: with no lock wait allowed (MariaDB's {@code innodb_lock_wait_timeout
     * = 0}) each attempt fails at once with 1205, as when another node's instance takes the lease at the same moment.
     */
    @Test
    void anAttemptTheServerRollsBackIsTriedAgainUntilTheLeaseCanBeTaken(TestDatabase database) throws Exception {
        assumeTrue(TestDatabases.server().isMariaDb(), "MySQL waits at least 1 s for a row lock");
        try (HikariDataSource noWait = pool(database, "", "SET innodb_lock_wait_timeout = 0")) {
            MigrationLease lease = lease(noWait, "conflict_lock");
            lease.runExclusively(Duration.ofSeconds(5), () -> "creates the lease table");
            CountDownLatch locked = new CountDownLatch(1);
            CompletableFuture<Void> other = CompletableFuture.runAsync(
                    () -> {
                        try (Connection connection = database.dataSource().getConnection()) {
                            lockLeaseRow(connection, "conflict_lock");
                            locked.countDown();
                            Thread.sleep(300); // another migrator's transaction, holding the row for a moment
                            connection.rollback();
                        } catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(lease.runExclusively(Duration.ofSeconds(10), () -> "migrated"))
                    .isEqualTo("migrated");
            other.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aLeaseRowLockedByAnotherTransactionPastTheWaitFailsSayingTheLeaseIsFree(TestDatabase database)
            throws Exception {
        assumeTrue(TestDatabases.server().isMariaDb(), "MySQL waits at least 1 s for a row lock");
        try (HikariDataSource noWait = pool(database, "", "SET innodb_lock_wait_timeout = 0");
                Connection other = database.dataSource().getConnection()) {
            MigrationLease lease = lease(noWait, "locked_lock");
            lease.runExclusively(Duration.ofSeconds(5), () -> "creates the lease table");
            lockLeaseRow(other, "locked_lock");
            try {
                assertThatIllegalStateException()
                        .isThrownBy(() -> lease.runExclusively(Duration.ofMillis(200), () -> "never"))
                        .withMessageContaining("still holds the migration lease (free)");
            } finally {
                other.rollback();
            }
        }
    }

    @Test
    void aFailureOtherThanAConflictIsNotRetried(DataSource dataSource) {
        // A lease table made by hand with an owner column too short for the owner written into it.
        new JdbcTemplate(dataSource)
                .execute("CREATE TABLE short_lock_miglock (id TINYINT UNSIGNED NOT NULL, owner_id VARBINARY(8) NULL,"
                        + " expire_at DATETIME(6) NOT NULL, PRIMARY KEY (id)) ENGINE = InnoDB");
        MigrationLease lease = lease(dataSource, "short_lock");

        assertThatThrownBy(() -> lease.runExclusively(Duration.ofMillis(300), () -> "never"))
                .isInstanceOf(DataAccessException.class);
    }

    @Test
    void anInterruptedWaitFailsAndLeavesTheThreadInterrupted(DataSource dataSource) {
        MigrationLease lease = lease(dataSource, "interrupted_lock");
        lease.runExclusively(Duration.ofSeconds(5), () -> "creates the lease table");
        takeLease(new JdbcTemplate(dataSource), "interrupted_lock", "migration:other", Duration.ofSeconds(30));

        Thread.currentThread().interrupt();
        try {
            assertThatIllegalStateException()
                    .isThrownBy(() -> lease.runExclusively(Duration.ofSeconds(10), () -> "never"))
                    .withMessage("Interrupted while waiting for the migration lease");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    private static MigrationLease lease(DataSource dataSource, String table) {
        return LockDaos.of(dataSource, new DataSourceTransactionManager(dataSource), Dialects.detect(dataSource, table))
                .migrationLease();
    }

    private static String holder(JdbcTemplate jdbc, String table) {
        byte[] owner = jdbc.queryForObject("SELECT owner_id FROM " + table + "_miglock WHERE id = 1", byte[].class);
        return owner == null ? null : new String(owner, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static LocalDateTime leaseEnd(JdbcTemplate jdbc, String table) {
        return jdbc.queryForObject("SELECT expire_at FROM " + table + "_miglock WHERE id = 1", LocalDateTime.class);
    }

    /** Another instance's lease, ending in {@code lease} by the database's clock. */
    private static void takeLease(JdbcTemplate jdbc, String table, String owner, Duration lease) {
        jdbc.update(
                "UPDATE " + table + "_miglock SET owner_id = ?, expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
                        + " WHERE id = 1",
                owner.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                lease.toNanos() / 1000);
    }

    /** Locks the free lease row in a transaction left open on {@code connection}, as a reader of it would. */
    private static void lockLeaseRow(Connection connection, String table) throws Exception {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement
                    .executeQuery("SELECT owner_id FROM " + table + "_miglock WHERE id = 1 LOCK IN SHARE MODE")
                    .close();
        }
    }

    private static HikariDataSource pool(TestDatabase database, String urlParameter, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl() + (urlParameter.isEmpty() ? "" : "&" + urlParameter));
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        if (!initSql.isEmpty()) {
            config.setConnectionInitSql(initSql);
        }
        return new HikariDataSource(config);
    }
}
