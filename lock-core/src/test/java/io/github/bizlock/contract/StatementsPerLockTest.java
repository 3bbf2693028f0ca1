package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Counts the statements the server receives for one uncontended lock and unlock in each mode (what its
 * {@code Questions} counter counts, transaction control included, counted on this test's connections by
 * {@link StatementCounter}), and prints them for the table of docs/modes.md.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatementsPerLockTest {

    private static final int CYCLES = 50;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(LockMode.LEASE, dataSource);
    }

    /**
     * Per mode: statements without asking for the fencing token, and asking for it. LEASE writes its token with the
     * lock, and takes and releases the key's wake lock around the row (its waiters in other processes queue on it);
     * NAMED issues it on the held connection; ROW issues it through the application's pool and then checks that
     * its session still answers.
     */
    @ParameterizedTest
    @CsvSource({
        "LEASE, false, 4",
        "LEASE, true, 4",
        "ROW, false, 2",
        "ROW, true, 4",
        "NAMED, false, 2",
        "NAMED, true, 3"
    })
    void oneLockAndUnlockCostsAFewStatements(LockMode mode, boolean token, int expected, TestDatabase database)
            throws Exception {
        try (HikariDataSource counted = countedPool(database);
                LockManager manager = ContractManagers.builder(mode, counted, InstanceId.generate())
                        .build()) {
            // A name per mode (each name is bound to one mode). The first cycle binds the name to its mode in this
            // process (2 statements, once per name and process), creates the rows and opens the connections.
            LockKey key = new LockKey("statements-" + mode, "1");
            cycle(manager, key, mode, true);
            long before = StatementCounter.sent();
            for (int i = 0; i < CYCLES; i++) {
                cycle(manager, key, mode, token);
            }
            double perCycle = (StatementCounter.sent() - before) / (double) CYCLES;
            System.out.printf(
                    "%s %s: %.1f statements per lock and unlock%s (transaction control included)%n",
                    TestDatabases.server(), mode, perCycle, token ? " with a fencing token" : "");
            // A heartbeat or renewal may fall into the run.
            assertThat(perCycle).isBetween((double) expected, expected + 0.1);
        }
    }

    /**
     * Per mode, for a semaphore of 4 permits (docs/semaphore.md): a permit taken and given back uncontended costs what
     * one lock and unlock of its slot costs, and a waiter's round of tries while all 4 are held elsewhere costs one try
     * per slot, each what a lock that is held elsewhere costs with a wait of zero: 2 statements in LEASE and ROW, 1
     * ({@code GET_LOCK(..., 0)}) in NAMED.
     */
    @ParameterizedTest
    @CsvSource({"LEASE, 4, 8", "ROW, 2, 8", "NAMED, 2, 4"})
    void aPermitCostsItsSlotsLockAndARoundOfWaitingOneTryPerSlot(
            LockMode mode, int expectedPerPermit, int expectedPerRound, TestDatabase database) throws Exception {
        String name = "permit-statements-" + mode;
        try (HikariDataSource counted = countedPool(database);
                LockManager holder = ContractManagers.builder(mode, counted, InstanceId.generate())
                        .build();
                LockManager waiter = ContractManagers.builder(mode, counted, InstanceId.generate())
                        .build()) {
            LockTemplate holds = new DefaultLockTemplate(holder, mode, Duration.ofSeconds(10), null);
            LockTemplate waits = new DefaultLockTemplate(waiter, mode, Duration.ofSeconds(10), null);
            // Bind the name in both processes, create every slot's row and open the sessions.
            for (LockTemplate locks : List.of(waits, holds)) {
                List<PermitHandle> all = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    all.add(locks.acquirePermit(name, "k", 4));
                }
                all.forEach(PermitHandle::unlock);
            }
            long before = StatementCounter.sent();
            for (int i = 0; i < CYCLES; i++) {
                holds.acquirePermit(name, "k", 4).unlock();
            }
            double perPermit = (StatementCounter.sent() - before) / (double) CYCLES;
            List<PermitHandle> all = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                all.add(holds.acquirePermit(name, "k", 4));
            }
            long beforeRound = StatementCounter.sent();
            for (int i = 0; i < 10; i++) {
                assertThat(waits.tryAcquirePermit(name, "k", 4, Duration.ZERO)).isEmpty();
            }
            double perRound = (StatementCounter.sent() - beforeRound) / 10.0;
            all.forEach(PermitHandle::unlock);
            System.out.printf(
                    "%s %s: %.1f statements per permit taken and given back, %.1f per round of tries while all 4"
                            + " are held%n",
                    TestDatabases.server(), mode, perPermit, perRound);
            // A heartbeat or renewal may fall into the runs.
            assertThat(perPermit).isBetween((double) expectedPerPermit, expectedPerPermit + 0.1);
            assertThat(perRound).isBetween((double) expectedPerRound, expectedPerRound + 0.2);
        }
    }

    /**
     * A pool on the test database whose connections, and the ROW and NAMED sessions opened with its URL, count what
     * they send: the server's own counter is shared with every other client of the server.
     */
    private static HikariDataSource countedPool(TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl() + "&" + StatementCounter.URL_PARAMETER);
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    private static void cycle(LockManager manager, LockKey key, LockMode mode, boolean token)
            throws InterruptedException {
        LockHandle handle = manager.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow();
        if (token) {
            assertThat(handle.fencingToken()).isPositive();
        }
        handle.unlock();
    }
}
