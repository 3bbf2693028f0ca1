package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the multi-key lock ({@link LockTemplate#acquireAll}) promises in every mode, on a real MySQL 8 or MariaDB: no
 * deadlock and no overlap between transfers that ask for two accounts in opposite orders, across processes and inside
 * one; all or none; one wait for all keys; one fencing token per key; keys in one order; bad input refused with nothing
 * held. A mode's subclass names the mode.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractMultiKeyLockTest {

    private final List<LockManager> managers = new ArrayList<>();
    /** The lock name of the running test: its method's name, so no test sees another's locks. */
    protected String name = "multi";

    protected abstract LockMode mode();

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(mode(), dataSource);
    }

    @BeforeEach
    void nameLocksAfterTest(TestInfo test) {
        name = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
        managers.clear();
    }

    /** A manager as another process would have it (its own owner id), and its template. */
    protected LockManager manager(DataSource dataSource) {
        return manager(ContractManagers.builder(mode(), dataSource, InstanceId.generate()));
    }

    protected LockManager manager(LockManagerBuilder builder) {
        LockManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    protected LockTemplate template(LockManager manager) {
        return new DefaultLockTemplate(manager, mode(), Duration.ofSeconds(10), null);
    }

    /** Whether another instance can take the key right now, asked on a thread of its own. */
    protected boolean freeFor(LockTemplate other, String key) {
        return CompletableFuture.supplyAsync(
                        () -> {
                            Optional<LockHandle> handle = other.tryAcquire(name, key, Duration.ZERO);
                            handle.ifPresent(LockHandle::unlock);
                            return handle.isPresent();
                        },
                        ThreadPerTask.EXECUTOR)
                .join();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // No deadlock, no overlap

    @Tag("cross-jvm")
    @Test
    void oppositeOrderTransfersAcrossTwoJvmsNeverDeadlockNorOverlap(TestDatabase database) throws Exception {
        int threads = 4;
        int transfers = 30;
        DataSource dataSource = database.dataSource();
        TransferWorkload.createAccounts(dataSource);
        LockTemplate locks = template(manager(dataSource));
        try (ChildJvm child = TransferWorker.start(database, mode(), name, threads, transfers)) {
            child.await("READY", Duration.ofSeconds(60));
            child.send("GO");
            long started = System.nanoTime();
            TransferWorkload.Result mine = TransferWorkload.run(locks, dataSource, name, threads, transfers);
            TransferWorkload.Result theirs =
                    TransferWorkload.Result.fromLine(child.await("DONE", Duration.ofSeconds(300)));
            System.out.printf(
                    "multi-key transfers (%s): %s here, %s in the child, %d ms%n",
                    mode(), mine, theirs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            assertNoDeadlockNoOverlap(dataSource, mine, theirs, threads * transfers);
        }
    }

    @Test
    void oppositeOrderTransfersInOneJvmNeverDeadlockNorOverlap(DataSource dataSource) throws Exception {
        int threads = 8;
        int transfers = 25;
        TransferWorkload.createAccounts(dataSource);
        LockTemplate locks = template(manager(dataSource));
        TransferWorkload.Result mine = TransferWorkload.run(locks, dataSource, name, threads, transfers);
        assertNoDeadlockNoOverlap(dataSource, mine, new TransferWorkload.Result(0, 0, 0, 0), threads * transfers);
    }

    @Test
    void theWorkloadCatchesDeadlocksOfLocksTakenInListOrder(DataSource dataSource) throws Exception {
        // The negative control: the same transfers taking their two accounts one after the other in their own
        // direction, as Redisson's and Curator's multi-locks do, deadlock until their wait ends, and the workload
        // counts that. Whether one round meets in a deadlock depends on the scheduler, so the control gets a few.
        LockTemplate locks = template(manager(dataSource));
        List<TransferWorkload.Result> rounds = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            TransferWorkload.createAccounts(dataSource);
            TransferWorkload.Result result =
                    TransferWorkload.run(locks, dataSource, name, 8, 10, false, Duration.ofMillis(300));
            if (result.failures() > 0) {
                return;
            }
            rounds.add(result);
        }
        throw new AssertionError("Locks taken in list order never deadlocked in 3 rounds: " + rounds);
    }

    private static void assertNoDeadlockNoOverlap(
            DataSource dataSource, TransferWorkload.Result mine, TransferWorkload.Result theirs, int each) {
        assertThat(mine.failures() + theirs.failures())
                .as("transfers that timed out or deadlocked")
                .isZero();
        assertThat(mine.overlaps() + theirs.overlaps())
                .as("holders that met another holder of an account")
                .isZero();
        assertThat(mine.fenceRejects() + theirs.fenceRejects())
                .as("writes whose key's token was not above the last one written")
                .isZero();
        assertThat(mine.transfers()).isEqualTo(each);
        assertThat(theirs.transfers()).isIn(0, each);
        long[] totals = TransferWorkload.totals(dataSource);
        assertThat(totals[0]).as("money in both accounts").isEqualTo(2 * TransferWorkload.OPENING_BALANCE);
        assertThat(totals[1]).as("holders still counted in").isZero();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // All or none, one wait

    @Test
    void aFailedCallHoldsNoneOfItsKeys(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        LockTemplate other = template(manager(dataSource));
        try (LockHandle b = other.acquire(name, "b")) {
            assertThat(locks.tryAcquireAll(name, List.of("c", "b", "a"), Duration.ofMillis(300)))
                    .isEmpty();
            assertThat(freeFor(other, "a")).as("a, taken before b").isTrue();
            assertThat(freeFor(other, "c")).as("c").isTrue();
            assertThatThrownBy(() -> locks.acquireAll(
                            name, List.of("a", "b", "c"), LockOptions.defaults().waitTime(Duration.ZERO)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining(name + "/b is held elsewhere")
                    .hasMessageContaining("none of them is held");
            assertThat(freeFor(other, "a")).isTrue();
            assertThat(b.isHeld()).isTrue();
        }
        assertThat(managers.get(0).heldCount()).isZero();
    }

    @Test
    void anInterruptedCallHoldsNoneOfItsKeys(DataSource dataSource) throws Exception {
        LockTemplate locks = template(manager(dataSource));
        LockTemplate other = template(manager(dataSource));
        try (LockHandle b = other.acquire(name, "b")) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                started.countDown();
                try {
                    locks.acquireAll(
                            name, List.of("b", "a"), LockOptions.defaults().waitTime(Duration.ofSeconds(30)));
                } catch (Throwable ex) {
                    failure.set(ex);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            started.await();
            Thread.sleep(300); // let it take a and wait for b; the outcome is the same if it has not got that far
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(waiter.isAlive()).isFalse();
            assertThat(failure.get())
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("none of them is held");
            assertThat(stillInterrupted).as("the interrupt flag, kept").isTrue();
            assertThat(freeFor(other, "a")).isTrue();
        }
    }

    @Test
    void theWaitIsOneForAllKeys(DataSource dataSource) throws Exception {
        LockTemplate locks = template(manager(dataSource));
        LockTemplate other = template(manager(dataSource));
        LockHandle c = other.acquire(name, "c");
        CountDownLatch taken = new CountDownLatch(1);
        // a is held for 1 s, then freed; c the whole time. One wait of 1.5 s for both ends 1.5 s after the call; a
        // full wait per key would end 1 s later (1 s for a, then 1.5 s for c).
        CompletableFuture<Void> holdA = CompletableFuture.runAsync(
                () -> {
                    try (LockHandle a = other.acquire(name, "a")) {
                        taken.countDown();
                        Thread.sleep(1000);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                },
                ThreadPerTask.EXECUTOR);
        taken.await();
        long started = System.nanoTime();
        Optional<MultiLockHandle> all = locks.tryAcquireAll(name, List.of("a", "c"), Duration.ofMillis(1500));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        holdA.join();
        c.unlock();
        assertThat(all).isEmpty();
        assertThat(tookMillis).isBetween(1400L, 2300L);
        assertThat(freeFor(other, "a")).isTrue();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Keys, tokens, re-entry

    @Test
    void keysAreTakenOnceEachInByteOrder(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        LockTemplate other = template(manager(dataSource));
        // UTF-16 order would put the emoji (a surrogate pair, 0xD83D...) before the fullwidth A (0xFF21); UTF-8 bytes,
        // the table's order, put it after (F0... > EF...).
        try (MultiLockHandle held = locks.acquireAll(name, List.of("\uD83D\uDE00", "b", "\uFF21", "a", "b", "a"))) {
            assertThat(held.keys()).containsExactly("a", "b", "\uFF21", "\uD83D\uDE00");
            assertThat(held.name()).isEqualTo(name);
            assertThat(held.mode()).isEqualTo(mode());
            assertThat(held.isHeld()).isTrue();
            assertThat(managers.get(0).heldCount()).isEqualTo(4);
            assertThat(freeFor(other, "a")).isFalse();
            assertThat(freeFor(other, "\uD83D\uDE00")).isFalse();
        }
        assertThat(managers.get(0).heldCount()).isZero();
        assertThat(freeFor(other, "a")).isTrue();
        assertThat(freeFor(other, "\uFF21")).isTrue();
    }

    @Test
    void eachKeyHasItsOwnStrictlyIncreasingToken(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        long[] before = new long[2];
        try (MultiLockHandle held = locks.acquireAll(name, List.of("x", "y"))) {
            before[0] = held.fencingToken("x");
            before[1] = held.fencingToken("y");
            assertThatThrownBy(() -> held.fencingToken("z"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not one of the keys");
        }
        try (MultiLockHandle held = locks.acquireAll(name, List.of("y", "x"))) {
            assertThat(held.fencingToken("x")).isGreaterThan(before[0]);
            assertThat(held.fencingToken("y")).isGreaterThan(before[1]);
        }
    }

    @Test
    void badInputIsRefusedWithNothingHeld(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        assertThatThrownBy(() -> locks.acquireAll(name, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No keys given")
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> locks.acquireAll(name, Arrays.asList("a", null, "b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Key 1 of the 3 keys")
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> locks.acquireAll(name, List.of("a", "b\0c")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Key 1 of the 2 keys")
                .hasMessageContaining("U+0000");
        assertThatThrownBy(() -> locks.acquireAll(name, List.of("a", "x".repeat(513))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than the 512 allowed");
        List<String> tooMany = IntStream.rangeClosed(0, MultiLockHandle.MAX_KEYS)
                .mapToObj(i -> "k" + i)
                .toList();
        assertThatThrownBy(() -> locks.tryAcquireAll(name, tooMany, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + MultiLockHandle.MAX_KEYS);
        assertThatThrownBy(() -> locks.acquireAll(" ", List.of("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be blank");
        assertThat(managers.get(0).heldCount()).isZero();
        assertThat(managers.get(0).activeThreadCount()).isZero();
    }

    @Test
    void heldKeysAreReenteredAndAKeySortedAfterOneToWaitForIsRefused(DataSource dataSource) {
        LockManager manager = manager(dataSource);
        LockTemplate locks = template(manager);
        LockTemplate other = template(manager(dataSource));
        try (LockHandle b = locks.acquire(name, "b")) {
            // a sorts before b: this thread would wait for a while holding b.
            assertThatThrownBy(() -> locks.acquireAll(name, List.of("b", "a")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds lock " + name + "/b, which sorts after " + name + "/a")
                    .hasMessageContaining("lock all the keys in one acquireAll call");
            assertThat(freeFor(other, "a")).as("nothing taken").isTrue();
            // b is held already and c sorts after it: b is re-entered, c taken.
            try (MultiLockHandle bc = locks.acquireAll(name, List.of("c", "b"))) {
                assertThat(bc.isHeld()).isTrue();
                assertThat(freeFor(other, "c")).isFalse();
            }
            assertThat(b.isHeld()).as("b, held before and after").isTrue();
            assertThat(freeFor(other, "c")).isTrue();
        }
        assertThat(manager.heldCount()).isZero();
    }

    @Test
    void onlyTheAcquiringThreadUnlocksAndOnlyOnce(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        MultiLockHandle held = locks.acquireAll(name, Collections.singleton("a"));
        Throwable elsewhere = CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                held.unlock();
                                return null;
                            } catch (Throwable ex) {
                                return ex;
                            }
                        },
                        ThreadPerTask.EXECUTOR)
                .join();
        assertThat(elsewhere)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the thread that acquired them may unlock them");
        assertThat(held.isHeld()).isTrue();
        held.unlock();
        assertThat(held.isHeld()).isFalse();
        assertThatThrownBy(held::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("already unlocked");
    }
}
