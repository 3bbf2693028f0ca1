package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockResult;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the semaphore ({@link LockTemplate#acquirePermit}) promises in every mode, on a real MySQL 8 or MariaDB: never
 * more than N holders across processes, fencing tokens strictly increasing per slot, a crashed holder's permit back
 * after its lease or session, the wait time honoured, the name bound to its N, bad input refused with nothing left
 * behind. A mode's subclass names the mode.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractSemaphoreTest {

    /** The watchdog lease of a holder that is killed: its permits come back within it. */
    private static final Duration CRASH_LEASE = Duration.ofSeconds(2);

    private final List<LockManager> managers = new ArrayList<>();
    /** The semaphore name of the running test: its method's name, so no test sees another's permits. */
    protected String name = "semaphore";

    protected abstract LockMode mode();

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(mode(), dataSource);
    }

    @BeforeEach
    void nameAfterTest(TestInfo test) {
        name = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
        managers.clear();
    }

    /** A template as another process would have it (its own manager and owner id). */
    protected LockTemplate template(DataSource dataSource) {
        LockManager manager = ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                .build();
        managers.add(manager);
        return new DefaultLockTemplate(manager, mode(), Duration.ofSeconds(10), null);
    }

    /** Whether another process could take a permit right now, asked on a thread of its own. */
    private static Optional<PermitHandle> tryNow(LockTemplate locks, String name, int permits) {
        return CompletableFuture.supplyAsync(
                        () -> locks.tryAcquirePermit(name, "k", permits, Duration.ZERO), ThreadPerTask.EXECUTOR)
                .join();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // At most N holders, tokens per slot

    @Tag("cross-jvm")
    @Test
    void neverMoreThanNHoldersAcrossTwoJvms(TestDatabase database) throws Exception {
        int permits = 3;
        int threads = 4;
        int rounds = 25;
        DataSource dataSource = database.dataSource();
        PermitWorkload.prepare(dataSource, name, permits);
        LockTemplate locks = template(dataSource);
        try (ChildJvm child = PermitWorker.start(
                database,
                "workload",
                mode().name(),
                name,
                String.valueOf(permits),
                String.valueOf(threads),
                String.valueOf(rounds))) {
            child.await("READY", Duration.ofSeconds(60));
            child.send("GO");
            PermitWorkload.Result mine = PermitWorkload.run(locks, dataSource, name, permits, threads, rounds);
            PermitWorkload.Result theirs = PermitWorkload.Result.fromLine(child.await("DONE", Duration.ofSeconds(300)));
            int[] holders = PermitWorkload.holders(dataSource, name);
            System.out.printf(
                    "semaphore (%s, %d permits): %s here, %s in the child, at most %d holders%n",
                    mode(), permits, mine, theirs, holders[0]);
            assertThat(holders[0]).as("the most holders at once").isLessThanOrEqualTo(permits);
            // 8 contenders for 3 permits: a semaphore that let one holder in at a time would not pass.
            assertThat(holders[0]).as("the most holders at once").isGreaterThan(1);
            assertThat(holders[1]).as("holders still counted in").isZero();
            assertThat(mine.failures() + theirs.failures())
                    .as("acquisitions that failed")
                    .isZero();
            assertThat(mine.fenceRejects() + theirs.fenceRejects())
                    .as("writes whose slot's token was not above the last one written")
                    .isZero();
            assertThat(mine.acquired()).isEqualTo(threads * rounds);
            assertThat(theirs.acquired()).isEqualTo(threads * rounds);
        }
    }

    @Test
    void eachPermitIsASlotOfItsOwnWhoseTokensStrictlyIncrease(DataSource dataSource) {
        LockTemplate locks = template(dataSource);
        LockTemplate other = template(dataSource);
        Map<Integer, Long> tokens = new HashMap<>();
        for (int round = 0; round < 3; round++) {
            LockTemplate taker = round == 1 ? other : locks;
            List<PermitHandle> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(taker.acquirePermit(name, "k", 3));
            }
            assertThat(held).extracting(PermitHandle::slot).containsExactlyInAnyOrder(0, 1, 2);
            assertThat(tryNow(other, name, 3)).as("a fourth holder").isEmpty();
            for (PermitHandle permit : held) {
                assertThat(permit.name()).isEqualTo(name);
                assertThat(permit.key()).isEqualTo("k");
                assertThat(permit.permits()).isEqualTo(3);
                assertThat(permit.mode()).isEqualTo(mode());
                assertThat(permit.isHeld()).isTrue();
                long token = permit.fencingToken();
                assertThat(token)
                        .as("slot %d's token in round %d", permit.slot(), round)
                        .isGreaterThan(tokens.getOrDefault(permit.slot(), 0L));
                tokens.put(permit.slot(), token);
                permit.unlock();
                assertThat(permit.isHeld()).isFalse();
            }
        }
        assertThat(managers.get(0).heldCount()).isZero();
    }

    @Test
    void aThreadTakesAnotherSlotEachTimeAndCannotWaitForMoreThanAll(DataSource dataSource) {
        LockTemplate locks = template(dataSource);
        try (PermitHandle first = locks.acquirePermit(name, "k", 2);
                PermitHandle second = locks.acquirePermit(name, "k", 2)) {
            assertThat(first.slot()).isNotEqualTo(second.slot());
            assertThatThrownBy(() -> locks.acquirePermit(name, "k", 2))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds all 2 permits of " + name + "/k already");
        }
        assertThat(managers.get(0).heldCount()).isZero();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Crashes and waiting

    @Tag("cross-jvm")
    @Test
    void aKilledHoldersPermitsComeBackWithinItsLease(TestDatabase database) throws Exception {
        LockTemplate survivor = template(database.dataSource());
        try (ChildJvm child = PermitWorker.start(
                database, "hold", mode().name(), name, "2", "2", String.valueOf(CRASH_LEASE.toMillis()))) {
            Map<Integer, Long> childTokens = new HashMap<>();
            String[] held = child.await("HELD", Duration.ofSeconds(60)).split(" ");
            for (int i = 1; i < held.length; i++) {
                String[] slotToken = held[i].split(":");
                childTokens.put(Integer.parseInt(slotToken[0]), Long.parseLong(slotToken[1]));
            }
            assertThat(childTokens).containsOnlyKeys(0, 1);
            assertThat(tryNow(survivor, name, 2))
                    .as("both permits held by the live child")
                    .isEmpty();
            child.kill();
            long killed = System.nanoTime();
            Duration bound = CRASH_LEASE.plusSeconds(3);
            List<PermitHandle> back = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                back.add(survivor.acquirePermit(
                        name, "k", 2, LockOptions.defaults().waitTime(bound)));
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(waited)
                    .as("both permits back within lease + 3 s of the kill")
                    .isLessThan(bound);
            for (PermitHandle permit : back) {
                assertThat(permit.fencingToken()).isGreaterThan(childTokens.get(permit.slot()));
                permit.unlock();
            }
        }
    }

    @Test
    void theWaitTimeIsHonouredAndAFreedPermitEndsTheWait(DataSource dataSource) throws Exception {
        LockTemplate locks = template(dataSource);
        LockTemplate other = template(dataSource);
        PermitHandle a = other.acquirePermit(name, "k", 2);
        PermitHandle b = other.acquirePermit(name, "k", 2);
        long started = System.nanoTime();
        Optional<PermitHandle> none = locks.tryAcquirePermit(name, "k", 2, Duration.ofMillis(700));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(none).isEmpty();
        assertThat(tookMillis).as("waited the wait time, and not much more").isBetween(650L, 2500L);
        assertThatThrownBy(() ->
                        locks.acquirePermit(name, "k", 2, LockOptions.defaults().waitTime(Duration.ZERO)))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("No permit of semaphore " + name + "/k (2 permits")
                .hasMessageContaining("all were held elsewhere");

        CompletableFuture<Optional<Integer>> waiter = CompletableFuture.supplyAsync(
                () -> {
                    Optional<PermitHandle> taken = locks.tryAcquirePermit(name, "k", 2, Duration.ofSeconds(30));
                    taken.ifPresent(PermitHandle::unlock);
                    return taken.map(PermitHandle::slot);
                },
                ThreadPerTask.EXECUTOR);
        Thread.sleep(300); // let it wait; the outcome is the same if it has not started yet
        int freed = b.slot();
        b.unlock();
        assertThat(waiter.get(20, TimeUnit.SECONDS))
                .as("the slot the waiter got")
                .contains(freed);
        a.unlock();
    }

    @Test
    void anInterruptedWaiterHoldsNothingAndKeepsItsInterruptFlag(DataSource dataSource) throws Exception {
        LockTemplate locks = template(dataSource);
        LockTemplate other = template(dataSource);
        try (PermitHandle only = other.acquirePermit(name, "k", 1)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    locks.acquirePermit(name, "k", 1, LockOptions.defaults().waitTime(Duration.ofSeconds(30)));
                } catch (Throwable ex) {
                    failure.set(ex);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            Thread.sleep(300); // let it wait; the outcome is the same if it has not started yet
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(waiter.isAlive()).isFalse();
            assertThat(failure.get())
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("Interrupted while waiting for a permit of " + name + "/k; nothing is held");
            assertThat(stillInterrupted).as("the interrupt flag, kept").isTrue();
            assertThat(only.isHeld()).isTrue();
        }
        assertThat(managers.get(0).heldCount()).isZero();
    }

    @Test
    void executeVariantsRunTheActionHoldingAPermit(DataSource dataSource) {
        LockTemplate locks = template(dataSource);
        LockTemplate other = template(dataSource);
        assertThat(locks.executeWithPermit(
                        name, "k", 1, () -> tryNow(other, name, 1).isPresent()))
                .as("the one permit, taken by the action's holder")
                .isFalse();
        LockResult<String> ran = locks.tryExecuteWithPermit(name, "k", 1, Duration.ZERO, () -> "ran");
        assertThat(ran.wasExecuted()).isTrue();
        assertThat(ran.value()).isEqualTo("ran");
        try (PermitHandle held = other.acquirePermit(name, "k", 1)) {
            LockResult<String> skipped = locks.tryExecuteWithPermit(name, "k", 1, Duration.ZERO, () -> "ran");
            assertThat(skipped.wasExecuted()).isFalse();
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(managers.get(0).heldCount()).isZero();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The name's binding, bad input

    @Test
    void aNameIsBoundToItsNumberOfPermitsForEveryProcess(DataSource dataSource) {
        LockTemplate locks = template(dataSource);
        try (PermitHandle held = locks.acquirePermit(name, "k", 3)) {
            LockTemplate other = template(dataSource); // a process that never saw the name: the database tells it
            assertThatThrownBy(() -> other.acquirePermit(name, "k", 4))
                    .isInstanceOf(PermitsConflictException.class)
                    .hasMessageContaining("'" + name + "' is bound to a semaphore of 3 permits")
                    .hasMessageContaining("asked for a semaphore of 4 permits")
                    .hasMessageContaining("permits = 4");
            assertThatThrownBy(() -> locks.acquirePermit(name, "other-key", 2))
                    .isInstanceOf(PermitsConflictException.class)
                    .hasMessageContaining("asked for a semaphore of 2 permits");
            assertThatThrownBy(() -> other.acquire(name, "k#0"))
                    .isInstanceOf(PermitsConflictException.class)
                    .hasMessageContaining("but this call asked for plain locks");
            assertThat(held.isHeld()).isTrue();
        }
        String lockName = name + "-locks";
        locks.execute(lockName, "k", () -> null);
        assertThatThrownBy(() -> locks.acquirePermit(lockName, "k", 2))
                .isInstanceOf(PermitsConflictException.class)
                .hasMessageContaining("'" + lockName + "' is bound to plain locks");
        assertThat(managers.get(0).heldCount()).isZero();
        assertThat(managers.get(1).heldCount()).isZero();
    }

    @Test
    void badInputIsRefusedWithNothingLeftBehind(DataSource dataSource) {
        LockTemplate locks = template(dataSource);
        assertThatThrownBy(() -> locks.acquirePermit(name, "k", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 permit, but 0 were asked for " + name + "/k");
        assertThatThrownBy(() -> locks.tryAcquirePermit(name, "k", -3, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 permit, but -3");
        assertThatThrownBy(() -> locks.acquirePermit(name, "k", PermitHandle.MAX_PERMITS + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + PermitHandle.MAX_PERMITS + " permits, but 65");
        assertThatThrownBy(() -> locks.acquirePermit(name, "x".repeat(510), 11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaves no room for its slot number")
                .hasMessageContaining("#10 for the last one")
                .hasMessageContaining("more than the 512 allowed");
        assertThatThrownBy(() -> locks.acquirePermit(name, " ", 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be blank");
        assertThatThrownBy(() -> locks.acquirePermit(" ", "k", 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be blank");
        assertThatThrownBy(() -> locks.acquirePermit(
                        name, "k", 2, LockOptions.defaults().mode(mode()).access(LockAccess.READ)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no read lock");
        assertThat(managers.get(0).heldCount()).isZero();
        assertThat(managers.get(0).activeThreadCount()).isZero();
        assertThat(new JdbcTemplate(dataSource)
                        .queryForObject("SELECT COUNT(*) FROM biz_lock_mode WHERE biz_type = ?", Integer.class, name))
                .as("the name, not bound by a refused call")
                .isZero();
        // The longest key that leaves room: 510 bytes and "#9".
        try (PermitHandle longest = locks.acquirePermit(name, "x".repeat(510), 10)) {
            assertThat(longest.isHeld()).isTrue();
        }
    }
}
