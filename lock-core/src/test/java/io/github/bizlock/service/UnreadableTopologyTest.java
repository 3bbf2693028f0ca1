package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTest;
import io.github.bizlock.test.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Issue 30 item 2: when the server's replication settings cannot be read at start (a proxy that refuses {@code SHOW
 * GLOBAL VARIABLES}, a transient error), bizlock cannot tell a server on its own from a node of a multi-writer cluster,
 * where ROW and NAMED locks lock one node only. It must fail closed: refuse them, saying why and what to do, until the
 * settings can be read, and read them again at a later lock.
 */
@LockTest
class UnreadableTopologyTest {

    @Test
    void rowAndNamedLocksAreRefusedUntilTheSettingsCanBeReadThenWork(TestDatabase database) {
        RefusingVariables proxy = new RefusingVariables(database.dataSource());
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        try (LockService service =
                LockService.builder(proxy).sessionDataSource(sessions).build()) {
            for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                assertThatThrownBy(() -> service.template()
                                .acquire(
                                        "unread-" + mode,
                                        "1",
                                        LockOptions.defaults().mode(mode)))
                        .as(mode + " is refused while the topology is unknown")
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("could not read the server's replication settings")
                        .hasMessageContaining("SHOW GLOBAL VARIABLES refused (test)")
                        .hasMessageContaining("bizlock.cluster.single-writer");
            }
            try (LockHandle lease = service.template().acquire("unread-lease", "1")) {
                assertThat(lease.isHeld()).as("LEASE is exact on any topology").isTrue();
            }

            proxy.refusing.set(false); // the proxy lets the settings through again
            awaitAllowed(service, LockMode.ROW);
            awaitAllowed(service, LockMode.NAMED);
        }
    }

    @Test
    void aDeclaredSingleWriterNeedsNoSettingsForRowAndNamedLocks(TestDatabase database) {
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        try (LockService service = LockService.builder(new RefusingVariables(database.dataSource()))
                        .sessionDataSource(sessions)
                        .singleWriter(true)
                        .build();
                LockHandle row = service.template()
                        .acquire("declared", "1", LockOptions.defaults().mode(LockMode.ROW))) {
            assertThat(row.isHeld()).isTrue();
        }
    }

    /** The settings are read again at a later lock, at most about once a second. */
    private static void awaitAllowed(LockService service, LockMode mode) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            try (LockHandle handle = service.template()
                    .acquire("read-" + mode, "1", LockOptions.defaults().mode(mode))) {
                assertThat(handle.isHeld()).isTrue();
                return;
            } catch (IllegalStateException refused) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(mode + " still refused 5 s after the settings could be read", refused);
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Connections whose statements refuse {@code SHOW GLOBAL VARIABLES}, as some SQL proxies do. */
    private static final class RefusingVariables extends DelegatingDataSource {

        final AtomicBoolean refusing = new AtomicBoolean(true);

        RefusingVariables(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            return (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        Object result = invoke(connection, method, args);
                        return method.getName().equals("createStatement")
                                ? refusingStatement((Statement) result)
                                : result;
                    });
        }

        private Statement refusingStatement(Statement statement) {
            return (Statement) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                        if (refusing.get()
                                && args != null
                                && args.length > 0
                                && args[0] instanceof String sql
                                && sql.toUpperCase(Locale.ROOT).contains("SHOW GLOBAL VARIABLES")) {
                            throw new SQLSyntaxErrorException("SHOW GLOBAL VARIABLES refused (test)", "42000", 1227);
                        }
                        return invoke(statement, method, args);
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        }
    }
}
