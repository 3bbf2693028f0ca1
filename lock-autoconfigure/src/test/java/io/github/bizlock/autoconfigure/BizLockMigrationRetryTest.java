package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A migration the server rolls back for a conflict (on a cluster, a certification failure against another node's
 * write: error 1213, SQLSTATE 40001) is tried again, up to three attempts; any other failure ends the start at once.
 * One server cannot be made to conflict on cue, so the lock DataSource here refuses bizlock's first {@code CREATE
 * TABLE} the way a cluster node does, before the statement reaches the server; everything else is the real server's.
 */
class BizLockMigrationRetryTest {

    /** A database of each test's own: each migrates from nothing. */
    private TestDatabase database;

    @BeforeEach
    void createDatabase() {
        database = TestDatabases.create();
    }

    @AfterEach
    void dropDatabase() {
        database.close();
    }

    @Test
    void aMigrationRolledBackForAConflictIsTriedAgainAndTheLocksWork() {
        RefusingDataSource lockDatabase = new RefusingDataSource(database.dataSource(), 2, conflict());

        try (LockService service = start(lockDatabase)) {
            try (LockHandle lock = service.template().acquire("migration", "retried")) {
                assertThat(lock.isHeld()).isTrue();
            }
        }
        assertThat(lockDatabase.refused).as("both refusals were met").hasValue(2);
        assertThat(appliedVersions())
                .as("every migration applied once, none recorded failed")
                .isEqualTo(migrations());
    }

    /** bizlock's migrations, as Flyway finds them. */
    private static int migrations() {
        try {
            return new PathMatchingResourcePatternResolver()
                    .getResources("classpath*:db/bizlock/migration/V*__*.sql")
                    .length;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Test
    void aMigrationRolledBackForAConflictThreeTimesFailsTheStart() {
        SQLException conflict = conflict();
        RefusingDataSource lockDatabase = new RefusingDataSource(database.dataSource(), 3, conflict);

        assertThatThrownBy(() -> start(lockDatabase)).hasRootCause(conflict);
        assertThat(lockDatabase.refused).as("three attempts, no fourth").hasValue(3);
    }

    @Test
    void aMigrationThatFailsForAnotherReasonIsNotTriedAgain() {
        SQLException full = new SQLException("The table 'biz_lock' is full", "HY000", 1114);
        RefusingDataSource lockDatabase = new RefusingDataSource(database.dataSource(), 3, full);

        assertThatThrownBy(() -> start(lockDatabase)).hasRootCause(full);
        assertThat(lockDatabase.refused).as("one attempt").hasValue(1);
    }

    private static LockService start(DataSource lockDatabase) {
        return LockService.builder(lockDatabase)
                .lockConnections(lockDatabase)
                .housekeeping(false)
                .prepareTables(new BizLockSchemaInitializer(true))
                .build();
    }

    private int appliedVersions() {
        return new JdbcTemplate(database.dataSource())
                .queryForObject(
                        "SELECT COUNT(*) FROM biz_lock_migrations WHERE success = 1 AND version > '0'", Integer.class);
    }

    /** The error a Galera node reports for a transaction that lost certification against another node's write. */
    private static SQLException conflict() {
        return new SQLException("Deadlock found when trying to get lock; try restarting transaction", "40001", 1213);
    }

    /**
     * The lock database, whose connections refuse bizlock's first {@code CREATE TABLE} statements (not the Flyway
     * history table's) with {@code failure}, {@code times} times, before sending them.
     */
    private static final class RefusingDataSource extends DelegatingDataSource {

        final AtomicInteger refused = new AtomicInteger();
        private final int times;
        private final SQLException failure;

        RefusingDataSource(DataSource target, int times, SQLException failure) {
            super(target);
            this.times = times;
            this.failure = failure;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            return (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        Object result = invoke(connection, method, args);
                        return result instanceof Statement statement
                                        && method.getName().equals("createStatement")
                                ? refusing(statement)
                                : result;
                    });
        }

        private Statement refusing(Statement statement) {
            InvocationHandler handler = (proxy, method, args) -> {
                if (method.getName().startsWith("execute")
                        && args != null
                        && args.length > 0
                        && args[0] instanceof String sql
                        && sql.contains("CREATE TABLE")
                        && !sql.contains("_migrations")
                        && refused.get() < times) {
                    refused.incrementAndGet();
                    throw failure;
                }
                return invoke(statement, method, args);
            };
            return (Statement)
                    Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, handler);
        }

        private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        }
    }
}
