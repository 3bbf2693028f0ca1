package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/** bizlock in a plain Spring application, with the beans the README's "Without Spring Boot" section shows. */
@ExtendWith(TestDatabaseExtension.class)
class LockServiceTest {

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    /** The README's configuration. */
    @Configuration(proxyBeanMethods = false)
    static class LockConfiguration {

        @Bean
        LockService lockService(DataSource dataSource, ApplicationEventPublisher events) {
            return LockService.builder(dataSource)
                    .waitTime(Duration.ofSeconds(3))
                    .listener(events::publishEvent)
                    .build();
        }

        @Bean
        LockTemplate lockTemplate(LockService lockService) {
            return lockService.template();
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DistributedLockAdvisor distributedLockAdvisor(
                ObjectProvider<LockTemplate> lockTemplate, BeanFactory beanFactory) {
            return new DistributedLockAdvisor(
                    lockTemplate::getObject, beanFactory, DistributedLockAdvisor.DEFAULT_ORDER);
        }

        @Bean
        static BeanPostProcessor distributedLockMethodCheck() {
            return DistributedLockAdvisor.methodCheck();
        }
    }

    /** An application without @EnableTransactionManagement or @EnableAspectJAutoProxy adds an auto-proxy creator. */
    @Configuration(proxyBeanMethods = false)
    static class AutoProxy {

        @Bean
        static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
            return new DefaultAdvisorAutoProxyCreator();
        }
    }

    /** With @EnableTransactionManagement, its auto-proxy creator applies the (infrastructure) advisor too. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    /** A bean whose locked method waits until the test lets it return. */
    public static class Reports {

        private final CountDownLatch running = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);

        @DistributedLock(name = "report", key = "#day")
        @Transactional
        public String build(String day) throws InterruptedException {
            running.countDown();
            assertThat(finish.await(10, TimeUnit.SECONDS)).isTrue();
            return "report " + day;
        }

        public boolean awaitRunning() throws InterruptedException {
            return running.await(10, TimeUnit.SECONDS);
        }

        public void finish() {
            finish.countDown();
        }
    }

    @Test
    void locksDistributedLockMethodsWithAnAutoProxyCreatorOfItsOwn(DataSource dataSource) throws Exception {
        assertLocksAroundTheCall(dataSource, LockConfiguration.class, AutoProxy.class);
    }

    @Test
    void locksDistributedLockMethodsThroughTheTransactionManagementProxies(DataSource dataSource) throws Exception {
        assertLocksAroundTheCall(dataSource, LockConfiguration.class, Transactions.class);
    }

    private static void assertLocksAroundTheCall(DataSource dataSource, Class<?>... configurations) throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
                LockService otherInstance = LockService.builder(dataSource).build()) {
            // The test database's pool outlives the context: no inferred close().
            context.registerBean(DataSource.class, () -> dataSource, definition -> definition.setDestroyMethodName(""));
            context.register(configurations);
            context.registerBean(Reports.class);
            context.refresh();
            Reports reports = context.getBean(Reports.class);
            assertThat(AopUtils.isAopProxy(reports)).isTrue();

            CompletableFuture<String> call = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return reports.build("2026-11-22");
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);
            assertThat(reports.awaitRunning()).isTrue();
            assertThat(otherInstance.template().tryAcquire("report", "2026-11-22", Duration.ZERO))
                    .as("the lock, from another instance, while the method runs")
                    .isEmpty();

            reports.finish();
            assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("report 2026-11-22");
            Optional<LockHandle> after = otherInstance.template().tryAcquire("report", "2026-11-22", Duration.ZERO);
            assertThat(after)
                    .as("the lock, from another instance, after the method returned")
                    .isPresent();
            after.get().unlock();
        }
    }

    @Test
    void missingTablesFailAtBuildWithTheirDdl(DataSource dataSource) {
        assertThatThrownBy(() -> LockService.builder(dataSource)
                        .tableName("no_such_lock")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no_such_lock, no_such_lock_token_floor")
                .hasMessageContaining("CREATE TABLE no_such_lock");
    }

    @Test
    void sessionModesHoldConnectionsOfTheSessionDataSourceUntilClosed(TestDatabase database) {
        assertThatThrownBy(() -> LockService.builder(database.dataSource())
                        .defaultMode(LockMode.ROW)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sessionDataSource");
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        try (LockService other = LockService.builder(database.dataSource())
                .sessionDataSource(sessions)
                .build()) {
            for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                LockService holder = LockService.builder(database.dataSource())
                        .sessionDataSource(sessions)
                        .defaultMode(mode)
                        .build();
                // A name per mode: each lock name is bound to one mode.
                String name = "job-" + mode;
                assertThat(holder.template().tryAcquire(name, "nightly", Duration.ZERO))
                        .isPresent();
                LockOptions sameMode = LockOptions.defaults().mode(mode);
                assertThat(other.template().tryAcquire(name, "nightly", sameMode))
                        .as(mode + " lock held by the first service")
                        .isEmpty();
                holder.close();
                // The server frees the lock when it has ended the closed session, a few milliseconds later.
                Optional<LockHandle> freed =
                        other.template().tryAcquire(name, "nightly", sameMode.waitTime(Duration.ofSeconds(5)));
                assertThat(freed)
                        .as(mode + " lock after its holder's service closed")
                        .isPresent();
                freed.get().unlock();
            }
        }
    }
}
