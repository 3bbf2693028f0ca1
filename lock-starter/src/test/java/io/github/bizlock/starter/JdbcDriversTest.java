package io.github.bizlock.starter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The starter brings no JDBC driver: an application on MySQL Connector/J and one on MariaDB Connector/J each get their
 * tables and locks in every mode, on MySQL and on MariaDB ({@code BIZLOCK_TEST_DB}). Two applications stand for two
 * instances of a service.
 */
@ExtendWith(TestDatabaseExtension.class)
class JdbcDriversTest {

    @SpringBootApplication(proxyBeanMethods = false)
    static class LockingApplication {}

    private static final String CONNECTOR_J = "com.mysql.cj.jdbc.Driver";
    private static final String MARIADB_CONNECTOR_J = "org.mariadb.jdbc.Driver";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {CONNECTOR_J, MARIADB_CONNECTOR_J})
    void locksInEveryModeWithTheDriverTheApplicationChose(String driver, TestDatabase database) throws Exception {
        String url = driver.equals(MARIADB_CONNECTOR_J) ? mariaDbUrl(database.jdbcUrl()) : database.jdbcUrl();
        try (ConfigurableApplicationContext first = start(driver, url, database);
                ConfigurableApplicationContext second = start(driver, url, database)) {
            try (Connection connection = first.getBean(DataSource.class).getConnection()) {
                assertThat(connection.getMetaData().getDriverName())
                        .as("the driver the application chose")
                        .contains(driver.equals(MARIADB_CONNECTOR_J) ? "MariaDB" : "MySQL");
            }
            LockTemplate one = first.getBean(LockTemplate.class);
            LockTemplate other = second.getBean(LockTemplate.class);
            for (LockMode mode : LockMode.values()) {
                String name = "drivers-" + mode.name().toLowerCase(Locale.ROOT) + "-" + driver.hashCode();
                LockOptions waitBriefly = LockOptions.defaults().mode(mode).waitTime(Duration.ofMillis(300));
                LockHandle held = one.acquire(name, "1", LockOptions.defaults().mode(mode));
                long heldToken = held.fencingToken();
                assertThat(other.tryAcquire(name, "1", waitBriefly))
                        .as("%s lock held by the other instance", mode)
                        .isEmpty();
                held.unlock();
                try (LockHandle next = other.tryAcquire(name, "1", waitBriefly).orElseThrow()) {
                    assertThat(next.fencingToken())
                            .as("%s token after a release", mode)
                            .isGreaterThan(heldToken);
                }
            }
        }
    }

    private static ConfigurableApplicationContext start(String driver, String url, TestDatabase database) {
        return new SpringApplicationBuilder(LockingApplication.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.datasource.url=" + url,
                        "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=" + database.password(),
                        "spring.datasource.driver-class-name=" + driver)
                .run();
    }

    /** The test database's Connector/J URL for MariaDB Connector/J: same server and database, its own options. */
    private static String mariaDbUrl(String connectorJUrl) {
        String hostAndDatabase =
                connectorJUrl.substring("jdbc:mysql://".length()).replaceFirst("\\?.*$", "");
        // Test servers run without TLS, which is MariaDB Connector/J's default; MySQL 8 sends its key for the password.
        return "jdbc:mariadb://" + hostAndDatabase + "?allowPublicKeyRetrieval=true";
    }
}
