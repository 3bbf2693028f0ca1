package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The pure logic the ROW and NAMED engines share: wait arithmetic, the statements built from numbers, and how a failed
 * statement is told apart (session ended, or cut off from this process). No database: these run in microseconds.
 */
class SessionSupportTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_WAIT_SECONDS = TimeUnit.DAYS.toSeconds(24);

    @Test
    void ceilSecondsRoundsAPartSecondUpAndNeverAsksTheServerForLessThanOneSecond() {
        assertThat(SessionSupport.ceilSeconds(-SECOND)).isEqualTo(1);
        assertThat(SessionSupport.ceilSeconds(0)).isEqualTo(1);
        assertThat(SessionSupport.ceilSeconds(1)).isEqualTo(1);
        assertThat(SessionSupport.ceilSeconds(SECOND)).isEqualTo(1);
        assertThat(SessionSupport.ceilSeconds(SECOND + 1)).isEqualTo(2);
        assertThat(SessionSupport.ceilSeconds(2 * SECOND)).isEqualTo(2);
        assertThat(SessionSupport.ceilSeconds(7 * SECOND - 1)).isEqualTo(7);
    }

    @Test
    void ceilSecondsCapsAWaitWithoutEndAt24Days() {
        assertThat(SessionSupport.ceilSeconds(MAX_WAIT_SECONDS * SECOND)).isEqualTo(MAX_WAIT_SECONDS);
        assertThat(SessionSupport.ceilSeconds(MAX_WAIT_SECONDS * SECOND + 1)).isEqualTo(MAX_WAIT_SECONDS);
        assertThat(SessionSupport.ceilSeconds((MAX_WAIT_SECONDS - 1) * SECOND)).isEqualTo(MAX_WAIT_SECONDS - 1);
        assertThat(SessionSupport.ceilSeconds(Long.MAX_VALUE)).isEqualTo(MAX_WAIT_SECONDS);
    }

    @Test
    void aSilentSessionIsKeptForTwoLeasesInWholeSecondsAndAtLeastTwoSeconds() {
        assertThat(SessionSupport.silentSessionSeconds(Duration.ofMillis(100))).isEqualTo(2);
        assertThat(SessionSupport.silentSessionSeconds(Duration.ofSeconds(1))).isEqualTo(2);
        assertThat(SessionSupport.silentSessionSeconds(Duration.ofMillis(1500))).isEqualTo(3);
        assertThat(SessionSupport.silentSessionSeconds(Duration.ofMillis(1501))).isEqualTo(4);
        assertThat(SessionSupport.silentSessionSeconds(Duration.ofSeconds(30))).isEqualTo(60);
    }

    @Test
    void aWaitsReadTimeoutIsTheWaitPlusTheStatementTimeout() {
        long statementMillis = SessionPool.STATEMENT_TIMEOUT.toMillis();
        assertThat(SessionSupport.waitReadTimeoutMillis(0)).isEqualTo(statementMillis);
        assertThat(SessionSupport.waitReadTimeoutMillis(TimeUnit.MILLISECONDS.toNanos(1500)))
                .isEqualTo(statementMillis + 1500);
    }

    @Test
    void everyWaitHasAReadTimeoutTheDriverTakesThatCoversItsServerSideWait() {
        long statementMillis = SessionPool.STATEMENT_TIMEOUT.toMillis();
        // Up to ~24.8 days of milliseconds fit the driver's int; lock() waits without end.
        for (long waitNanos : new long[] {
            TimeUnit.DAYS.toNanos(24), TimeUnit.DAYS.toNanos(25), TimeUnit.DAYS.toNanos(365 * 200), Long.MAX_VALUE / 2
        }) {
            long serverWaitMillis = TimeUnit.SECONDS.toMillis(SessionSupport.ceilSeconds(waitNanos));
            assertThat(SessionSupport.waitReadTimeoutMillis(waitNanos))
                    .as("the read timeout of a wait of %d days", TimeUnit.NANOSECONDS.toDays(waitNanos))
                    .isPositive()
                    .isLessThanOrEqualTo(Integer.MAX_VALUE)
                    .isGreaterThanOrEqualTo(serverWaitMillis + statementMillis - 1000);
        }
    }

    @Test
    void theSessionStatementsCarryTheirNumbers() {
        assertThat(SessionSql.endWhenSilentFor(7)).isEqualTo("SET SESSION wait_timeout = 7");
        assertThat(SessionSql.killQuery(42)).isEqualTo("KILL QUERY 42");
    }

    @Test
    void aLockNoLongerHeldIsASessionThatEndedNamedByItsConnectionId() {
        Loss loss = SessionLosses.notHeld(session(17));

        assertThat(loss.cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(loss.reason()).contains("connection id 17").contains("no longer holds it");
    }

    @Test
    void aSecondReleaseIsALossOfUnknownCause() {
        Loss loss = SessionLosses.releasedBefore(session(18));

        assertThat(loss.cause()).isEqualTo(LossCause.UNKNOWN);
        assertThat(loss.reason()).contains("released before").contains("connection id 18");
    }

    @Test
    void aStatementThatTimedOutMeansTheSessionIsUnreachableNotEnded() {
        Loss direct = SessionLosses.failed(session(19), new SQLTimeoutException("read timed out"));
        Loss wrapped = SessionLosses.failed(
                session(19), new SQLException("Communications link failure", new SocketTimeoutException("Read")));

        assertThat(direct.cause()).isEqualTo(LossCause.UNREACHABLE);
        assertThat(direct.reason())
                .contains("connection id 19")
                .contains("did not answer in time")
                .contains("read timed out");
        assertThat(wrapped.cause()).isEqualTo(LossCause.UNREACHABLE);
    }

    @Test
    void anyOtherFailureMeansTheSessionEndedAndOnlyTheFirstLineOfTheErrorIsKept() {
        Loss loss = SessionLosses.failed(
                session(20), new SQLTransientConnectionException("Connection killed\nPlease check the server logs\n"));

        assertThat(loss.cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(loss.reason())
                .contains("connection id 20")
                .contains("Connection killed)")
                .doesNotContain("Please check");
    }

    @Test
    void onlyATimeoutSomewhereInTheCausesCountsAsTimedOut() {
        assertThat(SessionLosses.timedOut(new SQLException("a", new RuntimeException(new SocketTimeoutException()))))
                .isTrue();
        assertThat(SessionLosses.timedOut(new SQLException("a", new RuntimeException("b"))))
                .isFalse();
        assertThat(SessionLosses.timedOut(null)).isFalse();
    }

    private static Session session(long connectionId) {
        return new Session(null, connectionId);
    }
}
