package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import io.github.bizlock.internal.jdbc.HikariLockPool;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connections bizlock opens beside the application's pool, made from its settings: the write pool's size, name and
 * start, and the plain session connections' catalog, init SQL, credentials and opener.
 */
@ExtendWith(TestDatabaseExtension.class)
class HikariLockConnectionsTest {

    /** The application's pool, configured but not started: bizlock only reads its settings. */
    private static HikariDataSource applicationPool(TestDatabase database) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName("app");
        pool.setJdbcUrl(database.jdbcUrl());
        pool.setUsername(database.username());
        pool.setPassword(database.password());
        return pool;
    }

    private static String query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    @Test
    void theWritePoolIsAsLargeAsMaxSizeKeepsOneIdleAndIsNamedAfterTheApplicationsPool(TestDatabase database)
            throws Exception {
        try (HikariDataSource app = applicationPool(database);
                HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 3)) {
            assertThat(writes.getMaximumPoolSize()).isEqualTo(3);
            assertThat(writes.getMinimumIdle()).isEqualTo(1);
            assertThat(writes.getPoolName()).isEqualTo("app-bizlock");
            assertThat(writes.isRegisterMbeans()).isFalse();
            assertThat(query(writes, "SELECT DATABASE()")).isEqualTo(database.name());
        }
    }

    /** Spring Boot's pool is named when it starts, which may be after bizlock copied its settings. */
    @Test
    void theWritePoolOfAnUnnamedPoolIsNamedBizlock(TestDatabase database) {
        try (HikariDataSource app = applicationPool(database)) {
            app.setPoolName(null);
            try (HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 2)) {
                assertThat(writes.getPoolName()).isEqualTo("bizlock");
            }
        }
    }

    /**
     * Started at its first connection, not when made: a pool started while the database is down would keep trying in
     * the background, at last every 5 s, and lend nothing until such a try succeeds.
     */
    @Test
    void theWritePoolStartsAtItsFirstConnection(TestDatabase database) throws Exception {
        try (HikariDataSource app = applicationPool(database);
                HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 2)) {
            assertThat(writes.getHikariPoolMXBean()).as("started when made").isNull();
            assertThat(query(writes, "SELECT DATABASE()")).isEqualTo(database.name());
            assertThat(writes.getHikariPoolMXBean())
                    .as("started at its first connection")
                    .isNotNull();
        }
    }

    @Test
    void theWritePoolChecksAnIdleConnectionForOneSecondAtMost(TestDatabase database) throws Exception {
        try (HikariDataSource app = applicationPool(database);
                HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 3)) {
            assertThat(app.getValidationTimeout()).as("HikariCP's default").isEqualTo(5000);
            assertThat(writes.getValidationTimeout())
                    .as("a check of a connection to a dead host holds a lock statement this long past its deadline")
                    .isEqualTo(1000);
        }
        try (HikariDataSource app = applicationPool(database)) {
            app.setValidationTimeout(400);
            try (HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 3)) {
                assertThat(writes.getValidationTimeout())
                        .as("a shorter one is kept")
                        .isEqualTo(400);
            }
        }
    }

    @Test
    void theWritePoolIsMadeWhileTheDatabaseDoesNotAnswer() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (HikariDataSource app = new HikariDataSource()) {
            app.setJdbcUrl("jdbc:mysql://127.0.0.1:" + closedPort + "/nowhere");
            app.setUsername("nobody");
            app.setConnectionTimeout(250);
            // As the application's own pool does by default: the first connection is made at first use.
            try (HikariDataSource writes = (HikariDataSource) HikariLockPool.copyOf(app, 2)) {
                assertThat(writes.getInitializationFailTimeout()).isNegative();
                assertThatExceptionOfType(SQLException.class).isThrownBy(writes::getConnection);
            }
        }
    }

    @Test
    void sessionConnectionsAreUnpooledAndSetUpAsThePoolSetsUpItsOwn(TestDatabase database) throws Exception {
        try (HikariDataSource app = applicationPool(database)) {
            app.setCatalog("information_schema");
            app.setConnectionInitSql("SET @bizlock_probe = 'init'");
            DataSource sessions = LockConnections.plain(app);
            try (Connection first = sessions.getConnection();
                    Connection second = sessions.getConnection();
                    Statement statement = first.createStatement();
                    ResultSet row = statement.executeQuery("SELECT DATABASE(), @bizlock_probe")) {
                row.next();
                assertThat(row.getString(1)).as("the pool's catalog").isEqualTo("information_schema");
                assertThat(row.getString(2)).as("the pool's init SQL").isEqualTo("init");
                assertThat(second).isNotSameAs(first);
            }
            assertThat(sessions.toString()).isEqualTo("bizlock session connections of app");
            assertThat(sessions.isWrapperFor(DataSource.class)).isTrue();
            assertThat(sessions.isWrapperFor(HikariDataSource.class)).isFalse();
            assertThat(sessions.unwrap(DataSource.class)).isSameAs(sessions);
            assertThatExceptionOfType(SQLException.class).isThrownBy(() -> sessions.unwrap(HikariDataSource.class));
            assertThatExceptionOfType(SQLFeatureNotSupportedException.class)
                    .isThrownBy(() -> sessions.getConnection("other", "secret"));
        }
    }

    @Test
    void sessionConnectionsTakeTheCredentialsOfThePoolsCredentialsProvider(TestDatabase database) throws Exception {
        try (HikariDataSource app = applicationPool(database)) {
            app.setUsername("not-" + database.username());
            app.setCredentialsProvider(() -> new Credentials(database.username(), database.password()));

            String user = query(LockConnections.plain(app), "SELECT CURRENT_USER()");

            assertThat(user).startsWith(database.username() + "@");
        }
    }

    @Test
    void sessionConnectionsOpenThroughThePoolsOwnDataSourceWhenItHasOne(TestDatabase database) throws Exception {
        try (HikariDataSource app = new HikariDataSource()) {
            app.setPoolName("wrapping");
            app.setDataSource(database.dataSource());

            assertThat(query(LockConnections.plain(app), "SELECT DATABASE()")).isEqualTo(database.name());
        }
    }

    @Test
    void sessionConnectionsCannotBeMadeFromAPoolConfiguredByDataSourceClassName() {
        try (HikariDataSource app = new HikariDataSource()) {
            app.setPoolName("by-class-name");
            app.setDataSourceClassName("com.mysql.cj.jdbc.MysqlDataSource");

            assertThatIllegalStateException()
                    .isThrownBy(() -> LockConnections.plain(app))
                    .withMessageContaining("by-class-name")
                    .withMessageContaining("BizLockServiceCustomizer");
        }
    }

    @Test
    void sessionConnectionsOfADataSourceWithoutAReadableUrlNeedADataSourceOfTheirOwn() {
        DataSource unknown = new org.springframework.jdbc.datasource.AbstractDataSource() {
            @Override
            public Connection getConnection() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Connection getConnection(String username, String password) {
                throw new UnsupportedOperationException();
            }
        };

        assertThatIllegalStateException()
                .isThrownBy(() -> LockConnections.plain(unknown))
                .withMessageContaining("cannot read the URL and credentials of the lock DataSource")
                .withMessageContaining("BizLockServiceCustomizer");
    }
}
