package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.contract.LockWorker;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.internal.jdbc.session.WakeProbe;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * LEASE's wake-up where it cannot help: a holder frozen with its wake lock, wake sessions that cannot be had. The row
 * stays the only grant, so exclusion holds and a lease that ended is taken over whatever the wake locks say.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseWakeFaultsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    /**
     * The holder's JVM is stopped (SIGSTOP): its connections stay open, so its session keeps the wake lock, and its
     * watchdog stops renewing. A waiter takes the row over when the lease ends, within a re-check, without the wake
     * lock; and the next waiter, queued behind the stuck wake lock, gets the row after the taker releases it.
     */
    @Tag("cross-jvm")
    @Test
    void aFrozenHolderThatKeepsItsWakeLockDoesNotKeepWaitersOutPastItsLease(TestDatabase database) throws Exception {
        DataSource dataSource = database.dataSource();
        LockKey key = new LockKey("wake-faults", "frozen");
        Duration lease = Duration.ofSeconds(2);
        try (ChildJvm holder = LockWorker.start(
                        database,
                        List.of(),
                        "hold",
                        LockMode.LEASE.name(),
                        key.name(),
                        key.key(),
                        String.valueOf(lease.toMillis()));
                LockManager first = waking(dataSource);
                LockManager second = waking(dataSource)) {
            long holderToken = Long.parseLong(
                    holder.await("ACQUIRED", Duration.ofSeconds(60)).split(" ")[1]);
            Long holderSession = WakeProbe.holder(dataSource, key);
            assertThat(holderSession)
                    .as("the holder's session holds the key's wake lock")
                    .isNotNull();
            holder.signal("STOP");
            try {
                long frozen = System.nanoTime();
                Optional<LockHandle> taken = first.tryAcquire(key, LockMode.LEASE, WAIT, null);
                Duration after = Duration.ofNanos(System.nanoTime() - frozen);

                assertThat(taken)
                        .as("taken over after the frozen holder's lease")
                        .isPresent();
                assertThat(taken.get().fencingToken()).isGreaterThan(holderToken);
                assertThat(after)
                        .as("the takeover came within the lease, a re-check and a margin")
                        .isLessThan(lease.plus(WakeLocks.RECHECK).plusSeconds(2));
                assertThat(WakeProbe.holder(dataSource, key))
                        .as("the frozen holder's session still holds the wake lock: the takeover did not need it")
                        .isEqualTo(holderSession);

                CompletableFuture<Long> next = LeaseWakeUpTest.takeAndRelease(second, key);
                long released = System.nanoTime();
                long firstToken = taken.get().fencingToken();
                taken.get().unlock();
                assertThat(next.get(30, TimeUnit.SECONDS)).isGreaterThan(firstToken);
                // The row had to stay free for a re-check before a waiter takes it without the wake lock.
                assertThat(Duration.ofNanos(System.nanoTime() - released))
                        .as("the next waiter got the row freed without a wake-up within two re-checks and a margin")
                        .isLessThan(WakeLocks.RECHECK.multipliedBy(2).plusSeconds(2));
            } finally {
                holder.signal("CONT");
            }
        }
    }

    /** A single attempt takes over a lease that ended while its holder's session still holds the wake lock. */
    @Test
    void aLeaseThatEndedIsTakenOverAtOnceThoughItsHolderKeepsTheWakeLock(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-faults", "ended");
        try (LockManager holder = waking(dataSource);
                LockManager other = waking(dataSource)) {
            LockHandle held = holder.tryAcquire(key, LockMode.LEASE, WAIT, null).orElseThrow();
            assertThat(other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("held")
                    .isEmpty();
            LeaseTestSupport.expire(dataSource, key); // as if the holder had stopped renewing it

            Optional<LockHandle> taken = other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);

            assertThat(WakeProbe.holder(dataSource, key))
                    .as("the holder's wake lock")
                    .isNotNull();
            assertThat(taken).as("taken over in a single attempt").isPresent();
            assertThat(taken.get().fencingToken()).isGreaterThan(held.fencingToken());
            taken.get().unlock();
        }
    }

    /**
     * A short fixed lease whose holder keeps its wake lock past the lease is taken over within half a lease of its end,
     * not at the next one-second re-check.
     */
    @Test
    void aShortLeaseIsTakenOverSoonAfterItEndsThoughItsHolderKeepsTheWakeLock(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-faults", "short");
        Duration lease = Duration.ofMillis(400);
        try (LockManager holder = waking(dataSource);
                LockManager other = waking(dataSource)) {
            long taken = System.nanoTime();
            LockHandle held =
                    holder.tryAcquire(key, LockMode.LEASE, WAIT, lease).orElseThrow();

            Optional<LockHandle> next = other.tryAcquire(key, LockMode.LEASE, WAIT, lease);
            Duration after = Duration.ofNanos(System.nanoTime() - taken);

            assertThat(next).isPresent();
            assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(after)
                    .as("taken over after the lease, within half a lease and a margin")
                    .isBetween(lease, lease.plus(lease.dividedBy(2)).plusMillis(300));
            next.get().unlock();
        }
    }

    /**
     * Wake sessions that cannot be opened (nothing listens where they connect) leave their instances polling, beside an
     * instance that wakes and one without a wake-up at all: one holder at a time, tokens rising in the order held.
     */
    @Test
    void instancesWithoutAWorkingWakeUpStayExclusiveBesideOnesWithIt(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-faults", "fallback");
        DataSource nowhere = new DriverManagerDataSource("jdbc:mysql://127.0.0.1:1/nowhere?connectTimeout=500");
        try (LockManager unreachable =
                        manager(dataSource, new WakeLocks(dialect(dataSource), schema(dataSource), nowhere));
                LockManager polling = manager(dataSource, null);
                LockManager waking = waking(dataSource)) {
            Map<String, Integer> held = exclusive(List.of(unreachable, polling, waking), List.of(key), 3, 15);
            assertThat(held.get("overlaps")).isZero();
            assertThat(held.get("sections")).isEqualTo(3 * 3 * 15);
        }
    }

    /**
     * More keys waited for at once than a process has wake sessions: the waits beyond them poll, exclusion holds, and
     * the sessions stay within their bound.
     */
    @Test
    void waitsBeyondTheWakeSessionsPollAndStayExclusive(DataSource dataSource) throws Exception {
        List<LockKey> keys = new ArrayList<>();
        for (int i = 0; i < WakeLocks.MAX_SESSIONS + 4; i++) {
            keys.add(new LockKey("wake-faults", "many-" + i));
        }
        WakeLocks a = wakeLocks(dataSource);
        WakeLocks b = wakeLocks(dataSource);
        try (LockManager first = manager(dataSource, a);
                LockManager second = manager(dataSource, b)) {
            Map<String, Integer> held = exclusive(List.of(first, second), keys, keys.size(), 10);
            assertThat(held.get("overlaps")).isZero();
            assertThat(WakeProbe.sessions(a)).isLessThanOrEqualTo(WakeLocks.MAX_SESSIONS);
            assertThat(WakeProbe.sessions(b)).isLessThanOrEqualTo(WakeLocks.MAX_SESSIONS);
        }
    }

    /** Thousands of LEASE locks held at once by one process hold their wake locks on a session or two, not one each. */
    @Test
    void manyHeldLocksShareAFewWakeSessions(DataSource dataSource) throws Exception {
        WakeLocks wakes = wakeLocks(dataSource);
        List<LockHandle> handles = new ArrayList<>();
        try (LockManager manager = manager(dataSource, wakes)) {
            for (int i = 0; i < 2_000; i++) {
                handles.add(manager.tryAcquire(new LockKey("wake-faults", "held-" + i), LockMode.LEASE, WAIT, null)
                        .orElseThrow());
            }
            assertThat(WakeProbe.sessions(wakes)).isLessThanOrEqualTo(2);
            assertThat(WakeProbe.holder(dataSource, new LockKey("wake-faults", "held-1999")))
                    .isNotNull();
            handles.forEach(LockHandle::unlock);
            assertThat(WakeProbe.holder(dataSource, new LockKey("wake-faults", "held-1999")))
                    .as("released with its lock")
                    .isNull();
        }
    }

    /**
     * Runs {@code threads} threads per instance, each taking every key in turn {@code rounds} times with a short hold;
     * counts sections and overlaps, and checks that each key's tokens rise in the order its holders held it.
     */
    private static Map<String, Integer> exclusive(
            List<LockManager> instances, List<LockKey> keys, int threads, int rounds) throws Exception {
        Map<LockKey, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<LockKey, List<Long>> tokens = new ConcurrentHashMap<>();
        keys.forEach(key -> {
            inside.put(key, new AtomicInteger());
            tokens.put(key, new ArrayList<>());
        });
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger sections = new AtomicInteger();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (LockManager instance : instances) {
            for (int t = 0; t < threads; t++) {
                int offset = t;
                runs.add(CompletableFuture.runAsync(
                        () -> {
                            for (int round = 0; round < rounds; round++) {
                                LockKey key = keys.get((round + offset) % keys.size());
                                try (LockHandle handle = instance.tryAcquire(key, LockMode.LEASE, WAIT, null)
                                        .orElseThrow()) {
                                    if (inside.get(key).incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    List<Long> seen = tokens.get(key);
                                    synchronized (seen) {
                                        seen.add(handle.fencingToken());
                                    }
                                    Thread.sleep(1);
                                    inside.get(key).decrementAndGet();
                                    sections.incrementAndGet();
                                } catch (InterruptedException ex) {
                                    Thread.currentThread().interrupt();
                                    throw new IllegalStateException(ex);
                                }
                            }
                        },
                        ThreadPerTask.EXECUTOR));
            }
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        tokens.forEach((key, seen) -> assertThat(seen)
                .as("tokens of %s in the order held", key)
                .isSorted()
                .doesNotHaveDuplicates());
        return Map.of("overlaps", overlaps.get(), "sections", sections.get());
    }

    private static LockManager waking(DataSource dataSource) {
        return LockFixture.wakingManager(dataSource, InstanceId.generate(), Backoff.DEFAULT)
                .build();
    }

    private static WakeLocks wakeLocks(DataSource dataSource) {
        return new WakeLocks(dialect(dataSource), schema(dataSource), SessionLocks.dedicated(dataSource));
    }

    private static LockManager manager(DataSource dataSource, @Nullable WakeLocks wakes) {
        String id = InstanceId.generate();
        LockDaos daos = LockFixture.daos(dataSource);
        return LockManager.builder(id)
                .engine(new LeaseLockEngine(daos.leases(), id, Backoff.DEFAULT, wakes))
                .modeBindings(daos.modes())
                .build();
    }

    private static io.github.bizlock.internal.jdbc.dialect.Dialect dialect(DataSource dataSource) {
        return LockFixture.daos(dataSource).dialect();
    }

    private static io.github.bizlock.internal.jdbc.LockSchema schema(DataSource dataSource) {
        return LockFixture.daos(dataSource).schema();
    }
}
