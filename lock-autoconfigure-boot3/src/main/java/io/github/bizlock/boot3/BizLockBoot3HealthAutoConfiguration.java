package io.github.bizlock.boot3;

import io.github.bizlock.actuate.LockHealthCheck;
import io.github.bizlock.autoconfigure.BizLockAutoConfiguration;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code bizlock} health indicator on Spring Boot 3.5, whose Actuator health types are in
 * {@code org.springframework.boot.actuate.health}; Spring Boot 4 has none there, so there this backs off and
 * {@code BizLockObservabilityAutoConfiguration} registers the indicator on Boot 4's types.
 */
@AutoConfiguration(after = BizLockAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.health.AbstractHealthIndicator",
            "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
        })
@ConditionalOnBooleanProperty(name = "bizlock.enabled", matchIfMissing = true)
@ConditionalOnBean({LockDaos.class, LockManager.class})
public final class BizLockBoot3HealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "bizlockHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("bizlock")
    BizLockBoot3HealthIndicator bizlockHealthIndicator(
            ObjectProvider<LockDaos> dao, ObjectProvider<LockManager> manager) {
        // The lock beans are lazy: created when the lock database first answers, so a check while it does not answer
        // is down with the reason instead of failing the start.
        return new BizLockBoot3HealthIndicator(new LockHealthCheck(dao::getObject, manager::getObject));
    }
}
