package io.github.bizlock.autoconfigure;

import io.github.bizlock.actuate.BizLockHealthIndicator;
import io.github.bizlock.actuate.BizLocksEndpoint;
import io.github.bizlock.actuate.LockGauges;
import io.github.bizlock.actuate.LockMetrics;
import io.github.bizlock.actuate.LockObservations;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.lock.LockManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import javax.sql.DataSource;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Metrics, Observations, the health indicator and the {@code bizlocks} endpoint of the locks that
 * {@link BizLockAutoConfiguration} sets up, each when its library is present.
 */
@AutoConfiguration(
        after = BizLockAutoConfiguration.class,
        afterName = {
            // Lock metrics and observations need the registries these create; Spring Boot 4's names, then 3.5's.
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass({DataSource.class, JdbcTemplate.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "bizlock.enabled", matchIfMissing = true)
// The lock beans' conditions, and the lock beans themselves (absent if BizLockAutoConfiguration is excluded).
@ConditionalOnBean({DataSource.class, LeaseDao.class, LockManager.class, LockDatabaseStartup.class})
@EnableConfigurationProperties(BizLockProperties.class)
public final class BizLockObservabilityAutoConfiguration {

    /** Micrometer meters of locks ({@code bizlock.*}), when Micrometer and a {@link MeterRegistry} are present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(MeterRegistry.class)
        LockMetrics bizLockMetrics(MeterRegistry registry, BizLockProperties properties) {
            return new LockMetrics(registry, properties.getMetrics().getKeyTagNames());
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(MeterRegistry.class)
        LockGauges bizLockGauges(LockDatabaseStartup startup) {
            return new LockGauges(startup::createdManager);
        }
    }

    /** An Observation (a span, with tracing) per lock acquisition, when an {@link ObservationRegistry} is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
    static class ObservationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(ObservationRegistry.class)
        LockObservations bizLockObservations(ObservationRegistry registry, BizLockProperties properties) {
            return new LockObservations(registry, properties.getMetrics().getKeyTagNames());
        }
    }

    /** The {@code bizlock} health indicator, when Spring Boot's health support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "bizlockHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("bizlock")
        BizLockHealthIndicator bizlockHealthIndicator(LockDatabaseStartup startup) {
            return new BizLockHealthIndicator(startup::daos, startup::manager);
        }
    }

    /** The {@code bizlocks} Actuator endpoint, when Actuator is present and the endpoint is exposed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(BizLocksEndpoint.class)
        BizLocksEndpoint bizLocksEndpoint(LockDatabaseStartup startup, BizLockProperties properties) {
            BizLockEndpointProperties endpoint = properties.getEndpoint();
            return new BizLocksEndpoint(
                    startup::dao,
                    startup::manager,
                    endpoint.getMaxLocks(),
                    endpoint.getForceRelease().isEnabled(),
                    Show.valueOf(endpoint.getShowValues().name()),
                    endpoint.getRoles());
        }
    }
}
