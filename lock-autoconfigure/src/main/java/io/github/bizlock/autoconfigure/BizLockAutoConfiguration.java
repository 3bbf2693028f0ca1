package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.aop.RollbackOnLockLost;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockDatabase;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockObserver;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
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
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Distributed locks on the application's MySQL or MariaDB {@link DataSource}: the lock table (migrated with Flyway or
 * checked), {@link LeaseDao}, the LEASE engine, {@link LockManager}, {@link LockTemplate}, housekeeping and the
 * {@code @DistributedLock} advisor. Every bean backs off when the application defines its own;
 * {@code bizlock.enabled=false} turns all of it off. The ROW and NAMED engines, and metrics, health and the endpoint,
 * come from {@link BizLockSessionAutoConfiguration} and {@link BizLockObservabilityAutoConfiguration}.
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
@EnableConfigurationProperties({BizLockProperties.class, BizLockConnectionsProperties.class})
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class BizLockAutoConfiguration {

    private final BizLockProperties properties;
    private final String instanceId;

    BizLockAutoConfiguration(BizLockProperties properties) {
        this.properties = properties;
        this.instanceId = InstanceId.of(properties.getInstanceId());
    }

    /**
     * The small pool of bizlock's own that LEASE writes, renewals and fencing tokens run on, made with the lock
     * DataSource's settings: callers that hold every connection of the application's pool in open transactions cannot
     * starve them: a copy of the HikariCP settings, or without HikariCP bizlock's own small pool of plain connections.
     * Its {@code dataSource} is {@code null} when no pool can be made (without HikariCP, a DataSource whose URL and
     * credentials cannot be read); lock writes then borrow from the lock DataSource. Not a {@link DataSource} bean, so
     * the application's DataSource stays the only one.
     */
    public record LockWriteConnections(@Nullable DataSource dataSource) implements AutoCloseable {

        @Override
        public void close() throws Exception {
            if (dataSource instanceof AutoCloseable pool) {
                pool.close();
            }
        }
    }

    @Bean
    @ConditionalOnMissingBean
    LockWriteConnections bizLockWriteConnections(
            BizLockConnectionsProperties connections,
            ListableBeanFactory beanFactory,
            @BizLockDataSource ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources) {
        DataSource dataSource = lockDataSource(properties.getDatasource(), beanFactory, qualified, dataSources);
        return new LockWriteConnections(LockConnections.pool(dataSource, connections.getMaxSize()));
    }

    @Bean
    @ConditionalOnMissingBean
    @Lazy
    LockDaos bizLockDaos(
            LockWriteConnections writeConnections,
            ListableBeanFactory beanFactory,
            @BizLockDataSource ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources) {
        DataSource dataSource = lockDataSource(properties.getDatasource(), beanFactory, qualified, dataSources);
        String table = properties.getTableName();
        // A transaction manager of bizlock's own: lock writes run in REQUIRES_NEW transactions on the lock
        // DataSource, whatever transaction manager (JPA, JTA, several) the application uses.
        Dialect dialect;
        try {
            dialect = Dialects.detect(dataSource, table, properties.getCluster().isSingleWriter());
        } catch (DataAccessResourceFailureException ex) {
            // The first connection bizlock makes: a database that does not answer is reported here, at start-up or at
            // a lock before it first answered (LockDatabaseStartup).
            throw LockDatabaseUnreachableException.of(dataSource, ex);
        }
        DataSource writes = writeConnections.dataSource();
        return LockDaos.of(
                new LockDatabase(dataSource, writes != null ? writes : dataSource, dialect),
                new DataSourceTransactionManager(dataSource));
    }

    /** The LEASE table's DAO, one of the lock tables' DAOs above. */
    @Bean
    @ConditionalOnMissingBean
    @Lazy
    LeaseDao bizLockDao(LockDaos daos) {
        return daos.leases();
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    @Lazy
    BizLockSchemaInitializer bizLockSchemaInitializer(
            LockDaos dao,
            ListableBeanFactory beanFactory,
            @BizLockDataSource ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources,
            ResourceLoader resourceLoader) {
        boolean migrate = properties.getMigration().isEnabled();
        if (migrate && !ClassUtils.isPresent(BizLockRuntimeHints.FLYWAY, resourceLoader.getClassLoader())) {
            throw new BizLockPropertyException(
                    "bizlock.migration.enabled",
                    "true",
                    "Flyway is not on the class path to create and upgrade the lock tables",
                    "Add org.flywaydb:flyway-mysql (it brings flyway-core), or set bizlock.migration.enabled=false and"
                            + " create the tables yourself (docs/database.md, \"Tables without Flyway\").");
        }
        return new BizLockSchemaInitializer(
                lockDataSource(properties.getDatasource(), beanFactory, qualified, dataSources), dao, migrate);
    }

    @Bean
    @ConditionalOnMissingBean
    @Lazy
    LeaseLockEngine leaseLockEngine(LeaseDao dao) {
        return new LeaseLockEngine(dao, instanceId, properties.getBackoff().toBackoff());
    }

    @Bean
    @ConditionalOnMissingBean
    @Lazy
    LockManager lockManager(
            BizLockSchemaInitializer schema,
            LockDaos dao,
            ObjectProvider<LockEngine> engines,
            ObjectProvider<LockLostListener> listeners,
            ObjectProvider<LockObserver> observers,
            ApplicationEventPublisher publisher) {
        LockManager.Builder builder = LockManager.builder(instanceId)
                .modeBindings(dao.modes())
                .watchdogLease(properties.getWatchdogLease())
                .fair(properties.isFair())
                .localHandoffs(properties.getLocalHandoffs());
        engines.orderedStream().forEach(builder::engine);
        observers.orderedStream().forEach(builder::observer);
        LockManager manager = builder.build();
        manager.addListener(publisher::publishEvent);
        listeners.orderedStream().forEach(manager::addListener);
        return manager;
    }

    /** Creates the lazy beans above at start-up, or at the first lock after the lock database first answers. */
    @Bean
    LockDatabaseStartup bizLockDatabaseStartup(ListableBeanFactory beanFactory) {
        return new LockDatabaseStartup(beanFactory, properties.isFailFast());
    }

    @Bean
    BizLockShutdown bizLockShutdown(LockDatabaseStartup startup) {
        return new BizLockShutdown(startup::createdManager, properties.getShutdownGracePeriod());
    }

    @Bean
    @ConditionalOnMissingBean
    LockTemplate lockTemplate(LockDatabaseStartup startup) {
        return new DeferredLockTemplate(
                startup,
                manager -> new DefaultLockTemplate(
                        manager,
                        properties.getMode(),
                        properties.getWaitTime(),
                        properties.getLeaseTime(),
                        properties.getOnLost()),
                properties.getWaitTime(),
                instanceId,
                properties.getOnLost());
    }

    /**
     * The DataSource named by {@code bizlock.datasource}, else the one marked {@link BizLockDataSource}, else the only
     * or primary one.
     */
    static DataSource lockDataSource(
            @Nullable String name,
            ListableBeanFactory beanFactory,
            ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources) {
        if (name != null && !name.isBlank()) {
            try {
                return beanFactory.getBean(name, DataSource.class);
            } catch (NoSuchBeanDefinitionException ex) {
                throw new BizLockPropertyException(
                        "bizlock.datasource",
                        "'" + name + "'",
                        "there is no DataSource bean named '" + name + "'",
                        "Set bizlock.datasource to the name of one of the DataSource beans: "
                                + String.join(", ", beanFactory.getBeanNamesForType(DataSource.class)));
            }
        }
        DataSource marked = qualified.getIfAvailable();
        if (marked != null) {
            return marked;
        }
        DataSource unique = dataSources.getIfUnique();
        if (unique == null) {
            String beans = String.join(", ", beanFactory.getBeanNamesForType(DataSource.class));
            throw new BizLockPropertyException(
                    "bizlock.datasource",
                    "(unset)",
                    "bizlock needs one DataSource for its lock table, and there are several, none of them primary: "
                            + beans,
                    "Set bizlock.datasource to the name of the DataSource bean that holds the lock table (one of "
                            + beans + "), or mark that bean @BizLockDataSource");
        }
        return unique;
    }

    /** Deletes rows of locks that have been free for longer than the retention. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "bizlock.housekeeping.enabled", matchIfMissing = true)
    static class HousekeepingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @Lazy
        Housekeeper bizLockHousekeeper(LockDaos dao, LockManager manager, BizLockProperties properties) {
            BizLockHousekeepingProperties housekeeping = properties.getHousekeeping();
            Housekeeper housekeeper = new Housekeeper(
                    dao.housekeeping(), manager, housekeeping.getRetention(), housekeeping.getBatchSize());
            housekeeper.schedule(housekeeping.getInterval());
            return housekeeper;
        }
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
