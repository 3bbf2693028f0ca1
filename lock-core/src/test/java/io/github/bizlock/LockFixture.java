package io.github.bizlock;

import io.github.bizlock.internal.jdbc.HousekeepingDao;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import java.time.Duration;
import java.util.Arrays;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** Builds lock managers on a test database without Spring Boot, the way an application without the starter would. */
public final class LockFixture {

    private LockFixture() {}

    /** Creates the lock tables from the shipped migration, as Flyway would. */
    public static void createSchema(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String ddl = LockSchema.ddl(TableName.DEFAULT).replaceAll("(?m)^--.*$", "");
        Arrays.stream(ddl.split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .forEach(jdbc::execute);
    }

    /** The lock tables' DAOs on the default table, every statement on {@code dataSource}. */
    public static LockDaos daos(DataSource dataSource) {
        return LockDaos.of(
                dataSource,
                new DataSourceTransactionManager(dataSource),
                Dialects.detect(dataSource, TableName.DEFAULT));
    }

    /** Housekeeping's DAO on the default table. */
    public static HousekeepingDao housekeeping(DataSource dataSource) {
        return daos(dataSource).housekeeping();
    }

    /** The LEASE table's DAO on the default table. */
    public static LeaseDao dao(DataSource dataSource) {
        return daos(dataSource).leases();
    }

    public static LockManagerBuilder manager(DataSource dataSource) {
        return manager(daos(dataSource), InstanceId.generate());
    }

    public static LockManagerBuilder manager(LockDaos daos, String instanceId) {
        return LockManager.builder(instanceId)
                .engine(new LeaseLockEngine(daos.leases(), instanceId, Backoff.DEFAULT))
                .modeBindings(daos.modes());
    }

    /**
     * A LEASE manager whose waiters queue on wake locks, held on plain connections of the database (as the starter
     * gives them), and poll with {@code backoff} where they cannot.
     */
    public static LockManagerBuilder wakingManager(DataSource dataSource, String instanceId, Backoff backoff) {
        LockDaos daos = daos(dataSource);
        return LockManager.builder(instanceId)
                .engine(new LeaseLockEngine(
                        daos.leases(),
                        instanceId,
                        backoff,
                        new WakeLocks(daos.dialect(), daos.schema(), SessionLocks.dedicated(dataSource))))
                .modeBindings(daos.modes());
    }

    /** The ROW engine on the DAOs' database. */
    public static SessionLockEngine row(LockDaos daos, DataSource sessions, int maxSessions, String owner) {
        return SessionLockEngine.row(daos.dialect(), daos.tokens(), sessions, maxSessions, owner);
    }

    /** The NAMED engine on the DAOs' database. */
    public static SessionLockEngine named(LockDaos daos, DataSource sessions, int maxSessions, String owner) {
        return SessionLockEngine.named(daos.dialect(), daos.tokens(), daos.schema(), sessions, maxSessions, owner);
    }

    /**
     * A manager builder with every mode's engine, as the auto-configuration builds it: one instance id, ROW and NAMED
     * sessions from connections of their own.
     */
    public static LockManagerBuilder managerOfEveryMode(DataSource dataSource) {
        String instanceId = InstanceId.generate();
        LockDaos daos = daos(dataSource);
        DataSource sessions = SessionLocks.dedicated(dataSource);
        return manager(daos, instanceId)
                .engine(row(daos, sessions, 8, instanceId))
                .engine(named(daos, sessions, 8, instanceId));
    }

    public static LockTemplate template(LockManager manager) {
        return new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(10), null);
    }
}
