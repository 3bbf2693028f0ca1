package io.github.bizlock.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.starter.TestApplications;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Spring Boot 3.5 application with README's dependencies (the starter, a driver, {@code flyway-mysql}), on a schema
 * that already has tables, no Flyway history and no migrations of the application's own: it starts as it did before
 * bizlock. On Boot 3.5 Flyway on the class path alone turns on Spring Boot's migration of the application's schema,
 * which failed such a start with "Found non-empty schema(s) ... but no schema history table"; bizlock keeps it off when
 * the application does not use it ({@code ApplicationFlywayTest} has the other cases, on Spring Boot 4).
 */
@ExtendWith(OutputCaptureExtension.class)
class ApplicationFlywayBoot3Test {

    @SpringBootApplication(proxyBeanMethods = false)
    static class ExistingApplication {}

    /** A database of each test's own: each starts from a schema of its own making. */
    private TestDatabase database;

    private JdbcTemplate jdbc;

    @BeforeEach
    void createDatabaseWithTheApplicationsTable() {
        database = TestDatabases.create();
        jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)");
        jdbc.update("INSERT INTO customer (id, name) VALUES (1, 'Ada')");
    }

    @AfterEach
    void dropDatabase() {
        database.close();
    }

    @Test
    void anApplicationWithTablesAndNoFlywayOfItsOwnStartsWithBizlock() {
        try (ConfigurableApplicationContext context = TestApplications.start(ExistingApplication.class, database)) {
            try (LockHandle lock = context.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.isHeld()).isTrue();
            }
        }

        assertThat(tables())
                .as("bizlock's tables, the application's table, and no history of Spring Boot's Flyway")
                .contains("biz_lock", "biz_lock_migrations", "customer")
                .doesNotContain("flyway_schema_history");
        assertThat(jdbc.queryForList("SELECT name FROM customer", String.class)).containsExactly("Ada");
    }

    @Test
    void withSpringFlywayEnabledSpringBootsFlywayRunsAsWithoutBizlockAndItsFailureIsExplained(CapturedOutput output) {
        assertThatThrownBy(
                        () -> TestApplications.start(ExistingApplication.class, database, "spring.flyway.enabled=true")
                                .close())
                .hasStackTraceContaining("Found non-empty schema(s)")
                .hasStackTraceContaining("but no schema history table");
        assertThat(output.getAll())
                .contains("APPLICATION FAILED TO START")
                .contains("The tables may be bizlock's")
                .contains("spring.flyway.baseline-version=0");
    }

    private List<String> tables() {
        return jdbc.queryForList(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()", String.class);
    }
}
