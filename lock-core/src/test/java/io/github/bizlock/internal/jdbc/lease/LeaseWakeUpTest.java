package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.contract.LockWorker;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.jdbc.session.WakeProbe;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * LEASE waiters of other instances are woken by a release, in the order they came, and the releasing instance asking
 * again goes after them. {@code -Dbizlock.test.wakeUp=false} runs the same tests on polling alone, as LEASE waited
 * before the wake-up, to show that they fail there.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseWakeUpTest {

    private static final boolean WAKE = !"false".equals(System.getProperty("bizlock.test.wakeUp"));
    private static final Duration WAIT = Duration.ofSeconds(30);

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void aWaiterOfAnotherInstanceGoesBeforeTheReleaserAskingAgain(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake", "barging");
        try (LockManager a = instance(dataSource, Backoff.DEFAULT);
                LockManager b = instance(dataSource, Backoff.DEFAULT)) {
            for (int round = 0; round < 10; round++) {
                LockHandle held = a.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
                CompletableFuture<Long> waiter = takeAndRelease(b, key);
                awaitQueued(dataSource, key, 1);
                held.unlock();
                LockHandle again = a.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
                long releaserToken = again.fencingToken();
                again.unlock();
                // Tokens rise with every acquisition: the lower one was taken first.
                assertThat(waiter.get(30, TimeUnit.SECONDS))
                        .as(
                                "round %d: the waiter of instance B goes before instance A, which released and asked again"
                                        + " at once",
                                round)
                        .isLessThan(releaserToken);
            }
        }
    }

    @Tag("cross-jvm")
    @Test
    void aWaiterInAnotherJvmGoesBeforeTheReleaserAskingAgain(TestDatabase database) throws Exception {
        DataSource dataSource = database.dataSource();
        LockKey key = new LockKey("wake", "barging-jvm");
        try (LockManager a = instance(dataSource, Backoff.DEFAULT);
                ChildJvm b = LockWorker.start(
                        database,
                        List.of("-Dbizlock.test.wakeUp=" + WAKE),
                        "turns",
                        LockMode.LEASE.name(),
                        key.name(),
                        key.key())) {
            b.await("READY", Duration.ofSeconds(60));
            for (int round = 0; round < 5; round++) {
                LockHandle held = a.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
                b.send("ACQUIRE");
                awaitQueued(dataSource, key, 1);
                held.unlock();
                LockHandle again = a.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
                long releaserToken = again.fencingToken();
                again.unlock();
                long waiterToken = Long.parseLong(b.await("ACQUIRED", WAIT).split(" ")[1]);
                b.await("RELEASED", WAIT);
                assertThat(waiterToken)
                        .as("round %d: the waiting JVM goes before the one that released and asked again", round)
                        .isLessThan(releaserToken);
            }
        }
    }

    @Test
    void waitersOfSeveralInstancesGetTheLockInTheOrderTheyCame(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake", "fifo");
        List<LockManager> waiters = new ArrayList<>();
        try (LockManager holder = instance(dataSource, Backoff.DEFAULT)) {
            for (int i = 0; i < 4; i++) {
                waiters.add(instance(dataSource, Backoff.DEFAULT));
            }
            for (List<Integer> arrivals : List.of(List.of(0, 1, 2, 3), List.of(3, 1, 0, 2), List.of(2, 3, 1, 0))) {
                LockHandle held =
                        holder.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
                List<CompletableFuture<Long>> tokens = new ArrayList<>();
                for (int waiter : arrivals) {
                    tokens.add(takeAndRelease(waiters.get(waiter), key));
                    awaitQueued(dataSource, key, tokens.size());
                }
                held.unlock();
                List<Long> inArrivalOrder = new ArrayList<>();
                for (CompletableFuture<Long> token : tokens) {
                    inArrivalOrder.add(token.get(30, TimeUnit.SECONDS));
                }
                assertThat(inArrivalOrder)
                        .as("tokens of instances %s, in the order they came", arrivals)
                        .isSorted()
                        .doesNotHaveDuplicates();
            }
        } finally {
            waiters.forEach(LockManager::close);
        }
    }

    /** Through the service's builder, as an application gets it: its waiters' pauses are 10 to 20 s. */
    @Test
    void aWaiterIsWokenByTheReleaseLongBeforeItsNextPoll(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake", "woken");
        try (LockService holder = service(dataSource, Duration.ofMillis(5));
                LockService waiter = service(dataSource, Duration.ofSeconds(20))) {
            LockHandle held =
                    holder.template().tryAcquire(key.name(), key.key(), WAIT).orElseThrow();
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(
                    () -> {
                        try (LockHandle taken = waiter.template()
                                .tryAcquire(key.name(), key.key(), Duration.ofSeconds(60))
                                .orElseThrow()) {
                            return System.nanoTime();
                        }
                    },
                    ThreadPerTask.EXECUTOR);
            awaitQueued(dataSource, key, 1);
            long released = System.nanoTime();
            held.unlock();
            long after = acquiredAt.get(60, TimeUnit.SECONDS) - released;
            System.out.printf(
                    "%s LEASE: a waiter of another instance got the lock %.1f ms after its release%n",
                    TestDatabases.server(), after / 1e6);
            // Polling, it would try again 10 to 20 s after its first attempt, at least 7 s after this release.
            assertThat(Duration.ofNanos(after))
                    .as("from the release to the waiter's acquisition")
                    .isLessThan(Duration.ofSeconds(3));
        }
    }

    private static LockService service(DataSource dataSource, Duration pause) {
        return LockService.builder(dataSource)
                .sessionDataSource(SessionLocks.dedicated(dataSource))
                .backoff(pause, pause)
                .wakeUp(WAKE)
                .housekeeping(false)
                .build();
    }

    /** An instance: a lock manager of its own, with sessions of its own, as another process would have. */
    static LockManager instance(DataSource dataSource, Backoff backoff) {
        String id = InstanceId.generate();
        if (WAKE) {
            return LockFixture.wakingManager(dataSource, id, backoff).build();
        }
        LockDaos daos = LockFixture.daos(dataSource);
        return LockManager.builder(id)
                .engine(new LeaseLockEngine(daos.leases(), id, backoff))
                .modeBindings(daos.modes())
                .build();
    }

    /** Starts acquiring on a thread of its own; the future holds the token, given back at once. */
    static CompletableFuture<Long> takeAndRelease(LockManager instance, LockKey key) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        LockHandle handle = instance.tryAcquire(key, LockMode.LEASE, WAIT, null)
                                .orElseThrow();
                        long token = handle.fencingToken();
                        handle.unlock();
                        return token;
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new CompletionException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
    }

    /**
     * Until {@code count} waiters queue on the server for the key's wake lock. Polling, nobody queues: a pause of 3 s
     * then lets the waiters make their first attempts (only to show that the tests fail without the wake-up).
     */
    static void awaitQueued(DataSource dataSource, LockKey key, int count) throws InterruptedException {
        if (!WAKE) {
            Thread.sleep(3_000);
            return;
        }
        Await.until(
                count + " waiters queued for the wake lock of " + key,
                Duration.ofSeconds(30),
                () -> WakeProbe.queued(dataSource, key).size() >= count);
    }
}
