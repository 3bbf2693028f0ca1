package io.github.bizlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestDatabaseExtension.class)
class TestDatabaseExtensionTest {

    @Test
    void connectsToAnEmptyDatabaseOfItsOwn(TestDatabase database) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT DATABASE(), COUNT(*) FROM information_schema.tables "
                        + "WHERE table_schema = DATABASE()")) {
            rows.next();
            assertThat(rows.getString(1)).isEqualTo(database.name());
            assertThat(rows.getInt(2)).isZero();
        }
    }

    @Test
    void reportsTheServerThatAnswers(TestDatabase database) throws SQLException {
        TestDatabases.ServerInfo server = database.server();
        try (Connection connection = database.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT VERSION()")) {
            rows.next();
            String version = rows.getString(1);
            assertThat(version).startsWith(server.version());
            assertThat(version.toLowerCase().contains("mariadb")).isEqualTo(server.isMariaDb());
        }
        TestDatabaseKind kind = TestDatabaseKind.fromEnvironment();
        if (kind == TestDatabaseKind.MYSQL) {
            assertThat(server.product()).isEqualTo("MySQL");
            assertThat(server.version()).startsWith("8.0.");
            assertThat(server.server().origin()).isEqualTo("embedded");
        } else if (kind == TestDatabaseKind.MARIADB) {
            assertThat(server.product()).isEqualTo("MariaDB");
        }
    }

    @Test
    void everyDataSourceParameterIsTheSameDatabase(DataSource dataSource, TestDatabase database) {
        assertThat(dataSource).isSameAs(database.dataSource());
    }

    @Test
    void createsAndDropsDatabases() throws SQLException {
        TestDatabase other = TestDatabases.create();
        String name = other.name();
        try (Connection connection = other.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE probe (id INT PRIMARY KEY, note VARCHAR(10))");
            statement.execute("INSERT INTO probe VALUES (1, 'one')");
        }
        assertThat(databaseNames()).contains(name);

        other.close();

        assertThat(databaseNames()).doesNotContain(name);
    }

    private static List<String> databaseNames() throws SQLException {
        DatabaseServer server = TestDatabases.server().server();
        List<String> names = new ArrayList<>();
        try (Connection connection =
                        DriverManager.getConnection(server.jdbcUrl(""), server.username(), server.password());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW DATABASES")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
