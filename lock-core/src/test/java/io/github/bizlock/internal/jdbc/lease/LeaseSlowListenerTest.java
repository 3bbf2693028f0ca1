package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * R17, slow listener: a {@code LockLostListener} (or {@code @EventListener}) that blocks delays no renewal. Listeners
 * are told on a thread of their own, so the watchdog keeps the other locks of the same manager.
 */
@LockTest
class LeaseSlowListenerTest {

    private static final Duration LEASE = Duration.ofMillis(900);

    @Test
    void aBlockedListenerStopsNoRenewal(DataSource dataSource) throws Exception {
        LockKey lostKey = new LockKey("slow-listener", "lost");
        LockKey keptKey = new LockKey("slow-listener", "kept");
        LeaseDao dao = LockFixture.dao(dataSource);
        CountDownLatch listening = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        List<String> listenerThreads = new CopyOnWriteArrayList<>();
        try (LockManager manager =
                LockFixture.manager(dataSource).watchdogLease(LEASE).build()) {
            manager.addListener(event -> {
                listenerThreads.add(Thread.currentThread().getName());
                lost.add(event);
                listening.countDown();
                try {
                    proceed.await(30, TimeUnit.SECONDS); // a listener stuck on a slow call
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            LockHandle doomed = manager.tryAcquire(lostKey, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            LockHandle kept = manager.tryAcquire(keptKey, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();

            // An operator frees the first lock: the watchdog finds it gone at its next renewal and tells the listener.
            assertThat(dao.forceRelease(lostKey)).isTrue();
            assertThat(listening.await(10, TimeUnit.SECONDS))
                    .as("the listener is told")
                    .isTrue();

            // While the listener blocks, the other lock stays held for several leases, in this process and in the
            // database. With listeners on the watchdog's thread its renewals stopped and it was lost within a lease.
            long end = System.nanoTime() + LEASE.multipliedBy(4).toNanos();
            int checks = 0;
            while (System.nanoTime() < end) {
                assertThat(kept.isHeld()).as("held after %d checks", checks).isTrue();
                LockRow row = LeaseTestSupport.row(dao, keptKey);
                assertThat(row.held())
                        .as("the row's lease runs, check %d", checks)
                        .isTrue();
                assertThat(row.owner()).isEqualTo(manager.instanceId());
                assertThat(row.fencingToken()).isEqualTo(kept.fencingToken());
                checks++;
                Thread.sleep(50);
            }
            assertThat(manager.renewedCount()).isEqualTo(1);

            proceed.countDown();
            assertThat(lost)
                    .singleElement()
                    .satisfies(event -> assertThat(event.key()).isEqualTo(lostKey.key()));
            assertThat(listenerThreads).containsExactly("bizlock-lost-listeners");
            assertThat(doomed.isHeld()).isFalse();
            assertThatThrownBy(doomed::unlock).isInstanceOf(LockLostException.class);
            kept.unlock();
            assertThat(LeaseTestSupport.row(dao, keptKey).held()).isFalse();
        }
    }

    @Test
    void interruptStaysImmediateWhileAListenerBlocks(DataSource dataSource) throws Exception {
        LeaseDao dao = LockFixture.dao(dataSource);
        CountDownLatch listening = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService holders = Executors.newSingleThreadExecutor();
        try (LockManager manager =
                LockFixture.manager(dataSource).watchdogLease(LEASE).build()) {
            manager.addListener(event -> {
                listening.countDown();
                try {
                    proceed.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            LockKey first = new LockKey("slow-listener", "first");
            LockHandle doomed = manager.tryAcquire(first, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            assertThat(dao.forceRelease(first)).isTrue();
            assertThat(listening.await(10, TimeUnit.SECONDS)).isTrue();

            // The listener still blocks on the first loss when a holder under INTERRUPT loses its lock.
            LockKey second = new LockKey("slow-listener", "interrupted");
            CountDownLatch holding = new CountDownLatch(1);
            Future<Long> interruptedAfter = holders.submit(() -> {
                LockHandle handle = manager.tryAcquire(
                                second, LockMode.LEASE, Duration.ZERO, null, LockLostPolicy.INTERRUPT)
                        .orElseThrow();
                holding.countDown();
                try {
                    Thread.sleep(30_000);
                    return -1L;
                } catch (InterruptedException ex) {
                    return System.nanoTime();
                } finally {
                    assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class);
                }
            });
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            long freed = System.nanoTime();
            assertThat(dao.forceRelease(second)).isTrue();
            long afterMillis = TimeUnit.NANOSECONDS.toMillis(interruptedAfter.get(20, TimeUnit.SECONDS) - freed);
            System.out.printf(
                    "INTERRUPT while a listener blocks: holder interrupted %d ms after the loss%n", afterMillis);
            // Ceiling: the next renewal (a third of the 900 ms lease) finds the loss; the listener never delays it.
            assertThat(afterMillis).isBetween(0L, 3000L);

            proceed.countDown();
            assertThatThrownBy(doomed::unlock).isInstanceOf(LockLostException.class);
        } finally {
            holders.shutdownNow();
        }
    }

    @Test
    @Tag("slow")
    void closeGivesQueuedNotificationsABoundedTime(DataSource dataSource) throws Exception {
        LeaseDao dao = LockFixture.dao(dataSource);
        CountDownLatch listening = new CountDownLatch(1);
        List<String> told = new CopyOnWriteArrayList<>();
        List<Boolean> interrupted = new CopyOnWriteArrayList<>();
        LockManager manager =
                LockFixture.manager(dataSource).watchdogLease(LEASE).build();
        manager.addListener(event -> {
            told.add(event.key());
            listening.countDown();
            try {
                Thread.sleep(60_000); // a listener that never finishes
            } catch (InterruptedException ex) {
                interrupted.add(true);
            }
        });
        LockKey first = new LockKey("slow-listener", "close-1");
        LockKey second = new LockKey("slow-listener", "close-2");
        LockHandle one =
                manager.tryAcquire(first, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
        LockHandle two =
                manager.tryAcquire(second, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
        assertThat(dao.forceRelease(first)).isTrue();
        assertThat(listening.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(dao.forceRelease(second)).isTrue();
        Await.until("the second loss is found and queued", Duration.ofSeconds(10), () -> !two.isHeld());

        long started = System.nanoTime();
        manager.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("close with a stuck listener returned after %d ms%n", closeMillis);
        // The grace is 5 s; the ceiling leaves room for a slow machine, far below the listener's 60 s.
        assertThat(closeMillis).isBetween(4_000L, 15_000L);
        assertThat(told).as("the queued loss was not delivered, and was logged").containsExactly(first.key());
        Await.until("the stuck listener is interrupted", Duration.ofSeconds(5), () -> !interrupted.isEmpty());
        assertThatThrownBy(one::unlock).isInstanceOf(LockLostException.class);
    }
}
