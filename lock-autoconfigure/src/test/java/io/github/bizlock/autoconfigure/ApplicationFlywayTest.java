package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application that had Spring Boot's Flyway auto-configuration but no migrations of its own, on a schema with tables
 * and no Flyway history, started before it added bizlock, and starts after: Spring Boot's Flyway, which only the
 * Flyway that bizlock's migrations need turned on, stays off. An application that has migrations at Spring Boot's
 * location, or sets any {@code spring.flyway.*} property, has Spring Boot's Flyway as before. (Spring Boot 4 here, with
 * {@code spring-boot-flyway}; Spring Boot 3.5, where Flyway alone turns it on, in lock-boot3-test.)
 */
@ExtendWith(OutputCaptureExtension.class)
class ApplicationFlywayTest {

    /** A database of each test's own: each starts from a schema of its own making. */
    private TestDatabase database;

    @BeforeEach
    void createDatabase() {
        database = TestDatabases.create();
    }

    @AfterEach
    void dropDatabase() {
        database.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        TransactionAutoConfiguration.class,
        FlywayAutoConfiguration.class,
        BizLockAutoConfiguration.class
    })
    static class FlywayApplication {}

    @Test
    void aSchemaWithTablesAndNoMigrationsOfTheApplicationStartsWithBizlocksTables(CapturedOutput output) {
        JdbcTemplate setup = new JdbcTemplate(database.dataSource());
        setup.execute("CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)");
        setup.update("INSERT INTO customer (id, name) VALUES (1, 'Ada')");

        try (ConfigurableApplicationContext context = start(getClass().getClassLoader())) {
            try (LockHandle lock = context.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.isHeld()).isTrue();
            }
        }

        assertThat(tables(setup))
                .as("bizlock's tables, the application's table, and no history of Spring Boot's Flyway")
                .contains("biz_lock", "biz_lock_migrations", "customer")
                .doesNotContain("flyway_schema_history");
        assertThat(setup.queryForList("SELECT name FROM customer", String.class))
                .containsExactly("Ada");
        assertThat(output.getAll())
                .contains("Spring Boot's Flyway migration of the application's schema is off")
                .contains("spring.flyway.enabled=true");
    }

    @Test
    void migrationsOfTheApplicationAtSpringBootsLocationAreAppliedAsBefore(@TempDir Path dir) throws IOException {
        Path migrations = Files.createDirectories(dir.resolve("db/migration"));
        Files.writeString(
                migrations.resolve("V1__customer.sql"),
                "CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL);");
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

        try (URLClassLoader withMigrations = new URLClassLoader(
                        new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
                ConfigurableApplicationContext context = start(withMigrations)) {
            assertThat(tables(jdbc)).contains("customer", "flyway_schema_history", "biz_lock", "biz_lock_migrations");
            assertThat(jdbc.queryForObject(
                            "SELECT COUNT(*) FROM flyway_schema_history WHERE version = '1' AND success = 1",
                            Integer.class))
                    .isEqualTo(1);
        }
    }

    @Test
    void withSpringFlywayEnabledSetSpringBootsFlywayRunsAsBefore() {
        new JdbcTemplate(database.dataSource())
                .execute("CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)");

        assertThatThrownBy(() -> start(getClass().getClassLoader(), "spring.flyway.enabled=true"))
                .as("Spring Boot's own failure on a schema with tables and no history, as without bizlock")
                .hasStackTraceContaining("Found non-empty schema(s)")
                .hasStackTraceContaining("but no schema history table");
    }

    @Test
    void withAnotherSpringFlywayPropertySpringBootsFlywayRunsAsBefore() {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)");

        start(getClass().getClassLoader(), "spring.flyway.baseline-on-migrate=true")
                .close();

        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM flyway_schema_history WHERE type = 'BASELINE'", Integer.class))
                .as("Spring Boot's Flyway ran and recorded its baseline")
                .isEqualTo(1);
    }

    @Test
    void theApplicationsFirstMigrationOnASchemaWithBizlocksTablesIsExplainedAndThenRunsFromV1(
            @TempDir Path dir, CapturedOutput output) throws IOException {
        start(getClass().getClassLoader()).close();
        Path migrations = Files.createDirectories(dir.resolve("db/migration"));
        Files.writeString(
                migrations.resolve("V1__customer.sql"),
                "CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL);");
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());

        try (URLClassLoader withMigrations =
                new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            FailedStart.Analysis analysis = FailedStart.analysis(output, application(withMigrations), arguments());

            assertThat(analysis.description())
                    .contains("Spring Boot's Flyway")
                    .contains("no schema history table")
                    .contains("bizlock")
                    .contains("biz_lock_migrations");
            assertThat(analysis.action())
                    .contains("spring.flyway.enabled=false")
                    .contains("spring.flyway.baseline-on-migrate=true")
                    .contains("spring.flyway.baseline-version=0");

            start(withMigrations, "spring.flyway.baseline-on-migrate=true", "spring.flyway.baseline-version=0")
                    .close();
        }
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM flyway_schema_history WHERE version = '1' AND success = 1",
                        Integer.class))
                .as("the application's V1 ran after the baseline")
                .isEqualTo(1);
        assertThat(tables(jdbc)).contains("customer", "biz_lock");
    }

    private ConfigurableApplicationContext start(ClassLoader classLoader, String... properties) {
        return application(classLoader)
                .run(arguments(properties).stream()
                        .map(property -> "--" + property)
                        .toArray(String[]::new));
    }

    private static SpringApplication application(ClassLoader classLoader) {
        SpringApplication application = new SpringApplication(FlywayApplication.class);
        application.setResourceLoader(new DefaultResourceLoader(classLoader));
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        return application;
    }

    private List<String> arguments(String... properties) {
        List<String> arguments = new ArrayList<>(List.of(BizLockAutoConfigurationTest.datasource(database)));
        arguments.addAll(List.of(properties));
        return arguments;
    }

    private static List<String> tables(JdbcTemplate jdbc) {
        return jdbc.queryForList(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()", String.class);
    }
}
