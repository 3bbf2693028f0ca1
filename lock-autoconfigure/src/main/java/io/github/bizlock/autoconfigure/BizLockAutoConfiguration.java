package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.aop.RollbackOnLockLost;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockObserver;
import io.github.bizlock.service.LockService;
import javax.sql.DataSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Distributed locks on the application's MySQL or MariaDB {@link DataSource}: the {@code bizlock.*} properties mapped
 * onto {@link LockService.Builder} ({@link LockServiceFactory}), the lock tables migrated with Flyway or checked
 * before the service starts, and the beans an application uses: {@link LockTemplate}, {@link BizLockDao}, the
 * {@link LockService} itself and the {@code @DistributedLock} advisor. The service is built at start-up, or, when the
 * lock database does not answer then, at the first lock after it does ({@link LockDatabaseStartup}). What properties
 * cannot say, a {@link BizLockServiceCustomizer} bean says; {@link LockLostListener} and {@link LockObserver} beans
 * are added to the service. {@code bizlock.enabled=false} turns all of it off. Metrics, health and the endpoint come
 * from {@link BizLockObservabilityAutoConfiguration}.
 */
@AutoConfiguration(
        // By name, as Spring Boot 4 and Spring Boot 3.5 call them: Boot 4 moved each to a module of its own.
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration"
        })
@ConditionalOnClass({DataSource.class, JdbcTemplate.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "bizlock.enabled", matchIfMissing = true)
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties({
    BizLockProperties.class,
    BizLockWritesProperties.class,
    BizLockConnectionsProperties.class,
    BizLockSessionProperties.class,
    BizLockNamedProperties.class
})
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class BizLockAutoConfiguration {

    private final BizLockProperties properties;

    BizLockAutoConfiguration(BizLockProperties properties) {
        this.properties = properties;
    }

    @Bean
    LockServiceFactory bizLockServiceFactory(
            BizLockWritesProperties writes,
            BizLockConnectionsProperties formerWrites,
            BizLockSessionProperties session,
            BizLockNamedProperties named,
            ListableBeanFactory beanFactory,
            @BizLockDataSource ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources,
            ResourceLoader resourceLoader,
            ApplicationEventPublisher publisher,
            ObjectProvider<LockLostListener> listeners,
            ObjectProvider<LockObserver> observers,
            ObjectProvider<BizLockServiceCustomizer> customizers) {
        DataSource dataSource =
                LockDataSources.lockDataSource(properties.getDatasource(), beanFactory, qualified, dataSources);
        boolean migrate = properties.getMigration().isEnabled();
        if (migrate && !ClassUtils.isPresent(BizLockRuntimeHints.FLYWAY, resourceLoader.getClassLoader())) {
            throw new BizLockPropertyException(
                    "bizlock.migration.enabled",
                    "true",
                    "Flyway is not on the class path to create and upgrade the lock tables",
                    "Add org.flywaydb:flyway-mysql (it brings flyway-core), or set bizlock.migration.enabled=false and"
                            + " create the tables yourself (docs/database.md, \"Tables without Flyway\").");
        }
        return new LockServiceFactory(
                dataSource,
                properties,
                BizLockConnectionsProperties.maxWriteConnections(writes, formerWrites),
                session,
                named,
                new BizLockSchemaInitializer(migrate),
                new LockServiceFactory.Beans(publisher, listeners, observers, customizers));
    }

    /**
     * The running lock service, built when {@link LockDatabaseStartup} first asks for it: after the application's own
     * database initialization (Flyway, Liquibase, SQL scripts), so that bizlock's tables are migrated or checked after
     * it.
     */
    @Bean
    @Lazy
    @DependsOnDatabaseInitialization
    LockService bizLockService(LockServiceFactory factory) {
        return factory.build();
    }

    /** Builds the lock service at start-up, or at the first lock after the lock database first answers. */
    @Bean
    LockDatabaseStartup bizLockDatabaseStartup(ListableBeanFactory beanFactory) {
        return new LockDatabaseStartup(beanFactory, properties.isFailFast());
    }

    /** The LEASE lock table's DAO; its writes run on bizlock's own connections, never in the caller's transaction. */
    @Bean
    @Lazy
    BizLockDao bizLockDao(LockDatabaseStartup startup) {
        return startup.service().dao();
    }

    @Bean
    BizLockShutdown bizLockShutdown(LockDatabaseStartup startup) {
        return new BizLockShutdown(startup::createdService, properties.getShutdownGracePeriod());
    }

    @Bean
    @ConditionalOnMissingBean
    LockTemplate lockTemplate(LockDatabaseStartup startup, LockServiceFactory factory) {
        return new DeferredLockTemplate(
                startup, properties.getWaitTime(), factory.instanceId(), properties.getOnLost());
    }

    /** The {@code @DistributedLock} advisor, and an auto-proxy creator if the application has none. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.aopalliance.intercept.MethodInterceptor")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @Import(AdvisorConfiguration.AutoProxyRegistrar.class)
    static class AdvisorConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DistributedLockAdvisor distributedLockAdvisor(
                ObjectProvider<LockTemplate> lockTemplate, BeanFactory beanFactory, Environment environment) {
            // Read from the Environment: advisors are created early, before configuration properties beans should be.
            int order = environment.getProperty(
                    "bizlock.advisor-order", Integer.class, BizLockProperties.DEFAULT_ADVISOR_ORDER);
            DistributedLockAdvisor advisor = new DistributedLockAdvisor(lockTemplate::getObject, beanFactory, order);
            advisor.setRefuseInSnapshotTransaction(
                    environment.getProperty("bizlock.refuse-in-snapshot-transaction", Boolean.class, false));
            return advisor;
        }

        /** Fails the start of an application whose {@code @DistributedLock} methods would run without their lock. */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static BeanPostProcessor distributedLockMethodCheck() {
            return DistributedLockAdvisor.methodCheck();
        }

        static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

            @Override
            public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
                AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            }
        }
    }

    /**
     * {@link LockLostPolicy#ROLLBACK_ONLY} for transactions begun while a lock is held; Spring Boot registers it with
     * the transaction manager it configures.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.aopalliance.intercept.MethodInterceptor")
    static class RollbackOnLockLostConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RollbackOnLockLost rollbackOnLockLost() {
            return new RollbackOnLockLost();
        }
    }
}
