package io.github.bizlock.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The one test server of this JVM and fresh databases on it.
 *
 * <p>The server is chosen by {@code BIZLOCK_TEST_DB}: {@code mysql} (embedded MySQL 8.0), {@code mariadb} (the server at
 * {@code BIZLOCK_TEST_JDBC_URL}), {@code testcontainers} (MySQL 8.4), {@code galera} (a 3-node MariaDB Galera cluster), or unset (Testcontainers when a Docker engine
 * answers, embedded MySQL otherwise). It is started on first use and announced once on standard output.
 */
public final class TestDatabases {

    private static volatile ServerInfo server;

    private TestDatabases() {}

    /** The server of this JVM, started and announced on first call. */
    public static ServerInfo server() {
        ServerInfo current = server;
        if (current == null) {
            synchronized (TestDatabases.class) {
                current = server;
                if (current == null) {
                    current = describe(startServer());
                    System.out.println("bizlock test database: " + current);
                    server = current;
                }
            }
        }
        return current;
    }

    /** Creates an empty database with a unique name; closing the result drops it. */
    public static TestDatabase create() {
        ServerInfo info = server();
        String name = "bizlock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute(info.server(), "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        return new TestDatabase(info, name);
    }

    /** Runs the statements one after the other on one connection of the server. */
    static void execute(DatabaseServer server, String... statements) {
        try (Connection connection =
                        DriverManager.getConnection(server.jdbcUrl(""), server.username(), server.password());
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                try {
                    statement.execute(sql);
                } catch (SQLException ex) {
                    throw new IllegalStateException("'" + sql + "' failed on the test server: " + ex.getMessage(), ex);
                }
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("The test server refused a connection: " + ex.getMessage(), ex);
        }
    }

    private static DatabaseServer startServer() {
        TestDatabaseKind kind = TestDatabaseKind.fromEnvironment();
        if (kind == null) {
            kind = ContainerMySqlServer.dockerAvailable() ? TestDatabaseKind.TESTCONTAINERS : TestDatabaseKind.MYSQL;
        }
        return switch (kind) {
            case MYSQL -> EmbeddedMySqlServer.start();
            case MARIADB -> ExternalServer.fromEnvironment();
            case TESTCONTAINERS -> ContainerMySqlServer.start();
            case GALERA -> GaleraCluster.startOrReuse();
        };
    }

    private static ServerInfo describe(DatabaseServer server) {
        try (Connection connection =
                        DriverManager.getConnection(server.jdbcUrl(""), server.username(), server.password());
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT VERSION()")) {
            row.next();
            String version = row.getString(1);
            boolean mariaDb = version.toLowerCase(Locale.ROOT).contains("mariadb");
            String number = version.split("-", 2)[0];
            return new ServerInfo(server, mariaDb ? "MariaDB" : "MySQL", number);
        } catch (SQLException ex) {
            throw new IllegalStateException(
                    "Cannot connect to the test database server at " + server.jdbcUrl("")
                            + " as " + server.username() + ": " + ex.getMessage()
                            + ". For BIZLOCK_TEST_DB=mariadb start it with "
                            + "'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd'",
                    ex);
        }
    }

    /** A server with the product and version it reported. */
    public record ServerInfo(DatabaseServer server, String product, String version) {

        public boolean isMariaDb() {
            return product.equals("MariaDB");
        }

        /** Whether the tests run on a cluster of several nodes that all accept writes (Galera). */
        public boolean isCluster() {
            return server.nodeJdbcUrls("").size() > 1;
        }

        @Override
        public String toString() {
            return product + " " + version + " (" + server.origin() + ")";
        }
    }
}
