package io.github.bizlock.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.util.ClassUtils;

/**
 * An application that did not add Flyway (tagged for the surefire execution without-flyway, whose class path has none): it
 * starts with {@code bizlock.migration.enabled=false} on tables it created itself, and with migration left on it is
 * told what to add or set.
 */
@Tag("without-flyway")
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StarterWithoutFlywayTest {

    @SpringBootApplication(proxyBeanMethods = false)
    static class LockingApplication {}

    @BeforeAll
    void hasNoFlyway() {
        assertThat(ClassUtils.isPresent("org.flywaydb.core.Flyway", null))
                .as("Flyway on the class path of this test")
                .isFalse();
    }

    @Test
    void locksOnTablesTheApplicationCreatedWithMigrationOff(TestDatabase database) throws Exception {
        // What a Liquibase user or a DBA runs: the DDL README points to.
        try (Connection connection = database.dataSource().getConnection()) {
            ScriptUtils.executeSqlScript(
                    connection, new ByteArrayResource(LockSchema.ddl("biz_lock").getBytes(StandardCharsets.UTF_8)));
        }
        try (ConfigurableApplicationContext context = start(database, "bizlock.migration.enabled=false")) {
            LockTemplate locks = context.getBean(LockTemplate.class);
            try (LockHandle held =
                    locks.tryAcquire("no-flyway", "1", Duration.ZERO).orElseThrow()) {
                assertThat(held.fencingToken()).isPositive();
            }
        }
    }

    @Test
    void withMigrationOnSaysToAddFlywayOrTurnItOff(TestDatabase database) {
        assertThatThrownBy(() -> start(database, "bizlock.enabled=true").close())
                .rootCause()
                .hasMessageContaining("Flyway is not on the class path")
                .hasMessageContaining("org.flywaydb:flyway-mysql")
                .hasMessageContaining("bizlock.migration.enabled=false");
    }

    private static ConfigurableApplicationContext start(TestDatabase database, String property) {
        return TestApplications.start(LockingApplication.class, database, property);
    }
}
