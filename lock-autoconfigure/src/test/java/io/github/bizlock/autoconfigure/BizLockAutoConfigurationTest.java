package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.Await;
import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.TurnOrder;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.aop.RollbackOnLockLost;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

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
                    .hasSingleBean(LockService.class)
                    .hasSingleBean(LockTemplate.class)
                    .hasSingleBean(DistributedLockAdvisor.class);
            assertThat(context.getBeanNamesForType(BizLockDao.class)).containsExactly("bizLockDao");
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(tableExists(dataSource, "lock_default")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_token_floor")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_mode")).isTrue();
            assertThat(tableExists(dataSource, "lock_default_migrations")).isTrue();
            assertThat(tableExists(dataSource, "flyway_schema_history")).isFalse();
            try (LockHandle lock = context.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.isHeld()).isTrue();
                assertThat(context.getBean(BizLockDao.class).find("order", "1").map(BizLockDao.Row::held))
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
                        .doesNotHaveBean(LockService.class)
                        .doesNotHaveBean(BizLockDao.class)
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
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(LockService.class);
                    assertThat(housekeepingThreadAlive()).isFalse();
                });
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
                    boolean heldInside = context.getBean(LockTemplate.class)
                            .execute(
                                    "job",
                                    "nightly",
                                    () -> dao.find("job", "nightly")
                                            .orElseThrow()
                                            .held());
                    assertThat(heldInside)
                            .as("the lock row is held while the action runs")
                            .isTrue();
                    assertThat(dao.find("job", "nightly").orElseThrow().held())
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
                    LockStatus manager = context.getBean(LockService.class).status();
                    // The configured name, with a random part of this instance's own: replicas that share a name stay
                    // two owners.
                    assertThat(manager.instanceId()).matches("billing-7:[0-9a-f]{8}");
                    assertThat(manager.modes()).contains(LockMode.LEASE);
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    try (LockHandle ignored =
                            context.getBean(LockTemplate.class).acquire("invoice", "9")) {
                        BizLockDao.Row row = dao.find("invoice", "9").orElseThrow();
                        assertThat(row.owner()).isEqualTo(manager.instanceId());
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
    void theModeAndOnLostPropertiesAreTheDefaultsOfLocksThatNameNone() {
        runner.withPropertyValues(
                        "bizlock.table-name=lock_defaults", "bizlock.mode=named", "bizlock.on-lost=rollback-only")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTemplate template = context.getBean(LockTemplate.class);
                    assertThat(template.onLost(LockOptions.defaults())).isEqualTo(LockLostPolicy.ROLLBACK_ONLY);
                    try (LockHandle lock = template.acquire("defaults", "1")) {
                        assertThat(lock.mode()).isEqualTo(LockMode.NAMED);
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
                        BizLockDao.Row row = dao.find("invoice", "11").orElseThrow();
                        assertThat(Duration.between(row.acquiredAt(), row.expiresAt()))
                                .isEqualTo(Duration.ofSeconds(12));
                    }
                });
    }

    @Test
    void theFairPropertyGivesThreadsTheLockInTheOrderTheyAskedForIt() {
        runner.withPropertyValues("bizlock.table-name=lock_fair", "bizlock.fair=true")
                .run(context -> {
                    for (int round = 0; round < 5; round++) {
                        assertThat(TurnOrder.afterReleasingAndAskingAgain(
                                        context.getBean(LockTemplate.class), "fair", "r" + round, 3))
                                .as("round %d: a thread that asks again goes behind those already waiting", round)
                                .isEqualTo(TurnOrder.queuedFirst(3));
                    }
                });
    }

    @Test
    void theBackoffPropertiesSpaceTheAttemptsOnALeaseHeldElsewhere() {
        // In a 1 s wait: pauses of 125-250 ms leave room for at most 9 attempts, pauses of at most 1 ms for many
        // more; the default (5 ms doubling to 100 ms, each drawn from its upper half) makes 10-17.
        assertThat(attemptsInOneSecondWhileHeldElsewhere("bizlock.backoff.initial=250ms", "bizlock.backoff.max=250ms"))
                .isBetween(4, 9);
        assertThat(attemptsInOneSecondWhileHeldElsewhere("bizlock.backoff.initial=1ms", "bizlock.backoff.max=1ms"))
                .isGreaterThan(25);
    }

    /**
     * How many attempts one wait of 1 s for a LEASE lock held by another instance makes: each attempt begins with the
     * {@code UPDATE} that takes over a free or expired row.
     */
    private int attemptsInOneSecondWhileHeldElsewhere(String... backoff) {
        AtomicInteger attempts = new AtomicInteger(-1);
        runner.withUserConfiguration(CountedDataSource.class)
                .withPropertyValues(
                        "bizlock.table-name=lock_backoff", "test.counted-sql=(?s)^\\s*UPDATE\\b.*LAST_INSERT_ID")
                .withPropertyValues(backoff)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTemplate template = context.getBean(LockTemplate.class);
                    AtomicInteger counted = context.getBean(CountedDataSource.class).counted;
                    try (AutoCloseable held = heldByAnotherInstance("lock_backoff", "invoice", "12")) {
                        counted.set(0);
                        assertThat(template.tryAcquire("invoice", "12", Duration.ofSeconds(1)))
                                .isEmpty();
                        attempts.set(counted.get());
                    }
                });
        return attempts.get();
    }

    /** A lock held by another instance on the same table until the returned handle is closed. */
    private AutoCloseable heldByAnotherInstance(String table, String name, String key) throws InterruptedException {
        LockDaos dao = LockDaos.of(
                database.dataSource(),
                new org.springframework.jdbc.datasource.DataSourceTransactionManager(database.dataSource()),
                io.github.bizlock.internal.jdbc.dialect.Dialects.detect(database.dataSource(), table));
        LockManager other =
                io.github.bizlock.LockFixture.manager(dao, "other-instance").build();
        LockHandle handle = other.tryAcquire(new LockKey(name, key), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        return () -> {
            handle.unlock();
            other.close();
        };
    }

    @Test
    void theHousekeepingIntervalAndRetentionDecideWhichRowsArePurgedAndWhen() {
        runner.withPropertyValues(
                        "bizlock.table-name=lock_kept",
                        "bizlock.housekeeping.interval=200ms",
                        "bizlock.housekeeping.retention=30m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTemplate template = context.getBean(LockTemplate.class);
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    for (String key : List.of("old-1", "old-2", "recent")) {
                        template.execute("aged", key, () -> null);
                    }
                    // Released 45 and 10 minutes ago, in one statement, so every run sees both ages at once.
                    new JdbcTemplate(context.getBean(DataSource.class))
                            .update("UPDATE lock_kept SET modified_at = UTC_TIMESTAMP(6) - INTERVAL"
                                    + " (CASE WHEN biz_id LIKE 'old%' THEN 45 ELSE 10 END) MINUTE"
                                    + " WHERE biz_type = 'aged'");
                    // Within seconds, not the default 10 minutes: the interval was applied.
                    Await.until(
                            "rows free for longer than the retention are purged",
                            Duration.ofSeconds(20),
                            () -> dao.find("aged", "old-1").isEmpty()
                                    && dao.find("aged", "old-2").isEmpty());
                    assertThat(dao.find("aged", "recent"))
                            .as("free for less than the 30 min retention: kept")
                            .isPresent();
                });
    }

    @Test
    void theHousekeepingBatchSizeIsTheMostRowsOneStatementDeletes() {
        runner.withUserConfiguration(CountedDataSource.class)
                .withPropertyValues(
                        "bizlock.table-name=lock_batches",
                        // The first run 2 s after the start, the next 2 s after it ends: time to count the first's.
                        "bizlock.housekeeping.interval=2s",
                        "bizlock.housekeeping.retention=1m",
                        "bizlock.housekeeping.batch-size=2",
                        "test.counted-sql=DELETE\\s+FROM\\s+lock_batches\\s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTemplate template = context.getBean(LockTemplate.class);
                    for (int i = 0; i < 5; i++) {
                        template.execute("batched", "k" + i, () -> null);
                    }
                    new JdbcTemplate(context.getBean(DataSource.class))
                            .update("UPDATE lock_batches SET modified_at = UTC_TIMESTAMP(6) - INTERVAL 1 HOUR"
                                    + " WHERE biz_type = 'batched'");
                    AtomicInteger deletes = context.getBean(CountedDataSource.class).counted;
                    deletes.set(0);
                    BizLockDao dao = context.getBean(BizLockDao.class);
                    Await.until(
                            "housekeeping purges the five rows",
                            Duration.ofSeconds(10),
                            () -> dao.find("batched", "k0").isEmpty()
                                    && dao.find("batched", "k4").isEmpty());
                    assertThat(deletes.get())
                            .as("statements for 5 rows in batches of 2")
                            .isEqualTo(3);
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
    void aBlankDataSourcePropertyMeansTheApplicationsOnlyDataSource() {
        runner.withPropertyValues("bizlock.datasource= ", "bizlock.table-name=lock_blank_datasource")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tableExists(database.dataSource(), "lock_blank_datasource"))
                            .isTrue();
                });
    }

    @Test
    void withoutFlywayMigrationFailsTheStartNamingThePropertyAndCheckingAloneStarts() {
        runner.withClassLoader(new FilteredClassLoader("org.flywaydb"))
                .withPropertyValues("bizlock.table-name=lock_without_flyway")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(BizLockPropertyException.class)
                            .hasMessageContaining("bizlock.migration.enabled=true: Flyway is not on the class path");
                });
        runner.withPropertyValues("bizlock.table-name=lock_without_flyway")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withClassLoader(new FilteredClassLoader("org.flywaydb"))
                .withPropertyValues("bizlock.table-name=lock_without_flyway", "bizlock.migration.enabled=false")
                .run(context -> assertThat(context).hasNotFailed());
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
    void proxiesDistributedLockMethodsInAnApplicationWithoutAnAutoProxyCreatorOfItsOwn() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        BizLockAutoConfiguration.class))
                .withPropertyValues(datasource(database))
                .withPropertyValues("bizlock.table-name=lock_own_proxies")
                .withUserConfiguration(LockedService.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockedService service = context.getBean(LockedService.class);
                    assertThat(AopUtils.isAopProxy(service)).isTrue();
                    assertThat(service.heldWhileRunning(context.getBean(BizLockDao.class)))
                            .isTrue();
                });
    }

    /** A bean whose method runs under a lock, and says whether the lock row was held while it ran. */
    static class LockedService {

        @DistributedLock(name = "own-proxies", key = "'1'")
        boolean heldWhileRunning(BizLockDao dao) {
            return dao.find("own-proxies", "1").orElseThrow().held();
        }
    }

    @Test
    void refusesToStartWhenADistributedLockMethodWouldRunWithoutItsLock() {
        runner.withPropertyValues("bizlock.table-name=lock_method_check")
                .withBean(PrivatelyLocked.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("PrivatelyLocked.run() is private");
                });
    }

    /** A lock on a method no proxy can intercept. */
    static class PrivatelyLocked {

        @DistributedLock(name = "job")
        private void run() {}

        public void call() {
            run();
        }
    }

    @Test
    void registersTheRollbackOnLockLostListenerWithTheTransactionManager() {
        // As in an application: Spring Boot adds the TransactionExecutionListener beans to the manager it makes.
        runner.withConfiguration(AutoConfigurations.of(TransactionManagerCustomizationAutoConfiguration.class))
                .withPropertyValues("bizlock.table-name=lock_rollback_listener")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    AbstractPlatformTransactionManager transactions =
                            (AbstractPlatformTransactionManager) context.getBean(PlatformTransactionManager.class);
                    assertThat(transactions.getTransactionExecutionListeners())
                            .hasAtLeastOneElementOfType(RollbackOnLockLost.class);
                });
    }

    @Test
    void publishesLostLocksAsApplicationEvents() {
        runner.withPropertyValues("bizlock.table-name=lock_events", "bizlock.lease-time=1s")
                .withUserConfiguration(LostLocks.class, ListenerBean.class)
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
                    // LockLostListener beans are told too, once.
                    List<LockLostEvent> told = context.getBean(ListenerBean.class).told;
                    Await.until("the listener bean is told", Duration.ofSeconds(5), () -> !told.isEmpty());
                    assertThat(told)
                            .singleElement()
                            .extracting(LockLostEvent::key)
                            .isEqualTo("daily");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserTemplateConfiguration {

        LockTemplate template;

        @Bean
        LockTemplate userLockTemplate(LockService service) {
            template = service.template();
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

    /**
     * The application's DataSource, counting the statements prepared whose SQL matches the regular expression in
     * {@code test.counted-sql}.
     */
    @Configuration(proxyBeanMethods = false)
    static class CountedDataSource {

        final AtomicInteger counted = new AtomicInteger();

        @Bean
        DataSource dataSource(org.springframework.core.env.Environment env) {
            Pattern sql = Pattern.compile(env.getRequiredProperty("test.counted-sql"), Pattern.CASE_INSENSITIVE);
            HikariDataSource pool = hikari(env.getRequiredProperty("spring.datasource.url"), env);
            pool.setMaximumPoolSize(4);
            pool.setMinimumIdle(0);
            return CountingDataSource.counting(pool, text -> sql.matcher(text).find(), counted);
        }

        /** Lock writes on the counted DataSource, not on the small pool of bizlock's own beside it. */
        @Bean
        BizLockServiceCustomizer lockWritesOnTheCountedDataSource(DataSource dataSource) {
            return builder -> builder.lockConnections(dataSource);
        }
    }

    /** A {@link LockLostListener} bean, which the auto-configuration tells of lost locks. */
    @Configuration(proxyBeanMethods = false)
    static class ListenerBean {

        final List<LockLostEvent> told = new CopyOnWriteArrayList<>();

        /** A listener a test adds while the context runs, as it would to a lock service of its own. */
        volatile @Nullable LockLostListener also;

        @Bean
        LockLostListener recordingListener() {
            return event -> {
                told.add(event);
                LockLostListener added = also;
                if (added != null) {
                    added.onLockLost(event);
                }
            };
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
