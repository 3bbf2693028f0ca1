package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Builds a lock manager for one mode, in the test JVM and in {@link LockWorker} child JVMs alike. A mode's contract
 * test (a subclass of {@link AbstractLockContractTest}) adds its case here.
 */
public final class ContractManagers {

    private ContractManagers() {}

    /**
     * A child JVM's pool on the database its first three arguments name: JDBC URL, user, password.
     *
     * @param size the most connections, one per worker thread and some for the lock manager
     */
    public static HikariDataSource childPool(List<String> args, String poolName, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setMaximumPoolSize(size);
        config.setPoolName(poolName);
        return new HikariDataSource(config);
    }

    /** Creates what the mode needs in a fresh database. */
    public static void createSchema(LockMode mode, DataSource dataSource) {
        // One schema serves every mode: the lease table, and the session modes' row and token tables.
        LockFixture.createSchema(dataSource);
    }

    /** A manager builder for the mode, on the given database, with the given owner id. */
    public static LockManagerBuilder builder(LockMode mode, DataSource dataSource, String instanceId) {
        return switch (mode) {
            case LEASE -> lease(dataSource, instanceId, Backoff.DEFAULT);
            // Held sessions come from connections of their own, never from the application's pool.
            case ROW, NAMED ->
                SessionLocks.builder(
                        mode, LockFixture.daos(dataSource), SessionLocks.dedicated(dataSource), 32, instanceId);
        };
    }

    /**
     * LEASE as the starter sets it up: waiters queue on wake locks held on plain connections of the database, and poll
     * where they cannot; with {@code -Dbizlock.test.wakeUp=false}, they only poll.
     */
    private static LockManagerBuilder lease(DataSource dataSource, String instanceId, Backoff backoff) {
        if (!"false".equals(System.getProperty("bizlock.test.wakeUp"))) {
            return LockFixture.wakingManager(dataSource, instanceId, backoff);
        }
        LockDaos dao = LockFixture.daos(dataSource);
        return LockManager.builder(instanceId)
                .engine(new LeaseLockEngine(dao.leases(), instanceId, backoff))
                .modeBindings(dao.modes());
    }

    /**
     * A manager builder for the exclusion fuzz. For LEASE, waiters retry every 1 to 10 ms instead of backing off to
     * 100 ms: the lock changes hands between the JVMs thousands of times, and with the default backoff the run would
     * mostly wait out retry pauses. Faster retries mean more contending statements, so exclusion is stressed harder.
     */
    public static LockManagerBuilder fuzzBuilder(LockMode mode, DataSource dataSource, String instanceId) {
        return switch (mode) {
            case LEASE -> lease(dataSource, instanceId, new Backoff(Duration.ofMillis(1), Duration.ofMillis(10)));
            default -> builder(mode, dataSource, instanceId);
        };
    }
}
