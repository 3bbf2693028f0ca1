package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The session pool's accounting against a database that answers: what is lent, given back, discarded and reused, what
 * a full or closed pool says, and what a new session is set up with. Each test takes milliseconds; the pool's
 * behaviour when the database does not answer is {@link SessionPoolOpenTest}'s.
 */
@ExtendWith(TestDatabaseExtension.class)
class SessionPoolTest {

    private static final String PROPERTY = "bizlock.session.max-connections";
    private static final long FIVE_SECONDS = TimeUnit.SECONDS.toNanos(5);

    private DataSource plain;
    private SessionPool pool;

    @BeforeEach
    void plainConnections(TestDatabase database) {
        plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void aPoolOfFewerThanOneSessionIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> new SessionPool(plain, 0, PROPERTY, connection -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(PROPERTY + " must be at least 1, was 0");
    }

    @Test
    void heldSessionsAreCountedUntilGivenBackOrDiscarded() throws Exception {
        pool = pool(3);
        Session first = pool.borrow(in5s());
        Session second = pool.borrow(in5s());
        assertThat(pool.heldCount()).isEqualTo(2);
        assertThat(first.connection()).isNotSameAs(second.connection());

        pool.giveBack(first);
        assertThat(pool.heldCount()).isEqualTo(1);
        assertThat(first.connection().isClosed()).isFalse();

        pool.discard(second);
        assertThat(pool.heldCount()).isZero();
        assertThat(second.connection().isClosed()).isTrue();
    }

    @Test
    void theSessionGivenBackLastIsReusedFirstAndADiscardedOneNever() throws Exception {
        pool = pool(3);
        Session first = pool.borrow(in5s());
        Session second = pool.borrow(in5s());
        pool.giveBack(first);
        pool.giveBack(second);

        assertThat(pool.borrow(in5s())).isSameAs(second);
        assertThat(pool.borrow(in5s())).isSameAs(first);

        pool.discard(first);
        Session fresh = pool.borrow(in5s());
        assertThat(fresh).isNotSameAs(first).isNotSameAs(second);
    }

    @Test
    void aNewSessionIsSetUpKnowsItsConnectionIdAndHasTheStatementTimeoutAsReadTimeout() throws Exception {
        pool = new SessionPool(plain, 1, PROPERTY, connection -> connection.setAutoCommit(false));
        Session session = pool.borrow(in5s());

        assertThat(session.connection().getAutoCommit()).isFalse();
        assertThat(session.connection().getNetworkTimeout()).isEqualTo((int) SessionPool.STATEMENT_TIMEOUT.toMillis());
        try (Statement statement = session.connection().createStatement();
                ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID)) {
            row.next();
            assertThat(session.connectionId()).isEqualTo(row.getLong(1)).isPositive();
        }
    }

    @Test
    void aReusedSessionForgetsTheLockItHeldBefore() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        Object grant = new Object();
        session.guard().lock();
        try {
            session.holdFor(grant);
            session.markUnanswered();
            session.markDone();
        } finally {
            session.guard().unlock();
        }
        pool.giveBack(session);

        Session reused = pool.borrow(in5s());
        assertThat(reused).isSameAs(session);
        assertThat(reused.unanswered()).isFalse();
        assertThat(reused.heldBy(grant)).isFalse();
        assertThat(reused.heldBy(null)).isTrue();
        // Reset under the guard, then freed: the borrower's thread and the watchdog take turns on it.
        assertThat(reused.guard().isLocked()).isFalse();
    }

    @Test
    void aFullPoolFailsAtItsDeadlineNamingTheSettingAndFreesNothing() throws Exception {
        pool = pool(2);
        pool.borrow(in5s());
        pool.borrow(in5s());

        assertThatThrownBy(() -> pool.borrow(System.nanoTime() - FIVE_SECONDS))
                .isInstanceOf(TransientDataAccessResourceException.class)
                .hasMessage("All 2 bizlock session connections stayed held by locks throughout the wait (0 ms); raise "
                        + PROPERTY + ", hold fewer ROW/NAMED locks at once, or wait longer");
        assertThat(pool.heldCount()).isEqualTo(2);
    }

    @Test
    void aFullPoolWaitsForASessionGivenBackDuringTheWait() throws Exception {
        pool = pool(1);
        Session held = pool.borrow(in5s());
        CompletableFuture<Session> waiting = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return pool.borrow(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);

        pool.giveBack(held);

        assertThat(waiting.get(30, TimeUnit.SECONDS)).isSameAs(held);
        assertThat(pool.heldCount()).isEqualTo(1);
    }

    @Test
    void aFailedOpenIsReportedWithTheDriversMessageClosesWhatItOpenedAndFreesItsPlace() throws Exception {
        OpenedConnections sessions = new OpenedConnections(plain);
        pool = new SessionPool(sessions, 1, PROPERTY, connection -> {
            throw new SQLException("setup refused");
        });

        assertThatThrownBy(() -> pool.borrow(in5s()))
                .isInstanceOf(DataAccessResourceFailureException.class)
                .hasMessage("bizlock could not open a session connection for a ROW/NAMED lock: setup refused")
                .hasCauseInstanceOf(SQLException.class);
        assertThat(sessions.last.isClosed()).isTrue();
        assertThat(pool.heldCount()).isZero();
    }

    @Test
    void aRuntimeFailureOfTheDataSourceIsPassedOnAsItIs() {
        IllegalStateException failure = new IllegalStateException("no route");
        pool = new SessionPool(failing(failure), 1, PROPERTY, connection -> {});

        assertThatThrownBy(() -> pool.borrow(in5s())).isSameAs(failure);
        assertThat(pool.heldCount()).isZero();
    }

    @Test
    void anErrorOfTheDataSourceIsPassedOnAsItIs() {
        AssertionError failure = new AssertionError("broken driver");
        pool = new SessionPool(failing(failure), 1, PROPERTY, connection -> {});

        assertThatThrownBy(() -> pool.borrow(in5s())).isSameAs(failure);
        assertThat(pool.heldCount()).isZero();
    }

    @Test
    void anIdleSessionWhoseConnectionDiedIsClosedAndReplaced() throws Exception {
        pool = pool(1);
        Session dead = pool.borrow(in5s());
        pool.giveBack(dead);
        killFromOutside(dead);
        dead.idleSinceNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);

        Session session = pool.borrow(in5s());

        assertThat(session).isNotSameAs(dead);
        assertThat(dead.connection().isClosed()).isTrue();
        assertThat(session.connection().isValid(5)).isTrue();
    }

    @Test
    void anIdleSessionThatStillAnswersIsReusedAfterItsCheck() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        pool.giveBack(session);
        session.idleSinceNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);

        assertThat(pool.borrow(in5s())).isSameAs(session);
    }

    @Test
    void anIdleSessionRecentlyUsedIsReusedWithoutACheck() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        pool.giveBack(session);
        // A dead connection is only noticed by the check: without one, it is lent as it is.
        killFromOutside(session);

        assertThat(pool.borrow(in5s())).isSameAs(session);
    }

    @Test
    void anIdleSessionWithNoTimeLeftForItsCheckStaysIdle() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        pool.giveBack(session);
        session.idleSinceNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);

        assertThatThrownBy(() -> pool.borrow(System.nanoTime() - TimeUnit.SECONDS.toNanos(2)))
                .isInstanceOf(TransientDataAccessResourceException.class)
                .hasMessageContaining("could not check a session connection");
        assertThat(pool.heldCount()).isZero();
        assertThat(session.connection().isClosed()).isFalse();
        assertThat(pool.borrow(in5s())).isSameAs(session);
    }

    @Test
    void aClosedPoolLendsNothingAndClosesIdleHeldAndReturnedSessions() throws Exception {
        pool = pool(3);
        Session idle = pool.borrow(in5s());
        Session held = pool.borrow(in5s());
        Session returnedLate = pool.borrow(in5s());
        pool.giveBack(idle);

        pool.close();

        assertThat(idle.connection().isClosed()).isTrue();
        assertThat(held.connection().isClosed()).isTrue();
        assertThatThrownBy(() -> pool.borrow(in5s()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("The bizlock session pool is closed");
        pool.giveBack(returnedLate);
        assertThat(returnedLate.connection().isClosed()).isTrue();
        assertThat(pool.heldCount()).isEqualTo(1);
    }

    @Test
    void aClosedPoolWithEverySessionHeldSaysItIsClosedAtOnce() throws Exception {
        pool = pool(1);
        pool.borrow(in5s());
        pool.close();

        // Not "all sessions stayed held" after waiting for one: closed is why nothing is lent.
        assertThatThrownBy(() -> pool.borrow(in5s()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("The bizlock session pool is closed");
    }

    @Test
    void aSessionKeepsEachStatementForReuseAndClosesTheLeastRecentlyUsedPastSixteen() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        PreparedStatement first = session.prepare("SELECT 0");
        assertThat(session.prepare("SELECT 0")).isSameAs(first);
        PreparedStatement second = session.prepare("SELECT 1");
        for (int i = 2; i < 16; i++) {
            session.prepare("SELECT " + i);
        }
        session.prepare("SELECT 0"); // now the most recently used
        assertThat(first.isClosed()).isFalse();
        assertThat(second.isClosed()).isFalse();

        session.prepare("SELECT 16");

        assertThat(second.isClosed()).isTrue();
        assertThat(first.isClosed()).isFalse();
        PreparedStatement again = session.prepare("SELECT 1");
        assertThat(again).isNotSameAs(second);
        assertThat(again.isClosed()).isFalse();
    }

    @Test
    void eachStatementPastSixteenEvictsTheNextLeastRecentlyUsed() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        List<PreparedStatement> statements = new ArrayList<>();
        for (int i = 0; i < 18; i++) {
            statements.add(session.prepare("SELECT " + i));
        }

        // Two past sixteen: the two oldest are closed, each once, and forgotten; the rest are kept.
        assertThat(statements.get(0).isClosed()).isTrue();
        assertThat(statements.get(1).isClosed()).isTrue();
        for (int i = 2; i < 18; i++) {
            assertThat(statements.get(i).isClosed()).as("SELECT %d", i).isFalse();
            assertThat(session.prepare("SELECT " + i)).isSameAs(statements.get(i));
        }
        // Prepared under the guard, and freed: the watchdog's heartbeat takes it on another thread.
        assertThat(session.guard().isLocked()).isFalse();
    }

    @Test
    void aClosedStatementIsPreparedAgain() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());
        PreparedStatement statement = session.prepare("SELECT 1");
        statement.close();

        PreparedStatement again = session.prepare("SELECT 1");

        assertThat(again).isNotSameAs(statement);
        assertThat(again.isClosed()).isFalse();
    }

    @Test
    void aSessionsReadTimeoutIsClampedToWhatTheDriverTakes() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());

        session.readTimeout(-5);
        assertThat(session.connection().getNetworkTimeout()).isZero();
        session.readTimeout(Long.MAX_VALUE);
        assertThat(session.connection().getNetworkTimeout()).isEqualTo(Integer.MAX_VALUE);
        session.readTimeout(1234);
        assertThat(session.connection().getNetworkTimeout()).isEqualTo(1234);
    }

    @Test
    void aNewSessionHasSetNoWaitsAndNamesItsConnection() throws Exception {
        pool = pool(1);
        Session session = pool.borrow(in5s());

        assertThat(session.lockWaitSeconds()).isEqualTo(-1);
        assertThat(session.silentSeconds()).isEqualTo(-1);
        assertThat(session).hasToString("Session[connection id " + session.connectionId() + "]");
        session.lockWaitSeconds(3);
        session.silentSeconds(4);
        assertThat(session.lockWaitSeconds()).isEqualTo(3);
        assertThat(session.silentSeconds()).isEqualTo(4);
    }

    @Test
    void thePoolOpensOnDaemonThreadsThatEndWhenItCloses() throws Exception {
        OpenedConnections sessions = new OpenedConnections(plain);
        pool = new SessionPool(sessions, 1, PROPERTY, connection -> {});
        pool.giveBack(pool.borrow(in5s()));
        Thread opener = sessions.openedOn;

        // An open left hanging on a silent network must not keep the application's JVM alive.
        assertThat(opener.getName()).isEqualTo("bizlock-session-open");
        assertThat(opener.isDaemon()).isTrue();
        assertThat(opener).isNotSameAs(Thread.currentThread());

        pool.close();

        // Idle threads of an open pool live on for a minute, waiting for the next open.
        Await.until("the opener thread ended", Duration.ofSeconds(10), () -> !opener.isAlive());
    }

    @Test
    void aPoolClosedWhileAnOpenIsUnderWayClosesWhatTheOpenBringsAndLendsNothing() throws Exception {
        GatedDataSource gated = new GatedDataSource(plain);
        pool = new SessionPool(gated, 1, PROPERTY, connection -> {});
        CompletableFuture<Session> borrowing = borrowAsync(in5s());
        assertThat(gated.entered.await(5, TimeUnit.SECONDS)).isTrue();

        pool.close();
        gated.gate.countDown();

        assertThatThrownBy(() -> borrowing.get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The bizlock session pool is closed");
        // close() did not see it: the borrower closed it on its way out.
        assertThat(gated.opened.isClosed()).isTrue();
        assertThat(pool.heldCount()).isZero();
    }

    @Test
    void anOpenThatSucceedsAfterItsCallerGaveUpIsKeptForTheNextCaller() throws Exception {
        GatedDataSource gated = new GatedDataSource(plain);
        pool = new SessionPool(gated, 1, PROPERTY, connection -> {});

        assertThatThrownBy(() -> pool.borrow(givingUpIn100ms()))
                .isInstanceOf(TransientDataAccessResourceException.class)
                .hasMessageContaining("could not open a session connection");
        assertThat(pool.heldCount())
                .as("the open still holds the caller's place")
                .isEqualTo(1);
        gated.gate.countDown();
        Await.until("the late open gave its place back", Duration.ofSeconds(5), () -> pool.heldCount() == 0);

        Session next = pool.borrow(in5s());
        assertThat(next.connection()).isSameAs(gated.opened);
        assertThat(gated.calls.get()).isEqualTo(1);
    }

    @Test
    void anOpenThatFailsAfterItsCallerGaveUpGivesThePlaceBack() throws Exception {
        GatedDataSource gated = new GatedDataSource(plain);
        gated.failure = new SQLException("Connection refused (test)", "08001");
        pool = new SessionPool(gated, 1, PROPERTY, connection -> {});

        assertThatThrownBy(() -> pool.borrow(givingUpIn100ms()))
                .isInstanceOf(TransientDataAccessResourceException.class);
        assertThat(pool.heldCount()).isEqualTo(1);
        gated.gate.countDown();

        Await.until("the failed open gave its place back", Duration.ofSeconds(5), () -> pool.heldCount() == 0);
    }

    @Test
    void anIdleSessionWhoseCheckFailsIsClosedAndReplaced() throws Exception {
        pool = new SessionPool(
                new Checked(plain, () -> {
                    throw new SQLException("Could not send the check (test)", "08S01");
                }),
                1,
                PROPERTY,
                connection -> {});
        Session failing = pool.borrow(in5s());
        pool.giveBack(failing);
        failing.idleSinceNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);

        Session session = pool.borrow(in5s());

        assertThat(session).isNotSameAs(failing);
        // Still open on the client until the pool closed it.
        assertThat(failing.connection().isClosed()).isTrue();
        assertThat(session.connection().isClosed()).isFalse();
    }

    @Test
    void aPoolClosedWhileAnIdleSessionIsCheckedLendsNothing() throws Exception {
        CountDownLatch checking = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        pool = new SessionPool(
                new Checked(plain, () -> {
                    checking.countDown();
                    return !answer.await(30, TimeUnit.SECONDS); // false: the session died during the check
                }),
                1,
                PROPERTY,
                connection -> {});
        Session idle = pool.borrow(in5s());
        pool.giveBack(idle);
        idle.idleSinceNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(2);
        CompletableFuture<Session> borrowing = borrowAsync(in5s());
        assertThat(checking.await(5, TimeUnit.SECONDS)).isTrue();

        pool.close();
        answer.countDown();

        // Not the opener's refusal to start an open: the pool says why.
        assertThatThrownBy(() -> borrowing.get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The bizlock session pool is closed");
        assertThat(idle.connection().isClosed()).isTrue();
        assertThat(pool.heldCount()).isZero();
    }

    @Test
    void anAcquisitionInterruptedWhileItsSessionIsOpenedIsInterruptedAndTheOpenKeepsItsPlace() throws Exception {
        GatedDataSource gated = new GatedDataSource(plain);
        pool = new SessionPool(gated, 1, PROPERTY, connection -> {});
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread borrower = new Thread(
                () -> {
                    try {
                        pool.borrow(in5s());
                        failure.complete(null);
                    } catch (Throwable ex) {
                        failure.complete(ex);
                    }
                },
                "test-borrower");
        borrower.setDaemon(true);
        borrower.start();
        assertThat(gated.entered.await(5, TimeUnit.SECONDS)).isTrue();

        borrower.interrupt();

        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(pool.heldCount())
                .as("the open goes on with the caller's place")
                .isEqualTo(1);
        gated.gate.countDown();
        Await.until("the late open gave its place back", Duration.ofSeconds(5), () -> pool.heldCount() == 0);
    }

    private CompletableFuture<Session> borrowAsync(long deadlineNanos) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return pool.borrow(deadlineNanos);
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
    }

    /** A deadline whose grace for an open ends 100 ms from now. */
    private static long givingUpIn100ms() {
        return System.nanoTime() - SessionPool.OPEN_GRACE.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
    }

    private SessionPool pool(int maxSessions) {
        return new SessionPool(plain, maxSessions, PROPERTY, connection -> {});
    }

    private static long in5s() {
        return System.nanoTime() + FIVE_SECONDS;
    }

    /** Ends the session's connection behind the pool's back, as a driver that saw the socket fail would. */
    private static void killFromOutside(Session session) throws SQLException {
        session.connection().close();
    }

    /** Opens a connection only once the test opens the gate (or fails then): an open under way for as long as needed. */
    private static final class GatedDataSource extends DelegatingDataSource {

        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        volatile SQLException failure;
        volatile Connection opened;

        GatedDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            calls.incrementAndGet();
            entered.countDown();
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new SQLException("The test never opened the gate");
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new SQLException(ex);
            }
            if (failure != null) {
                throw failure;
            }
            opened = super.getConnection();
            return opened;
        }
    }

    /** What a connection's {@code isValid} answers. */
    @FunctionalInterface
    private interface Check {
        boolean isValid() throws Exception;
    }

    /** Hands out connections whose {@code isValid} answers as the test says. */
    private static final class Checked extends DelegatingDataSource {

        private final Check check;

        Checked(DataSource target, Check check) {
            super(target);
            this.check = check;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("isValid")) {
                            return check.isValid();
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }
    }

    private static DataSource failing(Throwable failure) {
        return new DelegatingDataSource(new DriverManagerDataSource()) {
            @Override
            public Connection getConnection() {
                if (failure instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw (Error) failure;
            }
        };
    }
}
