package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Servers older than MySQL 8.0 and MariaDB 10.6 are refused at start-up, naming the version they need, from the product
 * name and version the driver reports (as the servers and drivers of either family really report them). The dialects
 * themselves run on real servers in every other test.
 */
class DialectsTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "MySQL, 5.7.44, MySQL 8.0",
        "MySQL, 5.7.44-log, MySQL 8.0",
        "MariaDB, 10.5.23-MariaDB, MariaDB 10.6",
        "MySQL, 5.5.5-10.5.23-MariaDB, MariaDB 10.6",
        "MariaDB, 10.4.32-MariaDB-1:10.4.32+maria~ubu2004, MariaDB 10.6"
    })
    void refusesOlderServersNamingTheVersionTheyNeed(String product, String version, String needed) {
        assertThatThrownBy(() -> Dialects.forServer(product, version, TableName.DEFAULT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bizlock needs " + needed + " or later")
                .hasMessageContaining(version);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "MySQL, 8.0.31, MySqlDialect",
        "MySQL, 8.4.2, MySqlDialect",
        "MySQL, 8.0.36-0ubuntu0.22.04.1, MySqlDialect",
        "MariaDB, 10.6.0-MariaDB, MariaDbDialect",
        "MySQL, 5.5.5-10.11.6-MariaDB, MariaDbDialect",
        "MariaDB, 11.4.2-MariaDB-ubu2404, MariaDbDialect"
    })
    void acceptsTheVersionsItNeeds(String product, String version, String dialect) {
        assertThat(Dialects.forServer(product, version, TableName.DEFAULT)
                        .getClass()
                        .getSimpleName())
                .isEqualTo(dialect);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MySQL, 8.0.31, MySQL", "MySQL, 5.5.5-10.11.6-MariaDB, MariaDB", "MariaDB, 11.4.2-MariaDB, MariaDB"})
    void namesTheServerFamily(String product, String version, String family) {
        assertThat(Dialects.forServer(product, version, TableName.DEFAULT).product())
                .isEqualTo(family);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"PostgreSQL, 16.2", "H2, 2.2.224 (2023-09-17)"})
    void refusesOtherServers(String product, String version) {
        assertThatThrownBy(() -> Dialects.forServer(product, version, TableName.DEFAULT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bizlock runs on MySQL 8.0+ and MariaDB 10.6+, but the DataSource is " + product);
    }
}
