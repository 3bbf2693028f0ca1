package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LossCause;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/** What ROW and NAMED locks share, run against the real server: each subclass names its mode. */
@ExtendWith(TestDatabaseExtension.class)
public abstract class AbstractSessionLockTest {

    /** How far a wait may overrun its budget. */
    private static final long WAIT_TOLERANCE_MILLIS = 100;

    protected TestDatabase database;
    protected DataSource dataSource;
    protected JdbcTemplate jdbc;
    protected SessionLocks a;
    protected SessionLocks b;
    protected String name;
    protected final ExecutorService threads = Executors.newCachedThreadPool();

    protected abstract LockMode mode();

    /** A statement text fragment that only a waiting lock statement of this mode shows in the process list. */
    protected abstract String waitingStatement();

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void open(TestDatabase database, TestInfo test) {
        this.database = database;
        this.dataSource = database.dataSource();
        this.jdbc = new JdbcTemplate(dataSource);
        this.a = locks();
        this.b = locks();
        this.name = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        a.close();
        b.close();
    }

    protected SessionLocks locks() {
        return SessionLocks.open(mode(), dataSource, database.jdbcUrl(), database.username(), database.password());
    }

    @Test
    void excludesOtherProcessesReentersAndRaisesTokens() {
        long first;
        try (LockHandle held = a.template().acquire(name, "1")) {
            first = held.fencingToken();
            assertThat(held.mode()).isEqualTo(mode());
            assertThat(held.isHeld()).isTrue();
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO)).isEmpty();
            try (LockHandle again = a.template().acquire(name, "1")) {
                assertThat(again.fencingToken()).isEqualTo(first);
            }
            assertThat(held.isHeld()).isTrue();
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO)).isEmpty();
            assertThat(a.heldSessions()).isEqualTo(1);
        }
        assertThat(a.heldSessions()).isZero();
        long previous = first;
        for (int i = 0; i < 5; i++) {
            SessionLocks next = i % 2 == 0 ? b : a;
            try (LockHandle held = next.template().acquire(name, "1")) {
                assertThat(held.fencingToken()).isGreaterThan(previous);
                previous = held.fencingToken();
            }
        }
        assertThat(LockFixture.dao(dataSource)
                        .tokens()
                        .lastToken(new io.github.bizlock.internal.engine.LockKey(name, "1"), mode()))
                .hasValue(previous);
    }

    @Test
    void keysDifferingInCaseOrTrailingSpaceAreDifferentLocks() {
        try (LockHandle lower = a.template().acquire(name, "order");
                LockHandle upper = b.template().acquire(name, "Order");
                LockHandle spaced = b.template().acquire(name, "order ")) {
            assertThat(List.of(lower, upper, spaced)).allMatch(LockHandle::isHeld);
        }
    }

    @Test
    void tryWithoutWaitFailsAtOnceWhileHeldElsewhere() {
        try (LockHandle ignored = a.template().acquire(name, "1")) {
            long start = System.nanoTime();
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO)).isEmpty();
            assertThat(millisSince(start)).isLessThan(500);
            assertThat(b.heldSessions()).isZero();
        }
    }

    @Test
    void subSecondWaitEndsOnBudget() {
        assertWaitEndsOnBudget(Duration.ofMillis(300));
    }

    @Test
    void fractionalWaitEndsOnBudget() {
        assertWaitEndsOnBudget(Duration.ofMillis(1500));
    }

    private void assertWaitEndsOnBudget(Duration budget) {
        try (LockHandle ignored = a.template().acquire(name, "1")) {
            // Once to create the row and warm the session, then measured.
            assertThat(b.template().tryAcquire(name, "1", Duration.ofMillis(50)))
                    .isEmpty();
            long start = System.nanoTime();
            Optional<LockHandle> none = b.template().tryAcquire(name, "1", budget);
            long elapsed = millisSince(start);
            assertThat(none).isEmpty();
            System.out.printf("%s %s: wait of %d ms ended after %d ms%n", server(), mode(), budget.toMillis(), elapsed);
            assertThat(elapsed).isBetween(budget.toMillis(), budget.toMillis() + WAIT_TOLERANCE_MILLIS);
            assertThat(b.heldSessions()).isZero();
        }
        // The session that timed out is reused and still works.
        try (LockHandle held = b.template().acquire(name, "1")) {
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void waiterGetsTheLockWhenItIsReleased() throws Exception {
        LockHandle held = a.template().acquire(name, "1");
        long heldToken = held.fencingToken();
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(
                () -> {
                    try (LockHandle mine = b.template()
                            .acquire(name, "1", LockOptions.defaults().waitTime(Duration.ofSeconds(20)))) {
                        return mine.fencingToken();
                    }
                },
                threads);
        awaitWaiters(1);
        long releasedAt = System.nanoTime();
        held.unlock();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isGreaterThan(heldToken);
        System.out.printf("%s %s: waiter woke %d ms after release%n", server(), mode(), millisSince(releasedAt));
    }

    @Test
    void interruptEndsTheWaitHoldingNothing() throws Exception {
        try (LockHandle ignored = a.template().acquire(name, "1")) {
            AtomicReference<Thread> thread = new AtomicReference<>();
            CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture.supplyAsync(
                    () -> {
                        thread.set(Thread.currentThread());
                        return b.template().tryAcquire(name, "1", Duration.ofSeconds(20));
                    },
                    threads);
            awaitWaiters(1);
            long start = System.nanoTime();
            thread.get().interrupt();
            assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("nothing is held")
                    .cause()
                    .isInstanceOf(InterruptedException.class);
            assertThat(millisSince(start)).isLessThan(1000);
            assertThat(b.heldSessions()).isZero();
            assertThat(b.manager().heldCount()).isZero();
            assertThat(countWaiters()).isZero();
        }
        try (LockHandle held = b.template().acquire(name, "1")) {
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void noTokenIsIssuedToAHolderWhoseSessionDied() throws Exception {
        LockHandle held = a.template().acquire(name, "1");
        SessionLocks.kill(dataSource, holderConnectionId(name, "1"));
        assertThatThrownBy(held::fencingToken)
                .as("either the statement fails on the dead session or the loss is known already")
                .isInstanceOfAny(LockLostException.class, org.springframework.dao.DataAccessException.class);
        awaitTrue(() -> !held.isHeld(), SessionLocks.HEARTBEAT_LEASE.toMillis());
        assertThatThrownBy(held::fencingToken).isInstanceOf(LockLostException.class);
        assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void killedConnectionIsReportedLostWithinAHeartbeat() throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        a.manager().addListener(lost::add);
        LockHandle held = a.template().acquire(name, "1");
        long heldToken = held.fencingToken();
        long killedAt = System.nanoTime();
        SessionLocks.kill(dataSource, holderConnectionId(name, "1"));
        awaitTrue(() -> !held.isHeld(), SessionLocks.HEARTBEAT_LEASE.toMillis());
        System.out.printf("%s %s: KILL noticed after %d ms%n", server(), mode(), millisSince(killedAt));
        awaitTrue(() -> !lost.isEmpty(), 1000);
        assertThat(lost.get(0).fencingToken()).isEqualTo(heldToken);
        assertThat(held.fencingToken()).as("issued before, so still known").isEqualTo(heldToken);
        assertThat(lost.get(0).mode()).isEqualTo(mode());
        // The server freed the lock with the session, and the token moved on although the session rolled back.
        try (LockHandle next =
                b.template().acquire(name, "1", LockOptions.defaults().waitTime(Duration.ofSeconds(2)))) {
            assertThat(next.fencingToken()).isGreaterThan(heldToken);
        }
        assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
        // A lost lock's release, which discards the dead session, runs in the background.
        awaitTrue(() -> a.heldSessions() == 0, 5000);
        try (LockHandle again = a.template().acquire(name, "1")) {
            assertThat(again.isHeld()).isTrue();
        }
    }

    @Test
    void killedSessionIsReportedAsAnEndedSessionNotATakeover() throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        a.manager().addListener(lost::add);
        LockHandle held = a.template().acquire(name, "1");
        long connectionId = holderConnectionId(name, "1");
        SessionLocks.kill(dataSource, connectionId);
        awaitTrue(() -> !lost.isEmpty(), 5000);
        assertThat(lost).singleElement().satisfies(event -> {
            assertThat(event.cause()).isEqualTo(LossCause.SESSION_ENDED);
            assertThat(event.reason())
                    .doesNotContain("taken over")
                    .contains("session (connection id " + connectionId + ") ended");
        });
        assertThatThrownBy(held::unlock)
                .isInstanceOf(LockLostException.class)
                .satisfies(ex ->
                        assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.SESSION_ENDED));
    }

    @Test
    void halfOpenSessionIsReportedUnreachableAndItsUnlockAnswersAtOnce() throws Exception {
        try (FreezingProxy network = new FreezingProxy(database.jdbcUrl());
                SessionLocks cutOff = SessionLocks.open(
                        mode(),
                        LockFixture.dao(dataSource),
                        new org.springframework.jdbc.datasource.DriverManagerDataSource(
                                network.jdbcUrl(), database.username(), database.password()),
                        2)) {
            List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
            cutOff.manager().addListener(lost::add);
            LockHandle held = cutOff.template().acquire(name, "1");
            network.freeze(); // the heartbeat gets no answer, and the session gets no word that it should end

            awaitTrue(() -> !lost.isEmpty(), 5000);
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.cause()).isEqualTo(LossCause.UNREACHABLE);
                assertThat(event.reason()).contains("did not answer a heartbeat in time");
            });
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO))
                    .as("as the cause says, the server may still hold it for the cut-off session")
                    .isEmpty();
            long unlocking = System.nanoTime();
            assertThatThrownBy(held::unlock)
                    .isInstanceOf(LockLostException.class)
                    .satisfies(ex ->
                            assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.UNREACHABLE));
            // Ceiling: a release on the frozen session would wait for its read timeout (10 s).
            assertThat(millisSince(unlocking)).isLessThan(1000);

            network.close(); // the partition ends the connection: the server ends the session and frees the lock
            try (LockHandle next =
                    b.template().acquire(name, "1", LockOptions.defaults().waitTime(Duration.ofSeconds(10)))) {
                assertThat(next.isHeld()).isTrue();
            }
        }
    }

    @Test
    void runningOutOfSessionsFailsWithAClearError() {
        try (SessionLocks small = SessionLocks.open(
                        mode(),
                        LockFixture.dao(dataSource),
                        new org.springframework.jdbc.datasource.DriverManagerDataSource(
                                database.jdbcUrl(), database.username(), database.password()),
                        2);
                LockHandle one = small.template().acquire(name, "1");
                LockHandle two = small.template().acquire(name, "2")) {
            assertThatThrownBy(() -> small.template().acquire(name, "3"))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("All 2 bizlock session connections are held")
                    .hasMessageContaining("bizlock.session.max-connections");
            assertThat(List.of(one, two)).allMatch(LockHandle::isHeld);
        }
    }

    @Test
    void fixedLeaseIsIgnoredAndHeartbeatsKeepTheLock() throws Exception {
        try (LockHandle held =
                a.template().acquire(name, "1", LockOptions.defaults().leaseTime(Duration.ofMillis(200)))) {
            Thread.sleep(3 * SessionLocks.HEARTBEAT_LEASE.toMillis());
            assertThat(held.isHeld()).isTrue();
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO)).isEmpty();
        }
    }

    @Tag("cross-jvm")
    @Test
    void killedHolderProcessFreesTheLockWithinOneSecond() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        SessionHolderMain.class.getName(),
                        mode().name(),
                        database.jdbcUrl(),
                        database.username(),
                        database.password(),
                        name,
                        "1")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> line = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return out.readLine();
                        } catch (java.io.IOException ex) {
                            throw new java.io.UncheckedIOException(ex);
                        }
                    },
                    threads);
            String held = line.get(60, TimeUnit.SECONDS);
            assertThat(held).startsWith("HELD ");
            long childToken = Long.parseLong(held.substring(5).strip());
            assertThat(b.template().tryAcquire(name, "1", Duration.ZERO)).isEmpty();
            awaitWaiters(0);
            CompletableFuture<long[]> waiter = CompletableFuture.supplyAsync(
                    () -> {
                        Optional<LockHandle> mine = b.template().tryAcquire(name, "1", Duration.ofSeconds(10));
                        long acquiredAt = System.nanoTime();
                        long token = mine.map(LockHandle::fencingToken).orElse(-1L);
                        mine.ifPresent(LockHandle::unlock);
                        return new long[] {token, acquiredAt};
                    },
                    threads);
            awaitWaiters(1);
            long killedAt = System.nanoTime();
            child.destroyForcibly(); // SIGKILL
            long[] mine = waiter.get(10, TimeUnit.SECONDS);
            long freedAfter = TimeUnit.NANOSECONDS.toMillis(mine[1] - killedAt);
            System.out.printf("%s %s: SIGKILLed holder's lock freed after %d ms%n", server(), mode(), freedAfter);
            assertThat(mine[0]).as("token of the next holder").isGreaterThan(childToken);
            assertThat(freedAfter).isLessThan(1000);
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The server connection id of the session holding a lock. */
    protected abstract long holderConnectionId(String lockName, String lockKey);

    protected int countWaiters() {
        Integer count = jdbc.queryForObject(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
                Integer.class,
                "%" + waitingStatement() + "%");
        return count == null ? 0 : count;
    }

    protected void awaitWaiters(int count) {
        awaitTrue(() -> countWaiters() == count, 10_000);
    }

    protected static void awaitTrue(BooleanSupplier condition, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Condition not met within " + timeoutMillis + " ms");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }

    protected static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    protected String server() {
        return database.server().product();
    }
}
