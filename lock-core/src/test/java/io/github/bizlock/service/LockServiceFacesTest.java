package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.ThreadPerTask;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;

/**
 * What tools read of a running {@link LockService} without Spring Boot, on a real database: its LEASE table
 * ({@link BizLockDao}), its counts and local locks ({@link LockStatus}), what its observers and listeners are told, the
 * tables as a {@link LockService.Builder#prepareTables} step sees them, and its own connections closed with it.
 */
@LockTest
class LockServiceFacesTest {

    private static final Duration SHORT_LEASE = Duration.ofMillis(600);

    @Test
    void theDaoReadsAndForceReleasesTheLeaseTable(DataSource dataSource) {
        LockService.Builder builder = LockService.builder(dataSource).housekeeping(false);
        try (LockService service = builder.build()) {
            BizLockDao dao = service.dao();
            assertThat(dao.table()).isEqualTo("biz_lock");
            assertThat(dao.toString()).contains("biz_lock");
            assertThat(dao.database()).containsAnyOf("MySQL", "MariaDB");
            assertThat(dao.missingTables()).isEmpty();
            assertThat(Duration.between(dao.databaseTime(), LocalDateTime.now(ZoneOffset.UTC))
                            .abs())
                    .as("the database's clock, in UTC")
                    .isLessThan(Duration.ofMinutes(1));
            assertThat(dao.find("faces", "dao")).isEmpty();

            LockHandle held = service.template().acquire("faces", "dao");
            BizLockDao.Row row = dao.find("faces", "dao").orElseThrow();
            assertThat(row.name()).isEqualTo("faces");
            assertThat(row.key()).isEqualTo("dao");
            assertThat(row.owner()).isEqualTo(builder.instanceId());
            assertThat(row.fencingToken()).isEqualTo(held.fencingToken());
            assertThat(row.held()).isTrue();
            assertThat(row.expiresAt()).isAfter(row.acquiredAt());
            assertThat(dao.findHeld(10)).containsExactly(row);
            assertThat(dao.findHeld(1)).as("a limit of one").containsExactly(row);
            assertThatThrownBy(() -> dao.findHeld(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("limit must be at least 1, was 0");

            assertThat(dao.forceRelease("faces", "dao")).as("an owner held it").isTrue();
            assertThat(dao.forceRelease("faces", "dao")).as("free already").isFalse();
            assertThat(dao.findHeld(10)).isEmpty();
            assertThatThrownBy(held::unlock).as("the hold was freed under it").isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void statusAndLocalLocksCountAndShowTheLocksOfThisProcess(DataSource dataSource) {
        LockService.Builder builder = LockService.builder(dataSource).housekeeping(false);
        try (LockService service = builder.build()) {
            assertThat(service.status())
                    .isEqualTo(new LockStatus(builder.instanceId(), java.util.Set.of(LockMode.LEASE), 0, 0, 0, 0));
            try (LockHandle held = service.template().acquire("faces", "status")) {
                assertThat(service.status().held()).isEqualTo(1);
                assertThat(service.status().renewed())
                        .as("the watchdog renews it")
                        .isEqualTo(1);
                assertThat(service.localLocks()).singleElement().satisfies(lock -> {
                    assertThat(lock.name()).isEqualTo("faces");
                    assertThat(lock.key()).isEqualTo("status");
                    assertThat(lock.mode()).isEqualTo(LockMode.LEASE);
                    assertThat(lock.holderThread())
                            .isEqualTo(Thread.currentThread().getName());
                    assertThat(lock.fencingToken()).isEqualTo(held.fencingToken());
                    assertThat(lock.renewedByWatchdog()).isTrue();
                    assertThat(lock.lost()).isFalse();
                    assertThat(lock.waiting()).isZero();
                });
            }
            assertThat(service.status().held()).isZero();
            assertThat(service.localLocks()).isEmpty();
        }
    }

    @Test
    void observersAndListenersAreToldWhatTheLocksDo(DataSource dataSource) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        LockObserver observer = new LockObserver() {
            @Override
            public Acquisition acquisitionStarted(String name, String key, LockMode mode) {
                seen.add("started " + name + "/" + key + " " + mode);
                return (outcome, waitNanos) -> seen.add("finished " + outcome + (waitNanos >= 0 ? "" : " negative"));
            }

            @Override
            public void released(String name, String key, LockMode mode, long holdNanos) {
                seen.add("released " + name + "/" + key + " " + mode);
            }

            @Override
            public void handedOver(String name, String key, LockMode mode) {
                seen.add("handed over " + name + "/" + key);
            }

            @Override
            public void renewed(LockMode mode, int count) {
                seen.add("renewed " + mode);
            }

            @Override
            public void lost(LockLostEvent event) {
                seen.add("lost " + event.cause());
            }

            @Override
            public void purged(int rows) {
                seen.add("purged " + rows);
            }
        };
        try (LockService service = LockService.builder(dataSource)
                .watchdogLease(SHORT_LEASE)
                .housekeeping(Duration.ofMillis(200), Duration.ofMillis(1), 500)
                .observer(observer)
                .listener(lost::add)
                .build()) {
            service.template().acquire("faces", "observed").unlock();
            assertThat(seen)
                    .containsSubsequence(
                            "started faces/observed LEASE", "finished ACQUIRED", "released faces/observed LEASE");

            // Two threads wait for a lock this thread holds, taken with nobody waiting: its unlock releases it, the
            // next grant is taken while the other thread still waits, and is handed over to it without a release.
            LockHandle first = service.template().acquire("faces", "handed");
            List<CompletableFuture<Void>> waiters = List.of(waiter(service), waiter(service));
            Await.until(
                    "both threads wait",
                    Duration.ofSeconds(10),
                    () -> service.status().waiting() == 2);
            first.unlock();
            for (CompletableFuture<Void> waiter : waiters) {
                waiter.get(10, TimeUnit.SECONDS);
            }
            assertThat(seen).contains("handed over faces/handed");

            AtomicReference<LockHandle> renewedOne =
                    new AtomicReference<>(service.template().acquire("faces", "lost"));
            Await.until("a renewal", Duration.ofSeconds(10), () -> seen.contains("renewed LEASE"));
            service.dao().forceRelease("faces", "lost");
            Await.until("the loss, at the next renewal", Duration.ofSeconds(10), () -> !lost.isEmpty());
            assertThat(lost)
                    .singleElement()
                    .satisfies(event -> assertThat(event.cause()).isEqualTo(LossCause.REMOVED));
            assertThat(seen).contains("lost REMOVED");
            assertThatThrownBy(renewedOne.get()::unlock).hasMessageContaining("faces/lost");

            Await.until(
                    "housekeeping purges the free rows",
                    Duration.ofSeconds(10),
                    () -> seen.stream().anyMatch(event -> event.startsWith("purged ") && !event.equals("purged 0")));
        }
    }

    private static CompletableFuture<Void> waiter(LockService service) {
        return CompletableFuture.runAsync(
                () -> service.template()
                        .acquire("faces", "handed", LockOptions.defaults().waitTime(Duration.ofSeconds(10)))
                        .unlock(),
                ThreadPerTask.EXECUTOR);
    }

    @Test
    void aStepBeforeTheTableCheckSeesTheTablesAndRunsExclusively(DataSource dataSource) {
        List<String> steps = new CopyOnWriteArrayList<>();
        try (LockService ignored = LockService.builder(dataSource)
                .housekeeping(false)
                .prepareTables(tables -> {
                    assertThat(tables.dataSource()).isSameAs(dataSource);
                    assertThat(tables.table()).isEqualTo("biz_lock");
                    assertThat(tables.missingTables()).isEmpty();
                    assertThat(tables.versionWithoutHistory())
                            .as("the latest migration's")
                            .isGreaterThan(1);
                    tables.verify();
                    steps.add(tables.runExclusively(Duration.ofSeconds(10), () -> "migrated"));
                })
                .build()) {
            assertThat(steps).containsExactly("migrated");
        }
        assertThat(LockTables.ddl("other_lock")).contains("CREATE TABLE").contains("other_lock");
    }

    @Test
    void closingTheServiceClosesTheConnectionsItMadeForLeaseWrites(DataSource dataSource) {
        LockService service =
                LockService.builder(dataSource).housekeeping(false).build();
        BizLockDao dao = service.dao();
        assertThat(dao.forceRelease("faces", "closed")).isFalse();

        service.close();

        assertThatThrownBy(() -> dao.forceRelease("faces", "closed"))
                .isInstanceOf(DataAccessException.class)
                .hasStackTraceContaining("closed");
    }
}
