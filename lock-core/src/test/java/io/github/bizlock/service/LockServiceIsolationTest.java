package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTest;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** What a {@link LockService} keeps apart from the rest of the server and of the application. */
@LockTest
class LockServiceIsolationTest {

    private static LockService.Builder named(TestDatabase database) {
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        return LockService.builder(database.dataSource())
                .sessionDataSource(sessions)
                .housekeeping(false);
    }

    @Test
    void namedLocksAreKeyedByTheSecretServicesShare(TestDatabase database) {
        assumeFalse(TestDatabases.server().isCluster(), "NAMED locks are refused on a multi-writer cluster");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> named(database).namedSecret(" "))
                .withMessage("namedSecret must not be blank");
        LockOptions nowOrNever = LockOptions.defaults().mode(LockMode.NAMED).waitTime(Duration.ZERO);
        try (LockService keyed = named(database).namedSecret("s3cret").build();
                LockService sameSecret = named(database).namedSecret("s3cret").build();
                LockService unkeyed = named(database).build()) {
            try (LockHandle held = keyed.template()
                    .tryAcquire("customer", "ann@example.com", nowOrNever)
                    .orElseThrow()) {
                assertThat(sameSecret.template().tryAcquire("customer", "ann@example.com", nowOrNever))
                        .as("another instance with the same secret")
                        .isEmpty();
                Optional<LockHandle> other = unkeyed.template().tryAcquire("customer", "ann@example.com", nowOrNever);
                assertThat(other)
                        .as("without the secret the lock's name is another one")
                        .isPresent();
                other.orElseThrow().unlock();
            }
        }
    }

    /**
     * The application's pool of one connection, held by a caller (as an open transaction would hold it): LEASE locks
     * are still taken within their wait, renewed over several leases and released, on connections of the service's
     * own.
     */
    private static void leaseLocksIgnoreTheExhaustedPool(LockService.Builder builder, HikariDataSource appPool)
            throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        Duration lease = Duration.ofMillis(900);
        try (LockService locks =
                builder.watchdogLease(lease).listener(lost::add).build()) {
            try (Connection taken = appPool.getConnection()) {
                assertThat(appPool.getHikariPoolMXBean().getIdleConnections()).isZero();
                Optional<LockHandle> handle = locks.template().tryAcquire("pools", "1", Duration.ofSeconds(3));
                assertThat(handle).as("taken within its wait").isPresent();
                try (LockHandle held = handle.orElseThrow()) {
                    long until = System.nanoTime() + lease.multipliedBy(3).toNanos();
                    while (System.nanoTime() - until < 0) {
                        assertThat(lost).as("no lease lost").isEmpty();
                        Thread.sleep(50);
                    }
                    assertThat(held.isHeld()).isTrue();
                }
            }
            assertThat(lost).isEmpty();
            assertThat(locks.template().tryAcquire("pools", "1", Duration.ZERO))
                    .as("released")
                    .hasValueSatisfying(LockHandle::unlock);
        }
    }

    private static HikariDataSource poolOfOne(TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(1);
        config.setPoolName("app-of-one");
        return new HikariDataSource(config);
    }

    @Test
    void leaseLocksRunOnACopyOfTheApplicationsHikariPool(TestDatabase database) throws Exception {
        try (HikariDataSource appPool = poolOfOne(database)) {
            leaseLocksIgnoreTheExhaustedPool(LockService.builder(appPool).housekeeping(false), appPool);
        }
    }

    @Test
    void leaseLocksRunOnAPoolOfTheSessionDataSourcesConnectionsBesideAnotherPool(TestDatabase database)
            throws Exception {
        try (HikariDataSource appPool = poolOfOne(database)) {
            // Not a HikariDataSource to the service, as a pool it cannot copy.
            DataSource other = new DelegatingDataSource(appPool);
            DataSource sessions =
                    new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
            leaseLocksIgnoreTheExhaustedPool(
                    LockService.builder(other).sessionDataSource(sessions).housekeeping(false), appPool);
        }
    }

    @Test
    void leaseLocksRunOnTheLockConnectionsGiven(TestDatabase database) throws Exception {
        try (HikariDataSource appPool = poolOfOne(database)) {
            DataSource own = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
            leaseLocksIgnoreTheExhaustedPool(
                    LockService.builder(new DelegatingDataSource(appPool))
                            .lockConnections(own)
                            .housekeeping(false),
                    appPool);
        }
    }
}
