package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Which servers bizlock accepts, from what the JDBC driver reports: the version strings below are the ones MySQL
 * Connector/J and the MariaDB driver return, so no server of each version is needed to check the limits.
 */
class DialectsTest {

    @Test
    void mySqlEightAndLaterGetTheMySqlDialect() {
        assertThat(Dialects.forServer("MySQL", "8.0.0", "biz_lock")).isInstanceOf(MySqlDialect.class);
        assertThat(Dialects.forServer("MySQL", "8.4.3", "biz_lock").product()).isEqualTo("MySQL");
        assertThat(Dialects.forServer("MySQL", "9.1.0", "biz_lock")).isInstanceOf(MySqlDialect.class);
    }

    @Test
    void mySqlBeforeEightIsRefusedNamingTheMinimum() {
        assertThatThrownBy(() -> Dialects.forServer("MySQL", "5.7.44-log", "biz_lock"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bizlock needs MySQL 8.0 or later")
                .hasMessageContaining("the server is MySQL 5.7.44-log");
    }

    @Test
    void mariaDbFromTenSixGetsTheMariaDbDialect() {
        assertThat(Dialects.forServer("MariaDB", "10.6.0-MariaDB", "biz_lock")).isInstanceOf(MariaDbDialect.class);
        assertThat(Dialects.forServer("MariaDB", "10.11.6-MariaDB", "biz_lock").product())
                .isEqualTo("MariaDB");
        // A major release after 10 with a minor below 6 is still new enough.
        assertThat(Dialects.forServer("MariaDB", "11.0.2-MariaDB", "biz_lock")).isInstanceOf(MariaDbDialect.class);
    }

    @Test
    void mariaDbBehindTheMySqlProtocolIsReadFromItsLastVersionNumber() {
        // Older MariaDB drivers and proxies report the product as MySQL and prefix the version with 5.5.5-.
        assertThat(Dialects.forServer("MySQL", "5.5.5-10.11.6-MariaDB", "biz_lock"))
                .isInstanceOf(MariaDbDialect.class);
        assertThatThrownBy(() -> Dialects.forServer("MySQL", "5.5.5-10.5.9-MariaDB", "biz_lock"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bizlock needs MariaDB 10.6 or later");
    }

    @Test
    void mariaDbBeforeTenSixIsRefused() {
        assertThatThrownBy(() -> Dialects.forServer("MariaDB", "10.5.27-MariaDB", "biz_lock"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bizlock needs MariaDB 10.6 or later")
                .hasMessageContaining("the server is MariaDB 10.5.27-MariaDB");
        assertThatThrownBy(() -> Dialects.forServer("MariaDB", "9.9.9", "biz_lock"))
                .hasMessageContaining("bizlock needs MariaDB 10.6 or later");
    }

    @Test
    void otherDatabasesAreRefusedByName() {
        assertThatThrownBy(() -> Dialects.forServer("PostgreSQL", "16.2", "biz_lock"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("but the DataSource is PostgreSQL 16.2");
    }

    @Test
    void statementsNameTheConfiguredTableAndAreRenderedOnce() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.36", "orders_lock");
        String template = "SELECT 1 FROM ${table} WHERE ${table}.id = 1";
        String sql = dialect.render(template);
        assertThat(sql).isEqualTo("SELECT 1 FROM orders_lock WHERE orders_lock.id = 1");
        assertThat(dialect.render(template)).isSameAs(sql);
    }

    @Test
    void statementsBeyondTheCacheBoundAreStillRendered() {
        Dialect dialect = Dialects.forServer("MySQL", "8.0.36", "biz_lock");
        for (int i = 0; i < 300; i++) {
            assertThat(dialect.render("DO SLEEP(" + i + ") -- ${table}")).isEqualTo("DO SLEEP(" + i + ") -- biz_lock");
        }
    }
}
