package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.GaleraDialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The session engine with its SQL steps scripted: what the acquire loop makes of each
 * outcome, how a release and a heartbeat read their step's answer, and what happens to the session each time. The
 * sessions are real connections; nothing here waits, so each test takes milliseconds. The real steps are tested by
 * {@code RowLockTest} and {@code NamedLockTest}.
 */
@ExtendWith(TestDatabaseExtension.class)
class SessionLockEngineTest {

    private static final LockKey KEY = new LockKey("order", "42");
    private static final Duration LEASE = Duration.ofSeconds(3);

    private LockDaos dao;
    private OpenedConnections plain;
    private ScriptedSteps steps;
    private SessionLockEngine engine;

    @BeforeEach
    void engine(TestDatabase database) {
        dao = LockFixture.daos(database.dataSource());
        plain = new OpenedConnections(
                new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password()));
        steps = new ScriptedSteps();
        engine = engine(dao, Duration.ofSeconds(1));
    }

    private SessionLockEngine engine(LockDaos dao, Duration heartbeat) {
        return new SessionLockEngine(dao.dialect(), plain, 2, "owner", heartbeat, steps);
    }

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aHeartbeatThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> engine(dao, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bizlock.session.heartbeat must be positive");
        assertThatThrownBy(() -> engine(dao, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHeldSessionIsCheckedEveryHeartbeatOrEveryThirdOfAShorterLease() {
        assertThat(engine.renewalInterval(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(1));
        assertThat(engine.renewalInterval(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(1));
        assertThat(engine.renewalInterval(Duration.ofMillis(600))).isEqualTo(Duration.ofMillis(200));
        assertThat(engine.fixedLease(Duration.ofSeconds(5))).isNull();
        assertThat(engine.mode()).isEqualTo(LockMode.NAMED);
        assertThat(engine.boundsRelease()).isTrue();
    }

    @Test
    void anAcquiredLockKeepsItsSessionAndTellsTheServerToEndItAfterTwoSilentLeases() throws Exception {
        steps.outcomes(Outcome.ACQUIRED);

        Grant grant = engine.acquire(KEY, LEASE, 0, in5s());

        assertThat(grant).isInstanceOf(SessionGrant.class);
        assertThat(grant.key()).isEqualTo(KEY);
        Session session = ((SessionGrant) grant).session();
        assertThat(session.heldBy(grant)).isTrue();
        assertThat(engine.heldSessions()).isEqualTo(1);
        assertThat(session.silentSeconds()).isEqualTo(6);
        assertThat(queryLong(session, "SELECT @@SESSION.wait_timeout")).isEqualTo(6);
    }

    @Test
    void theSilentSessionTimeoutIsSetOncePerSession() throws Exception {
        steps.outcomes(Outcome.ACQUIRED);
        Grant grant = engine.acquire(KEY, LEASE, 0, in5s());
        Session session = ((SessionGrant) grant).session();
        assertThat(engine.release(grant)).isNull();
        // Changed behind the engine's back: the engine trusts what it set last, and does not set it again.
        execute(session, "SET SESSION wait_timeout = 100");

        steps.outcomes(Outcome.ACQUIRED);
        Grant again = engine.acquire(KEY, LEASE, 0, in5s());

        assertThat(((SessionGrant) again).session()).isSameAs(session);
        assertThat(queryLong(session, "SELECT @@SESSION.wait_timeout")).isEqualTo(100);
    }

    @Test
    void aBusyLockIsTriedAgainUntilTheDeadlineAndThenGivesTheSessionBack() throws Exception {
        steps.outcomes(Outcome.BUSY, Outcome.RETRY, Outcome.ACQUIRED);
        assertThat(engine.acquire(KEY, LEASE, 0, in5s())).isNotNull();
        assertThat(steps.attempts).isEqualTo(3);

        steps.attempts = 0;
        steps.outcomes(Outcome.BUSY, Outcome.ACQUIRED);
        assertThat(engine.acquire(KEY, LEASE, 0, System.nanoTime() - 1)).isNull();
        assertThat(steps.attempts).isEqualTo(1);
        assertThat(engine.heldSessions()).isEqualTo(1);
    }

    @Test
    void aWaitEndedAtTheDeadlineIsNotAcquiredAndGivesTheSessionBack() throws Exception {
        steps.outcomes(Outcome.DEADLINE, Outcome.ACQUIRED);

        assertThat(engine.acquire(KEY, LEASE, 0, in5s())).isNull();
        assertThat(steps.attempts).isEqualTo(1);
        assertThat(engine.heldSessions()).isZero();
        assertThat(steps.lastSession.connection().isClosed()).isFalse();
    }

    @Test
    void aWaitEndedForAnInterruptThrowsAndClearsTheInterrupt() throws Exception {
        steps.outcomes(Outcome.INTERRUPTED);
        steps.interruptWithOutcome = true; // the thread was interrupted, and the canceller ended its wait

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s()))
                .isInstanceOf(InterruptedException.class)
                .hasMessageContaining("order");
        assertThat(Thread.interrupted()).isFalse();
        assertThat(engine.heldSessions()).isZero();
    }

    @Test
    void anInterruptBeforeAnAttemptThrowsWithoutTrying() {
        steps.outcomes(Outcome.ACQUIRED);
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s())).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(steps.attempts).isZero();
        assertThat(engine.heldSessions()).isZero();
    }

    @Test
    void aFailedAttemptDiscardsItsSessionAndNamesTheLockStatement() throws Exception {
        steps.failure = new SQLException("Deadlock found", "40001", 1213);

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s()))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("GET_LOCK for order/42");
        assertThat(engine.heldSessions()).isZero();
        assertThat(steps.lastSession.connection().isClosed()).isTrue();
    }

    @Test
    void aFailedAttemptOfAnInterruptedThreadIsAnInterrupt() throws Exception {
        steps.failure = new SQLException("socket closed");
        steps.interruptOnFailure = true;

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s()))
                .isInstanceOf(InterruptedException.class)
                .hasCauseInstanceOf(SQLException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(steps.lastSession.connection().isClosed()).isTrue();
    }

    @Test
    void aRuntimeFailureOfAnAttemptDiscardsTheSession() throws Exception {
        steps.runtimeFailure = new IllegalStateException("reconnected");

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s())).isSameAs(steps.runtimeFailure);
        assertThat(engine.heldSessions()).isZero();
        assertThat(steps.lastSession.connection().isClosed()).isTrue();
    }

    @Test
    void noSessionLeftIsAnAcquisitionFailureNamingTheSetting() throws Exception {
        acquired(); // the engine's two sessions
        acquired(new LockKey("order", "43"));

        assertThatThrownBy(() -> engine.acquire(new LockKey("order", "44"), LEASE, 0, System.nanoTime()))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("bizlock.session.max-connections");
    }

    @Test
    void aReleaseTheSessionConfirmsGivesTheSessionBackForReuse() throws Exception {
        Grant grant = acquired();
        Session session = ((SessionGrant) grant).session();

        assertThat(engine.release(grant)).isNull();

        assertThat(engine.heldSessions()).isZero();
        assertThat(session.connection().isClosed()).isFalse();
        assertThat(session.connection().getNetworkTimeout()).isEqualTo((int) SessionPool.STATEMENT_TIMEOUT.toMillis());
        assertThat(steps.unlockReadTimeout).isEqualTo((int) LockEngine.RELEASE_TIMEOUT.toMillis());
    }

    @Test
    void aSecondReleaseIsReportedAndLeavesTheSessionAlone() throws Exception {
        Grant grant = acquired();
        engine.release(grant);
        steps.unlocks = 0;

        Loss loss = engine.release(grant);

        assertThat(loss.cause()).isEqualTo(LossCause.UNKNOWN);
        assertThat(steps.unlocks).isZero();
    }

    @Test
    void aReleaseTheSessionDoesNotConfirmIsASessionThatEndedAndClosesIt() throws Exception {
        Grant grant = acquired();
        steps.unlockAnswer = false;

        Loss loss = engine.release(grant);

        assertThat(loss.cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(engine.heldSessions()).isZero();
        assertThat(((SessionGrant) grant).session().connection().isClosed()).isTrue();
    }

    @Test
    void aReleaseThatFailedIsASessionThatEnded() throws Exception {
        Grant grant = acquired();
        steps.failure = new SQLException("Connection killed");

        Loss loss = engine.release(grant);

        assertThat(loss.cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(engine.heldSessions()).isZero();
    }

    @Test
    void aReleaseThatTimedOutThrowsAndClosesTheSession() throws Exception {
        Grant grant = acquired();
        steps.failure = new SQLTimeoutException("read timed out");

        assertThatThrownBy(() -> engine.release(grant))
                .isInstanceOf(QueryTimeoutException.class)
                .hasMessageContaining("did not answer within 2000 ms");
        assertThat(engine.heldSessions()).isZero();
        assertThat(((SessionGrant) grant).session().connection().isClosed()).isTrue();
    }

    @Test
    void aReleaseAfterAHeartbeatGotNoAnswerThrowsWithoutSendingIt() throws Exception {
        Grant grant = acquired();
        steps.failure = new SQLTimeoutException("read timed out");
        assertThat(engine.renew(List.of(grant)).get(grant).cause()).isEqualTo(LossCause.UNREACHABLE);
        steps.failure = null;

        assertThatThrownBy(() -> engine.release(grant)).isInstanceOf(QueryTimeoutException.class);
        assertThat(steps.unlocks).isZero();
        assertThat(engine.heldSessions()).isZero();
    }

    @Test
    void aReleaseOfAnInterruptedThreadRunsWithTheInterruptClearedAndRestoresIt() throws Exception {
        Grant grant = acquired();
        Thread.currentThread().interrupt();

        assertThat(engine.release(grant)).isNull();

        assertThat(steps.interruptedInUnlock).isFalse();
        assertThat(Thread.interrupted()).isTrue();
    }

    @Test
    void aHeartbeatReportsOnlyTheGrantsWhoseSessionNoLongerHoldsTheLock() throws Exception {
        Grant held = acquired();
        Grant lost = acquired(new LockKey("order", "43"));
        steps.notHolding = ((SessionGrant) lost).session();

        Map<Grant, Loss> gone = engine.renew(List.of(held, lost));

        assertThat(gone).containsOnlyKeys(lost);
        assertThat(gone.get(lost).cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(((SessionGrant) held).session().connection().getNetworkTimeout())
                .isEqualTo((int) SessionPool.STATEMENT_TIMEOUT.toMillis());
        assertThat(steps.heartbeatReadTimeout).isEqualTo((int) LockEngine.RELEASE_TIMEOUT.toMillis());
    }

    @Test
    void aHeartbeatThatFailedReportsTheSessionEndedWithoutMarkingItUnanswered() throws Exception {
        Grant grant = acquired();
        steps.failure = new SQLException("Connection killed");

        Map<Grant, Loss> gone = engine.renew(List.of(grant));

        assertThat(gone.get(grant).cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(((SessionGrant) grant).session().unanswered()).isFalse();
    }

    @Test
    void aHeartbeatWhoseReadTimedOutInTheDriverIsUnreachableAndNamesOnlyTheErrorsFirstLine() throws Exception {
        Grant grant = acquired();
        // Connector/J wraps the socket's time-out, and adds lines of advice to the message.
        steps.failure = new SQLException(
                "Communications link failure\n\nThe last packet was received 2,001 ms ago.",
                "08S01",
                new SocketTimeoutException("Read timed out"));

        Loss loss = engine.renew(List.of(grant)).get(grant);

        assertThat(loss.cause()).isEqualTo(LossCause.UNREACHABLE);
        assertThat(loss.reason())
                .contains("did not answer in time (java.sql.SQLException: Communications link failure)")
                .doesNotContain("last packet");
        assertThat(((SessionGrant) grant).session().unanswered()).isTrue();
    }

    @Test
    void aHeartbeatSkipsAGrantReleasedSinceItWasCollected() throws Exception {
        Grant grant = acquired();
        engine.release(grant);
        steps.failure = new SQLException("would be a loss");

        assertThat(engine.renew(List.of(grant))).isEmpty();
        assertThat(steps.heartbeats).isZero();
    }

    @Test
    void releaseAllClosesTheSessionsStillHeldAndSkipsReleasedOnes() throws Exception {
        Grant held = acquired();
        Grant released = acquired(new LockKey("order", "43"));
        engine.release(released);

        engine.releaseAll(List.of(held, released));

        assertThat(((SessionGrant) held).session().connection().isClosed()).isTrue();
        assertThat(((SessionGrant) released).session().connection().isClosed()).isFalse();
        assertThat(engine.heldSessions()).isZero();
        assertThat(((SessionGrant) held).session().heldBy(held)).isFalse();
    }

    @Test
    void tokensAreIssuedOnlyWhileTheSessionHoldsTheLockAndKeepTheInterrupt() throws Exception {
        Grant grant = acquired();
        Thread.currentThread().interrupt();
        assertThat(engine.issueTokens(grant, 3)).isEqualTo(3);
        assertThat(Thread.interrupted()).isTrue();

        engine.release(grant);
        assertThatThrownBy(() -> engine.issueTokens(grant, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was released");

        Grant other = acquired();
        steps.failure = new SQLException("token table gone");
        assertThatThrownBy(() -> engine.issueTokens(other, 1))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("issuing fencing tokens for");
    }

    @Test
    void aGrantOfAnotherEngineIsRefused() {
        Grant foreign = new Grant() {
            @Override
            public LockKey key() {
                return KEY;
            }

            @Override
            public String owner() {
                return "x";
            }

            @Override
            public Duration lease() {
                return LEASE;
            }

            @Override
            public long sentNanos() {
                return 0;
            }
        };

        assertThatThrownBy(() -> engine.release(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was not made by a session engine");
    }

    @Test
    void aSessionThatReportsAnotherConnectionIdReconnectedAndIsRefused() throws Exception {
        Grant grant = acquired();
        Session session = ((SessionGrant) grant).session();

        session.requireSameConnection(session.connectionId());
        assertThatThrownBy(() -> session.requireSameConnection(session.connectionId() + 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reconnected");
        assertThat(Outcome.endedBy(SessionCanceller.Ending.DEADLINE)).isEqualTo(Outcome.DEADLINE);
        assertThat(Outcome.endedBy(SessionCanceller.Ending.INTERRUPT)).isEqualTo(Outcome.INTERRUPTED);
    }

    @Test
    void aClosedEngineClosesItsSessions() throws Exception {
        Grant grant = acquired();

        engine.close();

        assertThat(((SessionGrant) grant).session().connection().isClosed()).isTrue();
    }

    @Test
    void onAClusterWhereEveryNodeTakesWritesAnAcquisitionIsRefusedBeforeItBorrowsASession(TestDatabase database) {
        LockDaos galera = LockDaos.of(
                database.dataSource(),
                new DataSourceTransactionManager(database.dataSource()),
                GaleraDialects.mariaDbNode(TableName.DEFAULT));
        try (SessionLockEngine refused = engine(galera, Duration.ofSeconds(1))) {
            steps.outcomes(Outcome.ACQUIRED);

            assertThatThrownBy(refused::requireAllowedHere)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bizlock refuses NAMED locks on this server")
                    .hasMessageContaining("GET_LOCK");
            assertThatThrownBy(() -> refused.acquire(KEY, LEASE, 0, in5s()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bizlock refuses NAMED locks on this server");
            assertThat(steps.attempts).isZero();
            assertThat(plain.opened.get()).isZero();
        }
        engine.requireAllowedHere(); // a server on its own: allowed
    }

    @Test
    void anInterruptAfterABusyAttemptEndsTheWaitWithoutAnotherAttempt() throws Exception {
        steps.outcomes(Outcome.BUSY, Outcome.ACQUIRED);
        steps.interruptWithOutcome = true; // interrupted while the busy attempt ran

        assertThatThrownBy(() -> engine.acquire(KEY, LEASE, 0, in5s()))
                .isInstanceOf(InterruptedException.class)
                .hasMessageContaining("order");
        assertThat(steps.attempts).isEqualTo(1);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(engine.heldSessions()).isZero();
    }

    /**
     * The holder's thread and the watchdog take turns on a session's guard: a step that kept it would hold up the
     * other thread for good. A re-lock on the same thread would succeed, so the guard's state is asserted.
     */
    @Test
    void everyStepOnAHeldSessionLeavesItsGuardFree() throws Exception {
        Grant grant = acquired();
        Session session = ((SessionGrant) grant).session();
        assertThat(session.guard().isLocked()).as("after the acquisition").isFalse();

        engine.issueTokens(grant, 1);
        assertThat(session.guard().isLocked()).as("after issuing tokens").isFalse();

        engine.renew(List.of(grant));
        assertThat(session.guard().isLocked()).as("after a heartbeat").isFalse();

        engine.release(grant);
        assertThat(session.guard().isLocked()).as("after the release").isFalse();

        engine.renew(List.of(grant));
        assertThat(session.guard().isLocked())
                .as("after a heartbeat of a released grant")
                .isFalse();

        Grant other = acquired();
        Session otherSession = ((SessionGrant) other).session();
        engine.releaseAll(List.of(other));
        assertThat(otherSession.guard().isLocked()).as("after releasing all").isFalse();
    }

    @Test
    void aWatchedStatementReadsForItsWaitPlusTheStatementTimeoutAndItsWatchEndsWithIt() throws Exception {
        Session session = ((SessionGrant) acquired()).session();
        long remaining = TimeUnit.SECONDS.toNanos(3);
        SessionCanceller.Watch[] seen = new SessionCanceller.Watch[1];
        int[] readTimeout = new int[1];

        Outcome outcome = steps.watched.run(session, in5s(), remaining, watch -> {
            seen[0] = watch;
            readTimeout[0] = session.connection().getNetworkTimeout();
            return Outcome.ACQUIRED;
        });

        assertThat(outcome).isEqualTo(Outcome.ACQUIRED);
        assertThat(readTimeout[0]).isEqualTo((int) SessionSupport.waitReadTimeoutMillis(remaining));
        assertThat(session.connection().getNetworkTimeout()).isEqualTo((int) SessionPool.STATEMENT_TIMEOUT.toMillis());
        // A closed watch cannot be killed: a kill now would end the session's next statement.
        seen[0].kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
        assertThat(seen[0].ending()).isNull();
    }

    @Test
    void aWatchedStatementThatFailedRestoresTheReadTimeoutAndEndsItsWatch() throws Exception {
        Session session = ((SessionGrant) acquired()).session();
        SessionCanceller.Watch[] seen = new SessionCanceller.Watch[1];
        SQLException failure = new SQLException("Deadlock found", "40001", 1213);

        assertThatThrownBy(() -> steps.watched.run(session, in5s(), TimeUnit.SECONDS.toNanos(3), watch -> {
                    seen[0] = watch;
                    throw failure;
                }))
                .isSameAs(failure);

        assertThat(session.connection().getNetworkTimeout()).isEqualTo((int) SessionPool.STATEMENT_TIMEOUT.toMillis());
        seen[0].kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
        assertThat(seen[0].ending()).isNull();
    }

    @Test
    void aWatchedStatementEndedByItsWatchIsAnEndedWaitAndOneEndedByAnotherKillIsAFailure() throws Exception {
        Session session = ((SessionGrant) acquired()).session();
        SQLException interrupted = new SQLException("Query execution was interrupted", "70100", 1317);

        // The watch's kill reaches the idle session and is dropped; the statement's error is what a kill gives.
        assertThat(steps.watched.run(session, in5s(), TimeUnit.SECONDS.toNanos(3), watch -> {
                    watch.kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
                    throw interrupted;
                }))
                .isEqualTo(Outcome.DEADLINE);
        assertThatThrownBy(() -> steps.watched.run(session, in5s(), TimeUnit.SECONDS.toNanos(3), watch -> {
                    throw interrupted;
                }))
                .isSameAs(interrupted);
        // Killed by the watch, but failed for another reason first: the failure counts.
        SQLException deadlock = new SQLException("Deadlock found", "40001", 1213);
        assertThatThrownBy(() -> steps.watched.run(session, in5s(), TimeUnit.SECONDS.toNanos(3), watch -> {
                    watch.kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
                    throw deadlock;
                }))
                .isSameAs(deadlock);
    }

    @Test
    void aClosedEngineAlsoClosesItsKillConnection() throws Exception {
        Session session = ((SessionGrant) acquired()).session();
        steps.watched.run(session, in5s(), TimeUnit.SECONDS.toNanos(3), watch -> {
            // Opens the canceller's kill connection; the idle session drops the kill.
            watch.kill(SessionCanceller.Ending.DEADLINE, System.nanoTime());
            return Outcome.DEADLINE;
        });
        Connection kill = plain.last;
        assertThat(kill).isNotSameAs(session.connection());
        assertThat(kill.isClosed()).isFalse();

        engine.close();

        assertThat(kill.isClosed()).isTrue();
    }

    private Grant acquired() throws InterruptedException {
        return acquired(KEY);
    }

    private Grant acquired(LockKey key) throws InterruptedException {
        steps.outcomes(Outcome.ACQUIRED);
        Grant grant = engine.acquire(key, LEASE, 0, in5s());
        assertThat(grant).isNotNull();
        return grant;
    }

    private static long in5s() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    }

    private static long queryLong(Session session, String sql) throws SQLException {
        try (Statement statement = session.connection().createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static void execute(Session session, String sql) throws SQLException {
        try (Statement statement = session.connection().createStatement()) {
            statement.execute(sql);
        }
    }

    /** Steps that answer as the test says, on real sessions. */
    private static final class ScriptedSteps implements SessionSteps {

        final Deque<Outcome> outcomes = new ArrayDeque<>();
        int attempts;
        int unlocks;
        int heartbeats;
        boolean unlockAnswer = true;
        boolean interruptOnFailure;
        boolean interruptWithOutcome;
        boolean interruptedInUnlock;
        int unlockReadTimeout;
        int heartbeatReadTimeout;
        SQLException failure;
        RuntimeException runtimeFailure;
        Session notHolding;
        Session lastSession;
        /** What the engine gave the last attempt to run its waits with. */
        WatchedStatements watched;

        void outcomes(Outcome... next) {
            outcomes.clear();
            outcomes.addAll(List.of(next));
        }

        @Override
        public LockMode mode() {
            return LockMode.NAMED;
        }

        @Override
        public String lockStatement() {
            return "GET_LOCK";
        }

        @Override
        public void prepare(Connection connection) {}

        @Override
        public Outcome lock(Session session, LockKey key, long deadlineNanos, WatchedStatements watched)
                throws SQLException {
            this.watched = watched;
            lastSession = session;
            attempts++;
            fail();
            if (interruptWithOutcome) {
                Thread.currentThread().interrupt();
            }
            return outcomes.removeFirst();
        }

        @Override
        public long issueTokens(Session session, Grant grant, int count) throws SQLException {
            return session.whileHeldBy(grant, () -> {
                fail();
                return (long) count;
            });
        }

        @Override
        public boolean stillHolds(Session session, Grant grant) throws SQLException {
            heartbeats++;
            heartbeatReadTimeout = session.connection().getNetworkTimeout();
            fail();
            return session != notHolding;
        }

        @Override
        public boolean unlock(Session session, Grant grant) throws SQLException {
            unlocks++;
            interruptedInUnlock = Thread.currentThread().isInterrupted();
            unlockReadTimeout = session.connection().getNetworkTimeout();
            fail();
            return unlockAnswer;
        }

        private void fail() throws SQLException {
            if (runtimeFailure != null) {
                throw runtimeFailure;
            }
            if (failure != null) {
                if (interruptOnFailure) {
                    Thread.currentThread().interrupt();
                }
                throw failure;
            }
        }
    }
}
