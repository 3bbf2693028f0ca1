package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/** bizlock in a plain Spring application, with the beans the README's "Without Spring Boot" section shows. */
@LockTest
class LockServiceTest {

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
                LockOptions sameMode = LockOptions.defaults().mode(mode);
                try {
                    assertThat(holder.template().tryAcquire(name, "nightly", Duration.ZERO))
                            .isPresent();
                    assertThat(other.template().tryAcquire(name, "nightly", sameMode))
                            .as(mode + " lock held by the first service")
                            .isEmpty();
                } finally {
                    // Also when an assertion fails: a session left holding its lock would block the DROP DATABASE
                    // of the test database's clean-up for ever (it hung a mutation run).
                    holder.close();
                }
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

    /** The threads named {@code name} started since {@code before} was taken. */
    private static List<Thread> startedSince(Set<Thread> before, String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals(name) && !before.contains(thread))
                .toList();
    }

    private static Set<Thread> threads() {
        return Set.copyOf(Thread.getAllStackTraces().keySet());
    }

    private static Map<String, Object> row(DataSource dataSource, String name, String key) {
        return new JdbcTemplate(dataSource)
                .queryForMap(
                        "SELECT owner_id, TIMESTAMPDIFF(SECOND, acquired_at, expire_at) AS lease_seconds FROM biz_lock"
                                + " WHERE biz_type = ? AND biz_id = ?",
                        name.getBytes(StandardCharsets.UTF_8),
                        key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theTemplatesShortFormsLockWithTheServiceDefaults(DataSource dataSource) throws Exception {
        try (LockService service =
                        LockService.builder(dataSource).housekeeping(false).build();
                LockService other =
                        LockService.builder(dataSource).housekeeping(false).build()) {
            LockTemplate template = service.template();
            boolean heldElsewhere = template.execute(
                    "short-forms",
                    "1",
                    () -> other.template()
                            .tryAcquire("short-forms", "1", Duration.ZERO)
                            .isEmpty());
            assertThat(heldElsewhere)
                    .as("the action's result, computed under the lock")
                    .isTrue();

            Lock lock = template.asLock("short-forms", "2");
            lock.lock();
            try {
                assertThat(other.template().tryAcquire("short-forms", "2", Duration.ZERO))
                        .isEmpty();
            } finally {
                lock.unlock();
            }
            Optional<LockHandle> after = other.template().tryAcquire("short-forms", "2", Duration.ZERO);
            assertThat(after).isPresent();
            after.get().unlock();
        }
    }

    @Test
    void anUnlockWhoseReleaseFailsThrowsLockReleaseExceptionNamingTheLock(DataSource dataSource) throws Exception {
        SwitchableDataSource network = new SwitchableDataSource(dataSource);
        try (LockService service =
                        LockService.builder(network).housekeeping(false).build();
                LockService other =
                        LockService.builder(dataSource).housekeeping(false).build()) {
            LockHandle held = service.template().acquire("release-fails", "7");
            network.fail();
            assertThatThrownBy(held::unlock)
                    .isInstanceOf(LockReleaseException.class)
                    .satisfies(ex -> {
                        assertThat(((LockReleaseException) ex).lockName()).isEqualTo("release-fails");
                        assertThat(((LockReleaseException) ex).lockKey()).isEqualTo("7");
                    });
            network.restore();
            // The release is retried in the background.
            Await.until(
                    "the lock is free for another instance",
                    Duration.ofSeconds(10),
                    () -> other.template()
                            .tryAcquire("release-fails", "7", Duration.ZERO)
                            .map(handle -> {
                                handle.unlock();
                                return true;
                            })
                            .orElse(false));
        }
    }

    @Test
    void everySettingChainsAndTheLocksUseThem(TestDatabase database) throws Exception {
        DataSource sessions = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        LockService service = LockService.builder(database.dataSource())
                .defaultMode(LockMode.LEASE)
                .tableName("biz_lock")
                .instanceId("service-settings-1")
                .waitTime(Duration.ofMillis(50))
                .leaseTime(Duration.ofMinutes(2))
                .watchdogLease(Duration.ofSeconds(20))
                .fair(true)
                .localHandoffs(4)
                .onLost(LockLostPolicy.LOG)
                .backoff(Duration.ofMillis(5), Duration.ofMillis(20))
                .sessionDataSource(sessions)
                .wakeUp(true)
                .maxWriteConnections(4)
                .maxSessions(1)
                .sessionHeartbeat(Duration.ofMillis(500))
                .singleWriter(false)
                .housekeeping(true)
                .housekeeping(Duration.ofMinutes(10), Duration.ofHours(1), 100)
                .listener(lost::add)
                .build();
        try {
            LockTemplate template = service.template();
            assertThat(template.instanceId()).matches("service-settings-1:[0-9a-f]{8}");
            template.acquire("settings", "1");
            Map<String, Object> row = row(database.dataSource(), "settings", "1");
            assertThat(new String((byte[]) row.get("owner_id"), StandardCharsets.UTF_8))
                    .isEqualTo(template.instanceId());
            assertThat(((Number) row.get("lease_seconds")).longValue())
                    .as("the fixed lease time")
                    .isEqualTo(120);
            assertThat(template.tryAcquire(
                            "settings-row", "1", LockOptions.defaults().mode(LockMode.ROW)))
                    .as("ROW locks on the session DataSource")
                    .isPresent();
        } finally {
            service.close();
        }
        assertThat(lost)
                .as("the listener is told of the locks still held at close")
                .extracting(LockLostEvent::cause)
                .containsExactlyInAnyOrder(LossCause.SHUTDOWN, LossCause.SHUTDOWN);
    }

    @Test
    void sessionSettingsOutOfRangeAreRefused(DataSource dataSource) {
        LockService.Builder builder = LockService.builder(dataSource);
        assertThatThrownBy(() -> builder.maxSessions(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSessions must be at least 1, was 0");
        assertThatThrownBy(() -> builder.sessionHeartbeat(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionHeartbeat must be positive, was PT0S");
        assertThatThrownBy(() -> builder.sessionHeartbeat(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void housekeepingPurgesOnAThreadOfItsOwnUntilTheServiceCloses(DataSource dataSource) throws Exception {
        Set<Thread> before = threads();
        LockService service = LockService.builder(dataSource)
                .housekeeping(Duration.ofMillis(20), Duration.ZERO, 100)
                .build();
        List<Thread> housekeeping;
        try {
            housekeeping = startedSince(before, "bizlock-housekeeping");
            assertThat(housekeeping).hasSize(1);
            service.template().acquire("purged", "1").unlock();
            Await.until(
                    "the free lock's row is purged",
                    Duration.ofSeconds(10),
                    () -> new JdbcTemplate(dataSource)
                                    .queryForObject(
                                            "SELECT COUNT(*) FROM biz_lock WHERE biz_type = ?",
                                            Integer.class,
                                            "purged".getBytes(StandardCharsets.UTF_8))
                            == 0);
        } finally {
            service.close();
        }
        Await.until(
                "the housekeeping thread ends",
                Duration.ofSeconds(10),
                () -> !housekeeping.get(0).isAlive());
    }

    @Test
    void withoutHousekeepingNoHousekeepingThreadStarts(DataSource dataSource) {
        Set<Thread> before = threads();
        try (LockService service =
                LockService.builder(dataSource).housekeeping(false).build()) {
            assertThat(startedSince(before, "bizlock-housekeeping")).isEmpty();
            assertThat(startedSince(before, "bizlock-watchdog")).hasSize(1);
        }
    }

    @Test
    void aBuildThatFailsAfterTheLockManagerStartedClosesIt(DataSource dataSource) throws Exception {
        Set<Thread> before = threads();
        assertThatThrownBy(() -> LockService.builder(dataSource)
                        .housekeeping(Duration.ZERO, Duration.ofHours(1), 100)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The housekeeping interval must be positive");
        List<Thread> watchdogs = startedSince(before, "bizlock-watchdog");
        Await.until(
                "the failed build's watchdog thread ends",
                Duration.ofSeconds(10),
                () -> watchdogs.stream().noneMatch(Thread::isAlive));
    }
}
