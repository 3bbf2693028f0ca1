package io.github.bizlock.internal.jdbc.session;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * One process's view of ROW or NAMED locks for tests: a lock manager whose engine holds sessions from a dedicated,
 * unpooled data source, as an application would configure it.
 */
public final class SessionLocks implements AutoCloseable {

    public static final Duration HEARTBEAT_LEASE = Duration.ofMillis(600);

    private final LockManager manager;
    private final LockEngine engine;
    private final LockTemplate template;

    private SessionLocks(LockManager manager, LockEngine engine, LockMode mode) {
        this.manager = manager;
        this.engine = engine;
        this.template = new DefaultLockTemplate(manager, mode, Duration.ofSeconds(10), null);
    }

    public static SessionLocks open(LockMode mode, DataSource app, String url, String user, String password) {
        return open(mode, LockFixture.daos(app), new DriverManagerDataSource(url, user, password), 8);
    }

    public static SessionLocks open(LockMode mode, LockDaos daos, DataSource sessions, int maxSessions) {
        return open(mode, daos, sessions, maxSessions, HEARTBEAT_LEASE);
    }

    /** With the given watchdog lease instead of the tests' short {@link #HEARTBEAT_LEASE}. */
    public static SessionLocks open(
            LockMode mode, LockDaos daos, DataSource sessions, int maxSessions, Duration watchdogLease) {
        String owner = InstanceId.generate();
        LockEngine engine = engine(mode, daos, sessions, maxSessions, owner);
        LockManager manager = LockManager.builder(owner)
                .engine(engine)
                .modeBindings(daos.modes())
                .watchdogLease(watchdogLease)
                .build();
        return new SessionLocks(manager, engine, mode);
    }

    /** A lock manager builder with the mode's engine, holding sessions from the given data source. */
    public static LockManagerBuilder builder(
            LockMode mode, LockDaos daos, DataSource sessions, int maxSessions, String owner) {
        return LockManager.builder(owner)
                .engine(engine(mode, daos, sessions, maxSessions, owner))
                .modeBindings(daos.modes());
    }

    private static LockEngine engine(LockMode mode, LockDaos daos, DataSource sessions, int maxSessions, String owner) {
        return switch (mode) {
            case NAMED -> LockFixture.named(daos, sessions, maxSessions, owner);
            case ROW -> LockFixture.row(daos, sessions, maxSessions, owner);
            case LEASE -> throw new IllegalArgumentException("not a session mode");
        };
    }

    /**
     * A data source of plain connections to the same database as a Hikari pool, for sessions: held sessions must not
     * come from the application's pool.
     */
    public static DataSource dedicated(DataSource dataSource) {
        if (dataSource instanceof HikariDataSource hikari) {
            return new DriverManagerDataSource(hikari.getJdbcUrl(), hikari.getUsername(), hikari.getPassword());
        }
        return dataSource;
    }

    public LockManager manager() {
        return manager;
    }

    public LockTemplate template() {
        return template;
    }

    public LockEngine engine() {
        return engine;
    }

    public int heldSessions() {
        return ((SessionLockEngine) engine).heldSessions();
    }

    /** Kills a connection from another one, as an operator or a failover would. */
    public static void kill(DataSource dataSource, long connectionId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("KILL " + connectionId);
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
