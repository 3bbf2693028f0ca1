package io.github.bizlock.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.starter.TestApplications;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Spring Boot 3.5 application with Actuator (tagged for the surefire execution actuator, the only one whose class
 * path has it) gets the {@code bizlock} health indicator on Boot 3.5's health types, as a Boot 4 application gets it on
 * Boot 4's.
 */
@Tag("actuator")
@ExtendWith(TestDatabaseExtension.class)
class BizLockBoot3HealthTest {

    @SpringBootApplication(proxyBeanMethods = false)
    static class LockingApplication {}

    @Test
    void isUpWithTheLockDetailsAndDownWhenALockTableIsMissing(TestDatabase database) {
        try (ConfigurableApplicationContext context = start(database, "bizlock.table-name=health_lock")) {
            HealthIndicator indicator = context.getBean("bizlockHealthIndicator", HealthIndicator.class);
            Health up = indicator.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails())
                    .containsEntry("table", "health_lock")
                    .containsEntry("held", 0)
                    .containsEntry("renewalsOverdue", 0)
                    .containsKeys("database", "databaseTime", "instance");

            new JdbcTemplate(database.dataSource()).execute("DROP TABLE health_lock");
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("missingTables", List.of("health_lock"));
            assertThat((String) down.getDetails().get("hint")).contains("bizlock.migration.enabled=true");
        }
    }

    @Test
    void isOffWhenTheApplicationTurnsTheBizlockHealthIndicatorOff(TestDatabase database) {
        try (ConfigurableApplicationContext context = start(database, "management.health.bizlock.enabled=false")) {
            assertThat(context.containsBean("bizlockHealthIndicator")).isFalse();
        }
    }

    private static ConfigurableApplicationContext start(TestDatabase database, String property) {
        return TestApplications.start(LockingApplication.class, database, "spring.flyway.enabled=false", property);
    }
}
