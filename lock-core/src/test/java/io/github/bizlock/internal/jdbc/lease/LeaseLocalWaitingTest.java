package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * R5: threads of one JVM waiting for the same lock wait on the JVM's gate, not on the database. Every statement the
 * engine prepares is counted: eight threads taking turns cost one acquire and one release per turn, however long the
 * others wait, and less when a release passes the lock straight to a waiting thread.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseLocalWaitingTest {

    private static final int THREADS = 8;
    private static final int TURNS = 25;

    @Test
    void localWaitersDoNotPollTheDatabase(DataSource dataSource) throws Exception {
        int writes = takeTurns(dataSource, 0);
        // Without hand-offs: one acquire and one release per turn; a watchdog renewal may add one if the run is slow.
        assertThat(writes).isBetween(2 * THREADS * TURNS, 2 * THREADS * TURNS + 2);
    }

    @Test
    void localWaitersTakeTheLockFromEachOtherWithoutTheDatabase(DataSource dataSource) throws Exception {
        int writes = takeTurns(dataSource, LockManager.DEFAULT_LOCAL_HANDOFFS);
        // One acquire and one release per database grant, which passes from thread to thread up to 16 times.
        int grants = (THREADS * TURNS + LockManager.DEFAULT_LOCAL_HANDOFFS) / (LockManager.DEFAULT_LOCAL_HANDOFFS + 1);
        assertThat(writes).isBetween(2 * grants, THREADS * TURNS);
    }

    @Test
    void reEntryCostsNoRoundTrip(DataSource dataSource) throws Exception {
        AtomicInteger statements = new AtomicInteger();
        LockDaos daos = LockFixture.daos(CountingDataSource.counting(dataSource, sql -> true, statements));
        LeaseDao dao = daos.leases();
        LockKey key = new LockKey("reentry", "1");
        try (LockManager manager =
                LockFixture.manager(daos, InstanceId.generate()).build()) {
            // The first acquisition binds the name's mode and creates the row; count from then on.
            manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            try (LockHandle outer =
                    manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow()) {
                int afterAcquire = statements.get();
                for (int i = 0; i < 3; i++) {
                    try (LockHandle inner = manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                            .orElseThrow()) {
                        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
                    }
                }
                assertThat(statements.get())
                        .as("statements sent for three re-entries and their unlocks")
                        .isEqualTo(afterAcquire);
                assertThat(outer.isHeld()).isTrue();
            }
        }
    }

    @Test
    void aFixedLeaseIsNeverHandedOver(DataSource dataSource) throws Exception {
        AtomicInteger handOffs = new AtomicInteger();
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        Duration lease = Duration.ofSeconds(7);
        try (LockManager manager = LockFixture.manager(daos, InstanceId.generate())
                .fair(true)
                .observer(new LockObserver() {
                    @Override
                    public void handedOver(LockKey handed, LockMode mode) {
                        handOffs.incrementAndGet();
                    }
                })
                .build()) {
            // A fixed-lease holder with a thread waiting behind it: its release goes to the database.
            List<LockRow> fixed = twoWaitersInTurn(manager, dao, new LockKey("fixed-lease", "1"), lease, lease);
            assertThat(handOffs.get()).as("hand-offs of a fixed lease").isZero();
            assertThat(fixed.get(1).fencingToken()).isGreaterThan(fixed.get(0).fencingToken());

            // A watchdog-renewed holder hands over, but a fixed-lease waiter takes a grant of its own: its lease counts
            // from its own acquisition, not from the holder's.
            List<LockRow> mixed = twoWaitersInTurn(manager, dao, new LockKey("fixed-lease", "2"), null, lease);
            assertThat(handOffs.get()).as("the renewed holder's hand-off").isEqualTo(1);
            assertThat(Duration.between(mixed.get(1).acquiredAt(), mixed.get(1).expiresAt()))
                    .as("the fixed-lease waiter's own lease")
                    .isEqualTo(lease);
            assertThat(mixed.get(1).acquiredAt()).isAfter(mixed.get(0).acquiredAt());
        }
    }

    /**
     * Two threads queue, one after the other, for {@code key} while this thread holds it; then it releases it. Each
     * takes the lock in turn with its lease ({@code null}: renewed by the watchdog), the first while the second still
     * waits, so its grant may be handed over. Returns the lease row as each saw it while holding the lock.
     */
    private static List<LockRow> twoWaitersInTurn(
            LockManager manager, LeaseDao dao, LockKey key, Duration firstLease, Duration secondLease)
            throws Exception {
        LockHandle holder =
                manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
        List<CompletableFuture<LockRow>> waiters = new ArrayList<>();
        for (Duration lease : java.util.Arrays.asList(firstLease, secondLease)) {
            CompletableFuture<LockRow> waiter = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try (LockHandle mine = manager.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(30), lease)
                        .orElseThrow()) {
                    waiter.complete(LeaseTestSupport.row(dao, key));
                } catch (Throwable ex) {
                    waiter.completeExceptionally(ex);
                }
            });
            thread.start();
            waiters.add(waiter);
            // Parked in the gate's queue before the next one asks: they take the lock in this order.
            Await.until(
                    "the waiter queues up",
                    Duration.ofSeconds(30),
                    () -> thread.getState() == Thread.State.TIMED_WAITING);
        }
        holder.unlock();
        List<LockRow> rows = new ArrayList<>();
        for (CompletableFuture<LockRow> waiter : waiters) {
            rows.add(waiter.get(30, TimeUnit.SECONDS));
        }
        Duration firstLength =
                Duration.between(rows.get(0).acquiredAt(), rows.get(0).expiresAt());
        assertThat(firstLength).isEqualTo(firstLease != null ? firstLease : LockManager.DEFAULT_WATCHDOG_LEASE);
        return rows;
    }

    /** Eight threads take the lock 25 times each; returns the lock-table writes that cost. */
    private static int takeTurns(DataSource dataSource, int localHandoffs) throws Exception {
        AtomicInteger writes = new AtomicInteger();
        LockDaos daos =
                LockFixture.daos(CountingDataSource.counting(dataSource, CountingDataSource.LOCK_WRITES, writes));
        LeaseDao dao = daos.leases();
        LockKey key = new LockKey("local" + localHandoffs, "1");
        try (LockManager manager = LockFixture.manager(daos, InstanceId.generate())
                .localHandoffs(localHandoffs)
                .build()) {
            // The first acquisition creates the row; count from a free, existing row on.
            manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            writes.set(0);
            int[] counter = {0};
            AtomicInteger unfinished = new AtomicInteger(THREADS);
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < TURNS; i++) {
                                try (LockHandle handle = manager.tryAcquire(
                                                key, LockMode.LEASE, Duration.ofSeconds(60), null)
                                        .orElseThrow()) {
                                    int n = counter[0];
                                    // Held until every other thread with turns left waits for the lock: then each
                                    // release has local waiters, whatever the scheduler does.
                                    Await.until(
                                            "the other threads queue up",
                                            Duration.ofSeconds(30),
                                            () -> manager.waitingCount() >= unfinished.get() - 1);
                                    counter[0] = n + 1;
                                } catch (InterruptedException ex) {
                                    throw new IllegalStateException(ex);
                                }
                            }
                            unfinished.decrementAndGet();
                        },
                        runnable -> new Thread(runnable).start()));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            assertThat(counter[0]).isEqualTo(THREADS * TURNS);
            assertThat(manager.activeThreadCount()).isZero();
            assertThat(manager.heldCount()).isZero();
            return writes.get();
        }
    }
}
