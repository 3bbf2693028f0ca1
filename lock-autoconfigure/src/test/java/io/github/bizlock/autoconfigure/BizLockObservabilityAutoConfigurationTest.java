package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.actuate.BizLockHealthIndicator;
import io.github.bizlock.actuate.BizLocksEndpoint;
import io.github.bizlock.actuate.LockGauges;
import io.github.bizlock.actuate.LockMetrics;
import io.github.bizlock.actuate.LockObservations;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
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
    void theLocksAreMeteredObservedReportedAndListedAsConfigured() {
        List<Observation.Context> observed = new CopyOnWriteArrayList<>();
        runner.withAllowBeanDefinitionOverriding(true)
                .withBean(ObservationRegistry.class, () -> {
                    ObservationRegistry registry = ObservationRegistry.create();
                    registry.observationConfig().observationHandler(new ObservationHandler<>() {
                        @Override
                        public void onStop(Observation.Context context) {
                            observed.add(context);
                        }

                        @Override
                        public boolean supportsContext(Observation.Context context) {
                            return true;
                        }
                    });
                    return registry;
                })
                .withPropertyValues(
                        "bizlock.metrics.key-tag-names=tenant",
                        "bizlock.endpoint.max-locks=1",
                        "bizlock.endpoint.force-release.enabled=true",
                        "management.endpoints.web.exposure.include=bizlocks")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    context.getBean(LockGauges.class).bindTo(meters);
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    try (LockHandle tenant = locks.acquire("tenant", "t1")) {
                        LockHandle order = locks.acquire("order", "o1");
                        assertThat(meters.find("bizlock.acquire")
                                        .tag("key", "t1")
                                        .timer())
                                .as("the key of a name in bizlock.metrics.key-tag-names is a tag")
                                .isNotNull();
                        assertThat(meters.find("bizlock.held").gauge().value()).isEqualTo(2);
                        assertThat(observed)
                                .extracting(Observation.Context::getContextualName)
                                .containsExactly("lock tenant", "lock order");
                        assertThat(observed.get(0).getHighCardinalityKeyValue("key"))
                                .isNotNull();
                        assertThat(context.getBean(BizLockHealthIndicator.class)
                                        .health(true)
                                        .getStatus())
                                .isEqualTo(Status.UP);

                        BizLocksEndpoint endpoint = context.getBean(BizLocksEndpoint.class);
                        BizLocksEndpoint.LocksReport report = endpoint.locks(SecurityContext.NONE);
                        assertThat(report.held())
                                .as("bizlock.endpoint.max-locks")
                                .hasSize(1);
                        assertThat(report.truncated()).isTrue();
                        assertThat(endpoint.release("order", "o1", SecurityContext.NONE)
                                        .getStatus())
                                .as("bizlock.endpoint.force-release.enabled")
                                .isEqualTo(200);
                        assertThatThrownBy(order::unlock).isInstanceOf(LockLostException.class);
                    }
                });
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
