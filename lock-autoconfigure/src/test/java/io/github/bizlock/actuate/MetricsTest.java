package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.TestServices;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/** Every bizlock meter moves when the lock manager does what it counts, on a real database. */
@ExtendWith(TestDatabaseExtension.class)
class MetricsTest {

    private SimpleMeterRegistry registry;
    private ExecutorService threads;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void setUp() {
        registry = new SimpleMeterRegistry();
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        registry.close();
    }

    private LockManager manager(LockDaos dao, Set<String> keyTagNames, Duration watchdogLease) {
        LockManager manager = LockFixture.manager(dao, InstanceId.generate())
                .watchdogLease(watchdogLease)
                .observer(TestServices.observer(new LockMetrics(registry, keyTagNames)))
                .build();
        new LockGauges(TestServices.of(manager, dao)).bindTo(registry);
        return manager;
    }

    private long acquisitions(String name, String outcome) {
        Timer timer = registry.find("bizlock.acquire")
                .tags("name", name, "mode", "lease", "outcome", outcome)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    private double counter(String meter, String... tags) {
        Counter counter = registry.find(meter).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private double gauge(String meter) {
        Gauge gauge = registry.find(meter).gauge();
        assertThat(gauge).as(meter).isNotNull();
        return gauge.value();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void acquisitionsWaitsHoldsAndGaugesMoveWithTheLocks(DataSource dataSource) throws Exception {
        Set<String> histograms = new java.util.concurrent.ConcurrentSkipListSet<>();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (Boolean.TRUE.equals(config.isPercentileHistogram())) {
                    histograms.add(id.getName());
                }
                return config;
            }
        });
        LockKey key = new LockKey("metrics", "a");
        try (LockManager manager = manager(LockFixture.daos(dataSource), Set.of(), Duration.ofSeconds(30))) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            assertThat(acquisitions("metrics", "acquired")).isEqualTo(1);
            assertThat(gauge("bizlock.held")).isEqualTo(1);
            assertThat(gauge("bizlock.waiting")).isZero();

            // Another thread tries without waiting: timed out.
            Optional<LockHandle> none = threads.submit(
                            () -> manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .get(30, TimeUnit.SECONDS);
            assertThat(none).isEmpty();
            assertThat(acquisitions("metrics", "timed_out")).isEqualTo(1);

            // Another thread waits: the waiting gauge shows it until the lock is handed over.
            CountDownLatch got = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> waiter = threads.submit(() -> {
                try (LockHandle ignored = manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(30), null)
                        .orElseThrow()) {
                    got.countDown();
                    release.await(30, TimeUnit.SECONDS);
                }
                return null;
            });
            await("a thread waits", () -> gauge("bizlock.waiting") == 1);
            held.unlock();
            assertThat(got.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(gauge("bizlock.waiting")).isZero();
            assertThat(gauge("bizlock.held")).isEqualTo(1);
            release.countDown();
            waiter.get(30, TimeUnit.SECONDS);

            assertThat(gauge("bizlock.held")).isZero();
            assertThat(acquisitions("metrics", "acquired")).isEqualTo(2);
            Timer hold = registry.find("bizlock.hold")
                    .tags("name", "metrics", "mode", "lease")
                    .timer();
            assertThat(hold).isNotNull();
            assertThat(hold.count()).isEqualTo(2);
            assertThat(hold.totalTime(TimeUnit.NANOSECONDS)).isPositive();

            Timer wait = registry.find("bizlock.wait")
                    .tags("name", "metrics", "mode", "lease")
                    .timer();
            assertThat(wait).isNotNull();
            assertThat(wait.count())
                    .as("every acquisition, whatever the outcome")
                    .isEqualTo(3);
            assertThat(wait.max(TimeUnit.NANOSECONDS))
                    .as("the waiter's wait")
                    .isGreaterThan(wait.totalTime(TimeUnit.NANOSECONDS) / 3);
            // A percentile histogram: registries that aggregate percentiles (Prometheus) publish it as the buckets
            // (bizlock_wait_seconds_bucket) the histogram_quantile query of docs/observability.md reads. This registry
            // does not publish
            // buckets, so the meter's own configuration is checked.
            assertThat(histograms)
                    .as("meters configured with a percentile histogram")
                    .containsExactly("bizlock.wait");
        }
    }

    @Test
    void handOffsToWaitingThreadsAreCounted(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("metrics", "handoff");
        try (LockManager manager = manager(LockFixture.daos(dataSource), Set.of(), Duration.ofSeconds(30))) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            List<Future<Long>> waiters = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiters.add(threads.submit(() -> {
                    try (LockHandle mine = manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(30), null)
                            .orElseThrow()) {
                        return mine.fencingToken();
                    }
                }));
            }
            await("two threads wait", () -> gauge("bizlock.waiting") == 2);
            long first = held.fencingToken();
            // Taken with nobody waiting, this grant reserved no token to pass on: released to the database. The next
            // grant is taken while one thread still waits, reserves a token for it, and is handed over.
            held.unlock();
            long second = waiters.get(0).get(30, TimeUnit.SECONDS);
            long third = waiters.get(1).get(30, TimeUnit.SECONDS);
            assertThat(counter("bizlock.handoffs", "name", "metrics", "mode", "lease"))
                    .isEqualTo(1);
            assertThat(Math.min(second, third)).isGreaterThan(first);
            assertThat(Math.max(second, third)).isGreaterThan(Math.min(second, third));
            assertThat(gauge("bizlock.held")).isZero();
        }
    }

    @Test
    void anInterruptedWaitIsAFailedAcquisition(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("metrics", "interrupted");
        try (LockManager manager = manager(LockFixture.daos(dataSource), Set.of(), Duration.ofSeconds(30))) {
            try (LockHandle ignored =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow()) {
                CompletableFuture<Throwable> failure = CompletableFuture.supplyAsync(
                        () -> {
                            Thread.currentThread().interrupt();
                            try {
                                manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(30), null);
                                return null;
                            } catch (InterruptedException ex) {
                                return ex;
                            }
                        },
                        threads);
                assertThat(failure.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            }
            assertThat(acquisitions("metrics", "failed")).isEqualTo(1);
            assertThat(acquisitions("metrics", "acquired")).isEqualTo(1);
        }
    }

    @Test
    void renewalsAndLossesAreCounted(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("metrics", "renewed");
        LockDaos dao = LockFixture.daos(dataSource);
        try (LockManager manager = manager(dao, Set.of(), Duration.ofMillis(600));
                LockManager other = LockFixture.manager(dataSource).build()) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            await("the watchdog renews", () -> counter("bizlock.renewals", "mode", "lease") >= 2);
            assertThat(counter("bizlock.lost", "name", "metrics", "mode", "lease"))
                    .isZero();

            Optional<LockHandle> taken = Optional.empty();
            for (int i = 0; i < 20 && taken.isEmpty(); i++) {
                expire(dataSource, key);
                taken = other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);
            }
            assertThat(taken).isPresent();
            await("the loss is counted", () -> counter("bizlock.lost", "name", "metrics", "mode", "lease") == 1);
            assertThatThrownBy(held::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(counter("bizlock.lost", "name", "metrics", "mode", "lease", "cause", "taken_over"))
                    .as("taken over by another owner")
                    .isEqualTo(1);
            assertThat(counter("bizlock.lost", "name", "metrics", "mode", "lease"))
                    .as("counted once")
                    .isEqualTo(1);
            taken.get().unlock();
        }
    }

    @Test
    void failedRenewalsAreCountedAndShowAsOverdue(TestDatabase database) throws Exception {
        LockKey key = new LockKey("metrics", "unreachable");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        HikariDataSource pool = new HikariDataSource(config);
        try (LockManager manager = manager(LockFixture.daos(pool), Set.of(), Duration.ofSeconds(3))) {
            LockHandle held =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            // The lock database becomes unreachable for this instance.
            pool.close();
            await("a renewal fails", () -> counter("bizlock.renewal.failures", "mode", "lease") >= 1);
            await("the renewal is overdue", () -> gauge("bizlock.renewals.overdue") == 1);
            await("the lease is lost", () -> counter("bizlock.lost", "name", "metrics", "mode", "lease") == 1);
            assertThat(gauge("bizlock.renewals.overdue"))
                    .as("a lost lease is no longer renewed")
                    .isZero();
            assertThat(counter("bizlock.lost", "name", "metrics", "mode", "lease", "cause", "lease_expired"))
                    .as("the lease ended while the database was unreachable")
                    .isEqualTo(1);
            assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
        } finally {
            pool.close();
        }
    }

    @Test
    void gaugesReadZeroUntilTheLockManagerIsMadeThenFollowIt(DataSource dataSource) throws Exception {
        AtomicReference<LockService> made = new AtomicReference<>();
        new LockGauges(made::get).bindTo(registry);
        assertThat(gauge("bizlock.held")).isZero();
        assertThat(gauge("bizlock.waiting")).isZero();
        assertThat(gauge("bizlock.renewals.overdue")).isZero();

        LockDaos dao = LockFixture.daos(dataSource);
        try (LockManager manager =
                LockFixture.manager(dao, InstanceId.generate()).build()) {
            made.set(TestServices.of(manager, dao));
            try (LockHandle ignored = manager.tryAcquire(
                            new LockKey("gauged", "1"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()) {
                assertThat(gauge("bizlock.held")).isEqualTo(1);
            }
        }
    }

    @Test
    void housekeepingPurgesAreCounted(DataSource dataSource) throws Exception {
        LockDaos dao = LockFixture.daos(dataSource);
        try (LockManager manager = manager(dao, Set.of(), Duration.ofSeconds(30))) {
            for (int i = 0; i < 3; i++) {
                manager.tryAcquire(new LockKey("purged", "k" + i), LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow()
                        .unlock();
            }
            Housekeeper housekeeper = new Housekeeper(dao.housekeeping(), manager, Duration.ZERO, 100);
            await("the freed rows are purged", () -> {
                try {
                    housekeeper.runOnce();
                } catch (InterruptedException ex) {
                    throw new AssertionError(ex);
                }
                return counter("bizlock.housekeeping.purged") >= 3;
            });
        }
    }

    @Test
    void keysAreTagsOnlyForAllowedNames(DataSource dataSource) throws Exception {
        try (LockManager manager = manager(LockFixture.daos(dataSource), Set.of("tenant"), Duration.ofSeconds(30))) {
            manager.tryAcquire(new LockKey("tenant", "t1"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            manager.tryAcquire(new LockKey("order", "o-17"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            assertThat(registry.find("bizlock.acquire").tag("key", "t1").timer())
                    .isNotNull();
            assertThat(registry.find("bizlock.acquire").tag("key", "o-17").timer())
                    .isNull();
            assertThat(registry.find("bizlock.hold")
                            .tags("name", "order", "key", LockMetrics.OTHER_KEY)
                            .timer())
                    .isNotNull();
        }
    }

    @Test
    void aSemaphoresPermitsAreTaggedPermitAndPlainLocksLock(DataSource dataSource) throws Exception {
        LockDaos daos = LockFixture.daos(dataSource);
        try (LockManager manager = manager(daos, Set.of(), Duration.ofSeconds(30))) {
            LockService service = TestServices.of(manager, daos);
            // The name's first use: the acquisition is tagged as a permit although the name is bound on its way.
            try (PermitHandle permit = service.template().acquirePermit("exports", "t1", 2)) {
                assertThat(permit.permits()).isEqualTo(2);
            }
            manager.tryAcquire(new LockKey("order", "o-19"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();

            assertThat(registry.find("bizlock.acquire")
                            .tags("name", "exports", "primitive", LockMetrics.PERMIT, "outcome", "acquired")
                            .timer())
                    .isNotNull()
                    .extracting(Timer::count)
                    .isEqualTo(1L);
            assertThat(registry.find("bizlock.hold")
                            .tags("name", "exports", "primitive", LockMetrics.PERMIT)
                            .timer())
                    .isNotNull();
            assertThat(registry.find("bizlock.acquire")
                            .tags("name", "order", "primitive", LockMetrics.LOCK)
                            .timer())
                    .isNotNull();
            assertThat(registry.find("bizlock.hold")
                            .tags("name", "order", "primitive", LockMetrics.PERMIT)
                            .timer())
                    .isNull();
            assertThat(registry.getMeters())
                    .filteredOn(meter -> meter.getId().getTag("name") != null)
                    .allSatisfy(meter ->
                            assertThat(meter.getId().getTag("primitive")).isIn(LockMetrics.LOCK, LockMetrics.PERMIT));
        }
    }

    @Test
    void withoutAnAllowListNoMeterHasAKeyTag(DataSource dataSource) throws Exception {
        try (LockManager manager = manager(LockFixture.daos(dataSource), Set.of(), Duration.ofSeconds(30))) {
            manager.tryAcquire(new LockKey("order", "o-18"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            assertThat(registry.getMeters())
                    .isNotEmpty()
                    .allSatisfy(meter -> assertThat(meter.getId().getTag("key")).isNull());
        }
    }

    private static void expire(DataSource dataSource, LockKey key) {
        new JdbcTemplate(dataSource)
                .update(
                        "UPDATE biz_lock SET expire_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
                                + " WHERE biz_type = ? AND biz_id = ?",
                        key.name().getBytes(StandardCharsets.UTF_8),
                        key.key().getBytes(StandardCharsets.UTF_8));
    }
}
