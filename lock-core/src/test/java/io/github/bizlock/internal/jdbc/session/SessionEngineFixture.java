package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.GaleraDialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Two engines of one mode (two processes) on one test database, each with its sessions from a
 * {@link SessionConnections} so that a test can run statements on them behind the engine's back. Named locks are
 * server-wide, so every test's key carries a random suffix.
 */
@LockTest
public abstract class SessionEngineFixture<E extends SessionLockEngine> {

    protected static final Duration LEASE = Duration.ofSeconds(10);

    protected TestDatabase database;
    /** Plain connections to the test database, for the test's own statements. */
    protected DataSource plain;

    protected LockDaos daos;
    protected SessionConnections aSessions;
    protected SessionConnections bSessions;
    protected E a;
    protected E b;
    protected LockKey key;

    /** The server's id of the session that holds {@code grant}. */
    protected static long connectionIdOf(Grant grant) {
        return ((SessionGrant) grant).session().connectionId();
    }

    /** A deadline five seconds from now: longer than any wait of these tests. */
    protected static long in5s() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    }

    /** The number a one-column query answers on {@code connection}: a session's own settings and id. */
    protected static long queryLong(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** An engine of the mode under test, holding at most two sessions from {@code sessions}. */
    protected abstract E engine(LockDaos daos, DataSource sessions, String owner);

    /**
     * Checks that the mode's engine, on a cluster where every node takes writes, is refused naming the mode and the
     * statement that locks one node.
     */
    protected void assertRefusedOnAMultiWriterCluster(LockMode mode, String lockStatement) {
        LockDaos galera = LockDaos.of(
                database.dataSource(),
                new DataSourceTransactionManager(database.dataSource()),
                GaleraDialects.mariaDbNode(TableName.DEFAULT));
        try (E refused = engine(galera, plain, "galera")) {
            assertThat(refused.mode()).isEqualTo(mode);
            assertThatThrownBy(refused::requireAllowedHere)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bizlock refuses " + mode + " locks on this server")
                    .hasMessageContaining(lockStatement + " locks one node only");
        }
    }

    @BeforeEach
    void engines(TestDatabase database, TestInfo test) {
        this.database = database;
        plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        daos = LockFixture.daos(database.dataSource());
        aSessions = new SessionConnections(plain);
        bSessions = new SessionConnections(plain);
        a = engine(daos, aSessions, "a");
        b = engine(daos, bSessions, "b");
        key = new LockKey("engine", test.getDisplayName() + "-" + UUID.randomUUID());
    }

    @AfterEach
    void closeEngines() throws SQLException {
        a.close();
        b.close();
        aSessions.close();
        bSessions.close();
    }
}
