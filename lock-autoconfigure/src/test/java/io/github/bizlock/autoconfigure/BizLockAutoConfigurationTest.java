package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.jdbc.lease.LeaseLockEngine;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;

@ExtendWith(TestDatabaseExtension.class)
class BizLockAutoConfigurationTest {

    private ApplicationContextRunner runner;
    private TestDatabase database;

    @BeforeEach
    void setUp(TestDatabase database) {
        this.database = database;
        this.runner = runner(database, BizLockAutoConfiguration.class);
    }

    /** An application with a DataSource, transactions and AOP on the test database, and the given auto-configurations. */
    static ApplicationContextRunner runner(TestDatabase database, Class<?>... autoConfigurations) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        AopAutoConfiguration.class))
                .withConfiguration(AutoConfigurations.of(autoConfigurations))
                .withPropertyValues(datasource(database));
    }

    static String[] datasource(TestDatabase database) {
        return new String[] {
            "spring.datasource.url=" + database.jdbcUrl(),
            "spring.datasource.username=" + database.username(),
            "spring.datasource.password=" + database.password()
        };
    }

    private static boolean tableExists(DataSource dataSource, String table) {
        Integer count = new JdbcTemplate(dataSource)
                .queryForObject(
                        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
                                + " AND table_name = ?",
                        Integer.class,
                        table);
        return count != null && count > 0;
    }

    @Test
    void createsLockBeansAndTheLockTableWhenADataSourceIsPresent() {
        runner.withPropertyValues("bizlock.table-name=lock_default").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context)
                    .hasSingleBean(BizLockDao.class)
                    .hasSingleBean(BizLockSchemaInitializer.class)
                    .hasSingleBean(LeaseLockEngine.class)
                    .hasSingleBean(LockManager.class)
                    .hasSingleBean(LockTemplate.class)
                    .hasSingleBean(Housekeeper.class)
                    .hasSingleBean(DistributedLockAdvisor.class);
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(tableExists(dataSource, "lock_default")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_token_floor")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_mode")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_migrations")).isTrue();
            assertThat(tableExists(dataSource, "flyway_schema_history")).isFalse();
            try (LockHandle lock = context.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.isHeld()).isTrue();
                assertThat(context.getBean(BizLockDao.class)
                                .find(new LockKey("order", "1"))
                                .map(LockRow::held))
                        .contains(true);
            }
        });
    }

    @Test
    void backsOffWithoutADataSource() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BizLockAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockTemplate.class)
                        .doesNotHaveBean(BizLockProperties.class));
    }

    @Test
    void turnsEverythingOffWhenDisabled() {
        runner.withPropertyValues("bizlock.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LockTemplate.class)
                        .doesNotHaveBean(LockManager.class)
                        .doesNotHaveBean(BizLockDao.class)
                        .doesNotHaveBean(BizLockSchemaInitializer.class)
                        .doesNotHaveBean(DistributedLockAdvisor.class));
    }

    @Test
    void backsOffWhenUserDefinesLockTemplate() {
        runner.withPropertyValues("bizlock.table-name=lock_user_template")
                .withUserConfiguration(UserTemplateConfiguration.class)
                .run(context -> assertThat(context.getBean(LockTemplate.class))
                        .isSameAs(context.getBean(UserTemplateConfiguration.class).template));
    }

    @Test
    void backsOffWhenUserDefinesAdvisor() {
        runner.withPropertyValues("bizlock.table-name=lock_user_advisor")
                .withUserConfiguration(UserAdvisorConfiguration.class)
                .run(context -> assertThat(
                                context.getBean(DistributedLockAdvisor.class).getOrder())
                        .isEqualTo(42));
    }

    @Test
    void doesNotScheduleHousekeepingWhenDisabled() {
        runner.withPropertyValues("bizlock.table-name=lock_no_housekeeping", "bizlock.housekeeping.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Housekeeper.class));
    }

    @Test
    void stopsHousekeepingWhenTheContextCloses() throws InterruptedException {
        runner.withPropertyValues("bizlock.table-name=lock_housekeeping_stops")
                .run(context -> assertThat(housekeepingThreadAlive()).isTrue());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (housekeepingThreadAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(housekeepingThreadAlive())
                .as("the housekeeping thread ends with the context")
                .isFalse();
    }

    private static boolean housekeepingThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals("bizlock-housekeeping"));
    }

    @Test
    void withMigrationOffFailsAtStartWithTheDdlWhenTheTableIsMissing() {
        runner.withPropertyValues("bizlock.table-name=lock_missing", "bizlock.migration.enabled=false")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("bizlock.migration.enabled")
                            .hasStackTraceContaining("CREATE TABLE lock_missing");
                    assertThat(tableExists(database.dataSource(), "lock_missing"))
                            .isFalse();
                });
    }

    @Test
    void withMigrationOffStartsWhenTheTableExists() {
        runner.withPropertyValues("bizlock.table-name=lock_premade")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("bizlock.table-name=lock_premade", "bizlock.migration.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    LockKey key = new LockKey("job", "nightly");
                    boolean heldInside = context.getBean(LockTemplate.class)
                            .execute(
                                    "job",
                                    "nightly",
                                    () -> dao.find(key).orElseThrow().held());
                    assertThat(heldInside)
                            .as("the lock row is held while the action runs")
                            .isTrue();
                    assertThat(dao.find(key).orElseThrow().held())
                            .as("and freed after")
                            .isFalse();
                });
    }

    @Test
    void rejectsATableNameThatIsNotAPlainIdentifier() {
        runner.withPropertyValues("bizlock.table-name=biz_lock; DROP TABLE x").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("not a plain SQL identifier");
        });
    }

    @Test
    void rejectsANegativeWaitTime() {
        runner.withPropertyValues("bizlock.wait-time=-1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("bizlock.wait-time=-1s: it must not be negative");
        });
    }

    @Test
    void appliesInstanceIdLeaseTimeAndModeProperties() {
        runner.withPropertyValues(
                        "bizlock.table-name=lock_props",
                        "bizlock.instance-id=billing-7",
                        "bizlock.lease-time=45s",
                        "bizlock.mode=lease",
                        "bizlock.wait-time=250ms",
                        "bizlock.backoff.initial=1ms",
                        "bizlock.backoff.max=20ms",
                        "bizlock.watchdog-lease=12s",
                        "bizlock.fair=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockManager manager = context.getBean(LockManager.class);
                    assertThat(manager.instanceId()).isEqualTo("billing-7");
                    assertThat(manager.modes()).containsExactly(LockMode.LEASE);
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    try (LockHandle ignored =
                            context.getBean(LockTemplate.class).acquire("invoice", "9")) {
                        LockRow row = dao.find(new LockKey("invoice", "9")).orElseThrow();
                        assertThat(row.owner()).isEqualTo("billing-7");
                        assertThat(Duration.between(row.acquiredAt(), row.expiresAt()))
                                .isEqualTo(Duration.ofSeconds(45));
                    }
                    BizLockProperties properties = context.getBean(BizLockProperties.class);
                    assertThat(properties.getBackoff().getMax()).isEqualTo(Duration.ofMillis(20));
                    LockTemplate template = context.getBean(LockTemplate.class);
                    try (AutoCloseable held = heldByAnotherThread(template, "invoice", "10")) {
                        long started = System.nanoTime();
                        assertThatThrownBy(() -> template.acquire("invoice", "10"))
                                .isInstanceOf(LockAcquisitionException.class)
                                .hasMessageContaining("within PT0.25S");
                        assertThat(Duration.ofNanos(System.nanoTime() - started))
                                .as("bizlock.wait-time is how long acquire waits")
                                .isGreaterThanOrEqualTo(Duration.ofMillis(250));
                    }
                });
    }

    @Test
    void locksWithoutALeaseTimeGetTheWatchdogLease() {
        runner.withPropertyValues("bizlock.table-name=lock_watchdog", "bizlock.watchdog-lease=12s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    try (LockHandle ignored =
                            context.getBean(LockTemplate.class).acquire("invoice", "11")) {
                        LockRow row = dao.find(new LockKey("invoice", "11")).orElseThrow();
                        assertThat(Duration.between(row.acquiredAt(), row.expiresAt()))
                                .isEqualTo(Duration.ofSeconds(12));
                    }
                });
    }

    /** A lock taken and held by a thread of its own until the returned handle is closed. */
    private static AutoCloseable heldByAnotherThread(LockTemplate template, String name, String key) throws Exception {
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try (LockHandle ignored = template.acquire(name, key)) {
                taken.countDown();
                release.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        holder.start();
        assertThat(taken.await(30, TimeUnit.SECONDS)).isTrue();
        return () -> {
            release.countDown();
            holder.join(30_000);
        };
    }

    @Test
    void usesTheDataSourceNamedInTheProperty() {
        try (TestDatabase other = TestDatabases.create()) {
            runner.withUserConfiguration(TwoDataSources.class)
                    .withPropertyValues(
                            "other.url=" + other.jdbcUrl(),
                            "bizlock.datasource=otherDataSource",
                            "bizlock.table-name=lock_named")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(tableExists(other.dataSource(), "lock_named"))
                                .isTrue();
                        assertThat(tableExists(database.dataSource(), "lock_named"))
                                .isFalse();
                    });
        }
    }

    @Test
    void usesTheDataSourceMarkedWithTheQualifier() {
        try (TestDatabase other = TestDatabases.create()) {
            runner.withUserConfiguration(TwoDataSources.class, QualifiedDataSource.class)
                    .withPropertyValues("other.url=" + other.jdbcUrl(), "bizlock.table-name=lock_qualified")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(tableExists(other.dataSource(), "lock_qualified"))
                                .isTrue();
                        assertThat(tableExists(database.dataSource(), "lock_qualified"))
                                .isFalse();
                    });
        }
    }

    @Test
    void failsNamingTheBeansWhenSeveralDataSourcesAndNoneIsChosen() {
        runner.withUserConfiguration(TwoUnrankedDataSources.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("bizlock.datasource")
                    .hasMessageContaining("firstDataSource")
                    .hasMessageContaining("secondDataSource");
        });
    }

    @Test
    void coexistsWithTheApplicationsOwnFlywayMigrations() {
        try (TestDatabase fresh = TestDatabases.create()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            DataSourceAutoConfiguration.class,
                            DataSourceTransactionManagerAutoConfiguration.class,
                            TransactionAutoConfiguration.class,
                            FlywayAutoConfiguration.class,
                            BizLockAutoConfiguration.class))
                    .withPropertyValues(datasource(fresh))
                    .withPropertyValues("spring.flyway.locations=classpath:db/testapp")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        DataSource dataSource = context.getBean(DataSource.class);
                        assertThat(tableExists(dataSource, "flyway_schema_history"))
                                .isTrue();
                        assertThat(tableExists(dataSource, "app_order")).isTrue();
                        assertThat(tableExists(dataSource, "biz_lock")).isTrue();
                        assertThat(tableExists(dataSource, "biz_lock_migrations"))
                                .isTrue();
                        Integer appMigrations = new JdbcTemplate(dataSource)
                                .queryForObject(
                                        "SELECT COUNT(*) FROM flyway_schema_history WHERE success = 1", Integer.class);
                        assertThat(appMigrations).isEqualTo(1);
                    });
        }
    }

    @Test
    void putsTheAdvisorOutsideTheTransactionAdvisor() {
        runner.withPropertyValues("bizlock.table-name=lock_order").run(context -> {
            int lockOrder = context.getBean(DistributedLockAdvisor.class).getOrder();
            int transactionOrder = context.getBean(BeanFactoryTransactionAttributeSourceAdvisor.class)
                    .getOrder();
            assertThat(lockOrder).isLessThan(transactionOrder);
        });
        runner.withPropertyValues("bizlock.table-name=lock_order", "bizlock.advisor-order=7")
                .run(context -> assertThat(
                                context.getBean(DistributedLockAdvisor.class).getOrder())
                        .isEqualTo(7));
    }

    @Test
    void publishesLostLocksAsApplicationEvents() {
        runner.withPropertyValues("bizlock.table-name=lock_events", "bizlock.lease-time=1s")
                .withUserConfiguration(LostLocks.class)
                .run(context -> {
                    LockTemplate template = context.getBean(LockTemplate.class);
                    LockHandle lock = template.acquire("report", "daily");
                    // Another owner takes the row over: the database no longer holds it for us at unlock.
                    new JdbcTemplate(context.getBean(DataSource.class))
                            .update("UPDATE lock_events SET owner_id = 'someone-else' WHERE biz_type = 'report'");
                    org.assertj.core.api.Assertions.assertThatThrownBy(lock::unlock)
                            .isInstanceOf(io.github.bizlock.LockLostException.class);
                    // Published on the listeners' own thread, soon after unlock threw.
                    List<LockLostEvent> events = context.getBean(LostLocks.class).events;
                    Await.until("the event is published", Duration.ofSeconds(5), () -> !events.isEmpty());
                    assertThat(events)
                            .singleElement()
                            .extracting(LockLostEvent::key)
                            .isEqualTo("daily");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserTemplateConfiguration {

        LockTemplate template;

        @Bean
        LockTemplate userLockTemplate(LockManager manager) {
            template = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(1), null);
            return template;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserAdvisorConfiguration {

        @Bean
        static DistributedLockAdvisor userAdvisor() {
            return new DistributedLockAdvisor(
                    () -> {
                        throw new IllegalStateException("unused");
                    },
                    null,
                    42);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {

        @Bean
        @Primary
        DataSource dataSource(org.springframework.core.env.Environment env) {
            return hikari(env.getRequiredProperty("spring.datasource.url"), env);
        }

        @Bean
        DataSource otherDataSource(org.springframework.core.env.Environment env) {
            return hikari(env.getRequiredProperty("other.url"), env);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedDataSource {

        @Bean
        @BizLockDataSource
        DataSource lockDataSource(org.springframework.core.env.Environment env) {
            return hikari(env.getRequiredProperty("other.url"), env);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoUnrankedDataSources {

        @Bean
        DataSource firstDataSource(org.springframework.core.env.Environment env) {
            return hikari(env.getRequiredProperty("spring.datasource.url"), env);
        }

        @Bean
        DataSource secondDataSource(org.springframework.core.env.Environment env) {
            return hikari(env.getRequiredProperty("spring.datasource.url"), env);
        }
    }

    static class LostLocks {

        final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

        @EventListener
        void on(LockLostEvent event) {
            events.add(event);
        }
    }

    static HikariDataSource hikari(String url, org.springframework.core.env.Environment env) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(url);
        dataSource.setUsername(env.getProperty("spring.datasource.username"));
        dataSource.setPassword(env.getProperty("spring.datasource.password"));
        return dataSource;
    }
}
