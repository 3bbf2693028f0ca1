package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.actuate.BizLockHealthIndicator;
import io.github.bizlock.actuate.LockGauges;
import io.github.bizlock.actuate.LockMetrics;
import io.github.bizlock.actuate.LockObservations;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Metrics, observations and health of the locks, and that they follow the locks' own conditions. */
@ExtendWith(TestDatabaseExtension.class)
class BizLockObservabilityAutoConfigurationTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(
                        database, BizLockAutoConfiguration.class, BizLockObservabilityAutoConfiguration.class)
                .withPropertyValues("bizlock.housekeeping.enabled=false")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(ObservationRegistry.class, ObservationRegistry::create);
    }

    @Test
    void measuresAndReportsTheHealthOfTheLocks() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(LockMetrics.class)
                .hasSingleBean(LockGauges.class)
                .hasSingleBean(LockObservations.class)
                .hasBean("bizlockHealthIndicator")
                .hasSingleBean(BizLockHealthIndicator.class));
    }

    @Test
    void backsOffWhenLocksAreDisabled() {
        runner.withPropertyValues("bizlock.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockMetrics.class)
                        .doesNotHaveBean(BizLockHealthIndicator.class));
    }

    @Test
    void backsOffWithoutTheLockBeans(TestDatabase database) {
        // As when BizLockAutoConfiguration is excluded: a DataSource, but no lock beans to measure.
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class, BizLockObservabilityAutoConfiguration.class))
                .withPropertyValues(BizLockAutoConfigurationTest.datasource(database))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockGauges.class)
                        .doesNotHaveBean(BizLockHealthIndicator.class));
    }
}
