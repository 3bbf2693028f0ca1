package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What every lock mode promises, run against a real MySQL 8 or MariaDB ({@code BIZLOCK_TEST_DB}). A mode's subclass
 * names the mode; {@link ContractManagers} builds its managers, in this JVM and in the second JVM of the cross-process
 * tests ({@link LockWorker}).
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractLockContractTest {

    /** Sleep inside each fuzz section, drawn uniformly from zero to this. */
    private static final long FUZZ_MAX_SLEEP_NANOS = 200_000;

    private static final Duration CRASH_LEASE = Duration.ofSeconds(2);

    /** How many runs the negative control gets to show that the fuzz checks catch a missing lock. */
    private static final int NEGATIVE_CONTROL_RUNS = 5;

    private final List<LockManager> managers = new ArrayList<>();
    private String lockName = "contract";

    protected abstract LockMode mode();

    /**
     * A new manager on the database, as a separate process would have (its own owner id), built the way the child
     * JVMs build theirs.
     */
    private LockManager newManager(DataSource dataSource) {
        return ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                .build();
    }

    /** Acquisitions per fuzz thread: 2 processes x 16 threads x 625 = 20,000 by default. */
    protected int fuzzIterationsPerThread() {
        return 625;
    }

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(mode(), dataSource);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
        managers.clear();
    }

    @org.junit.jupiter.api.BeforeEach
    void nameLocksAfterTest(TestInfo test) {
        // Every test locks names of its own, so a test can never see another's rows.
        lockName = test.getTestMethod().orElseThrow().getName();
    }

    private LockManager manager(DataSource dataSource) {
        LockManager manager = newManager(dataSource);
        managers.add(manager);
        return manager;
    }

    private LockTemplate template(LockManager manager) {
        return new DefaultLockTemplate(manager, mode(), Duration.ofSeconds(10), null);
    }

    private LockKey key(String key) {
        return new LockKey(lockName, key);
    }

    private Optional<LockHandle> tryNow(LockManager manager, String key) throws InterruptedException {
        return manager.tryAcquire(key(key), mode(), Duration.ZERO, null);
    }

    /** Whether another manager can take the lock right now (taken and given back on a thread of its own). */
    private boolean freeFor(LockManager other, String key) throws InterruptedException {
        return CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                Optional<LockHandle> handle = tryNow(other, key);
                                handle.ifPresent(LockHandle::unlock);
                                return handle.isPresent();
                            } catch (InterruptedException ex) {
                                throw new IllegalStateException(ex);
                            }
                        },
                        ThreadPerTask.EXECUTOR)
                .join();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Mutual exclusion and fencing across two JVMs

    @Tag("cross-jvm")
    @Test
    void exclusionFuzzAcrossTwoJvms(TestDatabase database) throws Exception {
        int keys = 5;
        int threadsPerProcess = 16;
        int iterations = fuzzIterationsPerThread();
        FuzzWorkload.createTables(database.dataSource(), keys);
        LockManager manager = ContractManagers.fuzzBuilder(mode(), database.dataSource(), InstanceId.generate())
                .build();
        managers.add(manager);
        try (ChildJvm child = LockWorker.start(
                database,
                List.of(),
                "fuzz",
                mode().name(),
                lockName,
                String.valueOf(threadsPerProcess),
                String.valueOf(iterations),
                String.valueOf(keys),
                String.valueOf(FUZZ_MAX_SLEEP_NANOS))) {
            child.await("READY", Duration.ofSeconds(60));
            child.send("GO");
            long started = System.nanoTime();
            FuzzWorkload.Result mine = FuzzWorkload.run(
                    manager,
                    mode(),
                    database.dataSource(),
                    "parent",
                    lockName,
                    threadsPerProcess,
                    iterations,
                    keys,
                    FUZZ_MAX_SLEEP_NANOS);
            List<String> childLines = child.until("DONE", Duration.ofSeconds(120));
            assertThat(child.waitForExit(Duration.ofSeconds(10)))
                    .as("child exit code; output:\n%s", child.output())
                    .isZero();
            List<FuzzWorkload.Entry> log = new ArrayList<>(mine.log());
            String done = null;
            for (String line : childLines) {
                if (line.startsWith("LOG ")) {
                    log.add(FuzzWorkload.Entry.fromLine(line));
                } else if (line.startsWith("DONE ")) {
                    done = line;
                }
            }
            assertThat(done).as("child summary; output:\n%s", child.output()).isNotNull();
            String[] childSummary = done.split(" ");

            FuzzWorkload.Verdict verdict = FuzzWorkload.verify(database.dataSource(), log);
            System.out.printf(
                    "exclusion fuzz (%s): %d sections in %d ms, %d hand-offs between the JVMs, counters %s%n",
                    mode(),
                    verdict.sections(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    verdict.crossProcessHandOffs(),
                    verdict.finalCounters());
            assertThat(mine.failures())
                    .as("acquisitions that failed in this JVM")
                    .isZero();
            assertThat(Integer.parseInt(childSummary[2]))
                    .as("acquisitions that failed in the child JVM")
                    .isZero();
            assertThat(mine.overlaps())
                    .as("overlapping holders seen by this JVM")
                    .isZero();
            assertThat(Integer.parseInt(childSummary[1]))
                    .as("overlapping holders seen by the child JVM")
                    .isZero();
            assertThat(verdict.sections()).isEqualTo(2 * threadsPerProcess * iterations);
            assertThat(verdict.problems()).isEmpty();
            assertThat(verdict.lostUpdates()).isZero();
            assertThat(verdict.tokenInversions()).isZero();
            assertThat(verdict.finalCounters().values().stream()
                            .mapToInt(Integer::intValue)
                            .sum())
                    .isEqualTo(2 * threadsPerProcess * iterations);
            // The test only proves cross-process exclusion if the lock really went back and forth between the JVMs.
            assertThat(verdict.crossProcessHandOffs())
                    .as("hand-offs between the two JVMs")
                    .isGreaterThan(100);
        }
    }

    @Test
    void fuzzCheckDetectsLostUpdatesWithoutTheLock(DataSource dataSource) throws Exception {
        // The same workload with no lock at all: the checks above must catch it, or they prove nothing. Whether one
        // run without the lock races depends on the scheduler, so the control gets a few runs; it passes on the first
        // run that every check catches, and fails only if none of them does.
        List<String> missed = new ArrayList<>();
        for (int run = 1; run <= NEGATIVE_CONTROL_RUNS; run++) {
            FuzzWorkload.createTables(dataSource, 1);
            FuzzWorkload.Result result =
                    FuzzWorkload.run(null, mode(), dataSource, "nolock", lockName, 4, 50, 1, 2_000_000);
            FuzzWorkload.Verdict verdict = FuzzWorkload.verify(dataSource, result.log());
            assertThat(verdict.sections()).isEqualTo(200);
            if (verdict.lostUpdates() > 0 && !verdict.problems().isEmpty() && result.overlaps() > 0) {
                return;
            }
            missed.add("run " + run + ": " + verdict.lostUpdates() + " lost updates, "
                    + verdict.problems().size() + " problems, " + result.overlaps() + " overlaps");
        }
        throw new AssertionError(
                "Without the lock, the fuzz checks caught nothing in " + NEGATIVE_CONTROL_RUNS + " runs: " + missed);
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossHolders(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        long previous = 0;
        for (int i = 0; i < 10; i++) {
            LockManager holder = i % 3 == 0 ? b : a;
            LockHandle handle = tryNow(holder, "1").orElseThrow();
            assertThat(handle.fencingToken()).isGreaterThan(previous);
            try (LockHandle again = tryNow(holder, "1").orElseThrow()) {
                assertThat(again.fencingToken()).as("reentry keeps the token").isEqualTo(handle.fencingToken());
            }
            previous = handle.fencingToken();
            handle.unlock();
        }
    }

    @Tag("cross-jvm")
    @Test
    void crashedHolderIsReleasedWithinItsLease(TestDatabase database) throws Exception {
        LockManager survivor = manager(database.dataSource());
        try (ChildJvm child = LockWorker.start(
                database, List.of(), "hold", mode().name(), lockName, "1", String.valueOf(CRASH_LEASE.toMillis()))) {
            long childToken = Long.parseLong(
                    child.await("ACQUIRED", Duration.ofSeconds(60)).split(" ")[1]);
            assertThat(tryNow(survivor, "1")).as("held by the live child").isEmpty();
            child.kill();
            long killed = System.nanoTime();
            Optional<LockHandle> taken = Optional.empty();
            while (taken.isEmpty()
                    && System.nanoTime() - killed < CRASH_LEASE.plusSeconds(3).toNanos()) {
                taken = survivor.tryAcquire(key("1"), mode(), Duration.ofMillis(250), null);
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(taken).as("acquired within lease + 3 s of the kill").isPresent();
            assertThat(waited).isLessThan(CRASH_LEASE.plusSeconds(3));
            assertThat(taken.get().fencingToken()).isGreaterThan(childToken);
            taken.get().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Reentrancy and ownership

    @Test
    void reentrantThreeDeepIsReleasedOnlyByTheLastUnlock(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        LockTemplate locks = template(a);
        LockHandle first = locks.acquire(lockName, "1");
        LockHandle second = locks.acquire(lockName, "1");
        LockHandle third = locks.acquire(lockName, "1");
        assertThat(List.of(second.fencingToken(), third.fencingToken())).containsOnly(first.fencingToken());
        assertThat(a.heldCount()).as("one lock held, however deep").isEqualTo(1);

        third.unlock();
        assertThat(freeFor(b, "1")).isFalse();
        second.unlock();
        assertThat(freeFor(b, "1")).isFalse();
        assertThat(first.isHeld()).isTrue();
        first.unlock();
        assertThat(first.isHeld()).isFalse();
        assertThat(a.heldCount()).isZero();
        assertThat(a.activeThreadCount()).isZero();
        assertThat(freeFor(b, "1")).as("free after the third unlock").isTrue();

        assertThatThrownBy(first::unlock)
                .as("a fourth unlock")
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("already unlocked");
    }

    @Test
    void unlockFromAnotherThreadFailsAndKeepsTheLock(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        LockHandle handle = tryNow(a, "1").orElseThrow();
        CompletableFuture<Void> foreign = CompletableFuture.runAsync(handle::unlock, ThreadPerTask.EXECUTOR);
        assertThatThrownBy(foreign::join)
                .hasCauseInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the thread that acquired a lock may unlock it");
        assertThat(handle.isHeld()).isTrue();
        assertThat(freeFor(b, "1")).isFalse();
        handle.unlock();
        assertThat(freeFor(b, "1")).isTrue();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Waiting

    @Test
    void tryWithoutWaitFailsFastWhileHeldElsewhere(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        try (LockHandle held = tryNow(a, "1").orElseThrow()) {
            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertThat(tryNow(b, "1")).isEmpty();
                // A ceiling for a busy machine, below the shortest server wait (1 s): an attempt that became a wait
                // still breaks it.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(900));
            }
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(b.activeThreadCount()).isZero();
    }

    @Test
    void waitBudgetIsHonouredForARemoteHolder(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        try (LockHandle held = tryNow(a, "1").orElseThrow()) {
            assertWaitsAbout(
                    Duration.ofMillis(500), () -> b.tryAcquire(key("1"), mode(), Duration.ofMillis(500), null));
        }
    }

    @Test
    void waitBudgetIsHonouredForALocalHolder(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(
                () -> {
                    try (LockHandle handle = tryNow(a, "1").orElseThrow()) {
                        held.countDown();
                        release.await();
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        assertWaitsAbout(Duration.ofMillis(500), () -> a.tryAcquire(key("1"), mode(), Duration.ofMillis(500), null));
        release.countDown();
        holder.join();
        assertThat(a.activeThreadCount()).isZero();
    }

    private interface Attempt {
        Optional<LockHandle> run() throws InterruptedException;
    }

    private static void assertWaitsAbout(Duration wait, Attempt attempt) throws InterruptedException {
        long start = System.nanoTime();
        Optional<LockHandle> result = attempt.run();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        assertThat(result).isEmpty();
        // Never early. The ceiling is widened for a busy machine, but stays below the whole second a server wait would
        // be rounded up to (ROW and NAMED wait in whole seconds on the server): a wait that ends by the server's
        // timeout instead of at the budget, or a LEASE retry that sleeps past the deadline, still breaks it.
        Duration wholeSeconds = Duration.ofSeconds((wait.toMillis() + 999) / 1000);
        assertThat(elapsed).isGreaterThanOrEqualTo(wait).isLessThan(wholeSeconds.minusMillis(100));
    }

    @Test
    void acquireThatTimesOutThrowsLockAcquisitionException(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockTemplate other = template(manager(dataSource));
        try (LockHandle held = tryNow(a, "1").orElseThrow()) {
            LockOptions briefly = LockOptions.defaults().waitTime(Duration.ofMillis(200));
            assertThatThrownBy(() -> other.acquire(lockName, "1", briefly))
                    .isInstanceOf(LockAcquisitionException.class)
                    .isInstanceOf(CannotAcquireLockException.class)
                    .hasMessageContaining(lockName + "/1")
                    .hasMessageContaining("PT0.2S")
                    .satisfies(ex -> {
                        assertThat(((LockAcquisitionException) ex).lockName()).isEqualTo(lockName);
                        assertThat(((LockAcquisitionException) ex).lockKey()).isEqualTo("1");
                    });
            assertThat(other.execute(lockName, "2", briefly, () -> "ran")).isEqualTo("ran");
            assertThat(other.tryExecute(lockName, "1", Duration.ZERO, () -> "ran")
                            .wasExecuted())
                    .isFalse();
        }
    }

    @Test
    void interruptedWaiterHoldsNothingAndLocalWaitersCarryOn(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        LockTemplate bLocks = template(b);
        LockHandle held = tryNow(a, "1").orElseThrow();

        // The first waiter of b owns b's gate and waits on the database; the second waits on the gate.
        AtomicReference<Throwable> firstOutcome = new AtomicReference<>();
        Thread first = new Thread(() -> {
            try {
                bLocks.tryAcquire(lockName, "1", Duration.ofSeconds(30)).ifPresent(LockHandle::unlock);
                firstOutcome.set(new AssertionError("acquired although interrupted"));
            } catch (LockAcquisitionException ex) {
                firstOutcome.set(Thread.currentThread().isInterrupted() ? ex : new AssertionError("flag lost", ex));
            }
        });
        first.start();
        await(() -> waitsInEngine(first) && b.activeThreadCount() == 1);

        AtomicReference<LockHandle> secondHandle = new AtomicReference<>();
        CountDownLatch secondAcquired = new CountDownLatch(1);
        CountDownLatch secondRelease = new CountDownLatch(1);
        Thread second = new Thread(() -> {
            try {
                Optional<LockHandle> handle = b.tryAcquire(key("1"), mode(), Duration.ofSeconds(20), null);
                handle.ifPresent(secondHandle::set);
                secondAcquired.countDown();
                secondRelease.await();
                handle.ifPresent(LockHandle::unlock);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        second.start();
        await(() -> b.activeThreadCount() == 2 && second.getState() == Thread.State.TIMED_WAITING);

        first.interrupt();
        first.join(10_000);
        assertThat(firstOutcome.get())
                .as("the interrupted wait ends with LockAcquisitionException and the interrupt flag set")
                .isInstanceOf(LockAcquisitionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(b.heldCount()).isZero();
        assertThat(b.activeThreadCount()).as("only the second waiter is left").isEqualTo(1);

        held.unlock();
        assertThat(secondAcquired.await(15, TimeUnit.SECONDS))
                .as("the second waiter gets the lock once the remote holder releases it")
                .isTrue();
        assertThat(secondHandle.get()).as("acquired, not timed out").isNotNull();
        assertThat(freeFor(a, "1")).isFalse();
        secondRelease.countDown();
        second.join(10_000);
        assertThat(b.activeThreadCount()).isZero();
        assertThat(b.heldCount()).isZero();
        assertThat(freeFor(a, "1")).isTrue();
    }

    @Test
    void interruptedSoleWaiterLeavesNoTrace(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        LockHandle held = tryNow(a, "1").orElseThrow();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                b.tryAcquire(key("1"), mode(), Duration.ofSeconds(30), null).ifPresent(LockHandle::unlock);
                outcome.set(new AssertionError("acquired although interrupted"));
            } catch (InterruptedException ex) {
                outcome.set(ex);
            }
        });
        waiter.start();
        await(() -> waitsInEngine(waiter));
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(b.activeThreadCount()).isZero();
        assertThat(b.heldCount()).isZero();
        held.unlock();
        Optional<LockHandle> next = tryNow(b, "1");
        assertThat(next).as("free at once after the holder's release").isPresent();
        next.get().unlock();
    }

    /**
     * Whether the thread is inside the engine's acquire, waiting for the database lock: LEASE sleeps between attempts,
     * the session modes block in the server's own wait (a socket read, so the thread state alone does not tell).
     */
    private static boolean waitsInEngine(Thread thread) {
        return Arrays.stream(thread.getStackTrace())
                .anyMatch(frame -> frame.getMethodName().equals("acquire")
                        && frame.getClassName().endsWith("LockEngine"));
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not reached within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Local contention

    @Test
    void threadsOfOneJvmTakeTurnsAndLeaveNoGateBehind(DataSource dataSource) throws Exception {
        LockManager manager = manager(dataSource);
        int threads = 8;
        int iterations = 40;
        int[] counter = {0};
        long[] tokens = new long[threads * iterations + 1];
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(CompletableFuture.runAsync(
                    () -> {
                        for (int i = 0; i < iterations; i++) {
                            try (LockHandle handle = manager.tryAcquire(key("1"), mode(), Duration.ofSeconds(60), null)
                                    .orElseThrow()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                int n = counter[0];
                                LockSupport.parkNanos(50_000);
                                counter[0] = n + 1;
                                tokens[n + 1] = handle.fencingToken();
                                inside.decrementAndGet();
                            } catch (InterruptedException ex) {
                                throw new IllegalStateException(ex);
                            }
                        }
                    },
                    runnable -> new Thread(runnable).start()));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(overlaps.get()).isZero();
        assertThat(counter[0]).isEqualTo(threads * iterations);
        for (int i = 2; i < tokens.length; i++) {
            assertThat(tokens[i]).as("token of section %d", i).isGreaterThan(tokens[i - 1]);
        }
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(manager.heldCount()).isZero();
        assertThat(manager.renewedCount()).isZero();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Transactions

    @Test
    void rollingBackTheCallersTransactionDoesNotTouchTheLock(DataSource dataSource) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_probe (id INT PRIMARY KEY) ENGINE = InnoDB");
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        LockTemplate locks = template(a);
        TransactionTemplate caller = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        AtomicReference<LockHandle> handle = new AtomicReference<>();
        caller.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO tx_probe (id) VALUES (1)");
            handle.set(locks.acquire(lockName, "1"));
            try {
                // Visible to other sessions while the caller's transaction is still open: committed on its own.
                assertThat(freeFor(b, "1")).isFalse();
            } catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
            status.setRollbackOnly();
        });
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM tx_probe", Integer.class))
                .as("the caller's own write was rolled back")
                .isZero();
        assertThat(handle.get().isHeld()).isTrue();
        assertThat(freeFor(b, "1")).as("the lock survived the rollback").isFalse();

        caller.executeWithoutResult(status -> {
            handle.get().unlock();
            status.setRollbackOnly();
        });
        assertThat(freeFor(b, "1")).as("the release survived the rollback").isTrue();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Local hand-off and fencing tokens

    @Test
    void localWaitersTakeTheLockInTurnWithIncreasingTokensAndBoundedHandOffs(DataSource dataSource) throws Exception {
        HandOffs handOffs = new HandOffs();
        LockManager local = observed(dataSource, 3, handOffs);
        List<Long> tokens = contendLocally(local, 6, 30, Duration.ofSeconds(30));

        assertThat(tokens).hasSize(180);
        assertThat(tokens).as("tokens in the order of the holds").isSorted().doesNotHaveDuplicates();
        assertThat(handOffs.handedOver()).as("releases that passed the lock on").isPositive();
        assertThat(handOffs.released()).isEqualTo(180);
        assertThat(handOffs.handedOver())
                .as("at most 3 hand-offs per database grant")
                .isLessThanOrEqualTo(3 * handOffs.releasedToDatabase());
        assertThat(local.heldCount()).isZero();
        assertThat(freeFor(manager(dataSource), "1")).as("released at the end").isTrue();
    }

    @Test
    void noHandOffWhenTurnedOff(DataSource dataSource) throws Exception {
        HandOffs handOffs = new HandOffs();
        LockManager local = observed(dataSource, 0, handOffs);
        List<Long> tokens = contendLocally(local, 4, 10, Duration.ofSeconds(30));

        assertThat(tokens).hasSize(40).isSorted().doesNotHaveDuplicates();
        assertThat(handOffs.handedOver()).isZero();
        assertThat(handOffs.released()).isEqualTo(40);
    }

    @Test
    void aLockHeldLongerThanTheHandOffWindowIsReleasedToTheDatabase(DataSource dataSource) throws Exception {
        HandOffs handOffs = new HandOffs();
        LockManager local = observed(dataSource, 16, handOffs);
        long pastTheWindow = Duration.ofMillis(150).toNanos(); // hand-offs stop 100 ms after the grant
        LockHandle first = tryNow(local, "1").orElseThrow();
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // The second grant is taken while a thread still waits, so LEASE reserves tokens for hand-offs with it.
            waiters.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (LockHandle next = local.tryAcquire(key("1"), mode(), Duration.ofSeconds(30), null)
                                .orElseThrow()) {
                            LockSupport.parkNanos(pastTheWindow);
                            return next.fencingToken();
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR));
        }
        while (local.waitingCount() < 2) {
            LockSupport.parkNanos(1_000_000);
        }
        long firstToken = first.fencingToken();
        LockSupport.parkNanos(pastTheWindow);
        first.unlock();

        for (CompletableFuture<Long> waiter : waiters) {
            assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(firstToken);
        }
        assertThat(handOffs.handedOver())
                .as("long holds are released, not handed over")
                .isZero();
        assertThat(handOffs.released()).isEqualTo(3);
    }

    @Test
    void waitersThatGiveUpLeaveNothingHeld(DataSource dataSource) throws Exception {
        LockManager local = manager(dataSource);
        // Waits shorter than the holds: waiters give up all the time, sometimes just after a hold ended and passed the
        // lock to them; whoever leaves last must release it.
        contendLocally(local, 6, 40, Duration.ofMillis(1));

        assertThat(local.activeThreadCount()).isZero();
        assertThat(local.heldCount()).isZero();
        assertThat(freeFor(manager(dataSource), "1")).as("nothing left held").isTrue();
    }

    @Test
    void tokensAreIssuedWhenAskedForAndStillIncrease(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        tryNow(a, "1").orElseThrow().unlock();
        if (mode() != LockMode.LEASE) {
            assertThat(io.github.bizlock.LockFixture.daos(dataSource).tokens().lastToken(key("1"), mode()))
                    .as("ROW and NAMED issue no token nobody asked for")
                    .isEmpty();
        }
        LockHandle first = tryNow(a, "1").orElseThrow();
        long firstToken = first.fencingToken();
        first.unlock();
        tryNow(b, "1").orElseThrow().unlock();
        LockHandle unasked = tryNow(b, "1").orElseThrow();
        unasked.unlock();
        LockHandle last = tryNow(a, "1").orElseThrow();
        assertThat(last.fencingToken()).isGreaterThan(firstToken);
        last.unlock();

        if (mode() == LockMode.LEASE) {
            assertThat(unasked.fencingToken())
                    .as("LEASE tokens come with the lock")
                    .isPositive();
        } else {
            assertThatThrownBy(unasked::fencingToken)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("unlocked before its fencing token was asked for");
        }
    }

    /**
     * {@code threads} threads of one manager take lock "1" {@code rounds} times each, waiting up to {@code wait},
     * hold it 0.2 ms, and record its token while holding it.
     *
     * @return the tokens in the order of the holds
     */
    private List<Long> contendLocally(LockManager manager, int threads, int rounds, Duration wait) throws Exception {
        List<Long> tokens = new ArrayList<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(CompletableFuture.runAsync(
                    () -> {
                        for (int round = 0; round < rounds; round++) {
                            try {
                                Optional<LockHandle> handle = manager.tryAcquire(key("1"), mode(), wait, null);
                                if (handle.isEmpty()) {
                                    continue;
                                }
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                synchronized (tokens) {
                                    tokens.add(handle.get().fencingToken());
                                }
                                LockSupport.parkNanos(200_000);
                                inside.decrementAndGet();
                                handle.get().unlock();
                            } catch (InterruptedException ex) {
                                throw new IllegalStateException(ex);
                            }
                        }
                    },
                    java.util.concurrent.Executors.newSingleThreadExecutor()));
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(overlaps).as("threads inside at once").hasValue(0);
        synchronized (tokens) {
            return List.copyOf(tokens);
        }
    }

    /** A manager allowing {@code localHandoffs} hand-offs per grant, reporting its releases to {@code handOffs}. */
    private LockManager observed(DataSource dataSource, int localHandoffs, HandOffs handOffs) {
        LockManager manager = ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                .localHandoffs(localHandoffs)
                .observer(handOffs)
                .build();
        managers.add(manager);
        return manager;
    }

    /** Counts releases, and those of them that passed the lock to a local waiter. */
    private static final class HandOffs implements io.github.bizlock.internal.lock.LockObserver {

        private final AtomicInteger released = new AtomicInteger();
        private final AtomicInteger handedOver = new AtomicInteger();

        @Override
        public void released(LockKey key, LockMode mode, long holdNanos) {
            released.incrementAndGet();
        }

        @Override
        public void handedOver(LockKey key, LockMode mode) {
            handedOver.incrementAndGet();
        }

        int released() {
            return released.get();
        }

        int handedOver() {
            return handedOver.get();
        }

        /** Releases to the database: the holds that did not pass the lock on. */
        int releasedToDatabase() {
            return released() - handedOver();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bad input

    @Test
    void badInputFailsWithTheLimitNamed(DataSource dataSource) {
        LockManager manager = manager(dataSource);
        LockTemplate locks = template(manager);
        assertThatThrownBy(() -> locks.tryAcquire(null, "1", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be null");
        assertThatThrownBy(() -> locks.tryAcquire(lockName, null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be null");
        assertThatThrownBy(() -> locks.tryAcquire(" \t", "1", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be blank");
        assertThatThrownBy(() -> locks.tryAcquire(lockName, "", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be blank");
        assertThatThrownBy(() -> locks.tryAcquire("n".repeat(LockKey.MAX_NAME_BYTES + 1), "1", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("129 bytes")
                .hasMessageContaining("more than the 128 allowed");
        // The limit counts UTF-8 bytes, not characters: 257 two-byte characters are 514 bytes.
        assertThatThrownBy(() -> locks.tryAcquire(lockName, "é".repeat(257), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("514 bytes")
                .hasMessageContaining("more than the 512 allowed");
        assertThat(locks.tryExecute(lockName, "k".repeat(LockKey.MAX_KEY_BYTES), Duration.ZERO, () -> "ran")
                        .value())
                .as("a key of exactly the limit works")
                .isEqualTo("ran");

        assertThatThrownBy(() -> locks.tryAcquire(lockName, "1", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime must not be negative");
        assertThatThrownBy(() -> manager.tryAcquire(key("1"), mode(), Duration.ofMillis(-1), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait time must not be negative");
        assertThatThrownBy(() -> manager.tryAcquire(key("1"), mode(), Duration.ZERO, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease time must be positive");
        assertThatThrownBy(() -> LockOptions.defaults().leaseTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be positive");
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(manager.heldCount()).isZero();
    }

    @Test
    void keysTheDatabaseWouldTakeForOthersAreRefused(DataSource dataSource) throws Exception {
        LockManager manager = manager(dataSource);
        LockTemplate locks = template(manager);
        // UTF-8 has no encoding for half a surrogate pair: it would write '?', the lock of the key "?".
        for (String key : List.of("\uD800", "\uDBFF", "x\uDC00", "\uDFFFy", "\uD800\uD800\uDC00")) {
            refused(
                    () -> locks.tryAcquire(lockName, key, Duration.ZERO),
                    "The lock key contains a lone surrogate",
                    "at index " + (key.startsWith("x") ? 1 : 0),
                    "'?'");
        }
        refused(
                () -> locks.tryAcquire("\uD83D" + lockName, "1", Duration.ZERO),
                "The lock name contains a lone surrogate U+D83D at index 0");
        // NAMED joins table, name and key with NUL: "a\0b"/"c" and "a"/"b\0c" would be one lock.
        refused(
                () -> locks.tryAcquire("a\u0000b", "c", Duration.ZERO),
                "The lock name contains U+0000 (NUL) at index 1");
        refused(
                () -> locks.tryAcquire("a", "b\u0000c", Duration.ZERO),
                "The lock key contains U+0000 (NUL) at index 1");
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(manager.heldCount()).isZero();
    }

    private static void refused(ThrowingCallable call, String... messages) {
        var thrown = assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class);
        for (String message : messages) {
            thrown.hasMessageContaining(message);
        }
    }

    @Test
    void keysThatDifferOnlyInWaysAColumnMightIgnoreAreDistinctLocks(DataSource dataSource) throws Exception {
        LockManager a = manager(dataSource);
        LockManager b = manager(dataSource);
        List<List<String>> pairs = List.of(
                List.of("a", "a "), // PAD SPACE collations ignore trailing spaces
                List.of("Order", "order"), // case-insensitive collations
                List.of("?", "\uD83D\uDE00"), // a well-formed pair (an emoji) stays itself, never '?'
                List.of("\u00e9", "e\u0301"), // composed and decomposed é
                List.of("\u00df", "ss"),
                List.of("a\tb", "a b"));
        for (List<String> pair : pairs) {
            for (int first = 0; first < 2; first++) {
                String held = pair.get(first);
                String other = pair.get(1 - first);
                try (LockHandle handle = tryNow(a, held).orElseThrow()) {
                    assertThat(handle.isHeld()).isTrue();
                    assertThat(freeFor(b, other))
                            .as("'%s' is free while '%s' is held", other, held)
                            .isTrue();
                    assertThat(freeFor(b, held)).isFalse();
                }
            }
        }
    }

    @Test
    void aLeaseLongerThanTheMaximumIsRefusedBeforeAnythingIsWritten(DataSource dataSource) throws Exception {
        LockManager manager = manager(dataSource);
        Duration centuries = Duration.ofDays(365_000);
        refused(
                () -> manager.tryAcquire(key("1"), mode(), Duration.ZERO, centuries),
                "lease time must be at most 365 days",
                "was PT8760000H");
        refused(() -> LockOptions.defaults().leaseTime(centuries), "leaseTime must be at most 365 days");
        refused(
                () -> new DefaultLockTemplate(manager, mode(), Duration.ZERO, centuries),
                "leaseTime must be at most 365 days");
        refused(
                () -> ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                        .watchdogLease(centuries),
                "watchdog lease must be at most 365 days");
        assertThat(new JdbcTemplate(dataSource)
                        .queryForObject(
                                "SELECT COUNT(*) FROM biz_lock WHERE biz_type = ?",
                                Integer.class,
                                lockName.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .as("no lock row was written")
                .isZero();
        assertThat(freeFor(manager(dataSource), "1"))
                .as("the key is free at once")
                .isTrue();
        assertThat(manager.heldCount()).isZero();

        try (LockHandle held = manager.tryAcquire(key("2"), mode(), Duration.ZERO, Duration.ofDays(365))
                .orElseThrow()) {
            assertThat(held.isHeld()).as("the maximum itself is a lease").isTrue();
            assertThat(freeFor(manager(dataSource), "2")).isFalse();
        }
        assertThat(freeFor(manager(dataSource), "2")).isTrue();
    }
}
