package io.github.bizlock.aop;

import static io.github.bizlock.aop.LockFixtures.heldInDatabase;
import static io.github.bizlock.aop.LockFixtures.whileHeldElsewhere;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockDefaults;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.CannotAcquireLockException;

@ExtendWith(TestDatabaseExtension.class)
class DistributedLockAnnotationTest {

    record Order(String id) {}

    /** Each method returns whether the database held its lock while it ran. */
    interface Orders {

        @DistributedLock(name = "order", key = "#order.id")
        boolean submit(Order order);
    }

    static class DefaultOrders implements Orders {

        private final ObjectProvider<BizLockDao> dao;

        DefaultOrders(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        @Override
        public boolean submit(Order order) {
            return heldInDatabase(dao.getObject(), "order", order.id());
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @DistributedLock(
            name = "stock",
            key = {"#warehouse", "#sku"})
    @interface StockLock {}

    @DistributedLock(key = "#p0")
    static class Reports {

        private final ObjectProvider<BizLockDao> dao;

        Reports(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        public boolean build(String day) {
            return heldInDatabase(dao.getObject(), "Reports.build", day);
        }
    }

    static class Jobs {

        private final ObjectProvider<BizLockDao> dao;

        Jobs(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        @StockLock
        public boolean reserve(String warehouse, String sku) {
            return heldInDatabase(dao.getObject(), "stock", warehouse + ":" + sku);
        }

        @DistributedLock
        public boolean unnamed() {
            return heldInDatabase(dao.getObject(), "Jobs.unnamed", DistributedLock.DEFAULT_KEY);
        }

        @DistributedLock(name = "job", key = "#p0")
        public String throwing(String id) {
            return "ran " + id;
        }

        @DistributedLock(name = "job", key = "#p0", onFailure = OnFailure.SKIP)
        public String skipping(String id) {
            return "ran " + id;
        }

        @DistributedLock(name = "job", key = "#p0", onFailure = OnFailure.SKIP)
        public Optional<String> skippingOptional(String id) {
            return Optional.of("ran " + id);
        }

        @DistributedLock(name = "job", key = "#p0", onFailure = OnFailure.FALLBACK, fallback = "busy")
        public String withFallback(String id) {
            return "ran " + id;
        }

        @SuppressWarnings("unused")
        private String busy(String id) {
            return "busy " + id;
        }

        @DistributedLock(name = "job", key = "#p0", waitTime = "${job.wait:0}")
        public String waitingFromPlaceholder(String id) {
            return "ran " + id;
        }
    }

    /** What the lock of a running method looks like from inside it. */
    record Lease(Duration length, boolean renewedByWatchdog) {}

    static class Leases {

        private final ObjectProvider<BizLockDao> dao;
        private final ObjectProvider<LockService> manager;

        Leases(ObjectProvider<BizLockDao> dao, ObjectProvider<LockService> manager) {
            this.dao = dao;
            this.manager = manager;
        }

        @DistributedLock(name = "leased", key = "#p0", leaseTime = "7s")
        public Lease fixed(String id) {
            return lease(id);
        }

        @DistributedLock(name = "leased", key = "#p0")
        public Lease renewed(String id) {
            return lease(id);
        }

        private Lease lease(String id) {
            BizLockDao.Row row = dao.getObject().find("leased", id).orElseThrow();
            LockStatus.LocalLock lock = manager.getObject().localLocks().stream()
                    .filter(snapshot -> snapshot.key().equals(id))
                    .findFirst()
                    .orElseThrow();
            return new Lease(Duration.between(row.acquiredAt(), row.expiresAt()), lock.renewedByWatchdog());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        Leases leases(ObjectProvider<BizLockDao> dao, ObjectProvider<LockService> manager) {
            return new Leases(dao, manager);
        }

        @Bean
        DefaultOrders orders(ObjectProvider<BizLockDao> dao) {
            return new DefaultOrders(dao);
        }

        @Bean
        Reports reports(ObjectProvider<BizLockDao> dao) {
            return new Reports(dao);
        }

        @Bean
        Jobs jobs(ObjectProvider<BizLockDao> dao) {
            return new Jobs(dao);
        }
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database).withUserConfiguration(Services.class);
    }

    @Test
    void locksThroughAJdkProxyWhenTheAnnotationIsOnTheInterface() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(AopUtils.isJdkDynamicProxy(orders)).isTrue();
            assertThat(orders.submit(new Order("o-1"))).isTrue();
            assertThat(heldInDatabase(context.getBean(BizLockDao.class), "order", "o-1"))
                    .as("released after the call")
                    .isFalse();
        });
    }

    @Test
    void locksThroughACglibProxy() {
        runner.withPropertyValues("spring.aop.proxy-target-class=true").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(AopUtils.isCglibProxy(orders)).isTrue();
            assertThat(orders.submit(new Order("o-2"))).isTrue();
        });
    }

    @Test
    void locksEveryPublicMethodOfAnAnnotatedClassNamedAfterClassAndMethod() {
        runner.run(context ->
                assertThat(context.getBean(Reports.class).build("2024-05-01")).isTrue());
    }

    @Test
    void worksAsAMetaAnnotationJoiningSeveralKeys() {
        runner.run(context -> assertThat(context.getBean(Jobs.class).reserve("north", "sku-9"))
                .isTrue());
    }

    @Test
    void defaultsTheNameToClassAndMethodAndTheKeyToOneLock() {
        runner.run(context -> assertThat(context.getBean(Jobs.class).unnamed()).isTrue());
    }

    @Test
    void throwsACannotAcquireLockExceptionNamingTheMethodWhenHeldElsewhere() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Throwable thrown = whileHeldElsewhere(context.getBean(LockTemplate.class), "job", "7", () -> {
                try {
                    jobs.throwing("7");
                    return null;
                } catch (RuntimeException ex) {
                    return ex;
                }
            });
            assertThat(thrown)
                    .isInstanceOf(LockAcquisitionException.class)
                    .isInstanceOf(CannotAcquireLockException.class)
                    .hasMessageContaining("Jobs.throwing(String)")
                    .hasMessageContaining("job/7");
            assertThat(jobs.throwing("7")).isEqualTo("ran 7");
        });
    }

    @Test
    void skipsReturningNullOrAnEmptyOptionalWhenHeldElsewhere() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockTemplate locks = context.getBean(LockTemplate.class);
            assertThat(whileHeldElsewhere(locks, "job", "8", () -> Optional.ofNullable(jobs.skipping("8"))))
                    .isEmpty();
            assertThat(whileHeldElsewhere(locks, "job", "8", () -> jobs.skippingOptional("8")))
                    .isEmpty();
            assertThat(jobs.skipping("8")).isEqualTo("ran 8");
            assertThat(jobs.skippingOptional("8")).contains("ran 8");
        });
    }

    @Test
    void callsTheFallbackWithTheSameArgumentsWhenHeldElsewhere() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(whileHeldElsewhere(
                            context.getBean(LockTemplate.class), "job", "9", () -> jobs.withFallback("9")))
                    .isEqualTo("busy 9");
            assertThat(jobs.withFallback("9")).isEqualTo("ran 9");
        });
    }

    @Test
    void resolvesPlaceholdersInDurations() {
        runner.withPropertyValues("job.wait=-1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("Jobs.waitingFromPlaceholder(String)")
                    .hasStackTraceContaining("must not be negative");
        });
    }

    @Test
    void keyThatEvaluatesToNullFailsTheCallNamingMethodAndExpression() {
        runner.run(context -> assertThatThrownBy(
                        () -> context.getBean(Orders.class).submit(new Order(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("submit(Order)")
                .hasMessageContaining("'#order.id' evaluated to null"));
    }

    static class TwoModes {

        @DistributedLock(
                name = "x",
                mode = {LockMode.LEASE, LockMode.ROW})
        public void run() {}
    }

    static class MissingFallback {

        @DistributedLock(name = "x", onFailure = OnFailure.FALLBACK, fallback = "nowhere")
        public String run(String id) {
            return id;
        }
    }

    static class SkipOnPrimitive {

        @DistributedLock(name = "x", onFailure = OnFailure.SKIP)
        public int count() {
            return 1;
        }
    }

    static class BadDuration {

        @DistributedLock(name = "x", waitTime = "3 parsecs")
        public void run() {}
    }

    static class CenturiesLease {

        @DistributedLock(name = "x", leaseTime = "365000d")
        public void run() {}
    }

    static class BadExpression {

        @DistributedLock(name = "x", key = "#p0 +")
        public void run(String id) {}
    }

    @Test
    void theAnnotationsLeaseTimeIsTheLeaseAndIsNotRenewed() {
        runner.run(context -> {
            Leases leases = context.getBean(Leases.class);
            assertThat(leases.fixed("a")).isEqualTo(new Lease(Duration.ofSeconds(7), false));
            assertThat(leases.renewed("b"))
                    .as("without it, the watchdog lease, renewed")
                    .isEqualTo(new Lease(LockDefaults.WATCHDOG_LEASE, true));
        });
    }

    @Test
    void failsAtStartWhenTwoModesAreNamed() {
        runner.withBean(TwoModes.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("TwoModes.run()")
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("names 2 modes; name at most one");
        });
    }

    @Test
    void failsAtStartWhenTheFallbackMethodDoesNotExist() {
        runner.withBean(MissingFallback.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("MissingFallback.run(String)")
                        .hasStackTraceContaining("has no method nowhere with parameters (String)"));
    }

    @Test
    void failsAtStartWhenSkipCannotReturnNull() {
        runner.withBean(SkipOnPrimitive.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("SkipOnPrimitive.count()")
                        .hasStackTraceContaining("returns int"));
    }

    @Test
    void failsAtStartWhenADurationDoesNotParse() {
        runner.withBean(BadDuration.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("BadDuration.run()")
                        .hasStackTraceContaining("'3 parsecs' is not a duration"));
    }

    @Test
    void failsAtStartWhenALeaseIsLongerThanTheMaximum() {
        runner.withBean(CenturiesLease.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("CenturiesLease.run()")
                        .hasStackTraceContaining("leaseTime must be at most 365 days"));
    }

    @Test
    void failsAtStartWhenAKeyExpressionDoesNotParse() {
        runner.withBean(BadExpression.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("BadExpression.run(String)")
                        .hasStackTraceContaining("'#p0 +' does not parse"));
    }
}
