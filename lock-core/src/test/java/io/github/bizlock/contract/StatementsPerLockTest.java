package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Counts the statements the server receives for one uncontended lock and unlock in each mode (the server's
 * {@code Questions} counter, transaction control included), and prints them for the README's mode table.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatementsPerLockTest {

    private static final int CYCLES = 50;

    /** Measurements taken at most, when other clients of a shared server add to the counter. */
    private static final int RUNS = 5;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(LockMode.LEASE, dataSource);
    }

    /**
     * Per mode: statements without asking for the fencing token, and asking for it. LEASE writes its token with the
     * lock; NAMED issues it on the held connection; ROW issues it through the application's pool and then checks that
     * its session still answers.
     */
    @ParameterizedTest
    @CsvSource({
        "LEASE, false, 2",
        "LEASE, true, 2",
        "ROW, false, 2",
        "ROW, true, 4",
        "NAMED, false, 2",
        "NAMED, true, 3"
    })
    void oneLockAndUnlockCostsAFewStatements(LockMode mode, boolean token, int expected, DataSource dataSource)
            throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        try (LockManager manager = ContractManagers.builder(mode, dataSource, InstanceId.generate())
                .build()) {
            // A name per mode (each name is bound to one mode). The first cycle binds the name to its mode in this
            // process (2 statements, once per name and process), creates the rows and opens the connections.
            LockKey key = new LockKey("statements-" + mode, "1");
            cycle(manager, key, mode, true);
            // The counter is the whole server's: other clients can only add to it, never take away, so the least of a
            // few runs is the closest reading of bizlock's own statements.
            double perCycle = Double.MAX_VALUE;
            for (int run = 0; run < RUNS && perCycle > expected + 0.1; run++) {
                perCycle = Math.min(perCycle, statementsPerCycle(manager, key, mode, token, jdbc));
            }
            System.out.printf(
                    "%s %s: %.1f statements per lock and unlock%s (transaction control included)%n",
                    TestDatabases.server(), mode, perCycle, token ? " with a fencing token" : "");
            // A heartbeat or renewal may fall into the run.
            assertThat(perCycle).isBetween((double) expected, expected + 0.1);
        }
    }

    private static double statementsPerCycle(
            LockManager manager, LockKey key, LockMode mode, boolean token, JdbcTemplate jdbc)
            throws InterruptedException {
        long before = questions(jdbc);
        for (int i = 0; i < CYCLES; i++) {
            cycle(manager, key, mode, token);
        }
        // The second reading counts itself once.
        return (questions(jdbc) - before - 1) / (double) CYCLES;
    }

    private static void cycle(LockManager manager, LockKey key, LockMode mode, boolean token)
            throws InterruptedException {
        LockHandle handle = manager.tryAcquire(key, mode, Duration.ZERO, null).orElseThrow();
        if (token) {
            assertThat(handle.fencingToken()).isPositive();
        }
        handle.unlock();
    }

    private static long questions(JdbcTemplate jdbc) {
        return jdbc.query("SHOW GLOBAL STATUS LIKE 'Questions'", rs -> {
            rs.next();
            return rs.getLong(2);
        });
    }
}
