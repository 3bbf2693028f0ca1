package io.github.bizlock.internal.jdbc.session;

import static io.github.bizlock.internal.jdbc.session.SessionCanceller.IDLE_POLLS;
import static io.github.bizlock.internal.jdbc.session.SessionCanceller.KILL_AGAIN_NANOS;
import static io.github.bizlock.internal.jdbc.session.SessionCanceller.POLL_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The {@code KILL QUERY} watcher's bookkeeping, each case in milliseconds: when a watch is due and killed (again), how
 * long the canceller sleeps between looks, a watch closed in time kills nothing, a kill of a session that is gone
 * counts as done, and a kill connection that failed is opened again and closed with the canceller. The scheduling is
 * tested on its pure parts with chosen clock values; {@link SessionCancellerTest} has the races with the server.
 */
@ExtendWith(TestDatabaseExtension.class)
class SessionCancellerFastTest {

    /** A connection id no session has: the server answers its kill with "no such thread", which counts as done. */
    private static final long NO_SUCH_SESSION = Integer.MAX_VALUE;

    private KillConnections kills;
    private SessionCanceller canceller;
    private Connection connection;

    @BeforeEach
    void open(TestDatabase database) throws SQLException {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        kills = new KillConnections(plain);
        canceller = new SessionCanceller(kills);
        connection = plain.getConnection();
    }

    @AfterEach
    void close() throws SQLException {
        canceller.close();
        connection.close();
    }

    @Test
    void aStatementThatReturnsBeforeItsDeadlineIsNotKilled() throws Exception {
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch = canceller.watch(session(statement), in5s());
            try (ResultSet row = statement.executeQuery("SELECT 1")) {
                assertThat(row.next()).isTrue();
            }
            watch.close();

            assertThat(watch.ending()).isNull();
            assertThat(kills.opened.get()).isZero();
        }
    }

    @Test
    void aStatementPastItsDeadlineIsKilledAndTheKillConnectionClosesWithTheCanceller() throws Exception {
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch =
                    canceller.watch(session(statement), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
            long started = System.nanoTime();
            try (ResultSet row = statement.executeQuery("SELECT SLEEP(5)")) {
                // MariaDB ends a killed SLEEP with 1 instead of 0.
                row.next();
            } catch (SQLException killed) {
                assertThat(killed.getErrorCode()).isEqualTo(ServerErrors.ER_QUERY_INTERRUPTED);
            }
            watch.close();

            // Ceiling far below the 5 s sleep: the statement was ended, not waited out.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .isLessThan(4000);
            assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
            assertThat(kills.opened.get()).isEqualTo(1);
            canceller.close();
            assertThat(kills.last.isClosed()).isTrue();
        }
    }

    @Test
    void theKillConnectionIsOpenedOnADaemonThreadInAutocommitWithTheReleaseTimeoutAndClosedWithTheThread()
            throws Exception {
        SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), System.nanoTime());
        Await.until("the kill was sent", Duration.ofSeconds(10), () -> watch.ending() != null);
        watch.close();

        // Handed out without autocommit, as a pool set up for transactions would: a KILL must not wait for a commit.
        assertThat(kills.last.getAutoCommit()).isTrue();
        // A kill the server does not answer must not hold the watch, and the lock thread closing it, for long.
        assertThat(kills.last.getNetworkTimeout()).isEqualTo((int) LockEngine.RELEASE_TIMEOUT.toMillis());
        // A canceller left running must not keep the application's JVM alive.
        Thread thread = kills.openedOn;
        assertThat(thread.getName()).isEqualTo("bizlock-session-canceller");
        assertThat(thread.isDaemon()).isTrue();

        canceller.close();

        assertThat(kills.last.isClosed()).isTrue();
        Await.until("the canceller thread ended", Duration.ofSeconds(10), () -> !thread.isAlive());
    }

    @Test
    void aKillOfASessionThatIsGoneCountsAsDone() throws Exception {
        SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), System.nanoTime());

        Await.until("the kill was sent", Duration.ofSeconds(10), () -> watch.ending() != null);
        watch.close();

        assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
        assertThat(kills.opened.get()).isEqualTo(1);
    }

    @Test
    void aKillConnectionThatFailedIsClosedAndOpenedAgain() throws Exception {
        kills.failNext = true;
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch = canceller.watch(session(statement), System.nanoTime());

            Await.until("the kill was sent again", Duration.ofSeconds(10), () -> watch.ending() != null);
            watch.close();

            assertThat(kills.opened.get()).isEqualTo(2);
            // The failed one was still open on the client: the canceller closed it, not the driver.
            assertThat(kills.first.isClosed()).isTrue();
            assertThat(kills.last.isClosed()).isFalse();
        }
    }

    @Test
    void aWatchBeforeItsDeadlineIsLeftAloneWhileADueOneIsKilledAgainAndAgain() throws Exception {
        Session waiting = new Session(connection, NO_SUCH_SESSION - 1);
        SessionCanceller.Watch notDue = canceller.watch(waiting, in5s());
        SessionCanceller.Watch due = canceller.watch(new Session(connection, NO_SUCH_SESSION), System.nanoTime());

        // A second kill of the due watch means the canceller has scanned every watch since the first.
        Await.until("the due watch was killed twice", Duration.ofSeconds(10), () -> kills.sentTo(NO_SUCH_SESSION) >= 2);
        due.close();
        notDue.close();

        assertThat(kills.sentTo(waiting.connectionId())).isZero();
        assertThat(notDue.ending()).isNull();
        assertThat(due.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
    }

    @Test
    void aKillIsSentAtOnceRepeatedOnlyAfterAPauseAndKeepsTheFirstReason() throws Exception {
        SessionCanceller.Watch watch = neverDue();

        // The first kill goes out whatever the clock says: nanoTime may be close to the 0 it was never killed at.
        watch.kill(SessionCanceller.Ending.DEADLINE, KILL_AGAIN_NANOS - 1);
        assertThat(kills.sentTo(NO_SUCH_SESSION)).isEqualTo(1);
        long killed = System.nanoTime();

        // Not again at the time it went out: the statement may not have reached the server yet.
        watch.kill(SessionCanceller.Ending.INTERRUPT, killed - KILL_AGAIN_NANOS);
        assertThat(kills.sentTo(NO_SUCH_SESSION)).isEqualTo(1);
        watch.kill(SessionCanceller.Ending.INTERRUPT, killed + KILL_AGAIN_NANOS);

        assertThat(kills.sentTo(NO_SUCH_SESSION)).isEqualTo(2);
        assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
    }

    @Test
    void aClosedWatchIsNeverKilledAndItsEndingCanBeReadFromAnyThread() throws Exception {
        SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), in5s());
        watch.close();

        watch.kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());

        assertThat(kills.opened.get()).isZero();
        // The lock's thread reads it; a close or a read that kept the watch's guard would block every other thread.
        for (int reader = 0; reader < 2; reader++) {
            assertThat(CompletableFuture.supplyAsync(watch::ending, ThreadPerTask.EXECUTOR)
                            .get(5, TimeUnit.SECONDS))
                    .isNull();
        }
    }

    @Test
    void aCancellerWithAWatchNotDueSleepsBetweenLooksInsteadOfSpinning() throws Exception {
        Thread thread = startedCanceller(IDLE_POLLS);
        neverDue();

        // Only its timed sleep between looks shows as TIMED_WAITING; a canceller that spun would stay RUNNABLE.
        Await.until(
                "the canceller sleeps between looks",
                Duration.ofSeconds(5),
                () -> thread.getState() == Thread.State.TIMED_WAITING);
    }

    @Test
    void aCancellerWithoutWatchesParksUntilAWatchWakesIt() throws Exception {
        Thread thread = startedCanceller(1);
        Await.until("the canceller parks", Duration.ofSeconds(5), () -> thread.getState() == Thread.State.WAITING);

        SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), System.nanoTime());

        // Parked, it wakes for nothing but the watch: without it the kill would never go out.
        Await.until("the kill was sent", Duration.ofSeconds(5), () -> watch.ending() != null);
        watch.close();
    }

    @Test
    void aParkedCancellerEndsWhenClosed() throws Exception {
        Thread thread = startedCanceller(1);
        Await.until("the canceller parks", Duration.ofSeconds(5), () -> thread.getState() == Thread.State.WAITING);

        canceller.close();

        Await.until("the canceller thread ended", Duration.ofSeconds(5), () -> !thread.isAlive());
    }

    @Test
    void aCancellerClosedTwiceFromDifferentThreadsReturns() throws Exception {
        SessionCanceller.Watch watch = neverDue();
        watch.kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
        canceller.close();

        // An engine may be closed twice (its own close and the application's shutdown), not always on one thread.
        CompletableFuture.runAsync(canceller::close, ThreadPerTask.EXECUTOR).get(5, TimeUnit.SECONDS);

        assertThat(kills.last.isClosed()).isTrue();
    }

    @Test
    void aWatchIsDueAtItsDeadlineOrWhenItsThreadIsInterrupted() {
        long deadline = System.nanoTime() + TimeUnit.HOURS.toNanos(1);
        SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), deadline);
        watch.close(); // the canceller forgets it; its answers are computed all the same

        assertThat(watch.due(deadline - 1)).isNull();
        assertThat(watch.due(deadline)).isEqualTo(SessionCanceller.Ending.DEADLINE);
        assertThat(watch.due(deadline + 1)).isEqualTo(SessionCanceller.Ending.DEADLINE);
        Thread.currentThread().interrupt();
        try {
            assertThat(watch.due(deadline - 1)).isEqualTo(SessionCanceller.Ending.INTERRUPT);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aKilledStatementIsKilledAgainOnceItHasRunOnForThePause() {
        long killed = Long.MAX_VALUE - 10; // the clock's differences, not its values, count: wrapping included
        assertThat(SessionCanceller.tooSoonToKillAgain(killed, killed)).isTrue();
        assertThat(SessionCanceller.tooSoonToKillAgain(killed, killed + KILL_AGAIN_NANOS - 1))
                .isTrue();
        assertThat(SessionCanceller.tooSoonToKillAgain(killed, killed + KILL_AGAIN_NANOS))
                .isFalse();
        assertThat(SessionCanceller.tooSoonToKillAgain(100, 100 + KILL_AGAIN_NANOS - 1))
                .isTrue();
    }

    @Test
    void theCancellerIsWokenOnlyForADeadlineBeforeItWakesOrWhenItWillNotWake() {
        long wakesAt = 1_000_000;
        assertThat(SessionCanceller.wakesTooLate(wakesAt, wakesAt - 1)).isTrue();
        assertThat(SessionCanceller.wakesTooLate(wakesAt, wakesAt)).isFalse();
        assertThat(SessionCanceller.wakesTooLate(wakesAt, wakesAt + 1)).isFalse();
        assertThat(SessionCanceller.wakesTooLate(Long.MAX_VALUE, Long.MAX_VALUE))
                .isTrue();
        assertThat(SessionCanceller.wakesTooLate(Long.MAX_VALUE, 0)).isTrue();
    }

    @Test
    void aWatchIsLookedAtAgainAfterAPollOrAtItsDeadlineIfThatComesFirst() {
        long now = 5_000;
        assertThat(SessionCanceller.nextLook(SessionCanceller.Ending.DEADLINE, now - 1, now))
                .isEqualTo(POLL_NANOS);
        assertThat(SessionCanceller.nextLook(SessionCanceller.Ending.INTERRUPT, now + 10 * POLL_NANOS, now))
                .isEqualTo(POLL_NANOS);
        assertThat(SessionCanceller.nextLook(null, now + 7, now)).isEqualTo(7);
        assertThat(SessionCanceller.nextLook(null, now + 10 * POLL_NANOS, now)).isEqualTo(POLL_NANOS);
    }

    @Test
    void aWatchAddedDuringAScanIsDueBeforeTheCancellerWakesOnlyIfItsDeadlineFallsStrictlyBetween() {
        long now = 1_000;
        long until = 2_000;

        assertThat(SessionCanceller.dueBetween(List.of(), now, until)).isFalse();
        assertThat(SessionCanceller.dueBetween(watchesDueAt(now), now, until))
                .as("handled by the scan")
                .isFalse();
        assertThat(SessionCanceller.dueBetween(watchesDueAt(now + 1), now, until))
                .isTrue();
        assertThat(SessionCanceller.dueBetween(watchesDueAt(until - 1), now, until))
                .isTrue();
        assertThat(SessionCanceller.dueBetween(watchesDueAt(until), now, until))
                .as("the canceller wakes for it")
                .isFalse();
        assertThat(SessionCanceller.dueBetween(watchesDueAt(now - 5, until + 5, now + 500), now, until))
                .isTrue();
    }

    @Test
    void withoutWatchesTheCancellerPollsForAWhileThenParksAndAWatchStartsTheCountAgain() {
        SessionCanceller.Pacing pacing = new SessionCanceller.Pacing(IDLE_POLLS);
        for (int poll = 1; poll <= IDLE_POLLS; poll++) {
            assertThat(pacing.sleepNanos(SessionCanceller.Pacing.NO_WATCH))
                    .as("poll %d", poll)
                    .isEqualTo(POLL_NANOS);
        }
        assertThat(pacing.sleepNanos(SessionCanceller.Pacing.NO_WATCH)).isEqualTo(SessionCanceller.Pacing.PARK);
        assertThat(pacing.sleepNanos(SessionCanceller.Pacing.NO_WATCH)).isEqualTo(SessionCanceller.Pacing.PARK);

        // A watch: sleep until it wants a look, at least a nanosecond (its deadline was handled by the scan).
        assertThat(pacing.sleepNanos(7)).isEqualTo(7);
        assertThat(pacing.sleepNanos(0)).isEqualTo(1);
        assertThat(pacing.sleepNanos(-3)).isEqualTo(1);

        for (int poll = 1; poll <= IDLE_POLLS; poll++) {
            assertThat(pacing.sleepNanos(SessionCanceller.Pacing.NO_WATCH))
                    .as("poll %d", poll)
                    .isEqualTo(POLL_NANOS);
        }
        assertThat(pacing.sleepNanos(SessionCanceller.Pacing.NO_WATCH)).isEqualTo(SessionCanceller.Pacing.PARK);
    }

    /**
     * Replaces the test's canceller with one that parks after {@code idlePollsBeforeParking} empty polls.
     *
     * @return its thread
     */
    private Thread startedCanceller(int idlePollsBeforeParking) {
        canceller.close();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        canceller = new SessionCanceller(kills, idlePollsBeforeParking);
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals("bizlock-session-canceller") && !before.contains(thread))
                .findFirst()
                .orElseThrow();
    }

    /** A watch whose deadline is an hour away: only the test kills it. */
    private SessionCanceller.Watch neverDue() {
        return canceller.watch(new Session(connection, NO_SUCH_SESSION), System.nanoTime() + TimeUnit.HOURS.toNanos(1));
    }

    /** Closed watches with these deadlines: the canceller forgets them, {@code dueBetween} reads their deadlines. */
    private List<SessionCanceller.Watch> watchesDueAt(long... deadlines) {
        return Arrays.stream(deadlines)
                .mapToObj(deadline -> {
                    SessionCanceller.Watch watch = canceller.watch(new Session(connection, NO_SUCH_SESSION), deadline);
                    watch.close();
                    return watch;
                })
                .toList();
    }

    private static Session session(Statement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID)) {
            row.next();
            return new Session(statement.getConnection(), row.getLong(1));
        }
    }

    private static long in5s() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    }

    /**
     * Hands out kill connections without autocommit, counts the kills sent through them per connection id, and
     * remembers the thread that opened them; the next can be handed out failing its first statement, as a connection
     * the network dropped does, while still open on the client.
     */
    private static final class KillConnections extends DelegatingDataSource {

        final AtomicInteger opened = new AtomicInteger();
        final Map<Long, AtomicInteger> sent = new ConcurrentHashMap<>();
        volatile Connection first;
        volatile Connection last;
        volatile Thread openedOn;
        volatile boolean failNext;

        KillConnections(DataSource target) {
            super(target);
        }

        int sentTo(long connectionId) {
            AtomicInteger count = sent.get(connectionId);
            return count == null ? 0 : count.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            connection.setAutoCommit(false);
            opened.incrementAndGet();
            openedOn = Thread.currentThread();
            if (first == null) {
                first = connection;
            }
            last = connection;
            boolean failing = failNext;
            failNext = false;
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("createStatement")) {
                            if (failing) {
                                throw new SQLException("Connection reset (test)", "08S01");
                            }
                            return statement(connection.createStatement());
                        }
                        return invoke(connection, method, args);
                    });
        }

        /** A statement that counts each {@code KILL QUERY} it runs, by its connection id. */
        private Statement statement(Statement statement) {
            return (Statement) Proxy.newProxyInstance(
                    Statement.class.getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                        if (method.getName().equals("execute")
                                && args.length == 1
                                && args[0] instanceof String sql
                                && sql.startsWith("KILL QUERY ")) {
                            long id = Long.parseLong(sql.substring("KILL QUERY ".length()));
                            sent.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
                        }
                        return invoke(statement, method, args);
                    });
        }

        private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        }
    }
}
