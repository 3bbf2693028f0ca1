package io.github.bizlock.autoconfigure;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import com.zaxxer.hikari.util.DriverDataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** {@link LockConnections} from HikariCP's settings; loaded only when HikariCP is on the class path. */
final class HikariLockConnections {

    private HikariLockConnections() {}

    static boolean isHikari(DataSource dataSource) {
        return dataSource instanceof HikariDataSource;
    }

    /** Unpooled connections opened as the application's pool opens them, then set up as it sets them up. */
    static DataSource plain(DataSource lockDataSource) {
        HikariConfig config = new HikariConfig();
        ((HikariDataSource) lockDataSource).copyStateTo(config);
        return new PlainConnections(config);
    }

    /** Opens a connection per call: with the pool's driver, URL, properties and credentials, then its init SQL. */
    private static final class PlainConnections implements DataSource {

        private final HikariConfig config;
        private final DataSource opener;

        PlainConnections(HikariConfig config) {
            this.config = config;
            DataSource given = config.getDataSource();
            if (given != null) {
                this.opener = given;
            } else if (config.getJdbcUrl() != null) {
                this.opener = new DriverDataSource(
                        config.getJdbcUrl(),
                        config.getDriverClassName(),
                        copy(config.getDataSourceProperties()),
                        config.getUsername(),
                        config.getPassword());
            } else {
                throw new IllegalStateException("bizlock cannot open plain connections from a HikariCP pool configured"
                        + " with a data source class name or JNDI name (" + config.getPoolName() + ") for the"
                        + " connections ROW and NAMED locks hold; define a BizLockServiceCustomizer bean that gives"
                        + " LockService.Builder a sessionDataSource");
            }
        }

        private static Properties copy(Properties properties) {
            Properties copy = new Properties();
            copy.putAll(properties);
            return copy;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Credentials credentials = providedCredentials();
            Connection connection = credentials != null
                    ? opener.getConnection(credentials.getUsername(), credentials.getPassword())
                    : opener.getConnection();
            try {
                setUp(connection);
                return connection;
            } catch (SQLException | RuntimeException ex) {
                connection.close();
                throw ex;
            }
        }

        /**
         * The credentials of the pool's credentials provider, or {@code null} when it has none; HikariCP before 6 (the
         * one Spring Boot 3.5 manages) has no such provider, and its user and password are the opener's.
         */
        private @Nullable Credentials providedCredentials() {
            HikariCredentialsProvider provider;
            try {
                provider = config.getCredentialsProvider();
            } catch (LinkageError olderHikari) {
                return null;
            }
            return provider != null ? provider.getCredentials() : null;
        }

        /** What HikariCP does to each new connection that a session connection needs too. */
        private void setUp(Connection connection) throws SQLException {
            if (config.getCatalog() != null) {
                connection.setCatalog(config.getCatalog());
            }
            if (config.getSchema() != null) {
                connection.setSchema(config.getSchema());
            }
            String initSql = config.getConnectionInitSql();
            if (initSql != null) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(initSql);
                }
            }
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("bizlock session connections use the lock DataSource's user");
        }

        @Override
        public @Nullable PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            if (type.isInstance(this)) {
                return type.cast(this);
            }
            throw new SQLException("Not a wrapper of " + type);
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return type.isInstance(this);
        }

        @Override
        public String toString() {
            return "bizlock session connections of " + config.getPoolName();
        }
    }
}
