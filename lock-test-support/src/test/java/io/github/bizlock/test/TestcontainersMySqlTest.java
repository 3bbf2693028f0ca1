package io.github.bizlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

/** Runs only where a Docker engine answers; elsewhere JUnit reports it skipped with the reason. */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersMySqlTest {

    @Test
    void startsMySql84InAContainer() throws SQLException {
        ContainerMySqlServer server = ContainerMySqlServer.start();
        try (Connection connection =
                        DriverManager.getConnection(server.jdbcUrl(""), server.username(), server.password());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT VERSION()")) {
            rows.next();
            assertThat(rows.getString(1)).startsWith("8.4.");
        }
    }
}
